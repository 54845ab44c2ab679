//! Which request a child's line belongs to. A request forwarded to the child waits
//! here for the response with its id; what the child sends while requests wait
//! (notifications, and in a legacy session requests to the client) goes to the
//! outbox of the request it belongs to, so it travels on that request's stream
//! (2025-11-25 `basic/transports` "Sending Messages to the Server": the server MAY
//! send requests and notifications on the stream before the response; 2026-07-28
//! `basic/transports/streamable-http` the same, notifications only). With nothing
//! waiting it goes to the push (GET) stream, if one is open.
//!
//! The shared child of modern requests serves many clients at once, so their ids
//! may collide: there each request is given a unique id (`bridge-N`) on its way in
//! and its own back on the way out ([`Routes::new`]'s `rewrite`).

use super::child::FromChild;
use crate::jsonrpc::{ErrorObject, Message, Request, RequestId, Response, code};
use crate::protocol::context::Out;
use crate::protocol::subscriptions::{SUBSCRIPTION_ID, Sink};
use serde_json::Value;
use tokio::sync::{mpsc, oneshot};

/// One request waiting for the child's answer.
struct Waiting {
    /// Its id as the child knows it (rewritten on the shared child).
    child_id: RequestId,
    /// Its id as the client sent it: the response goes back with this one.
    client_id: RequestId,
    /// `params._meta.progressToken`: the child's progress notifications name it.
    progress_token: Option<Value>,
    /// A modern `subscriptions/listen`: its stream carries only the notifications
    /// tagged with its id (2026-07-28 `basic/patterns/subscriptions`), never another
    /// request's log lines.
    listens: bool,
    /// Where the child's messages for this request go, before its response.
    outbox: mpsc::UnboundedSender<Out>,
    /// Where its response goes.
    answer: oneshot::Sender<Response>,
}

/// What [`Routes::start`] hands the caller for one forwarded request.
pub struct Started {
    /// The id written to the child.
    pub child_id: RequestId,
    /// The child's response, its id the client's.
    pub answer: oneshot::Receiver<Response>,
    /// The child's messages for this request.
    pub outbox: mpsc::UnboundedReceiver<Out>,
}

/// The requests one child is answering, and where its other messages go.
pub struct Routes {
    /// Give each request a unique id (the shared modern child).
    rewrite: bool,
    /// The number in the next `bridge-N` id.
    next: u64,
    /// Requests waiting, oldest first.
    waiting: Vec<Waiting>,
    /// The session's GET stream, while one is open.
    push: Option<Sink>,
    /// Why the child can answer nothing any more, once it cannot.
    gone: Option<String>,
    /// "child N", to name it in log lines.
    name: String,
}

impl Routes {
    /// An empty table; `rewrite` turns request-id rewriting on, `name` labels the
    /// child in logs.
    pub fn new(rewrite: bool, name: String) -> Routes {
        Routes {
            rewrite,
            next: 0,
            waiting: Vec::new(),
            push: None,
            gone: None,
            name,
        }
    }

    /// Sets the name once the child's number is known.
    pub fn rename(&mut self, name: String) {
        self.name = name;
    }

    /// Why the child is gone, if it is.
    pub fn gone(&self) -> Option<&str> {
        self.gone.as_deref()
    }

    /// Registers `request` as waiting (giving it its child-side id when rewriting);
    /// `Err` with the reason when the child is gone.
    pub fn start(&mut self, request: &mut Request) -> Result<Started, String> {
        if let Some(why) = &self.gone {
            return Err(why.clone());
        }
        let client_id = request.id.clone();
        if self.rewrite {
            self.next += 1;
            request.id = RequestId::from(format!("bridge-{}", self.next));
        }
        let progress_token = request
            .params
            .as_deref()
            .and_then(|p| p.get("_meta"))
            .and_then(|m| m.get("progressToken"))
            .cloned();
        let (outbox, outbox_rx) = mpsc::unbounded_channel();
        let (answer, answer_rx) = oneshot::channel();
        self.waiting.push(Waiting {
            child_id: request.id.clone(),
            client_id,
            progress_token,
            listens: request.method == "subscriptions/listen",
            outbox,
            answer,
        });
        Ok(Started {
            child_id: request.id.clone(),
            answer: answer_rx,
            outbox: outbox_rx,
        })
    }

    /// Stops waiting for `child_id` (the client cancelled, or stopped listening).
    /// Returns whether it was still waiting.
    pub fn forget(&mut self, child_id: &RequestId) -> bool {
        let before = self.waiting.len();
        self.waiting.retain(|w| &w.child_id != child_id);
        self.waiting.len() != before
    }

    /// The session's GET stream, from now on.
    pub fn set_push(&mut self, sink: Sink) {
        self.push = Some(sink);
    }

    /// Takes one thing the child's stdout yielded; returns what to write back to the
    /// child at once, if anything (the answers to requests nobody can take).
    pub fn from_child(&mut self, what: FromChild) -> Option<Vec<u8>> {
        match what {
            FromChild::Line(line) if line.iter().all(u8::is_ascii_whitespace) => {}
            FromChild::Line(line) => return self.line(&line),
            FromChild::TooLong(len) => self.broken(format!(
                "the stdio server ({}) wrote a line of {len} bytes, longer than the bridge reads (--max-body-bytes)",
                self.name
            )),
            FromChild::Gone(why) => {
                self.gone = Some(why.clone());
                self.fail_all(&why);
                self.push = None;
            }
        }
        None
    }

    fn line(&mut self, line: &[u8]) -> Option<Vec<u8>> {
        let value: Value = match serde_json::from_slice(line) {
            Ok(v) => v,
            Err(e) => {
                self.broken(format!(
                    "the stdio server ({}) wrote a line that is not JSON ({e}): {}",
                    self.name,
                    quote(line)
                ));
                return None;
            }
        };
        // A batch of responses is never asked for; its items are taken one by one.
        let items = match value {
            Value::Array(items) => items,
            one => vec![one],
        };
        let mut back = Vec::new();
        for item in items {
            match crate::jsonrpc::classify(item) {
                Ok(Message::Response(r)) => self.answer(r),
                Ok(Message::Request(r)) => {
                    let id = r.id.clone();
                    if !self.route(r.to_value()) {
                        // JSON-RPC 2.0 §4: a request is answered; nobody else will.
                        back.push(Response::error(
                            Some(id),
                            ErrorObject::new(
                                code::INTERNAL_ERROR,
                                "the bridge has no stream open to the client to carry this request (no request of the client is running and no GET stream is open)",
                            ),
                        ));
                    }
                }
                Ok(Message::Notification(n)) => {
                    self.route(n.to_value());
                }
                Err(_) => self.broken(format!(
                    "the stdio server ({}) wrote a line that is not a JSON-RPC message: {}",
                    self.name,
                    quote(line)
                )),
            }
        }
        // One line per answer (the writer ends the last with its newline).
        (!back.is_empty()).then(|| {
            back.iter()
                .map(Response::to_bytes)
                .collect::<Vec<_>>()
                .join(&b'\n')
        })
    }

    /// The child broke the stdio framing ("the server MUST NOT write anything to its
    /// stdout that is not a valid MCP message"): every waiting request gets an error
    /// that says what happened; the child may still answer later requests.
    fn broken(&mut self, why: String) {
        log::warn!("[mcp-raw] bridge: {why}");
        self.fail_all(&why);
    }

    /// Every waiting request gets `-32603` with `why`.
    fn fail_all(&mut self, why: &str) {
        for w in self.waiting.drain(..) {
            let _ = w.answer.send(Response::error(
                Some(w.client_id),
                ErrorObject::new(code::INTERNAL_ERROR, why.to_owned()),
            ));
        }
    }

    /// A response from the child, to the request with its id.
    fn answer(&mut self, mut response: Response) {
        let at = match &response.id {
            Some(id) => self.waiting.iter().position(|w| &w.child_id == id),
            // An error about a line it could not read: ours, when only one waits.
            None if self.waiting.len() == 1 => Some(0),
            None => None,
        };
        let Some(at) = at else {
            log::warn!(
                "[mcp-raw] bridge: the stdio server ({}) answered {} which no request waits for: dropped",
                self.name,
                response
                    .id
                    .as_ref()
                    .map_or("null".to_owned(), |i| i.to_value().to_string())
            );
            return;
        };
        let w = self.waiting.remove(at);
        response.id = Some(w.client_id);
        let _ = w.answer.send(response);
    }

    /// A notification or request from the child: to the waiting request it names (a
    /// progress token, a subscription id), else, for list changes and resource
    /// updates, the push stream; else the oldest waiting request (a listener aside);
    /// else the push stream; else nowhere (said on stderr, and `false` returned).
    /// Untagged messages of a child serving several requests at once cannot be told
    /// apart: the oldest is a guess, the one the stdio wire leaves.
    fn route(&mut self, mut message: Value) -> bool {
        let params = message.get("params");
        let token = params.and_then(|p| p.get("progressToken"));
        let subscription = params
            .and_then(|p| p.get("_meta"))
            .and_then(|m| m.get(SUBSCRIPTION_ID))
            .and_then(RequestId::from_value);
        let named = self.waiting.iter().position(|w| {
            token.is_some_and(|t| w.progress_token.as_ref() == Some(t))
                || subscription.as_ref() == Some(&w.child_id)
        });
        if let (Some(at), Some(_)) = (named, &subscription) {
            // The child tagged it with the id it knows; the client knows its own.
            message["params"]["_meta"][SUBSCRIPTION_ID] = self.waiting[at].client_id.to_value();
        }
        let method = message
            .get("method")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned();
        let unprompted =
            method.ends_with("/list_changed") || method == "notifications/resources/updated";
        let target = match named {
            Some(at) => Some(at),
            None if unprompted && self.push.is_some() => None,
            None => self
                .waiting
                .iter()
                .position(|w| !w.listens && !w.outbox.is_closed()),
        };
        if let Some(at) = target
            && self.waiting[at]
                .outbox
                .send(Out::Message(message.clone()))
                .is_ok()
        {
            return true;
        }
        if let Some(push) = &self.push {
            if push(message) {
                return true;
            }
            // The GET stream closed.
            self.push = None;
        }
        log::warn!(
            "[mcp-raw] bridge: the stdio server ({}) sent {method} while no request waits and no GET stream is open: dropped",
            self.name
        );
        false
    }
}

/// A line as it can be quoted in an error message: lossy UTF-8, at most 200
/// characters.
fn quote(line: &[u8]) -> String {
    let text = String::from_utf8_lossy(line);
    let mut short: String = text.chars().take(200).collect();
    if short.len() < text.len() {
        short.push('…');
    }
    format!("{short:?}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn request(id: i64, method: &str, params: Value) -> Request {
        Request::new(RequestId::from(id), method, Some(params))
    }

    #[test]
    fn shared_ids_are_rewritten_and_mapped_back() {
        let mut routes = Routes::new(true, "child 1".into());
        let mut a = request(1, "tools/list", json!({}));
        let mut b = request(1, "tools/list", json!({}));
        let mut sa = routes.start(&mut a).unwrap();
        let mut sb = routes.start(&mut b).unwrap();
        assert_ne!(a.id, b.id);
        routes.from_child(FromChild::Line(
            format!(
                r#"{{"jsonrpc":"2.0","id":{},"result":{{"n":2}}}}"#,
                b.id.to_value()
            )
            .into(),
        ));
        let got = sb.answer.try_recv().unwrap();
        assert_eq!(got.id, Some(RequestId::from(1)));
        assert_eq!(got.outcome, Ok(json!({"n": 2}).into()));
        assert!(sa.answer.try_recv().is_err());
    }

    #[test]
    fn garbage_fails_the_waiting_requests_with_a_quote() {
        let mut routes = Routes::new(false, "child 1".into());
        let mut r = request(7, "tools/call", json!({}));
        let mut s = routes.start(&mut r).unwrap();
        routes.from_child(FromChild::Line(Bytes::from_static(b"hello there")));
        let got = s.answer.try_recv().unwrap();
        let e = got.outcome.unwrap_err();
        assert_eq!(e.code, code::INTERNAL_ERROR);
        assert!(e.message.contains("\"hello there\""), "{}", e.message);
        // Still answering later requests.
        assert!(routes.start(&mut request(8, "ping", json!({}))).is_ok());
    }

    #[test]
    fn notifications_go_to_the_request_they_name() {
        let mut routes = Routes::new(false, "child 1".into());
        let mut first = routes.start(&mut request(1, "a", json!({}))).unwrap();
        let mut second = routes
            .start(&mut request(
                2,
                "b",
                json!({"_meta": {"progressToken": "t"}}),
            ))
            .unwrap();
        routes.from_child(FromChild::Line(Bytes::from_static(
            br#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1}}"#,
        )));
        routes.from_child(FromChild::Line(Bytes::from_static(
            br#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":1}}"#,
        )));
        assert!(
            matches!(second.outbox.try_recv(), Ok(Out::Message(m)) if m["method"] == "notifications/progress")
        );
        assert!(
            matches!(first.outbox.try_recv(), Ok(Out::Message(m)) if m["method"] == "notifications/message")
        );
        routes.from_child(FromChild::Gone("it exited with exit status: 3".into()));
        assert!(first.answer.try_recv().unwrap().outcome.is_err());
        assert!(routes.start(&mut request(3, "c", json!({}))).is_err());
    }

    #[test]
    fn a_listener_hears_its_own_notifications_not_others_log_lines() {
        let mut routes = Routes::new(true, "child 1".into());
        let mut listen = request(1, "subscriptions/listen", json!({}));
        let mut l = routes.start(&mut listen).unwrap();
        let mut c = routes
            .start(&mut request(1, "tools/call", json!({})))
            .unwrap();
        routes.from_child(FromChild::Line(Bytes::from_static(
            br#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":1}}"#,
        )));
        let tagged = json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed",
            "params": {"_meta": {SUBSCRIPTION_ID: listen.id.to_value()}}});
        routes.from_child(FromChild::Line(tagged.to_string().into()));
        assert!(
            matches!(c.outbox.try_recv(), Ok(Out::Message(m)) if m["method"] == "notifications/message")
        );
        // The listener gets the change, tagged with the client's id again.
        match l.outbox.try_recv() {
            Ok(Out::Message(m)) => assert_eq!(m["params"]["_meta"][SUBSCRIPTION_ID], 1, "{m}"),
            other => panic!("{other:?}"),
        }
        assert!(l.outbox.try_recv().is_err());
    }

    #[test]
    fn a_request_nobody_can_take_is_answered_to_the_child() {
        let mut routes = Routes::new(false, "child 1".into());
        let back = routes.from_child(FromChild::Line(Bytes::from_static(
            br#"{"jsonrpc":"2.0","id":"s1","method":"roots/list"}"#,
        )));
        let back: Value = serde_json::from_slice(&back.expect("an answer")).unwrap();
        assert_eq!(back["id"], "s1");
        assert_eq!(back["error"]["code"], code::INTERNAL_ERROR);
    }

    use bytes::Bytes;
}
