//! `mcp-raw show`, through the real binary: message filters (`--method`, `--id`,
//! `--era`), `--json` (a transcript again, or the kept messages' fact lines),
//! `--explain`, and `--follow` on a recording still being written.

mod common;

use common::cli_inproc::{Ran, cli_here};
use common::{BIN, golden};
use serde_json::Value;
use std::io::Read;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::Duration;

fn scratch(name: &str) -> std::path::PathBuf {
    common::scratch("show", name)
}

/// A stdio session of mcp-raw's client with `mcp-raw serve` in `era` (two calls),
/// recorded to `file`.
fn record_to(file: &std::path::Path, era: &str) {
    // A stdio recording: the client (in-process) spawns `mcp-raw serve` over pipes.
    let out = cli_here([
        "client",
        "--era",
        era,
        "--call",
        "add={\"a\":2,\"b\":3}",
        "--call",
        "get_current_time",
        "--record",
        file.to_str().unwrap(),
        "--",
        BIN,
        "serve",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// This run's recording of such a session in `era` (legacy or modern), made once
/// and read by every test that only reads it.
fn record(era: &str) -> &'static std::path::Path {
    static LEGACY: OnceLock<PathBuf> = OnceLock::new();
    static MODERN: OnceLock<PathBuf> = OnceLock::new();
    let once = if era == "legacy" { &LEGACY } else { &MODERN };
    once.get_or_init(|| {
        let file = scratch(&format!("recorded-{era}")).join(format!("{era}.jsonl"));
        record_to(&file, era);
        file
    })
}

/// `mcp-raw show FILE --color never ARGS…`, run to its end.
fn show_output(args: &[&str], file: &std::path::Path) -> Ran {
    // Show's flags, its --html refusal and exit status, in-process.
    let head = ["show", file.to_str().unwrap(), "--color", "never"];
    cli_here(head.iter().chain(args).copied())
}

fn show(args: &[&str], file: &std::path::Path) -> String {
    let out = show_output(args, file);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn message_filters_keep_requests_and_the_responses_to_them() {
    let file = record("legacy");
    // The whole view, byte for byte (normalized for times only): both calls and
    // their results (the add's "5"), and no tools/list, no initialize.
    let calls = show(&["--method", "tools/call"], file);
    golden::check("show/filter-method-tools-call.txt", &calls);
    // --id 1: initialize and its result, nothing else.
    let one = show(&["--id", "1", "--raw"], file);
    assert_eq!(one.lines().count(), 2, "{one}");
    golden::check("show/filter-id-1-raw.txt", &one);
    // --era: a legacy recording has no modern message; a modern one has only those
    // (every request declares itself in _meta
    // io.modelcontextprotocol/protocolVersion) and their results.
    assert_eq!(show(&["--era", "modern"], file), "");
    let modern = record("modern");
    let m = show(&["--era", "modern", "--raw"], modern);
    assert!(!m.is_empty());
    golden::check("show/filter-era-modern-raw.txt", &m);
}

#[test]
fn json_is_a_transcript_again_or_the_kept_messages() {
    let dir = scratch("json");
    let file = record("legacy");
    let again = dir.join("again.jsonl");
    std::fs::write(&again, show(&["--json"], file)).unwrap();
    assert_eq!(
        show(&["--raw"], &again),
        show(&["--raw"], file),
        "the same bytes, rendered the same"
    );
    let kept = show(&["--json", "--method", "tools/call"], file);
    let facts: Vec<Value> = kept
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(facts.len(), 4, "two calls, two results: {kept}");
    assert!(facts.iter().all(|f| f["fact"] == "message"));
    assert_eq!(facts[0]["method"], "tools/call");
    assert_eq!(facts[1]["shape"], "response");
    assert_eq!(facts[1]["id"], facts[0]["id"]);
}

#[test]
fn explain_names_the_shape_the_method_and_its_section() {
    let file = record("legacy");
    // Each message's notes, whole: the request's shape (id 1, one response), what
    // initialize opens (a 2025-11-25 session), the result's JSON-RPC 2.0 §5, and a
    // notification's "no id, so no answer, ever".
    let text = show(&["--explain"], file);
    golden::check("show/explain-stdio-legacy.txt", &text);
    // Modern: every message carries its own protocol version (2026-07-28).
    let modern = record("modern");
    let text = show(&["--explain"], modern);
    golden::check("show/explain-stdio-modern.txt", &text);
}

/// `--follow` started before the file exists renders the session as it is recorded.
#[test]
fn follow_renders_a_recording_as_it_grows() {
    let dir = scratch("follow");
    let file = dir.join("live.jsonl");
    // --follow (polling a growing file, stopped by a kill) is the CLI's loop: a process.
    let mut follower = Command::new(BIN)
        .args([
            "show",
            "--follow",
            "--color",
            "never",
            "--method",
            "tools/call",
        ])
        .arg(&file)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = follower.stdout.take().unwrap();
    let (done, finished) = std::sync::mpsc::channel();
    let reader = std::thread::spawn(move || {
        let mut seen = Vec::new();
        let mut buf = [0u8; 4096];
        loop {
            match out.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => seen.extend_from_slice(&buf[..n]),
            }
            // Both calls and the whole of both results (a result's lines may come
            // in more than one read).
            let text = String::from_utf8_lossy(&seen);
            if text.matches("\"method\": \"tools/call\"").count() == 2
                && text.matches("<<< [").count() == 2
                && text.ends_with("<<< }\n")
            {
                break;
            }
        }
        let _ = done.send(());
        String::from_utf8_lossy(&seen).into_owned()
    });
    record_to(&file, "legacy");
    // Bounded: a follower that never shows it all is killed, which ends the reader.
    let _ = finished.recv_timeout(Duration::from_secs(20));
    let _ = follower.kill();
    let _ = follower.wait();
    let seen = reader.join().unwrap();
    // Both calls and both results: byte for byte what `show` renders of the finished
    // file, and (normalized) the same view as the one of a finished legacy
    // recording of these calls in tests/golden/show/.
    assert_eq!(seen, show(&["--method", "tools/call"], &file));
    golden::check("show/filter-method-tools-call.txt", &seen);
}

/// `--html`: one page that needs nothing from the network, the live page frozen with
/// a row per message in its data block (the browser half of this is scripts/html.sh,
/// in headless Chromium).
#[test]
fn html_is_one_self_contained_page_with_every_message() {
    let dir = scratch("html");
    let file = record("legacy");
    let page = dir.join("page.html");
    show(&["--html", page.to_str().unwrap()], file);
    let html = std::fs::read_to_string(&page).unwrap();
    let facts = show(&["--json"], file)
        .lines()
        .filter(|l| l.contains("\"fact\":\"message\""))
        .count();
    assert!(facts >= 8);
    let start = html
        .find("<script type=\"application/json\" id=\"recording\">")
        .expect("a data block")
        + "<script type=\"application/json\" id=\"recording\">".len();
    let end = start + html[start..].find("</script>").unwrap();
    let data: Value = serde_json::from_str(&html[start..end]).unwrap();
    let rows = data["rows"].as_array().unwrap();
    let payloads = rows
        .iter()
        .filter(|r| r["kind"] == "msg" || r["kind"] == "odd")
        .count();
    assert_eq!(payloads, facts);
    for needle in ["src=\"", "href=\"", "@import", "url("] {
        assert!(!html.contains(needle), "the page loads {needle}");
    }
    // Every message's row, whole, as the page's script receives it (its summary, its
    // exact bytes, laid out, its notes): among them "request initialize #1 (legacy)"
    // with "initialize opens a 2025-11-25 session…". Its time (`t`) and its event's
    // position (`n`) are left out: where the server's stderr lines fall among the
    // messages depends on scheduling.
    let messages: String = rows
        .iter()
        .filter(|r| r["kind"] == "msg")
        .map(|r| {
            let mut r = r.clone();
            let o = r.as_object_mut().unwrap();
            o.shift_remove("t");
            o.shift_remove("n");
            format!("{r}\n")
        })
        .collect();
    golden::check("show/page-stdio-legacy-rows.jsonl", &messages);
    let out = show_output(&["--html", "/nonexistent-dir/page.html"], file);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "mcp-raw show: --html /nonexistent-dir/page.html: cannot write it: No such file or directory (os error 2)\n"
    );
}

/// `show` and `check` read a recording as a stream: a line that is not an event
/// halfway through ends the view there — what came before it is shown, exactly as
/// for the file cut at that line — and the error names the line (exit 2). `check`
/// reports nothing for a file it could not read to its end.
#[test]
fn a_bad_line_midway_ends_the_stream_with_its_line_number() {
    let good = std::fs::read_to_string(record("legacy")).unwrap();
    let lines: Vec<&str> = good.lines().collect();
    let cut = lines.len() / 2;
    let dir = scratch("midway");
    let (head_only, broken) = (dir.join("head.jsonl"), dir.join("broken.jsonl"));
    std::fs::write(&head_only, lines[..cut].join("\n") + "\n").unwrap();
    let mut bad = lines[..cut].join("\n");
    bad.push_str("\n{\"t\": 1, \"lane\": \"stdio\", \"dir\": \"sideways\", \"text\": \"x\"}\n");
    bad.push_str(&lines[cut..].join("\n"));
    std::fs::write(&broken, bad).unwrap();
    for view in [
        &[][..],
        &["--raw"][..],
        &["--oneline"][..],
        &["--pretty"][..],
    ] {
        let out = show_output(view, &broken);
        assert_eq!(out.status.code(), Some(2), "{view:?}");
        assert_eq!(
            String::from_utf8_lossy(&out.stderr),
            format!(
                "mcp-raw show: {} is not a transcript mcp-raw can read: line {}: bad \"dir\" (c2s or s2c): \"sideways\"\n",
                broken.display(),
                cut + 1
            ),
            "{view:?}"
        );
        if view != ["--pretty"] {
            assert_eq!(out.stdout, show(view, &head_only).into_bytes(), "{view:?}");
        }
    }
    let checked = cli_here(["check", broken.to_str().unwrap()]);
    assert_eq!(checked.status.code(), Some(2));
    assert!(checked.stdout.is_empty());
    assert_eq!(
        String::from_utf8_lossy(&checked.stderr),
        format!(
            "mcp-raw check: {} is not a transcript mcp-raw can read: line {}: bad \"dir\" (c2s or s2c): \"sideways\"\n",
            broken.display(),
            cut + 1
        )
    );
}
