//! `mcp-raw diff A B`: two recordings compared message by message. Each side's
//! JSON-RPC messages are read from its wire events (the same decoding every view
//! uses), one sequence per direction, and compared in order after what `--ignore`
//! names is blotted out: request ids (they differ whenever a client numbers
//! differently), RFC 3339 times, UUIDs, or any field by its path.

use crate::wire::decode::{Decoder, Fact};
use crate::wire::event::{Dir, Event, LaneKind};
use serde_json::Value;

/// What a comparison leaves out.
#[derive(Debug, Clone, PartialEq)]
pub enum Ignore {
    /// `id` of requests and responses, and the ids that refer to them
    /// (`notifications/cancelled`'s `requestId`, `progressToken`s).
    Ids,
    /// Strings that are RFC 3339 date-times (`2026-12-03T09:00:17.054Z`).
    Times,
    /// Strings that are (or contain) a UUID.
    Uuids,
    /// One field, by its dotted path from the message's top: `result.serverInfo.version`,
    /// `params._meta`; `[]` stands for every element of an array
    /// (`result.content[].text`).
    Path(Vec<String>),
}

impl Ignore {
    /// `id`, `time`, `uuid`, or a path.
    pub fn parse(text: &str) -> Result<Ignore, String> {
        Ok(match text {
            "id" | "ids" => Ignore::Ids,
            "time" | "times" => Ignore::Times,
            "uuid" | "uuids" => Ignore::Uuids,
            "" => return Err("an empty --ignore".into()),
            path => Ignore::Path(
                path.split('.')
                    .flat_map(|seg| match seg.strip_suffix("[]") {
                        Some(name) if !name.is_empty() => vec![name.to_owned(), "[]".to_owned()],
                        Some(_) => vec!["[]".to_owned()],
                        None => vec![seg.to_owned()],
                    })
                    .collect(),
            ),
        })
    }

    /// What `diff` ignores unless told otherwise.
    pub fn defaults() -> Vec<Ignore> {
        vec![Ignore::Ids, Ignore::Times, Ignore::Uuids]
    }
}

/// One message of a recording, where it was.
#[derive(Debug, Clone, PartialEq)]
pub struct Message {
    /// The message's number among its direction's, from 1.
    pub n: usize,
    /// The event it completed, from 1 (what `check` and `show` number too).
    pub event: usize,
    /// Its lane's label.
    pub lane: String,
    /// `method` (requests, notifications), or the method of the request a response
    /// answers, when that request is in the recording.
    pub method: Option<String>,
    /// The message as sent.
    pub value: Value,
}

/// The JSON-RPC messages of a recording, per direction (batch items one by one).
pub fn messages(events: &[Event]) -> (Vec<Message>, Vec<Message>) {
    let mut reader = Reader::default();
    let (mut c2s, mut s2c) = (Vec::new(), Vec::new());
    for e in events {
        for (dir, m) in reader.feed(e) {
            match dir {
                Dir::ToServer => c2s.push(m),
                Dir::ToClient => s2c.push(m),
            }
        }
    }
    (c2s, s2c)
}

/// A recording's messages read event by event, as [`messages`] reads them all: what
/// `diff` streams. It keeps the decoder's state and the methods of the requests not
/// answered yet (so a response can be named by what it answers; at most
/// `--max-unanswered` a direction, as every view), no message.
#[derive(Default)]
pub struct Reader {
    /// The wire decoded: a message's bytes, however framed.
    decoder: Decoder,
    /// The method of each request still unanswered, by id: those sent c2s, s2c.
    asked: [crate::wire::asked::Asked<String>; 2],
    /// The events fed so far (a message names the one that completed it).
    events: usize,
    /// The messages read so far, c2s then s2c (a message's number in its direction).
    count: [usize; 2],
}

impl Reader {
    /// The messages `e` completes, with their directions, in order.
    pub fn feed(&mut self, e: &Event) -> Vec<(Dir, Message)> {
        self.events += 1;
        let mut out = Vec::new();
        if e.lane.kind == LaneKind::Stderr {
            return out;
        }
        for fact in self.decoder.feed(e) {
            let Fact::Payload { bytes, class, .. } = fact else {
                continue;
            };
            if !class.is_message() {
                continue;
            }
            for value in crate::wire::classify::messages(&bytes) {
                let id = value.get("id").map(Value::to_string);
                let method = match (value.get("method").and_then(Value::as_str), &id) {
                    (Some(m), Some(id)) => {
                        self.asked[slot(e.dir)].ask(id.clone(), m.to_owned());
                        Some(m.to_owned())
                    }
                    (Some(m), None) => Some(m.to_owned()),
                    (None, Some(id)) => self.asked[slot(other(e.dir))].answer(id),
                    (None, None) => None,
                };
                let count = &mut self.count[slot(e.dir)];
                *count += 1;
                out.push((
                    e.dir,
                    Message {
                        n: *count,
                        event: self.events,
                        lane: e.lane.label(),
                        method,
                        value,
                    },
                ));
            }
        }
        out
    }

    /// How many messages were read in `dir` so far.
    pub fn count(&self, dir: Dir) -> usize {
        self.count[slot(dir)]
    }
}

/// c2s is 0, s2c 1: where a direction's figures are kept.
pub(crate) fn slot(d: Dir) -> usize {
    match d {
        Dir::ToServer => 0,
        Dir::ToClient => 1,
    }
}

fn other(d: Dir) -> Dir {
    match d {
        Dir::ToServer => Dir::ToClient,
        Dir::ToClient => Dir::ToServer,
    }
}

/// One difference between the two recordings.
#[derive(Debug, Clone, PartialEq)]
pub struct Difference {
    /// Which way it went.
    pub dir: Dir,
    /// The message's number in its direction.
    pub n: usize,
    /// What it is, from whichever side has it: `response to tools/call`.
    pub what: String,
    /// Where in the message, and the two values (or which side lacks the message).
    pub detail: String,
    /// Where the first difference is, step by step from the message's top (empty
    /// when the whole message differs, or one side lacks it): what the live page's
    /// side-by-side view marks.
    pub at: Vec<Step>,
}

/// One step of a path into a message.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// A member of an object.
    Key(String),
    /// An element of an array.
    Index(usize),
    /// Not a step: the array reached so far differs in its length.
    Length,
}

/// `result.content[0].text`, `params.items length`: a path as `diff` prints it.
pub fn shown_path(at: &[Step]) -> String {
    let mut out = String::new();
    for step in at {
        match step {
            Step::Key(k) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(k);
            }
            Step::Index(i) => out.push_str(&format!("[{i}]")),
            Step::Length => out.push_str(" length"),
        }
    }
    out
}

/// Compares A and B, direction by direction, after `ignore`.
pub fn diff(a: &[Event], b: &[Event], ignore: &[Ignore]) -> Vec<Difference> {
    let (ac, as_) = messages(a);
    let (bc, bs) = messages(b);
    let mut out = Vec::new();
    for (dir, x, y) in [(Dir::ToServer, &ac, &bc), (Dir::ToClient, &as_, &bs)] {
        for i in 0..x.len().max(y.len()) {
            out.extend(differ(dir, i + 1, x.get(i), y.get(i), ignore));
        }
    }
    out
}

/// How the `n`th message of one direction differs between A (`x`) and B (`y`),
/// after `ignore`; `None` when they are the same (or neither side has one).
pub fn differ(
    dir: Dir,
    n: usize,
    x: Option<&Message>,
    y: Option<&Message>,
    ignore: &[Ignore],
) -> Option<Difference> {
    match (x, y) {
        (Some(x), Some(y)) => {
            let (nx, ny) = (normalize(&x.value, ignore), normalize(&y.value, ignore));
            let (at, vx, vy) = first_difference(&nx, &ny, Vec::new())?;
            let path = shown_path(&at);
            Some(Difference {
                dir,
                n,
                what: what(x),
                detail: format!(
                    "{}: {} (A, event {}) vs {} (B, event {})",
                    if path.is_empty() {
                        "the message"
                    } else {
                        &path
                    },
                    short(&vx),
                    x.event,
                    short(&vy),
                    y.event
                ),
                at,
            })
        }
        (Some(x), None) => Some(Difference {
            dir,
            n,
            what: what(x),
            detail: format!("only in A (event {}): {}", x.event, short(&x.value)),
            at: Vec::new(),
        }),
        (None, Some(y)) => Some(Difference {
            dir,
            n,
            what: what(y),
            detail: format!("only in B (event {}): {}", y.event, short(&y.value)),
            at: Vec::new(),
        }),
        (None, None) => None,
    }
}

/// `request tools/call`, `response to tools/call`, `notification notifications/progress`.
pub fn what(m: &Message) -> String {
    let shape = if m.value.get("method").is_some() {
        if m.value.get("id").is_some() {
            "request"
        } else {
            "notification"
        }
    } else if m.value.get("error").is_some() {
        "error"
    } else {
        "response"
    };
    match (&m.method, shape) {
        (Some(method), "response" | "error") => format!("{shape} to {method}"),
        (Some(method), _) => format!("{shape} {method}"),
        (None, _) => shape.to_owned(),
    }
}

/// The message with what `ignore` names replaced by a placeholder (or removed, for
/// a path), so equal means "equal but for that".
pub fn normalize(v: &Value, ignore: &[Ignore]) -> Value {
    let mut v = v.clone();
    for rule in ignore {
        match rule {
            Ignore::Ids => {
                for key in ["id"] {
                    if let Some(slot) = v.get_mut(key) {
                        *slot = Value::String("<id>".into());
                    }
                }
                if let Some(p) = v.get_mut("params") {
                    if let Some(slot) = p.get_mut("requestId") {
                        *slot = Value::String("<id>".into());
                    }
                    if let Some(slot) = p.get_mut("progressToken") {
                        *slot = Value::String("<id>".into());
                    }
                    if let Some(slot) = p.get_mut("_meta").and_then(|m| m.get_mut("progressToken"))
                    {
                        *slot = Value::String("<id>".into());
                    }
                }
            }
            Ignore::Times => strings(&mut v, &|s| is_time(s).then(|| "<time>".to_owned())),
            Ignore::Uuids => strings(&mut v, &|s| has_uuid(s).then(|| "<uuid>".to_owned())),
            Ignore::Path(path) => remove(&mut v, path),
        }
    }
    v
}

/// Replaces each string `f` maps.
fn strings(v: &mut Value, f: &dyn Fn(&str) -> Option<String>) {
    match v {
        Value::String(s) => {
            if let Some(new) = f(s) {
                *s = new;
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|i| strings(i, f)),
        Value::Object(map) => map.values_mut().for_each(|i| strings(i, f)),
        _ => {}
    }
}

fn remove(v: &mut Value, path: &[String]) {
    let Some((first, rest)) = path.split_first() else {
        return;
    };
    match (v, first.as_str()) {
        (Value::Array(items), "[]") => items.iter_mut().for_each(|i| remove(i, rest)),
        (Value::Object(map), key) if rest.is_empty() => {
            map.shift_remove(key);
        }
        (Value::Object(map), key) => {
            if let Some(inner) = map.get_mut(key) {
                remove(inner, rest);
            }
        }
        _ => {}
    }
}

/// `YYYY-MM-DDTHH:MM:SS…`: the shape of an RFC 3339 date-time.
fn is_time(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() >= 19
        && b[..4].iter().all(u8::is_ascii_digit)
        && b[4] == b'-'
        && b[7] == b'-'
        && (b[10] == b'T' || b[10] == b't' || b[10] == b' ')
        && b[13] == b':'
        && b[16] == b':'
}

/// Holds 8-4-4-4-12 hex digits somewhere.
fn has_uuid(s: &str) -> bool {
    let b = s.as_bytes();
    b.windows(36).any(|w| {
        w.iter().enumerate().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => *c == b'-',
            _ => c.is_ascii_hexdigit(),
        })
    })
}

/// The first place two values differ: its path and both values there.
fn first_difference(a: &Value, b: &Value, path: Vec<Step>) -> Option<(Vec<Step>, Value, Value)> {
    let into = |step: Step| {
        let mut p = path.clone();
        p.push(step);
        p
    };
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for (k, vx) in x {
                let p = into(Step::Key(k.clone()));
                match y.get(k) {
                    Some(vy) => {
                        if let Some(d) = first_difference(vx, vy, p) {
                            return Some(d);
                        }
                    }
                    None => return Some((p, vx.clone(), Value::String("(absent)".into()))),
                }
            }
            y.iter().find(|(k, _)| !x.contains_key(*k)).map(|(k, vy)| {
                (
                    into(Step::Key(k.clone())),
                    Value::String("(absent)".into()),
                    vy.clone(),
                )
            })
        }
        (Value::Array(x), Value::Array(y)) => {
            for (i, (vx, vy)) in x.iter().zip(y).enumerate() {
                if let Some(d) = first_difference(vx, vy, into(Step::Index(i))) {
                    return Some(d);
                }
            }
            (x.len() != y.len()).then(|| {
                (
                    into(Step::Length),
                    Value::from(x.len()),
                    Value::from(y.len()),
                )
            })
        }
        _ => (a != b).then(|| (path, a.clone(), b.clone())),
    }
}

fn short(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 100 {
        format!("{}…", s.chars().take(100).collect::<String>())
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn ignored_fields_do_not_count_and_the_first_difference_is_named() {
        let a = json!({"jsonrpc":"2.0","id":1,"result":{"t":"2026-12-03T09:00:17.054Z","content":[{"text":"5"}]}});
        let b = json!({"jsonrpc":"2.0","id":7,"result":{"t":"2026-12-04T10:00:00Z","content":[{"text":"6"}]}});
        let ignore = Ignore::defaults();
        let (at, x, y) =
            first_difference(&normalize(&a, &ignore), &normalize(&b, &ignore), Vec::new()).unwrap();
        assert_eq!(
            (shown_path(&at).as_str(), x, y),
            ("result.content[0].text", json!("5"), json!("6"))
        );
        let long = first_difference(&json!({"a": [1, 2]}), &json!({"a": [1]}), Vec::new());
        assert_eq!(
            long.map(|(at, ..)| shown_path(&at)).as_deref(),
            Some("a length")
        );
        let path = Ignore::parse("result.content[].text").unwrap();
        let d = first_difference(
            &normalize(&a, &[Ignore::Ids, Ignore::Times, path.clone()]),
            &normalize(&b, &[Ignore::Ids, Ignore::Times, path]),
            Vec::new(),
        );
        assert_eq!(d, None);
        assert!(has_uuid("session 20da41af-98b4-4d00-9784-706f7d43e4d3"));
        assert!(!is_time("2026-12-03"));
    }
}
