//! Both demos run end to end against the real binary, as a user types them (no
//! `--color`, no `--record`, the era by default or passed on after `--`); their whole
//! view must be the one in `tests/golden/demo/` (the same files tests/golden.rs
//! compares the recorded runs with), byte for byte once normalized (times, ports,
//! session ids). Each demo checks every reply itself too, failing on a wrong wire.

mod common;
use common::{BIN, golden};
use std::process::Command;

/// `mcp-raw ARGS`, which must succeed with its stdout piped (so not coloured): its
/// stdout.
fn demo(args: &[&str]) -> String {
    // The demo subcommands' stdout is the subject: a process.
    let out = Command::new(BIN).args(args).output().unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(
        out.status.success(),
        "{args:?} failed: {}\n{stdout}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        !stdout.contains('\x1b'),
        "piped output must not be coloured"
    );
    stdout
}

/// `demo` with no flag is the 2025-11-25 session: the -32002 before the handshake,
/// initialize, the notification nobody answers, the calls, the -32601 and the tool
/// error, the child's exit status.
#[test]
fn stdio_demo_shows_the_whole_session() {
    golden::check("demo/demo-legacy.txt", &demo(&["demo"]));
}

/// `--raw`: each message's exact bytes, one line each, as they crossed.
#[test]
fn stdio_demo_raw_prints_exact_lines() {
    golden::check("demo/demo-legacy-raw.txt", &demo(&["demo", "--raw"]));
}

/// `demo-http` with no era: every status of the 2025-11-25 transport (400, 200 with
/// a session id, 202, an SSE stream, 404, 405 with Allow, 204 for DELETE).
#[test]
fn http_demo_shows_every_exchange() {
    golden::check(
        "demo/demo-http-legacy.txt",
        &demo(&["demo-http", "--port", "0"]),
    );
}

#[test]
fn stdio_demo_modern_shows_the_stateless_wire() {
    // `cargo demo -- --era modern` passes `demo -- --era modern` to the binary.
    golden::check(
        "demo/demo-modern.txt",
        &demo(&["demo", "--", "--era", "modern"]),
    );
}

#[test]
fn http_demo_modern_shows_headers_and_statuses() {
    golden::check(
        "demo/demo-http-modern.txt",
        &demo(&["demo-http", "--port", "0", "--era", "modern"]),
    );
}

#[test]
fn both_era_demos_put_the_two_wires_side_by_side() {
    golden::check("demo/demo-both.txt", &demo(&["demo", "--era", "both"]));
    golden::check(
        "demo/demo-http-both.txt",
        &demo(&["demo-http", "--port", "0", "--era", "both"]),
    );
}
