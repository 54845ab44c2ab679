//! Golden files: every output format a user reads or a program parses, made by the
//! real binary and compared byte for byte with `tests/golden/` once the one
//! normalizer of `tests/common/golden.rs` has replaced times, ids, ports and paths
//! (its documentation lists exactly what, and why).
//! `UPDATE_GOLDEN=1 cargo test --test golden` rewrites the files after a deliberate
//! change; review the diff, the files are the spec.
//!
//! - `demo/`: both demos in every era, their text view and their transcript's facts.
//! - `transcript/`: a recording (`--record`) whole, over stdio and over HTTP.
//! - `help/`: `--help` of the top command and of every subcommand it lists (a
//!   subcommand without its file fails, and so does a file without its subcommand).
//! - `show/`: one recording (`demo-http --era both`, kept there as `recording.jsonl`)
//!   in each of `show`'s formats, compared unnormalized.
//! - `check/`: a recording that breaks rules in text, JSON and JUnit; a clean one;
//!   the kept recording; the rule list.
//! - `diff/`: two recordings that differ, in text and JSON.
//! - `client/`: the client's view of `serve` over stdio and HTTP, readable and `--raw`.
//! - `serve/`: what `serve` writes on stderr over stdio: its log, and `--trace` in
//!   each view.

mod common;
use common::{BIN, InProcess, golden};
use std::collections::BTreeSet;
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

/// `mcp-raw ARGS` with an empty environment (nothing the help shows or the views
/// colour may come from the caller's): its exit code and stdout.
fn run(args: &[&str]) -> (Option<i32>, String) {
    // Golden files of the CLI's own output (--help, an empty environment): a process.
    let out = Command::new(BIN).args(args).env_clear().output().unwrap();
    (out.status.code(), stdout(&out))
}

fn stdout(out: &Output) -> String {
    String::from_utf8(out.stdout.clone()).unwrap_or_else(|e| panic!("stdout not UTF-8: {e}"))
}

/// `mcp-raw ARGS`, which must succeed: its stdout.
fn ok(args: &[&str]) -> String {
    // Golden files of the CLI's own output (an empty environment): a process.
    let out = Command::new(BIN).args(args).env_clear().output().unwrap();
    assert!(
        out.status.success(),
        "mcp-raw {args:?}: {}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    stdout(&out)
}

fn scratch(name: &str) -> PathBuf {
    golden::scratch().join(name)
}

/// Runs a demo with `--record`, returning its text view and the recording.
fn record_demo(name: &str, args: &[&str]) -> (String, String) {
    let record = scratch(&format!("{name}.jsonl"));
    let mut all = args.to_vec();
    all.extend(["--color", "never", "--record", record.to_str().unwrap()]);
    let view = ok(&all);
    let jsonl = std::fs::read_to_string(&record).unwrap();
    (view, jsonl)
}

/// The facts of a transcript (its `"fact"` lines), the stderr lane left out.
fn facts(jsonl: &str) -> String {
    let mut out = String::new();
    for line in jsonl.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        if v.get("fact").is_some() {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

fn demo(name: &str, args: &[&str]) {
    let (view, jsonl) = record_demo(name, args);
    golden::check(&format!("demo/{name}.txt"), &view);
    golden::check(&format!("demo/{name}.facts.jsonl"), &facts(&jsonl));
    if name.ends_with("-both") {
        golden::check(&format!("transcript/{name}.jsonl"), &jsonl);
    }
}

#[test]
fn stdio_demo_in_every_era() {
    for era in ["legacy", "modern", "both"] {
        demo(&format!("demo-{era}"), &["demo", "--era", era]);
    }
}

#[test]
fn http_demo_in_every_era() {
    for era in ["legacy", "modern", "both"] {
        demo(
            &format!("demo-http-{era}"),
            &["demo-http", "--port", "0", "--era", era],
        );
    }
}

/// The subcommands a `--help` lists under `Commands:` (two spaces, a name, spaces).
fn subcommands(help: &str) -> Vec<String> {
    help.lines()
        .skip_while(|l| *l != "Commands:")
        .skip(1)
        .take_while(|l| !l.is_empty())
        .filter_map(|l| l.strip_prefix("  ")?.split(' ').next())
        .filter(|name| !name.is_empty())
        .map(str::to_owned)
        .collect()
}

#[test]
fn every_subcommand_has_its_help() {
    let top = ok(&["--help"]);
    golden::check("help/mcp-raw.txt", &top);
    assert_eq!(ok(&["help"]), top, "`mcp-raw help` is `mcp-raw --help`");
    let subs = subcommands(&top);
    assert!(
        subs.len() >= 13 && subs.iter().any(|s| s == "show"),
        "the Commands: list was not found in --help: {subs:?}"
    );
    let mut files = BTreeSet::from(["mcp-raw.txt".to_owned()]);
    for sub in &subs {
        // clap's own `help SUB` prints SUB's help: checked below for each SUB.
        if sub == "help" {
            continue;
        }
        let help = ok(&[sub, "--help"]);
        golden::check(&format!("help/{sub}.txt"), &help);
        assert_eq!(ok(&["help", sub]), help, "`help {sub}` is `{sub} --help`");
        files.insert(format!("{sub}.txt"));
    }
    // A file whose subcommand is gone is stale (UPDATE_GOLDEN=1 removes it).
    for entry in std::fs::read_dir(golden::dir().join("help")).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        if !files.contains(&name) {
            if golden::updating() {
                std::fs::remove_file(golden::dir().join("help").join(&name)).unwrap();
            } else {
                panic!("tests/golden/help/{name} names no subcommand of `mcp-raw --help`");
            }
        }
    }
}

/// `tests/golden/show/recording.jsonl`: a recording of `demo-http --era both` kept as
/// an input, so that what `show` and `check` make of it is compared unnormalized
/// (and a recording of today stays readable tomorrow). A fresh run's ends race
/// (`closed: EOF` or `dropped`), a kept file's do not. `UPDATE_GOLDEN=1` makes it
/// when it is missing; delete it to make a new one.
fn kept_recording() -> PathBuf {
    let path = golden::dir().join("show/recording.jsonl");
    if !path.exists() {
        assert!(
            golden::updating(),
            "{} is missing (UPDATE_GOLDEN=1 makes it)",
            path.display()
        );
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        let (_, jsonl) = record_demo("kept", &["demo-http", "--port", "0", "--era", "both"]);
        std::fs::write(&path, jsonl).unwrap();
    }
    path
}

/// `mcp-raw ARGS` in `tests/golden/show/` (so a file is named as `recording.jsonl`,
/// wherever the repository is), which must exit with `code`: its stdout.
fn in_show_dir(args: &[&str], code: i32) -> String {
    // Show and check as the CLI renders them, in a chosen working directory, exit statuses checked: a process.
    let out = Command::new(BIN)
        .args(args)
        .current_dir(golden::dir().join("show"))
        .env_clear()
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(code),
        "mcp-raw {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout(&out)
}

#[test]
fn show_renders_one_recording_in_every_format() {
    let jsonl = std::fs::read_to_string(kept_recording()).unwrap();
    let show = |extra: &[&str]| {
        let mut args = vec!["show", "recording.jsonl", "--color", "never"];
        args.extend(extra);
        in_show_dir(&args, 0)
    };
    let text = show(&[]);
    golden::compare("show/text.txt", &text);
    golden::compare("show/raw.txt", &show(&["--raw"]));
    golden::compare("show/explain.txt", &show(&["--explain"]));
    golden::compare("show/oneline.txt", &show(&["--oneline"]));
    let pretty = show(&["--pretty"]);
    golden::compare("show/pretty.json", &pretty);
    // --format names the same three.
    assert_eq!(show(&["--format", "text"]), text);
    assert_eq!(show(&["--format", "pretty"]), pretty);
    // Unfiltered, --json gives the recording back as it was written.
    assert_eq!(show(&["--json"]), jsonl);
    assert_eq!(show(&["--format", "json"]), jsonl);
    // --html writes one page, and nothing on stdout.
    let page = scratch("show.html");
    assert_eq!(show(&["--html", page.to_str().unwrap()]), "");
    golden::compare("show/page.html", &std::fs::read_to_string(&page).unwrap());
}

/// `check` of the kept recording: the demo's deliberate GET without
/// `Accept: text/event-stream` (to show the 405 a modern server answers) is a finding.
#[test]
fn check_reads_the_kept_recording() {
    kept_recording();
    golden::compare(
        "check/demo-http-both.txt",
        &in_show_dir(&["check", "recording.jsonl", "--color", "never"], 1),
    );
}

/// `serve --record FILE` over stdio, driven step by step: each step's lines go in
/// one write (so the server reads them as one event, whatever the scheduling) and
/// its last line is a request, whose one reply line is read before the next step.
/// Returns FILE.
fn converse(name: &str, steps: &[&[&str]]) -> String {
    converse_with(name, &[], steps).0
}

/// As [`converse`], with more flags for `serve`: FILE, and what it wrote on stderr.
fn converse_with(name: &str, flags: &[&str], steps: &[&[&str]]) -> (String, String) {
    let file = scratch(&format!("{name}.jsonl"));
    // Serve over stdio (its pipes, its stderr log and trace): a process.
    let mut serve = Command::new(BIN)
        .args(["serve", "--record", file.to_str().unwrap()])
        .args(flags)
        .env_clear()
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut to = serve.stdin.take().unwrap();
    let mut from = BufReader::new(serve.stdout.take().unwrap());
    let mut stderr = serve.stderr.take().unwrap();
    let log = std::thread::spawn(move || {
        let mut log = String::new();
        std::io::Read::read_to_string(&mut stderr, &mut log).unwrap();
        log
    });
    for lines in steps {
        let chunk: String = lines.iter().map(|l| format!("{l}\n")).collect();
        to.write_all(chunk.as_bytes()).unwrap();
        to.flush().unwrap();
        let mut reply = String::new();
        from.read_line(&mut reply).unwrap();
        assert!(reply.ends_with('\n'), "no reply to {lines:?}");
    }
    drop(to);
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut from, &mut rest).unwrap();
    assert_eq!(rest, "", "more replies than requests");
    assert!(serve.wait().unwrap().success());
    (file.to_str().unwrap().to_owned(), log.join().unwrap())
}

/// What `serve` writes on stderr over stdio: its log, and each `--trace` view of the
/// wire (the log lines about a read follow the answers to it).
#[test]
fn serve_logs_and_traces_on_stderr() {
    let steps: &[&[&str]] = &[
        &[INITIALIZE],
        &[
            INITIALIZED,
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
        ],
        &[
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}"#,
        ],
        &[r#"{"jsonrpc":"2.0","id":4,"method":"no/such/method"}"#],
    ];
    for (name, flags) in [
        ("log", &["--color", "never"][..]),
        ("trace", &["--trace", "--color", "never"][..]),
        ("trace-raw", &["--trace", "raw", "--color", "never"][..]),
        (
            "trace-oneline",
            &["--trace", "oneline", "--color", "never"][..],
        ),
    ] {
        let (_, log) = converse_with(&format!("serve-{name}"), flags, steps);
        golden::check(&format!("serve/stdio-{name}.txt"), &log);
    }
}

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

/// `check FILE --format FORMAT`, which must exit with `code`: its stdout.
fn check_as(file: &str, format: &str, code: i32) -> String {
    let (got, out) = run(&["check", file, "--format", format, "--color", "never"]);
    assert_eq!(got, Some(code), "check --format {format}: {out}");
    out
}

/// A conversation in which every step breaks a rule or makes the server break one.
#[test]
fn check_reports_findings_in_every_format() {
    let file = converse(
        "check",
        &[
            // lifecycle/first-not-initialize
            &[r#"{"jsonrpc":"2.0","id":9,"method":"tools/list"}"#],
            // stdio/blank-line
            &["", INITIALIZE],
            // jsonrpc/batch-removed in 2025-11-25
            &[INITIALIZED, r#"[{"jsonrpc":"2.0","id":3,"method":"ping"}]"#],
            &[
                r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}"#,
            ],
            // jsonrpc/duplicate-id: 4 again, so the call's answer is a ping's
            &[r#"{"jsonrpc":"2.0","id":4,"method":"ping"}"#],
            // cancel/unknown-request, jsonrpc/response-to-nothing, stdio/not-a-message
            &[
                r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":77}}"#,
                r#"{"jsonrpc":"2.0","id":"s1","result":{}}"#,
                "hello",
            ],
        ],
    );
    golden::check("check/findings.txt", &check_as(&file, "text", 1));
    golden::check("check/findings.json", &check_as(&file, "json", 1));
    golden::check("check/findings.xml", &check_as(&file, "junit", 1));
    golden::compare("check/rules.txt", &ok(&["check", "--rules"]));
}

/// A legacy session that echoes `message`, recorded by the server.
fn echo_session(name: &str, message: &str) -> String {
    let call = format!(
        r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{"name":"echo","arguments":{{"message":"{message}"}}}}}}"#
    );
    converse(name, &[&[INITIALIZE], &[INITIALIZED, &call]])
}

#[test]
fn diff_names_what_differs() {
    let a = echo_session("diff-a", "hello");
    let b = echo_session("diff-b", "help");
    for (format, name) in [("text", "diff/echo.txt"), ("json", "diff/echo.json")] {
        let (code, out) = run(&["diff", &a, &b, "--format", format, "--color", "never"]);
        assert_eq!(code, Some(1), "diff exits 1 when they differ: {out}");
        golden::check(name, &out);
    }
    // The same recording against itself: nothing.
    let (code, out) = run(&["diff", &a, &a, "--color", "never"]);
    assert_eq!(code, Some(0), "{out}");
    golden::check("diff/same.txt", &out);
    // A session of the rules' own kind breaks none.
    golden::check("check/clean.txt", &check_as(&a, "text", 0));
}

#[test]
fn the_client_shows_the_wire_over_stdio_and_http() {
    let add = r#"add={"a":2,"b":3}"#;
    for (view, flags) in [("view", &[][..]), ("raw", &["--raw"][..])] {
        let mut args = vec!["client", "--color", "never", "--call", add];
        args.extend(flags);
        let mut stdio = args.clone();
        stdio.extend(["--", BIN, "serve"]);
        golden::check(&format!("client/stdio-{view}.txt"), &ok(&stdio));

        // The client is the subject; the server it talks to runs in-process.
        let server = InProcess::demo();
        let url = format!("http://{}/mcp", server.addr);
        args.push(&url);
        golden::check(&format!("client/http-{view}.txt"), &ok(&args));
    }
}

/// The normalizer replaces what it documents, keeps the rest byte for byte.
#[test]
fn the_normalizer_replaces_only_what_it_documents() {
    let scratch = golden::scratch().join("a.jsonl");
    let input = format!(
        concat!(
            "{{\"t\":0.004971,\"started\":\"2026-12-05T00:53:28.659Z\",\"at\":\"2026-12-05T00:53:28+01:00\"}}\n",
            "<<< date: Sat, 05 Dec 2026 00:53:48 GMT\r\n",
            "<<< mcp-session-id: e7aa641d-10c1-4db7-bd33-0123456789ab\n",
            "    [server stderr] anything\n",
            "{{\"t\":1,\"lane\":\"stderr\",\"text\":\"x\"}}\n",
            "··· [c1 +0.050s] s2c closed: EOF\n",
            "{{\"t\":0.05,\"lane\":\"c1\",\"dir\":\"c2s\",\"close\":\"dropped\"}}\n",
            ">>> [c1 +0.013s] host: 127.0.0.1:42717, localhost:8080, [::1]:3100\n",
            "event 2 stdio c2s 0.000269s: \"t\": 12.5\n",
            "··· spawned {} serve, recording to {}\n",
            "kept: 0.1.0 v1.5s 3.5 s 127.0.0.1 e7aa641d 2026-12-05 12 ms \"t\":\"x\" +1s",
        ),
        BIN,
        scratch.display()
    );
    let want = concat!(
        "{\"t\":<t>,\"started\":\"<time>\",\"at\":\"<time>\"}\n",
        "<<< date: <date>\r\n",
        "<<< mcp-session-id: <uuid>\n",
        ">>> [c1 +<t>s] host: 127.0.0.1:<port>, localhost:<port>, [::1]:<port>\n",
        "event 2 stdio c2s <t>s: \"t\": <t>\n",
        "··· spawned <bin> serve, recording to <scratch>/a.jsonl\n",
        "kept: 0.1.0 v1.5s 3.5 s 127.0.0.1 e7aa641d 2026-12-05 12 ms \"t\":\"x\" +1s",
    );
    assert_eq!(golden::normalize(&input), want);
}
