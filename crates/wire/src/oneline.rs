//! The one-line view of wire events (`--oneline`, `--trace oneline`): a line per
//! message, so a whole session reads as a table rather than as pages of JSON:
//!
//! ```text
//! >>> stdio  +0.004s request      tools/call echo            #2   -            78 B
//! <<< stdio  +0.005s response     tools/call echo            #2   ok          112 B  "Echo: hi"
//! >>> c1     +0.010s notification notifications/initialized  -    -            54 B
//! <<< c1     +0.011s http         POST /mcp                  -    202           0 B
//! <<< c2     +0.012s sse          GET /mcp                   -    200           0 B
//! ```
//!
//! The columns: direction, lane, time since the recording began, shape (a JSON-RPC
//! message's, as [`classify`](super::classify) reads it; `http` for an HTTP message
//! that carries none, such as a `202 Accepted` or a GET; `sse` when an event stream
//! begins, its messages then a line each; `framing` for bytes that break HTTP's),
//! method (for a response, the method of the request it answers; for `tools/call`,
//! the tool's name too; on HTTP, the request line of a message that is not JSON-RPC), id,
//! status (the HTTP status of the response carrying it, then `ok`, `isError` or
//! `error CODE`), the payload's size in bytes as it crossed, and for a `tools/call`
//! response the first line of its first text content. A stdio server's stderr is
//! not a message and gets no line (the text view shows it). Like every view it is a
//! rendering of the wire events, fed by the same [`Decoder`] as the text view; what
//! it quotes from the wire has its invisible bytes marked ([`mark`]), so a server
//! cannot write control sequences to the terminal through it.

use super::asked::Asked;
use super::decode::{Decoder, Fact};
use super::event::{Dir, Event, Lane};
use super::recorder::Sink;
use super::select::Select;
use super::text::{COLOR, PLAIN, Style, mark};
use crate::lock::Locked;
use serde_json::Value;
use std::collections::HashMap;
use std::io::Write;

/// The widest the method column gets before it is cut (with `…`).
const WHAT_WIDTH: usize = 40;
/// The widest a quoted result line gets before it is cut.
const RESULT_WIDTH: usize = 80;

/// What the view knows of the HTTP message being read on one lane and direction.
#[derive(Default)]
struct Current {
    /// A response's status code.
    status: Option<u16>,
    /// A request's method and target (`POST /mcp`), for a body that is not a message.
    request: Option<String>,
    /// Has a line been written for this HTTP message (a payload, or "too long")?
    shown: bool,
}

/// A sink that renders events as one line per message onto a writer.
pub struct OnelineView<W: Write + Send> {
    /// Where the lines go (stdout for the client and `show`, stderr for `--trace`).
    out: W,
    /// Colours, or none.
    style: &'static Style,
    /// The same reading of the bytes the text view uses: heads, SSE, payloads.
    decoder: Decoder,
    /// The HTTP message being read, per lane and direction.
    current: HashMap<(Lane, Dir), Current>,
    /// Per HTTP lane, the requests (`POST /mcp`) whose responses have not begun:
    /// HTTP/1.1 answers in order (RFC 9112 §9.3), so a response's line can name the
    /// request it answers.
    requests: HashMap<Lane, std::collections::VecDeque<String>>,
    /// Requests seen and not yet answered, by id (its JSON text): method and tool
    /// name, so that the line of a response says what it answers (bounded:
    /// `--max-unanswered`).
    asked: Asked<(String, Option<String>)>,
    /// `show --method/--id/--era`: only the messages kept (no `http` lines).
    select: Option<Select>,
}

impl<W: Write + Send> OnelineView<W> {
    /// A view writing to `out`, coloured or not, holding messages up to `max` bytes
    /// whole (`--max-message-bytes`).
    pub fn new(out: W, color: bool, max: usize) -> OnelineView<W> {
        OnelineView {
            out,
            style: if color { &COLOR } else { &PLAIN },
            decoder: Decoder::with_max(max),
            current: HashMap::new(),
            requests: HashMap::new(),
            asked: Asked::default(),
            select: None,
        }
    }

    /// Only the messages `select` keeps.
    pub fn selecting(mut self, select: Select) -> Self {
        self.select = (!select.is_empty()).then_some(select);
        self
    }

    /// The lines one event completes.
    fn render(&mut self, e: &Event) -> String {
        let key = (e.lane, e.dir);
        let mut out = String::new();
        for fact in self.decoder.feed(e) {
            match fact {
                Fact::Head(head) => {
                    let status = head.status();
                    let queue = self.requests.entry(e.lane).or_default();
                    let request = match head.method() {
                        Some(m) => {
                            let target = head.start_line.split(' ').nth(1).unwrap_or("");
                            let request = format!("{m} {target}");
                            queue.push_back(request.clone());
                            Some(request)
                        }
                        // A 1xx is not the answer: the final response follows.
                        None if status.is_some_and(|s| (100..200).contains(&s)) => {
                            queue.front().cloned()
                        }
                        None => queue.pop_front(),
                    };
                    // An event stream (a GET's, or a POST answered with SSE) stays
                    // open: its line is written now, each message then gets its own.
                    let stream = head
                        .header("content-type")
                        .is_some_and(|t| t.trim_start().starts_with("text/event-stream"));
                    if stream && self.select.is_none() {
                        let what = request.clone().unwrap_or_default();
                        let status = status.map(|s| s.to_string());
                        out.push_str(&self.line(e, "sse", &what, None, status.as_deref(), 0, ""));
                    }
                    self.current.insert(
                        key,
                        Current {
                            status,
                            request,
                            shown: stream,
                        },
                    );
                }
                Fact::Payload { bytes, class, .. } => {
                    if let Some(select) = self.select.as_mut()
                        && !select.keep(&class)
                    {
                        continue;
                    }
                    let current = self.current.get_mut(&key);
                    let status = current.as_ref().and_then(|c| c.status);
                    let request = current.as_ref().and_then(|c| c.request.clone());
                    if let Some(c) = current {
                        c.shown = true;
                    }
                    let line = self.message(e, &bytes, &class, status, request);
                    out.push_str(&line);
                }
                Fact::TooLong { len } if self.select.is_none() => {
                    let status = self.current.get_mut(&key).map(|c| {
                        c.shown = true;
                        c.status
                    });
                    let status = status.flatten().map(|s| s.to_string());
                    out.push_str(&self.line(e, "too-long", "", None, status.as_deref(), len, ""));
                }
                Fact::End if self.select.is_none() => {
                    if let Some(c) = self.current.remove(&key)
                        && !c.shown
                    {
                        let status = c.status.map(|s| s.to_string());
                        let what = c.request.unwrap_or_default();
                        out.push_str(&self.line(e, "http", &what, None, status.as_deref(), 0, ""));
                    }
                }
                Fact::End => {
                    self.current.remove(&key);
                }
                Fact::Invalid(why) if self.select.is_none() => {
                    let why = format!("  {}", mark(why.as_bytes(), &PLAIN));
                    out.push_str(&self.line(e, "framing", "", None, None, 0, &why));
                }
                _ => {}
            }
        }
        out
    }

    /// A message's line: what it is, read from its bytes.
    fn message(
        &mut self,
        e: &Event,
        bytes: &[u8],
        class: &super::classify::Class,
        http_status: Option<u16>,
        request: Option<String>,
    ) -> String {
        let id_key = class.id.as_ref().map(Value::to_string);
        let value = || serde_json::from_slice::<Value>(bytes).ok();
        let mut result_line = String::new();
        let mut status: Vec<String> = http_status.iter().map(u16::to_string).collect();
        let what = match class.shape {
            "request" | "notification" => {
                let method = class.method.clone().unwrap_or_default();
                // tools/call: the tool's name is what a reader looks for
                // (MCP `server/tools` "Calling Tools": `params.name`).
                let tool = (method == "tools/call")
                    .then(value)
                    .flatten()
                    .and_then(|v| v["params"]["name"].as_str().map(str::to_owned));
                if let Some(id) = &id_key {
                    self.asked.ask(id.clone(), (method.clone(), tool.clone()));
                }
                join(&method, tool.as_deref())
            }
            "response" | "error" => {
                let asked = id_key.as_ref().and_then(|id| self.asked.answer(id));
                let parsed = value();
                if class.shape == "error" {
                    status.push(format!("error {}", class.code.unwrap_or_default()));
                } else if parsed
                    .as_ref()
                    .is_some_and(|v| v["result"]["isError"] == Value::Bool(true))
                {
                    // A tool's own failure travels as a result (MCP `server/tools`
                    // "Error Handling": `isError: true`), not as a JSON-RPC error.
                    status.push("isError".to_owned());
                } else {
                    status.push("ok".to_owned());
                }
                match asked {
                    Some((method, tool)) => {
                        if method == "tools/call"
                            && let Some(text) = parsed.as_ref().and_then(first_text_line)
                        {
                            result_line =
                                format!("  \"{}\"", cut(&mark(text, &PLAIN), RESULT_WIDTH));
                        }
                        join(&method, tool.as_deref())
                    }
                    None => String::new(),
                }
            }
            // A body that is not JSON-RPC (an OAuth form or document): the request
            // it belongs to names it.
            _ => request.unwrap_or_default(),
        };
        let status = (!status.is_empty()).then(|| status.join(" "));
        let id = id_key.as_deref();
        self.line(
            e,
            class.shape,
            &what,
            id,
            status.as_deref(),
            bytes.len(),
            &result_line,
        )
    }

    /// One line, its columns padded so that a session reads as a table.
    #[allow(clippy::too_many_arguments)]
    fn line(
        &self,
        e: &Event,
        shape: &str,
        what: &str,
        id: Option<&str>,
        status: Option<&str>,
        size: usize,
        tail: &str,
    ) -> String {
        let s = self.style;
        let arrow = match e.dir {
            Dir::ToServer => s.sent,
            Dir::ToClient => s.received,
        };
        let what = cut(&mark(what.as_bytes(), &PLAIN), WHAT_WIDTH);
        let id = id.map_or("-".to_owned(), |id| {
            format!("#{}", mark(id.as_bytes(), &PLAIN))
        });
        format!(
            "{arrow}{}{} {:<6} {}{:>9}{} {:<12} {:<26} {:<4} {:<12} {:>7} B{tail}\n",
            e.dir.arrow(),
            s.reset,
            e.lane.label(),
            s.dim,
            format!("+{:.3}s", e.t.as_secs_f64()),
            s.reset,
            shape,
            what,
            id,
            status.unwrap_or("-"),
            size,
        )
    }
}

/// `tools/call echo`, or the method alone.
fn join(method: &str, tool: Option<&str>) -> String {
    match tool {
        Some(tool) => format!("{method} {tool}"),
        None => method.to_owned(),
    }
}

/// The first line of a `tools/call` result's first text content
/// (`result.content[].text`), if it has one.
fn first_text_line(v: &Value) -> Option<&[u8]> {
    let text = v["result"]["content"]
        .as_array()?
        .iter()
        .find(|c| c["type"] == "text")?["text"]
        .as_str()?;
    Some(text.split('\n').next().unwrap_or("").as_bytes())
}

/// `text` cut to `width` characters, `…` marking the cut.
fn cut(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        return text.to_owned();
    }
    let mut out: String = text.chars().take(width - 1).collect();
    out.push('…');
    out
}

impl<W: Write + Send> Sink for OnelineView<W> {
    fn event(&mut self, event: &Event) {
        let text = self.render(event);
        if !text.is_empty() {
            // A closed terminal (`| head`) is not worth a panic.
            let _ = self.out.write_all(text.as_bytes());
            let _ = self.out.flush();
        }
    }
}

/// Renders events (a transcript read back) as the one-line view.
pub fn render(events: &[Event], color: bool, max: usize) -> String {
    let buf = super::text::SharedBuf::default();
    let mut view = OnelineView::new(buf.clone(), color, max);
    for e in events {
        view.event(e);
    }
    let out = buf.0.locked().clone();
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::{LaneKind, What};
    use bytes::Bytes;
    use std::time::Duration;

    fn ev(ms: u64, lane: Lane, dir: Dir, b: &'static [u8]) -> Event {
        Event {
            t: Duration::from_millis(ms),
            lane,
            dir,
            what: What::Bytes(Bytes::from_static(b)),
        }
    }

    #[test]
    fn a_tools_call_and_its_answer_are_a_line_each() {
        let stdio = Lane {
            id: 0,
            kind: LaneKind::Stdio,
        };
        let call = b"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"message\":\"hi\"}}}\n";
        let answer = b"{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"Echo: hi\\u001b[2J\\nmore\"}]}}\n";
        let out = render(
            &[
                ev(4, stdio, Dir::ToServer, call),
                ev(5, stdio, Dir::ToClient, answer),
            ],
            false,
            1024,
        );
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), 2, "{out}");
        let words: Vec<&str> = lines[0].split_whitespace().collect();
        assert_eq!(
            words,
            [
                ">>>",
                "stdio",
                "+0.004s",
                "request",
                "tools/call",
                "echo",
                "#2",
                "-"
            ]
            .iter()
            .copied()
            .chain([(call.len() - 1).to_string().as_str(), "B"])
            .collect::<Vec<_>>()
        );
        assert!(
            lines[1].starts_with("<<< stdio    +0.005s response"),
            "{out}"
        );
        assert!(lines[1].contains("tools/call echo"), "{out}");
        assert!(
            lines[1].contains(&format!(" {} B", answer.len() - 1)),
            "{out}"
        );
        // The first line of the text only, its escape byte marked, never raw.
        assert!(lines[1].ends_with("\"Echo: hi⟨1b⟩[2J\""), "{out}");
        assert!(!out.contains('\x1b'));
    }

    #[test]
    fn http_says_the_status_and_a_message_less_answer_gets_its_line() {
        let c1 = Lane {
            id: 1,
            kind: LaneKind::Http,
        };
        let post = b"POST /mcp HTTP/1.1\r\nContent-Length: 54\r\n\r\n{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}";
        let accepted = b"HTTP/1.1 202 Accepted\r\ncontent-length: 0\r\n\r\n";
        let call = b"POST /mcp HTTP/1.1\r\nContent-Length: 48\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"method\":\"tools/list\"}";
        let error = b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 77\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"error\":{\"code\":-32601,\"message\":\"no such method\"}}";
        let out = render(
            &[
                ev(1, c1, Dir::ToServer, post),
                ev(2, c1, Dir::ToClient, accepted),
                ev(3, c1, Dir::ToServer, call),
                ev(4, c1, Dir::ToClient, error),
            ],
            false,
            1024,
        );
        let lines: Vec<Vec<&str>> = out
            .lines()
            .map(|l| l.split_whitespace().collect())
            .collect();
        assert_eq!(lines.len(), 4, "{out}");
        assert_eq!(
            lines[0][3..5],
            ["notification", "notifications/initialized"]
        );
        assert_eq!(
            lines[1][3..9],
            ["http", "POST", "/mcp", "-", "202", "0"],
            "{out}"
        );
        assert_eq!(lines[2][3..6], ["request", "tools/list", "#\"a\""]);
        assert_eq!(
            lines[3][3..9],
            ["error", "tools/list", "#\"a\"", "200", "error", "-32601"],
            "{out}"
        );
    }
}
