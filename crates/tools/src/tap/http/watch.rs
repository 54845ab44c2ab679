//! Where one relayed connection's two directions are in their HTTP/1.1 messages
//! (RFC 9112 §2: a head, then a body its headers frame), read with the wire view's
//! framer without changing a byte: what the header and idle clocks need.

use super::limits;
use crate::wire::http1;
use std::time::Duration;

/// The header and idle clocks of one relayed connection.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Clocks {
    /// `--header-timeout`.
    pub header_timeout: Duration,
    /// `--idle-timeout`.
    pub idle_timeout: Duration,
}

/// Where one connection's two directions are in their HTTP messages (read with the
/// wire view's framer, never to change a byte): what the header and idle clocks of
/// `serve --http` need (`transport/http/conn.rs`), kept for a relay that does not
/// parse HTTP to pass it on.
pub(super) struct Watch {
    /// The client's requests.
    requests: http1::Framer,
    /// The target's responses.
    responses: http1::Framer,
    /// Request heads complete.
    asked: u64,
    /// Final responses (not 1xx) complete.
    answered: u64,
    /// Since when a request head has been arriving (or, on a new connection, since
    /// it was accepted): the header clock runs from here.
    head_started: Option<std::time::Instant>,
    /// Since when nothing has been in flight: the idle clock runs from here.
    idle_since: std::time::Instant,
    /// A response head was final (not 1xx), so its end counts as an answer.
    final_head: bool,
    /// The framing broke, or the connection switched protocols (101): requests and
    /// responses cannot be told apart any more, so only silence is measured.
    opaque: bool,
    /// The last read, either way: an opaque connection silent for the idle timeout
    /// is closed, so bytes that are not HTTP cannot hold a relay slot forever.
    last_activity: std::time::Instant,
    /// Messages held now (`--intercept`): while one waits for the page, no clock
    /// closes the connection (the hold has its own deadline).
    holding: u32,
}

impl Watch {
    pub(super) fn new() -> Watch {
        let now = std::time::Instant::now();
        Watch {
            requests: http1::Framer::new(http1::Side::Request, limits::MAX_HEAD_BYTES),
            responses: http1::Framer::new(http1::Side::Response, limits::MAX_HEAD_BYTES),
            asked: 0,
            answered: 0,
            // RFC 9112 §9.3 lets a server close a connection that sends nothing; as
            // `serve` does, a new connection counts as a head begun.
            head_started: Some(now),
            idle_since: now,
            final_head: false,
            opaque: false,
            last_activity: now,
            holding: 0,
        }
    }

    /// A message of this connection is held (`true`) or no longer (`false`).
    pub(super) fn hold(&mut self, held: bool) {
        if held {
            self.holding += 1;
        } else {
            self.holding = self.holding.saturating_sub(1);
            self.last_activity = std::time::Instant::now();
            if self.head_started.is_some() {
                self.head_started = Some(self.last_activity);
            }
        }
    }

    /// The tap answered a request itself (it was dropped at the tap): one answer
    /// fewer awaited from the target.
    pub(super) fn answered_by_tap(&mut self) {
        self.answered += 1;
        if self.answered >= self.asked {
            self.idle_since = std::time::Instant::now();
        }
    }

    /// The client sent `bytes`; whether a clock moved.
    pub(super) fn requested(&mut self, bytes: &[u8]) -> bool {
        self.last_activity = std::time::Instant::now();
        let before = (self.head_started, self.asked, self.opaque);
        for part in self.requests.feed(bytes) {
            match part {
                http1::Part::Head(_) => {
                    self.asked += 1;
                    self.head_started = None;
                }
                http1::Part::Invalid(_) => self.opaque = true,
                _ => {}
            }
        }
        if self.head_started.is_none() && self.requests.head_in_progress() > 0 {
            self.head_started = Some(std::time::Instant::now());
        }
        (self.head_started, self.asked, self.opaque) != before
    }

    /// The target sent `bytes`; whether a clock moved.
    pub(super) fn answered(&mut self, bytes: &[u8]) -> bool {
        self.last_activity = std::time::Instant::now();
        let before = (self.answered, self.opaque);
        for part in self.responses.feed(bytes) {
            match part {
                http1::Part::Head(head) => {
                    let status = head.status().unwrap_or(0);
                    // 101: what follows is another protocol (RFC 9110 §15.2.2).
                    self.opaque |= status == 101;
                    self.final_head = status >= 200;
                }
                http1::Part::End if self.final_head => {
                    self.answered += 1;
                    self.final_head = false;
                    if self.answered >= self.asked {
                        self.idle_since = std::time::Instant::now();
                    }
                }
                http1::Part::Invalid(_) => self.opaque = true,
                _ => {}
            }
        }
        (self.answered, self.opaque) != before
    }

    /// A request is waiting for its answer.
    pub(super) fn in_flight(&self) -> bool {
        self.asked > self.answered
    }

    /// When the connection is to be closed, and why; `None` while a request is in
    /// flight and no head is arriving.
    pub(super) fn deadline(&self, config: &Clocks) -> Option<(std::time::Instant, String)> {
        if self.holding > 0 {
            return None;
        }
        if self.opaque {
            return Some((
                self.last_activity.checked_add(config.idle_timeout)?,
                format!(
                    "no bytes either way for {} s on a connection that is no longer HTTP (tap --idle-timeout): closed",
                    config.idle_timeout.as_secs_f64()
                ),
            ));
        }
        if let Some(t) = self.head_started {
            return Some((
                t.checked_add(config.header_timeout)?,
                format!(
                    "no complete request head within {} s (tap --header-timeout): closed",
                    config.header_timeout.as_secs_f64()
                ),
            ));
        }
        if self.in_flight() {
            return None;
        }
        Some((
            self.idle_since.checked_add(config.idle_timeout)?,
            format!(
                "idle for {} s between requests (tap --idle-timeout): closed",
                config.idle_timeout.as_secs_f64()
            ),
        ))
    }
}
