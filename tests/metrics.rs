//! `--metrics ADDR` through the real binary: `serve --http`, `tap --http` and `bridge`
//! each serve `GET /metrics`; the traffic sent is raw HTTP of known shape, so each
//! count the scrape shows is compared with what was sent, exactly. The programs are
//! processes (they serve until killed, and their stderr names both listeners).

mod common;

use common::http_client::{exchange, request_bytes};
use common::{BIN, HttpServer, initialize};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::Command;
use std::time::{Duration, Instant};

const ACCEPT: (&str, &str) = ("Accept", "application/json, text/event-stream");
const JSON: (&str, &str) = ("Content-Type", "application/json");
const V: (&str, &str) = ("MCP-Protocol-Version", "2025-11-25");

/// The metrics address a program announced on stderr.
fn metrics_addr(p: &HttpServer) -> String {
    assert!(
        p.wait_logged("Prometheus metrics at http://", Duration::from_secs(5)),
        "{}",
        p.logged()
    );
    let log = p.logged();
    let rest = log.split("Prometheus metrics at http://").nth(1).unwrap();
    rest.split('/').next().unwrap().to_owned()
}

/// One raw request to the metrics listener; the whole response as text.
fn raw(addr: &str, request: &[u8]) -> String {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    s.write_all(request).unwrap();
    let mut out = Vec::new();
    s.read_to_end(&mut out).unwrap();
    String::from_utf8(out).unwrap()
}

/// `GET /metrics`: the body, after checking the status and the content type.
fn scrape(addr: &str) -> String {
    let r = raw(
        addr,
        format!("GET /metrics HTTP/1.1\r\nHost: {addr}\r\n\r\n").as_bytes(),
    );
    let (head, body) = r.split_once("\r\n\r\n").unwrap();
    assert!(head.starts_with("HTTP/1.1 200 OK\r\n"), "{head}");
    assert!(
        head.contains("\r\nContent-Type: text/plain; version=0.0.4; charset=utf-8\r\n"),
        "{head}"
    );
    body.to_owned()
}

/// The value of the sample written exactly `series` (name and labels), if present.
fn value(text: &str, series: &str) -> Option<f64> {
    text.lines()
        .find_map(|l| l.strip_prefix(series)?.strip_prefix(' ')?.parse().ok())
}

/// Scrapes until `series` reads `want` (the watcher runs on its own thread, a moment
/// behind the wire), within 10 s; the last scrape.
fn scrape_until(addr: &str, series: &str, want: f64) -> String {
    let end = Instant::now() + Duration::from_secs(10);
    loop {
        let text = scrape(addr);
        if value(&text, series) == Some(want) || Instant::now() > end {
            assert_eq!(value(&text, series), Some(want), "{series} in\n{text}");
            return text;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn post(addr: &str, headers: &[(&str, &str)], body: &str) -> common::HttpReply {
    let mut all = vec![ACCEPT, JSON];
    all.extend_from_slice(headers);
    exchange(addr, &request_bytes(addr, "POST", &all, body))
}

/// Checks a histogram's series: buckets never decrease, `+Inf` equals `_count`.
fn histogram_count(text: &str, labels: &str) -> f64 {
    let name = "mcp_raw_request_duration_seconds";
    let buckets: Vec<f64> = text
        .lines()
        .filter(|l| l.starts_with(&format!("{name}_bucket{{{labels},le=")))
        .map(|l| l.rsplit(' ').next().unwrap().parse().unwrap())
        .collect();
    assert_eq!(buckets.len(), 17, "16 bounds and +Inf in\n{text}");
    assert!(buckets.windows(2).all(|w| w[0] <= w[1]), "{buckets:?}");
    let count = value(text, &format!("{name}_count{{{labels}}}")).unwrap();
    assert_eq!(buckets.last().copied(), Some(count));
    let sum = value(text, &format!("{name}_sum{{{labels}}}")).unwrap();
    assert!(sum > 0.0 && sum < 10.0 * count, "sum {sum}");
    count
}

/// A legacy session opened with raw HTTP and initialized; its id.
fn open_session(addr: &str) -> String {
    let r = post(addr, &[], &initialize("2025-11-25"));
    assert_eq!(r.status, 200, "{}", r.text());
    let sid = r.header("mcp-session-id").unwrap().to_owned();
    let r = post(
        addr,
        &[("Mcp-Session-Id", &sid), V],
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    );
    assert_eq!(r.status, 202);
    sid
}

/// `serve --http --metrics`: requests by method and outcome exactly, a histogram
/// whose buckets end at its count, a 413 counted, a session open then deleted, and a
/// listener that answers garbage with 400, other paths 404, other methods 405, and
/// goes on serving.
#[test]
fn serve_counts_what_crossed() {
    let s = HttpServer::start(&["--metrics", "127.0.0.1:0", "--max-body-bytes", "2000"]);
    let m = metrics_addr(&s);
    let sid = open_session(&s.addr);
    let text = scrape_until(&m, "mcp_raw_sessions_open", 1.0);
    assert_eq!(value(&text, "mcp_raw_sessions_issued_total"), Some(1.0));
    let session = [("Mcp-Session-Id", sid.as_str()), V];
    for id in 2..5 {
        let r = post(
            &s.addr,
            &session,
            &format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/list"}}"#),
        );
        assert_eq!(r.status, 200);
    }
    let r = post(
        &s.addr,
        &session,
        r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hi"}}}"#,
    );
    assert_eq!(r.status, 200);
    let r = post(
        &s.addr,
        &session,
        r#"{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"echo","arguments":{"message":7}}}"#,
    );
    assert_eq!(r.response().unwrap()["result"]["isError"], true);
    let r = post(
        &s.addr,
        &session,
        r#"{"jsonrpc":"2.0","id":7,"method":"no/such/method"}"#,
    );
    assert_eq!(r.response().unwrap()["error"]["code"], -32601);
    let big = format!(
        r#"{{"jsonrpc":"2.0","id":8,"method":"ping","params":{{"pad":"{}"}}}}"#,
        "x".repeat(3000)
    );
    assert_eq!(post(&s.addr, &session, &big).status, 413);

    scrape_until(&m, "mcp_raw_limit_refusals_total{status=\"413\"}", 1.0);
    // The refused ping is given up when its connection closes, a moment later.
    let text = scrape_until(
        &m,
        "mcp_raw_requests_total{transport=\"http\",method=\"ping\",outcome=\"unanswered\"}",
        1.0,
    );
    let req = |method: &str, outcome: &str| {
        value(
            &text,
            &format!(
                "mcp_raw_requests_total{{transport=\"http\",method=\"{method}\",outcome=\"{outcome}\"}}"
            ),
        )
    };
    assert_eq!(req("initialize", "ok"), Some(1.0), "{text}");
    assert_eq!(req("tools/list", "ok"), Some(3.0));
    assert_eq!(req("tools/call", "ok"), Some(1.0));
    assert_eq!(req("tools/call", "tool_error"), Some(1.0));
    assert_eq!(
        value(
            &text,
            "mcp_raw_requests_total{transport=\"http\",method=\"other\",outcome=\"error\",code=\"-32601\"}"
        ),
        Some(1.0)
    );
    // The ping refused with 413 crossed (its bytes were sent) and no JSON-RPC answer
    // came back: unanswered, its refusal counted by status below.
    assert_eq!(req("ping", "unanswered"), Some(1.0));
    // Nothing else was counted as a request: 1 + 3 + 2 + 1 + 1.
    let total: f64 = text
        .lines()
        .filter(|l| l.starts_with("mcp_raw_requests_total{"))
        .map(|l| l.rsplit(' ').next().unwrap().parse::<f64>().unwrap())
        .sum();
    assert_eq!(total, 8.0, "{text}");
    assert_eq!(
        histogram_count(&text, "transport=\"http\",method=\"tools/list\""),
        3.0
    );
    assert_eq!(
        histogram_count(&text, "transport=\"http\",method=\"tools/call\""),
        2.0
    );
    assert_eq!(
        value(&text, "mcp_raw_http_responses_total{status=\"413\"}"),
        Some(1.0)
    );
    assert_eq!(value(&text, "mcp_raw_requests_in_flight"), Some(0.0));
    assert_eq!(value(&text, "mcp_raw_dropped_events_total"), Some(0.0));
    assert!(
        value(
            &text,
            "mcp_raw_wire_bytes_total{transport=\"http\",direction=\"to_server\"}"
        )
        .unwrap()
            > 3000.0
    );

    // DELETE ends the session (MCP 2025-11-25 basic/transports "Session Management").
    let r = exchange(
        &s.addr,
        &request_bytes(&s.addr, "DELETE", &[("Mcp-Session-Id", &sid), V], ""),
    );
    assert!((200..300).contains(&r.status), "{}", r.status);
    let text = scrape_until(&m, "mcp_raw_sessions_open", 0.0);
    assert_eq!(
        value(&text, "mcp_raw_sessions_ended_total{how=\"deleted\"}"),
        Some(1.0)
    );

    // The listener's own refusals, each with a line saying why; it goes on serving.
    let bad = raw(&m, b"\x16\x03\x01\x02\x00garbage\r\n\r\n");
    assert!(bad.starts_with("HTTP/1.1 400 Bad Request\r\n"), "{bad}");
    assert!(bad.contains("not an HTTP/1.1 request line"), "{bad}");
    let other = raw(&m, b"GET /other HTTP/1.1\r\n\r\n");
    assert!(other.starts_with("HTTP/1.1 404 Not Found\r\n"), "{other}");
    assert!(other.ends_with("no metrics at \"/other\": they are at /metrics\n"));
    let post = raw(&m, b"POST /metrics HTTP/1.1\r\nContent-Length: 0\r\n\r\n");
    assert!(
        post.starts_with("HTTP/1.1 405 Method Not Allowed\r\n"),
        "{post}"
    );
    assert!(post.contains("\r\nAllow: GET, HEAD\r\n"));
    let huge = format!("GET /metrics HTTP/1.1\r\nX: {}\r\n\r\n", "y".repeat(10_000));
    let huge = raw(&m, huge.as_bytes());
    assert!(huge.starts_with("HTTP/1.1 431 "), "{huge}");
    assert!(scrape(&m).contains("# TYPE mcp_raw_sessions_open gauge\n"));
}

/// `tap --http --metrics`: what the tap relayed, counted on the tap.
#[test]
fn tap_counts_what_it_relayed() {
    let s = HttpServer::start(&[]);
    // The tap is a process of its own, in front of the server's.
    let mut command = Command::new(BIN);
    command.args([
        "tap",
        "--http",
        "--listen",
        "127.0.0.1:0",
        "--target",
        &format!("http://{}/mcp", s.addr),
        "--metrics",
        "0",
    ]);
    let tap = HttpServer::spawn(command);
    let m = metrics_addr(&tap);
    let sid = open_session(&tap.addr);
    for id in 2..4 {
        let r = post(
            &tap.addr,
            &[("Mcp-Session-Id", &sid), V],
            &format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#),
        );
        assert_eq!(r.status, 200);
    }
    let text = scrape_until(
        &m,
        "mcp_raw_requests_total{transport=\"http\",method=\"ping\",outcome=\"ok\"}",
        2.0,
    );
    assert_eq!(
        value(
            &text,
            "mcp_raw_requests_total{transport=\"http\",method=\"initialize\",outcome=\"ok\"}"
        ),
        Some(1.0)
    );
    assert_eq!(value(&text, "mcp_raw_sessions_open"), Some(1.0));
    assert_eq!(
        histogram_count(&text, "transport=\"http\",method=\"ping\""),
        2.0
    );
}

/// `bridge --metrics`: both sides counted, the clients' HTTP and the child's stdio.
#[test]
fn bridge_counts_both_sides() {
    // The bridge and its child are processes: a process.
    let mut command = Command::new(BIN);
    command
        .args(["bridge", "--port", "0", "--metrics", "127.0.0.1:0", "--"])
        .args([BIN, "serve"]);
    let b = HttpServer::spawn(command);
    let m = metrics_addr(&b);
    assert!(b.wait_logged("the server lists", Duration::from_secs(10)));
    let sid = open_session(&b.addr);
    let r = post(
        &b.addr,
        &[("Mcp-Session-Id", &sid), V],
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
    );
    assert_eq!(r.status, 200);
    scrape_until(
        &m,
        "mcp_raw_requests_total{transport=\"http\",method=\"tools/list\",outcome=\"ok\"}",
        1.0,
    );
    // The child's side: the probe's initialize and tools/list at start, then the
    // session's child's own.
    let text = scrape_until(
        &m,
        "mcp_raw_requests_total{transport=\"stdio\",method=\"tools/list\",outcome=\"ok\"}",
        2.0,
    );
    assert_eq!(
        value(
            &text,
            "mcp_raw_requests_total{transport=\"stdio\",method=\"initialize\",outcome=\"ok\"}"
        ),
        Some(2.0)
    );
    assert_eq!(value(&text, "mcp_raw_sessions_open"), Some(1.0), "{text}");
    assert!(
        value(
            &text,
            "mcp_raw_wire_bytes_total{transport=\"stdio\",direction=\"to_client\"}"
        )
        .unwrap()
            > 0.0
    );
}

/// A scrape while 10,000 legacy sessions are open (serve's `--max-sessions`
/// default): the exposition does not grow with the sessions (one gauge), answers
/// within a second, and the 10,001st `initialize` is refused 503 and counted.
#[test]
fn a_scrape_with_ten_thousand_sessions_open() {
    const N: usize = 10_000;
    let s = HttpServer::start(&["--metrics", "127.0.0.1:0"]);
    let m = metrics_addr(&s);
    let empty = scrape(&m).len();
    let workers: Vec<_> = (0..4)
        .map(|_| {
            let addr = s.addr.clone();
            std::thread::spawn(move || {
                for _ in 0..N / 4 {
                    let r = post(&addr, &[], &initialize("2025-11-25"));
                    assert_eq!(r.status, 200, "{}", r.text());
                }
            })
        })
        .collect();
    for w in workers {
        w.join().unwrap();
    }
    let r = post(&s.addr, &[], &initialize("2025-11-25"));
    assert_eq!(r.status, 503, "{}", r.text());
    scrape_until(&m, "mcp_raw_limit_refusals_total{status=\"503\"}", 1.0);
    let text = scrape_until(&m, "mcp_raw_sessions_open", N as f64);
    let started = Instant::now();
    let again = scrape(&m);
    let took = started.elapsed();
    assert_eq!(value(&again, "mcp_raw_sessions_open"), Some(N as f64));
    assert!(took < Duration::from_secs(1), "a scrape took {took:?}");
    assert_eq!(
        value(
            &text,
            "mcp_raw_requests_total{transport=\"http\",method=\"initialize\",outcome=\"ok\"}"
        ),
        Some(N as f64)
    );
    // The size: the empty exposition, plus one method's series; never per session.
    assert!(again.len() < empty + 4096, "{} bytes", again.len());
    eprintln!(
        "scrape with {N} sessions open: {} bytes (empty: {empty}), {took:?}",
        again.len()
    );
}

/// A session the server ends on its own clock (`--init-timeout`: never initialized)
/// leaves `mcp_raw_sessions_open` after the same time; a GET stream open counts in
/// `mcp_raw_sse_streams_open` until its connection closes (the conformance fixture
/// serves a GET stream; the demo answers it 405).
#[test]
fn expired_sessions_and_open_streams() {
    let s = HttpServer::start(&[
        "--metrics",
        "127.0.0.1:0",
        "--init-timeout",
        "1",
        "--fixture",
        "conformance",
    ]);
    let m = metrics_addr(&s);
    let r = post(&s.addr, &[], &initialize("2025-11-25"));
    assert_eq!(r.status, 200);
    scrape_until(&m, "mcp_raw_sessions_open", 1.0);
    let text = scrape_until(&m, "mcp_raw_sessions_open", 0.0);
    assert_eq!(
        value(&text, "mcp_raw_sessions_ended_total{how=\"expired\"}"),
        Some(1.0)
    );

    let sid = open_session(&s.addr);
    let mut stream = TcpStream::connect(&s.addr).unwrap();
    stream
        .write_all(&request_bytes(
            &s.addr,
            "GET",
            &[("Accept", "text/event-stream"), ("Mcp-Session-Id", &sid), V],
            "",
        ))
        .unwrap();
    let text = scrape_until(&m, "mcp_raw_sse_streams_open", 1.0);
    assert_eq!(value(&text, "mcp_raw_sse_streams_total"), Some(1.0));
    drop(stream);
    scrape_until(&m, "mcp_raw_sse_streams_open", 0.0);
}

/// A tap whose client side is this test's pipes (`tap ARGS`): the process, its
/// metrics address, its stdin, its stdout's lines.
type Piped = (
    std::process::Child,
    String,
    std::process::ChildStdin,
    std::io::Lines<std::io::BufReader<std::process::ChildStdout>>,
);

fn piped_tap(args: &[&str]) -> Piped {
    use std::io::{BufRead, BufReader};
    // The tap talks to its client over pipes: a process.
    let mut tap = Command::new(BIN)
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut err = BufReader::new(tap.stderr.take().unwrap()).lines();
    let m = loop {
        let line = err.next().expect("the tap's stderr ended").unwrap();
        if let Some(rest) = line.split("Prometheus metrics at http://").nth(1) {
            break rest.split('/').next().unwrap().to_owned();
        }
    };
    // Keep draining stderr so the tap never blocks on a full pipe.
    std::thread::spawn(move || err.for_each(drop));
    let stdin = tap.stdin.take().unwrap();
    let stdout = BufReader::new(tap.stdout.take().unwrap()).lines();
    (tap, m, stdin, stdout)
}

/// initialize, initialized and three tools/list over a tap's pipes, each answer read.
fn talk(
    stdin: &mut std::process::ChildStdin,
    stdout: &mut std::io::Lines<std::io::BufReader<std::process::ChildStdout>>,
) {
    writeln!(stdin, "{}", initialize("2025-11-25")).unwrap();
    assert!(stdout.next().unwrap().unwrap().contains("\"result\""));
    writeln!(
        stdin,
        r#"{{"jsonrpc":"2.0","method":"notifications/initialized"}}"#
    )
    .unwrap();
    for id in 2..5 {
        writeln!(
            stdin,
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/list"}}"#
        )
        .unwrap();
        assert!(stdout.next().unwrap().unwrap().contains("\"tools\""));
    }
}

/// The stdio tap (`tap --metrics 0 -- mcp-raw serve`): its lines counted as stdio.
#[test]
fn stdio_tap_counts_lines() {
    let (mut tap, m, mut stdin, mut stdout) =
        piped_tap(&["tap", "--metrics", "0", "--", BIN, "serve"]);
    talk(&mut stdin, &mut stdout);
    let text = scrape_until(
        &m,
        "mcp_raw_requests_total{transport=\"stdio\",method=\"tools/list\",outcome=\"ok\"}",
        3.0,
    );
    assert_eq!(
        histogram_count(&text, "transport=\"stdio\",method=\"tools/list\""),
        3.0
    );
    assert_eq!(value(&text, "mcp_raw_sessions_open"), Some(0.0));
    drop(stdin);
    assert!(tap.wait().unwrap().success());
}

/// `tap --remote URL --metrics`: both sides counted, the client's lines as stdio and
/// the POSTs they became as http, and the session the server issued.
#[test]
fn remote_tap_counts_both_sides() {
    let s = HttpServer::start(&[]);
    let url = format!("http://{}/mcp", s.addr);
    let (mut tap, m, mut stdin, mut stdout) =
        piped_tap(&["tap", "--remote", &url, "--metrics", "127.0.0.1:0"]);
    talk(&mut stdin, &mut stdout);
    scrape_until(
        &m,
        "mcp_raw_requests_total{transport=\"http\",method=\"tools/list\",outcome=\"ok\"}",
        3.0,
    );
    let text = scrape_until(
        &m,
        "mcp_raw_requests_total{transport=\"stdio\",method=\"tools/list\",outcome=\"ok\"}",
        3.0,
    );
    assert_eq!(value(&text, "mcp_raw_sessions_open"), Some(1.0), "{text}");
    drop(stdin);
    let _ = tap.wait();
}

/// The listener's bounds: with one connection allowed, a second while the first
/// sends nothing gets 503 with `Retry-After`; the first gets 408 when its time is up;
/// then scrapes are served again.
#[test]
fn the_listener_is_bounded_and_recovers() {
    let s = HttpServer::start(&[
        "--metrics",
        "127.0.0.1:0",
        "--metrics-max-connections",
        "1",
        "--metrics-timeout",
        "1",
    ]);
    let m = metrics_addr(&s);
    let mut idle = TcpStream::connect(&m).unwrap();
    // The listener's thread takes the idle connection before the second arrives.
    std::thread::sleep(Duration::from_millis(200));
    let busy = raw(&m, b"GET /metrics HTTP/1.1\r\n\r\n");
    assert!(busy.starts_with("HTTP/1.1 503 "), "{busy}");
    assert!(busy.contains("\r\nRetry-After: 1\r\n"), "{busy}");
    assert!(busy.contains("--metrics-max-connections"), "{busy}");
    idle.set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut late = String::new();
    idle.read_to_string(&mut late).unwrap();
    assert!(late.starts_with("HTTP/1.1 408 "), "{late}");
    assert!(late.contains("--metrics-timeout"), "{late}");
    let end = Instant::now() + Duration::from_secs(5);
    while !raw(&m, b"GET /metrics HTTP/1.1\r\n\r\n").starts_with("HTTP/1.1 200 ") {
        assert!(Instant::now() < end, "no scrape served after the 408");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// `--metrics` takes a port or IP:PORT, never a host name (it could resolve beyond
/// loopback unseen): refused before anything listens, exit 2, the value quoted.
#[test]
fn a_host_name_is_refused() {
    let ran = common::cli_inproc::cli_here(["serve", "--http", "--metrics", "localhost:9464"]);
    assert_eq!(ran.status.code(), Some(2));
    let err = String::from_utf8_lossy(&ran.stderr);
    assert!(
        err.contains("--metrics \"localhost:9464\": expected a PORT or IP:PORT"),
        "{err}"
    );
}

/// `tap --proxy --metrics`: a plain request in absolute form relayed through the
/// forward proxy, counted there with the session it was issued.
#[test]
fn proxy_tap_counts_what_it_relayed() {
    let dir = std::env::temp_dir().join(format!("mcp-raw-metrics-ca-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let made = common::cli_inproc::cli_here(["ca", "create", "--dir", dir.to_str().unwrap()]);
    assert!(made.ok(), "{}", made.err());
    let s = HttpServer::start(&[]);
    // The proxy is a process of its own, in front of the server's.
    let mut command = Command::new(BIN);
    command.args([
        "tap",
        "--proxy",
        "--listen",
        "127.0.0.1:0",
        "--ca-dir",
        dir.to_str().unwrap(),
        "--metrics",
        "0",
    ]);
    let proxy = HttpServer::spawn(command);
    let m = metrics_addr(&proxy);
    let body = initialize("2025-11-25");
    let request = format!(
        "POST http://{a}/mcp HTTP/1.1\r\nHost: {a}\r\nAccept: application/json, text/event-stream\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len(),
        a = s.addr
    );
    let r = exchange(&proxy.addr, request.as_bytes());
    assert_eq!(r.status, 200, "{}", r.text());
    let text = scrape_until(
        &m,
        "mcp_raw_requests_total{transport=\"http\",method=\"initialize\",outcome=\"ok\"}",
        1.0,
    );
    assert_eq!(value(&text, "mcp_raw_sessions_open"), Some(1.0), "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}
