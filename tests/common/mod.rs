//! Helpers shared by the integration tests: the real binary ([`HttpServer`], [`BIN`])
//! or the HTTP server in-process on port 0 ([`InProcess`]), talked to in raw bytes.
//!
//! - `http_client`: raw HTTP/1.1 requests; responses read back through the library's
//!   `wire::http1::Framer` and `wire::sse::Decoder`, whole or event by event.
//! - `golden`: the golden files' one normalizer (what it replaces, and why) and the
//!   byte-for-byte comparison with `tests/golden/` (`UPDATE_GOLDEN=1` rewrites them).
//! - `cli_inproc`: the command line run in-process ([`cli_here`]): `mcp_raw::run` on a
//!   captured console, its stdout, stderr and exit status.
//! - `made`: transcripts written by hand with known time stamps (`stats`, contracts).
//! - `wire`: one conversation with the conformance fixture over stdio or HTTP, for
//!   scenarios written once and run over both (`tests/fixture.rs`).
#![allow(dead_code)]

pub mod cli_inproc;
pub mod client_inproc;
pub mod golden;
pub mod http_client;
pub mod made;
pub mod pki;
pub mod tools_inproc;
pub mod wire;

pub use http_client::Reply as HttpReply;
use mcp_raw_core::{Eras, Server};
use mcp_raw_net::transport::http;
use serde_json::{Value, json};
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;

pub const BIN: &str = env!("CARGO_BIN_EXE_mcp-raw");

/// Sends SIGTERM, as `kill` or systemd would, and waits up to `secs` for the program
/// to end; whether it did.
fn ended_on_sigterm(child: &mut Child, secs: u64) -> bool {
    let _ = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(secs);
    while std::time::Instant::now() < deadline {
        if let Ok(Some(_)) = child.try_wait() {
            return true;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    let _ = child.kill();
    let _ = child.wait();
    false
}

/// Stops a program as `kill` or systemd would (SIGTERM) and waits for it to end: its
/// recordings are then whole on disk (their writer drained), which SIGKILL does not
/// promise. Panics if it is still running 10 s later (it is then killed).
pub fn terminate(child: &mut Child) {
    assert!(
        ended_on_sigterm(child, 10),
        "the program did not end within 10 s of SIGTERM"
    );
}

/// Stops a program for a test's teardown: SIGTERM, so its recordings are written out
/// whole, and SIGKILL if it is still running 5 s later.
pub fn stop(child: &mut Child) {
    ended_on_sigterm(child, 5);
}

/// `mcp-raw serve --http --port 0 ...`, stopped on drop ([`stop`]).
pub struct HttpServer {
    child: Child,
    pub addr: String,
    /// Everything the server wrote on stderr so far.
    pub log: std::sync::Arc<std::sync::Mutex<String>>,
    /// Notified at each line added to `log` ([`HttpServer::wait_logged`]).
    written: std::sync::Arc<std::sync::Condvar>,
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        stop(&mut self.child);
    }
}

impl HttpServer {
    /// Stops the program as `kill` or systemd would (SIGTERM) and waits for it to end
    /// (at most 10 s, then SIGKILL): its recordings are then whole on disk, which a
    /// SIGKILL (the drop) does not promise.
    pub fn terminate(mut self) {
        terminate(&mut self.child);
    }

    pub fn start(extra: &[&str]) -> HttpServer {
        // The binary's own HTTP server, for the tests whose subject is the process: a process.
        let mut command = Command::new(BIN);
        command.args(["serve", "--http", "--port", "0"]).args(extra);
        HttpServer::spawn(command)
    }

    /// Starts `command`, which must run `mcp-raw serve --http --port 0 ...` (perhaps
    /// through a shell that sets limits first).
    pub fn spawn(mut command: Command) -> HttpServer {
        let mut child = command
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn mcp-raw serve --http");
        let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
        // What came before the listening line is kept too (what it connected to).
        let mut early = String::new();
        let addr = loop {
            let line = lines
                .next()
                .expect("server exited before listening")
                .unwrap();
            early.push_str(&line);
            early.push('\n');
            if let Some(rest) = line.split("listening on http://").nth(1) {
                // `…/mcp` ends serve's line; the bridge's goes on (`/mcp, serving …`),
                // the authorization server's too (`ADDR (metadata at …)`).
                break rest
                    .split(['/', ' ', ','])
                    .next()
                    .unwrap_or(rest)
                    .to_owned();
            }
        };
        // Keep draining stderr so the server never blocks on a full pipe.
        let log = std::sync::Arc::new(std::sync::Mutex::new(early));
        let written = std::sync::Arc::new(std::sync::Condvar::new());
        let (keep, wake) = (log.clone(), written.clone());
        std::thread::spawn(move || {
            for line in lines.map_while(Result::ok) {
                let mut log = keep.lock().unwrap();
                log.push_str(&line);
                log.push('\n');
                wake.notify_all();
            }
        });
        HttpServer {
            child,
            addr,
            log,
            written,
        }
    }

    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// What the server logged so far.
    pub fn logged(&self) -> String {
        self.log.lock().unwrap().clone()
    }

    /// Whether the server's stderr says `needle` within `limit`: each line read wakes
    /// the wait (no polling).
    pub fn wait_logged(&self, needle: &str, limit: std::time::Duration) -> bool {
        let log = self.log.lock().unwrap();
        let (log, _) = self
            .written
            .wait_timeout_while(log, limit, |l| !l.contains(needle))
            .unwrap();
        log.contains(needle)
    }

    /// Whether the process is still running.
    pub fn alive(&mut self) -> bool {
        self.child.try_wait().unwrap().is_none()
    }
}

impl Http for HttpServer {
    fn addr(&self) -> &str {
        &self.addr
    }
}

/// The HTTP server run in-process on 127.0.0.1, port 0, on its own runtime; stopped
/// on drop. `app` is there to look at (sessions, streams).
pub struct InProcess {
    pub addr: String,
    pub app: Arc<http::App>,
    /// Owns the server's tasks; dropping it stops them.
    _runtime: tokio::runtime::Runtime,
}

impl InProcess {
    pub fn start(server: Arc<Server>) -> InProcess {
        InProcess::with(server, http::Config::default())
    }

    /// `server` served with `config` (its limits, recorder, session-id prefix, …):
    /// what `serve --http --port 0` with the matching flags runs, in-process.
    pub fn with(server: Arc<Server>, config: http::Config) -> InProcess {
        let runtime = tokio::runtime::Runtime::new().unwrap();
        let (addr, app) = runtime.block_on(serve_here(server, config));
        InProcess {
            addr,
            app,
            _runtime: runtime,
        }
    }

    /// `serve --http --fixture conformance --era ERA`, in-process.
    pub fn fixture(eras: Eras) -> InProcess {
        InProcess::start(mcp_raw_core::content::conformance::server(eras))
    }

    /// `serve --http` with only `limits` changed from the defaults, in-process.
    pub fn limited(server: Arc<Server>, limits: http::Limits) -> InProcess {
        InProcess::with(
            server,
            http::Config {
                limits,
                ..http::Config::default()
            },
        )
    }

    /// `serve --http --fixture conformance`, in-process.
    pub fn conformance() -> InProcess {
        InProcess::start(mcp_raw_core::content::conformance::server(Eras::Both))
    }

    /// `serve --http` (the demo tools), in-process.
    pub fn demo() -> InProcess {
        InProcess::start(Server::new(
            mcp_raw_core::content::demo::tool_set(),
            Eras::Both,
        ))
    }
}

impl Http for InProcess {
    fn addr(&self) -> &str {
        &self.addr
    }
}

/// Serves `server` with `config` on 127.0.0.1, port 0, on the caller's runtime (one
/// a test may have started paused, `#[tokio::test(start_paused = true)]`, so that the
/// server's clocks are the test's); returns its address and app. It serves until the
/// runtime ends.
pub async fn serve_here(server: Arc<Server>, config: http::Config) -> (String, Arc<http::App>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let app = http::App::new(server, config);
    tokio::spawn(http::serve(listener, app.clone(), std::future::pending()));
    (addr, app)
}

/// Requests to an HTTP server's /mcp, each on a fresh connection.
pub trait Http {
    fn addr(&self) -> &str;

    /// Sends raw request bytes on a fresh connection and reads the whole response.
    fn raw(&self, request: &[u8]) -> HttpReply {
        http_client::exchange(self.addr(), request)
    }

    /// A POST /mcp with the usual headers plus `extra` header lines.
    fn post(&self, extra: &[(&str, &str)], body: &str) -> HttpReply {
        let mut headers = vec![
            ("Accept", "application/json, text/event-stream"),
            ("Content-Type", "application/json"),
        ];
        headers.extend_from_slice(extra);
        self.request("POST", &headers, body)
    }

    /// Any request to /mcp with exactly these headers (plus Host, Content-Length and
    /// Connection: close).
    fn request(&self, method: &str, headers: &[(&str, &str)], body: &str) -> HttpReply {
        let mut all = vec![("Connection", "close")];
        all.extend_from_slice(headers);
        self.raw(&http_client::request_bytes(self.addr(), method, &all, body))
    }

    /// initialize + notifications/initialized; returns the session id.
    fn open_session(&self, version: &str) -> String {
        let r = self.post(&[], &initialize(version));
        assert_eq!(r.status, 200, "{}", r.text());
        let id = r.header("mcp-session-id").expect("session id").to_owned();
        let r = self.post(
            &[("Mcp-Session-Id", &id)],
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        );
        assert_eq!(r.status, 202);
        id
    }
}

pub fn initialize(version: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"initialize","params":{{"protocolVersion":"{version}","capabilities":{{}},"clientInfo":{{"name":"test","version":"0"}}}}}}"#
    )
}

/// The fixture's 1×1 PNG and short WAV, Base64.
pub const PNG: &str =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC";
pub const WAV: &str = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQIAAAAAAA==";

/// Each content-type tool of the fixture and the `content` it must answer.
pub fn content_cases() -> Vec<(&'static str, Value)> {
    vec![
        (
            "test_simple_text",
            json!([{"type":"text","text":"This is a simple text response for testing."}]),
        ),
        (
            "test_image_content",
            json!([{"type":"image","data":PNG,"mimeType":"image/png"}]),
        ),
        (
            "test_audio_content",
            json!([{"type":"audio","data":WAV,"mimeType":"audio/wav"}]),
        ),
        (
            "test_embedded_resource",
            json!([{"type":"resource","resource":{"uri":"test://embedded-resource","mimeType":"text/plain","text":"This is an embedded resource content."}}]),
        ),
        (
            "test_multiple_content_types",
            json!([
                {"type":"text","text":"Multiple content types test:"},
                {"type":"image","data":PNG,"mimeType":"image/png"},
                {"type":"resource","resource":{"uri":"test://mixed-content-resource","mimeType":"application/json","text":"{\"test\":\"data\",\"value\":123}"}}
            ]),
        ),
    ]
}

/// The text view without its time stamps (`[c1 +0.004s] `, `[+0.004s] `) and lane
/// notes (`··· …`), for asserting on what was shown whatever the timing.
#[allow(dead_code)]
pub fn unstamped(view: &str) -> String {
    let mut out = String::new();
    for line in view.lines() {
        if line.starts_with("··· ") {
            continue;
        }
        let line = match (line.find(" ["), line.find("s] ")) {
            (Some(a), Some(b)) if a < b && a <= 3 => {
                format!("{}{}", &line[..a + 1], &line[b + 3..])
            }
            _ => line.to_owned(),
        };
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// The time offset of one stamped line of the text view (`<<< [c1 +0.004s] …` or
/// `>>> [+0.004s] …`), in seconds.
#[allow(dead_code)]
pub fn stamp(line: &str) -> Option<f64> {
    let rest = line.get(3..)?.strip_prefix(" [")?;
    let inside = &rest[..rest.find("s] ")?];
    inside.rsplit('+').next()?.parse().ok()
}

/// The offset of the last stamped line that starts at or before byte `at` of a view.
#[allow(dead_code)]
pub fn stamp_before(view: &str, at: usize) -> f64 {
    let mut start = 0;
    let mut last = None;
    for line in view.split_inclusive('\n') {
        if start > at {
            break;
        }
        last = stamp(line).or(last);
        start += line.len();
    }
    last.expect("a stamped line before that point")
}

/// Ctrl-C for `child`, still running: `kill -INT PID`, which must succeed.
pub fn interrupt(child: &Child) {
    let pid = child.id().to_string();
    assert!(
        Command::new("kill")
            .args(["-INT", &pid])
            .status()
            .unwrap()
            .success(),
        "kill -INT {pid}"
    );
}

/// A fresh directory of one test's own under the system's temp dir:
/// `mcp-raw-SUITE-NAME-PID`.
/// A recording's text with `line` put after its first `cut` lines: a bad line
/// midway, for the tests of the tools that read a recording as a stream.
pub fn with_line_at(text: &str, cut: usize, line: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    format!(
        "{}\n{line}\n{}\n",
        lines[..cut].join("\n"),
        lines[cut..].join("\n")
    )
}

pub fn scratch(suite: &str, name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("mcp-raw-{suite}-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    dir
}

/// The URL a program announces on its first line (`… listening on http://ADDR/PATH,
/// …`), read from `from` (its stderr, or stdout).
pub fn listening_url(from: impl std::io::Read) -> String {
    let mut line = String::new();
    BufReader::new(from)
        .read_line(&mut line)
        .expect("the first line");
    line.split("listening on ")
        .nth(1)
        .and_then(|r| r.split([',', ' ', '\n']).next())
        .unwrap_or_else(|| panic!("no \"listening on\" URL in {line:?}"))
        .to_owned()
}

/// Whether this run is CI's: the `CI` variable set to anything but empty, `0` or
/// `false` (CI services set `CI=true`; `.ci/run` does too).
pub fn under_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| !matches!(v.trim(), "" | "0" | "false"))
}

/// A test that needs an outside program (`redis-server`) and cannot find it: under
/// CI that is a failure (a test that checked nothing must not pass there); elsewhere
/// a skip said loudly on stderr, with what to install. Call it, then `return`.
pub fn missing_program(test: &str, program: &str, install: &str) {
    assert!(
        !under_ci(),
        "{test}: {program} is not on PATH and CI is set: this test would check nothing \
         ({install})"
    );
    eprintln!("SKIP {test}: {program} is not on PATH; nothing was checked ({install})");
}

/// The server `serve --http` runs by default (`--fixture demo`, `--era both`).
pub fn demo_server() -> Arc<Server> {
    Server::new(mcp_raw_core::content::demo::tool_set(), Eras::Both)
}

/// The server `serve --http --fixture conformance --era both` runs.
pub fn conformance_server() -> Arc<Server> {
    mcp_raw_core::content::conformance::server(Eras::Both)
}

/// `serve --http`'s defaults with `--allow-host NAME` for each of `names`.
pub fn allowing(names: &[&str]) -> http::Config {
    http::Config {
        allowed_hosts: http::guard::AllowedHosts::new(
            &names.iter().map(|n| n.to_string()).collect::<Vec<_>>(),
        ),
        ..http::Config::default()
    }
}

/// `serve --http`'s defaults with `--session-id-prefix PREFIX`.
pub fn prefixed(prefix: &str) -> http::Config {
    http::Config {
        session_id_prefix: http::sessions::IdPrefix::new(prefix).expect("a valid prefix"),
        ..http::Config::default()
    }
}

/// A client on the test's own (perhaps paused) runtime, and the log kept in memory.
pub mod inproc;
