// Over 500 lines: one view, every kind of event it shows (heads, chunks, SSE fields, stderr, TLS, notes) side by side.
//! The text view of wire events: `>>>` what the client sent, `<<<` what the server
//! sent, each group stamped `[lane +seconds]`. Two modes, both renderings of the same
//! events:
//!
//! - **raw**: every byte as it crossed, line by line; invisible bytes are marked:
//!   `␍` a CR, `⟨BOM⟩` a byte order mark, `⟨xx⟩` a control byte or a byte that is not
//!   UTF-8. Chunk-size lines, SSE fields and JSON are shown exactly as sent. Each read
//!   or write starts a stamped line; an unstamped line follows a `\n` of the bytes.
//! - **readable** (the default): heads as sent (names in their case and order), a note
//!   per chunk, SSE fields, and each JSON payload re-indented with its keys in wire
//!   order; anything odd (stdout pollution, a CRLF line, a BOM) gets a note.

use super::decode::{Decoder, Fact, Source};
use super::event::{Dir, Event, Lane, LaneKind, What};
pub use super::pretty::{json_text, mark, pretty};
use super::recorder::Sink;
use crate::lock::Locked;
use serde_json::Value;
use std::collections::HashMap;
use std::io::Write;

/// ANSI styles; empty strings when colour is off.
pub struct Style {
    /// The `>>>` arrow.
    pub sent: &'static str,
    /// The `<<<` arrow.
    pub received: &'static str,
    /// Captions.
    pub caption: &'static str,
    /// A child's stderr.
    pub stderr: &'static str,
    /// JSON keys.
    pub key: &'static str,
    /// JSON strings.
    pub string: &'static str,
    /// JSON numbers.
    pub number: &'static str,
    /// `true`, `false`, `null`.
    pub literal: &'static str,
    /// Notes and stamps.
    pub dim: &'static str,
    /// Back to plain.
    pub reset: &'static str,
}

/// ANSI colours.
pub const COLOR: Style = Style {
    sent: "\x1b[1;34m",
    received: "\x1b[1;32m",
    caption: "\x1b[1;33m",
    // Dim italic, not red: a server's log is not an error because it is on stderr.
    stderr: "\x1b[2;3m",
    key: "\x1b[36m",
    string: "\x1b[32m",
    number: "\x1b[33m",
    literal: "\x1b[35m",
    dim: "\x1b[2m",
    reset: "\x1b[0m",
};

/// No escapes at all.
pub const PLAIN: Style = Style {
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

/// Whether `auto` colour is on for an output: it is a terminal, `NO_COLOR` is unset
/// (no-color.org), and `TERM` is not `dumb` (a terminal that cannot show escapes).
pub fn auto_color(is_terminal: bool) -> bool {
    is_terminal
        && std::env::var_os("NO_COLOR").is_none()
        && std::env::var("TERM").map_or(true, |t| t != "dumb")
}

/// A sink that renders events as text onto a writer (stdout for the client, stderr
/// for `serve --trace`).
pub struct TextView<W: Write + Send> {
    /// Where the text goes (stdout, or stderr for `serve --trace`).
    out: W,
    /// Colours, or none.
    style: &'static Style,
    /// Every byte verbatim, or the readable view.
    raw: bool,
    /// Readable mode: the facts of each lane.
    decoder: Decoder,
    /// Raw mode: the start of a line not yet complete, per lane and direction.
    partial: HashMap<(Lane, Dir), Vec<u8>>,
    /// Readable mode: has the HTTP message now being read shown any body?
    body_seen: HashMap<(Lane, Dir), bool>,
    /// `show --method/--id/--era`: only the messages kept, without their framing.
    select: Option<super::select::Select>,
    /// `show --explain`: each message and head annotated with its rule.
    explain: bool,
    /// With `explain`: the requests seen, so a response can say what it answers.
    asked: super::explain::Asked,
}

impl<W: Write + Send> TextView<W> {
    /// A view writing to `out`, coloured or not, readable or `raw`.
    pub fn new(out: W, color: bool, raw: bool) -> TextView<W> {
        TextView::with_max(out, color, raw, super::decode::DEFAULT_MAX_MESSAGE)
    }

    /// A view that holds messages up to `max` bytes whole (`--max-message-bytes`).
    pub fn with_max(out: W, color: bool, raw: bool, max: usize) -> TextView<W> {
        TextView {
            out,
            style: if color { &COLOR } else { &PLAIN },
            raw,
            decoder: Decoder::with_max(max),
            partial: HashMap::new(),
            body_seen: HashMap::new(),
            select: None,
            explain: false,
            asked: Default::default(),
        }
    }

    /// Only the messages `select` keeps (no heads, chunks or SSE framing), each
    /// shown as it was sent (raw) or re-indented.
    pub fn selecting(mut self, select: super::select::Select) -> Self {
        self.select = (!select.is_empty()).then_some(select);
        self
    }

    /// Annotate each message and head with what it is and the rule that governs it.
    pub fn explaining(mut self, explain: bool) -> Self {
        self.explain = explain;
        self
    }

    /// `--explain`'s captions for a payload, remembering requests for their answers.
    fn explanation(&mut self, bytes: &[u8], class: &super::classify::Class) -> String {
        if !self.explain {
            return String::new();
        }
        let answers = self.asked.answers(class);
        let value = serde_json::from_slice::<Value>(bytes).ok();
        super::explain::message(class, value.as_ref(), answers.as_deref())
            .iter()
            .map(|l| self.explain_line(l))
            .collect()
    }

    fn explain_line(&self, text: &str) -> String {
        // An explanation quotes the message (its method, a key): shown, not obeyed.
        let text = super::term::escape(text);
        format!("{}    ▸ {text}{}\n", self.style.caption, self.style.reset)
    }

    /// The selected-messages view of one event.
    fn render_selected(&mut self, e: &Event) -> String {
        let mut out = String::new();
        for fact in self.decoder.feed(e) {
            let Fact::Payload { bytes, class, .. } = fact else {
                continue;
            };
            let Some(select) = self.select.as_mut() else {
                break;
            };
            if !select.keep(&class) {
                continue;
            }
            let text = if self.raw {
                mark(&bytes, self.style)
            } else {
                json_text(&bytes, self.style)
            };
            out.push_str(&self.group(e, &text));
            let why = self.explanation(&bytes, &class);
            out.push_str(&why);
        }
        out
    }

    fn arrow(&self, dir: Dir) -> String {
        let s = self.style;
        let colour = match dir {
            Dir::ToServer => s.sent,
            Dir::ToClient => s.received,
        };
        format!("{colour}{}{}", dir.arrow(), s.reset)
    }

    /// `[c1 +0.004s] ` (or `[+0.004s] ` on stdio), dimmed.
    fn stamp(&self, e: &Event) -> String {
        let s = self.style;
        let secs = e.t.as_secs_f64();
        match e.lane.kind {
            // Many lanes of a kind (connections, a bridge's children): say which.
            _ if e.lane.kind == LaneKind::Http || e.lane.id > 0 => {
                format!("{}[{} +{secs:.3}s]{} ", s.dim, e.lane.label(), s.reset)
            }
            _ => format!("{}[+{secs:.3}s]{} ", s.dim, s.reset),
        }
    }

    /// Lines of text under the arrow, the first one stamped.
    fn group(&self, e: &Event, text: &str) -> String {
        let arrow = self.arrow(e.dir);
        let mut out = String::new();
        for (i, line) in text.split('\n').enumerate() {
            out.push_str(&arrow);
            if i == 0 {
                out.push(' ');
                out.push_str(&self.stamp(e));
                out.push_str(line);
            } else if !line.is_empty() {
                out.push(' ');
                out.push_str(line);
            }
            out.push('\n');
        }
        out
    }

    fn note(&self, text: &str) -> String {
        // A note may quote the peer (a parse error, a close reason).
        let text = super::term::escape(text);
        format!("{}    ({text}){}\n", self.style.dim, self.style.reset)
    }

    /// A TLS handshake's facts: what was negotiated on the lane's line, then the
    /// peer's chain, a certificate a line.
    fn tls_notes(&self, e: &Event, facts: &super::tls::TlsFacts) -> String {
        let mut out = self.lane_note(e, &facts.summary());
        for line in facts.chain_lines() {
            out.push_str(&self.note(&line));
        }
        out
    }

    fn lane_note(&self, e: &Event, what: &str) -> String {
        let s = self.style;
        let what = super::term::escape_line(what);
        format!(
            "{}··· [{} +{:.3}s] {what}{}\n",
            s.dim,
            e.lane.label(),
            e.t.as_secs_f64(),
            s.reset
        )
    }

    fn render_raw(&mut self, e: &Event) -> String {
        let key = (e.lane, e.dir);
        match &e.what {
            What::Open(peer) => self.lane_note(e, peer),
            What::Tls(facts) => self.tls_notes(e, facts),
            What::Intercept(i) => self.lane_note(e, &i.summary()),
            What::Close(why) => {
                let mut out = String::new();
                if let Some(rest) = self.partial.remove(&key).filter(|r| !r.is_empty()) {
                    out.push_str(&self.group(
                        e,
                        &format!(
                            "{}{}⟨no newline⟩{}",
                            mark(&rest, self.style),
                            self.style.dim,
                            self.style.reset
                        ),
                    ));
                }
                out.push_str(&self.lane_note(e, &format!("{} closed: {why}", e.dir.name())));
                out
            }
            What::Bytes(bytes) => {
                let buf = self.partial.entry(key).or_default();
                buf.extend_from_slice(bytes);
                // On HTTP a read ends the shown line (a body rarely ends in a newline,
                // and the next read starts a stamped line); a stdio line waits for its
                // `\n`.
                let cut = match e.lane.kind {
                    LaneKind::Http => buf.len(),
                    _ => match buf.iter().rposition(|b| *b == b'\n') {
                        Some(last) => last + 1,
                        None => return String::new(),
                    },
                };
                let complete: Vec<u8> = buf.drain(..cut).collect();
                let text = complete.strip_suffix(b"\n").unwrap_or(&complete);
                let lines: Vec<String> = text
                    .split(|b| *b == b'\n')
                    .map(|l| mark(l, self.style))
                    .collect();
                if e.lane.kind == LaneKind::Stderr {
                    return lines.iter().map(|l| self.stderr_line(l)).collect();
                }
                self.group(e, &lines.join("\n"))
            }
        }
    }

    fn stderr_line(&self, line: &str) -> String {
        let s = self.style;
        format!("{}    [server stderr] {line}{}\n", s.stderr, s.reset)
    }

    fn render_facts(&mut self, e: &Event) -> String {
        let mut out = String::new();
        match &e.what {
            What::Open(peer) => out.push_str(&self.lane_note(e, peer)),
            What::Tls(facts) => {
                out.push_str(&self.tls_notes(e, facts));
                if self.explain {
                    for l in facts.explain() {
                        out.push_str(&self.explain_line(&l));
                    }
                }
            }
            What::Intercept(i) => out.push_str(&self.lane_note(e, &i.summary())),
            What::Close(_) | What::Bytes(_) => {}
        }
        let key = (e.lane, e.dir);
        for fact in self.decoder.feed(e) {
            match fact {
                Fact::Head(head) => {
                    self.body_seen.insert(key, false);
                    let text = String::from_utf8_lossy(&head.raw);
                    // A header value is the peer's text: its control bytes are
                    // shown escaped (`\x1b`), never sent to the terminal.
                    let lines: Vec<String> = text
                        .trim_end_matches(['\r', '\n'])
                        .split('\n')
                        .map(|l| {
                            super::term::escape_line(l.strip_suffix('\r').unwrap_or(l)).into_owned()
                        })
                        .collect();
                    out.push_str(&self.group(e, &format!("{}\n", lines.join("\n"))));
                    if self.explain {
                        for l in super::explain::head(&head) {
                            out.push_str(&self.explain_line(&l));
                        }
                    }
                }
                Fact::Chunk { size, .. } => {
                    self.body_seen.insert(key, true);
                    out.push_str(&self.note(&match size {
                        0 => "last chunk".to_owned(),
                        n => format!("chunk: {n} bytes"),
                    }));
                }
                Fact::Sse(event) => {
                    self.body_seen.insert(key, true);
                    out.push_str(&self.group(e, &self.sse_text(&event)));
                }
                Fact::Payload {
                    bytes,
                    source,
                    odd,
                    class,
                } => {
                    self.body_seen.insert(key, true);
                    if source == Source::SseData {
                        if !class.is_message() {
                            out.push_str(&self.note(&format!("the data is {}", class.summary())));
                        }
                        let why = self.explanation(&bytes, &class);
                        out.push_str(&why);
                        continue;
                    }
                    out.push_str(&self.group(e, &json_text(&bytes, self.style)));
                    for n in notes(e, source, odd, &class) {
                        out.push_str(&self.note(&n));
                    }
                    let why = self.explanation(&bytes, &class);
                    out.push_str(&why);
                }
                Fact::TooLong { len } => {
                    out.push_str(&self.note(&format!(
                        "{len} bytes: longer than this view holds whole (--max-message-bytes); the record keeps them"
                    )));
                }
                Fact::Stderr(line) => {
                    out.push_str(
                        &self.stderr_line(&super::term::escape_line(&String::from_utf8_lossy(
                            &line,
                        ))),
                    );
                }
                Fact::End => {
                    if self.body_seen.remove(&key) == Some(false) {
                        out.push_str(&self.note("empty body"));
                    }
                }
                Fact::Invalid(why) => out.push_str(&self.note(&format!("not HTTP/1.1: {why}"))),
            }
        }
        if let What::Close(_) = &e.what {
            self.body_seen.remove(&key);
        }
        if let What::Close(why) = &e.what
            && e.lane.kind == LaneKind::Http
        {
            out.push_str(&self.lane_note(e, &format!("{} closed: {why}", e.dir.name())));
        }
        out
    }

    /// An SSE event: its lines as sent, the data re-indented when it is JSON.
    fn sse_text(&self, event: &super::sse::Event) -> String {
        let mut out = String::new();
        let mut data_shown = false;
        for line in &event.lines {
            match line {
                super::sse::Line::Comment(c) => {
                    out.push_str(&format!(":{}\n", super::term::escape_line(c)))
                }
                super::sse::Line::Field { name, .. } if name == "data" => {
                    if data_shown {
                        continue;
                    }
                    data_shown = true;
                    if event.data.is_empty() {
                        out.push_str(&format!(
                            "data:   {}(empty: a priming event){}\n",
                            self.style.dim, self.style.reset
                        ));
                    } else {
                        out.push_str("data: ");
                        out.push_str(&json_text(event.data.as_bytes(), self.style));
                        out.push('\n');
                    }
                }
                super::sse::Line::Field { name, value } if value.is_empty() => {
                    out.push_str(&format!("{}\n", super::term::escape_line(name)))
                }
                super::sse::Line::Field { name, value } => out.push_str(&format!(
                    "{}: {}\n",
                    super::term::escape_line(name),
                    super::term::escape_line(value)
                )),
            }
        }
        out
    }
}

/// What a reader should notice about a payload.
fn notes(
    e: &Event,
    source: Source,
    odd: super::line::Oddities,
    class: &super::classify::Class,
) -> Vec<String> {
    let mut out = Vec::new();
    if odd.bom {
        out.push("starts with a byte order mark: JSON text must not (RFC 8259 §8.1)".to_owned());
    }
    if odd.cr {
        out.push("ends in CRLF: the spec's line end is a bare \\n".to_owned());
    }
    if odd.not_utf8 {
        out.push("not UTF-8: MCP messages are UTF-8".to_owned());
    }
    match class.shape {
        "not-json" if source == Source::Line && e.dir == Dir::ToClient => out.push(
            "not JSON: stdout pollution (a stdio server's stdout carries protocol messages only; logs belong on stderr)".to_owned(),
        ),
        "not-json" => out.push(format!("not JSON: {}", class.problem.as_deref().unwrap_or(""))),
        "invalid" => out.push(format!("not JSON-RPC: {}", class.problem.as_deref().unwrap_or(""))),
        "blank" if source == Source::Line => out.push("a blank line".to_owned()),
        _ => {}
    }
    out
}

impl<W: Write + Send> Sink for TextView<W> {
    fn event(&mut self, event: &Event) {
        let text = if self.select.is_some() {
            self.render_selected(event)
        } else if self.raw {
            self.render_raw(event)
        } else {
            self.render_facts(event)
        };
        if !text.is_empty() {
            // A closed terminal (`| head`) is not worth a panic.
            let _ = self.out.write_all(text.as_bytes());
            let _ = self.out.flush();
        }
    }
}

/// Renders events (a transcript read back) as the text view, holding messages up to
/// `max` bytes whole.
pub fn render(events: &[Event], raw: bool, color: bool, max: usize) -> String {
    let buf = SharedBuf::default();
    let mut view = TextView::with_max(buf.clone(), color, raw, max);
    for e in events {
        view.event(e);
    }
    let out = buf.0.locked().clone();
    String::from_utf8_lossy(&out).into_owned()
}

/// A writer into shared memory.
#[derive(Clone, Default)]
pub struct SharedBuf(pub std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

impl Write for SharedBuf {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.locked().extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bytes::Bytes;
    use std::time::Duration;

    #[test]
    fn pretty_keeps_wire_order_and_plain_has_no_escapes() {
        let v: Value = serde_json::from_str(
            r#"{"jsonrpc":"2.0","id":1,"result":{"b":[1,true],"c":[{}],"a":{}}}"#,
        )
        .unwrap();
        let mut out = String::new();
        pretty(&v, 0, &PLAIN, &mut out);
        // 76 characters on one line: too wide, so the top level breaks; the result
        // fits and stays on one line, keys in wire order.
        assert_eq!(
            out,
            "{\n  \"jsonrpc\": \"2.0\",\n  \"id\": 1,\n  \"result\": {\"b\": [1, true], \"c\": [{}], \"a\": {}}\n}"
        );
        assert!(!out.contains('\x1b'));
        // Longer than INLINE_WIDTH: broken up, and what fits inside stays inline.
        let long: Value = serde_json::from_str(&format!(
            r#"{{"jsonrpc":"2.0","id":1,"result":{{"text":"{}","b":[1,true]}}}}"#,
            "x".repeat(60)
        ))
        .unwrap();
        let mut out = String::new();
        pretty(&long, 0, &PLAIN, &mut out);
        let text = format!("{:?}", "x".repeat(60));
        assert_eq!(
            out,
            format!(
                "{{\n  \"jsonrpc\": \"2.0\",\n  \"id\": 1,\n  \"result\": {{\n    \"text\": {text},\n    \"b\": [1, true]\n  }}\n}}"
            )
        );
    }

    #[test]
    fn raw_marks_what_cannot_be_seen_and_waits_for_whole_lines() {
        let lane = Lane {
            id: 0,
            kind: LaneKind::Stdio,
        };
        let ev = |ms: u64, b: &'static [u8]| Event {
            t: Duration::from_millis(ms),
            lane,
            dir: Dir::ToClient,
            what: What::Bytes(Bytes::from_static(b)),
        };
        let out = render(
            &[ev(1, b"\xEF\xBB\xBFa\r\n\xff"), ev(2, b"b\x01\n")],
            true,
            false,
            1024,
        );
        assert_eq!(out, "<<< [+0.001s] ⟨BOM⟩a␍\n<<< [+0.002s] ⟨ff⟩b⟨01⟩\n");
    }
}
