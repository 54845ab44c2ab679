//! What a recording's client side was, as a script to send again: each client
//! message with its exact bytes (and, on HTTP, its request's method and headers), in
//! order; and the client's answers to server requests, by the method they answered,
//! to give again when the live server asks.

use crate::wire::decode::{Decoder, Fact};
use crate::wire::event::{Dir, Event, LaneKind};
use bytes::Bytes;
use serde_json::Value;
use std::collections::{HashMap, VecDeque};

/// One thing the client sent.
#[derive(Debug, Clone)]
pub struct Step {
    /// HTTP: `POST`, `GET`, `DELETE`; stdio: none.
    pub method: Option<String>,
    /// HTTP: the request's headers as sent, `Host` and `Content-Length` aside (the
    /// link writes its own).
    pub headers: Vec<(String, String)>,
    /// The message's bytes as recorded, when there was one.
    pub body: Option<Bytes>,
    /// The message, parsed.
    pub message: Option<Value>,
    /// HTTP: the recorded response was an event stream (a GET that opened one waits
    /// for what the server pushes, and is not sent again).
    pub streamed: bool,
}

impl Step {
    /// A request's id, as JSON text.
    pub fn request_id(&self) -> Option<String> {
        let m = self.message.as_ref()?;
        m.get("method")?;
        m.get("id").map(Value::to_string)
    }

    /// A response of the client's (to a server request): sent when the server asks
    /// again, not in order.
    pub fn is_answer(&self) -> bool {
        self.message
            .as_ref()
            .is_some_and(|m| m.get("method").is_none() && m.get("id").is_some())
    }
}

/// The client side of a recording.
#[derive(Debug, Default)]
pub struct Script {
    /// What the client sent, in order.
    pub steps: Vec<Step>,
    /// The client's recorded answers, by the method of the server request each
    /// answered, in order.
    pub answers: HashMap<String, VecDeque<Value>>,
    /// `http` or `stdio`: what the recording's lanes were.
    pub http: bool,
}

impl Script {
    /// The client side of a recording's `events`.
    pub fn from_events(events: &[Event]) -> Script {
        let mut builder = Builder::default();
        for e in events {
            builder.feed(e);
        }
        builder.ended = true;
        let mut script = Script {
            steps: Vec::new(),
            answers: std::mem::take(&mut builder.answers),
            http: builder.http,
        };
        while let Some(step) = builder.pop_ready() {
            script.steps.push(step);
        }
        script
    }

    /// The recorded answer to a live server request for `method`, its id set to
    /// `id`; `None` when the recording holds no more answers for it.
    pub fn answer(&mut self, method: &str, id: &Value) -> Option<Value> {
        let mut a = self.answers.get_mut(method)?.pop_front()?;
        a["id"] = id.clone();
        Some(a)
    }
}

/// The client side read event by event: each step given out as soon as it is
/// whole (an HTTP request once its response's head says whether it was a stream),
/// the client's answers gathered as they are read. What [`Script::from_events`]
/// reads whole and [`Source`] streams.
#[derive(Default)]
struct Builder {
    /// The wire decoded.
    decoder: Decoder,
    /// The server's requests, by id, to know what each client answer answered.
    asked: HashMap<String, String>,
    /// Per lane, the HTTP request whose head was read and whose end was not.
    head: HashMap<u32, Step>,
    /// Per lane, the numbers of the steps whose responses are still to come.
    unanswered: HashMap<u32, VecDeque<usize>>,
    /// Steps read and not given out yet, the first numbered `given`.
    steps: VecDeque<Step>,
    /// How many steps were given out.
    given: usize,
    /// The client's answers, by the method of the server request each answered.
    answers: HashMap<String, VecDeque<Value>>,
    /// Whether an HTTP lane was seen.
    http: bool,
    /// The recording is read to its end: every step may go.
    ended: bool,
}

impl Builder {
    /// Reads one event.
    fn feed(&mut self, e: &Event) {
        if e.lane.kind == LaneKind::Stderr {
            return;
        }
        self.http |= e.lane.kind == LaneKind::Http;
        for fact in self.decoder.feed(e) {
            match (e.dir, fact) {
                (Dir::ToClient, Fact::Payload { class, .. }) => {
                    if class.shape == "request"
                        && let (Some(id), Some(m)) = (&class.id, &class.method)
                    {
                        self.asked.insert(id.to_string(), m.clone());
                    }
                }
                (Dir::ToServer, Fact::Head(h)) => {
                    let headers = h
                        .headers
                        .iter()
                        .filter(|(n, _)| {
                            !n.eq_ignore_ascii_case("host")
                                && !n.eq_ignore_ascii_case("content-length")
                        })
                        .cloned()
                        .collect();
                    self.head.insert(
                        e.lane.id,
                        Step {
                            method: h.method().map(str::to_owned),
                            headers,
                            body: None,
                            message: None,
                            streamed: false,
                        },
                    );
                }
                (Dir::ToServer, Fact::Payload { bytes, class, .. }) => {
                    if !class.is_message() {
                        continue;
                    }
                    let message = serde_json::from_slice::<Value>(&bytes).ok();
                    let step = match self.head.get_mut(&e.lane.id) {
                        Some(s) if e.lane.kind == LaneKind::Http => {
                            s.body = Some(bytes);
                            s.message = message;
                            continue;
                        }
                        _ => Step {
                            method: None,
                            headers: Vec::new(),
                            body: Some(bytes),
                            message,
                            streamed: false,
                        },
                    };
                    self.push(step);
                }
                (Dir::ToServer, Fact::End) => {
                    if let Some(step) = self.head.remove(&e.lane.id) {
                        let n = self.given + self.steps.len();
                        self.unanswered.entry(e.lane.id).or_default().push_back(n);
                        self.push(step);
                    }
                }
                (Dir::ToClient, Fact::Head(h)) if h.status().is_some_and(|s| s >= 200) => {
                    if let Some(n) = self
                        .unanswered
                        .get_mut(&e.lane.id)
                        .and_then(VecDeque::pop_front)
                        && let Some(step) = n
                            .checked_sub(self.given)
                            .and_then(|i| self.steps.get_mut(i))
                    {
                        step.streamed = h.is_sse();
                    }
                }
                _ => {}
            }
        }
    }

    fn push(&mut self, step: Step) {
        if step.is_answer()
            && let Some(m) = &step.message
        {
            let id = m.get("id").map(Value::to_string).unwrap_or_default();
            let method = self.asked.get(&id).cloned().unwrap_or_default();
            self.answers.entry(method).or_default().push_back(m.clone());
        }
        self.steps.push_back(step);
    }

    /// The next step, if it is whole: read, and (an HTTP request) its response's
    /// head read, or the recording ended.
    fn pop_ready(&mut self) -> Option<Step> {
        self.steps.front()?;
        let waits = !self.ended
            && self
                .unanswered
                .values()
                .any(|q| q.front() == Some(&self.given));
        if waits {
            return None;
        }
        self.given += 1;
        self.steps.pop_front()
    }
}

/// How many steps [`Source::answer`] reads ahead for an answer the live server asks
/// for and the recording has not given yet.
pub const ANSWER_READ_AHEAD: usize = 10_000;

/// A recording that could not be read to its end: the reader's error, by line.
#[derive(Debug)]
pub struct Unreadable(pub String);

impl std::fmt::Display for Unreadable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Unreadable {}

/// The client side of a recording read as a stream (`replay --against`): its steps
/// in order, each read when the replay is ready to send it; memory holds the steps
/// read and not sent yet (one, when the recording's requests are answered in turn)
/// and the client's answers not given yet.
pub struct Source {
    /// The recording's events.
    events: Box<dyn Iterator<Item = Result<Event, String>> + Send>,
    /// What they were read into.
    builder: Builder,
    /// Where reading stopped on a line that is not an event.
    error: Option<String>,
    /// `http` or `stdio`: what the recording's lanes were, as far as its first step.
    pub http: bool,
}

impl Source {
    /// Reads `events` as far as the first step (to know the recording's transport);
    /// a line that is not an event before it is an [`Unreadable`] error here, before
    /// anything is started.
    pub fn new(
        events: Box<dyn Iterator<Item = Result<Event, String>> + Send>,
    ) -> Result<Source, Unreadable> {
        let mut source = Source {
            events,
            builder: Builder::default(),
            error: None,
            http: false,
        };
        while source.builder.steps.is_empty() && source.read_one() {}
        if source.builder.steps.is_empty()
            && let Some(why) = source.error.take()
        {
            return Err(Unreadable(why));
        }
        source.http = source.builder.http;
        Ok(source)
    }

    /// A source with nothing to send (what is left behind when one is moved out).
    pub fn empty() -> Source {
        Source {
            events: Box::new(std::iter::empty()),
            builder: Builder {
                ended: true,
                ..Builder::default()
            },
            error: None,
            http: false,
        }
    }

    /// Reads one event; false at the end (or a line that is not an event).
    fn read_one(&mut self) -> bool {
        if self.builder.ended {
            return false;
        }
        match self.events.next() {
            Some(Ok(e)) => {
                self.builder.feed(&e);
                true
            }
            Some(Err(why)) => {
                self.error = Some(why);
                self.builder.ended = true;
                false
            }
            None => {
                self.builder.ended = true;
                false
            }
        }
    }

    /// The next thing the client sent; `None` at the recording's end; an
    /// [`Unreadable`] error where a line is not an event (what came before it is
    /// sent first).
    pub fn next_step(&mut self) -> anyhow::Result<Option<Step>> {
        loop {
            if let Some(step) = self.builder.pop_ready() {
                return Ok(Some(step));
            }
            if !self.read_one() {
                if let Some(step) = self.builder.pop_ready() {
                    return Ok(Some(step));
                }
                return match self.error.take() {
                    Some(why) => Err(Unreadable(why).into()),
                    None => Ok(None),
                };
            }
        }
    }

    /// The recorded answer to a live server request for `method`, its id set to
    /// `id`: read ahead for it (at most [`ANSWER_READ_AHEAD`] steps) when the
    /// recording has not reached it yet; `None` when it holds no more.
    pub fn answer(&mut self, method: &str, id: &Value) -> Option<Value> {
        loop {
            if let Some(mut a) = self
                .builder
                .answers
                .get_mut(method)
                .and_then(VecDeque::pop_front)
            {
                a["id"] = id.clone();
                return Some(a);
            }
            if self.builder.steps.len() >= ANSWER_READ_AHEAD || !self.read_one() {
                return None;
            }
        }
    }
}
