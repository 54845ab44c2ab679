//! `tap --http --ui --intercept` (and `tap --proxy`'s) through the real binary: a
//! POST's body, a JSON answer and one SSE event held in flight, then changed (framed
//! anew: `Content-Length` rewritten, a chunked body re-chunked, an event's other
//! fields kept), dropped (the tap answers a dropped request with its own 502 in its
//! place on the connection) or let go at `--intercept-timeout`. The recorded steps,
//! the bytes the server got and the bytes the client got are compared exactly; a
//! held request holds what the client sent after it on the same connection.

mod common;
use common::BIN;
use common::client_inproc::demo_http;
use mcp_raw_wire::event::{Dir, What};
use mcp_raw_wire::http1::{Framer, Part, Side};
use mcp_raw_wire::transcript;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The tap, started with its page: killed on drop.
struct Tap {
    child: Child,
    /// `127.0.0.1:PORT` of the page.
    page: String,
    /// The page's token.
    token: String,
    /// `127.0.0.1:PORT` the tap listens on.
    addr: String,
    /// Its recording.
    record: PathBuf,
}

impl Drop for Tap {
    fn drop(&mut self) {
        common::stop(&mut self.child);
    }
}

impl Tap {
    /// `mcp-raw tap MODE… --ui --intercept FILTER --intercept-timeout SECS --record FILE`.
    fn start(mode: &[&str], filter: &str, timeout: &str, record: &Path) -> Tap {
        let mut child = Command::new(BIN)
            .arg("tap")
            .args(mode)
            .args(["--listen", "127.0.0.1:0", "--ui", "--intercept", filter])
            .args(["--intercept-timeout", timeout, "--record"])
            .arg(record)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
        let first = lines.next().unwrap().unwrap();
        let url = first
            .strip_prefix("[mcp-raw] ui: http://")
            .unwrap_or_else(|| panic!("no page URL first: {first:?}"));
        let (page, token) = url.split_once("/?token=").unwrap();
        let second = lines.next().unwrap().unwrap();
        let addr = second
            .split("http://")
            .nth(1)
            .and_then(|r| r.split(['/', ' ', ',']).next())
            .unwrap_or_else(|| panic!("no address in {second:?}"))
            .to_owned();
        // The rest of stderr is read away, so the tap never blocks writing it.
        std::thread::spawn(move || for _ in lines {});
        Tap {
            child,
            page: page.to_owned(),
            token: token.to_owned(),
            addr,
            record: record.to_owned(),
        }
    }

    /// `tap --http --target http://SERVER/mcp`, the rest as [`Tap::start`].
    fn http(server: &str, filter: &str, timeout: &str, record: &Path) -> Tap {
        Tap::start(
            &["--http", "--target", &format!("http://{server}/mcp")],
            filter,
            timeout,
            record,
        )
    }

    /// The page's decision for hold `hold`: `{"hold": …}` answered 200.
    fn decide(&self, hold: u64, action: &str, message: Option<&str>) {
        let mut ask = serde_json::json!({"hold": hold, "action": action});
        if let Some(m) = message {
            ask["message"] = m.into();
        }
        let body = ask.to_string();
        let mut sock = TcpStream::connect(&self.page).unwrap();
        write!(
            sock,
            "POST /intercept?token={} HTTP/1.1\r\nHost: {}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            self.token,
            self.page,
            body.len()
        )
        .unwrap();
        let reply = common::http_client::Reader::new(sock).reply();
        assert_eq!(
            (reply.status, reply.text()),
            (200, format!("{{\"hold\":{hold}}}")),
        );
    }

    /// Waits (5 s at most) until the recording marks hold `hold` held.
    fn held(&self, hold: u64) {
        let marked = || steps(&self.record).contains(&format!("held #{hold}"));
        if !eventually(Duration::from_secs(5), marked) {
            panic!("hold #{hold} never held: {:?}", steps(&self.record));
        }
    }
}

/// `tap.jsonl` in a scratch folder of its own, `name`.
fn record_in(name: &str) -> PathBuf {
    common::scratch("tap-intercept", name).join("tap.jsonl")
}

/// The recording's intercept steps, `held #1`…, in order.
fn steps(record: &Path) -> Vec<String> {
    std::fs::read_to_string(record)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).ok()?;
            let i = v.get("intercept")?;
            Some(format!("{} #{}", i["step"].as_str()?, i["hold"]))
        })
        .collect()
}

/// Whether `done` comes true within `limit`: asked again every 10 ms (what is
/// awaited is written by another process, the tap, to its recording).
fn eventually(limit: Duration, mut done: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + limit;
    loop {
        if done() {
            return true;
        }
        if Instant::now() >= deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// The recording's intercept steps once there are `n` of them (or 5 s have passed).
fn steps_after(record: &Path, n: usize) -> Vec<String> {
    eventually(Duration::from_secs(5), || steps(record).len() >= n);
    steps(record)
}

/// The recording's intercept steps once they are `want` (or 5 s have passed).
fn steps_when(record: &Path, want: &[String]) -> Vec<String> {
    eventually(Duration::from_secs(5), || steps(record) == want);
    steps(record)
}

/// The recording's intercept steps once the client has closed `sock`, the tap has
/// recorded every connection's close (so every byte before it) and the steps are
/// `want` (or 5 s have passed).
fn steps_once_closed(sock: TcpStream, record: &Path, want: &[String]) -> Vec<String> {
    drop(sock);
    eventually(Duration::from_secs(5), || {
        all_closed(record) && steps(record) == want
    });
    steps(record)
}

/// Has the tap recorded as many closes as opens (every connection ended)?
fn all_closed(record: &Path) -> bool {
    let text = std::fs::read_to_string(record).unwrap_or_default();
    let count = |key: &str| {
        text.lines()
            .filter(|l| {
                serde_json::from_str::<serde_json::Value>(l).is_ok_and(|v| v.get(key).is_some())
            })
            .count()
    };
    let opens = count("open");
    opens > 0 && count("close") >= opens
}

/// Is there something unread on `sock` (an answer come, left unread, so closing is
/// a reset)?
fn unread(sock: &TcpStream) -> bool {
    sock.set_nonblocking(true).unwrap();
    let there = matches!(sock.peek(&mut [0u8; 1]), Ok(n) if n > 0);
    sock.set_nonblocking(false).unwrap();
    there
}

/// What `server` has got so far, once it is `want` (or 5 s have passed).
fn server_got_when(server: &Fake, want: &str) -> String {
    let got = || String::from_utf8_lossy(&server.got.lock().unwrap()).into_owned();
    eventually(Duration::from_secs(5), || got() == want);
    got()
}

/// The steps of holds #1, #2… each held then ended as `ends` says, in turn:
/// `held #1`, `ENDS[0] #1`, `held #2`…
fn held_then(ends: &[&str]) -> Vec<String> {
    let mut want = Vec::new();
    for (hold, end) in (1..).zip(ends) {
        want.push(format!("held #{hold}"));
        want.push(format!("{end} #{hold}"));
    }
    want
}

/// The recording's events, and of them the bytes each way, concatenated, and what
/// each `changed` step recorded.
struct Recorded {
    to_server: Vec<u8>,
    to_client: Vec<u8>,
    changed: Vec<String>,
}

fn recorded(record: &Path) -> Recorded {
    let text = std::fs::read_to_string(record).unwrap();
    let (_, events) = transcript::read(&text).unwrap();
    let mut r = Recorded {
        to_server: Vec::new(),
        to_client: Vec::new(),
        changed: Vec::new(),
    };
    for e in &events {
        match (&e.what, e.dir) {
            (What::Bytes(b), Dir::ToServer) => r.to_server.extend_from_slice(b),
            (What::Bytes(b), Dir::ToClient) => r.to_client.extend_from_slice(b),
            (What::Intercept(i), _) if i.step == mcp_raw_wire::event::HoldStep::Changed => {
                r.changed
                    .push(String::from_utf8_lossy(&i.bytes).into_owned());
            }
            _ => {}
        }
    }
    r
}

/// One response read whole from `sock`, its bytes exactly as they came.
fn response(sock: &mut TcpStream) -> Vec<u8> {
    sock.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    let mut framer = Framer::new(Side::Response, 1 << 20);
    let mut raw = Vec::new();
    let mut byte = [0u8; 1];
    // Byte by byte: what follows this response on the connection stays unread.
    loop {
        let n = sock.read(&mut byte).expect("a response within 5 s");
        assert!(n == 1, "the connection closed inside a response: {raw:?}");
        raw.push(byte[0]);
        let parts = framer.feed(&byte);
        if parts.iter().any(|p| matches!(p, Part::End)) {
            return raw;
        }
        if let Some(Part::Invalid(why)) = parts.iter().find(|p| matches!(p, Part::Invalid(_))) {
            panic!("{why}: {}", String::from_utf8_lossy(&raw));
        }
    }
}

/// `POST /mcp` with `headers` (each `Name: value\r\n`) and a JSON body.
fn post(host: &str, headers: &str, body: &str) -> Vec<u8> {
    format!(
        "POST /mcp HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n{headers}Content-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

/// The tap's own answer to a dropped request or a dropped answer.
fn dropped(hold: u64, what: &str) -> String {
    let body = format!(
        "mcp-raw tap: hold #{hold}: {what} was dropped at the tap (--intercept) and never delivered\n"
    );
    format!(
        "HTTP/1.1 502 Bad Gateway\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
}

/// A `200` with this JSON body.
fn json_of(body: &str) -> String {
    format!(
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
}

/// What a fake server writes, made to last as long as the test ([`fake`] keeps it).
fn leak(s: String) -> &'static str {
    Box::leak(s.into_boxed_str())
}

/// A response's body, de-framed.
fn body_of(raw: &[u8]) -> String {
    let mut framer = Framer::new(Side::Response, 1 << 20);
    let body: Vec<u8> = framer
        .feed(raw)
        .into_iter()
        .filter_map(|p| match p {
            Part::Body(b) => Some(b.to_vec()),
            _ => None,
        })
        .flatten()
        .collect();
    String::from_utf8(body).unwrap()
}

/// Both eras through `tap --http` in front of `serve --http`, on one keep-alive
/// connection each: a held `tools/call` changed (the server answers the edited
/// call), one dropped (the client gets the tap's 502, and the ping after it on the
/// same connection its answer), one let go at the deadline.
#[test]
fn held_calls_on_an_http_tap_are_changed_dropped_or_let_go_in_both_eras() {
    let server = demo_http("both");
    let dir = common::scratch("tap-intercept", "eras");
    for era in ["legacy", "modern"] {
        let record = dir.join(format!("{era}.jsonl"));
        let tap = Tap::http(&server.addr, "tool:add", "1", &record);
        let host = "127.0.0.1";
        let mut sock = TcpStream::connect(&tap.addr).unwrap();
        let mut sent: Vec<u8> = Vec::new();
        let mut got: Vec<u8> = Vec::new();
        let (headers, meta) = if era == "legacy" {
            let init = post(host, "", &common::initialize("2025-11-25"));
            sock.write_all(&init).unwrap();
            sent.extend_from_slice(&init);
            let answer = response(&mut sock);
            got.extend_from_slice(&answer);
            let text = String::from_utf8_lossy(&answer).into_owned();
            let session = text
                .lines()
                .find_map(|l| l.strip_prefix("mcp-session-id: "))
                .unwrap_or_else(|| panic!("no session: {text}"))
                .trim()
                .to_owned();
            let headers =
                format!("Mcp-Session-Id: {session}\r\nMCP-Protocol-Version: 2025-11-25\r\n");
            let note = post(
                host,
                &headers,
                r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            );
            sock.write_all(&note).unwrap();
            sent.extend_from_slice(&note);
            got.extend_from_slice(&response(&mut sock));
            (headers, String::new())
        } else {
            (
                "MCP-Protocol-Version: 2026-07-28\r\n".to_owned(),
                r#","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#.to_owned(),
            )
        };
        let call = |id: u64, a: u64, b: u64| {
            let extra = if era == "legacy" {
                headers.clone()
            } else {
                format!("{headers}Mcp-Method: tools/call\r\nMcp-Name: add\r\n")
            };
            let body = format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"add","arguments":{{"a":{a},"b":{b}}}{meta}}}}}"#
            );
            (post(host, &extra, &body), extra, body)
        };
        // 1: held, changed: the server gets the edited call, framed anew.
        let (one, extra, body) = call(2, 1, 2);
        sock.write_all(&one).unwrap();
        tap.held(1);
        let edited = body.replace(r#""a":1,"b":2"#, r#""a":40,"b":2"#);
        tap.decide(1, "change", Some(&edited));
        sent.extend_from_slice(&post(host, &extra, &edited));
        let answer = response(&mut sock);
        got.extend_from_slice(&answer);
        assert!(
            body_of(&answer).contains(r#""text":"42""#),
            "{era}: {}",
            String::from_utf8_lossy(&answer)
        );
        // 2: held, dropped: the tap answers in its place; the connection goes on.
        let (two, ..) = call(3, 5, 5);
        sock.write_all(&two).unwrap();
        tap.held(2);
        tap.decide(2, "drop", None);
        let answer = response(&mut sock);
        got.extend_from_slice(&answer);
        assert_eq!(
            String::from_utf8_lossy(&answer),
            dropped(2, "this request"),
            "{era}"
        );
        // tools/list: not held (2026-07-28 has no ping).
        let list_headers = if era == "legacy" {
            headers.clone()
        } else {
            format!("{headers}Mcp-Method: tools/list\r\n")
        };
        let ping = post(
            host,
            &list_headers,
            &format!(
                r#"{{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{{{}}}}}"#,
                meta.trim_start_matches(',')
            ),
        );
        sock.write_all(&ping).unwrap();
        sent.extend_from_slice(&ping);
        let answer = response(&mut sock);
        got.extend_from_slice(&answer);
        assert!(
            body_of(&answer).contains(r#""id":4,"result""#),
            "{era}: {}",
            String::from_utf8_lossy(&answer)
        );
        // 3: held, no decision: at --intercept-timeout it goes on as it came.
        let (three, ..) = call(5, 2, 3);
        sock.write_all(&three).unwrap();
        sent.extend_from_slice(&three);
        tap.held(3);
        let answer = response(&mut sock);
        got.extend_from_slice(&answer);
        assert!(body_of(&answer).contains(r#""text":"5""#), "{era}");
        let want = held_then(&["changed", "dropped", "expired"]);
        assert_eq!(steps_once_closed(sock, &record, &want), want, "{era}");
        let r = recorded(&record);
        assert_eq!(r.changed, [edited], "{era}");
        // The lane's bytes are what crossed: the edited call, framed anew, and no
        // dropped one to the server; the tap's 502 to the client.
        assert_eq!(
            String::from_utf8_lossy(&r.to_server),
            String::from_utf8_lossy(&sent),
            "{era}"
        );
        assert_eq!(
            String::from_utf8_lossy(&r.to_client),
            String::from_utf8_lossy(&got),
            "{era}"
        );
    }
}

/// A server of the test's own on one connection: it keeps every byte it gets and
/// answers each request, when it has come whole, with the next of `answers`, each
/// written in the pieces given, a moment apart.
struct Fake {
    addr: String,
    got: Arc<Mutex<Vec<u8>>>,
}

fn fake(answers: Vec<Vec<&'static str>>) -> Fake {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let got = Arc::new(Mutex::new(Vec::new()));
    let kept = got.clone();
    std::thread::spawn(move || {
        let (mut sock, _) = listener.accept().unwrap();
        sock.set_read_timeout(Some(Duration::from_secs(20)))
            .unwrap();
        let mut framer = Framer::new(Side::Request, 1 << 20);
        let mut answers = answers.into_iter().peekable();
        let mut buf = [0u8; 4096];
        loop {
            let n = match sock.read(&mut buf) {
                Ok(0) | Err(_) => return,
                Ok(n) => n,
            };
            kept.lock().unwrap().extend_from_slice(&buf[..n]);
            for part in framer.feed(&buf[..n]) {
                if part != Part::End {
                    continue;
                }
                let Some(pieces) = answers.next() else { return };
                for piece in pieces {
                    sock.write_all(piece.as_bytes()).unwrap();
                    std::thread::sleep(Duration::from_millis(30));
                }
                if answers.peek().is_none() {
                    // The last answer: the connection closes after it.
                    return;
                }
            }
        }
    });
    Fake { addr, got }
}

/// Pipelined on one connection: a chunked POST held holds the POST behind it (the
/// server gets nothing until the decision), then the edited one goes re-chunked and
/// the next as it came; its answer, a chunked event stream, has its matching event
/// held and changed with its `id`, `event` and `retry` kept, the events around it as
/// they came; the second answer, JSON, passes untouched.
#[test]
fn a_held_request_holds_the_one_behind_it_and_an_edited_event_keeps_its_fields() {
    let record = record_in("pipelined");
    let first_event = "id: e1\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progress\":1}}\n\n";
    let held_event = "id: e2\r\nevent: message\r\nretry: 500\r\ndata: {\"jsonrpc\":\"2.0\",\r\ndata: \"id\":9,\"result\":{\"v\":1}}\r\n\r\n";
    let chunk = |s: &str| format!("{:x}\r\n{s}\r\n", s.len());
    let stream_head = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\nX-Server: fake\r\n\r\n";
    let json_answer: &'static str = leak(json_of(r#"{"jsonrpc":"2.0","id":10,"result":{}}"#));
    let answers = vec![
        vec![
            stream_head,
            leak(chunk(first_event)),
            leak(chunk(held_event)),
            "0\r\n\r\n",
        ],
        vec![json_answer],
    ];
    let server = fake(answers);
    let tap = Tap::http(&server.addr, "id:9", "20", &record);
    let held_body = r#"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"x","arguments":{"v":1}}}"#;
    let (a, b) = held_body.split_at(30);
    let first = format!(
        "POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\ncontent-type: application/json\r\n\r\n{}{}0\r\n\r\n",
        chunk(a),
        chunk(b)
    );
    let second = String::from_utf8(post(
        "127.0.0.1",
        "",
        r#"{"jsonrpc":"2.0","id":10,"method":"ping"}"#,
    ))
    .unwrap();
    let mut sock = TcpStream::connect(&tap.addr).unwrap();
    // The first and half the second together; the rest of the second while the
    // first is held (the tap reads it, and keeps it behind the hold).
    let (second_a, second_b) = second.split_at(20);
    sock.write_all(format!("{first}{second_a}").as_bytes())
        .unwrap();
    tap.held(1);
    sock.write_all(second_b.as_bytes()).unwrap();
    // Nothing may reach the server while the first is held: 300 ms watched for a byte.
    assert!(
        !eventually(Duration::from_millis(300), || !server
            .got
            .lock()
            .unwrap()
            .is_empty()),
        "the held request, or the one behind it, reached the server: {}",
        String::from_utf8_lossy(&server.got.lock().unwrap())
    );
    let edited = r#"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"x","arguments":{"v":2}}}"#;
    tap.decide(1, "change", Some(edited));
    // The answer's event with id 9 is held in its turn; the one before it is not.
    tap.held(2);
    let new_result = r#"{"jsonrpc":"2.0","id":9,"result":{"v":2}}"#;
    tap.decide(2, "change", Some(new_result));
    let stream = response(&mut sock);
    let json = response(&mut sock);
    // The server got the edited request as one chunk, the original last chunk,
    // then the ping as it was sent.
    let head_end = first.find("\r\n\r\n").unwrap() + 4;
    let want_server = format!("{}{}0\r\n\r\n{second}", &first[..head_end], chunk(edited));
    assert_eq!(server_got_when(&server, &want_server), want_server);
    // The client got the first event's chunk as it came; the edited event in a
    // chunk of its own after the first chunk's CRLF, its id, event and retry kept,
    // one data line in place of the two, its line ends CRLF as the server's were.
    let new_event = format!("id: e2\r\nevent: message\r\nretry: 500\r\ndata: {new_result}\r\n\r\n");
    let want_stream = format!(
        "{stream_head}{:x}\r\n{first_event}\r\n{:x}\r\n{new_event}\r\n0\r\n\r\n",
        first_event.len(),
        new_event.len()
    );
    assert_eq!(String::from_utf8_lossy(&stream), want_stream);
    assert_eq!(String::from_utf8_lossy(&json), json_answer);
    let want = held_then(&["changed", "changed"]);
    assert_eq!(steps_once_closed(sock, &record, &want), want);
    let r = recorded(&record);
    assert_eq!(r.changed, [edited, new_result]);
    assert_eq!(String::from_utf8_lossy(&r.to_server), want_server);
    assert_eq!(
        String::from_utf8_lossy(&r.to_client),
        format!("{want_stream}{json_answer}")
    );
    // The held event as it arrived: its two data lines joined by a line feed.
    let text = std::fs::read_to_string(&record).unwrap();
    assert!(
        text.contains(r#""intercept":{"step":"held","hold":2,"text":"{\"jsonrpc\":\"2.0\",\n\"id\":9,\"result\":{\"v\":1}}"}"#),
        "{text}"
    );
}

/// An answer held and dropped: the client gets the tap's 502 in its place and the
/// connection goes on; one held and forwarded comes as it was sent; an event dropped
/// from a stream read to the close is not passed on; through the forward proxy
/// (plain HTTP, absolute form) the same holds.
#[test]
fn a_dropped_answer_is_the_taps_502_and_a_dropped_event_is_gone_also_through_the_proxy() {
    let dir = common::scratch("tap-intercept", "dropped");
    for mode in ["http", "proxy"] {
        let record = dir.join(format!("{mode}.jsonl"));
        let answers = vec![
            vec![leak(json_of(r#"{"jsonrpc":"2.0","id":7,"result":{}}"#))],
            vec![leak(json_of(r#"{"jsonrpc":"2.0","id":8,"result":{}}"#))],
            vec![leak(json_of(
                r#"{"jsonrpc":"2.0","id":7,"result":{"n":2}}"#,
            ))],
            vec![
                "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n",
                "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"again\":true}}\n\n",
                "data: {\"jsonrpc\":\"2.0\",\"id\":11,\"result\":{}}\n\n",
            ],
        ];
        let server = fake(answers);
        let target = format!("http://{}/mcp", server.addr);
        let tap = if mode == "http" {
            Tap::http(&server.addr, "dir:s2c id:7", "20", &record)
        } else {
            let ca = dir.join("ca");
            let made = Command::new(BIN)
                .args(["ca", "--dir"])
                .arg(&ca)
                .output()
                .unwrap();
            assert!(
                made.status.success(),
                "{}",
                String::from_utf8_lossy(&made.stderr)
            );
            Tap::start(
                &["--proxy", "--ca-dir", ca.to_str().unwrap()],
                "dir:s2c id:7",
                "20",
                &record,
            )
        };
        let path = if mode == "http" {
            "/mcp".to_owned()
        } else {
            target.clone()
        };
        let ask = |id: u64| {
            let body = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#);
            format!(
                "POST {path} HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
                server.addr,
                body.len()
            )
        };
        let mut sock = TcpStream::connect(&tap.addr).unwrap();
        sock.write_all(ask(7).as_bytes()).unwrap();
        tap.held(1);
        tap.decide(1, "drop", None);
        assert_eq!(
            String::from_utf8_lossy(&response(&mut sock)),
            dropped(1, "the server's answer"),
            "{mode}"
        );
        sock.write_all(ask(8).as_bytes()).unwrap();
        assert_eq!(
            body_of(&response(&mut sock)),
            r#"{"jsonrpc":"2.0","id":8,"result":{}}"#,
            "{mode}"
        );
        // Held, forwarded as it came: the bytes the server sent, exactly.
        sock.write_all(ask(7).as_bytes()).unwrap();
        tap.held(2);
        tap.decide(2, "forward", None);
        assert_eq!(
            String::from_utf8_lossy(&response(&mut sock)),
            json_of(r#"{"jsonrpc":"2.0","id":7,"result":{"n":2}}"#),
            "{mode}"
        );
        // A stream read to the close: its event with id 7 held, dropped.
        sock.write_all(ask(9).as_bytes()).unwrap();
        tap.held(3);
        tap.decide(3, "drop", None);
        sock.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        let mut rest = Vec::new();
        let mut buf = [0u8; 4096];
        // The fake server closes after its last answer: the stream ends there.
        loop {
            match sock.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => rest.extend_from_slice(&buf[..n]),
                Err(e) => panic!("{mode}: {e}: {}", String::from_utf8_lossy(&rest)),
            }
        }
        assert_eq!(
            String::from_utf8_lossy(&rest),
            "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\ndata: {\"jsonrpc\":\"2.0\",\"id\":11,\"result\":{}}\n\n",
            "{mode}"
        );
        let want = held_then(&["dropped", "forwarded", "dropped"]);
        assert_eq!(steps_when(&record, &want), want, "{mode}");
    }
}

/// What the tap refuses, said whole, exit status 2.
#[test]
fn intercept_refusals_are_said_whole() {
    for (args, want) in [
        (
            vec![
                "tap",
                "--http",
                "--target",
                "http://127.0.0.1:9/mcp",
                "--intercept",
                "tool:add",
            ],
            "mcp-raw tap: --intercept holds messages for someone to decide on the page: add --ui\n",
        ),
        (
            vec!["tap", "--proxy", "--ui", "--intercept", "tools/call"],
            "mcp-raw tap: --intercept: \"tools/call\" is not KEY:PATTERN (method:, tool:, dir:, id:)\n",
        ),
    ] {
        let out = Command::new(BIN).args(&args).output().unwrap();
        assert_eq!(
            (
                out.status.code(),
                String::from_utf8_lossy(&out.stderr).into_owned()
            ),
            (Some(2), want.to_owned()),
            "{args:?}"
        );
    }
    let out = Command::new(BIN)
        .args(["tap", "--intercept-max-bytes", "10", "--", "true"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.starts_with(
            "error: the following required arguments were not provided:\n  <--http|--proxy>\n"
        ),
        "{said}"
    );
}

/// With `--rewrite-host` the two sides differ: the client's lane keeps what the client
/// sent, the target's lane what the server got — the edited call, its Host
/// rewritten and its Content-Length the edit's — and the hold is marked there.
#[test]
fn with_rewrite_host_the_target_side_carries_the_edit() {
    let record = record_in("rewrite");
    let server = fake(vec![vec![leak(json_of(
        r#"{"jsonrpc":"2.0","id":1,"result":{}}"#,
    ))]]);
    let tap = Tap::start(
        &[
            "--http",
            "--rewrite-host",
            "--target",
            &format!("http://{}/mcp", server.addr),
        ],
        "method:tools/call",
        "20",
        &record,
    );
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}"#;
    let edited = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":1000,"b":234}}}"#;
    let mut sock = TcpStream::connect(&tap.addr).unwrap();
    let request = post("tap.example", "", body);
    sock.write_all(&request).unwrap();
    tap.held(1);
    tap.decide(1, "change", Some(edited));
    let answer = response(&mut sock);
    assert_eq!(body_of(&answer), r#"{"jsonrpc":"2.0","id":1,"result":{}}"#);
    let want = String::from_utf8(post(&server.addr, "", edited)).unwrap();
    assert_eq!(server_got_when(&server, &want), want);
    let text = std::fs::read_to_string(&record).unwrap();
    let (_, events) = transcript::read(&text).unwrap();
    let lane_bytes = |lane: &str| -> String {
        let b: Vec<u8> = events
            .iter()
            .filter(|e| e.lane.label() == lane && e.dir == Dir::ToServer)
            .filter_map(|e| match &e.what {
                What::Bytes(b) => Some(b.to_vec()),
                _ => None,
            })
            .flatten()
            .collect();
        String::from_utf8(b).unwrap()
    };
    assert_eq!(lane_bytes("c1"), String::from_utf8(request).unwrap());
    assert_eq!(lane_bytes("c2"), want);
    let marked: Vec<String> = events
        .iter()
        .filter_map(|e| match &e.what {
            What::Intercept(i) => Some(format!("{} {:?}", e.lane.label(), i.step)),
            _ => None,
        })
        .collect();
    assert_eq!(marked, ["c2 Held", "c2 Changed"]);
}

/// The server's answers held and changed, from `serve --http` (2025-11-25): the
/// initialize answer, JSON, goes on with its `Content-Length` rewritten; the call's
/// answer, an event stream of known length, with its one event's data changed and
/// its length set anew; every other header line as the server sent it.
#[test]
fn answers_from_serve_http_are_changed_with_their_lengths_set_anew() {
    let server = demo_http("legacy");
    let record = record_in("answers");
    let tap = Tap::http(&server.addr, "dir:s2c", "20", &record);
    let mut sock = TcpStream::connect(&tap.addr).unwrap();
    sock.write_all(&post("127.0.0.1", "", &common::initialize("2025-11-25")))
        .unwrap();
    tap.held(1);
    let init = r#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"edited at the tap","version":"9"}}}"#;
    tap.decide(1, "change", Some(init));
    let answer = String::from_utf8(response(&mut sock)).unwrap();
    let (head, body) = answer.split_once("\r\n\r\n").unwrap();
    assert_eq!(body, init);
    assert!(
        head.contains(&format!("\r\ncontent-length: {}\r\n", init.len())),
        "{head}"
    );
    let session = head
        .lines()
        .find_map(|l| l.strip_prefix("mcp-session-id: "))
        .unwrap()
        .to_owned();
    let headers = format!("Mcp-Session-Id: {session}\r\nMCP-Protocol-Version: 2025-11-25\r\n");
    sock.write_all(&post(
        "127.0.0.1",
        &headers,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    ))
    .unwrap();
    assert!(
        String::from_utf8(response(&mut sock))
            .unwrap()
            .starts_with("HTTP/1.1 202 Accepted\r\n")
    );
    sock.write_all(&post(
        "127.0.0.1",
        &headers,
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}"#,
    ))
    .unwrap();
    tap.held(2);
    let result =
        r#"{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"three"}]}}"#;
    tap.decide(2, "change", Some(result));
    let answer = String::from_utf8(response(&mut sock)).unwrap();
    let (head, body) = answer.split_once("\r\n\r\n").unwrap();
    assert_eq!(body, format!("data: {result}\n\n"));
    assert!(
        head.starts_with("HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n")
            && head.contains(&format!("\r\ncontent-length: {}\r\n", body.len())),
        "{head}"
    );
    let want = held_then(&["changed", "changed"]);
    assert_eq!(steps_once_closed(sock, &record, &want), want);
    let r = recorded(&record);
    assert_eq!(r.changed, [init, result]);
}

/// A held answer stops the connection's clocks: held past `--idle-timeout` (the
/// server has answered, so nothing is in flight as the server's bytes say), it still
/// reaches the client when forwarded.
#[test]
fn a_hold_longer_than_the_idle_timeout_keeps_its_connection() {
    let server = demo_http("legacy");
    let record = record_in("clocks");
    let tap = Tap::start(
        &[
            "--http",
            "--idle-timeout",
            "1",
            "--target",
            &format!("http://{}/mcp", server.addr),
        ],
        "dir:s2c id:1",
        "20",
        &record,
    );
    let mut sock = TcpStream::connect(&tap.addr).unwrap();
    sock.write_all(&post("127.0.0.1", "", &common::initialize("2025-11-25")))
        .unwrap();
    tap.held(1);
    std::thread::sleep(Duration::from_millis(2500));
    tap.decide(1, "forward", None);
    let answer = String::from_utf8(response(&mut sock)).unwrap();
    assert!(answer.starts_with("HTTP/1.1 200 OK\r\n"), "{answer}");
    assert!(answer.contains(r#""id":1,"result""#), "{answer}");
}

/// A connection that fails while its answer is held (the client resets it) ends the
/// hold: the recording marks it `dropped` (the answer never crossed), and the page
/// can no longer decide it.
#[test]
fn a_hold_whose_connection_fails_is_marked_dropped() {
    let server = demo_http("modern");
    let record = record_in("reset");
    let tap = Tap::http(&server.addr, "dir:s2c id:2", "20", &record);
    let meta = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;
    let mut sock = TcpStream::connect(&tap.addr).unwrap();
    // The first answer comes and is left unread: closing with it unread is a reset.
    let list = post(
        "127.0.0.1",
        "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/list\r\n",
        &format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{{{meta}}}}}"#),
    );
    let call = post(
        "127.0.0.1",
        "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: add\r\n",
        &format!(
            r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{"name":"add","arguments":{{"a":1,"b":2}},{meta}}}}}"#
        ),
    );
    sock.write_all(&[list, call].concat()).unwrap();
    tap.held(1);
    // The list's answer come and left unread: closing is then a reset.
    assert!(eventually(Duration::from_secs(5), || unread(&sock)));
    drop(sock);
    assert_eq!(steps_after(&record, 2), held_then(&["dropped"]));
    let text = std::fs::read_to_string(&record).unwrap();
    assert!(
        text.contains("reading the client failed: Connection reset by peer"),
        "{text}"
    );
}

/// Events dropped from a chunked stream leave no trace in its framing: a chunk that
/// held only a dropped event is left out whole (its size line and the CRLF after
/// its data), one that held another event too is sent again as one chunk with the
/// other alone; the rest as it came.
#[test]
fn events_dropped_from_a_chunked_stream_leave_its_framing_whole() {
    let record = record_in("chunked-drop");
    let held = |n: u64| {
        format!(
            "data: {{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{{\"n\":{n}}}}}\n\n"
        )
    };
    let kept = "id: k\ndata: {\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{}}\n\n";
    let chunk = |s: &str| format!("{:x}\r\n{s}\r\n", s.len());
    let head =
        "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n";
    let server = fake(vec![vec![
        head,
        leak(chunk(&held(1))),
        leak(chunk(&format!("{}{kept}", held(2)))),
        leak(chunk(&held(3))),
        "0\r\n\r\n",
    ]]);
    let tap = Tap::http(&server.addr, "method:notifications/message", "20", &record);
    let mut sock = TcpStream::connect(&tap.addr).unwrap();
    sock.write_all(&post(
        "127.0.0.1",
        "",
        r#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#,
    ))
    .unwrap();
    for hold in 1..=3 {
        tap.held(hold);
        tap.decide(hold, "drop", None);
    }
    let got = response(&mut sock);
    assert_eq!(
        String::from_utf8_lossy(&got),
        format!("{head}{}0\r\n\r\n", chunk(kept))
    );
    let want = held_then(&["dropped", "dropped", "dropped"]);
    assert_eq!(steps_when(&record, &want), want);
    let to_client = || recorded(&record).to_client;
    eventually(Duration::from_secs(5), || to_client() == got);
    assert_eq!(
        String::from_utf8_lossy(&to_client()),
        String::from_utf8_lossy(&got)
    );
}

/// A client that resets its connection while its request is held ends the hold: the
/// request is marked `dropped` and never reaches the server.
#[test]
fn a_request_whose_client_resets_while_held_never_reaches_the_server() {
    let record = record_in("client-reset");
    let server = fake(vec![
        vec![leak(json_of(r#"{"jsonrpc":"2.0","id":1,"result":{}}"#))],
        vec![leak(json_of(r#"{"jsonrpc":"2.0","id":2,"result":{}}"#))],
    ]);
    let tap = Tap::http(&server.addr, "method:tools/call", "20", &record);
    let ping = post(
        "127.0.0.1",
        "",
        r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
    );
    let call = post(
        "127.0.0.1",
        "",
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"delete_all"}}"#,
    );
    let mut sock = TcpStream::connect(&tap.addr).unwrap();
    // The ping's answer comes and is left unread: closing with it unread is a reset.
    sock.write_all(&[ping.clone(), call].concat()).unwrap();
    tap.held(1);
    assert!(eventually(Duration::from_secs(5), || unread(&sock)));
    drop(sock);
    assert_eq!(steps_after(&record, 2), held_then(&["dropped"]));
    let ping = String::from_utf8_lossy(&ping).into_owned();
    assert_eq!(
        server_got_when(&server, &ping),
        ping,
        "only the ping reached the server"
    );
    let text = std::fs::read_to_string(&record).unwrap();
    assert!(
        text.contains(
            "reading the client failed while a request was held: Connection reset by peer"
        ),
        "{text}"
    );
}
