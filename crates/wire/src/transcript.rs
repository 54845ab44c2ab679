// Over 500 lines: about 100 of them are its unit tests; the rest is the one format, written and read back.
//! The transcript: one recording as JSON Lines, version 4 (the book's reference
//! chapter, docs/en/src/reference/transcript.md, shows one). The first line says what it is; then every wire event
//! is a line, in order, followed by the facts it completed:
//!
//! ```text
//! {"transcript":"mcp-raw","version":1,"role":"client","transport":"http","started":"…"}
//! {"t":0.000081,"lane":"c1","dir":"c2s","open":"connected to 127.0.0.1:3000"}
//! {"t":0.000140,"lane":"c1","dir":"c2s","text":"POST /mcp HTTP/1.1\r\n…"}
//! {"t":0.000140,"lane":"c1","dir":"c2s","fact":"head","start":"POST /mcp HTTP/1.1","headers":[["host","127.0.0.1:3000"],…]}
//! {"t":0.000140,"lane":"c1","dir":"c2s","fact":"message","source":"body","shape":"request","method":"initialize","id":1,"era":"legacy"}
//! ```
//!
//! Event lines are the record: `text` holds the bytes when they are UTF-8, `base64`
//! otherwise, and the bytes of one lane's direction, concatenated, are exactly what
//! crossed. Fact lines (`"fact": …`) are derived from them, for readers such as `jq`;
//! [`read`] ignores them and derives them again.
//!
//! Version 2 added the `"tls"` event: the facts of a TLS handshake on an HTTPS lane
//! (version, cipher suite, ALPN, SNI, the peer's chain). A version 1 file is read as
//! it always was: it has none. Version 3 added the `"intercept"` event: a message a
//! tap held (`tap --intercept`) and what became of it, `{"step":"held","hold":1,
//! "text":…}`; the bytes passed on follow as their own event, so the lane's bytes
//! are still exactly what crossed to the peer. Version 4 added two steps of it for
//! the page's resend on a stdio tap: `resent` (the line the tap wrote to the server
//! for the page, not the client's; its bytes follow on the lane) and `answered`
//! (the server's answer to it, kept from the client, so only in the mark). A
//! version 3 file is read as it always was: it has neither.

use super::decode::{Fact, Source};
use super::event::{Dir, Event, Lane, What};
use base64::Engine;
use serde::Deserialize;
use serde_json::{Map, Value, json};
use std::time::Duration;

/// The format's version: bumped when a reader of the old one would misread the new.
pub const VERSION: u64 = 4;

/// The versions this reader reads: 1 is 2 without `"tls"` events, 2 is 3 without
/// `"intercept"` events, 3 is 4 without their `resent` and `answered` steps.
pub const READS: [u64; 4] = [1, 2, 3, 4];

/// What the first line says.
#[derive(Debug, Clone, PartialEq)]
pub struct Header {
    /// `server`, `client`, `tap`, `bridge` or `replay`: whose view this is.
    pub role: String,
    /// `stdio` or `http`.
    pub transport: String,
    /// When time 0 was, RFC 3339 UTC.
    pub started: String,
}

impl Header {
    /// The header of a transcript recorded by `role` over `transport`.
    pub fn new(role: &str, transport: &str) -> Header {
        Header {
            role: role.to_owned(),
            transport: transport.to_owned(),
            started: crate::clock::now_rfc3339(),
        }
    }

    /// The header as the transcript's first line.
    pub fn to_json(&self) -> Value {
        json!({
            "transcript": "mcp-raw",
            "version": VERSION,
            "role": self.role,
            "transport": self.transport,
            "started": self.started,
        })
    }
}

/// The JSON of one event (no facts).
pub fn event_json(e: &Event) -> Value {
    let mut line = place(e.t, e.lane, e.dir);
    match &e.what {
        What::Open(peer) => line.insert("open".into(), json!(peer)),
        What::Close(why) => line.insert("close".into(), json!(why)),
        What::Tls(facts) => line.insert("tls".into(), facts.to_json()),
        What::Intercept(i) => {
            let mut held = serde_json::Map::new();
            held.insert("step".into(), json!(i.step.name()));
            held.insert("hold".into(), json!(i.hold));
            if !i.bytes.is_empty() {
                match std::str::from_utf8(&i.bytes) {
                    Ok(text) => held.insert("text".into(), json!(text)),
                    Err(_) => held.insert(
                        "base64".into(),
                        json!(base64::engine::general_purpose::STANDARD.encode(&i.bytes)),
                    ),
                };
            }
            line.insert("intercept".into(), Value::Object(held))
        }
        What::Bytes(b) => match std::str::from_utf8(b) {
            Ok(text) => line.insert("text".into(), json!(text)),
            Err(_) => line.insert(
                "base64".into(),
                json!(base64::engine::general_purpose::STANDARD.encode(b)),
            ),
        },
    };
    Value::Object(line)
}

/// The JSON of one fact, placed where its event was.
pub fn fact_json(e: &Event, fact: &Fact) -> Value {
    let mut line = place(e.t, e.lane, e.dir);
    line.insert("fact".into(), json!(fact.name()));
    match fact {
        Fact::Head(h) => {
            line.insert("start".into(), json!(h.start_line));
            line.insert("headers".into(), json!(h.headers));
        }
        Fact::Chunk { size, .. } => {
            line.insert("size".into(), json!(size));
        }
        Fact::Sse(event) => {
            let lines: Vec<Value> = event
                .lines
                .iter()
                .map(|l| match l {
                    super::sse::Line::Field { name, value } => json!([name, value]),
                    super::sse::Line::Comment(text) => json!([":", text]),
                })
                .collect();
            line.insert("lines".into(), Value::Array(lines));
        }
        Fact::Payload {
            source, odd, class, ..
        } => {
            line.insert(
                "source".into(),
                json!(match source {
                    Source::Body => "body",
                    Source::SseData => "sse-data",
                    Source::Line => "line",
                }),
            );
            line.insert("shape".into(), json!(class.shape));
            for (k, v) in [
                ("method", class.method.clone().map(Value::String)),
                ("id", class.id.clone()),
                ("code", class.code.map(Value::from)),
                ("era", class.era.map(Value::from)),
                ("problem", class.problem.clone().map(Value::String)),
            ] {
                if let Some(v) = v {
                    line.insert(k.into(), v);
                }
            }
            let odd = odd.names();
            if !odd.is_empty() {
                line.insert("odd".into(), json!(odd));
            }
        }
        Fact::TooLong { len } => {
            line.insert("len".into(), json!(len));
        }
        Fact::Stderr(text) => {
            line.insert("text".into(), json!(String::from_utf8_lossy(text)));
        }
        Fact::End => {}
        Fact::Invalid(why) => {
            line.insert("why".into(), json!(why));
        }
    }
    Value::Object(line)
}

fn place(t: Duration, lane: Lane, dir: Dir) -> Map<String, Value> {
    let mut m = Map::new();
    // Seconds, to the microsecond.
    let micros = t.as_micros() as f64 / 1e6;
    m.insert("t".into(), json!(micros));
    m.insert("lane".into(), json!(lane.label()));
    m.insert("dir".into(), json!(dir.name()));
    m
}

/// Reads a transcript back: its header and its events (fact lines are skipped; they
/// follow from the events). Errors name the line and what is wrong with it.
pub fn read(text: &str) -> Result<(Header, Vec<Event>), String> {
    let mut lines = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty());
    let (n, first) = lines.next().ok_or("an empty file is not a transcript")?;
    let header = header_of_line(first).map_err(|why| format!("line {}: {why}", n + 1))?;
    let mut events = Vec::new();
    for (n, line) in lines {
        if let Some(e) = event_of_line(line).map_err(|why| format!("line {}: {why}", n + 1))? {
            events.push(e);
        }
    }
    Ok((header, events))
}

/// A transcript file's bytes, as [`read`] reads text. JSON text is UTF-8 (RFC 8259
/// §8.1) and so is every line of a transcript (bytes that are not UTF-8 are in
/// `base64`): a line that is not is refused by its number, with the byte and column.
pub fn read_bytes(bytes: &[u8]) -> Result<(Header, Vec<Event>), String> {
    let text = std::str::from_utf8(bytes).map_err(|e| not_utf8(bytes, e.valid_up_to(), 1))?;
    read(text)
}

/// `line N: not UTF-8 …` for the first bad byte at offset `at` of `bytes`, whose
/// first line is line `first_line` of the file.
pub fn not_utf8(bytes: &[u8], at: usize, first_line: usize) -> String {
    let before = &bytes[..at.min(bytes.len())];
    let line = before.iter().filter(|&&b| b == b'\n').count() + first_line;
    let column = at
        - before
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1)
        + 1;
    let byte = bytes
        .get(at)
        .map_or(String::new(), |b| format!(" (byte 0x{b:02x})"));
    format!(
        "line {line}: not UTF-8 at column {column}{byte}: a transcript is JSON text, which is UTF-8 (RFC 8259 §8.1)"
    )
}

/// The first line: the header, or why it is not one this reader reads (the caller
/// says which line it was).
pub fn header_of_line(first: &str) -> Result<Header, String> {
    let first: Value = serde_json::from_str(first).map_err(|e| format!("not JSON: {e}"))?;
    if first["transcript"] != "mcp-raw" {
        return Err(format!(
            "not an mcp-raw transcript header: {}",
            truncate(&first.to_string())
        ));
    }
    if !first["version"]
        .as_u64()
        .is_some_and(|v| READS.contains(&v))
    {
        return Err(format!(
            "transcript version {} is not one this mcp-raw reads (it reads {READS:?})",
            first["version"]
        ));
    }
    let header = Header {
        role: first["role"].as_str().unwrap_or("").to_owned(),
        transport: first["transport"].as_str().unwrap_or("").to_owned(),
        started: first["started"].as_str().unwrap_or("").to_owned(),
    };
    Ok(header)
}

/// One line after the header: its event, or `None` for a fact line or a blank one
/// (for a reader that follows a transcript as it grows).
pub fn event_of_line(line: &str) -> Result<Option<Event>, String> {
    if line.trim().is_empty() {
        return Ok(None);
    }
    // The common lines (an event's bytes, an open, a close; a fact line) read straight
    // into their fields; anything else, and every line in error, read as a Value below,
    // which decides (so both readings give the same event and the same error).
    if let Some(read) = fast_line(line) {
        return Ok(read);
    }
    let v: Value =
        serde_json::from_str(line).map_err(|e| format!("not JSON ({e}): {}", truncate(line)))?;
    if v.get("fact").is_some() {
        return Ok(None);
    }
    parse_event(&v).map(Some)
}

/// An event line's fields as a transcript writes them, borrowed from the line where
/// they have no escapes.
#[derive(serde::Deserialize)]
struct FastLine<'a> {
    /// Seconds since the recording began.
    t: f64,
    /// `stdio`, `c3`…
    #[serde(borrow)]
    lane: std::borrow::Cow<'a, str>,
    /// `c2s` or `s2c`.
    #[serde(borrow)]
    dir: std::borrow::Cow<'a, str>,
    /// Bytes that are UTF-8.
    #[serde(borrow, default)]
    text: Option<std::borrow::Cow<'a, str>>,
    /// Bytes that are not.
    #[serde(borrow, default)]
    base64: Option<std::borrow::Cow<'a, str>>,
    /// A lane opened.
    #[serde(borrow, default)]
    open: Option<std::borrow::Cow<'a, str>>,
    /// A lane's direction closed.
    #[serde(borrow, default)]
    close: Option<std::borrow::Cow<'a, str>>,
    /// A fact line (any value, `null` too, as the slow reading's `get`): skipped.
    #[serde(default, deserialize_with = "present")]
    fact: bool,
    /// TLS facts: the slow reading's.
    #[serde(default)]
    tls: Option<serde::de::IgnoredAny>,
    /// A tap's hold: the slow reading's.
    #[serde(default)]
    intercept: Option<serde::de::IgnoredAny>,
}

/// A member that is there, whatever its value.
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
    serde::de::IgnoredAny::deserialize(d).map(|_| true)
}

/// The fast reading of one line: `Some` when it is sure (a fact line, or an event of
/// bytes, an open or a close, valid); `None` leaves the line to [`parse_event`].
fn fast_line(line: &str) -> Option<Option<Event>> {
    let f: FastLine = serde_json::from_str(line).ok()?;
    if f.fact {
        return Some(None);
    }
    if !(f.t.is_finite() && f.t >= 0.0) {
        return None;
    }
    let lane = Lane::from_label(&f.lane)?;
    let dir = Dir::from_name(&f.dir)?;
    let what = match (f.text, f.base64, f.open, f.close) {
        (Some(text), ..) => What::Bytes(match text {
            std::borrow::Cow::Borrowed(t) => bytes::Bytes::copy_from_slice(t.as_bytes()),
            std::borrow::Cow::Owned(t) => bytes::Bytes::from(t.into_bytes()),
        }),
        (None, Some(b64), ..) => What::Bytes(
            base64::engine::general_purpose::STANDARD
                .decode(b64.as_bytes())
                .ok()?
                .into(),
        ),
        _ if f.tls.is_some() || f.intercept.is_some() => return None,
        (None, None, Some(peer), _) => What::Open(peer.into_owned()),
        (None, None, None, Some(why)) => What::Close(why.into_owned()),
        (None, None, None, None) => return None,
    };
    Some(Some(Event {
        t: Duration::from_secs_f64(f.t),
        lane,
        dir,
        what,
    }))
}

fn parse_event(v: &Value) -> Result<Event, String> {
    let t = v["t"].as_f64().ok_or("no \"t\" (seconds)")?;
    if !(t.is_finite() && t >= 0.0) {
        return Err(format!("\"t\" must be a time in seconds, got {t}"));
    }
    let lane = v["lane"]
        .as_str()
        .and_then(Lane::from_label)
        .ok_or_else(|| format!("bad \"lane\": {}", v["lane"]))?;
    let dir = v["dir"]
        .as_str()
        .and_then(Dir::from_name)
        .ok_or_else(|| format!("bad \"dir\" (c2s or s2c): {}", v["dir"]))?;
    let what = if let Some(text) = v["text"].as_str() {
        What::Bytes(bytes::Bytes::copy_from_slice(text.as_bytes()))
    } else if let Some(b64) = v["base64"].as_str() {
        What::Bytes(
            base64::engine::general_purpose::STANDARD
                .decode(b64)
                .map_err(|e| format!("bad \"base64\": {e}"))?
                .into(),
        )
    } else if let Some(peer) = v["open"].as_str() {
        What::Open(peer.to_owned())
    } else if let Some(why) = v["close"].as_str() {
        What::Close(why.to_owned())
    } else if v["tls"].is_object() {
        What::Tls(Box::new(super::tls::TlsFacts::from_json(&v["tls"])?))
    } else if let Some(held) = v["intercept"].as_object() {
        let step = held
            .get("step")
            .and_then(Value::as_str)
            .and_then(super::event::HoldStep::from_name)
            .ok_or_else(|| format!("bad \"intercept\" step: {:?}", held.get("step")))?;
        let hold = held
            .get("hold")
            .and_then(Value::as_u64)
            .ok_or("an \"intercept\" needs its \"hold\" number")?;
        let bytes = if let Some(text) = held.get("text").and_then(Value::as_str) {
            bytes::Bytes::copy_from_slice(text.as_bytes())
        } else if let Some(b64) = held.get("base64").and_then(Value::as_str) {
            base64::engine::general_purpose::STANDARD
                .decode(b64)
                .map_err(|e| format!("bad \"intercept\" base64: {e}"))?
                .into()
        } else {
            bytes::Bytes::new()
        };
        What::Intercept(Box::new(super::event::Intercepted { hold, step, bytes }))
    } else {
        return Err(
            "an event needs \"text\", \"base64\", \"open\", \"close\", \"tls\" or \"intercept\""
                .into(),
        );
    };
    Ok(Event {
        t: Duration::from_secs_f64(t),
        lane,
        dir,
        what,
    })
}

fn truncate(s: &str) -> String {
    let mut end = s.len().min(100);
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    if end < s.len() {
        format!("{}…", &s[..end])
    } else {
        s.to_owned()
    }
}

/// The pretty JSON rendering, whole: [`crate::pretty_doc::PrettyDoc`] written to a
/// string (`show --pretty` streams it instead).
pub fn pretty(header: &Header, events: &[Event], max: usize) -> String {
    let mut out = Vec::new();
    let mut doc = crate::pretty_doc::PrettyDoc::start(&mut out, header, max);
    for e in events {
        doc.event(&mut out, e);
    }
    doc.finish(&mut out);
    String::from_utf8(out).unwrap_or_default()
}

#[cfg(test)]
mod tests {

    /// The fast reading, wherever it answers, gives what the slow (`Value`) reading
    /// gives; where it does not answer, the slow one decides.
    #[test]
    fn the_fast_reading_agrees_with_the_slow_one() {
        let slow = |line: &str| -> Result<Option<Event>, String> {
            let v: Value = serde_json::from_str(line).map_err(|e| e.to_string())?;
            if v.get("fact").is_some() {
                return Ok(None);
            }
            parse_event(&v).map(Some)
        };
        for line in [
            r#"{"t":0.5,"lane":"stdio","dir":"c2s","text":"{\"a\":1}\n"}"#,
            r#"{"t":1,"lane":"c3","dir":"s2c","text":"plain"}"#,
            r#"{"t":0.1,"lane":"stdio","dir":"s2c","base64":"//4="}"#,
            r#"{"t":0.1,"lane":"c1","dir":"c2s","open":"127.0.0.1:5"}"#,
            r#"{"t":0.1,"lane":"c1","dir":"c2s","close":"EOF"}"#,
            r#"{"t":0.1,"lane":"c1","dir":"c2s","fact":"message","source":"line"}"#,
            r#"{"t":0.1,"lane":"c1","dir":"c2s","fact":null,"text":"x"}"#,
            r#"{"t":0.1,"lane":"c1","dir":"c2s","text":null,"open":"p"}"#,
            r#"{"t":0.1,"lane":"c1","dir":"c2s","text":"a","text":"b"}"#,
            r#"{"t":0.1,"lane":"c1","dir":"c2s","text":5,"close":"x"}"#,
            r#"{"t":-1,"lane":"c1","dir":"c2s","text":"x"}"#,
            r#"{"t":"1","lane":"c1","dir":"c2s","text":"x"}"#,
            r#"{"t":1,"lane":"nope","dir":"c2s","text":"x"}"#,
            r#"{"t":1,"lane":"c1","dir":"up","text":"x"}"#,
            r#"{"t":1,"lane":"c1","dir":"c2s","base64":"!!"}"#,
            r#"{"t":1,"lane":"c1","dir":"c2s","tls":null,"open":"p"}"#,
            r#"{"t":1,"lane":"c1","dir":"c2s","intercept":{"step":"held","hold":1,"text":"x"}}"#,
            r#"{"t":1,"lane":"c1","dir":"c2s"}"#,
        ] {
            if let Some(fast) = fast_line(line) {
                assert_eq!(Ok(fast), slow(line), "{line}");
            }
            assert_eq!(event_of_line(line).ok(), slow(line).ok(), "{line}");
        }
        // The common lines are the fast reading's.
        assert!(fast_line(r#"{"t":0.5,"lane":"stdio","dir":"c2s","text":"x"}"#).is_some());
        assert!(fast_line(r#"{"t":0.5,"lane":"stdio","dir":"c2s","fact":"end"}"#).is_some());
    }

    use super::*;
    use crate::event::LaneKind;
    use crate::recorder::Recorder;
    use crate::transcript_write::Writer;
    use std::io::Write;

    /// A sink that writes into a shared buffer.
    #[derive(Clone, Default)]
    struct Buf(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);
    impl Write for Buf {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn bytes_round_trip_text_and_base64() {
        let buf = Buf::default();
        let writer = Writer::new(buf.clone(), &Header::new("server", "stdio"), 1024).unwrap();
        let rec = Recorder::new(vec![Box::new(writer)]);
        let lane = rec.lane(LaneKind::Stdio);
        rec.bytes(
            lane,
            Dir::ToServer,
            b"{\"jsonrpc\":\"2.0\",\"method\":\"a\"}\r\n",
        );
        rec.bytes(lane, Dir::ToClient, b"\xff\xfe oops\n");
        rec.emit(lane, Dir::ToServer, What::Close("EOF".into()));
        let text = String::from_utf8(buf.0.lock().unwrap().clone()).unwrap();
        assert!(text.contains("\"fact\":\"message\""), "{text}");
        assert!(text.contains("\"odd\":[\"cr\"]"), "{text}");
        assert!(text.contains("\"base64\":\"//4gb29wcwo=\""), "{text}");
        let (header, events) = read(&text).unwrap();
        assert_eq!(header.transport, "stdio");
        assert_eq!(events.len(), 3);
        assert_eq!(
            crate::recorder::concat(&events, |e| e.dir == Dir::ToClient),
            b"\xff\xfe oops\n"
        );
        assert!(pretty(&header, &events, 1024).contains("\"rendering\""));
        assert!(
            read("{\"transcript\":\"mcp-raw\",\"version\":9}")
                .unwrap_err()
                .contains("version 9")
        );
        assert!(
            read("{\"transcript\":\"mcp-raw\",\"version\":1}\n{\"t\":1}")
                .unwrap_err()
                .starts_with("line 2")
        );
    }

    #[test]
    fn a_tls_event_round_trips_and_version_1_is_still_read() {
        let facts = crate::tls::TlsFacts {
            version: "TLSv1.3".into(),
            cipher: "TLS13_AES_128_GCM_SHA256".into(),
            alpn: Some("http/1.1".into()),
            sni: Some("example.com".into()),
            server_name: "example.com".into(),
            resumed: true,
            handshake_us: 1234,
            insecure: true,
            unverified: Some("it has expired".into()),
            client_cert: false,
            accepted: true,
            chain: vec![crate::tls::Cert {
                subject: "CN=example.com".into(),
                issuer: "CN=CA".into(),
                not_before: "2020-01-01T00:00:00.000Z".into(),
                not_after: "2021-01-01T00:00:00.000Z".into(),
                sha256: "AB:CD".into(),
            }],
        };
        let event = Event {
            t: Duration::from_micros(5),
            lane: Lane {
                id: 1,
                kind: LaneKind::Http,
            },
            dir: Dir::ToClient,
            what: What::Tls(Box::new(facts)),
        };
        let header = Header::new("client", "http");
        let text = format!("{}\n{}\n", header.to_json(), event_json(&event));
        assert!(text.contains("\"version\":4"), "{text}");
        let (_, events) = read(&text).unwrap();
        assert_eq!(events, vec![event]);
        // A version 1 file (no "tls" events) reads as it did.
        let old = "{\"transcript\":\"mcp-raw\",\"version\":1,\"role\":\"client\",\"transport\":\"stdio\"}\n{\"t\":0.1,\"lane\":\"stdio\",\"dir\":\"c2s\",\"text\":\"x\\n\"}\n";
        let (header, events) = read(old).unwrap();
        assert_eq!(header.role, "client");
        assert_eq!(events.len(), 1);
        assert!(read("{\"transcript\":\"mcp-raw\",\"version\":5}").is_err());
    }

    #[test]
    fn an_intercept_event_reads_back_as_it_was_written() {
        use crate::event::{HoldStep, Intercepted};
        let lane = Lane {
            id: 0,
            kind: crate::event::LaneKind::Stdio,
        };
        let events: Vec<Event> = [
            (HoldStep::Held, &b"{\"id\":1}\n"[..]),
            (HoldStep::Changed, &b"{\"id\":2}\n"[..]),
            (HoldStep::Dropped, &b""[..]),
            (HoldStep::Expired, &b"\xff"[..]),
            (HoldStep::Resent, &b"{\"id\":3}\n"[..]),
            (HoldStep::Answered, &b"{\"id\":3,\"result\":{}}\n"[..]),
        ]
        .into_iter()
        .map(|(step, bytes)| Event {
            t: Duration::from_micros(7),
            lane,
            dir: Dir::ToServer,
            what: What::Intercept(Box::new(Intercepted {
                hold: 4,
                step,
                bytes: bytes::Bytes::copy_from_slice(bytes),
            })),
        })
        .collect();
        let header = Header::new("tap", "stdio");
        let mut text = format!("{}\n", header.to_json());
        for e in &events {
            text.push_str(&format!("{}\n", event_json(e)));
        }
        assert!(
            text.contains(r#""intercept":{"step":"held","hold":4,"text":"{\"id\":1}\n"}"#),
            "{text}"
        );
        assert!(text.contains(r#""intercept":{"step":"dropped","hold":4}"#));
        assert!(text.contains(r#""intercept":{"step":"expired","hold":4,"base64":"/w=="}"#));
        let (_, back) = read(&text).unwrap();
        assert_eq!(back, events);
        let bad = format!(
            "{}\n{{\"t\":0.1,\"lane\":\"stdio\",\"dir\":\"c2s\",\"intercept\":{{\"step\":\"paused\",\"hold\":1}}}}\n",
            header.to_json()
        );
        assert!(
            read(&bad)
                .unwrap_err()
                .contains("bad \"intercept\" step: Some(String(\"paused\"))"),
            "{}",
            read(&bad).unwrap_err()
        );
    }
}
