//! One conversation with the conformance fixture, whatever carries it: the real
//! binary on pipes (one JSON-RPC message per line) or Streamable HTTP (the server
//! in-process on port 0). A scenario sends and receives JSON-RPC messages through
//! [`Wire`] and runs once per [`Transport`].
//!
//! Over HTTP a request opens its own exchange: a JSON answer is queued whole, an SSE
//! stream is read event by event (events without data — a legacy stream's priming
//! event, a retry hint — carry no message). A message that is not a request is
//! POSTed and must get `202` with no body. Every answer's status is checked: `200`
//! in a legacy session, and in the modern era the status of its JSON-RPC error
//! (`wire::http::status_for`); a modern refusal must come that way, never as the
//! first message of an SSE stream.

use super::http_client::{Json, Next, Stream, WAIT};
use super::{BIN, HttpServer, InProcess};
use mcp_raw_wire::line::{Frame, Framer};
use serde_json::{Value, json};
use std::any::Any;
use std::collections::VecDeque;
use std::io::{Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio as Piped};
use std::sync::mpsc;
use std::time::{Duration, Instant};

pub const MODERN: &str = "2026-07-28";
pub const LEGACY: &str = "2025-11-25";

/// What carries a scenario.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transport {
    Stdio,
    Http,
}

pub enum Wire {
    Stdio(Pipes),
    Http(Exchanges),
}

/// `mcp-raw serve --fixture conformance` on pipes; killed on drop. stdout is read on
/// a thread through the library's line framer, so every wait is bounded.
pub struct Pipes {
    child: Child,
    stdin: ChildStdin,
    lines: mpsc::Receiver<String>,
}

impl Drop for Pipes {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Requests to one HTTP server, each on its own connection; a legacy session's id.
pub struct Exchanges {
    addr: String,
    /// Keeps the server running.
    _server: Box<dyn Any>,
    session: Option<String>,
    /// Messages of whole answers not yet received.
    ready: VecDeque<String>,
    /// SSE streams still open, read in turn, each with whether it answers a modern
    /// request and has carried a message yet.
    open: Vec<(Stream, bool, bool)>,
}

impl Wire {
    /// A fresh fixture with no session (the modern era needs none).
    pub fn fresh(t: Transport) -> Wire {
        match t {
            Transport::Stdio => Wire::Stdio(Pipes::spawn()),
            Transport::Http => {
                let s = InProcess::conformance();
                Wire::http(s.addr.clone(), Box::new(s))
            }
        }
    }

    /// A fixture in another process: what it seals, this process cannot open.
    pub fn foreign(t: Transport) -> Wire {
        match t {
            Transport::Stdio => Wire::fresh(t),
            Transport::Http => {
                // A fixture in another process: what it seals, this process cannot open.
                let s = HttpServer::start(&["--fixture", "conformance"]);
                Wire::http(s.addr.clone(), Box::new(s))
            }
        }
    }

    /// Over HTTP to a server already started (a replica with its own flags).
    pub fn over(server: HttpServer) -> Wire {
        Wire::http(server.addr.clone(), Box::new(server))
    }

    fn http(addr: String, server: Box<dyn Any>) -> Wire {
        Wire::Http(Exchanges {
            addr,
            _server: server,
            session: None,
            ready: VecDeque::new(),
            open: Vec::new(),
        })
    }

    /// A legacy session: `initialize` declaring `capabilities`, then
    /// `notifications/initialized`.
    pub fn legacy(t: Transport, capabilities: Value) -> Wire {
        let mut w = Wire::fresh(t);
        let init = json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{
            "protocolVersion":LEGACY,"capabilities":capabilities,
            "clientInfo":{"name":"fixture-test","version":"0"}}});
        if let Wire::Http(h) = &mut w {
            let r = h.post(&[], &init.to_string()).finish();
            assert_eq!(r.status, 200, "{}", r.text());
            h.session = Some(r.header("mcp-session-id").expect("a session id").to_owned());
            h.ready.push_back(r.text());
        } else {
            w.send(&init);
        }
        let r = w.recv();
        assert_eq!(r["id"], 0);
        assert_eq!(r["result"]["protocolVersion"], LEGACY, "{r}");
        assert_eq!(
            r["result"]["capabilities"],
            json!({"tools":{"listChanged":true},"resources":{"subscribe":true,"listChanged":true},
                   "prompts":{"listChanged":true},"completions":{},"logging":{}})
        );
        w.send(&json!({"jsonrpc":"2.0","method":"notifications/initialized"}));
        w
    }

    pub fn send(&mut self, message: &Value) {
        match self {
            Wire::Stdio(p) => p.send_line(&message.to_string()),
            Wire::Http(h) => h.send(message),
        }
    }

    /// The next message, as its JSON text travelled (a stdio line, an SSE event's
    /// data, a JSON body).
    pub fn recv_line(&mut self) -> String {
        self.recv_text_within(WAIT)
            .unwrap_or_else(|| panic!("no message from the server within {WAIT:?}"))
    }

    fn recv_text_within(&mut self, d: Duration) -> Option<String> {
        match self {
            Wire::Stdio(p) => p.lines.recv_timeout(d).ok(),
            Wire::Http(h) => h.recv_within(d),
        }
    }

    /// The next message, as JSON.
    pub fn recv(&mut self) -> Value {
        let line = self.recv_line();
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line:?}"))
    }

    /// The next message if one comes within `d`.
    pub fn recv_within(&mut self, d: Duration) -> Option<Value> {
        self.recv_text_within(d)
            .map(|l| serde_json::from_str(&l).unwrap())
    }

    /// Sends a request and returns the next message, which must be its response.
    pub fn call(&mut self, id: i64, method: &str, params: Value) -> Value {
        self.send(&json!({"jsonrpc":"2.0","id":id,"method":method,"params":params}));
        let r = self.recv();
        assert_eq!(r["id"], id, "expected the response to {id} next, got {r}");
        r
    }
}

impl Pipes {
    fn spawn() -> Pipes {
        // The conformance fixture over stdio (its pipes): a process.
        let mut child = Command::new(BIN)
            .args(["serve", "--fixture", "conformance"])
            .stdin(Piped::piped())
            .stdout(Piped::piped())
            .stderr(Piped::null())
            .spawn()
            .expect("spawn mcp-raw serve --fixture conformance");
        let stdin = child.stdin.take().unwrap();
        let mut stdout = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            let mut framer = Framer::new(usize::MAX);
            let mut buf = [0u8; 16384];
            while let Ok(n @ 1..) = stdout.read(&mut buf) {
                framer.feed(&buf[..n]);
                while let Frame::Line(line) = framer.next_frame() {
                    let line = String::from_utf8(line.to_vec()).expect("a UTF-8 line");
                    if tx.send(line).is_err() {
                        return;
                    }
                }
            }
        });
        Pipes {
            child,
            stdin,
            lines,
        }
    }

    /// Writes one line.
    pub fn send_line(&mut self, line: &str) {
        writeln!(self.stdin, "{line}").expect("write to the server's stdin");
        self.stdin.flush().unwrap();
    }
}

/// The protocol version a modern message names in its `_meta`.
fn is_modern(message: &Value) -> bool {
    message["params"]["_meta"]
        .get("io.modelcontextprotocol/protocolVersion")
        .is_some()
}

impl Exchanges {
    fn post(&self, extra: &[(&str, &str)], body: &str) -> Stream {
        let mut h = vec![
            ("Accept", "application/json, text/event-stream"),
            ("Content-Type", "application/json"),
        ];
        h.extend_from_slice(extra);
        Stream::open(&self.addr, "POST", &h, body)
    }

    fn send(&mut self, message: &Value) {
        let modern = is_modern(message);
        let method = message["method"].as_str().unwrap_or("");
        // The modern headers mirror the body: the method, and the name it acts on.
        let name = match method {
            "tools/call" | "prompts/get" => message["params"]["name"].as_str(),
            "resources/read" => message["params"]["uri"].as_str(),
            _ => None,
        };
        let mut headers = Vec::new();
        if modern {
            headers.push(("MCP-Protocol-Version", MODERN));
            headers.push(("Mcp-Method", method));
            headers.extend(name.map(|n| ("Mcp-Name", n)));
        } else if let Some(sid) = &self.session {
            headers.push(("Mcp-Session-Id", sid));
            headers.push(("MCP-Protocol-Version", LEGACY));
        }
        let s = self.post(&headers, &message.to_string());
        if message.get("id").is_none() || message.get("method").is_none() {
            let r = s.finish();
            assert_eq!(r.status, 202, "{message}: {}", r.text());
            assert!(r.body.is_empty(), "{}", r.text());
            return;
        }
        if s.head.is_sse() {
            assert_eq!(s.status, 200);
            self.open.push((s, modern, false));
            return;
        }
        let r = s.finish();
        let answer = r.json();
        let status = match answer["error"]["code"].as_i64() {
            Some(code) if modern => mcp_raw_wire::http::status_for(code).as_u16(),
            _ => 200,
        };
        assert_eq!(r.status, status, "{message}: {}", r.text());
        self.ready.push_back(r.text());
    }

    /// A queued answer, or the next event with data on any open stream.
    fn recv_within(&mut self, d: Duration) -> Option<String> {
        if let Some(m) = self.ready.pop_front() {
            return Some(m);
        }
        let deadline = Instant::now() + d;
        while Instant::now() < deadline {
            if self.open.is_empty() {
                std::thread::sleep(Duration::from_millis(10));
                continue;
            }
            let mut i = 0;
            while i < self.open.len() {
                let (stream, modern, seen) = &mut self.open[i];
                match stream.next_within(Duration::from_millis(10)) {
                    Next::Event(e) if e.data.is_empty() => {}
                    Next::Event(e) => {
                        // The server waits for the first thing a modern request
                        // produces: an error first is a JSON answer with its status.
                        let m = e.json();
                        assert!(
                            !(*modern && !*seen && m.get("error").is_some()),
                            "a modern refusal on an SSE stream, not JSON with its status: {m}"
                        );
                        *seen = true;
                        return Some(e.data);
                    }
                    Next::End => {
                        self.open.remove(i);
                        continue;
                    }
                    Next::Quiet => {}
                }
                i += 1;
            }
        }
        None
    }
}

// ---- what every scenario says ----------------------------------------------------

/// The modern per-request `_meta`, with these client capabilities.
pub fn meta_with(caps: Value) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": caps,
        "io.modelcontextprotocol/clientInfo": {"name": "fixture-test", "version": "0"}
    })
}

/// `params` made modern (capabilities `{}`).
pub fn modern(params: Value) -> Value {
    modern_with(params, json!({}))
}

pub fn modern_with(mut params: Value, caps: Value) -> Value {
    params["_meta"] = meta_with(caps);
    params
}

/// What the server puts in every modern result's `_meta`.
pub fn server_info() -> Value {
    json!({"io.modelcontextprotocol/serverInfo": {"name": "mcp-raw", "version": env!("CARGO_PKG_VERSION")}})
}

pub fn error_of(r: &Value) -> (i64, String) {
    let e = &r["error"];
    assert!(e.is_object(), "expected an error response, got {r}");
    assert!(r.get("result").is_none());
    (
        e["code"].as_i64().unwrap(),
        e["message"].as_str().unwrap().to_owned(),
    )
}

pub fn text_of(result: &Value) -> &str {
    result["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text in {result}"))
}

pub fn call_tool(name: &str) -> Value {
    json!({"name": name})
}

/// Asserts `m` is `notifications/progress` step `i` (0, 50, 100 of 100) for `token`.
pub fn assert_progress(m: &Value, token: &Value, i: usize) {
    assert_eq!(m["jsonrpc"], "2.0");
    assert_eq!(m["method"], "notifications/progress", "{m}");
    assert!(m.get("id").is_none(), "a notification has no id: {m}");
    let p = &m["params"];
    assert_eq!(
        &p["progressToken"], token,
        "the token is echoed as sent: {m}"
    );
    assert_eq!(p["progress"].as_f64(), Some([0.0, 50.0, 100.0][i]), "{m}");
    assert_eq!(p["total"].as_f64(), Some(100.0), "{m}");
    assert_eq!(p["message"], format!("step {} of 3", i + 1));
}

/// The three `notifications/message` lines the fixture's logging tools send.
pub const LOG_LINES: [&str; 3] = [
    "Tool execution started",
    "Tool processing data",
    "Tool execution completed",
];

/// `m` is one of them, at level info.
pub fn assert_log(m: &Value, data: &str) {
    assert_eq!(
        m,
        &json!({"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":data}})
    );
}
