//! What a slow, stuck, abusive or malformed client gets: each limit of `serve --http`
//! (timeouts, counts, the lingering close), each message the server refuses, and what
//! ending a session frees. One test per finding of the hardening issue; each failed
//! on the code before it.
//!
//! The server runs in-process with the `http::Limits` the flags set. A test whose
//! subject is a timeout serves on its own runtime on tokio's paused clock
//! (`serve_here`, `common::inproc`): the limit fires when every task waits, so it takes
//! no wall time and the close is seen at the limit exactly. The binary runs only where
//! the process is the subject: its descriptors (`ulimit -n`), its memory, stdio, and
//! the other subcommands' listeners.

mod common;
use common::inproc;
use common::{BIN, Http, HttpServer, InProcess, conformance_server, demo_server, initialize};
use mcp_raw_net::transport::http::{self, Limits};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, ErrorKind, Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A raw client connection that reads whatever arrives, with deadlines.
struct Conn {
    stream: TcpStream,
    /// Everything received so far.
    got: Vec<u8>,
    /// The server closed the connection (EOF or reset).
    closed: bool,
}

impl Conn {
    fn open(addr: &str) -> Conn {
        let stream = TcpStream::connect(addr).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_millis(50)))
            .unwrap();
        // Each write goes out at once (no Nagle wait on the server's delayed ACK).
        stream.set_nodelay(true).unwrap();
        Conn {
            stream,
            got: Vec::new(),
            closed: false,
        }
    }

    fn send(&mut self, bytes: &[u8]) {
        self.stream.write_all(bytes).unwrap();
    }

    /// Reads until `done` holds of what arrived, the server closes, or `within` ends.
    fn read_until(&mut self, within: Duration, done: impl Fn(&[u8]) -> bool) {
        let deadline = Instant::now() + within;
        let mut buf = [0u8; 64 * 1024];
        while !self.closed && !done(&self.got) && Instant::now() < deadline {
            match self.stream.read(&mut buf) {
                Ok(0) => self.closed = true,
                Ok(n) => self.got.extend_from_slice(&buf[..n]),
                Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {}
                Err(_) => self.closed = true,
            }
        }
    }

    /// Waits for the server to close; returns how long that took, or `None`.
    fn closed_within(&mut self, within: Duration) -> Option<Duration> {
        let start = Instant::now();
        self.read_until(within, |_| false);
        self.closed.then(|| start.elapsed())
    }

    fn text(&self) -> String {
        String::from_utf8_lossy(&self.got).into_owned()
    }

    fn has(&self, needle: &str) -> bool {
        self.text().contains(needle)
    }
}

fn post_head(addr: &str, extra: &str, length: usize) -> String {
    format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nAccept: application/json, text/event-stream\r\nContent-Type: application/json\r\n{extra}Content-Length: {length}\r\n\r\n"
    )
}

fn post_bytes(addr: &str, extra: &str, body: &str) -> Vec<u8> {
    let mut r = post_head(addr, extra, body.len()).into_bytes();
    r.extend_from_slice(body.as_bytes());
    r
}

/// The first response a raw connection received, read by the library's framer.
fn reply_of(c: &Conn) -> common::HttpReply {
    common::http_client::reply_in(&c.got)
}

fn secs(n: u64) -> Duration {
    Duration::from_secs(n)
}

/// `server` with `limits` on this test's runtime (perhaps paused): its address.
async fn here(server: std::sync::Arc<mcp_raw_core::Server>, limits: Limits) -> String {
    common::serve_here(
        server,
        http::Config {
            limits,
            ..http::Config::default()
        },
    )
    .await
    .0
}

/// A close seen on the paused clock: at the limit, and not a tick after it (the
/// clock jumps straight to the server's timer).
fn at_the_limit(what: &str, took: Duration, limit: Duration) {
    assert!(
        took >= limit && took < limit + Duration::from_millis(100),
        "{what}: closed after {took:?}, the limit is {limit:?}"
    );
}

/// Polls `f` until it holds or `within` passes.
fn eventually(within: Duration, mut f: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + within;
    loop {
        if f() {
            return true;
        }
        if Instant::now() > deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

// ---- 1. header and idle timeouts --------------------------------------------------

#[tokio::test(start_paused = true)]
async fn a_half_sent_head_and_a_silent_connection_are_closed_after_the_header_timeout() {
    let limits = Limits {
        header_timeout: secs(1),
        idle_timeout: secs(60),
        ..Limits::default()
    };
    let addr = here(demo_server(), limits).await;
    let opened = tokio::time::Instant::now();
    let mut half = inproc::Conn::open(&addr).await;
    half.send(b"POST /mc").await;
    let mut silent = inproc::Conn::open(&addr).await;
    for (what, c) in [("half a request line", &mut half), ("nothing", &mut silent)] {
        c.closed_within(secs(5))
            .await
            .unwrap_or_else(|| panic!("a client that sent {what} is still connected after 5 s"));
        at_the_limit(what, opened.elapsed(), secs(1));
        assert_eq!(c.text(), "", "{what}: closed without a word");
    }
    // The server still serves everyone else.
    let r = inproc::post(&addr, &[], &initialize("2025-11-25")).await;
    assert_eq!(r.status, 200);
}

#[tokio::test(start_paused = true)]
async fn an_idle_keep_alive_connection_is_closed_but_a_long_stream_is_not() {
    let limits = Limits {
        idle_timeout: secs(1),
        header_timeout: secs(30),
        ..Limits::default()
    };
    let addr = here(conformance_server(), limits).await;
    // One request, answered, then nothing: idle.
    let mut c = inproc::Conn::open(&addr).await;
    c.send(&post_bytes(&addr, "", &initialize("2025-11-25")))
        .await;
    c.read_until(secs(5), |b| {
        String::from_utf8_lossy(b).contains("\"result\"")
    })
    .await;
    assert_eq!(c.reply().status, 200, "{}", c.text());
    let took = c
        .closed_within(secs(5))
        .await
        .expect("an idle keep-alive connection outlived the idle timeout of 1 s");
    at_the_limit("idle", took, secs(1));

    // A GET stream with nothing to say for longer than the idle timeout stays open:
    // a request in flight is not idle.
    let sid = inproc::open_session(&addr, "2025-11-25").await;
    let mut get = inproc::Conn::open(&addr).await;
    get.send(
        format!(
            "GET /mcp HTTP/1.1\r\nHost: {addr}\r\nAccept: text/event-stream\r\nMcp-Session-Id: {sid}\r\n\r\n"
        )
        .as_bytes(),
    )
    .await;
    get.read_until(secs(5), common::http_client::has_head).await;
    assert_eq!(get.reply().status, 200, "{}", get.text());
    assert_eq!(get.closed_within(Duration::from_millis(2500)).await, None);
    // ... and still delivers.
    let r = inproc::post(
        &addr,
        &[("Mcp-Session-Id", &sid), ("MCP-Protocol-Version", "2025-11-25")],
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"test_trigger_tool_change"}}"#,
    )
    .await;
    assert_eq!(r.status, 200);
    get.read_until(secs(5), |b| {
        String::from_utf8_lossy(b).contains("notifications/tools/list_changed")
    })
    .await;
    // The stream's whole body so far: that one event.
    assert_eq!(
        get.reply().text(),
        "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\",\"params\":{}}\n\n",
        "{}",
        get.text()
    );
}

#[tokio::test(start_paused = true)]
async fn a_client_that_stops_reading_is_closed_after_the_write_timeout() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let limits = Limits {
        write_timeout: secs(1),
        ..Limits::default()
    };
    let addr = here(demo_server(), limits).await;
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "0"}
    });
    let big = "x".repeat(2 * 1024 * 1024);
    let call = json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":big},"_meta":meta}}).to_string();
    let one = post_bytes(
        &addr,
        "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: echo\r\n",
        &call,
    );
    let requests = 8;
    let opened = tokio::time::Instant::now();
    let c = inproc::Conn::open(&addr).await;
    let (mut read, mut write) = c.stream.into_split();
    // Pipelined requests whose answers (16 MiB) outgrow the socket buffers; the client
    // writes them from another task and never reads.
    let sent = tokio::spawn(async move {
        for _ in 0..requests {
            if write.write_all(&one).await.is_err() {
                break;
            }
        }
    });
    tokio::time::sleep(secs(3)).await;
    // Now read: what the kernel buffered, then the end — not every answer. (Were the
    // limit not kept, reading would let the server go on, and only the idle timeout
    // of 60 s would close the connection.)
    let mut got = Vec::new();
    let closed = tokio::time::timeout(secs(10), read.read_to_end(&mut got)).await;
    assert!(
        closed.is_ok(),
        "the connection of a client that stopped reading is still open after {:?}",
        opened.elapsed()
    );
    let answers = String::from_utf8_lossy(&got)
        .matches("HTTP/1.1 200")
        .count();
    assert!(
        answers < requests,
        "{answers} answers, all of them: nothing was cut"
    );
    let _ = sent.await;
    let r = inproc::post(&addr, &[], &initialize("2025-11-25")).await;
    assert_eq!(r.status, 200);
}

#[test]
fn a_head_too_large_or_with_too_many_fields_gets_431() {
    let s = InProcess::limited(
        demo_server(),
        Limits {
            max_header_bytes: 4096,
            max_headers: 20,
            ..Limits::default()
        },
    );
    let big = format!("X-Pad: {}\r\n", "a".repeat(8192));
    let many: String = (0..30).map(|i| format!("X-F{i}: v\r\n")).collect();
    for extra in [big, many] {
        let mut c = Conn::open(&s.addr);
        c.send(&post_bytes(&s.addr, &extra, &initialize("2025-11-25")));
        c.read_until(Duration::from_secs(5), |_| false);
        // The whole response, its date aside.
        assert_eq!(
            common::golden::normalize(&c.text()),
            "HTTP/1.1 431 Request Header Fields Too Large\r\nconnection: close\r\ncontent-length: 0\r\ndate: <date>\r\n\r\n"
        );
    }
    // Within the limits, served.
    let r = s.post(&[("X-Pad", "a")], &initialize("2025-11-25"));
    assert_eq!(r.status, 200);
}

// ---- 2. body timeout --------------------------------------------------------------

#[tokio::test(start_paused = true)]
async fn a_trickled_body_gets_408_after_the_body_timeout() {
    let limits = Limits {
        body_timeout: secs(1),
        ..Limits::default()
    };
    let addr = here(demo_server(), limits).await;
    let mut c = inproc::Conn::open(&addr).await;
    c.send(post_head(&addr, "", 100).as_bytes()).await;
    c.send(br#"{"jsonrpc":"2.0","#).await;
    let start = tokio::time::Instant::now();
    c.read_until(secs(5), |b| String::from_utf8_lossy(b).contains("}}"))
        .await;
    at_the_limit("the body", start.elapsed(), secs(1));
    let r = c.reply();
    assert_eq!(
        r.head.start_line,
        "HTTP/1.1 408 Request Timeout",
        "{}",
        c.text()
    );
    assert_eq!(r.header("connection"), Some("close"), "{}", c.text());
    assert_eq!(
        r.text(),
        "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32600,\"message\":\"Request Timeout: the body did not arrive in full within 1 s (serve --body-timeout)\"}}"
    );
}

// ---- 3. sessions that never finish the handshake ----------------------------------

#[tokio::test(start_paused = true)]
async fn a_session_without_notifications_initialized_ends_after_the_init_timeout() {
    inproc::capture_log();
    let limits = Limits {
        init_timeout: secs(1),
        ..Limits::default()
    };
    let addr = here(demo_server(), limits).await;
    let r = inproc::post(&addr, &[], &initialize("2025-11-25")).await;
    let unfinished = r.header("mcp-session-id").unwrap().to_owned();
    let finished = inproc::open_session(&addr, "2025-11-25").await;
    tokio::time::sleep(Duration::from_millis(1600)).await;
    // The handshake was never finished: the session is gone; the other one lives.
    assert_eq!(inproc::list_status(&addr, &unfinished).await, 404);
    assert_eq!(inproc::list_status(&addr, &finished).await, 200);
    let line = "[mcp-raw] ended 1 session(s): 1 never sent notifications/initialized (serve --init-timeout), 0 idle (serve --session-timeout); 0 running request(s) cancelled; 1 live";
    assert!(
        inproc::logged().iter().any(|l| l == line),
        "{:#?}",
        inproc::logged()
    );
}

#[tokio::test(start_paused = true)]
async fn an_unused_initialized_session_ends_after_the_session_timeout() {
    inproc::capture_log();
    let limits = Limits {
        session_timeout: secs(1),
        ..Limits::default()
    };
    let addr = here(demo_server(), limits).await;
    let idle = inproc::open_session(&addr, "2025-11-25").await;
    let used = inproc::open_session(&addr, "2025-11-25").await;
    // One session keeps being used; the other is left alone past the timeout.
    for _ in 0..4 {
        tokio::time::sleep(Duration::from_millis(400)).await;
        assert_eq!(inproc::list_status(&addr, &used).await, 200);
    }
    assert_eq!(inproc::list_status(&addr, &idle).await, 404);
    let line = "[mcp-raw] ended 1 session(s): 0 never sent notifications/initialized (serve --init-timeout), 1 idle (serve --session-timeout); 0 running request(s) cancelled; 1 live";
    assert!(
        inproc::logged().iter().any(|l| l == line),
        "{:#?}",
        inproc::logged()
    );
}

#[test]
fn the_session_limit_is_a_flag() {
    let s = InProcess::limited(
        demo_server(),
        Limits {
            max_sessions: 2,
            ..Limits::default()
        },
    );
    for _ in 0..2 {
        assert_eq!(s.post(&[], &initialize("2025-11-25")).status, 200);
    }
    let r = s.post(&[], &initialize("2025-11-25"));
    assert_eq!(r.status, 503, "{}", r.text());
    assert_eq!(
        r.text(),
        "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32603,\"message\":\"Service Unavailable: 2 sessions are open, the most this server keeps (serve --max-sessions); end one with DELETE or retry later\"}}"
    );
}

// ---- 4. out of file descriptors; the connection limit ------------------------------

/// User plus system CPU time of a process, in clock ticks.
fn cpu_ticks(pid: u32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    // Fields after the `(comm)`: state is field 3; utime and stime are 14 and 15.
    let after = &stat[stat.rfind(')').unwrap() + 2..];
    let f: Vec<&str> = after.split_whitespace().collect();
    f[11].parse::<u64>().unwrap() + f[12].parse::<u64>().unwrap()
}

#[test]
fn out_of_file_descriptors_the_accept_loop_backs_off_and_recovers() {
    let mut command = Command::new("sh");
    command.args([
        "-c",
        &format!("ulimit -n 48 && exec {BIN} serve --http --port 0 --max-connections 1000"),
    ]);
    let s = HttpServer::spawn(command);
    // Far more connections than descriptors: the kernel queues them, accept fails.
    let hogs: Vec<TcpStream> = (0..80)
        .map(|_| TcpStream::connect(&s.addr).unwrap())
        .collect();
    std::thread::sleep(Duration::from_millis(300));
    let (ticks, logged) = (cpu_ticks(s.pid()), s.logged().len());
    std::thread::sleep(Duration::from_secs(2));
    let spent = cpu_ticks(s.pid()) - ticks;
    let wrote = s.logged().len() - logged;
    // A spinning loop burns ~200 ticks in 2 s and logs megabytes; a backing-off one,
    // almost nothing.
    assert!(spent < 40, "{spent} ticks of CPU in 2 s while out of fds");
    assert!(wrote < 1000, "{wrote} bytes logged in 2 s: {}", s.logged());
    assert!(s.logged().contains("accept failed"), "{}", s.logged());
    drop(hogs);
    // Once descriptors are free again, clients are served.
    assert!(
        eventually(Duration::from_secs(10), || {
            s.post(&[], &initialize("2025-11-25")).status == 200
        }),
        "not serving after the descriptors came back"
    );
}

#[tokio::test(start_paused = true)]
async fn beyond_max_connections_a_connection_gets_503_and_is_closed() {
    let limits = Limits {
        max_connections: 3,
        ..Limits::default()
    };
    let addr = here(demo_server(), limits).await;
    let mut held = Vec::new();
    for _ in 0..3 {
        held.push(inproc::Conn::open(&addr).await);
    }
    // Costs no time on the paused clock: the server accepts the three meanwhile.
    tokio::time::sleep(Duration::from_millis(200)).await;
    let mut extra = inproc::Conn::open(&addr).await;
    extra
        .send(&post_bytes(&addr, "", &initialize("2025-11-25")))
        .await;
    assert!(extra.closed_within(secs(5)).await.is_some());
    // The whole response: sent before the server reads anything, so no date.
    assert_eq!(
        extra.text(),
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\nretry-after: 1\r\nconnection: close\r\ncontent-length: 174\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32603,\"message\":\"Service Unavailable: 3 connections are open, the most this server takes (serve --max-connections); retry later\"}}"
    );
    drop(held);
    tokio::time::sleep(Duration::from_millis(200)).await;
    let r = inproc::post(&addr, &[], &initialize("2025-11-25")).await;
    assert_eq!(r.status, 200, "{}", r.text());
}

// ---- 5. ending a session frees its waiting requests --------------------------------

/// Resident memory of a process, in KiB.
fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status.lines().find(|l| l.starts_with("VmRSS:")).unwrap();
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

/// A session declaring sampling whose `test_sampling` call carries `prompt` and
/// waits for the client's answer; returns the session id and the open stream, read
/// up to the server's `sampling/createMessage` request.
fn waiting_sampling(addr: &str, prompt: &str) -> (String, Conn) {
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"sampling":{}},"clientInfo":{"name":"t","version":"0"}}}"#;
    let mut c = Conn::open(addr);
    c.send(&post_bytes(addr, "", init));
    c.read_until(Duration::from_secs(5), |b| {
        String::from_utf8_lossy(b).contains("\"result\"")
    });
    let sid = reply_of(&c)
        .header("mcp-session-id")
        .unwrap_or_else(|| panic!("no session id: {}", c.text()))
        .to_owned();
    let headers = format!("Mcp-Session-Id: {sid}\r\nMCP-Protocol-Version: 2025-11-25\r\n");
    c.send(&post_bytes(
        addr,
        &headers,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    ));
    c.read_until(Duration::from_secs(5), |b| {
        String::from_utf8_lossy(b).contains("202 Accepted")
    });
    let call = json!({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"test_sampling","arguments":{"prompt":prompt}}});
    let mut c = Conn::open(addr);
    c.send(&post_bytes(addr, &headers, &call.to_string()));
    c.read_until(Duration::from_secs(10), |b| {
        String::from_utf8_lossy(b).contains("\"maxTokens\"")
    });
    assert!(c.has("sampling/createMessage"), "{}", c.text());
    (sid, c)
}

fn delete(s: &impl Http, sid: &str) -> u16 {
    s.request(
        "DELETE",
        &[
            ("Mcp-Session-Id", sid),
            ("MCP-Protocol-Version", "2025-11-25"),
        ],
        "",
    )
    .status
}

#[test]
fn delete_cancels_a_request_waiting_for_the_client_and_ends_its_stream() {
    inproc::capture_log();
    let s = InProcess::conformance();
    let (sid, mut stream) = waiting_sampling(&s.addr, "hello");
    assert_eq!(delete(&s, &sid), 204);
    // The request is cancelled: its stream ends (the last chunk), with no response
    // to it: the whole body is the priming event and the question, nothing after.
    stream.read_until(Duration::from_secs(5), |b| b.ends_with(b"\r\n0\r\n\r\n"));
    assert!(
        stream.closed || stream.text().ends_with("\r\n0\r\n\r\n"),
        "the waiting request's stream did not end: {}",
        stream.text()
    );
    assert_eq!(
        reply_of(&stream).text(),
        "id: 1-0\ndata: \n\nid: 1-1\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"mcp-raw-0\",\"method\":\"sampling/createMessage\",\"params\":{\"messages\":[{\"role\":\"user\",\"content\":{\"type\":\"text\",\"text\":\"hello\"}}],\"maxTokens\":100}}\n\n"
    );
    let line = format!(
        "[mcp-raw] session {sid} terminated by DELETE: 1 running request(s) cancelled (0 live)"
    );
    assert!(
        inproc::logged().contains(&line),
        "{line:?} not in {:#?}",
        inproc::logged()
    );
}

#[test]
fn ended_sessions_give_back_the_memory_of_their_waiting_requests() {
    // The resident memory (RSS) of the server is the subject: a process.
    let s = HttpServer::start(&["--fixture", "conformance", "--init-timeout", "60"]);
    let prompt = "x".repeat(1024 * 1024);
    let round = || {
        let open: Vec<(String, Conn)> = (0..50)
            .map(|_| waiting_sampling(&s.addr, &prompt))
            .collect();
        let peak = rss_kib(s.pid());
        for (sid, _) in &open {
            assert_eq!(delete(&s, sid), 204);
        }
        drop(open);
        peak
    };
    let baseline = rss_kib(s.pid());
    let mut after = Vec::new();
    let mut peak = 0;
    for _ in 0..2 {
        peak = peak.max(round());
        // The cancelled requests' tasks drop what they held as they notice.
        let mut now = rss_kib(s.pid());
        eventually(Duration::from_secs(3), || {
            now = rss_kib(s.pid());
            now < baseline + 16 * 1024
        });
        after.push(now);
    }
    eprintln!(
        "RSS: baseline {} MiB, peak with 50 waiting 1 MiB requests {} MiB, after each round {:?} MiB",
        baseline / 1024,
        peak / 1024,
        after.iter().map(|k| k / 1024).collect::<Vec<_>>()
    );
    assert!(
        peak > baseline + 50 * 1024,
        "the test did not hold the memory"
    );
    for kib in &after {
        assert!(
            *kib < baseline + 16 * 1024,
            "RSS {kib} KiB after the sessions ended, baseline {baseline} KiB"
        );
    }
    let cancelled = s.logged().matches("1 running request(s) cancelled").count();
    assert_eq!(cancelled, 100, "{}", s.logged());
}

// ---- 6, 7. resuming a stream ------------------------------------------------------

#[test]
fn last_event_id_that_overflows_gets_400() {
    let s = InProcess::conformance();
    // A stream that exists: the request waits for the client's answer.
    let (sid, first) = waiting_sampling(&s.addr, "hello");
    let stream = stream_number(&reply_of(&first));
    let overflowing = format!("{stream}-18446744073709551615");
    let r = s.request(
        "GET",
        &[
            ("Accept", "text/event-stream"),
            ("Mcp-Session-Id", &sid),
            ("MCP-Protocol-Version", "2025-11-25"),
            ("Last-Event-ID", &overflowing),
        ],
        "",
    );
    assert_eq!(r.status, 400, "{}", r.text());
    assert_eq!(
        r.text(),
        format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{{\"code\":-32600,\"message\":\"Bad Request: Last-Event-ID \\\"{overflowing}\\\" names no stream of this session (expected <stream>-<n>, as sent in an id: line)\"}}}}"
        )
    );
    // The stream itself is still there to resume.
    let mut c = Conn::open(&s.addr);
    c.send(
        format!(
            "GET /mcp HTTP/1.1\r\nHost: {}\r\nAccept: text/event-stream\r\nMcp-Session-Id: {sid}\r\nLast-Event-ID: {stream}-0\r\n\r\n",
            s.addr
        )
        .as_bytes(),
    );
    c.read_until(Duration::from_secs(5), |b| {
        String::from_utf8_lossy(b).contains("\"maxTokens\"")
    });
    assert!(c.has("HTTP/1.1 200"), "{}", c.text());
    drop(first);
}

#[test]
fn a_resumed_reader_that_hangs_up_takes_its_waker_along() {
    // In-process, to look at the session's streams.
    let server = common::InProcess::conformance();
    let (addr, app) = (server.addr.clone(), server.app.clone());
    // A request whose stream is still running: it waits for the client's answer.
    let (sid, first) = waiting_sampling(&addr, "hello");
    let stream = stream_number(&reply_of(&first));
    let waiting = || {
        app.sessions
            .with(&sid, None, |e| e.streams.waiting_readers())
    };
    for _ in 0..200 {
        let mut c = Conn::open(&addr);
        c.send(
            format!(
                "GET /mcp HTTP/1.1\r\nHost: {addr}\r\nAccept: text/event-stream\r\nMcp-Session-Id: {sid}\r\nMCP-Protocol-Version: 2025-11-25\r\nLast-Event-ID: {stream}-0\r\n\r\n"
            )
            .as_bytes(),
        );
        // The replay: the question the server asked, after the priming event.
        c.read_until(Duration::from_secs(5), |b| {
            String::from_utf8_lossy(b).contains("\"maxTokens\"")
        });
        assert!(c.has("sampling/createMessage"), "{}", c.text());
        // ... and the client hangs up.
    }
    // Only the first POST's reader still waits.
    assert!(
        eventually(Duration::from_secs(5), || waiting() == Some(1)),
        "{:?} readers wait after 200 resumed readers hung up",
        waiting()
    );
    drop(first);
}

/// A finished legacy `test_tool_with_progress` call of session `sid` (with a progress
/// token, so it sends three progress events): its stream number.
fn finished_progress_stream(s: &impl Http, sid: &str, id: u64) -> String {
    let call = json!({"jsonrpc":"2.0","id":id,"method":"tools/call","params":{"name":"test_tool_with_progress","_meta":{"progressToken":"p"}}});
    let r = s.post(
        &[
            ("Mcp-Session-Id", sid),
            ("MCP-Protocol-Version", "2025-11-25"),
        ],
        &call.to_string(),
    );
    assert_eq!(r.status, 200);
    assert_eq!(r.text().matches("notifications/progress").count(), 3);
    stream_number(&r)
}

/// The `<stream>` of the first SSE event id (`id: <stream>-<n>`) of a response.
fn stream_number(r: &common::HttpReply) -> String {
    let first = r.events_so_far().into_iter().find(|e| e.id.is_some());
    common::http_client::event_id(&first.expect("an event id"))
        .0
        .to_string()
}

fn resume(s: &impl Http, sid: &str, last_event_id: &str) -> common::HttpReply {
    s.request(
        "GET",
        &[
            ("Accept", "text/event-stream"),
            ("Mcp-Session-Id", sid),
            ("MCP-Protocol-Version", "2025-11-25"),
            ("Last-Event-ID", last_event_id),
        ],
        "",
    )
}

#[test]
fn the_events_and_streams_kept_for_resuming_are_flags() {
    let s = InProcess::limited(
        conformance_server(),
        Limits {
            resume_events: 2,
            resume_streams: 1,
            ..Limits::default()
        },
    );
    let sid = s.open_session("2025-11-25");
    let first = finished_progress_stream(&s, &sid, 1);
    // Five entries (priming, three progress events, the result); two are kept.
    let r = resume(&s, &sid, &format!("{first}-0"));
    assert_eq!(r.status, 200, "{}", r.text());
    // The whole replay: the last two events kept (the third progress event and the
    // result); the priming event and the first two are gone.
    assert_eq!(
        r.text(),
        format!(
            "id: {first}-3\ndata: {{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{{\"progressToken\":\"p\",\"progress\":100.0,\"total\":100.0,\"message\":\"step 3 of 3\"}}}}\n\nid: {first}-4\ndata: {{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{{\"content\":[{{\"type\":\"text\",\"text\":\"Progress test completed.\"}}]}}}}\n\n"
        )
    );
    // A second finished stream pushes the first out.
    let second = finished_progress_stream(&s, &sid, 2);
    let third = finished_progress_stream(&s, &sid, 3);
    assert_ne!(second, third);
    let r = resume(&s, &sid, &format!("{first}-0"));
    assert_eq!(r.status, 400, "{}", r.text());
    assert_eq!(
        r.text(),
        format!(
            r#"{{"jsonrpc":"2.0","id":null,"error":{{"code":-32600,"message":"Bad Request: Last-Event-ID \"{first}-0\" names no stream of this session (expected <stream>-<n>, as sent in an id: line)"}}}}"#
        )
    );
    assert_eq!(resume(&s, &sid, &format!("{third}-0")).status, 200);
}

#[test]
fn the_task_store_bounds_are_flags() {
    let mut s = StdioServer::start(&[
        "--fixture",
        "conformance",
        "--max-tasks",
        "1",
        "--task-ttl",
        "2",
    ]);
    let call = |id: u64| {
        json!({"jsonrpc":"2.0","id":id,"method":"tools/call","params":{
            "name":"slow_compute","arguments":{"seconds":60,"label":"L"},
            "_meta":{
                "io.modelcontextprotocol/protocolVersion":"2026-07-28",
                "io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}
            }}})
        .to_string()
    };
    let r = s.exchange(&call(1));
    assert_eq!(r["result"]["resultType"], "task", "{r}");
    assert_eq!(r["result"]["ttlMs"], 2000, "{r}");
    // The one slot is taken by a running task.
    let r = s.exchange(&call(2));
    let message = r["error"]["message"].as_str().unwrap_or_default();
    assert_eq!(
        message,
        "too many tasks running (the limit is 1, serve --max-tasks); try again when some have finished"
    );
    // After its TTL the task is gone and makes room.
    std::thread::sleep(Duration::from_millis(2200));
    let r = s.exchange(&call(3));
    assert_eq!(r["result"]["resultType"], "task", "{r}");
}

// ---- 8. the lingering close -------------------------------------------------------

#[test]
fn a_client_that_sends_its_whole_body_first_still_reads_the_413() {
    let s = InProcess::limited(
        demo_server(),
        Limits {
            max_body: 1000,
            ..Limits::default()
        },
    );
    // Larger than the kernel's socket buffers, so the client is still writing when
    // the server answers.
    let body = format!(r#"{{"pad":"{}"}}"#, "x".repeat(32 * 1024 * 1024));
    let mut c = Conn::open(&s.addr);
    // What Python's http.client does: the whole request, then read.
    c.stream
        .write_all(&post_bytes(&s.addr, "", &body))
        .expect("the server reset the connection while the body was being sent");
    c.read_until(Duration::from_secs(5), |_| false);
    assert_eq!(
        common::golden::normalize(&c.text()),
        "HTTP/1.1 413 Payload Too Large\r\ncontent-type: application/json\r\nconnection: close\r\ncontent-length: 144\r\ndate: <date>\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32600,\"message\":\"Payload Too Large: the body exceeds the 1000-byte limit (serve --max-body-bytes)\"}}",
        "the whole response, its date aside"
    );

    // The same with a chunked body, refused once it passes the limit.
    let mut c = Conn::open(&s.addr);
    let mut req = format!(
        "POST /mcp HTTP/1.1\r\nHost: {}\r\nAccept: application/json, text/event-stream\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n",
        s.addr
    )
    .into_bytes();
    for _ in 0..512 {
        req.extend_from_slice(format!("{:x}\r\n{}\r\n", 65536, "y".repeat(65536)).as_bytes());
    }
    req.extend_from_slice(b"0\r\n\r\n");
    c.stream
        .write_all(&req)
        .expect("reset while sending a chunked body");
    c.read_until(Duration::from_secs(5), |_| false);
    assert_eq!(
        common::golden::normalize(&c.text()),
        "HTTP/1.1 413 Payload Too Large\r\ncontent-type: application/json\r\nconnection: close\r\ncontent-length: 144\r\ndate: <date>\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32600,\"message\":\"Payload Too Large: the body exceeds the 1000-byte limit (serve --max-body-bytes)\"}}",
        "the whole response, its date aside"
    );
}

// ---- 9. repeated singleton headers ------------------------------------------------

#[test]
fn repeated_singleton_headers_are_refused_naming_the_header() {
    let s = InProcess::demo();
    let sid = s.open_session("2025-11-25");
    let list = r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#;
    for (doubled, headers) in [
        (
            "mcp-session-id",
            [
                ("Mcp-Session-Id", sid.as_str()),
                ("Mcp-Session-Id", "another"),
                ("MCP-Protocol-Version", "2025-11-25"),
            ],
        ),
        (
            "mcp-protocol-version",
            [
                ("Mcp-Session-Id", sid.as_str()),
                ("MCP-Protocol-Version", "2025-11-25"),
                ("MCP-Protocol-Version", "2025-06-18"),
            ],
        ),
    ] {
        let r = s.post(&headers, list);
        assert_eq!(r.status, 400, "{doubled}: {}", r.text());
        assert_eq!(r.json()["error"]["code"], -32600, "{doubled}");
        let sent = match doubled {
            "mcp-session-id" => format!("[\\\"{sid}\\\", \\\"another\\\"]"),
            _ => r#"[\"2025-11-25\", \"2025-06-18\"]"#.to_owned(),
        };
        assert_eq!(
            r.text(),
            format!(
                "{{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{{\"code\":-32600,\"message\":\"Bad Request: the {doubled} header appears 2 times ({sent}); send it once\"}}}}"
            )
        );
    }

    // Modern: the method that runs must be the one every reader of the headers sees.
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "0"}
    });
    let call = json!({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hi"},"_meta":meta}}).to_string();
    for (doubled, headers) in [
        (
            "mcp-method",
            vec![
                ("MCP-Protocol-Version", "2026-07-28"),
                ("Mcp-Method", "tools/call"),
                ("Mcp-Method", "tools/list"),
                ("Mcp-Name", "echo"),
            ],
        ),
        (
            "mcp-name",
            vec![
                ("MCP-Protocol-Version", "2026-07-28"),
                ("Mcp-Method", "tools/call"),
                ("Mcp-Name", "echo"),
                ("Mcp-Name", "add"),
            ],
        ),
    ] {
        let r = s.post(&headers, &call);
        assert_eq!(r.status, 400, "{doubled}: {}", r.text());
        assert_eq!(r.json()["error"]["code"], -32020, "{doubled}");
        let sent = match doubled {
            "mcp-method" => r#"[\"tools/call\", \"tools/list\"]"#,
            _ => r#"[\"echo\", \"add\"]"#,
        };
        assert_eq!(
            r.text(),
            format!(
                "{{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{{\"code\":-32020,\"message\":\"Header mismatch: the {doubled} header appears 2 times ({sent}); send it once\"}}}}"
            )
        );
    }
    // Sent once each, the same request runs.
    let r = s.post(
        &[
            ("MCP-Protocol-Version", "2026-07-28"),
            ("Mcp-Method", "tools/call"),
            ("Mcp-Name", "echo"),
        ],
        &call,
    );
    assert_eq!(r.status, 200, "{}", r.text());
}

// ---- 10, 11. message shapes, on both transports -----------------------------------

/// Lines the core must refuse with `-32600`, whatever the method, and the id each
/// refusal must carry.
fn malformed() -> Vec<(&'static str, Value)> {
    vec![
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","result":{}}"#,
            json!(1),
        ),
        (
            r#"{"jsonrpc":"2.0","id":2,"method":"ping","error":{"code":1,"message":"x"}}"#,
            json!(2),
        ),
        (
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/list","params":[]}"#,
            json!(3),
        ),
        (
            r#"{"jsonrpc":"2.0","id":4,"method":"ping","params":[1]}"#,
            json!(4),
        ),
        (
            r#"{"jsonrpc":"2.0","id":5,"method":"ping","params":null}"#,
            json!(5),
        ),
        (
            r#"{"jsonrpc":"2.0","id":6,"method":"tools/call","params":"echo"}"#,
            json!(6),
        ),
    ]
}

/// `mcp-raw serve ARGS` over pipes, one line in, one line out.
struct StdioServer {
    child: std::process::Child,
    input: std::process::ChildStdin,
    output: BufReader<std::process::ChildStdout>,
}

impl StdioServer {
    fn start(args: &[&str]) -> StdioServer {
        // Serve over stdio (its pipes): a process.
        let mut child = Command::new(BIN)
            .arg("serve")
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let input = child.stdin.take().unwrap();
        let output = BufReader::new(child.stdout.take().unwrap());
        StdioServer {
            child,
            input,
            output,
        }
    }

    /// Sends `lines` (newline-terminated here) and reads the next line back.
    fn exchange(&mut self, lines: &str) -> Value {
        self.input
            .write_all(format!("{lines}\n").as_bytes())
            .unwrap();
        let mut reply = String::new();
        self.output.read_line(&mut reply).unwrap();
        serde_json::from_str(&reply).unwrap_or_else(|e| panic!("{e}: {reply:?}"))
    }
}

impl Drop for StdioServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn method_with_result_and_non_object_params_are_invalid_requests_on_stdio() {
    let mut s = StdioServer::start(&[]);
    let r = s.exchange(&initialize("2025-11-25"));
    assert!(r["result"].is_object());
    // A notification gets no answer: the ping after it does.
    let r = s.exchange(
        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"ping\"}",
    );
    assert_eq!(r["id"], 0, "{r}");
    for (line, id) in malformed() {
        let r = s.exchange(line);
        assert_eq!(r["id"], id, "{line} -> {r}");
        assert_eq!(r["error"]["code"], -32600, "{line} -> {r}");
    }
    // The session goes on.
    let r = s.exchange(r#"{"jsonrpc":"2.0","id":9,"method":"tools/list"}"#);
    assert!(r["result"]["tools"].is_array(), "{r}");
}

#[test]
fn method_with_result_and_non_object_params_are_invalid_requests_over_http() {
    let s = InProcess::demo();
    let sid = s.open_session("2025-11-25");
    // What each refusal says, in the order of `malformed()`.
    let says = [
        r#"a message has \"method\" (a request or notification) or \"result\" (a response), not both"#,
        r#"a message has \"method\" (a request or notification) or \"error\" (a response), not both"#,
        r#"\"params\" must be an object (MCP params are named) or absent, got an array []"#,
        r#"\"params\" must be an object (MCP params are named) or absent, got an array [1]"#,
        r#"\"params\" must be an object (MCP params are named) or absent, got null null"#,
        r#"\"params\" must be an object (MCP params are named) or absent, got a string \"echo\""#,
    ];
    assert_eq!(says.len(), malformed().len());
    for ((line, id), says) in malformed().into_iter().zip(says) {
        let r = s.post(
            &[
                ("Mcp-Session-Id", &sid),
                ("MCP-Protocol-Version", "2025-11-25"),
            ],
            line,
        );
        assert_eq!(r.status, 400, "{line}: {}", r.text());
        assert_eq!(
            r.text(),
            format!(
                r#"{{"jsonrpc":"2.0","id":{id},"error":{{"code":-32600,"message":"Invalid Request: {says}"}}}}"#
            ),
            "{line}"
        );
        let e = r.json();
        assert_eq!(e["id"], id, "{line} -> {e}");
        assert_eq!(e["error"]["code"], -32600, "{line} -> {e}");
    }
}

// ---- 12. asking a modern client what it did not declare ---------------------------

#[test]
fn a_modern_tool_never_asks_what_the_request_did_not_declare() {
    let meta = |caps: Value| {
        json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": caps,
            "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "0"}
        })
    };
    let call = |tool: &str, caps: Value| {
        json!({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":tool,"_meta":meta(caps)}})
            .to_string()
    };
    let s = InProcess::conformance();
    let headers = |tool: &'static str| {
        [
            ("MCP-Protocol-Version", "2026-07-28"),
            ("Mcp-Method", "tools/call"),
            ("Mcp-Name", tool),
        ]
    };
    for (tool, cap, asks) in [
        (
            "test_input_required_result_elicitation",
            "elicitation",
            "elicitation/create",
        ),
        (
            "test_input_required_result_sampling",
            "sampling",
            "sampling/createMessage",
        ),
        (
            "test_input_required_result_list_roots",
            "roots",
            "roots/list",
        ),
        ("test_sampling", "sampling", "sampling/createMessage"),
    ] {
        let r = s.post(&headers(tool), &call(tool, json!({})));
        assert_eq!(r.status, 400, "{tool}: {}", r.text());
        assert_eq!(
            r.text(),
            format!(
                r#"{{"jsonrpc":"2.0","id":7,"error":{{"code":-32021,"message":"Missing required client capability: {cap} (asking the client {asks} needs it; declare it in params._meta[\"io.modelcontextprotocol/clientCapabilities\"] in 2026-07-28, in initialize's capabilities in 2025-11-25)","data":{{"requiredCapabilities":{{"{cap}":{{}}}}}}}}}}"#
            ),
            "{tool}"
        );
        let e = r.json();
        assert_eq!(e["error"]["code"], -32021, "{tool}: {e}");
        assert_eq!(
            e["error"]["data"]["requiredCapabilities"][cap],
            json!({}),
            "{e}"
        );
        // Declared, the same call asks.
        let r = s.post(&headers(tool), &call(tool, json!({ cap: {} })));
        assert_eq!(r.status, 200, "{tool}: {}", r.text());
        assert_eq!(
            r.sse_messages()[0]["result"]["resultType"],
            "input_required",
            "{tool}: {}",
            r.text()
        );
    }

    // stdio: the same refusal from the same check.
    let mut stdio = StdioServer::start(&["--fixture", "conformance"]);
    let r = stdio.exchange(&call("test_input_required_result_elicitation", json!({})));
    assert_eq!(r["error"]["code"], -32021, "{r}");
}

/// `auth-server` and `replay --http` take their connections as `serve --http` does
/// (one listener, `transport::http::listen`): a connection idle after its answer is
/// closed after `--idle-timeout`, and one that never sends its head after
/// `--header-timeout`.
#[test]
fn auth_server_and_replay_keep_the_connection_clocks_of_serve() {
    let recording =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/show/recording.jsonl");
    let recording = recording.to_str().expect("a UTF-8 path");
    // Both listeners, the same clocks: a second each.
    let clocks = [
        "--port",
        "0",
        "--idle-timeout",
        "1",
        "--header-timeout",
        "1",
    ];
    for (name, first) in [
        ("auth-server", vec!["auth-server"]),
        ("replay --http", vec!["replay", recording, "--http"]),
    ] {
        let args: Vec<&str> = first.into_iter().chain(clocks).collect();
        // Auth-server's and replay's own --idle-timeout/--header-timeout flags are under test: a process.
        let mut child = Command::new(BIN)
            .args(&args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("mcp-raw runs");
        let url = common::listening_url(child.stderr.take().expect("stderr"));
        let addr = url
            .trim_start_matches("http://")
            .split('/')
            .next()
            .expect("host:port")
            .to_owned();

        // One request answered, then nothing: idle.
        let mut c = Conn::open(&addr);
        c.send(format!("GET /nothing-here HTTP/1.1\r\nHost: {addr}\r\n\r\n").as_bytes());
        c.read_until(Duration::from_secs(5), |b| {
            b.windows(4).any(|w| w == b"\r\n\r\n")
        });
        assert!(c.has("HTTP/1.1 "), "{name}: no answer: {}", c.text());
        let took = c
            .closed_within(Duration::from_secs(5))
            .unwrap_or_else(|| panic!("{name}: an idle connection outlived --idle-timeout 1"));
        assert!(
            took >= Duration::from_millis(700),
            "{name}: closed after {took:?}"
        );

        // A connection that never sends its head.
        let mut silent = Conn::open(&addr);
        let took = silent
            .closed_within(Duration::from_secs(5))
            .unwrap_or_else(|| panic!("{name}: a silent connection outlived --header-timeout 1"));
        assert!(
            took >= Duration::from_millis(700),
            "{name}: closed after {took:?}"
        );
        let _ = child.kill();
        let _ = child.wait();
    }
}
