//! The page's resend on a stdio tap (`tap --ui -- SERVER`): a request the person
//! edited on the page, written to the server's stdin as one line between the
//! client's lines, and the server's answer to it kept from the client, which never
//! asked.
//!
//! The client→server copy runs in whole-line mode (as `--intercept`'s, through the
//! same [`Interceptor`]), and every line it passes is recorded and written under one
//! lock that the resend takes too: a resend never lands inside a client's line, and
//! the lane's bytes, in the recording's order, are exactly what the server got. A
//! client's message the tap holds does not hold the lock: the page's resend is no
//! message of the client's, so it is not behind it. The
//! recording marks the resend ([`HoldStep::Resent`], the line) before its bytes, and
//! its answer ([`HoldStep::Answered`], the answer's bytes: it is no byte of the
//! lane's, since the client never got it).
//!
//! The answer is the first response from the server that carries the resend's
//! exact id (JSON-RPC 2.0 §5: a response has the id of the request it answers).
//! What is refused, said: an id the client is waiting on an answer for (the two
//! answers could not be told apart), an id a resend still waits on, a message that
//! is no request (a notification has no answer to show; a response answers what the
//! server asked the client, which only the client may answer), and a resend while
//! the client is writing a line too long to be passed whole (`--max-message-bytes`).
//! Should the client send a request with the id of a resend still waiting, the first
//! answer with that id is taken as the resend's (it was written first).

use super::intercept::Interceptor;
use crate::lock::Locked;
use crate::ui::live::{self, Live, Refusal, Sent};
use crate::wire::event::{Dir, HoldStep, Intercepted, Lane, What};
use crate::wire::recorder::Recorder;
use bytes::Bytes;
use hyper::StatusCode;
use serde_json::{Value, json};
use std::collections::{HashMap, HashSet};
use std::io::Write;
use std::sync::{Arc, Mutex};

/// The server's stdin as the tap and the page share it.
struct Pipe {
    /// The child's stdin; none once the client closed ours (and so the server's).
    to: Option<std::fs::File>,
    /// The last bytes written ended inside a line (a line too long to hold whole
    /// was passed on as it came): a resend now would land inside it.
    mid_line: bool,
}

/// A stdio tap's resends: the shared stdin, and the ids in flight each way.
pub struct Resender {
    /// Where the resend's marks and bytes are recorded.
    recorder: Recorder,
    /// The tap's interceptor: whole lines, and the count holds and resends share.
    intercept: Arc<Interceptor>,
    /// The stdio lane; set when the server is spawned.
    lane: Lane,
    /// The server's stdin; set when the server is spawned.
    pipe: Mutex<Pipe>,
    /// The ids (as JSON text) of the client's requests the server has not answered.
    asked: Mutex<HashSet<String>>,
    /// The ids (as JSON text) of the page's resends not answered yet, each with
    /// its number.
    resent: Mutex<HashMap<String, u64>>,
}

/// The id of a JSON-RPC message, as its JSON text, and whether it is a request
/// (it has a method); none for a line that is no single message with an id.
fn id_of(line: &[u8]) -> Option<(String, bool)> {
    let m: Value = serde_json::from_slice(line).ok()?;
    let id = m.get("id").filter(|id| !id.is_null())?;
    Some((id.to_string(), m.get("method").is_some()))
}

impl Resender {
    /// The resends of a tap recording with `recorder`, passing lines through
    /// `intercept`, on `lane` (the tap's stdio lane); the stdin comes with
    /// [`attach`](Self::attach).
    pub fn new(recorder: Recorder, intercept: Arc<Interceptor>, lane: Lane) -> Resender {
        Resender {
            recorder,
            intercept,
            lane,
            pipe: Mutex::new(Pipe {
                to: None,
                mid_line: false,
            }),
            asked: Mutex::default(),
            resent: Mutex::default(),
        }
    }

    /// The interceptor the tap's lines pass through.
    pub fn interceptor(&self) -> &Arc<Interceptor> {
        &self.intercept
    }

    /// The server is spawned: this is its stdin.
    pub fn attach(&self, stdin: std::fs::File) {
        self.pipe.locked().to = Some(stdin);
    }

    /// The client closed our stdin: the server's is closed too.
    pub fn close(&self) {
        self.pipe.locked().to = None;
    }

    /// One whole line from the client, passed through the interceptor (held when
    /// its filter says): what crosses is recorded and written under the lock a
    /// resend takes; the wait for a decision is not (a resend goes on meanwhile:
    /// it is the page's, not behind the client's held message).
    pub fn client_line(&self, line: &[u8]) -> std::io::Result<()> {
        self.intercept
            .pass_with(&self.recorder, self.lane, Dir::ToServer, line, &mut |b| {
                let mut pipe = self.pipe.locked();
                // What the server gets: a request's id is now in flight.
                if let Some((id, true)) = id_of(b) {
                    self.asked.locked().insert(id);
                }
                self.recorder.bytes(self.lane, Dir::ToServer, b);
                pipe.mid_line = false;
                match &mut pipe.to {
                    Some(to) => to.write_all(b),
                    None => Err(std::io::Error::new(
                        std::io::ErrorKind::BrokenPipe,
                        "the server's stdin is closed",
                    )),
                }
            })
    }

    /// Bytes from the client that are not a whole line (one too long to hold, or
    /// what was left at the end): recorded and written as they are.
    pub fn client_part(&self, part: &[u8]) -> std::io::Result<()> {
        let mut pipe = self.pipe.locked();
        self.recorder.bytes(self.lane, Dir::ToServer, part);
        if !part.is_empty() {
            pipe.mid_line = !part.ends_with(b"\n");
        }
        match &mut pipe.to {
            Some(to) => to.write_all(part),
            None => Ok(()),
        }
    }

    /// One whole line from the server: true when it answers a resend (recorded as
    /// the resend's answer; the caller does not pass it on).
    pub fn server_line(&self, line: &[u8]) -> bool {
        let Some((id, false)) = id_of(line) else {
            return false;
        };
        if let Some(n) = self.resent.locked().remove(&id) {
            self.recorder.emit(
                self.lane,
                Dir::ToClient,
                What::Intercept(Box::new(Intercepted {
                    hold: n,
                    step: HoldStep::Answered,
                    bytes: Bytes::copy_from_slice(line),
                })),
            );
            return true;
        }
        self.asked.locked().remove(&id);
        false
    }

    /// Writes the page's `message` to the server as one line; what to tell the page.
    /// Waits (briefly) while the client's copy writes a line.
    pub fn resend(&self, message: &str) -> Sent {
        let (m, id) = live::request_of(message)?;
        let key = id.to_string();
        let conflict = |why: String| Refusal::new(StatusCode::CONFLICT, why);
        // One message is one line on stdio (2025-11-25 basic/transports "stdio":
        // messages are delimited by newlines and MUST NOT contain embedded ones).
        let mut line = if message.contains(['\n', '\r']) {
            m.to_string().into_bytes()
        } else {
            message.trim().as_bytes().to_vec()
        };
        line.push(b'\n');
        // Under the lock the client's lines take: nothing of theirs is half written,
        // and the ids in flight are as the server has them.
        let mut pipe = self.pipe.locked();
        if self.asked.locked().contains(&key) {
            return Err(conflict(format!(
                "id {key} is in flight from the client (its request is not answered yet): the server's two answers could not be told apart; give the resend another id"
            )));
        }
        if self.resent.locked().contains_key(&key) {
            return Err(conflict(format!(
                "id {key} is an earlier resend's, still waiting for its answer; give this one another id"
            )));
        }
        if pipe.mid_line {
            return Err(conflict(
                "the client is writing a line too long to be passed whole (--max-message-bytes): a resend now would land inside it; try again when it ends".into(),
            ));
        }
        let Some(to) = pipe.to.as_mut() else {
            return Err(conflict(
                "the server's stdin is closed (the client ended the session): nothing more can be sent to it".into(),
            ));
        };
        let n = self.intercept.number();
        self.resent.locked().insert(key, n);
        self.recorder.emit(
            self.lane,
            Dir::ToServer,
            What::Intercept(Box::new(Intercepted {
                hold: n,
                step: HoldStep::Resent,
                bytes: Bytes::copy_from_slice(&line),
            })),
        );
        self.recorder.bytes(self.lane, Dir::ToServer, &line);
        if let Err(e) = to.write_all(&line) {
            self.resent.locked().remove(&id.to_string());
            return Err(Refusal::new(
                StatusCode::BAD_GATEWAY,
                format!("writing to the server's stdin failed: {e}"),
            ));
        }
        Ok(json!({
            "resend": n,
            "id": id,
            "sent": String::from_utf8_lossy(&line),
        }))
    }
}

/// The [`Live`] of a shared [`Resender`], for the page.
pub struct Shared(
    /// The tap's resends, shared with its copying threads.
    pub Arc<Resender>,
);

impl Live for Shared {
    fn send(
        &self,
        message: String,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = Sent> + Send + '_>> {
        let resender = self.0.clone();
        Box::pin(async move {
            tokio::task::spawn_blocking(move || resender.resend(&message))
                .await
                .unwrap_or_else(|e| {
                    Err(Refusal::new(
                        StatusCode::INTERNAL_SERVER_ERROR,
                        format!("the resend stopped: {e}"),
                    ))
                })
        })
    }
}
