//! `show --pretty`: the transcript as one indented JSON document saying it is a
//! rendering of the JSON Lines record, each event with the facts read from it —
//! written as it is read, an event at a time, so its memory is one event's whatever
//! the recording's size. The bytes are those of `serde_json::to_string_pretty` on the
//! whole document (a unit test holds them equal): a pretty JSON string never holds a
//! raw newline, so an event's own pretty text, each line indented to its depth, is
//! its text inside the whole.

use crate::decode::Decoder;
use crate::event::Event;
use crate::transcript::{Header, event_json, fact_json};
use serde_json::Value;

/// What the document says it is.
const RENDERING: &str = "pretty JSON of an mcp-raw transcript; the JSON Lines file is the record";

/// A pretty document being written.
pub struct PrettyDoc {
    /// The same framing every view uses, for each event's facts.
    decoder: Decoder,
    /// Events written so far (the first has no comma before it; none makes `[]`).
    events: usize,
}

impl PrettyDoc {
    /// Writes the document's start: what it is, the header, the events' opening.
    pub fn start(out: &mut Vec<u8>, header: &Header, max: usize) -> PrettyDoc {
        out.extend_from_slice(b"{\n  \"rendering\": ");
        out.extend_from_slice(Value::from(RENDERING).to_string().as_bytes());
        out.extend_from_slice(b",\n  \"header\": ");
        indented(out, &header.to_json(), 2);
        out.extend_from_slice(b",\n  \"events\": [");
        PrettyDoc {
            decoder: Decoder::with_max(max),
            events: 0,
        }
    }

    /// Writes one event, with its facts (their time, lane and direction are the
    /// event's, so left out).
    pub fn event(&mut self, out: &mut Vec<u8>, e: &Event) {
        let mut v = event_json(e);
        let facts: Vec<Value> = self
            .decoder
            .feed(e)
            .iter()
            .map(|f| {
                let mut f = fact_json(e, f);
                if let Some(m) = f.as_object_mut() {
                    m.remove("t");
                    m.remove("lane");
                    m.remove("dir");
                }
                f
            })
            .collect();
        if !facts.is_empty() {
            v["facts"] = Value::Array(facts);
        }
        out.extend_from_slice(if self.events == 0 {
            b"\n    "
        } else {
            b",\n    "
        });
        indented(out, &v, 4);
        self.events += 1;
    }

    /// Writes the document's end.
    pub fn finish(self, out: &mut Vec<u8>) {
        out.extend_from_slice(if self.events == 0 {
            b"]\n}"
        } else {
            b"\n  ]\n}"
        });
    }
}

/// `v` pretty, its lines after the first indented by `depth` spaces.
fn indented(out: &mut Vec<u8>, v: &Value, depth: usize) {
    let text = serde_json::to_string_pretty(v).unwrap_or_default();
    let pad = " ".repeat(depth);
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push(b'\n');
            out.extend_from_slice(pad.as_bytes());
        }
        out.extend_from_slice(line.as_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::{Dir, Lane, LaneKind, What};
    use serde_json::json;

    /// What the whole document was before it streamed: built as one value.
    fn whole(header: &Header, events: &[Event], max: usize) -> String {
        let mut decoder = Decoder::with_max(max);
        let rendered: Vec<Value> = events
            .iter()
            .map(|e| {
                let mut v = event_json(e);
                let facts: Vec<Value> = decoder
                    .feed(e)
                    .iter()
                    .map(|f| {
                        let mut f = fact_json(e, f);
                        let m = f.as_object_mut().unwrap();
                        m.remove("t");
                        m.remove("lane");
                        m.remove("dir");
                        f
                    })
                    .collect();
                if !facts.is_empty() {
                    v["facts"] = Value::Array(facts);
                }
                v
            })
            .collect();
        let doc = json!({"rendering": RENDERING, "header": header.to_json(), "events": rendered});
        serde_json::to_string_pretty(&doc).unwrap()
    }

    #[test]
    fn streamed_is_byte_for_byte_the_whole_document() {
        let header = Header {
            role: "client".into(),
            transport: "stdio".into(),
            started: "2026-12-07T00:00:00Z".into(),
        };
        let lane = Lane {
            id: 0,
            kind: LaneKind::Stdio,
        };
        let at = |ms: u64, dir, what| Event {
            t: std::time::Duration::from_millis(ms),
            lane,
            dir,
            what,
        };
        let events = [
            at(0, Dir::ToServer, What::Open("spawned x".into())),
            at(1, Dir::ToServer, What::Bytes("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"s\":\"a\\nb \u{7f}\"}}\n".into())),
            at(2, Dir::ToClient, What::Bytes(b"\xff\xfe not utf8\n"[..].into())),
            at(3, Dir::ToClient, What::Bytes("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n".into())),
        ];
        for n in [0, 1, 4] {
            assert_eq!(
                crate::transcript::pretty(&header, &events[..n], 1024),
                whole(&header, &events[..n], 1024),
                "{n} events"
            );
        }
    }
}
