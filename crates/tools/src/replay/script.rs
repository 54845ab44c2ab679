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
        let mut script = Script::default();
        let mut decoder = Decoder::new();
        // The server's requests, by id, to know what each client answer answered.
        let mut asked: HashMap<String, String> = HashMap::new();
        let mut head: HashMap<u32, Step> = HashMap::new();
        // Per lane, the steps whose responses are still to come, in order.
        let mut unanswered: HashMap<u32, VecDeque<usize>> = HashMap::new();
        for e in events {
            if e.lane.kind == LaneKind::Stderr {
                continue;
            }
            script.http |= e.lane.kind == LaneKind::Http;
            for fact in decoder.feed(e) {
                match (e.dir, fact) {
                    (Dir::ToClient, Fact::Payload { class, .. }) => {
                        if class.shape == "request"
                            && let (Some(id), Some(m)) = (&class.id, &class.method)
                        {
                            asked.insert(id.to_string(), m.clone());
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
                        head.insert(
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
                        let step = match head.get_mut(&e.lane.id) {
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
                        script.push(step, &asked);
                    }
                    (Dir::ToServer, Fact::End) => {
                        if let Some(step) = head.remove(&e.lane.id) {
                            unanswered
                                .entry(e.lane.id)
                                .or_default()
                                .push_back(script.steps.len());
                            script.push(step, &asked);
                        }
                    }
                    (Dir::ToClient, Fact::Head(h)) if h.status().is_some_and(|s| s >= 200) => {
                        if let Some(i) =
                            unanswered.get_mut(&e.lane.id).and_then(VecDeque::pop_front)
                            && let Some(step) = script.steps.get_mut(i)
                        {
                            step.streamed = h.is_sse();
                        }
                    }
                    _ => {}
                }
            }
        }
        script
    }

    fn push(&mut self, step: Step, asked: &HashMap<String, String>) {
        if step.is_answer()
            && let Some(m) = &step.message
        {
            let id = m.get("id").map(Value::to_string).unwrap_or_default();
            let method = asked.get(&id).cloned().unwrap_or_default();
            self.answers.entry(method).or_default().push_back(m.clone());
        }
        self.steps.push(step);
    }

    /// The recorded answer to a live server request for `method`, its id set to
    /// `id`; `None` when the recording holds no more answers for it.
    pub fn answer(&mut self, method: &str, id: &Value) -> Option<Value> {
        let mut a = self.answers.get_mut(method)?.pop_front()?;
        a["id"] = id.clone();
        Some(a)
    }
}
