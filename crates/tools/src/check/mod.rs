//! `mcp-raw check`: the rules of JSON-RPC 2.0 and of MCP, in the era in use, applied
//! to a recording's wire events as they come. [`Checker::feed`] takes one event (from
//! a transcript read back, or live from a tap's recorder) and returns what it broke;
//! [`Checker::finish`] adds what only the end can tell (requests never answered).
//!
//! The checker reads the same facts every view does ([`crate::wire::decode`]): lines
//! on stdio ([`stdio`]), heads, bodies and SSE events on HTTP ([`http`]). Who a
//! message belongs to is decided there; what a message may be is [`scope`]'s, the
//! same for both transports. Each rule is a line in [`rules`]; a contract's terms
//! (`--expect-tool`…) are [`contract`]'s, read over the recording once it is whole.

pub mod contract;
pub mod http;
pub mod report;
pub mod rules;
pub mod scope;
pub mod security;
pub mod stdio;

use crate::wire::decode::{Decoder, Fact};
use crate::wire::event::{Dir, Event, LaneKind, What};
pub use rules::{Rule, Severity};
use std::time::Duration;

/// Where in a recording something happened.
#[derive(Debug, Clone, PartialEq)]
pub struct Spot {
    /// The lane's label: `stdio`, `c1`…
    pub lane: String,
    /// Which way the bytes went.
    pub dir: Dir,
    /// The event's time offset.
    pub t: Duration,
    /// The event's number in the recording, from 1: `show` and `jq` can find it.
    pub event: usize,
}

impl Spot {
    /// A finding of `rule` here.
    pub fn finding(&self, rule: &'static Rule, message: impl Into<String>) -> Finding {
        Finding {
            rule,
            message: message.into(),
            at: self.clone(),
        }
    }
}

impl std::fmt::Display for Spot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "event {} {} {} {:.6}s",
            self.event,
            self.lane,
            self.dir.name(),
            self.t.as_secs_f64()
        )
    }
}

/// One rule broken, once.
#[derive(Debug, Clone, PartialEq)]
pub struct Finding {
    /// The rule broken.
    pub rule: &'static Rule,
    /// What exactly was wrong, quoting the wire.
    pub message: String,
    /// Where.
    pub at: Spot,
}

/// Checks a recording, one event at a time.
pub struct Checker {
    /// The same framing every view uses.
    decoder: Decoder,
    /// Events fed so far: the next one's number is this plus one.
    events: usize,
    /// JSON-RPC messages seen (a batch counts once), for the summary.
    messages: usize,
    /// The stdio lane's conversation and its line rules.
    stdio: stdio::State,
    /// Every HTTP lane: exchanges, sessions, streams.
    http: http::State,
}

impl Default for Checker {
    fn default() -> Self {
        Checker::new()
    }
}

impl Checker {
    /// A checker with nothing seen yet.
    pub fn new() -> Checker {
        Checker::with_max(crate::wire::decode::DEFAULT_MAX_MESSAGE)
    }

    /// A checker that reads messages up to `max` bytes (longer ones are skipped, as
    /// every view skips them).
    pub fn with_max(max: usize) -> Checker {
        Checker {
            decoder: Decoder::with_max(max),
            events: 0,
            messages: 0,
            stdio: stdio::State::default(),
            http: http::State::default(),
        }
    }

    /// What this event breaks.
    pub fn feed(&mut self, event: &Event) -> Vec<Finding> {
        self.events += 1;
        let at = Spot {
            lane: event.lane.label(),
            dir: event.dir,
            t: event.t,
            event: self.events,
        };
        let mut out = Vec::new();
        if let What::Tls(facts) = &event.what {
            tls(facts, &at, &mut out);
        }
        // A stdio tap's answer to the page's resend (`answered`): the server's
        // response line, which the lane's bytes do not carry (the client never got
        // it), read as the server's next line so the resent request is answered.
        let kept;
        let event = match &event.what {
            What::Intercept(i) if i.step == crate::wire::event::HoldStep::Answered => {
                kept = Event {
                    what: What::Bytes(i.bytes.clone()),
                    ..event.clone()
                };
                &kept
            }
            _ => event,
        };
        for fact in self.decoder.feed(event) {
            if let Fact::Payload { class, .. } = &fact
                && (class.is_message() || class.shape == "invalid")
            {
                self.messages += 1;
            }
            match event.lane.kind {
                LaneKind::Stdio => self
                    .stdio
                    .fact(event.lane.id, event.dir, &fact, &at, &mut out),
                LaneKind::Http => self
                    .http
                    .fact(event.lane.id, event.dir, &fact, &at, &mut out),
                LaneKind::Stderr => {}
            }
        }
        out
    }

    /// What only the end of the recording tells: requests still unanswered.
    pub fn finish(&mut self) -> Vec<Finding> {
        let mut out = Vec::new();
        self.stdio.finish(&mut out);
        self.http.finish(&mut out);
        out
    }

    /// Events fed so far.
    pub fn events(&self) -> usize {
        self.events
    }

    /// Payloads seen so far that were (or tried to be) JSON-RPC messages.
    pub fn messages(&self) -> usize {
        self.messages
    }
}

/// What a TLS handshake's facts break: a chain let through unverified (`--insecure`),
/// a protocol older than TLS 1.2.
fn tls(facts: &crate::wire::tls::TlsFacts, at: &Spot, out: &mut Vec<Finding>) {
    if let Some(why) = &facts.unverified {
        let leaf = facts
            .chain
            .first()
            .map(|c| format!(" (certificate {}, SHA-256 {})", c.subject, c.sha256))
            .unwrap_or_default();
        out.push(at.finding(
            rules::TLS_NOT_VERIFIED,
            format!(
                "the certificate of {} was not verified: {why}{leaf}; the connection went on (--insecure)",
                facts.server_name
            ),
        ));
    }
    if !matches!(facts.version.as_str(), "TLSv1.2" | "TLSv1.3") {
        out.push(at.finding(
            rules::TLS_OLD_VERSION,
            format!(
                "the connection to {} used {}: TLS 1.2 at least",
                facts.server_name, facts.version
            ),
        ));
    }
}

/// A payload's text for a finding: lossy UTF-8, cut to a line, quoted.
pub fn quote(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let text = text.trim_end_matches(['\r', '\n']);
    let mut cut: String = text.chars().take(80).collect();
    if cut.len() < text.len() {
        cut.push('…');
    }
    format!("{cut:?}")
}
