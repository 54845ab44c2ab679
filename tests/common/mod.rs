//! Helpers shared by the integration tests: spawn the real binary, talk raw bytes.
#![allow(dead_code)]

use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

pub const BIN: &str = env!("CARGO_BIN_EXE_mcp-raw");

/// `mcp-raw serve --http --port 0 ...`, killed on drop.
pub struct HttpServer {
    child: Child,
    pub addr: String,
    /// Everything the server wrote on stderr so far.
    pub log: std::sync::Arc<std::sync::Mutex<String>>,
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl HttpServer {
    pub fn start(extra: &[&str]) -> HttpServer {
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
        let addr = loop {
            let line = lines
                .next()
                .expect("server exited before listening")
                .unwrap();
            if let Some(rest) = line.split("listening on http://").nth(1) {
                break rest.trim_end_matches("/mcp").to_owned();
            }
        };
        // Keep draining stderr so the server never blocks on a full pipe.
        let log = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
        let keep = log.clone();
        std::thread::spawn(move || {
            for line in lines.map_while(Result::ok) {
                let mut log = keep.lock().unwrap();
                log.push_str(&line);
                log.push('\n');
            }
        });
        HttpServer { child, addr, log }
    }

    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// What the server logged so far.
    pub fn logged(&self) -> String {
        self.log.lock().unwrap().clone()
    }

    /// Whether the process is still running.
    pub fn alive(&mut self) -> bool {
        self.child.try_wait().unwrap().is_none()
    }

    /// Sends raw request bytes on a fresh connection and reads the whole response.
    pub fn raw(&self, request: &[u8]) -> HttpReply {
        let mut stream = TcpStream::connect(&self.addr).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        stream.write_all(request).unwrap();
        let mut bytes = Vec::new();
        stream.read_to_end(&mut bytes).unwrap();
        HttpReply::parse(&bytes)
    }

    /// A POST /mcp with the usual headers plus `extra` header lines.
    pub fn post(&self, extra: &[(&str, &str)], body: &str) -> HttpReply {
        let mut headers = vec![
            ("Accept", "application/json, text/event-stream"),
            ("Content-Type", "application/json"),
        ];
        headers.extend_from_slice(extra);
        self.request("POST", &headers, body)
    }

    /// Any request to /mcp with exactly these headers (plus Host, Content-Length and
    /// Connection: close).
    pub fn request(&self, method: &str, headers: &[(&str, &str)], body: &str) -> HttpReply {
        let mut req = format!(
            "{method} /mcp HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n",
            self.addr
        );
        for (k, v) in headers {
            req.push_str(&format!("{k}: {v}\r\n"));
        }
        req.push_str(&format!("Content-Length: {}\r\n\r\n{body}", body.len()));
        self.raw(req.as_bytes())
    }

    /// initialize + notifications/initialized; returns the session id.
    pub fn open_session(&self, version: &str) -> String {
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

/// A parsed HTTP/1.1 response.
#[derive(Debug)]
pub struct HttpReply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl HttpReply {
    fn parse(bytes: &[u8]) -> HttpReply {
        let split = bytes
            .windows(4)
            .position(|w| w == b"\r\n\r\n")
            .expect("no end of head");
        let head = std::str::from_utf8(&bytes[..split]).unwrap();
        let mut lines = head.split("\r\n");
        let status_line = lines.next().unwrap();
        assert!(status_line.starts_with("HTTP/1.1 "), "{status_line}");
        let status = status_line[9..12].parse().unwrap();
        let headers = lines
            .map(|l| {
                let (k, v) = l.split_once(':').unwrap();
                (k.to_ascii_lowercase(), v.trim().to_owned())
            })
            .collect();
        HttpReply {
            status,
            headers,
            body: bytes[split + 4..].to_vec(),
        }
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|e| panic!("{e}: {}", self.text()))
    }

    /// The data of each SSE event in the body, as JSON.
    pub fn sse_messages(&self) -> Vec<Value> {
        self.text()
            .split("\n\n")
            .filter(|e| !e.trim().is_empty())
            .map(|e| {
                let data: Vec<&str> = e.lines().filter_map(|l| l.strip_prefix("data: ")).collect();
                serde_json::from_str(&data.join("\n")).unwrap()
            })
            .collect()
    }
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
