//! `mcp-raw check` and `tap --check`, through the real binary: servers that break
//! rules on purpose (stdio and HTTP) and clients that do, each violation named with
//! its rule; clean recordings of mcp-raw's own client and server report nothing.

mod common;

use common::cli_inproc::{Ran, cli_here};
use common::http_client::{exchange, request_bytes};
use common::{BIN, golden};
use mcp_raw_wire::recorder::{Recorder, Sink};
use mcp_raw_wire::{event::Event, transcript, transcript_write};
use serde_json::Value;
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::mpsc;

/// A recorder's sink that hands each event on, as its transcript line.
struct Told(mpsc::Sender<String>);

impl Sink for Told {
    fn event(&mut self, event: &Event) {
        let _ = self.0.send(transcript::event_json(event).to_string());
    }
}

fn scratch(name: &str) -> std::path::PathBuf {
    common::scratch("check", name)
}

fn server_script(name: &str) -> String {
    format!("{}/tests/servers/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// `mcp-raw check ARGS…`, run to its end (in-process: the command line's own code,
/// its stdout, stderr and exit status).
fn check(args: &[&str]) -> Ran {
    cli_here(std::iter::once("check").chain(args.iter().copied()))
}

fn path(file: &std::path::Path) -> &str {
    file.to_str().unwrap()
}

/// `check FILE --format json`: its exit code and its document.
fn check_json(file: &std::path::Path) -> (i32, Value) {
    let out = check(&["--format", "json", path(file)]);
    let doc = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "check printed no JSON ({e}): {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (out.status.code().unwrap_or(-1), doc)
}

/// How many findings of each rule.
fn rules_of(doc: &Value) -> BTreeMap<String, usize> {
    let mut m = BTreeMap::new();
    for f in doc["findings"].as_array().unwrap() {
        *m.entry(f["rule"].as_str().unwrap().to_owned()).or_default() += 1;
    }
    m
}

fn expect(pairs: &[(&str, usize)]) -> BTreeMap<String, usize> {
    pairs.iter().map(|(r, n)| ((*r).to_owned(), *n)).collect()
}

/// A stdio server breaking a rule or more per message, driven line by line through
/// `tap --check --record`: each reply is read before the next line goes, so the
/// recording's order is the conversation's.
#[test]
fn a_stdio_server_that_breaks_rules_is_named_rule_by_rule() {
    let dir = scratch("stdio");
    let file = dir.join("tap.jsonl");
    // The stdio tap with --check: its pipes and its live findings on stderr are the CLI's: a process.
    let mut tap = Command::new(BIN)
        .args(["tap", "--check", "--record"])
        .arg(&file)
        .args(["--", "python3", &server_script("rule_breaker.py")])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut to = tap.stdin.take().unwrap();
    let mut from = BufReader::new(tap.stdout.take().unwrap());
    let steps: &[(&str, usize)] = &[
        (r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#, 1),
        ("", 0),
        (
            r#"{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
            2,
        ),
        (
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            4,
        ),
        (r#"{"jsonrpc":"2.0","id":3,"method":"tools/list"}"#, 2),
        (r#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#, 1),
        (
            r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"x","arguments":{},"_meta":{"progressToken":"p"}}}"#,
            5,
        ),
        (
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":77}}"#,
            0,
        ),
        (
            r#"{"jsonrpc":"2.0","id":"s1","result":{"role":"assistant","content":{"type":"text","text":"ok"},"model":"m"}}"#,
            0,
        ),
        (r#"{"jsonrpc":"2.0","id":6,"method":"ping"}"#, 0),
    ];
    for (line, replies) in steps {
        writeln!(to, "{line}").unwrap();
        to.flush().unwrap();
        for _ in 0..*replies {
            let mut reply = Vec::new();
            from.read_until(b'\n', &mut reply).unwrap();
            assert!(!reply.is_empty(), "the server ended early");
        }
    }
    drop(to);
    let out = tap.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "the tap passes the server's status on"
    );
    let live = String::from_utf8_lossy(&out.stderr);

    let want = expect(&[
        ("lifecycle/first-not-initialize", 1),
        ("stdio/blank-line", 1),
        ("stdio/not-a-message", 3),
        ("jsonrpc/response-to-nothing", 1),
        ("capability/client-undeclared", 1),
        ("jsonrpc/batch-removed", 1),
        ("capability/server-undeclared", 2),
        ("jsonrpc/answered-twice", 1),
        ("jsonrpc/duplicate-id", 1),
        ("ping/non-empty-result", 1),
        ("progress/unknown-token", 1),
        ("progress/not-increasing", 1),
        ("transport/bom", 1),
        ("cancel/unknown-request", 1),
        ("jsonrpc/unanswered", 1),
    ]);
    let (code, doc) = check_json(&file);
    assert_eq!(rules_of(&doc), want, "{doc:#}");
    assert_eq!(code, 1, "errors make check exit 1");
    assert_eq!(doc["warnings"], 2, "blank line and the unanswered ping");
    // Each finding quotes the wire and names its section.
    let findings = doc["findings"].as_array().unwrap();
    let pollution = findings
        .iter()
        .find(|f| f["rule"] == "stdio/not-a-message")
        .unwrap();
    assert_eq!(
        pollution["message"],
        "the server's stdout carried \"hello from the server\" (Parse error: expected value at line 1 column 1)"
    );
    assert_eq!(
        pollution["spec"],
        "MCP 2025-11-25 basic/transports \"stdio\""
    );
    assert_eq!(pollution["lane"], "stdio");
    assert_eq!(pollution["dir"], "s2c");

    // Live: the same findings on the tap's stderr, then the summary.
    // (Checked line by line, not as a golden file: which event a finding names
    // depends on how the pipe's reads group the server's separately flushed
    // writes, and the normalizer does not hide event numbers.)
    // Each live finding line, its place (`event N LANE DIR Ts: `) cut off, is the
    // whole of one finding of the file's report: severity, rule, message, section.
    let mut said: Vec<String> = live
        .lines()
        .filter_map(|l| l.strip_prefix("[mcp-raw check] event "))
        .map(|l| {
            l.split_once("s: ")
                .expect("a place, then the finding")
                .1
                .to_owned()
        })
        .collect();
    let mut reported: Vec<String> = findings
        .iter()
        .map(|f| {
            format!(
                "{} {}: {}  [{}]",
                f["severity"].as_str().unwrap(),
                f["rule"].as_str().unwrap(),
                f["message"].as_str().unwrap(),
                f["spec"].as_str().unwrap()
            )
        })
        .collect();
    said.sort();
    reported.sort();
    assert_eq!(said, reported, "{live}");
    // The summary: the last line, whole.
    assert_eq!(
        live.lines().last().unwrap(),
        format!(
            "[mcp-raw check] 16 errors, 2 warnings in {} messages ({} events, 45 rules checked)",
            doc["messages"], doc["events"]
        ),
        "{live}"
    );

    // JUnit: a case per rule, the broken error rules failing.
    let junit = check(&["--format", "junit", path(&file)]);
    assert_eq!(junit.status.code(), Some(1));
    let xml = String::from_utf8(junit.stdout).unwrap();
    let failing = want.len() - 2; // the two warning rules pass
    // (Not a golden file either, for the same event numbers: tests/golden.rs
    // compares JUnit output whole, check/findings.xml.)
    assert_eq!(
        xml.lines().nth(1).unwrap(),
        format!(r#"<testsuites name="mcp-raw check" tests="45" failures="{failing}">"#),
        "{xml}"
    );
    assert_eq!(xml.matches("<failure ").count(), failing);
    // A rule's case, whole: the one broken opens (its <failure> follows); an
    // unbroken rule's is empty: it passes.
    let case = |rule: &str| {
        let name = format!("name=\"{rule}\"");
        xml.lines()
            .map(str::trim)
            .find(|l| l.starts_with("<testcase ") && l.contains(&name))
            .unwrap_or_else(|| panic!("no case {rule} in {xml}"))
    };
    assert_eq!(
        case("progress/not-increasing"),
        r#"<testcase classname="MCP 2025-11-25 basic/utilities/progress &quot;Progress Flow&quot;" name="progress/not-increasing">"#
    );
    assert_eq!(
        case("modern/result-type"),
        r#"<testcase classname="MCP 2026-07-28 basic &quot;Result Responses&quot;" name="modern/result-type"/>"#
    );
}

/// The rules about HTTP a server can break, against a server breaking them.
#[test]
fn an_http_server_that_breaks_transport_rules_is_named() {
    let dir = scratch("http-server");
    let file = dir.join("tap.jsonl");
    let mut server = Command::new("python3")
        .arg(server_script("http_rule_breaker.py"))
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let target = common::listening_url(server.stdout.take().unwrap());
    // Tap --check's live findings are written by the CLI on its stderr: a process.
    let mut tap = Command::new(BIN)
        .args([
            "tap",
            "--http",
            "--listen",
            "127.0.0.1:0",
            "--target",
            &target,
        ])
        .arg("--record")
        .arg(&file)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let url = common::listening_url(tap.stderr.take().unwrap());
    let addr = url
        .trim_start_matches("http://")
        .trim_end_matches("/mcp")
        .to_owned();
    let accept = ("Accept", "application/json, text/event-stream");
    let json = ("Content-Type", "application/json");
    let session = ("Mcp-Session-Id", "s-1");
    let version = ("MCP-Protocol-Version", "2025-11-25");
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
    exchange(&addr, &request_bytes(&addr, "POST", &[accept, json], init));
    exchange(
        &addr,
        &request_bytes(
            &addr,
            "POST",
            &[accept, json, session, version],
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        ),
    );
    exchange(
        &addr,
        &request_bytes(
            &addr,
            "POST",
            &[accept, json, session, version],
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
        ),
    );
    exchange(
        &addr,
        &request_bytes(
            &addr,
            "GET",
            &[("Accept", "text/event-stream"), session, version],
            "",
        ),
    );
    exchange(
        &addr,
        &request_bytes(
            &addr,
            "POST",
            &[accept, json, session, version],
            r#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#,
        ),
    );
    common::terminate(&mut tap);
    let _ = server.kill();
    let _ = server.wait();

    let (code, doc) = check_json(&file);
    assert_eq!(
        rules_of(&doc),
        expect(&[
            ("http/notification-answered", 1),
            ("jsonrpc/invalid-message", 1),
            ("http/session-id-changed", 1),
            ("sse/missing-event-id", 1),
            ("http/response-on-get-stream", 1),
            ("sse/duplicate-event-id", 1),
            ("jsonrpc/response-to-nothing", 1),
            ("http/content-type", 1),
            // This client never ends its session with DELETE.
            ("http/session-not-deleted", 1),
        ]),
        "{doc:#}"
    );
    assert_eq!(code, 1);
}

/// The rules about HTTP a client can break, against mcp-raw's own server (which
/// refuses each request, and breaks nothing itself), recorded by the server.
#[test]
fn an_http_client_that_breaks_rules_is_named_and_our_server_is_clean() {
    let dir = scratch("http-client");
    let file = dir.join("server.jsonl");
    // `serve --http --record FILE`, in-process (the client is under test, and
    // `check` of the file): the recorder the binary makes (src/cli/record.rs), the
    // file's sink and one more that passes each event's JSON line on to this test.
    let (seen, events) = mpsc::channel();
    let recorder = Recorder::new(vec![
        transcript_write::create(
            &file,
            &transcript::Header::new("server", "http"),
            mcp_raw_wire::decode::DEFAULT_MAX_MESSAGE,
        )
        .unwrap(),
        Box::new(Told(seen)),
    ]);
    recorder.set_redaction(true);
    let server = common::InProcess::with(
        mcp_raw_core::Server::new(
            mcp_raw_core::content::demo::tool_set(),
            mcp_raw_core::Eras::Both,
        ),
        mcp_raw_net::transport::http::Config {
            recorder: Some(recorder),
            ..Default::default()
        },
    );
    let addr = server.addr.clone();
    let accept = ("Accept", "application/json, text/event-stream");
    let json = ("Content-Type", "application/json");
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
    // No Accept at all.
    exchange(&addr, &request_bytes(&addr, "POST", &[json], init));
    let reply = exchange(&addr, &request_bytes(&addr, "POST", &[accept, json], init));
    let id = reply.header("mcp-session-id").unwrap().to_owned();
    let session = ("Mcp-Session-Id", id.as_str());
    let version = ("MCP-Protocol-Version", "2025-11-25");
    exchange(
        &addr,
        &request_bytes(
            &addr,
            "POST",
            &[accept, json, session, version],
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        ),
    );
    // The session id dropped, then the version header.
    exchange(
        &addr,
        &request_bytes(
            &addr,
            "POST",
            &[accept, json, version],
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
        ),
    );
    exchange(
        &addr,
        &request_bytes(
            &addr,
            "POST",
            &[accept, json, session],
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/list"}"#,
        ),
    );
    // A batch in 2025-11-25.
    exchange(
        &addr,
        &request_bytes(
            &addr,
            "POST",
            &[accept, json, session, version],
            r#"[{"jsonrpc":"2.0","id":4,"method":"ping"}]"#,
        ),
    );
    // A modern request whose Mcp-Name says another tool than its body.
    exchange(
        &addr,
        &request_bytes(
            &addr,
            "POST",
            &[
                accept,
                json,
                ("MCP-Protocol-Version", "2026-07-28"),
                ("Mcp-Method", "tools/call"),
                ("Mcp-Name", "add"),
            ],
            r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        ),
    );
    // The server records a response once it is written: wait (bounded) until the
    // last one is recorded before stopping it.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    loop {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        let line: String = events
            .recv_timeout(left)
            .expect("the Header mismatch answer recorded within 5 s");
        if line.contains("Header mismatch") {
            break;
        }
    }
    drop(server);

    let (code, doc) = check_json(&file);
    assert_eq!(
        rules_of(&doc),
        expect(&[
            ("http/accept", 1),
            ("http/session-id-dropped", 1),
            ("http/protocol-version-header", 1),
            ("jsonrpc/batch-removed", 1),
            ("http/header-mismatch", 1),
            // Nor does this one.
            ("http/session-not-deleted", 1),
        ]),
        "{doc:#}"
    );
    assert_eq!(code, 1);
    let mismatch = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["rule"] == "http/header-mismatch")
        .unwrap();
    assert_eq!(
        mismatch["message"],
        "tools/call: Mcp-Name \"add\", the body's \"echo\""
    );
}

/// mcp-raw's own client and server, both transports, both eras: nothing to report.
#[test]
fn clean_recordings_report_nothing() {
    let dir = scratch("clean");
    // `serve --http`, in-process: the recordings are the client's.
    let server = common::InProcess::demo();
    let url = format!("http://{}/mcp", server.addr);
    for era in ["legacy", "modern"] {
        for (transport, target) in [("stdio", None), ("http", Some(url.as_str()))] {
            let file = dir.join(format!("{transport}-{era}.jsonl"));
            // The client in-process; over stdio it spawns `mcp-raw serve` itself.
            let mut cmd = vec![
                "client",
                "--era",
                era,
                "--progress",
                "--call",
                "add={\"a\":2,\"b\":3}",
                "--record",
                path(&file),
            ];
            if era == "legacy" {
                cmd.extend(["--method", "ping"]); // 2026-07-28 removed ping
            }
            match target {
                Some(url) => cmd.push(url),
                None => cmd.extend(["--", BIN, "serve"]),
            };
            let out = cli_here(cmd);
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            let out = check(&[path(&file)]);
            let text = String::from_utf8_lossy(&out.stdout);
            assert_eq!(out.status.code(), Some(0), "{transport} {era}: {text}");
            // The whole summary line; its counts are those of the JSON report.
            let (_, doc) = check_json(&file);
            assert_eq!(
                text,
                format!(
                    "0 errors, 0 warnings in {} messages ({} events, 45 rules checked)\n",
                    doc["messages"], doc["events"]
                ),
                "{transport} {era}"
            );
        }
    }
    // An unreadable file is exit 2, with the reason.
    let out = check(&["/nonexistent.jsonl"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "mcp-raw check: cannot read /nonexistent.jsonl: No such file or directory (os error 2)\n"
    );
    // --rules lists every rule with its section.
    let out = check(&["--rules"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0));
    // The whole list, the same bytes as tests/golden.rs compares (among them
    // http/session-id-dropped, MCP 2025-11-25 basic/transports "Session Management" 2).
    golden::compare("check/rules.txt", &text);
}

/// `check A B`: each recording checked on its own, the reports one after the other:
/// text under a `== FILE` line each, JSON an array, JUnit a testsuite each, SARIF a
/// run each; the status is 1 when any of them broke an error rule.
#[test]
fn several_recordings_are_checked_each_on_its_own() {
    use common::made::{Made, handshake, request, result};
    let dir = scratch("several");
    let (clean, broken) = (dir.join("clean.jsonl"), dir.join("broken.jsonl"));
    let mut m = Made::new("stdio");
    handshake(&mut m);
    m.line(20, "c2s", request(2, "ping", serde_json::json!({})))
        .line(21, "s2c", result(2, serde_json::json!({})));
    m.write(&clean);
    let mut m = Made::new("stdio");
    m.line(0, "c2s", request(1, "tools/list", serde_json::json!({})));
    m.write(&broken);
    let (a, b) = (path(&clean), path(&broken));

    let text = check(&[a, b, "--color", "never"]);
    assert_eq!(text.status.code(), Some(1));
    let said = String::from_utf8(text.stdout).unwrap();
    let clean_report = String::from_utf8(check(&[a, "--color", "never"]).stdout).unwrap();
    let broken_report = String::from_utf8(check(&[b, "--color", "never"]).stdout).unwrap();
    assert_eq!(
        said,
        format!("== {a}\n{clean_report}== {b}\n{broken_report}")
    );

    let json = check(&["--format", "json", a, b]);
    let doc: Value = serde_json::from_slice(&json.stdout).unwrap();
    let one: Value = serde_json::from_slice(&check(&["--format", "json", b]).stdout).unwrap();
    assert_eq!(doc.as_array().map(Vec::len), Some(2));
    assert_eq!(doc[1], one);
    assert_eq!(doc[0]["errors"], 0);

    let xml = String::from_utf8(check(&["--format", "junit", a, b]).stdout).unwrap();
    let rules = mcp_raw_tools::check::rules::ALL.len();
    assert!(
        xml.starts_with(&format!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"mcp-raw check\" tests=\"{}\" failures=\"1\">\n  <testsuite name=\"{a}\"",
            2 * rules
        )),
        "{xml}"
    );
    assert_eq!(xml.matches("<testsuite ").count(), 2);
    assert!(xml.ends_with("  </testsuite>\n</testsuites>\n"), "{xml}");

    let sarif: Value = serde_json::from_slice(&check(&["--format", "sarif", a, b]).stdout).unwrap();
    let runs = sarif["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 2);
    assert_eq!(runs[0]["results"].as_array().map(Vec::len), Some(0));
    assert!(!runs[1]["results"].as_array().unwrap().is_empty());
    assert_eq!(sarif["version"], "2.1.0");

    // One that cannot be read: exit 2, naming it, and nothing reported.
    let missing = check(&[a, "/nonexistent/x.jsonl"]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(missing.stdout.is_empty());
    assert_eq!(
        missing.err(),
        "mcp-raw check: cannot read /nonexistent/x.jsonl: No such file or directory (os error 2)\n"
    );
}
