//! The one-line view (`--oneline`, `--trace oneline`), through the real binary: a
//! session with `mcp-raw serve` shows a line per message, and each line's fields
//! (direction, lane, shape, method and tool, id, status, size, a tool's first result
//! line) agree with the bytes the session's own recording holds. `show --oneline` of
//! that recording prints the same lines; `serve --trace oneline`, `tap --trace
//! oneline` and the HTTP transport say the same things.

mod common;

use common::client_inproc::show_oneline;
use common::{BIN, golden};
use mcp_raw_core::Eras;
use mcp_raw_net::client::mcp_client::Options;
use mcp_raw_wire::event::{Dir, Event, LaneKind};
use mcp_raw_wire::recorder::concat;
use mcp_raw_wire::transcript;
use serde_json::Value;
use std::io::Write;
use std::process::{Command, Stdio};

/// The view's lines (captions, notes and logs left out).
fn message_lines(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| l.starts_with(">>> ") || l.starts_with("<<< "))
        .map(str::to_owned)
        .collect()
}

/// A line's columns but the time (which differs between two processes' clocks).
fn untimed(line: &str) -> Vec<String> {
    line.split_whitespace()
        .enumerate()
        .filter(|(i, _)| *i != 2)
        .map(|(_, w)| w.to_owned())
        .collect()
}

/// What the view must say of each stdio message one way, read from the recording's
/// bytes: shape, method, id, size. A response's method is the request's it answers.
fn expected(events: &[Event], dir: Dir, methods: &mut Vec<(String, String)>) -> Vec<Value> {
    let bytes = concat(events, |e| e.lane.kind == LaneKind::Stdio && e.dir == dir);
    let mut out = Vec::new();
    for line in bytes.split(|b| *b == b'\n').filter(|l| !l.is_empty()) {
        let v: Value = serde_json::from_slice(line).expect("each recorded line is JSON");
        let id = v.get("id").map(|id| format!("#{id}"));
        let (shape, method) = if let Some(m) = v["method"].as_str() {
            let mut method = m.to_owned();
            if m == "tools/call" {
                method = format!("{m} {}", v["params"]["name"].as_str().unwrap());
            }
            if let Some(id) = &id {
                methods.push((id.clone(), method.clone()));
            }
            (
                if id.is_some() {
                    "request"
                } else {
                    "notification"
                },
                method,
            )
        } else {
            let id = id.clone().unwrap();
            let method = methods
                .iter()
                .find(|(i, _)| *i == id)
                .map(|(_, m)| m.clone())
                .unwrap_or_default();
            (
                if v.get("error").is_some() {
                    "error"
                } else {
                    "response"
                },
                method,
            )
        };
        out.push(serde_json::json!({
            "shape": shape, "method": method, "id": id.unwrap_or("-".into()),
            "size": line.len(), "value": v,
        }));
    }
    out
}

/// Checks one view line against what the recording says of that message.
fn check_line(line: &str, arrow: &str, want: &Value) {
    let words: Vec<&str> = line.split_whitespace().collect();
    assert_eq!(words[0], arrow, "{line}");
    assert_eq!(words[1], "stdio", "{line}");
    assert!(
        words[2].starts_with('+') && words[2].ends_with('s'),
        "{line}"
    );
    assert_eq!(words[3], want["shape"], "{line}");
    let method = want["method"].as_str().unwrap();
    let after = line
        .split_once(&format!(" {} ", want["shape"].as_str().unwrap()))
        .unwrap()
        .1
        .trim_start();
    assert!(after.starts_with(method), "{line}: want method {method:?}");
    assert!(
        line.contains(&format!(" {} ", want["id"].as_str().unwrap())),
        "{line}: want id {}",
        want["id"]
    );
    assert!(
        line.contains(&format!(" {} B", want["size"])),
        "{line}: want size {}",
        want["size"]
    );
    let v = &want["value"];
    if want["shape"] == "response" {
        let status = if v["result"]["isError"] == true {
            " isError "
        } else {
            " ok "
        };
        assert!(line.contains(status), "{line}");
        if method.starts_with("tools/call ") {
            let text = v["result"]["content"][0]["text"].as_str().unwrap();
            let first = text.lines().next().unwrap();
            assert!(line.ends_with(&format!("B  \"{first}\"")), "{line}");
        }
    }
}

#[test]
fn client_oneline_is_a_line_per_message_and_show_prints_the_same() {
    let dir = common::scratch("oneline", "client");
    let record = dir.join("session.jsonl");
    // The client in-process; over stdio it spawns `mcp-raw serve` itself.
    let out = common::cli_inproc::cli_here([
        "client",
        "--oneline",
        "--color",
        "never",
        "--call",
        r#"echo={"message":"hi there"}"#,
        "--call",
        r#"add={"a":2,"b":3}"#,
        "--call",
        "get_current_time",
        "--record",
        record.to_str().unwrap(),
        "--",
        BIN,
        "serve",
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    let lines = message_lines(&stdout);

    let text = std::fs::read_to_string(&record).unwrap();
    let (_, events) = transcript::read(&text).unwrap();
    let mut methods = Vec::new();
    let sent = expected(&events, Dir::ToServer, &mut methods);
    let received = expected(&events, Dir::ToClient, &mut methods);
    // One line per message, no more: the JSON of none of them is printed.
    assert_eq!(lines.len(), sent.len() + received.len(), "{stdout}");
    assert!(sent.len() >= 5 && received.len() >= 5, "{stdout}");
    // The whole view, byte for byte (times and the binary's path normalized): a
    // line per message, the JSON of none of them, each call's first result line
    // ("hi there" on the echo's answer).
    golden::check("client/oneline-stdio.txt", &stdout);
    let (mine, theirs): (Vec<&String>, Vec<&String>) =
        lines.iter().partition(|l| l.starts_with(">>>"));
    for (line, want) in mine.iter().zip(&sent) {
        check_line(line, ">>>", want);
    }
    for (line, want) in theirs.iter().zip(&received) {
        check_line(line, "<<<", want);
    }

    // The recording read back (`show --oneline`'s view, in-process): the same lines,
    // times included (the same events).
    // (The live view stamps each message from its clock in nanoseconds; the
    // recording keeps microseconds: a stamp on a half-millisecond can round the
    // other way, by one millisecond, and only then.)
    let shown = message_lines(&show_oneline(&record, &[]));
    assert_eq!(shown.len(), lines.len(), "{shown:#?}");
    for (read_back, live) in shown.iter().zip(&lines) {
        assert_eq!(untimed(read_back), untimed(live), "{read_back}");
        let at = |l: &str| -> f64 {
            let t = l.split_whitespace().nth(2).unwrap();
            t.trim_start_matches('+')
                .trim_end_matches('s')
                .parse()
                .unwrap()
        };
        assert!(
            (at(read_back) - at(live)).abs() <= 0.0011,
            "{read_back}\n{live}"
        );
    }
    // With a message filter (`--method tools/call`): only tools/call and its answers.
    let calls = show_oneline(&record, &["tools/call"]);
    assert_eq!(message_lines(&calls).len(), 6, "{calls}");
    golden::check("show/oneline-method-tools-call.txt", &calls);
}

/// Sends `lines` to `mcp-raw ARGS` on stdin and returns its stderr once it exits.
fn stderr_of(args: &[&str], lines: &[&str]) -> String {
    // Serve and tap over stdio (their pipes, the trace on stderr): a process.
    let mut child = Command::new(BIN)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    for line in lines {
        stdin.write_all(line.as_bytes()).unwrap();
        stdin.write_all(b"\n").unwrap();
    }
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn serve_and_tap_trace_oneline_say_the_same_lines() {
    let session = [
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"message":"one\ntwo"}}}"#,
        r#"{"jsonrpc":"2.0","id":"x","method":"no/such"}"#,
    ];
    let served = stderr_of(&["serve", "--trace", "oneline"], &session);
    let tapped = stderr_of(&["tap", "--trace", "oneline", "--", BIN, "serve"], &session);
    for log in [&served, &tapped] {
        // Each direction in order (the server may read several lines before it
        // answers, so the two interleave as they happen to).
        let lines = message_lines(log);
        let (sent, received): (Vec<&String>, Vec<&String>) =
            lines.iter().partition(|l| l.starts_with(">>>"));
        assert_eq!((sent.len(), received.len()), (4, 3), "{log}");
        let want_sent: [&[&str]; 4] = [
            &[">>>", "stdio", "request", "initialize", "#1", "-"],
            &[
                ">>>",
                "stdio",
                "notification",
                "notifications/initialized",
                "-",
                "-",
            ],
            &[">>>", "stdio", "request", "tools/call", "echo", "#2", "-"],
            &[">>>", "stdio", "request", "no/such", "#\"x\"", "-"],
        ];
        let want_received: [&[&str]; 3] = [
            &["<<<", "stdio", "response", "initialize", "#1", "ok"],
            &["<<<", "stdio", "response", "tools/call", "echo", "#2", "ok"],
            &[
                "<<<", "stdio", "error", "no/such", "#\"x\"", "error", "-32601",
            ],
        ];
        let pairs = sent
            .iter()
            .zip(want_sent)
            .chain(received.iter().zip(want_received));
        for (line, want) in pairs {
            let words = untimed(line);
            assert_eq!(words[..want.len()], *want, "{line}");
        }
        // Sizes are the lines' own, without their newline (106 B); only the first
        // line of the result text ("one"). Whole lines, times normalized.
        assert_eq!(session[2].len(), 106);
        assert_eq!(
            golden::normalize(sent[2]),
            ">>> stdio    +<t>s request      tools/call echo            #2   -                106 B"
        );
        assert_eq!(
            golden::normalize(received[1]),
            "<<< stdio    +<t>s response     tools/call echo            #2   ok                81 B  \"one\""
        );
    }
}

#[test]
fn over_http_the_lines_carry_the_http_status() {
    let (server, trace) = common::client_inproc::traced_oneline();
    let url = format!("http://{}/mcp", server.addr);
    // `client --oneline --era legacy --call echo=… URL` as the library runs it,
    // in-process: the view is the subject, not the client's process.
    let driven = common::client_inproc::drive_http_with(
        &url,
        Options {
            eras: Eras::Legacy,
            ..Options::default()
        },
        &[("echo", serde_json::json!({"message": "over http"}))],
        common::client_inproc::viewing_oneline(),
        |_| {},
    );
    assert_eq!(
        driven.results,
        vec![Ok(
            r#"{"content":[{"type":"text","text":"over http"}]}"#.to_owned()
        )]
    );
    let stdout = driven.view;
    let lines = message_lines(&stdout);
    let find = |needle: &[&str]| {
        lines
            .iter()
            .find(|l| {
                let w = untimed(l);
                w.windows(needle.len()).any(|win| win == needle)
            })
            .unwrap_or_else(|| panic!("no line with {needle:?} in\n{stdout}"))
            .clone()
    };
    find(&["response", "initialize", "#1", "200", "ok"]);
    // The notification's answer carries no message: its line says the status.
    find(&["<<<", "c1", "http", "POST", "/mcp", "-", "202", "0", "B"]);
    // The demo server offers no GET stream: the client's GET gets a 405 whose body
    // is a JSON-RPC error (id null); a call is answered with an event stream, whose
    // head has a line before its messages do.
    find(&[">>>", "c2", "http", "GET", "/mcp", "-", "-", "0", "B"]);
    find(&["<<<", "c2", "error", "#null", "405", "error", "-32600"]);
    find(&["<<<", "c1", "sse", "POST", "/mcp", "-", "200", "0", "B"]);
    let call = find(&["response", "tools/call", "echo"]);
    // The answer's whole line: the HTTP status beside the JSON-RPC outcome, the
    // tool's first result line at the end.
    assert_eq!(
        golden::normalize(&call),
        "<<< c1       +<t>s response     tools/call echo            #3   200 ok            82 B  \"over http\""
    );
    // The server's trace says the same of the same messages (awaited: each line the
    // view writes wakes the wait).
    let log = trace.once(std::time::Duration::from_secs(5), |log| {
        message_lines(log)
            .iter()
            .any(|l| l.contains("tools/call echo") && l.starts_with("<<<"))
    });
    let traced = message_lines(&log);
    let of = |l: &String| untimed(l)[2..].to_vec();
    let mine: Vec<_> = lines
        .iter()
        .filter(|l| l.contains(" tools/call "))
        .map(of)
        .collect();
    let theirs: Vec<_> = traced
        .iter()
        .filter(|l| l.contains(" tools/call "))
        .map(of)
        .collect();
    assert_eq!(mine, theirs, "{log}");
    assert_eq!(mine.len(), 2, "the call and its answer: {log}");
}

/// `--max-unanswered N` bounds what a view remembers of requests still unanswered:
/// three requests then their three answers, shown with room for two, leave the first
/// answer without the method it answers (its request was forgotten); with the default,
/// each answer names its method.
#[test]
fn max_unanswered_bounds_what_a_view_remembers() {
    let dir = std::env::temp_dir().join(format!("mcp-raw-unanswered-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("three.jsonl");
    let mut text = String::from(
        "{\"transcript\":\"mcp-raw\",\"version\":1,\"role\":\"server\",\"transport\":\"stdio\",\"started\":\"2026-12-04T00:00:00.000Z\"}\n",
    );
    let requests: String = (1..=3)
        .map(|n| format!("{{\"jsonrpc\":\"2.0\",\"id\":{n},\"method\":\"ping\"}}\n"))
        .collect();
    let answers: String = (1..=3)
        .map(|n| format!("{{\"jsonrpc\":\"2.0\",\"id\":{n},\"result\":{{}}}}\n"))
        .collect();
    for (t, dir, bytes) in [(0.1, "c2s", &requests), (0.2, "s2c", &answers)] {
        let event = serde_json::json!({"t": t, "lane": "stdio", "dir": dir, "text": bytes});
        text.push_str(&format!("{event}\n"));
    }
    std::fs::write(&file, text).unwrap();
    let show = |extra: &[&str]| {
        // --max-unanswered sets a process-wide bound (asked::set_max_unanswered): a process.
        let out = Command::new(BIN)
            .args(extra)
            .args(["show", "--oneline", "--color", "never"])
            .arg(&file)
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        message_lines(&String::from_utf8_lossy(&out.stdout))
    };
    let answers_of = |lines: &[String]| -> Vec<bool> {
        lines
            .iter()
            .filter(|l| l.starts_with("<<< "))
            .map(|l| l.contains("ping"))
            .collect()
    };
    let whole = show(&[]);
    assert_eq!(whole.len(), 6, "{whole:?}");
    assert_eq!(answers_of(&whole), [true, true, true], "{whole:?}");
    assert_eq!(
        whole.join("\n"),
        concat!(
            ">>> stdio    +0.100s request      ping                       #1   -                 40 B\n",
            ">>> stdio    +0.100s request      ping                       #2   -                 40 B\n",
            ">>> stdio    +0.100s request      ping                       #3   -                 40 B\n",
            "<<< stdio    +0.200s response     ping                       #1   ok                36 B\n",
            "<<< stdio    +0.200s response     ping                       #2   ok                36 B\n",
            "<<< stdio    +0.200s response     ping                       #3   ok                36 B",
        )
    );
    let bounded = show(&["--max-unanswered", "2"]);
    assert_eq!(bounded.len(), 6, "{bounded:?}");
    assert_eq!(answers_of(&bounded), [false, true, true], "{bounded:?}");
    // The first answer's request was forgotten: its method column is blank.
    assert_eq!(
        bounded.join("\n"),
        concat!(
            ">>> stdio    +0.100s request      ping                       #1   -                 40 B\n",
            ">>> stdio    +0.100s request      ping                       #2   -                 40 B\n",
            ">>> stdio    +0.100s request      ping                       #3   -                 40 B\n",
            "<<< stdio    +0.200s response                                #1   ok                36 B\n",
            "<<< stdio    +0.200s response     ping                       #2   ok                36 B\n",
            "<<< stdio    +0.200s response     ping                       #3   ok                36 B",
        )
    );
    std::fs::remove_dir_all(&dir).ok();
}
