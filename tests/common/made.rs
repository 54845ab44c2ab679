//! Transcripts written by hand with known time stamps, for the figures `stats` and
//! `check`'s contracts compute: each event a line of the transcript format (version 4:
//! `t` in seconds, `lane`, `dir`, `text`), the bytes exactly as given.

use serde_json::{Value, json};

/// A transcript being written: its header, then its event lines.
pub struct Made {
    /// The lines so far.
    lines: Vec<String>,
}

impl Made {
    /// A transcript of `transport` (`stdio` or `http`) recorded by a client.
    pub fn new(transport: &str) -> Made {
        let header = json!({
            "transcript": "mcp-raw", "version": 4, "role": "client",
            "transport": transport, "started": "2026-01-01T00:00:00Z",
        });
        Made {
            lines: vec![header.to_string()],
        }
    }

    /// Bytes on `lane` in `dir` (`c2s`, `s2c`) at `ms` milliseconds.
    pub fn bytes(&mut self, ms: u64, lane: &str, dir: &str, text: &str) -> &mut Made {
        let t = ms as f64 / 1000.0;
        self.lines
            .push(json!({"t": t, "lane": lane, "dir": dir, "text": text}).to_string());
        self
    }

    /// One JSON-RPC message on stdio: its compact JSON and a newline.
    pub fn line(&mut self, ms: u64, dir: &str, message: Value) -> &mut Made {
        self.bytes(ms, "stdio", dir, &format!("{message}\n"))
    }

    /// A legacy HTTP POST carrying `message` on `lane`, with the session id if any.
    pub fn post(
        &mut self,
        ms: u64,
        lane: &str,
        session: Option<&str>,
        message: Value,
    ) -> &mut Made {
        let body = message.to_string();
        let session = session.map_or(String::new(), |s| format!("mcp-session-id: {s}\r\n"));
        let text = format!(
            "POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\naccept: application/json, text/event-stream\r\ncontent-type: application/json\r\nmcp-protocol-version: 2025-11-25\r\n{session}content-length: {}\r\n\r\n{body}",
            body.len()
        );
        self.bytes(ms, lane, "c2s", &text)
    }

    /// A JSON response on `lane`, issuing a session id if given.
    pub fn reply(&mut self, ms: u64, lane: &str, issue: Option<&str>, message: Value) -> &mut Made {
        let body = message.to_string();
        let session = issue.map_or(String::new(), |s| format!("mcp-session-id: {s}\r\n"));
        let text = format!(
            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n{session}content-length: {}\r\n\r\n{body}",
            body.len()
        );
        self.bytes(ms, lane, "s2c", &text)
    }

    /// The whole transcript.
    pub fn text(&self) -> String {
        self.lines.join("\n") + "\n"
    }

    /// Written to `path`.
    pub fn write(&self, path: &std::path::Path) {
        std::fs::write(path, self.text()).expect("the transcript written");
    }
}

/// A request.
pub fn request(id: u64, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

/// A result.
pub fn result(id: u64, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

/// A `tools/call` of `tool`.
pub fn call(id: u64, tool: &str) -> Value {
    request(id, "tools/call", json!({"name": tool, "arguments": {}}))
}

/// The legacy handshake on stdio at 0 ms (answered at 10 ms, by server "s" offering
/// tools, prompts and resources) and 11 ms.
pub fn handshake(m: &mut Made) {
    m.line(
        0,
        "c2s",
        request(
            1,
            "initialize",
            json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}),
        ),
    )
    .line(
        10,
        "s2c",
        result(
            1,
            json!({"protocolVersion": "2025-11-25", "capabilities": {"tools": {}, "prompts": {}, "resources": {}}, "serverInfo": {"name": "s", "version": "1"}}),
        ),
    )
    .line(
        11,
        "c2s",
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    );
}
