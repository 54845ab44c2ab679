//! Server-Sent Events (WHATWG HTML "Server-sent events", the format Streamable HTTP
//! uses for `text/event-stream` bodies), both directions.
//!
//! ```text
//! id: 1-0            a field: name, colon, one optional space, value
//! data:              an empty data line: the priming event MCP streams start with
//!                    a blank line ends the event
//! : keep-alive       a comment line
//! retry: 3000
//! data: {"jsonrpc":"2.0",
//! data:  "id":1}     two data lines: the value is joined with "\n"
//!
//! ```
//!
//! [`encode`] frames a message; [`Decoder`] reads a stream incrementally, yielding
//! each event the moment its blank line arrives (a byte stream can be cut anywhere,
//! even between a CR and its LF), and keeps everything that travelled: every line in
//! order (comments, unknown fields, an `id:` with no `data:`) and the event's exact
//! bytes. Lines end with CRLF, LF or a lone CR, as the WHATWG parser accepts.

/// Frames one message as an SSE event: `data: <json>\n\n`. A message holding
/// newlines (pretty JSON) is split over several `data:` lines, which the reader
/// joins back with `\n`.
pub fn encode_event(data: &[u8]) -> Vec<u8> {
    encode(None, None, data)
}

/// Frames one compact JSON message as an SSE event, the message written in place by
/// `write` (no copy): compact JSON holds no newline, so it is one `data:` line, what
/// [`encode_event`] makes of it.
pub fn encode_json_event(write: impl FnOnce(&mut Vec<u8>)) -> Vec<u8> {
    let mut out = Vec::with_capacity(512);
    out.extend_from_slice(b"data: ");
    write(&mut out);
    out.extend_from_slice(b"\n\n");
    out
}

/// An event with an `id:` (what a client resumes from with `Last-Event-ID`) and a
/// `retry:` (milliseconds to wait before reconnecting), when given.
pub fn encode(id: Option<&str>, retry: Option<u64>, data: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(data.len() + 32);
    if let Some(id) = id {
        out.extend_from_slice(format!("id: {id}\n").as_bytes());
    }
    if let Some(ms) = retry {
        out.extend_from_slice(format!("retry: {ms}\n").as_bytes());
    }
    for line in data.split(|b| *b == b'\n') {
        out.extend_from_slice(b"data: ");
        out.extend_from_slice(line);
        out.push(b'\n');
    }
    out.push(b'\n');
    out
}

/// One line of an event, as it was sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Line {
    /// `name: value` (or `name` alone, whose value is empty). Unknown names are kept:
    /// a reader ignores them, a wire view shows them.
    Field {
        /// The field's name (`data`, `id`, `event`, `retry`, or another).
        name: String,
        /// Its value, the one space after the colon removed.
        value: String,
    },
    /// `: text` — ignored by readers; servers send them as keep-alives.
    Comment(String),
}

/// One event: what a reader makes of it, and what travelled.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Event {
    /// `id:` — what a client would send back as `Last-Event-ID` to resume.
    pub id: Option<String>,
    /// `event:` — the type; absent means `message`.
    pub event: Option<String>,
    /// The `data:` lines, joined with `\n`.
    pub data: String,
    /// `retry:` — milliseconds a client waits before reconnecting (digits only).
    pub retry: Option<u64>,
    /// Every line of the event, in order, comments included.
    pub lines: Vec<Line>,
    /// The exact bytes of the event, its ending blank line (and a leading BOM, for the
    /// first) included: the raw bytes of all events of a stream, in order, are the
    /// stream.
    pub raw: Vec<u8>,
}

impl Event {
    /// Does it carry any field? (A block of comments, or a stray blank line, does not.)
    pub fn has_fields(&self) -> bool {
        self.lines.iter().any(|l| matches!(l, Line::Field { .. }))
    }

    /// Is this event a message for the reader: any `data:` line? (WHATWG dispatches
    /// only those; MCP's priming event is the exception a wire view shows.)
    pub fn has_data(&self) -> bool {
        self.lines
            .iter()
            .any(|l| matches!(l, Line::Field { name, .. } if name == "data"))
    }

    fn take_line(&mut self, text: &str) {
        let line = match text.strip_prefix(':') {
            Some(comment) => Line::Comment(comment.to_owned()),
            None => {
                let (name, value) = match text.split_once(':') {
                    Some((n, v)) => (n, v.strip_prefix(' ').unwrap_or(v)),
                    None => (text, ""),
                };
                match name {
                    "data" if self.has_data() => {
                        self.data.push('\n');
                        self.data.push_str(value);
                    }
                    "data" => self.data.push_str(value),
                    // An id holding NUL is ignored (WHATWG "id" field).
                    "id" if !value.contains('\0') => self.id = Some(value.to_owned()),
                    "event" => self.event = Some(value.to_owned()),
                    "retry" if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) => {
                        self.retry = value.parse().ok();
                    }
                    _ => {}
                }
                Line::Field {
                    name: name.to_owned(),
                    value: value.to_owned(),
                }
            }
        };
        self.lines.push(line);
    }
}

/// Reads an event stream as its bytes arrive.
#[derive(Debug, Default)]
pub struct Decoder {
    /// Bytes received and not yet part of a yielded event.
    buf: Vec<u8>,
    /// How far into `buf` lines have been taken into `current`.
    taken: usize,
    /// The event being read.
    current: Event,
    /// Past the start of the stream, where a BOM may stand.
    started: bool,
}

/// The UTF-8 byte order mark, skipped at the start of a stream.
const BOM: &[u8] = b"\xEF\xBB\xBF";

impl Decoder {
    /// A decoder at the start of a stream.
    pub fn new() -> Self {
        Decoder::default()
    }

    /// Takes the next bytes of the stream; returns every event they complete, in
    /// order. A blank line with nothing before it is returned too, as an event with no
    /// lines, so that no byte goes unaccounted for.
    pub fn feed(&mut self, bytes: &[u8]) -> Vec<Event> {
        self.buf.extend_from_slice(bytes);
        if !self.started {
            if self.buf.len() < BOM.len() && BOM.starts_with(&self.buf) {
                return Vec::new();
            }
            if self.buf.starts_with(BOM) {
                self.taken = BOM.len();
            }
            self.started = true;
        }
        let mut events = Vec::new();
        while let Some((end, next)) = line_end(&self.buf[self.taken..]) {
            let (start, stop) = (self.taken, self.taken + end);
            self.taken += next;
            if stop == start {
                // A blank line: the event ends here.
                let mut event = std::mem::take(&mut self.current);
                event.raw = self.buf.drain(..self.taken).collect();
                self.taken = 0;
                events.push(event);
            } else {
                let text = String::from_utf8_lossy(&self.buf[start..stop]).into_owned();
                self.current.take_line(&text);
            }
        }
        events
    }

    /// The stream ended: the event still open, if anything of it arrived (a reader
    /// drops it, WHATWG says; a wire view shows it as cut off).
    pub fn finish(&mut self) -> Option<Event> {
        if self.buf.is_empty() {
            return None;
        }
        let rest = self.buf.split_off(self.taken);
        let mut event = std::mem::take(&mut self.current);
        if !rest.is_empty() {
            let text = String::from_utf8_lossy(rest.strip_suffix(b"\r").unwrap_or(&rest));
            event.take_line(&text);
        }
        event.raw = std::mem::take(&mut self.buf);
        event.raw.extend_from_slice(&rest);
        self.taken = 0;
        Some(event)
    }

    /// The bytes received that no yielded event holds yet.
    pub fn pending(&self) -> &[u8] {
        &self.buf
    }
}

/// Where the first line of `bytes` ends: (end of its text, start of the next line).
/// A CR as the last byte may be the first half of a CRLF: not a line end yet.
fn line_end(bytes: &[u8]) -> Option<(usize, usize)> {
    let i = bytes.iter().position(|b| *b == b'\n' || *b == b'\r')?;
    match (bytes[i], bytes.get(i + 1)) {
        (b'\n', _) => Some((i, i + 1)),
        (_, Some(b'\n')) => Some((i, i + 2)),
        (_, Some(_)) => Some((i, i + 1)),
        (_, None) => None,
    }
}

/// Decodes a whole `text/event-stream` body into the events a reader acts on: those
/// with at least one field (comment blocks and stray blank lines are skipped), ended
/// by their blank line.
pub fn decode(body: &str) -> Vec<Event> {
    let mut decoder = Decoder::new();
    let mut events = decoder.feed(body.as_bytes());
    // A lone CR at the very end is a line end after all.
    if decoder.pending().ends_with(b"\r") {
        events.extend(decoder.feed(b"\n"));
    }
    events.retain(Event::has_fields);
    events
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_message_one_event() {
        assert_eq!(encode_event(br#"{"a":1}"#), b"data: {\"a\":1}\n\n");
    }

    #[test]
    fn round_trip_with_newlines_and_fields() {
        let mut body = String::from("id: 7\nretry: 100\n: a comment\n");
        body.push_str(std::str::from_utf8(&encode_event(b"line1\nline2")).unwrap());
        body.push_str("data:x\r\n\r\n");
        let events = decode(&body);
        assert_eq!(events.len(), 2);
        assert_eq!(events[0].id.as_deref(), Some("7"));
        assert_eq!(events[0].retry, Some(100));
        assert_eq!(events[0].data, "line1\nline2");
        assert_eq!(events[1].data, "x");
    }

    /// A stream with every kind of line, cut into pieces at every byte: the same
    /// events, each yielded as soon as its blank line is in, and the raw bytes of the
    /// events add up to the stream.
    #[test]
    fn every_field_kept_whatever_the_cuts() {
        let stream: &[u8] = b"\xEF\xBB\xBF: hello\r\n\r\nid: 1-0\ndata:\n\nevent: note\rretry: 250\r\ndata: {\"a\":\ndata:  1}\nx-unknown\n\nid: a\0b\nretry: 1x\ndata: y\n\n";
        for cut in 1..stream.len() {
            let mut d = Decoder::new();
            let mut events = d.feed(&stream[..cut]);
            events.extend(d.feed(&stream[cut..]));
            assert!(d.finish().is_none(), "cut {cut}");
            assert_eq!(events.len(), 4, "cut {cut}: {events:?}");
            let raw: Vec<u8> = events.iter().flat_map(|e| e.raw.clone()).collect();
            assert_eq!(raw, stream, "cut {cut}");
            assert_eq!(events[0].lines, vec![Line::Comment(" hello".into())]);
            assert!(!events[0].has_fields());
            // The priming event: an id and one empty data line.
            assert_eq!(events[1].id.as_deref(), Some("1-0"));
            assert!(events[1].has_data());
            assert_eq!(events[1].data, "");
            assert_eq!(events[2].event.as_deref(), Some("note"));
            assert_eq!(events[2].retry, Some(250));
            assert_eq!(events[2].data, "{\"a\":\n 1}");
            assert_eq!(
                events[2].lines.last(),
                Some(&Line::Field {
                    name: "x-unknown".into(),
                    value: String::new()
                })
            );
            // An id with NUL and a retry with a letter are not taken, but kept.
            assert_eq!((events[3].id.clone(), events[3].retry), (None, None));
            assert_eq!(events[3].lines.len(), 3);
        }
    }

    #[test]
    fn an_unfinished_event_is_given_back_at_the_end() {
        let mut d = Decoder::new();
        assert!(d.feed(b"data: a\n\ndata: b\r").len() == 1);
        assert_eq!(d.pending(), b"data: b\r");
        let cut = d.finish().unwrap();
        assert_eq!(cut.data, "b");
        assert_eq!(cut.raw, b"data: b\r");
        assert!(d.finish().is_none());
    }
}
