//! The counts a scrape renders, kept up to date from the wire's events: each request
//! [`Live`](crate::stats::live::Live) hands back once answered, each HTTP head, SSE
//! event and message end its reader sees, each lane's bytes. Nothing here is told
//! anything by the server: what did not cross the wire is not counted.

use super::histogram::Histogram;
use super::names;
use crate::stats::items::{Call, Outcome};
use crate::wire::decode::Fact;
use crate::wire::event::{Dir, Event, Lane, LaneKind, What};
use crate::wire::http::SESSION_ID;
use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::time::{Duration, Instant};

/// The HTTP statuses the limits answer with: 408 (a body too slow), 413 (a body too
/// large), 429 (too many requests), 431 (a head too large), 503 (too many sessions or
/// connections). `mcp_raw_limit_refusals_total` shows each, zero included.
pub const LIMIT_STATUSES: [u16; 5] = [408, 413, 429, 431, 503];

/// How the server ends legacy sessions on its own, without a byte on the wire
/// (`serve --init-timeout`, `--session-timeout`): the tally ends a session after the
/// same time without seeing it used. Unknown for a tap (its server's are its own).
#[derive(Debug, Clone, Copy)]
pub struct Expiry {
    /// A session issued and never used again ends after this (`--init-timeout`);
    /// zero: never.
    pub unused: Duration,
    /// A session used ends after this long unused (`--session-timeout`); zero: never.
    pub idle: Duration,
}

/// A legacy session seen issued.
#[derive(Debug, Clone, Copy)]
struct Seen {
    /// When a request last carried it (or when it was issued).
    at: Instant,
    /// A request has carried it since it was issued.
    used: bool,
}

/// A request head waiting for its response, on one lane.
#[derive(Debug)]
struct Asked {
    /// `DELETE` ends the session it names.
    delete: bool,
    /// The `Mcp-Session-Id` it carried.
    session: Option<String>,
}

/// Every count a scrape shows.
#[derive(Debug)]
pub struct Tally {
    /// Requests answered or given up, by transport, method, outcome and error code.
    pub(super) requests: BTreeMap<(&'static str, &'static str, &'static str, String), u64>,
    /// Latency of answered requests, by transport and method.
    pub(super) durations: BTreeMap<(&'static str, &'static str), Histogram>,
    /// Requests sent and not answered yet (the live reader's open ones).
    pub(super) in_flight: usize,
    /// Requests not followed because the live reader had its most open already.
    pub(super) untracked: u64,
    /// HTTP responses by status (1xx interim responses included).
    pub(super) responses: BTreeMap<String, u64>,
    /// Legacy sessions open: issued, not yet ended.
    sessions: HashMap<String, Seen>,
    /// Sessions kept at most (`--metrics-max-sessions`).
    max_sessions: usize,
    /// Sessions issued.
    pub(super) issued: u64,
    /// Sessions ended: by `DELETE`, by a `404` to a request naming it, by expiry.
    pub(super) ended: [u64; 3],
    /// Sessions issued past `max_sessions`, not followed.
    pub(super) sessions_untracked: u64,
    /// When sessions end on their own, if known.
    expiry: Option<Expiry>,
    /// Request heads waiting for their responses, per HTTP lane (HTTP/1.1 answers in
    /// order, RFC 9112 §9.3.2).
    asked: HashMap<Lane, VecDeque<Asked>>,
    /// HTTP lanes whose current response is an event stream.
    sse: HashSet<Lane>,
    /// Event streams begun.
    pub(super) sse_total: u64,
    /// SSE events sent to the client.
    pub(super) sse_events: u64,
    /// Bytes by transport and direction (to the server, to the client).
    pub(super) bytes: BTreeMap<(&'static str, &'static str), u64>,
    /// Events read.
    pub(super) events: u64,
}

/// The `how` label of `mcp_raw_sessions_ended_total`: deleted, not found, expired.
pub const ENDED: [&str; 3] = ["deleted", "not_found", "expired"];

impl Tally {
    /// An empty tally following at most `max_sessions` sessions.
    pub fn new(max_sessions: usize) -> Tally {
        Tally {
            requests: BTreeMap::new(),
            durations: BTreeMap::new(),
            in_flight: 0,
            untracked: 0,
            responses: BTreeMap::new(),
            sessions: HashMap::new(),
            max_sessions,
            issued: 0,
            ended: [0; 3],
            sessions_untracked: 0,
            expiry: None,
            asked: HashMap::new(),
            sse: HashSet::new(),
            sse_total: 0,
            sse_events: 0,
            bytes: BTreeMap::new(),
            events: 0,
        }
    }

    /// Sets how sessions end on their own (`serve`, `bridge`: their session timeouts).
    pub fn expire(&mut self, expiry: Expiry) {
        self.expiry = Some(expiry);
    }

    /// Legacy sessions open now, those past their expiry ended first.
    pub fn sessions_open(&mut self) -> usize {
        if let Some(Expiry { unused, idle }) = self.expiry {
            let now = Instant::now();
            let before = self.sessions.len();
            self.sessions.retain(|_, s| {
                let limit = if s.used { idle } else { unused };
                limit.is_zero() || now.duration_since(s.at) < limit
            });
            self.ended[2] += (before - self.sessions.len()) as u64;
        }
        self.sessions.len()
    }

    /// SSE streams open now.
    pub fn sse_open(&self) -> usize {
        self.sse.len()
    }

    /// Counts one event's own facts: its bytes, a lane closed.
    pub fn event(&mut self, e: &Event) {
        self.events += 1;
        match &e.what {
            What::Bytes(b) => {
                let key = (transport(e.lane.kind), direction(e.dir));
                *self.bytes.entry(key).or_default() += b.len() as u64;
            }
            What::Close(_) => {
                // A lane closed ends its event stream and the requests it still waited on.
                self.sse.remove(&e.lane);
                self.asked.remove(&e.lane);
            }
            _ => {}
        }
    }

    /// Counts one framing fact the reader found in an event.
    pub fn fact(&mut self, e: &Event, fact: &Fact) {
        match fact {
            Fact::Head(head) if e.lane.kind == LaneKind::Http => {
                if head.method().is_some() {
                    let session = head.header(SESSION_ID).map(str::to_owned);
                    if let Some(s) = session.as_ref().and_then(|s| self.sessions.get_mut(s)) {
                        s.at = Instant::now();
                        s.used = true;
                    }
                    self.asked.entry(e.lane).or_default().push_back(Asked {
                        delete: head.method() == Some("DELETE"),
                        session,
                    });
                } else if let Some(status) = head.status() {
                    *self.responses.entry(names::status(status)).or_default() += 1;
                    if (100..200).contains(&status) {
                        return;
                    }
                    let asked = self.asked.get_mut(&e.lane).and_then(VecDeque::pop_front);
                    self.response(status, head.header(SESSION_ID), asked);
                    let stream = head.header("content-type").is_some_and(|v| {
                        v.trim_start()
                            .to_ascii_lowercase()
                            .starts_with("text/event-stream")
                    });
                    if stream {
                        self.sse.insert(e.lane);
                        self.sse_total += 1;
                    }
                }
            }
            Fact::Sse(_) if e.dir == Dir::ToClient => self.sse_events += 1,
            Fact::End if e.dir == Dir::ToClient => {
                self.sse.remove(&e.lane);
            }
            _ => {}
        }
    }

    /// A response's effect on the sessions: an `Mcp-Session-Id` issued by a 2xx (MCP
    /// 2025-11-25 `basic/transports` "Session Management"), a session ended by a 2xx
    /// to `DELETE`, or found gone by a `404` to a request naming it.
    fn response(&mut self, status: u16, issued: Option<&str>, asked: Option<Asked>) {
        let ok = (200..300).contains(&status);
        if let Some(Asked {
            delete,
            session: Some(s),
        }) = &asked
        {
            let ended = if *delete && ok {
                Some(0)
            } else if status == 404 {
                Some(1)
            } else {
                None
            };
            if let Some(how) = ended
                && self.sessions.remove(s).is_some()
            {
                self.ended[how] += 1;
            }
            return;
        }
        if let Some(id) = issued.filter(|_| ok)
            && !self.sessions.contains_key(id)
        {
            self.issued += 1;
            if self.sessions.len() >= self.max_sessions {
                self.sessions_untracked += 1;
                return;
            }
            self.sessions.insert(
                id.to_owned(),
                Seen {
                    at: Instant::now(),
                    used: false,
                },
            );
        }
    }

    /// Counts a request answered (or given up).
    pub fn call(&mut self, c: &Call) {
        let transport = Lane::from_label(&c.lane).map_or("http", |l| transport(l.kind));
        let method = names::method(&c.method);
        let (outcome, code) = match &c.outcome {
            Outcome::Ok => ("ok", String::new()),
            Outcome::InputRequired => ("input_required", String::new()),
            Outcome::ToolError => ("tool_error", String::new()),
            Outcome::Error(code) => ("error", names::error_code(*code)),
            Outcome::Unanswered => ("unanswered", String::new()),
        };
        *self
            .requests
            .entry((transport, method, outcome, code))
            .or_default() += 1;
        if let Some(latency) = c.latency()
            && c.outcome != Outcome::Unanswered
        {
            self.durations
                .entry((transport, method))
                .or_default()
                .observe(latency.as_secs_f64());
        }
    }
}

/// The `transport` label of a lane's kind.
fn transport(kind: LaneKind) -> &'static str {
    match kind {
        LaneKind::Http => "http",
        LaneKind::Stdio => "stdio",
        LaneKind::Stderr => "stderr",
    }
}

/// The `direction` label.
fn direction(dir: Dir) -> &'static str {
    match dir {
        Dir::ToServer => "to_server",
        Dir::ToClient => "to_client",
    }
}
