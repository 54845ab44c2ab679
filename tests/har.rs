//! `mcp-raw export har` and `mcp-raw import har` through the command line (in-process:
//! the process is not the subject). A known recording — an HTTPS lane with a chunked
//! event stream answered in three reads, a masked Authorization, a header in mixed
//! case; a GET with a query answered with bytes that are not UTF-8; a 100 Continue
//! before a 202; a DELETE the lane closed before answering — exported and compared
//! byte for byte with tests/golden/har/recording.har; exported and imported back, its
//! messages and its lanes' bytes the same; a third-party HAR (HTTP/2, lowercase names,
//! a chunked body without its chunking) imported with what is not exact said; bad
//! input refused with where it is bad.

mod common;
use common::cli_inproc::{Ran, cli_here};
use common::golden;
use mcp_raw_wire::event::{Dir, What};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

fn scratch(name: &str) -> PathBuf {
    common::scratch("har", name)
}

fn known() -> PathBuf {
    golden::dir().join("har/recording.jsonl")
}

fn run(args: &[&str]) -> Ran {
    cli_here(args.iter().copied())
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Each lane's bytes each way, concatenated, in the order the lanes first appear.
fn lane_bytes(path: &Path) -> Vec<(Vec<u8>, Vec<u8>)> {
    let (_, events) = mcp_raw_wire::transcript::read_bytes(&std::fs::read(path).unwrap()).unwrap();
    let mut lanes = Vec::new();
    for e in &events {
        if !lanes.contains(&e.lane) {
            lanes.push(e.lane);
        }
    }
    lanes
        .iter()
        .map(|lane| {
            let way =
                |dir| mcp_raw_wire::recorder::concat(&events, |e| e.lane == *lane && e.dir == dir);
            (way(Dir::ToServer), way(Dir::ToClient))
        })
        .collect()
}

#[test]
fn a_known_recording_exports_as_its_golden_har() {
    let out = run(&["export", "har", s(&known())]);
    assert_eq!(out.status.code(), Some(0), "{}", out.err());
    golden::compare("har/recording.har", &out.out());
    let har: Value = serde_json::from_str(&out.out()).unwrap();
    let entries = har["log"]["entries"].as_array().unwrap();
    assert_eq!(har["log"]["version"], "1.2");
    assert_eq!(entries.len(), 4, "one entry per request");
    let first = &entries[0];
    // Headers in their order and case, the masked token still masked.
    let names: Vec<&str> = first["request"]["headers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "Host",
            "Accept",
            "Content-Type",
            "Authorization",
            "X-Custom-CASE",
            "Content-Length"
        ]
    );
    assert_eq!(
        first["request"]["headers"][3]["value"],
        "Bearer ************"
    );
    assert_eq!(first["request"]["url"], "https://mcp.example:3443/mcp");
    // The event stream de-chunked into its text, the chunking kept as it crossed.
    assert!(
        first["response"]["content"]["text"]
            .as_str()
            .unwrap()
            .starts_with("event: message\nid: 1\ndata: {")
    );
    assert_eq!(
        first["_mcpRaw"]["response"]["chunks"],
        json!(["28\r\n", "71;note=x\r\n", "0\r\n"])
    );
    assert_eq!(first["_tls"]["version"], "TLSv1.3");
    // Timings from the stamps: sent 3.0–3.2 ms, first answer byte 10.1, last 20.3.
    assert_eq!(
        first["timings"],
        json!({"send": 0.2, "wait": 6.9, "receive": 10.2})
    );
    assert_eq!(first["startedDateTime"], "2026-12-01T10:00:00.003000Z");
    assert_eq!(first["serverIPAddress"], "127.0.0.1");
    // Bytes that are not UTF-8: base64, said so.
    assert_eq!(entries[1]["response"]["content"]["encoding"], "base64");
    assert_eq!(entries[1]["response"]["content"]["text"], "//4AAQ==");
    assert_eq!(
        entries[1]["response"]["content"]["comment"],
        "the body as it crossed, still encoded (Content-Encoding: br), not decoded"
    );
    assert_eq!(
        entries[1]["request"]["queryString"],
        json!([{"name": "name", "value": "a b"}, {"name": "x", "value": "1"}])
    );
    assert_eq!(
        entries[2]["_mcpRaw"]["interim"],
        json!(["HTTP/1.1 100 Continue"])
    );
    assert_eq!(entries[2]["response"]["status"], 202);
    assert_eq!(entries[3]["response"]["status"], 0, "no answer came");
    // -o writes the same document, and says so on stderr.
    let file = scratch("known").join("out.har");
    let written = run(&["export", "har", s(&known()), "-o", s(&file)]);
    assert_eq!(written.status.code(), Some(0), "{}", written.err());
    assert_eq!(std::fs::read_to_string(&file).unwrap(), out.out());
    assert!(
        written.err().contains("4 entries written"),
        "{}",
        written.err()
    );
}

#[test]
fn export_then_import_gives_the_same_messages_and_bytes() {
    let dir = scratch("round");
    let har = dir.join("r.har");
    let back = dir.join("back.jsonl");
    assert!(
        run(&["export", "har", s(&known()), "-o", s(&har)])
            .status
            .success()
    );
    let imported = run(&["import", "har", s(&har), "-o", s(&back)]);
    assert_eq!(imported.status.code(), Some(0), "{}", imported.err());
    // diff reads both: the same messages each way, in order.
    let diff = run(&["diff", s(&known()), s(&back)]);
    assert_eq!(diff.status.code(), Some(0), "{}{}", diff.out(), diff.err());
    assert!(diff.out().starts_with("0 differences"), "{}", diff.out());
    // Every entry a lane: c1's bytes (its chunking from _mcpRaw) exactly as recorded;
    // c3's two exchanges are two lanes, its 100 Continue (a HAR has no place for it
    // but our note) not among them.
    let original = lane_bytes(&known());
    let rebuilt = lane_bytes(&back);
    assert_eq!(rebuilt.len(), 4);
    assert_eq!(rebuilt[0], original[0], "c1 byte for byte");
    assert_eq!(rebuilt[1], original[1], "c2 byte for byte (base64 body)");
    // show reads it, one line per message as the original's.
    let oneline = |p: &Path| -> Vec<String> {
        run(&["show", s(p), "--oneline"])
            .out()
            .lines()
            .map(|l| {
                // Leave out the lane and the time: the rest is the message.
                let w: Vec<&str> = l.split_whitespace().collect();
                format!("{} {}", w[0], w[3..].join(" "))
            })
            .filter(|l| !l.contains(" 100 "))
            .collect()
    };
    assert_eq!(oneline(&back), oneline(&known()));
    // The page (`ui`'s rows, frozen by `show --html`) reads it too.
    let page = dir.join("back.html");
    let html = run(&["show", s(&back), "--html", s(&page)]);
    assert_eq!(html.status.code(), Some(0), "{}", html.err());
    let page = std::fs::read_to_string(&page).unwrap();
    assert!(
        page.contains("imported from HAR"),
        "the lanes' notes are on the page"
    );
    // Each lane's open note says it was imported, and what is not exact.
    let text = std::fs::read_to_string(&back).unwrap();
    assert!(
        text.contains("\"role\":\"import\",\"transport\":\"http\""),
        "{text}"
    );
    assert!(text.contains("imported from HAR $.log.entries[0] (POST https://mcp.example:3443/mcp, server 127.0.0.1); not exact: the response's chunk-size lines are as they crossed (_mcpRaw); trailers, if any, are not in a HAR"), "{text}");
    assert!(
        text.contains("no response: the HAR's status is 0"),
        "{text}"
    );
    // Its own export's bodies are as they crossed: an encoded one is not doubted.
    assert!(text.contains(r#"["Content-Encoding","br"]"#), "{text}");
    assert!(!text.contains("Content-Encoding \\\"br\\\""), "{text}");
}

#[test]
fn a_third_party_har_is_imported_with_what_is_not_exact_said() {
    let dir = scratch("third");
    let har = dir.join("browser.har");
    let body = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}";
    let doc = json!({"log": {"version": "1.2", "creator": {"name": "browser", "version": "1"}, "entries": [{
        "startedDateTime": "2026-12-01T10:00:00.000+01:00",
        "time": 5,
        "request": {"method": "POST", "url": "https://mcp.example/mcp?x=1#frag", "httpVersion": "h2",
            "headers": [{"name": ":authority", "value": "mcp.example"}, {"name": "content-type", "value": "application/json"}],
            "queryString": [], "cookies": [], "headersSize": -1, "bodySize": 46,
            "postData": {"mimeType": "application/json", "text": body}},
        "response": {"status": 200, "statusText": "", "httpVersion": "h2",
            "headers": [{"name": "content-type", "value": "application/json"}, {"name": "content-encoding", "value": "gzip"}, {"name": "transfer-encoding", "value": "chunked"}],
            "cookies": [], "content": {"size": 11, "mimeType": "application/json", "text": "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"tools\":[]}}"},
            "redirectURL": "", "headersSize": -1, "bodySize": -1},
        "cache": {}, "timings": {"send": 1, "wait": 3, "receive": 1}
    }]}});
    std::fs::write(&har, serde_json::to_vec(&doc).unwrap()).unwrap();
    let out = dir.join("browser.jsonl");
    let ran = run(&["import", "har", s(&har), "-o", s(&out)]);
    assert_eq!(ran.status.code(), Some(0), "{}", ran.err());
    let text = std::fs::read_to_string(&out).unwrap();
    for said in [
        "the HAR says HTTP version \\\"h2\\\": written as HTTP/1.1 framing",
        "the request's Content-Length is computed (46 bytes): the HAR has none",
        "the response's chunking is not exact: a HAR holds the body de-chunked, written here as one chunk",
        "every request header name is lowercase: the producer may have lowercased them",
        "the response says Content-Encoding \\\"gzip\\\": a HAR's text is usually the decoded body",
        "every response header name is lowercase: the producer may have lowercased them",
    ] {
        assert!(text.contains(said), "{said} in {text}");
    }
    assert!(
        text.contains("\"started\":\"2026-12-01T09:00:00.000Z\""),
        "{text}"
    );
    // The request line is the origin form (no fragment, the query kept); the pseudo
    // header is not written as a header line; the timings place the bytes.
    let lanes = lane_bytes(&out);
    assert_eq!(
        String::from_utf8(lanes[0].0.clone()).unwrap(),
        format!(
            "POST /mcp?x=1 HTTP/1.1\r\ncontent-type: application/json\r\nContent-Length: 46\r\n\r\n{body}"
        )
    );
    assert!(String::from_utf8(lanes[0].1.clone()).unwrap().starts_with(
        "HTTP/1.1 200 \r\ncontent-type: application/json\r\ncontent-encoding: gzip\r\ntransfer-encoding: chunked\r\n\r\n2e\r\n{"
    ));
    let (_, events) = mcp_raw_wire::transcript::read_bytes(text.as_bytes()).unwrap();
    let stamps: Vec<(f64, bool)> = events
        .iter()
        .filter(|e| matches!(e.what, What::Bytes(_)))
        .map(|e| (e.t.as_secs_f64(), e.dir == Dir::ToServer))
        .collect();
    assert_eq!(stamps, vec![(0.0, true), (0.004, false)]);
    // show and check read it.
    let shown = run(&["show", s(&out), "--oneline"]);
    assert!(shown.out().contains("tools/list"), "{}", shown.out());
    let checked = run(&["check", s(&out)]);
    assert!(
        checked.status.code().is_some_and(|c| c < 2),
        "{}",
        checked.err()
    );
}

#[test]
fn a_malformed_har_is_refused_with_where() {
    let dir = scratch("bad");
    let out = dir.join("out.jsonl");
    for (name, text, want) in [
        (
            "not-json.har",
            "{\"log\": [",
            "$: not JSON: EOF while parsing",
        ),
        ("no-log.har", "{\"entries\": []}", "$.log: missing"),
        (
            "no-url.har",
            r#"{"log":{"entries":[{"startedDateTime":"2026-12-01T10:00:00Z","request":{"method":"GET","httpVersion":"HTTP/1.1","headers":[]},"response":{}}]}}"#,
            "$.log.entries[0].request.url: missing",
        ),
        (
            "bad-date.har",
            r#"{"log":{"entries":[{"startedDateTime":"yesterday"}]}}"#,
            "$.log.entries[0].startedDateTime: not an ISO 8601 date and time: \"yesterday\"",
        ),
        (
            "bad-header.har",
            r#"{"log":{"entries":[{"startedDateTime":"2026-12-01T10:00:00Z","request":{"method":"GET","url":"http://a/","httpVersion":"HTTP/1.1","headers":[{"name":"a","value":7}]},"response":{}}]}}"#,
            "$.log.entries[0].request.headers[0].value: must be a string, got 7",
        ),
    ] {
        let file = dir.join(name);
        std::fs::write(&file, text).unwrap();
        let ran = run(&["import", "har", s(&file), "-o", s(&out)]);
        assert_eq!(ran.status.code(), Some(2), "{name}: {}", ran.err());
        assert!(ran.err().contains(want), "{name}: {}", ran.err());
        assert!(
            ran.err().contains("is not a HAR mcp-raw can read"),
            "{}",
            ran.err()
        );
    }
    assert!(!out.exists(), "nothing written for a refused HAR");
}

#[test]
fn a_har_over_the_limit_is_refused_before_it_is_read() {
    let dir = scratch("big");
    let file = dir.join("big.har");
    // Over the limit and not JSON at all: refused by its size, so never parsed.
    std::fs::write(&file, vec![b'x'; 2048]).unwrap();
    let out = dir.join("out.jsonl");
    let ran = run(&[
        "import",
        "har",
        s(&file),
        "-o",
        s(&out),
        "--max-har-bytes",
        "1024",
    ]);
    assert_eq!(ran.status.code(), Some(2), "{}", ran.err());
    assert!(
        ran.err()
            .contains("is 2048 bytes, over --max-har-bytes 1024: not read"),
        "{}",
        ran.err()
    );
    let missing = run(&["import", "har", s(&dir.join("none.har")), "-o", s(&out)]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(missing.err().contains("cannot read"), "{}", missing.err());
}

#[test]
fn a_recording_without_http_is_refused() {
    let dir = scratch("stdio");
    let file = dir.join("stdio.jsonl");
    std::fs::write(
        &file,
        "{\"transcript\":\"mcp-raw\",\"version\":4,\"role\":\"client\",\"transport\":\"stdio\",\"started\":\"2026-12-01T10:00:00.000Z\"}\n{\"t\":0.1,\"lane\":\"stdio\",\"dir\":\"c2s\",\"text\":\"{\\\"jsonrpc\\\":\\\"2.0\\\",\\\"method\\\":\\\"ping\\\",\\\"id\\\":1}\\n\"}\n",
    )
    .unwrap();
    let ran = run(&["export", "har", s(&file)]);
    assert_eq!(ran.status.code(), Some(2), "{}", ran.err());
    assert!(
        ran.err().contains("the recording has no HTTP lanes (its transport is \"stdio\"): HAR holds HTTP exchanges only"),
        "{}",
        ran.err()
    );
    assert!(ran.stdout.is_empty());
    let not = dir.join("not.jsonl");
    std::fs::write(&not, "hello\n").unwrap();
    let ran = run(&["export", "har", s(&not)]);
    assert_eq!(ran.status.code(), Some(2));
    assert!(
        ran.err().contains("is not a transcript mcp-raw can read"),
        "{}",
        ran.err()
    );
}

/// `export har` reads the recording as a stream: a line that is not an event
/// halfway through ends it with that line's number (exit 2), and with `-o` the
/// document begun is not left behind; a file named by `-o` is not touched when the
/// recording is refused before its first entry.
#[test]
fn a_bad_line_midway_ends_export_har_with_its_line_number() {
    let dir = scratch("midway");
    let good = std::fs::read_to_string(known()).unwrap();
    let lines: Vec<&str> = good.lines().collect();
    let cut = lines.len() / 2;
    let mut bad = lines[..cut].join("\n");
    bad.push_str("\n{\"t\": 1, \"lane\": \"c1\", \"dir\": \"sideways\", \"text\": \"x\"}\n");
    bad.push_str(&lines[cut..].join("\n"));
    let broken = dir.join("broken.jsonl");
    std::fs::write(&broken, bad).unwrap();
    let want = format!(
        "mcp-raw export har: {} is not a transcript mcp-raw can read: line {}: bad \"dir\" (c2s or s2c): \"sideways\"\n",
        broken.display(),
        cut + 1
    );
    let ran = run(&["export", "har", s(&broken)]);
    assert_eq!(ran.status.code(), Some(2));
    assert_eq!(ran.err(), want);
    let out = dir.join("out.har");
    let ran = run(&["export", "har", s(&broken), "-o", s(&out)]);
    assert_eq!(ran.status.code(), Some(2));
    assert_eq!(ran.err(), want);
    assert!(
        !out.exists(),
        "a half-written HAR is left at {}",
        out.display()
    );
    // Bad on its second line: refused before a byte is written; OUT stays as it was.
    let early = dir.join("early.jsonl");
    std::fs::write(&early, format!("{}\nnot json\n", lines[0])).unwrap();
    std::fs::write(&out, "kept").unwrap();
    let ran = run(&["export", "har", s(&early), "-o", s(&out)]);
    assert_eq!(ran.status.code(), Some(2));
    assert!(ran.err().contains("line 2: "), "{}", ran.err());
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "kept");
}
