//! The wire printer both demos share. `>>>` marks what the client sent, `<<<` what it
//! received. By default each JSON message is re-indented for reading (keys keep their
//! wire order); `--raw` prints the exact bytes instead. Colour only on a terminal.

use serde_json::Value;
use std::io::{IsTerminal, Write};

/// When to colour the output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

impl ColorChoice {
    /// `auto` means: stdout is a terminal and `NO_COLOR` is unset (no-color.org).
    pub fn enabled(self) -> bool {
        match self {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => {
                std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none()
            }
        }
    }
}

/// ANSI styles; empty strings when colour is off.
struct Style {
    sent: &'static str,
    received: &'static str,
    caption: &'static str,
    stderr: &'static str,
    key: &'static str,
    string: &'static str,
    number: &'static str,
    literal: &'static str,
    dim: &'static str,
    reset: &'static str,
}

const COLOR: Style = Style {
    sent: "\x1b[1;34m",
    received: "\x1b[1;32m",
    caption: "\x1b[1;33m",
    stderr: "\x1b[2;31m",
    key: "\x1b[36m",
    string: "\x1b[32m",
    number: "\x1b[33m",
    literal: "\x1b[35m",
    dim: "\x1b[2m",
    reset: "\x1b[0m",
};

const PLAIN: Style = Style {
    sent: "",
    received: "",
    caption: "",
    stderr: "",
    key: "",
    string: "",
    number: "",
    literal: "",
    dim: "",
    reset: "",
};

/// Which way a message travelled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    Sent,
    Received,
}

#[derive(Clone, Copy)]
pub struct Printer {
    style: &'static Style,
    raw: bool,
    /// Prints nothing at all: for programs that use the client as a library.
    quiet: bool,
}

impl Printer {
    pub fn new(color: bool, raw: bool) -> Self {
        Printer {
            style: if color { &COLOR } else { &PLAIN },
            raw,
            quiet: false,
        }
    }

    /// A printer that shows nothing.
    pub fn quiet() -> Self {
        Printer {
            quiet: true,
            ..Printer::new(false, false)
        }
    }

    /// A one-line caption saying what the reader is about to see.
    pub fn caption(&self, text: &str) {
        let s = self.style;
        self.out(&format!("\n{}# {text}{}\n", s.caption, s.reset));
    }

    /// A remark inside a step (what did not happen, what to notice).
    pub fn note(&self, text: &str) {
        let s = self.style;
        self.out(&format!("{}    ({text}){}\n", s.dim, s.reset));
    }

    /// One JSON-RPC message as it crossed the wire.
    pub fn message(&self, direction: Direction, bytes: &[u8]) {
        let arrow = self.arrow(direction);
        self.out(&indent_under(&arrow, &self.json_text(bytes)));
    }

    /// A line the server wrote to its stderr: logs, never protocol.
    pub fn server_stderr(&self, line: &str) {
        let s = self.style;
        self.out(&format!(
            "{}    [server stderr] {line}{}\n",
            s.stderr, s.reset
        ));
    }

    /// An HTTP request: request line, headers, blank line, body.
    pub fn http_request(&self, head: &hyper::http::request::Parts, body: &[u8]) {
        let mut text = format!("{} {} HTTP/1.1\n", head.method, head.uri);
        for (name, value) in &head.headers {
            text.push_str(&format!(
                "{name}: {}\n",
                String::from_utf8_lossy(value.as_bytes())
            ));
        }
        self.http_message(Direction::Sent, text, body, false);
    }

    /// An HTTP response: status line, headers, blank line, body. An SSE body is shown
    /// as its raw lines, then each event's data decoded.
    pub fn http_response(&self, head: &hyper::http::response::Parts, body: &[u8]) {
        let reason = head.status.canonical_reason().unwrap_or("");
        let mut text = format!("HTTP/1.1 {} {reason}\n", head.status.as_u16());
        for (name, value) in &head.headers {
            text.push_str(&format!(
                "{name}: {}\n",
                String::from_utf8_lossy(value.as_bytes())
            ));
        }
        let is_sse = head
            .headers
            .get(hyper::header::CONTENT_TYPE)
            .is_some_and(|v| v.as_bytes().starts_with(b"text/event-stream"));
        self.http_message(Direction::Received, text, body, is_sse);
    }

    fn http_message(&self, direction: Direction, mut head: String, body: &[u8], is_sse: bool) {
        let arrow = self.arrow(direction);
        head.push('\n');
        if body.is_empty() {
            head.push_str(&format!(
                "{}(empty body){}",
                self.style.dim, self.style.reset
            ));
        } else if is_sse {
            let text = String::from_utf8_lossy(body);
            head.push_str(text.trim_end_matches('\n'));
            for event in crate::wire::sse::decode(&text) {
                head.push_str(&format!(
                    "\n{}  ↳ event data, decoded:{}\n",
                    self.style.dim, self.style.reset
                ));
                head.push_str(&self.json_text(event.data.as_bytes()));
            }
        } else {
            head.push_str(&self.json_text(body));
        }
        self.out(&indent_under(&arrow, &head));
    }

    fn arrow(&self, direction: Direction) -> String {
        let s = self.style;
        match direction {
            Direction::Sent => format!("{}>>>{}", s.sent, s.reset),
            Direction::Received => format!("{}<<<{}", s.received, s.reset),
        }
    }

    /// The JSON view of some bytes: exact (`--raw`) or re-indented and coloured.
    /// Bytes that are not JSON are shown as they are.
    fn json_text(&self, bytes: &[u8]) -> String {
        let text = String::from_utf8_lossy(bytes);
        if self.raw {
            return text.into_owned();
        }
        match serde_json::from_slice::<Value>(bytes) {
            Ok(v) => {
                let mut out = String::new();
                pretty(&v, 0, self.style, &mut out);
                out
            }
            Err(_) => text.into_owned(),
        }
    }

    fn out(&self, text: &str) {
        if self.quiet {
            return;
        }
        // A closed stdout (`| head`) is not worth a panic.
        let mut stdout = std::io::stdout().lock();
        let _ = stdout.write_all(text.as_bytes());
        let _ = stdout.flush();
    }
}

/// Puts `arrow` before every line of `text`, so the direction stays visible.
fn indent_under(arrow: &str, text: &str) -> String {
    let mut out = String::new();
    for line in text.lines() {
        out.push_str(arrow);
        if !line.is_empty() {
            out.push(' ');
            out.push_str(line);
        }
        out.push('\n');
    }
    out
}

/// Two-space indented JSON with the keys in the order they came.
fn pretty(v: &Value, depth: usize, s: &Style, out: &mut String) {
    let pad = |d: usize| "  ".repeat(d);
    match v {
        Value::Object(map) if !map.is_empty() => {
            out.push_str("{\n");
            for (i, (k, v)) in map.iter().enumerate() {
                out.push_str(&pad(depth + 1));
                out.push_str(&format!(
                    "{}{}{}: ",
                    s.key,
                    Value::String(k.clone()),
                    s.reset
                ));
                pretty(v, depth + 1, s, out);
                out.push_str(if i + 1 < map.len() { ",\n" } else { "\n" });
            }
            out.push_str(&pad(depth));
            out.push('}');
        }
        // A short array of plain values stays on one line: `["a", "b"]`.
        Value::Array(items)
            if !items.is_empty() && items.iter().all(is_scalar) && v.to_string().len() <= 60 =>
        {
            out.push('[');
            for (i, v) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                pretty(v, depth, s, out);
            }
            out.push(']');
        }
        Value::Array(items) if !items.is_empty() => {
            out.push_str("[\n");
            for (i, v) in items.iter().enumerate() {
                out.push_str(&pad(depth + 1));
                pretty(v, depth + 1, s, out);
                out.push_str(if i + 1 < items.len() { ",\n" } else { "\n" });
            }
            out.push_str(&pad(depth));
            out.push(']');
        }
        Value::String(_) => out.push_str(&format!("{}{v}{}", s.string, s.reset)),
        Value::Number(_) => out.push_str(&format!("{}{v}{}", s.number, s.reset)),
        Value::Bool(_) | Value::Null => out.push_str(&format!("{}{v}{}", s.literal, s.reset)),
        _ => out.push_str(&format!("{}{v}{}", s.dim, s.reset)),
    }
}

fn is_scalar(v: &Value) -> bool {
    !(v.is_array() || v.is_object())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pretty_keeps_wire_order_and_plain_has_no_escapes() {
        let v: Value = serde_json::from_str(
            r#"{"jsonrpc":"2.0","id":1,"result":{"b":[1,true],"c":[{}],"a":{}}}"#,
        )
        .unwrap();
        let mut out = String::new();
        pretty(&v, 0, &PLAIN, &mut out);
        assert_eq!(
            out,
            "{\n  \"jsonrpc\": \"2.0\",\n  \"id\": 1,\n  \"result\": {\n    \"b\": [1, true],\n    \"c\": [\n      {}\n    ],\n    \"a\": {}\n  }\n}"
        );
        assert!(!out.contains('\x1b'));
    }

    #[test]
    fn every_line_gets_the_arrow() {
        assert_eq!(indent_under(">>>", "a\n\nb"), ">>> a\n>>>\n>>> b\n");
    }
}
