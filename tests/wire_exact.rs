//! The wire claims, checked in bytes: what `mcp-raw client` shows and records is what
//! crossed the socket or the pipe, exactly, as it crossed; `serve --trace` and
//! `serve --record` see the same bytes as the client on the other end.

mod common;
use common::cli_inproc::cli_here;
use common::{BIN, client_inproc, golden, stamp, unstamped};
use mcp_raw_net::client::http_link::HttpLink;
use mcp_raw_net::client::mcp_client::{EraCache, Link, McpClient, Options};
use mcp_raw_wire::event::{Dir, LaneKind};
use mcp_raw_wire::http1;
use mcp_raw_wire::recorder::concat;
use mcp_raw_wire::transcript;
use serde_json::Value;
use std::io::{Read, Write};
use std::net::TcpListener;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

fn read_transcript(
    path: &std::path::Path,
) -> (transcript::Header, Vec<mcp_raw_wire::event::Event>) {
    let text = std::fs::read_to_string(path).unwrap();
    transcript::read(&text).unwrap()
}

fn tempdir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("mcp-raw-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Reads one HTTP/1.1 request off a socket through the library's framer (which
/// lives as long as the connection): the bytes as they came, and the JSON body.
fn read_request(
    sock: &mut std::net::TcpStream,
    framer: &mut http1::Framer,
    seen: &mut Vec<u8>,
) -> Option<Value> {
    let mut body = Vec::new();
    let mut byte = [0u8; 4096];
    loop {
        let n = sock.read(&mut byte).ok()?;
        if n == 0 {
            return None;
        }
        seen.extend_from_slice(&byte[..n]);
        for part in framer.feed(&byte[..n]) {
            match part {
                http1::Part::Body(b) => body.extend_from_slice(&b),
                http1::Part::End => return serde_json::from_slice(&body).ok(),
                http1::Part::Invalid(why) => panic!("a bad request ({why})"),
                _ => {}
            }
        }
    }
}

/// A hand-written HTTP server that answers every POST with an SSE stream in unusual
/// (legal) form, written in pieces with pauses. Returns its address and the bytes it
/// read and wrote.
#[allow(clippy::type_complexity)]
fn odd_server() -> (String, Arc<Mutex<Vec<u8>>>, Arc<Mutex<Vec<u8>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let (read, written) = (Arc::default(), Arc::default());
    let (r, w): (Arc<Mutex<Vec<u8>>>, Arc<Mutex<Vec<u8>>>) =
        (Arc::clone(&read), Arc::clone(&written));
    std::thread::spawn(move || {
        let (mut sock, _) = listener.accept().unwrap();
        sock.set_nodelay(true).unwrap();
        let mut framer = http1::Framer::new(http1::Side::Request, 1 << 20);
        loop {
            let mut seen = Vec::new();
            let Some(request) = read_request(&mut sock, &mut framer, &mut seen) else {
                return;
            };
            r.lock().unwrap().extend_from_slice(&seen);
            let id = request["id"].clone();
            let result = match request["method"].as_str() {
                Some("server/discover") => {
                    r#"{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"odd","version":"1"}}}"#
                }
                _ => r#"{"resultType":"complete","tools":[]}"#,
            };
            // The response split over two data: lines (joined with \n, JSON whitespace).
            let sse = format!(
                ": a comment first\nid: ev-1\nretry: 1500\ndata:\n\ndata: {{\"jsonrpc\":\"2.0\",\"id\":{id},\ndata: \"result\":{result}}}\n\n"
            );
            let head = "HTTP/1.1 200 OK\r\nX-Zebra: first\r\ncontent-TYPE: text/event-stream\r\nCache-Control: no-cache\r\nTransfer-Encoding: chunked\r\n\r\n";
            let mut pieces: Vec<Vec<u8>> = vec![head.as_bytes().to_vec()];
            // Odd chunk sizes: 7, 13, then the rest, then the last chunk.
            let body = sse.as_bytes();
            let (a, rest) = body.split_at(7);
            let (b, c) = rest.split_at(13);
            for chunk in [a, b, c] {
                pieces.push(format!("{:x}\r\n", chunk.len()).into_bytes());
                let mut data = chunk.to_vec();
                data.extend_from_slice(b"\r\n");
                pieces.push(data);
            }
            pieces.push(b"0\r\n\r\n".to_vec());
            for (i, piece) in pieces.iter().enumerate() {
                sock.write_all(piece).unwrap();
                w.lock().unwrap().extend_from_slice(piece);
                if i % 2 == 1 {
                    std::thread::sleep(Duration::from_millis(60));
                }
            }
        }
    });
    (addr, read, written)
}

/// The facts of a transcript (its `"fact"` lines): what the readers made of the
/// bytes, whichever way the reads happened to split them.
fn facts(jsonl: &str) -> String {
    jsonl
        .lines()
        .filter(|l| {
            serde_json::from_str::<Value>(l)
                .unwrap()
                .get("fact")
                .is_some()
        })
        .map(|l| format!("{l}\n"))
        .collect()
}

/// The offsets (seconds) of the stamped `<<<` lines of a text view.
fn received_stamps(view: &str) -> Vec<f64> {
    view.lines()
        .filter(|l| l.starts_with("<<< [c"))
        .filter_map(stamp)
        .collect()
}

#[test]
fn client_raw_shows_every_byte_of_an_odd_server_as_it_arrives() {
    let (addr, read, written) = odd_server();
    let dir = tempdir("odd");
    let record = dir.join("client.jsonl");
    // The golden view holds the CLI's captions beside every byte.
    let out = cli_here([
        "client",
        &format!("http://{addr}/mcp"),
        "--raw",
        "--color",
        "never",
        "--record",
        record.to_str().unwrap(),
    ]);
    let view = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{view}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The whole raw view, stamps aside: each piece as it came (the head with
    // X-Zebra first and content-TYPE's case, each chunk-size line 7, d, ..., the SSE
    // fields split where the chunks split them, the last chunk), and what the client
    // made of it.
    golden::check("client/odd-server-raw.txt", &unstamped(&view));
    // The pieces came 60 ms apart, and were shown as they came.
    let stamps = received_stamps(&view);
    assert!(stamps.len() >= 8, "{stamps:?}\n{view}");
    assert!(stamps.windows(2).all(|w| w[0] <= w[1]), "{stamps:?}");
    assert!(stamps[stamps.len() - 1] - stamps[0] > 0.25, "{stamps:?}");

    // The transcript's bytes, per direction, are what crossed the socket.
    let (header, events) = read_transcript(&record);
    assert_eq!(
        (header.role.as_str(), header.transport.as_str()),
        ("client", "http")
    );
    assert_eq!(
        concat(&events, |e| e.dir == Dir::ToClient),
        *written.lock().unwrap()
    );
    assert_eq!(
        concat(&events, |e| e.dir == Dir::ToServer),
        *read.lock().unwrap()
    );
    let jsonl = std::fs::read_to_string(&record).unwrap();
    // What the readers made of those bytes, whole: the head with its headers as
    // sent (X-Zebra first, content-TYPE's case), each chunk's size (7, 13, ...), the
    // SSE fields (a comment, id ev-1, retry 1500, an empty data), the message each
    // event's data lines made.
    golden::check("client/odd-server.facts.jsonl", &facts(&jsonl));
}

/// A stdio server that pollutes its stdout between the protocol messages, and sends
/// a malformed response (both `result` and `error`) before the real one: the client
/// reads what it receives with the library's JSON-RPC parser, so it is not fooled.
const POLLUTING_SERVER: &str = r#"
while IFS= read -r line; do
  id=$(printf '%s' "$line" | sed -n 's/.*"id":\([0-9]*\).*/\1/p')
  case "$line" in
    *'"server/discover"'*)
      printf 'Server starting... (a print statement)\n'
      printf '\357\273\277{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"a BOM"}}\n'
      printf '{"jsonrpc":"2.0","id":%s,"result":{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{}}}}\r\n' "$id" ;;
    *'"tools/list"'*)
      printf '\377\376 not UTF-8\n'
      head -c 100000 /dev/zero | tr '\0' x; printf '\n'
      printf '{"jsonrpc":"2.0","id":%s,"result":{"tools":[]},"error":{"code":1,"message":"both"}}\n' "$id"
      printf '{"jsonrpc":"2.0","id":%s,"result":{"resultType":"complete","tools":[{"name":"t","inputSchema":{"type":"object"}}]}}\n' "$id" ;;
  esac
done
"#;

#[test]
fn stdout_pollution_is_shown_flagged_and_the_session_goes_on() {
    let dir = tempdir("pollution");
    let script = dir.join("server.sh");
    std::fs::write(&script, POLLUTING_SERVER).unwrap();
    let record = dir.join("client.jsonl");
    let target = format!("sh {}", script.display());
    let run = |raw: bool| {
        // A stdio target (the client spawns it) and the CLI's captions in the golden view.
        let mut cmd = vec![
            "client",
            &target,
            "--color",
            "never",
            "--record",
            record.to_str().unwrap(),
        ];
        if raw {
            cmd.push("--raw");
        }
        let out = cli_here(cmd);
        let view = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(
            out.status.success(),
            "{view}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        unstamped(&view)
    };
    // The long line is shown whole; the golden files hold it as `<100000 x>`.
    let long = "x".repeat(100_000);
    let view = run(false);
    assert_eq!(
        view.matches(&long).count(),
        1,
        "the long line is shown whole"
    );
    // The whole view: the pollution flagged (not JSON), the BOM, the CRLF, the bytes
    // that are not UTF-8, the response with both result and error, then the session
    // going on (`# 1 tools: t`).
    golden::check(
        "client/polluting-server.txt",
        &view
            .replace(&long, "<100000 x>")
            .replace(dir.to_str().unwrap(), "<dir>"),
    );
    let raw = run(true);
    assert_eq!(
        raw.matches(&long).count(),
        1,
        "the long line is shown whole"
    );
    golden::check(
        "client/polluting-server-raw.txt",
        &raw.replace(&long, "<100000 x>")
            .replace(dir.to_str().unwrap(), "<dir>"),
    );
    // The transcript holds the non-UTF-8 read as Base64, and the bytes add up.
    let jsonl = std::fs::read_to_string(&record).unwrap();
    assert!(jsonl.contains("\"base64\":"), "{jsonl}");
    // Each line's fact, whole: the pollution not-json, the BOM, the CR, the
    // non-UTF-8 line, the response with both result and error invalid.
    golden::check("client/polluting-server.facts.jsonl", &facts(&jsonl));
    let (_, events) = read_transcript(&record);
    let stdout = concat(&events, |e| {
        e.dir == Dir::ToClient && e.lane.kind == LaneKind::Stdio
    });
    assert!(stdout.starts_with(b"Server starting... (a print statement)\n\xEF\xBB\xBF{"));
    assert!(stdout.windows(2).any(|w| w == b"\xff\xfe"));
}

/// The `>>>` / `<<<` lines of a view (stderr also holds the server's log).
fn wire_lines(view: &str) -> String {
    view.lines()
        .filter(|l| l.starts_with(">>>") || l.starts_with("<<<"))
        .map(|l| format!("{l}\n"))
        .collect()
}

/// `serve --trace raw` over stdio: the trace shows each line the client wrote and
/// each line the server wrote, verbatim; `--record` holds the same bytes.
#[test]
fn serve_trace_and_record_over_stdio_match_the_pipes() {
    let dir = tempdir("trace-stdio");
    let record = dir.join("server.jsonl");
    // Serve over stdio (its pipes, its stderr trace): a process.
    let mut child = Command::new(BIN)
        .args(["serve", "--trace", "raw", "--record"])
        .arg(&record)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let sent = concat!(
        r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
        "\r\n",
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        "\n"
    );
    child
        .stdin
        .take()
        .unwrap()
        .write_all(sent.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let trace = unstamped(&String::from_utf8_lossy(&out.stderr));
    // The trace's wire lines, whole, each direction in order (the server may read
    // both lines before it answers the first, so the two directions interleave as
    // they happen to): the ping's CRLF shown as ␍, then each answer.
    let wire = wire_lines(&trace);
    let (sent_lines, answer_lines): (Vec<&str>, Vec<&str>) =
        wire.lines().partition(|l| l.starts_with(">>>"));
    let by_direction: String = sent_lines
        .iter()
        .chain(&answer_lines)
        .map(|l| format!("{l}\n"))
        .collect();
    golden::check("serve/stdio-trace-crlf.txt", &by_direction);
    // And its <<< lines are stdout's lines, exactly.
    let answers: String = answer_lines
        .iter()
        .map(|l| format!("{}\n", &l[4..]))
        .collect();
    assert_eq!(answers, String::from_utf8(out.stdout.clone()).unwrap());
    let (header, events) = read_transcript(&record);
    assert_eq!(header.role, "server");
    // `mcp-raw show` renders the record again: the same raw view the trace was
    // (the library's view of the recording, in-process: the view is the subject).
    assert_eq!(
        unstamped(&client_inproc::show_raw(&record)),
        wire_lines(&trace)
    );
    let doc: Value = serde_json::from_slice(&client_inproc::show_pretty(&record)).unwrap();
    assert_eq!(
        doc["rendering"],
        "pretty JSON of an mcp-raw transcript; the JSON Lines file is the record"
    );
    assert_eq!(doc["events"][1]["facts"][0]["shape"], "request");
    let bad = dir.join("bad.jsonl");
    std::fs::write(
        &bad,
        "{\"transcript\":\"mcp-raw\",\"version\":1}\n{\"t\":0,\"lane\":\"c1\"}\n",
    )
    .unwrap();
    // The refusal's words and exit status are the program's.
    let refused = cli_here(["show", bad.to_str().unwrap()]);
    assert!(!refused.status.success());
    assert_eq!(
        String::from_utf8_lossy(&refused.stderr),
        format!(
            "mcp-raw show: {} is not a transcript mcp-raw can read: line 2: bad \"dir\" (c2s or s2c): null\n",
            bad.display()
        )
    );
    assert_eq!(concat(&events, |e| e.dir == Dir::ToServer), sent.as_bytes());
    assert_eq!(concat(&events, |e| e.dir == Dir::ToClient), out.stdout);
}

/// Over HTTP, the server's record of a session and the client's are the same bytes
/// both ways; the server's trace shows the client's request line as sent. (Both
/// ends in-process, through the library's server, client and recorders: the records
/// are the subject, not the processes.)
#[test]
fn serve_record_over_http_equals_the_clients_record() {
    let dir = tempdir("trace-http");
    let (server_rec, client_rec) = (dir.join("server.jsonl"), dir.join("client.jsonl"));
    let (server, trace) = client_inproc::traced_recording(&server_rec);
    let driven = client_inproc::drive_http_recording(
        &format!("http://{}/mcp", server.addr),
        Options::default(),
        &[("add", serde_json::json!({"a": 1, "b": 2}))],
        Some(&client_rec),
    );
    assert_eq!(
        driven.results,
        vec![Ok(r#"{"resultType":"complete","content":[{"type":"text","text":"3"}],"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"mcp-raw","version":"0.1.0"}}}"#.to_owned())]
    );
    let (_, theirs) = read_transcript(&client_rec);
    // Connection by connection (the client's background GET has its own, and the
    // two sides may number them in a different order): the same bytes both ways.
    let per_lane = |events: &[mcp_raw_wire::event::Event]| {
        let mut lanes: Vec<_> = events.iter().map(|e| e.lane).collect();
        lanes.dedup();
        lanes.sort_by_key(|l| l.id);
        lanes.dedup();
        let mut both: Vec<(Vec<u8>, Vec<u8>)> = lanes
            .iter()
            .map(|l| {
                (
                    concat(events, |e| e.lane == *l && e.dir == Dir::ToServer),
                    concat(events, |e| e.lane == *l && e.dir == Dir::ToClient),
                )
            })
            .collect();
        both.sort();
        both
    };
    let theirs = per_lane(&theirs);
    // The server records its last write as it makes it; each event reaches the
    // transcript before the trace, so each write to the trace is a moment to look.
    let log = trace.once(Duration::from_secs(10), |_| {
        per_lane(&read_transcript(&server_rec).1) == theirs
    });
    let ours = per_lane(&read_transcript(&server_rec).1);
    assert!(
        ours.iter()
            .any(|(c2s, _)| c2s.starts_with(b"POST /mcp HTTP/1.1"))
    );
    assert_eq!(ours, theirs);
    assert!(
        unstamped(&log).contains(">>> POST /mcp HTTP/1.1\n>>> host: "),
        "{log}"
    );
    assert!(log.contains("\"method\": \"tools/call\""), "{log}");
}

/// A `--record` file that cannot be written stops the program before it serves,
/// naming the file and why; a file that is not a transcript is refused by `show`.
#[test]
fn unwritable_records_and_foreign_files_are_refused_clearly() {
    for args in [
        vec!["serve", "--record", "/nonexistent/dir/x.jsonl"],
        vec![
            "serve",
            "--http",
            "--port",
            "0",
            "--record",
            "/nonexistent/dir/x.jsonl",
        ],
        vec!["client", "true", "--record", "/nonexistent/dir/x.jsonl"],
    ] {
        // An unwritable --record stops the CLI (stderr, exit status 2) before it
        // listens or spawns anything.
        let out = cli_here(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(
            err,
            "mcp-raw: --record /nonexistent/dir/x.jsonl: cannot write it: No such file or directory (os error 2)\n",
            "{args:?}"
        );
    }
    // Show's refusal of a foreign file (stderr, exit status 2), read from the
    // package's directory (where `cargo test` runs every test).
    let out = cli_here(["show", "Cargo.toml"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "mcp-raw show: Cargo.toml is not a transcript mcp-raw can read: line 1: not JSON: expected value at line 1 column 1\n"
    );
}

/// `--max-message-bytes`: a line over it is skipped by the link and shown as too
/// long, the session goes on, and the record still holds every byte of it.
#[test]
fn a_line_over_max_message_bytes_is_shown_as_too_long_and_kept_in_the_record() {
    let dir = tempdir("too-long");
    let script = dir.join("server.sh");
    std::fs::write(&script, POLLUTING_SERVER).unwrap();
    let record = dir.join("client.jsonl");
    // A stdio target (the client spawns it) and the CLI's captions in the golden view.
    let out = cli_here([
        "client",
        &format!("sh {}", script.display()),
        "--color",
        "never",
        "--max-message-bytes",
        "50000",
        "--record",
        record.to_str().unwrap(),
    ]);
    let view = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{view}");
    assert!(
        !view.contains(&"x".repeat(50_001)),
        "the long line is not shown"
    );
    // The whole view: the line too long shown by its size, the session going on.
    golden::check(
        "client/too-long.txt",
        &unstamped(&view).replace(dir.to_str().unwrap(), "<dir>"),
    );
    let jsonl = std::fs::read_to_string(&record).unwrap();
    // Each line's fact, whole: the line too long for the view is a `too-long` fact
    // of 100000 bytes, the rest as in client/polluting-server.facts.jsonl.
    golden::check("client/too-long.facts.jsonl", &facts(&jsonl));
    let (_, events) = read_transcript(&record);
    let stdout = concat(&events, |e| {
        e.dir == Dir::ToClient && e.lane.kind == LaneKind::Stdio
    });
    assert!(
        stdout
            .windows(100_001)
            .any(|w| w == format!("{}\n", "x".repeat(100_000)).as_bytes())
    );
}

/// `client --json`: stdout is the JSONL transcript and nothing else (the captions go
/// to stderr); it reads back as a transcript.
#[test]
fn client_json_prints_the_transcript_on_stdout() {
    // Client --json splits stdout (the transcript) from stderr (the captions).
    let out = cli_here([
        "client",
        "--json",
        "--call",
        r#"add={"a":1,"b":2}"#,
        "--",
        BIN,
        "serve",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    for line in stdout.lines() {
        serde_json::from_str::<Value>(line).unwrap_or_else(|e| panic!("{e}: {line}"));
    }
    let (header, events) = transcript::read(&stdout).unwrap();
    assert_eq!(
        (header.role.as_str(), header.transport.as_str()),
        ("client", "stdio")
    );
    assert!(!events.is_empty());
    // The whole transcript, and the captions on stderr, whole.
    golden::check("client/json-stdio.jsonl", &stdout);
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!(
            "\n# Connecting to {BIN} serve (client eras: Both)\n\n# The server speaks the modern era, 2026-07-28 (stateless, per-request _meta)\n\n# 3 tools: get_current_time, echo, add\n\n# add: ok\n"
        )
    );
}

/// `--timeout`: a server that sends its head and then nothing is given up on after
/// the timeout, saying which wait ran out. Timing is the subject: the library's
/// client and the silent server on tokio's paused clock, so the 0.5 s costs no wall
/// time and the give-up is seen at the limit exactly. (The CLI says this error as
/// `mcp-raw: {e:#}` with exit status 3, as every connection failure:
/// client.rs `exit_codes_say_what_went_wrong`.)
#[tokio::test(start_paused = true)]
async fn a_stalled_response_ends_at_the_timeout() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let (mut sock, _) = listener.accept().await.unwrap();
        let mut framer = http1::Framer::new(http1::Side::Request, 1 << 20);
        let mut buf = [0u8; 4096];
        'request: loop {
            let n = sock.read(&mut buf).await.unwrap();
            assert!(n > 0, "the client hung up before its request ended");
            for part in framer.feed(&buf[..n]) {
                if matches!(part, http1::Part::End) {
                    break 'request;
                }
            }
        }
        sock.write_all(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n")
            .await
            .unwrap();
        // Nothing more: the connection stays open until the client gives up on it.
        let _ = sock.read(&mut [0u8; 1]).await;
    });
    let url = format!("http://{addr}/mcp");
    let (printer, _trace) = client_inproc::viewing(None, "http");
    // What `--timeout 0.5` sets: the link's read deadline and the client's.
    let mut link = HttpLink::new(&url, &printer).unwrap();
    link.timeout = Duration::from_millis(500);
    let options = Options {
        timeout: Duration::from_millis(500),
        ..Options::default()
    };
    let started = tokio::time::Instant::now();
    let failed = McpClient::connect(Link::Http(link), &url, options, &mut EraCache::default())
        .await
        .err()
        .expect("the stalled probe fails");
    let took = started.elapsed();
    assert_eq!(
        format!("{failed:#}"),
        "the response body stalled: nothing for 500ms (--timeout): deadline has elapsed"
    );
    assert!(
        took >= Duration::from_millis(500) && took < Duration::from_millis(600),
        "{took:?}"
    );
}
