//! `mcp-raw stats` through the real binary, against recordings written with known
//! stamps: counts, errors, nearest-rank percentiles, bytes each way, per method, tool,
//! session and lane (a legacy HTTP session followed across connections), 2026-07-28
//! operations linked by their requestState (an ambiguous link refused and counted),
//! each tool's context cost; text, JSON and CSV; and a real session's tools.

mod common;
use common::cli_inproc::{cli_here, record_stdio_session};

use common::made::{self, Made, call, request, result};
use serde_json::{Value, json};

fn scratch(name: &str) -> std::path::PathBuf {
    common::scratch("stats", name)
}

/// `mcp-raw stats ARGS…`: exit status, stdout, stderr.
fn stats(args: &[&str]) -> (i32, String, String) {
    // The subcommand's formats and exit statuses are the CLI's: in-process.
    let out = cli_here(std::iter::once("stats").chain(args.iter().copied()));
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn tools() -> Value {
    json!([
        {"name": "add", "description": "Adds a and b", "inputSchema": {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}}},
        {"name": "echo", "description": "Says it again", "inputSchema": {"type": "object"}},
    ])
}

/// stdio, legacy: initialize 10 ms, tools/list 5 ms, add ×4 taking 1…4 ms, echo
/// answered isError after 20 ms, nope refused (-32602) after 40 ms, a ping never
/// answered. Returns the messages, for their sizes.
fn stdio_recording(path: &std::path::Path) -> Vec<Value> {
    let mut m = Made::new("stdio");
    made::handshake(&mut m);
    let mut sent = vec![
        request(2, "tools/list", json!({})),
        result(2, json!({"tools": tools()})),
    ];
    m.line(20, "c2s", sent[0].clone())
        .line(25, "s2c", sent[1].clone());
    for i in 0..4u64 {
        let (q, a) = (
            call(10 + i, "add"),
            result(10 + i, json!({"content": [{"type": "text", "text": "3"}]})),
        );
        m.line(100 * (i + 1), "c2s", q.clone())
            .line(100 * (i + 1) + i + 1, "s2c", a.clone());
        sent.extend([q, a]);
    }
    m.line(500, "c2s", call(20, "echo")).line(
        520,
        "s2c",
        result(20, json!({"content": [], "isError": true})),
    );
    m.line(600, "c2s", call(21, "nope")).line(
        640,
        "s2c",
        json!({"jsonrpc": "2.0", "id": 21, "error": {"code": -32602, "message": "Unknown tool: nope"}}),
    );
    m.line(700, "c2s", request(22, "ping", json!({})));
    m.write(path);
    sent
}

fn modern(id: u64, tool: &str, state: Option<&str>) -> Value {
    let mut params = json!({"name": tool, "arguments": {}, "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}});
    if let Some(s) = state {
        params["requestState"] = json!(s);
    }
    request(id, "tools/call", params)
}

fn asks(id: u64, state: &str) -> Value {
    result(
        id,
        json!({"resultType": "input_required", "inputRequests": {"q": {"method": "elicitation/create", "params": {}}}, "requestState": state}),
    )
}

fn done(id: u64) -> Value {
    result(
        id,
        json!({"resultType": "complete", "content": [{"type": "text", "text": "ok"}]}),
    )
}

/// HTTP: a legacy session opened on c1 (initialize 8 ms, its answer issuing sess-1),
/// used on c2 (add, 6 ms); a 2026-07-28 operation on c3 and c4 (asked at 100, retried
/// with st-1 at 120, done at 150: 50 ms); st-2 issued twice (c5, c6) and echoed once
/// (c7): an ambiguous link.
fn http_recording(path: &std::path::Path) {
    let mut m = Made::new("http");
    m.post(
        0,
        "c1",
        None,
        request(1, "initialize", json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}})),
    )
    .reply(
        8,
        "c1",
        Some("sess-1"),
        result(1, json!({"protocolVersion": "2025-11-25", "capabilities": {"tools": {}}, "serverInfo": {"name": "s", "version": "1"}})),
    )
    .post(10, "c1", Some("sess-1"), json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
    .bytes(11, "c1", "s2c", "HTTP/1.1 202 Accepted\r\ncontent-length: 0\r\n\r\n")
    .post(20, "c2", Some("sess-1"), call(2, "add"))
    .reply(26, "c2", None, result(2, json!({"content": []})))
    .post(100, "c3", None, modern(7, "confirm", None))
    .reply(105, "c3", None, asks(7, "st-1"))
    .post(120, "c4", None, modern(8, "confirm", Some("st-1")))
    .reply(150, "c4", None, done(8))
    .post(200, "c5", None, modern(9, "confirm", None))
    .reply(201, "c5", None, asks(9, "st-2"))
    .post(210, "c6", None, modern(9, "confirm", None))
    .reply(211, "c6", None, asks(9, "st-2"))
    .post(220, "c7", None, modern(10, "confirm", Some("st-2")))
    .reply(230, "c7", None, done(10));
    m.write(path);
}

fn len(v: &Value) -> u64 {
    v.to_string().len() as u64
}

/// The stdio recording's figures, exact, in JSON, text and CSV.
#[test]
fn a_recording_with_known_stamps_gives_its_figures() {
    let dir = scratch("stdio");
    let file = dir.join("s.jsonl");
    let sent = stdio_recording(&file);
    let f = file.to_str().unwrap();
    let (code, out, err) = stats(&[f, "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    let doc: Value = serde_json::from_str(&out).unwrap();
    // tools/call: 1, 2, 3, 4, 20, 40 ms. Nearest rank: p50 is the 3rd, p90 the 6th.
    let call = &doc["methods"]["tools/call"];
    assert_eq!(
        (
            &call["count"],
            &call["errors"],
            &call["rpc_errors"],
            &call["tool_errors"],
            &call["unanswered"]
        ),
        (&json!(6), &json!(2), &json!(1), &json!(1), &json!(0))
    );
    assert_eq!(
        (&call["p50_ms"], &call["p90_ms"], &call["p99_ms"]),
        (&json!(3.0), &json!(40.0), &json!(40.0))
    );
    let add = &doc["tools"]["add"];
    assert_eq!(
        (&add["count"], &add["p50_ms"], &add["p90_ms"]),
        (&json!(4), &json!(2.0), &json!(4.0))
    );
    assert_eq!(doc["tools"]["nope"]["rpc_errors"], 1);
    assert_eq!(doc["tools"]["echo"]["tool_errors"], 1);
    let ping = &doc["methods"]["ping"];
    assert_eq!(
        (&ping["count"], &ping["unanswered"], &ping["p50_ms"]),
        (&json!(1), &json!(1), &Value::Null)
    );
    assert_eq!(doc["methods"]["initialize"]["p99_ms"], 10.0);
    assert_eq!(doc["methods"]["notifications/initialized"]["count"], 1);
    // Bytes each way: each message's bytes as they crossed (the line, not its \n).
    let list = &doc["methods"]["tools/list"];
    assert_eq!(
        (&list["bytes_c2s"], &list["bytes_s2c"]),
        (&json!(len(&sent[0])), &json!(len(&sent[1])))
    );
    assert_eq!(
        add["bytes_c2s"],
        (2..10).step_by(2).map(|i| len(&sent[i])).sum::<u64>()
    );
    assert_eq!(
        add["bytes_s2c"],
        (3..10).step_by(2).map(|i| len(&sent[i])).sum::<u64>()
    );
    assert_eq!(doc["all"]["count"], 9);
    assert_eq!(doc["duration_s"], 0.7);
    assert_eq!(
        doc["sessions"]["-"]["count"], 10,
        "9 requests and the notification"
    );
    assert_eq!(doc["lanes"]["stdio"]["count"], 10);
    // Context: each tool's compact definition, tokens = ceil(bytes / 4).
    let defs = tools();
    let (a, e) = (len(&defs[0]), len(&defs[1]));
    assert_eq!(
        doc["context"]["tools"],
        json!([
            {"name": "add", "server": "s", "bytes": a, "tokens": a.div_ceil(4)},
            {"name": "echo", "server": "s", "bytes": e, "tokens": e.div_ceil(4)},
        ])
    );
    assert_eq!(doc["context"]["total_bytes"], a + e);
    assert_eq!(doc["context"]["total_tokens"], (a + e).div_ceil(4));
    assert_eq!(doc["context"]["estimate"], "tokens = ceil(bytes / 4)");

    // Text: the same figures, a row each.
    let (code, text, _) = stats(&[f]);
    assert_eq!(code, 0);
    assert!(text.starts_with("18 events, 0.700 s recorded, 9 request(s) (1 unanswered), 2 error(s) (1 JSON-RPC, 1 isError)\n"), "{text}");
    let row = format!(
        "{:<32} {:>6} {:>6} {:>10} {:>10} {:>10} {:>10} {:>10}",
        "tools/call",
        6,
        2,
        "3.000",
        "40.000",
        "40.000",
        call["bytes_c2s"].as_u64().unwrap(),
        call["bytes_s2c"].as_u64().unwrap()
    );
    assert!(text.lines().any(|l| l == row), "{row}\n{text}");
    assert!(
        text.lines()
            .any(|l| l.starts_with("ping ") && l.contains("      -          -          -")),
        "{text}"
    );
    assert!(text.contains("(tokens estimated as bytes/4, rounded up)"));

    // CSV: a header, then a row per owner; the add tool's row whole.
    let (code, csv, _) = stats(&[f, "--format", "csv"]);
    assert_eq!(code, 0);
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(
        lines[0],
        "section,name,count,errors,unanswered,p50_ms,p90_ms,p99_ms,bytes_c2s,bytes_s2c,context_bytes,tokens"
    );
    assert!(lines.iter().all(|l| l.split(',').count() == 12), "{csv}");
    let want = format!(
        "tool,add,4,0,0,2.000,4.000,4.000,{},{},,",
        add["bytes_c2s"], add["bytes_s2c"]
    );
    assert!(lines.contains(&want.as_str()), "{want}\n{csv}");
    assert_eq!(
        *lines.last().unwrap(),
        format!("context-total,,,,,,,,,,{},{}", a + e, (a + e).div_ceil(4))
    );
}

/// HTTP: a session followed across connections, the operations linked by their
/// requestState, the ambiguous link refused and counted; two files add up.
#[test]
fn sessions_lanes_and_operations_over_http() {
    let dir = scratch("http");
    let file = dir.join("h.jsonl");
    http_recording(&file);
    let f = file.to_str().unwrap();
    let (code, out, err) = stats(&[f, "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    let doc: Value = serde_json::from_str(&out).unwrap();
    // initialize (on c1, its answer issuing the session), the notification and add
    // (on c2, naming it) are the session's; the modern calls are in none.
    let s = &doc["sessions"]["sess-1"];
    assert_eq!(
        (&s["count"], &s["p50_ms"], &s["p99_ms"]),
        (&json!(3), &json!(6.0), &json!(8.0)),
        "{doc:#}"
    );
    assert_eq!(doc["sessions"]["-"]["count"], 5);
    assert_eq!(doc["lanes"]["c2"]["p50_ms"], 6.0);
    assert_eq!(doc["lanes"]["c1"]["count"], 2);
    assert_eq!(doc["tools"]["add"]["p50_ms"], 6.0);
    assert_eq!(doc["stray_responses"], 0);
    // Operations: st-1 links 100 → 150 (50 ms); st-2, issued twice, is refused, so
    // c5 and c6 stand alone without a final answer and c7's retry alone (10 ms).
    assert_eq!(
        doc["operations"],
        json!({"count": 4, "without_final_answer": 2, "ended_in_error": 0, "p50_ms": 10.0,
               "p90_ms": 50.0, "p99_ms": 50.0, "ambiguous_links_refused": 1})
    );
    let (_, text, _) = stats(&[f]);
    assert!(text.contains("2026-07-28 operations (first attempt to final answer): 4 (2 without a final answer), p50 10.000 p90 50.000 p99 50.000 ms; 1 ambiguous requestState link(s) refused\n"), "{text}");

    // Two files: the counts add, their sessions and lanes named FILE:NAME.
    let other = dir.join("s.jsonl");
    stdio_recording(&other);
    let o = other.to_str().unwrap();
    let (code, out, _) = stats(&[f, o, "--format", "json"]);
    assert_eq!(code, 0);
    let both: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(both["methods"]["tools/call"]["count"], 6 + 6);
    assert_eq!(both["lanes"][format!("{o}:stdio")]["count"], 10);
    assert_eq!(both["sessions"][format!("{f}:sess-1")]["count"], 3);

    // An unreadable file: exit 2, named.
    let (code, out, err) = stats(&[f, "/nonexistent.jsonl"]);
    assert_eq!((code, out.as_str()), (2, ""));
    assert_eq!(
        err,
        "mcp-raw stats: cannot read /nonexistent.jsonl: No such file or directory (os error 2)\n"
    );
}

/// A real session (mcp-raw's client spawning its server): the call counted, the
/// server's three demo tools costed at the sizes its tools/list carried.
#[test]
fn a_real_session_is_measured() {
    let dir = scratch("real");
    let file = dir.join("client.jsonl");
    record_stdio_session(&file, &["add={\"a\":2,\"b\":3}"]);
    let (code, out, err) = stats(&[file.to_str().unwrap(), "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    let doc: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(doc["tools"]["add"]["count"], 1);
    assert_eq!(doc["all"]["errors"], 0);
    assert_eq!(doc["all"]["unanswered"], 0);
    // The tools/list answer, read here from the transcript's own lines.
    let text = std::fs::read_to_string(&file).unwrap();
    let listed: Vec<Value> = text
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|e| e["dir"] == "s2c")
        .filter_map(|e| serde_json::from_str::<Value>(e["text"].as_str()?.trim()).ok())
        .find_map(|m| m["result"]["tools"].as_array().cloned())
        .expect("a tools/list answer in the recording");
    let names: Vec<&str> = listed.iter().map(|t| t["name"].as_str().unwrap()).collect();
    let costed: Vec<&str> = doc["context"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(costed, sorted);
    assert!(names.contains(&"add"), "{names:?}");
    let total: u64 = listed.iter().map(len).sum();
    assert_eq!(doc["context"]["total_bytes"], total);
}

/// A legacy server's request to the client, on the session's GET stream (SSE), and
/// the client's answer POSTed on another connection: paired by the session and the
/// id, its latency and its bytes counted the server's way out, the client's way back.
#[test]
fn a_server_request_answered_on_another_connection() {
    let dir = scratch("server-request");
    let file = dir.join("h.jsonl");
    let ask = json!({"jsonrpc": "2.0", "id": "s1", "method": "sampling/createMessage", "params": {"messages": [], "maxTokens": 10}});
    let answer = json!({"jsonrpc": "2.0", "id": "s1", "result": {"role": "assistant", "content": {"type": "text", "text": "hi"}, "model": "m"}});
    let mut m = Made::new("http");
    m.bytes(
        0,
        "c1",
        "c2s",
        "GET /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\naccept: text/event-stream\r\nmcp-session-id: sess-9\r\nmcp-protocol-version: 2025-11-25\r\n\r\n",
    )
    .bytes(2, "c1", "s2c", "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\r\n")
    .bytes(300, "c1", "s2c", &format!("data: {ask}\n\n"))
    .post(340, "c2", Some("sess-9"), answer.clone())
    .bytes(341, "c2", "s2c", "HTTP/1.1 202 Accepted\r\ncontent-length: 0\r\n\r\n");
    m.write(&file);
    let (code, out, err) = stats(&[file.to_str().unwrap(), "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    let doc: Value = serde_json::from_str(&out).unwrap();
    let row = &doc["methods"]["sampling/createMessage"];
    assert_eq!(
        (
            &row["count"],
            &row["unanswered"],
            &row["p50_ms"],
            &row["bytes_s2c"],
            &row["bytes_c2s"]
        ),
        (
            &json!(1),
            &json!(0),
            &json!(40.0),
            &json!(len(&ask)),
            &json!(len(&answer))
        ),
        "{doc:#}"
    );
    assert_eq!(doc["sessions"]["sess-9"]["count"], 1);
    assert_eq!(doc["stray_responses"], 0);
}

/// The live reader (what `--metrics` and `--otlp` watch a running program with) hands
/// back, event by event, the same requests the whole-file reader pairs, each once,
/// with the same outcome and latency; nothing stays open once the lanes closed; and
/// the facts a span needs: the id, the target, the protocol revision, the HTTP status.
#[test]
fn the_live_reader_pairs_what_the_whole_file_reader_pairs() {
    use mcp_raw_tools::stats::{ledger::Ledger, live::Live};
    use mcp_raw_wire::event::{Dir, Event, What};
    let dir = scratch("live");
    for (name, make) in [
        (
            "live-stdio.jsonl",
            (|p: &std::path::Path| drop(stdio_recording(p))) as fn(&std::path::Path),
        ),
        ("live-http.jsonl", http_recording),
    ] {
        let file = dir.join(name);
        make(&file);
        let (_, mut events) =
            mcp_raw_wire::transcript::read(&std::fs::read_to_string(&file).unwrap()).unwrap();
        // Each lane closes at the end, both ways: the live reader gives up what is open.
        let mut lanes: Vec<_> = events.iter().map(|e| e.lane).collect();
        lanes.dedup();
        lanes.sort_by_key(|l| l.label());
        lanes.dedup();
        let end = events.last().unwrap().t;
        for lane in lanes {
            for dir in [Dir::ToServer, Dir::ToClient] {
                events.push(Event {
                    t: end,
                    lane,
                    dir,
                    what: What::Close("eof".into()),
                });
            }
        }
        let whole = Ledger::read(&events, 1 << 20);
        let mut live = Live::new(1 << 20, 100);
        let mut facts = 0;
        let mut got = Vec::new();
        for e in &events {
            got.extend(live.feed(e, &mut |_, _| facts += 1).calls);
        }
        assert!(facts > events.len() / 2, "{name}: {facts} facts");
        assert_eq!(live.open(), 0, "{name}");
        got.sort_by_key(|c| c.event);
        let key = |c: &mcp_raw_tools::stats::items::Call| {
            (
                c.event,
                c.method.clone(),
                c.id.clone(),
                c.outcome.clone(),
                c.latency(),
                c.target.clone(),
                c.version.clone(),
                c.status,
            )
        };
        assert_eq!(
            got.iter().map(key).collect::<Vec<_>>(),
            whole.calls.iter().map(key).collect::<Vec<_>>(),
            "{name}"
        );
    }
    // What the HTTP recording's calls say, read live.
    let file = dir.join("live-http.jsonl");
    let (_, events) =
        mcp_raw_wire::transcript::read(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let mut live = Live::new(1 << 20, 100);
    let calls: Vec<_> = events
        .iter()
        .flat_map(|e| live.feed(e, &mut |_, _| {}).calls)
        .collect();
    let add = calls
        .iter()
        .find(|c| c.method == "tools/call" && c.target.as_deref() == Some("add"))
        .unwrap();
    assert_eq!(
        (add.id.as_str(), add.status, add.session.as_deref()),
        ("2", Some(200), Some("sess-1"))
    );
    let confirm = calls.iter().find(|c| c.id == "8").unwrap();
    assert_eq!(confirm.version.as_deref(), Some("2026-07-28"));
    // Two requests in flight with room for one open: the second is counted, not
    // followed, and its answer is a stray.
    use mcp_raw_wire::event::{Lane, LaneKind};
    let lane = Lane {
        id: 0,
        kind: LaneKind::Stdio,
    };
    let line = |t: u64, dir, m: Value| Event {
        t: std::time::Duration::from_millis(t),
        lane,
        dir,
        what: What::Bytes(format!("{m}\n").into_bytes().into()),
    };
    let mut one = Live::new(1 << 20, 1);
    let mut done = Vec::new();
    for e in [
        line(0, Dir::ToServer, request(1, "ping", json!({}))),
        line(1, Dir::ToServer, request(2, "ping", json!({}))),
        line(2, Dir::ToClient, result(1, json!({}))),
        line(3, Dir::ToClient, result(2, json!({}))),
    ] {
        assert!(one.open() <= 1);
        done.extend(one.feed(&e, &mut |_, _| {}).calls);
    }
    assert_eq!(one.untracked(), 1);
    assert_eq!(
        done.iter().map(|c| c.id.as_str()).collect::<Vec<_>>(),
        ["1"]
    );
    assert_eq!(done[0].latency(), Some(std::time::Duration::from_millis(2)));
}

/// A long run read live keeps nothing of what went by: a thousand connections, each
/// a legacy session's initialize (its server named, a session issued) and a call,
/// then closed, with a stdio server logging on stderr the while; at the end the
/// reader holds nothing, and every request was handed back once.
#[test]
fn the_live_reader_keeps_nothing_of_what_went_by() {
    use mcp_raw_tools::stats::live::Live;
    use mcp_raw_wire::event::{Dir, Event, Lane, LaneKind, What};
    let mut live = Live::new(1 << 20, 100);
    let mut t = 0u64;
    let mut handed = 0;
    let mut feed = |live: &mut Live, lane: Lane, dir: Dir, what: What| {
        t += 1;
        let e = Event {
            t: std::time::Duration::from_micros(t),
            lane,
            dir,
            what,
        };
        live.feed(&e, &mut |_, _| {}).calls.len()
    };
    let stderr = Lane {
        id: 0,
        kind: LaneKind::Stderr,
    };
    for i in 1..=1000u32 {
        let lane = Lane {
            id: i,
            kind: LaneKind::Http,
        };
        let post = |body: &str, session: Option<&str>| {
            let sid = session.map_or(String::new(), |s| format!("mcp-session-id: {s}\r\n"));
            format!(
                "POST /mcp HTTP/1.1\r\nhost: h\r\ncontent-type: application/json\r\n{sid}content-length: {}\r\n\r\n{body}",
                body.len()
            )
        };
        let reply = |body: &str, session: Option<&str>| {
            let sid = session.map_or(String::new(), |s| format!("mcp-session-id: {s}\r\n"));
            format!(
                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n{sid}content-length: {}\r\n\r\n{body}",
                body.len()
            )
        };
        let session = format!("s-{i}");
        let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#;
        let inited = r#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}"#;
        let call = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"add","arguments":{}}}"#;
        let done = r#"{"jsonrpc":"2.0","id":2,"result":{"content":[]}}"#;
        feed(
            &mut live,
            lane,
            Dir::ToServer,
            What::Open(format!("accepted from 127.0.0.1:{i}")),
        );
        handed += feed(
            &mut live,
            lane,
            Dir::ToServer,
            What::Bytes(post(init, None).into_bytes().into()),
        );
        handed += feed(
            &mut live,
            lane,
            Dir::ToClient,
            What::Bytes(reply(inited, Some(&session)).into_bytes().into()),
        );
        handed += feed(
            &mut live,
            lane,
            Dir::ToServer,
            What::Bytes(post(call, Some(&session)).into_bytes().into()),
        );
        handed += feed(
            &mut live,
            lane,
            Dir::ToClient,
            What::Bytes(reply(done, None).into_bytes().into()),
        );
        handed += feed(
            &mut live,
            stderr,
            Dir::ToClient,
            What::Bytes(format!("log line {i}\n").into_bytes().into()),
        );
        for dir in [Dir::ToServer, Dir::ToClient] {
            handed += feed(&mut live, lane, dir, What::Close("EOF".into()));
        }
    }
    assert_eq!(handed, 2000, "every request handed back once");
    assert_eq!(live.open(), 0);
    assert!(
        live.kept() <= 1,
        "kept {} things of a finished run",
        live.kept()
    );
}
