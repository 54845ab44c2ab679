//! `mcp-raw stats`: a recording's numbers. Per method and per tool: how many, how many
//! failed, latency percentiles, bytes each way; per session and per lane; 2026-07-28
//! operations from first attempt to final answer; and what each tool's definition
//! costs a model's context.
//!
//! ```text
//! items.rs        a request with its answer, a notification, a head, a log line, a tool
//! ledger.rs       the recording read into requests paired with answers, notifications, tools
//! live.rs         the same reader as events arrive, each request handed back once answered
//! operations.rs   2026-07-28 retries linked by their exact requestState
//! render.rs       text, JSON and CSV
//! ```
//!
//! Figures are exact counts over the recording. Latency is answer time minus send
//! time as the recorder stamped them (microseconds). A percentile is the nearest
//! rank: the smallest value with at least p% of the values at or below it.

pub mod items;
pub mod ledger;
pub mod live;
pub mod operations;
pub mod render;

use ledger::{Call, Ledger};
use std::collections::BTreeMap;
use std::time::Duration;

/// Bytes per token for the context estimate: a tokenizer of today's models averages
/// about 4 bytes of English or JSON per token. It is an estimate, said as one.
pub const BYTES_PER_TOKEN: usize = 4;

/// Tokens estimated for `bytes`: `ceil(bytes / 4)`.
pub fn tokens(bytes: usize) -> usize {
    bytes.div_ceil(BYTES_PER_TOKEN)
}

/// The nearest-rank percentile `p` (0 < p ≤ 100) of `sorted` values.
pub fn percentile(sorted: &[Duration], p: u32) -> Option<Duration> {
    if sorted.is_empty() {
        return None;
    }
    let rank = (sorted.len() * p as usize).div_ceil(100).max(1);
    sorted.get(rank - 1).copied()
}

/// One row of counts: a method, a tool, a session, a lane.
#[derive(Debug, Clone, Default)]
pub struct Row {
    /// Requests (and, for methods, notifications).
    pub count: usize,
    /// JSON-RPC error responses.
    pub rpc_errors: usize,
    /// `tools/call` results with `isError: true`.
    pub tool_errors: usize,
    /// Requests never answered.
    pub unanswered: usize,
    /// Latencies of the answered requests, sorted.
    pub latencies: Vec<Duration>,
    /// Bytes the client sent (requests it made, answers to the server's).
    pub bytes_c2s: usize,
    /// Bytes the server sent.
    pub bytes_s2c: usize,
}

impl Row {
    /// Both kinds of error.
    pub fn errors(&self) -> usize {
        self.rpc_errors + self.tool_errors
    }

    /// The nearest-rank percentile of this row's latencies.
    pub fn p(&self, p: u32) -> Option<Duration> {
        percentile(&self.latencies, p)
    }

    fn call(&mut self, c: &Call) {
        self.count += 1;
        match c.outcome {
            ledger::Outcome::Error(_) => self.rpc_errors += 1,
            ledger::Outcome::ToolError => self.tool_errors += 1,
            ledger::Outcome::Unanswered => self.unanswered += 1,
            _ => {}
        }
        if let Some(l) = c.latency() {
            self.latencies.push(l);
        }
        let (out, back) = (c.request_bytes, c.response_bytes);
        match c.from {
            crate::wire::event::Dir::ToServer => {
                self.bytes_c2s += out;
                self.bytes_s2c += back;
            }
            crate::wire::event::Dir::ToClient => {
                self.bytes_s2c += out;
                self.bytes_c2s += back;
            }
        }
    }

    fn note(&mut self, n: &ledger::Note) {
        self.count += 1;
        match n.from {
            crate::wire::event::Dir::ToServer => self.bytes_c2s += n.bytes,
            crate::wire::event::Dir::ToClient => self.bytes_s2c += n.bytes,
        }
    }

    fn sort(&mut self) {
        self.latencies.sort();
    }
}

/// One tool's cost in a model's context.
#[derive(Debug, Clone)]
pub struct Cost {
    /// The tool's name.
    pub name: String,
    /// The server that listed it: its `serverInfo.name`, else its session or lane.
    pub server: String,
    /// Bytes of its definition, compact JSON.
    pub bytes: usize,
    /// [`tokens`] of those bytes.
    pub tokens: usize,
}

/// Every figure of one or more recordings.
#[derive(Debug, Default)]
pub struct Stats {
    /// Per method (requests and notifications).
    pub methods: BTreeMap<String, Row>,
    /// Per tool called.
    pub tools: BTreeMap<String, Row>,
    /// Per legacy session (`-` for messages in none: stdio, 2026-07-28).
    pub sessions: BTreeMap<String, Row>,
    /// Per lane.
    pub lanes: BTreeMap<String, Row>,
    /// All requests together.
    pub all: Row,
    /// 2026-07-28 operations (input-required retries linked): their count and
    /// latencies, first attempt to final answer.
    pub operations: Row,
    /// Retries whose link was refused as ambiguous.
    pub ambiguous: usize,
    /// Each tool's context cost, the last definition per server and name.
    pub context: Vec<Cost>,
    /// Events read.
    pub events: usize,
    /// Summed recording spans.
    pub duration: Duration,
    /// Responses to no request the recording showed.
    pub stray: usize,
}

impl Stats {
    /// The figures of one ledger (call [`Stats::add`] for more, then [`Stats::done`]).
    pub fn add(&mut self, prefix: &str, l: &Ledger) {
        self.events += l.events;
        self.duration += l.duration();
        self.stray += l.stray;
        for c in &l.calls {
            self.methods.entry(c.method.clone()).or_default().call(c);
            if let Some(t) = &c.tool {
                self.tools.entry(t.clone()).or_default().call(c);
            }
            let session = c.session.clone().unwrap_or_else(|| "-".into());
            self.sessions
                .entry(format!("{prefix}{session}"))
                .or_default()
                .call(c);
            self.lanes
                .entry(format!("{prefix}{}", c.lane))
                .or_default()
                .call(c);
            self.all.call(c);
        }
        for n in &l.notes {
            self.methods.entry(n.method.clone()).or_default().note(n);
            let session = n.session.clone().unwrap_or_else(|| "-".into());
            self.sessions
                .entry(format!("{prefix}{session}"))
                .or_default()
                .note(n);
            self.lanes
                .entry(format!("{prefix}{}", n.lane))
                .or_default()
                .note(n);
        }
        let (ops, ambiguous) = operations::link(&l.calls);
        self.ambiguous += ambiguous;
        for op in ops {
            self.operations.count += 1;
            match op.latency {
                Some(d) => self.operations.latencies.push(d),
                None => self.operations.unanswered += 1,
            }
            if let Some(&last) = op.rounds.last()
                && l.calls[last].outcome.is_error()
            {
                self.operations.rpc_errors += 1;
            }
        }
        // The last definition of each name per server: what a client holds now.
        let mut last: BTreeMap<(String, String), &ledger::ToolDef> = BTreeMap::new();
        for t in &l.tools {
            // The server by its own name when the recording shows it, else its
            // session or lane.
            let server = t.server_name.as_ref().unwrap_or(&t.server);
            last.insert((format!("{prefix}{server}"), t.name.clone()), t);
        }
        for ((server, name), t) in last {
            self.context.push(Cost {
                name,
                server,
                bytes: t.json.len(),
                tokens: tokens(t.json.len()),
            });
        }
    }

    /// Sorts what percentiles need.
    pub fn done(mut self) -> Stats {
        for r in self
            .methods
            .values_mut()
            .chain(self.tools.values_mut())
            .chain(self.sessions.values_mut())
            .chain(self.lanes.values_mut())
        {
            r.sort();
        }
        self.all.sort();
        self.operations.sort();
        self
    }

    /// What a client would put in front of a model: every tool listed, in bytes and
    /// estimated tokens.
    pub fn context_total(&self) -> (usize, usize) {
        let bytes: usize = self.context.iter().map(|c| c.bytes).sum();
        (bytes, tokens(bytes))
    }
}
