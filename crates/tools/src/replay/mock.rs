//! `mcp-raw replay FILE`: the recorded server side, served again. The recording is
//! read into exchanges: each client request or notification, and what the server
//! sent for it (notifications and requests of its own, in order, then the response).
//! A live request is matched to the first exchange not yet used whose method and
//! params are equal once what `--ignore` names is left out; its reply is the recorded
//! one with the live ids in place. No match: a JSON-RPC error that quotes what the
//! recording expected at that point.

use super::diff::{Ignore, normalize};
use crate::jsonrpc::code;
use crate::wire::decode::{Decoder, Fact, Source};
use crate::wire::event::{Dir, Event, LaneKind};
use serde_json::{Value, json};

/// One client message of the recording and what the server sent for it.
#[derive(Debug, Clone)]
pub struct Exchange {
    /// The client's message as recorded.
    pub request: Value,
    /// What the server sent for it, in order (the response last, for a request).
    pub reply: Vec<Value>,
    /// HTTP: the reply came as an event stream.
    pub streamed: bool,
    /// Served already: each recorded exchange answers once.
    pub used: bool,
}

/// A recorded answer to a request without a message (HTTP GET, DELETE).
#[derive(Debug, Clone)]
pub struct Bodiless {
    /// `GET` or `DELETE`.
    pub method: String,
    /// The status the server answered with.
    pub status: u16,
    /// Its `Content-Type`, if any.
    pub content_type: Option<String>,
    /// The body as recorded (a refusal's JSON), or, for a stream, nothing.
    pub body: Vec<u8>,
    /// A stream's messages (what a GET stream pushed), in order.
    pub pushed: Vec<Value>,
    /// Served already.
    pub used: bool,
}

/// The recorded server side.
#[derive(Debug, Default)]
pub struct Mock {
    /// The recorded exchanges, in order, each served once.
    pub exchanges: Vec<Exchange>,
    /// What GETs and DELETEs were answered, in order.
    pub bodiless: Vec<Bodiless>,
    /// Leave these out when matching (the `diff` defaults unless told).
    pub ignore: Vec<Ignore>,
    /// HTTP recording.
    pub http: bool,
}

/// What a live message gets.
#[derive(Debug, Clone, PartialEq)]
pub struct Served {
    /// The messages to send, in order (none for a notification nobody answered).
    pub messages: Vec<Value>,
    /// As an event stream (HTTP).
    pub streamed: bool,
}

impl Mock {
    /// The mock of a recording's `events`; `ignore` says what may differ in a
    /// request that still matches.
    pub fn from_events(events: &[Event], ignore: Vec<Ignore>) -> Mock {
        let mut mock = Mock {
            ignore,
            ..Mock::default()
        };
        let mut decoder = Decoder::new();
        // The exchange each server message belongs to: a response to its request's,
        // anything else to the latest client message's.
        let mut by_id: std::collections::HashMap<String, usize> = Default::default();
        // HTTP: per lane, the methods of requests not yet answered, and the bodiless
        // answer being read.
        let mut asked: std::collections::HashMap<u32, std::collections::VecDeque<String>> =
            Default::default();
        let mut reading: std::collections::HashMap<u32, usize> = Default::default();
        for e in events {
            if e.lane.kind == LaneKind::Stderr {
                continue;
            }
            mock.http |= e.lane.kind == LaneKind::Http;
            for fact in decoder.feed(e) {
                match (&fact, e.dir) {
                    (Fact::Head(h), Dir::ToServer) => {
                        let m = h.method().unwrap_or("").to_owned();
                        asked.entry(e.lane.id).or_default().push_back(m);
                        continue;
                    }
                    (Fact::Head(h), Dir::ToClient) if h.status().is_some_and(|s| s >= 200) => {
                        let m = asked.get_mut(&e.lane.id).and_then(|q| q.pop_front());
                        if let Some(m) = m.filter(|m| m == "GET" || m == "DELETE") {
                            reading.insert(e.lane.id, mock.bodiless.len());
                            mock.bodiless.push(Bodiless {
                                method: m,
                                status: h.status().unwrap_or(200),
                                content_type: h.header("content-type").map(str::to_owned),
                                body: Vec::new(),
                                pushed: Vec::new(),
                                used: false,
                            });
                        }
                        continue;
                    }
                    (Fact::End, Dir::ToClient) => {
                        reading.remove(&e.lane.id);
                        continue;
                    }
                    _ => {}
                }
                let Fact::Payload {
                    bytes,
                    source,
                    class,
                    ..
                } = fact
                else {
                    continue;
                };
                if e.dir == Dir::ToClient
                    && let Some(b) = reading
                        .get(&e.lane.id)
                        .and_then(|i| mock.bodiless.get_mut(*i))
                {
                    match source {
                        Source::SseData => {
                            if let Ok(v) = serde_json::from_slice::<Value>(&bytes) {
                                b.pushed.push(v);
                            }
                        }
                        _ => b.body.extend_from_slice(&bytes),
                    }
                    continue;
                }
                if !class.is_message() {
                    continue;
                }
                for v in crate::wire::classify::messages(&bytes) {
                    let is_response = v.get("method").is_none();
                    match e.dir {
                        Dir::ToServer if is_response => {} // the client's answers
                        Dir::ToServer => {
                            if let Some(id) = v.get("id") {
                                by_id.insert(id.to_string(), mock.exchanges.len());
                            }
                            mock.exchanges.push(Exchange {
                                request: v,
                                reply: Vec::new(),
                                streamed: false,
                                used: false,
                            });
                        }
                        Dir::ToClient => {
                            let at = if is_response {
                                v.get("id").and_then(|id| by_id.remove(&id.to_string()))
                            } else {
                                mock.exchanges.len().checked_sub(1)
                            };
                            if let Some(x) = at.and_then(|i| mock.exchanges.get_mut(i)) {
                                x.streamed |= source == Source::SseData;
                                x.reply.push(v);
                            }
                        }
                    }
                }
            }
        }
        mock
    }

    /// The recorded answer to the next live GET or DELETE.
    pub fn bodiless(&mut self, method: &str) -> Option<Bodiless> {
        let b = self
            .bodiless
            .iter_mut()
            .find(|b| !b.used && b.method == method)?;
        b.used = true;
        Some(b.clone())
    }

    /// The reply to one live client message; `None` for a client response (an
    /// answer to a recorded server request, taken as it comes).
    pub fn serve(&mut self, live: &Value) -> Option<Served> {
        let method = live.get("method").and_then(Value::as_str)?;
        let id = live.get("id");
        let want = normalize(&key(live), &self.ignore);
        let found = self.exchanges.iter().position(|x| {
            !x.used
                && x.request.get("method").and_then(Value::as_str) == Some(method)
                && x.request.get("id").is_some() == id.is_some()
                && normalize(&key(&x.request), &self.ignore) == want
        });
        let Some(i) = found else {
            return id.map(|id| Served {
                messages: vec![self.unmatched(method, id, live)],
                streamed: false,
            });
        };
        let x = &mut self.exchanges[i];
        x.used = true;
        let token = live
            .get("params")
            .and_then(|p| p.get("_meta"))
            .and_then(|m| m.get("progressToken"))
            .cloned();
        let recorded_id = x.request.get("id").cloned();
        let messages = x
            .reply
            .iter()
            .map(|m| {
                let mut m = m.clone();
                if m.get("method").is_none() && m.get("id") == recorded_id.as_ref() {
                    if let Some(id) = id {
                        m["id"] = id.clone();
                    }
                } else if let (Some(t), Some(p)) = (&token, m.get_mut("params"))
                    && p.get("progressToken").is_some()
                {
                    p["progressToken"] = t.clone();
                }
                m
            })
            .collect();
        Some(Served {
            messages,
            streamed: x.streamed,
        })
    }

    /// The error for a request the recording does not hold: what it expected next.
    fn unmatched(&self, method: &str, id: &Value, live: &Value) -> Value {
        let next = self.exchanges.iter().find(|x| !x.used);
        let expected = match next {
            Some(x) => format!("the recording's next request is {}", short(&x.request)),
            None => "every recorded request has been served".to_owned(),
        };
        let same_method = self
            .exchanges
            .iter()
            .any(|x| x.request.get("method").and_then(Value::as_str) == Some(method));
        let (c, why) = if same_method {
            (
                code::INVALID_PARAMS,
                format!(
                    "replay: no unused recorded {method} request has these params: {}; {expected}",
                    short(live.get("params").unwrap_or(&Value::Null))
                ),
            )
        } else {
            (
                code::METHOD_NOT_FOUND,
                format!("replay: the recording holds no {method} request; {expected}"),
            )
        };
        json!({"jsonrpc": "2.0", "id": id, "error": {"code": c, "message": why}})
    }
}

/// What a match compares: the method and params.
fn key(v: &Value) -> Value {
    json!({"method": v.get("method"), "params": v.get("params")})
}

fn short(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 160 {
        format!("{}…", s.chars().take(160).collect::<String>())
    } else {
        s
    }
}
