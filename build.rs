//! Links the functions serving runs first and side by side (`link/order.txt`), so an
//! idle server keeps about 1 MB of its code resident instead of 3: the kernel maps
//! 64 KiB around every page of code that runs, and run-once code spread over a 5 MB
//! text section touches most of it. The file is measured, not written by hand
//! (`bench/link-order`; the book, `docs/en/src/internals/performance.md`).
//!
//! Only where the linker is known to be lld, the one that reads an ordering file:
//! release builds for x86_64-unknown-linux-gnu with rustc 1.90 or later (its default
//! linker there is the bundled rust-lld) and no linker chosen by the user. Anywhere
//! else, or with `MCP_RAW_LINK_ORDER=0`, nothing changes but the layout.

use std::env;
use std::path::Path;
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=link/order.txt");
    println!("cargo:rerun-if-env-changed=MCP_RAW_LINK_ORDER");
    if env::var("MCP_RAW_LINK_ORDER").as_deref() == Ok("0") {
        return;
    }
    let release = env::var("PROFILE").as_deref() == Ok("release");
    let target = env::var("TARGET").as_deref() == Ok("x86_64-unknown-linux-gnu");
    // A linker the user picked (`target.<triple>.linker`, `-C linker=…`,
    // `-C linker-features=-lld`) may not know the option; any link flag of the
    // user's in RUSTFLAGS (`-C link-arg…`, `-C link-self-contained…`) is left alone too.
    let chosen = env::var_os("RUSTC_LINKER").is_some()
        || env::var("CARGO_ENCODED_RUSTFLAGS").is_ok_and(|f| f.contains("link"));
    if !release || !target || chosen || !rustc_links_with_lld() {
        return;
    }
    let dir = env::var("CARGO_MANIFEST_DIR").unwrap_or_default();
    let order = Path::new(&dir).join("link").join("order.txt");
    if !order.is_file() {
        return;
    }
    println!(
        "cargo:rustc-link-arg-bin=mcp-raw=-Wl,--symbol-ordering-file={}",
        order.display()
    );
    // Symbols the file names but this build lacks (another toolchain, renamed code)
    // are skipped quietly; `mcp-bench link-order --check` is what notices.
    println!("cargo:rustc-link-arg-bin=mcp-raw=-Wl,--no-warn-symbol-ordering");
}

/// rustc 1.90 made the bundled rust-lld the default linker of
/// x86_64-unknown-linux-gnu; earlier ones link with the system's `cc`/`ld`.
fn rustc_links_with_lld() -> bool {
    let rustc = env::var("RUSTC").unwrap_or_else(|_| "rustc".to_owned());
    let Ok(out) = Command::new(rustc).arg("-vV").output() else {
        return false;
    };
    let text = String::from_utf8_lossy(&out.stdout);
    let Some(release) = text.lines().find_map(|l| l.strip_prefix("release: ")) else {
        return false;
    };
    let mut parts = release.split(['.', '-']);
    let major: u32 = parts.next().and_then(|p| p.parse().ok()).unwrap_or(0);
    let minor: u32 = parts.next().and_then(|p| p.parse().ok()).unwrap_or(0);
    (major, minor) >= (1, 90)
}
