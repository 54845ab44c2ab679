//! The link order of mcp-raw's functions (`link/order.txt`, read by `build.rs`).
//!
//! An idle server's memory is mostly clean pages of its own binary: on a page fault
//! in a file mapping the kernel maps the pages around it too (`fault_around_bytes`,
//! 64 KiB), so code that runs once, spread over a 5 MB text section, keeps most of it
//! resident. Linked first and side by side, the functions that serving actually runs
//! fit in under 1 MB.
//!
//! Which functions those are is measured, not guessed: the callgrind drivers run
//! mcp-raw over stdio and HTTP in both eras (start, handshake, calls, shutdown), and
//! every function of the binary that executed an instruction is listed, the most
//! expensive first (hot code shares pages and cache lines), names as the linker
//! sees them (mangled, from `nm`).
//!
//! ```text
//! mcp-bench link-order BIN OUT      writes the order file
//! mcp-bench link-order --check BIN FILE
//!     how much of the code BIN runs is listed in FILE, and how far apart it lies in
//!     BIN; exit 1 under 80% listed or spread over more than twice its size
//! ```

use crate::callgrind;
use crate::messages::Era;
use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::process::Command;

/// Calls per driver run: enough for the per-call functions to outweigh start-up.
const CALLS: u64 = 200;

/// Under this share of the running code's bytes listed, `--check` fails: the order
/// file no longer matches the code (symbols renamed, toolchain changed).
const MIN_COVERED: f64 = 0.80;

/// `mcp-bench link-order …`.
pub fn main(args: &[String]) -> Result<(), String> {
    match args {
        [flag, bin, file] if flag == "--check" => check(bin, Path::new(file)),
        [bin, out] if !bin.starts_with('-') => write(bin, Path::new(out)),
        _ => Err("usage: mcp-bench link-order BIN OUT | link-order --check BIN FILE".into()),
    }
}

/// Over this many times the running code's size in the 64 KiB windows it touches,
/// `--check` fails: BIN was not linked in the file's order (build.rs skipped it).
const MAX_SPREAD: f64 = 2.0;

/// The kernel's default `fault_around_bytes`: a fault in a file mapping maps the
/// aligned window of this many bytes around it.
const WINDOW: u64 = 64 * 1024;

/// Where a function lies in the binary (`nm -S`).
#[derive(Clone, Copy)]
struct Place {
    /// Its address.
    addr: u64,
    /// Its size in bytes.
    size: u64,
}

/// The binary's defined functions: mangled name → place (`nm -S`).
fn functions(bin: &str) -> Result<HashMap<String, Place>, String> {
    let out = Command::new("nm")
        .args(["-S", "--defined-only", bin])
        .output()
        .map_err(|e| format!("nm: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "nm {bin}: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    let mut map = HashMap::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        // "000000000011ea80 0000000000000026 T _start"
        let cols: Vec<&str> = line.split_whitespace().collect();
        if let [addr, size, kind, name] = cols[..]
            && (kind == "t" || kind == "T")
            && let (Ok(addr), Ok(size)) =
                (u64::from_str_radix(addr, 16), u64::from_str_radix(size, 16))
        {
            map.insert(name.to_owned(), Place { addr, size });
        }
    }
    if map.is_empty() {
        return Err(format!("nm {bin}: no function symbols (stripped?)"));
    }
    Ok(map)
}

/// Every function of `bin` that ran under the drivers, with its own (exclusive)
/// instructions summed over the four runs, most first.
fn ran(bin: &str, defined: &HashMap<String, Place>) -> Result<Vec<(String, u64)>, String> {
    let dir = std::env::temp_dir().join(format!("mcp-bench-link-order-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut cost: HashMap<String, u64> = HashMap::new();
    for http in [false, true] {
        for era in [Era::Legacy, Era::Modern] {
            let out = dir.join(format!(
                "{}-{}.out",
                if http { "http" } else { "stdio" },
                era.version()
            ));
            // Mangled names: the order file speaks the linker's language.
            let argv = callgrind::argv(&out, &["--demangle=no".to_owned(), bin.to_owned()], http);
            callgrind::drive(&argv, era, CALLS, http)?;
            for (name, n) in callgrind::annotate(&out, false)? {
                // "file:symbol" when the binary has line tables; mangled names have no ':'.
                let name = name.rsplit(':').next().unwrap_or(&name);
                if defined.contains_key(name) {
                    *cost.entry(name.to_owned()).or_default() += n;
                }
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    let mut rows: Vec<(String, u64)> = cost.into_iter().collect();
    rows.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    Ok(rows)
}

fn write(bin: &str, out: &Path) -> Result<(), String> {
    let defined = functions(bin)?;
    let rows = ran(bin, &defined)?;
    let bytes: u64 = rows.iter().map(|(n, _)| defined[n].size).sum();
    let mut text = String::from(
        "# mcp-raw's link order: the functions serving runs, hottest first, as lld's\n\
         # --symbol-ordering-file reads them (build.rs passes it for release builds).\n\
         # Written by bench/link-order from callgrind runs of stdio and HTTP in both eras;\n\
         # checked by `mcp-bench link-order --check` in .ci/run. Regenerate after changing\n\
         # the toolchain or the hot path: bench/link-order\n",
    );
    for (name, _) in &rows {
        text.push_str(name);
        text.push('\n');
    }
    std::fs::write(out, text).map_err(|e| format!("{}: {e}", out.display()))?;
    println!(
        "{}: {} functions, {} KiB of code",
        out.display(),
        rows.len(),
        bytes / 1024
    );
    Ok(())
}

fn check(bin: &str, file: &Path) -> Result<(), String> {
    let listed: HashSet<String> = std::fs::read_to_string(file)
        .map_err(|e| format!("{}: {e}", file.display()))?
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_owned)
        .collect();
    let defined = functions(bin)?;
    let rows = ran(bin, &defined)?;
    let total: u64 = rows.iter().map(|(n, _)| defined[n].size).sum();
    let covered: u64 = rows
        .iter()
        .filter(|(n, _)| listed.contains(n))
        .map(|(n, _)| defined[n].size)
        .sum();
    // The 64 KiB windows the running code touches: what fault-around maps.
    let windows: HashSet<u64> = rows
        .iter()
        .flat_map(|(n, _)| {
            let p = defined[n];
            (p.addr / WINDOW)..=((p.addr + p.size.max(1) - 1) / WINDOW)
        })
        .collect();
    let touched = windows.len() as u64 * WINDOW;
    let spread = touched as f64 / total.max(1) as f64;
    let count = rows.iter().filter(|(n, _)| listed.contains(n)).count();
    let share = covered as f64 / total.max(1) as f64;
    println!(
        "link order: {count} of the {} functions serving ran are listed in {} ({} of {} KiB, {:.0}%)",
        rows.len(),
        file.display(),
        covered / 1024,
        total / 1024,
        share * 100.0
    );
    println!(
        "link order: in {bin} they touch {} windows of 64 KiB, {} KiB ({spread:.1}× their size)",
        windows.len(),
        touched / 1024
    );
    if spread > MAX_SPREAD {
        return Err(format!(
            "{bin} spreads the code serving runs over {spread:.1}× its size (over \
             {MAX_SPREAD}×): it was not linked in the order of {} (see build.rs)",
            file.display()
        ));
    }
    if share < MIN_COVERED {
        return Err(format!(
            "{} covers {:.0}% of the code serving runs (under {:.0}%): the hot path or the \
             toolchain changed since it was written; run bench/link-order and commit the file",
            file.display(),
            share * 100.0,
            MIN_COVERED * 100.0
        ));
    }
    Ok(())
}
