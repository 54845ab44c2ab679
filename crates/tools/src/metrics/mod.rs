//! Prometheus metrics rendered from the wire: a recorder's sink hands each event to a
//! watcher thread ([`crate::offload`]), which reads it with the stats ledger's live
//! reader ([`crate::stats::live::Live`]) into a [`Tally`]; a scrape renders the tally
//! in the text exposition format. The counts are what crossed, never what the server
//! said it did.

pub mod exposition;
pub mod histogram;
pub mod names;
pub mod page;
pub mod tally;

use crate::offload::{self, Offload, Watching};
use crate::stats::live::Live;
use crate::wire::lock::Locked;
use exposition::Text;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
pub use tally::{Expiry, Tally};

/// Requests the live reader keeps open at most before it stops following new ones:
/// a peer that never answers cannot grow the watcher's memory.
pub const MAX_OPEN: usize = 100_000;

/// What a program's metrics are read from: the tally the watcher fills, and the
/// count of events the watcher was too far behind to see.
#[derive(Clone)]
pub struct Metrics {
    /// The counts, filled by the watcher, read by each scrape.
    tally: Arc<Mutex<Tally>>,
    /// Events dropped because the watcher's queue was full.
    dropped: Arc<AtomicU64>,
}

/// A watcher started: the sink to give the recorder, the metrics to scrape, and the
/// thread to wait for at the end.
pub struct Started {
    /// The recorder's sink.
    pub sink: Offload,
    /// What a scrape reads.
    pub metrics: Metrics,
    /// The watcher's thread.
    pub watching: Watching,
}

/// Starts the watcher: messages read up to `max_message` bytes, at most
/// `max_sessions` legacy sessions followed, `queue` events waiting at most.
pub fn start(max_message: usize, max_sessions: usize, queue: usize) -> std::io::Result<Started> {
    let tally = Arc::new(Mutex::new(Tally::new(max_sessions)));
    let fill = tally.clone();
    let (sink, watching) = offload::start("mcp-raw-metrics", queue, move |rx| {
        let mut live = Live::new(max_message, MAX_OPEN);
        for e in rx {
            // Held while one event is read: a scrape waits for one event at most.
            let mut t = fill.locked();
            t.event(&e);
            let fed = live.feed(&e, &mut |e, f| t.fact(e, f));
            for c in &fed.calls {
                t.call(c);
            }
            t.in_flight = live.open();
            t.untracked = live.untracked();
        }
    })?;
    let metrics = Metrics {
        tally,
        dropped: watching.dropped_counter(),
    };
    Ok(Started {
        sink,
        metrics,
        watching,
    })
}

impl Metrics {
    /// Sets how the server ends sessions on its own (see [`Expiry`]).
    pub fn expire(&self, expiry: Expiry) {
        self.tally.locked().expire(expiry);
    }

    /// The exposition a scrape gets.
    pub fn render(&self) -> String {
        let mut t = self.tally.locked();
        let mut x = Text::default();
        let requests = "mcp_raw_requests_total";
        x.family(
            requests,
            "counter",
            "JSON-RPC requests that crossed, by transport, method and outcome (ok, error with its JSON-RPC code, tool_error: a tools/call result with isError, input_required, unanswered: its lane closed first).",
        );
        for ((transport, method, outcome, code), n) in &t.requests {
            let mut labels = vec![
                ("transport", *transport),
                ("method", *method),
                ("outcome", *outcome),
            ];
            if !code.is_empty() {
                labels.push(("code", code.as_str()));
            }
            x.sample(requests, &labels, *n as f64);
        }
        let duration = "mcp_raw_request_duration_seconds";
        x.family(
            duration,
            "histogram",
            "Seconds from a request's last byte out to its answer's, by transport and method (answered requests).",
        );
        for ((transport, method), h) in &t.durations {
            let base = [("transport", *transport), ("method", *method)];
            for (le, n) in h.cumulative() {
                let mut labels = base.to_vec();
                labels.push(("le", le.as_str()));
                x.sample(&format!("{duration}_bucket"), &labels, n as f64);
            }
            x.sample(&format!("{duration}_sum"), &base, h.sum);
            x.sample(&format!("{duration}_count"), &base, h.count as f64);
        }
        gauge(
            &mut x,
            "mcp_raw_requests_in_flight",
            "JSON-RPC requests sent and not answered yet.",
            t.in_flight as f64,
        );
        counter(
            &mut x,
            "mcp_raw_requests_untracked_total",
            "Requests not followed because so many were already in flight.",
            t.untracked as f64,
        );
        let responses = "mcp_raw_http_responses_total";
        x.family(responses, "counter", "HTTP responses by status.");
        for (status, n) in &t.responses {
            x.sample(responses, &[("status", status)], *n as f64);
        }
        let refusals = "mcp_raw_limit_refusals_total";
        x.family(
            refusals,
            "counter",
            "HTTP responses with a status a limit answers with: 408 body too slow, 413 body too large, 429 too many requests, 431 head too large, 503 too many sessions or connections.",
        );
        for status in tally::LIMIT_STATUSES {
            let s = status.to_string();
            let n = t.responses.get(&s).copied().unwrap_or(0);
            x.sample(refusals, &[("status", &s)], n as f64);
        }
        let open = t.sessions_open();
        gauge(
            &mut x,
            "mcp_raw_sessions_open",
            "Legacy sessions open: Mcp-Session-Id issued, not yet ended by DELETE, by a 404, or by the server's timeouts.",
            open as f64,
        );
        counter(
            &mut x,
            "mcp_raw_sessions_issued_total",
            "Legacy sessions issued (a 2xx response carrying a new Mcp-Session-Id).",
            t.issued as f64,
        );
        let ended = "mcp_raw_sessions_ended_total";
        x.family(
            ended,
            "counter",
            "Legacy sessions ended: deleted (a 2xx to DELETE), not_found (a 404 to a request naming it), expired (unused for the server's --init-timeout or --session-timeout).",
        );
        for (how, n) in tally::ENDED.iter().zip(t.ended) {
            x.sample(ended, &[("how", how)], n as f64);
        }
        counter(
            &mut x,
            "mcp_raw_sessions_untracked_total",
            "Sessions issued while --metrics-max-sessions were open, not followed.",
            t.sessions_untracked as f64,
        );
        gauge(
            &mut x,
            "mcp_raw_sse_streams_open",
            "HTTP responses that are event streams, still open.",
            t.sse_open() as f64,
        );
        counter(
            &mut x,
            "mcp_raw_sse_streams_total",
            "HTTP responses that were event streams.",
            t.sse_total as f64,
        );
        counter(
            &mut x,
            "mcp_raw_sse_events_total",
            "SSE events sent to the client.",
            t.sse_events as f64,
        );
        let bytes = "mcp_raw_wire_bytes_total";
        x.family(
            bytes,
            "counter",
            "Bytes that crossed, by transport and direction.",
        );
        for ((transport, direction), n) in &t.bytes {
            x.sample(
                bytes,
                &[("transport", transport), ("direction", direction)],
                *n as f64,
            );
        }
        counter(
            &mut x,
            "mcp_raw_events_total",
            "Wire events the metrics watcher read.",
            t.events as f64,
        );
        counter(
            &mut x,
            "mcp_raw_dropped_events_total",
            "Wire events the metrics watcher never saw: its queue was full (it fell behind); the counts above miss them.",
            self.dropped.load(Ordering::Relaxed) as f64,
        );
        counter(
            &mut x,
            "mcp_raw_store_errors_total",
            "Operations on the shared store (serve --store) that failed: a command Redis refused, did not answer in time or lost its connection over (its request got -32603), and each time the bus's subscription went down. Zero without --store.",
            crate::store_errors() as f64,
        );
        x.finish()
    }
}

/// A counter family of one sample.
fn counter(x: &mut Text, name: &str, help: &str, v: f64) {
    x.family(name, "counter", help);
    x.sample(name, &[], v);
}

/// A gauge family of one sample.
fn gauge(x: &mut Text, name: &str, help: &str, v: f64) {
    x.family(name, "gauge", help);
    x.sample(name, &[], v);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::event::{Dir, Event, Lane, LaneKind, What};
    use crate::wire::recorder::Sink;

    fn event(n: u8) -> Event {
        Event {
            t: std::time::Duration::from_millis(u64::from(n)),
            lane: Lane {
                id: 0,
                kind: LaneKind::Stdio,
            },
            dir: Dir::ToServer,
            what: What::Bytes(vec![b'x'; usize::from(n)].into()),
        }
    }

    #[test]
    fn a_watcher_behind_drops_and_the_exposition_says_how_many() {
        let Started {
            mut sink,
            metrics,
            watching,
        } = start(1 << 20, 10, 1).unwrap();
        // The watcher waits on the tally while the test holds it: one event in its
        // hands at most, one in the queue, the rest dropped.
        let held = metrics.tally.locked();
        for n in 1..=5 {
            sink.event(&event(n));
        }
        let dropped = metrics.dropped.load(Ordering::Relaxed);
        drop(held);
        assert!(dropped >= 3, "{dropped}");
        drop(sink);
        watching.finish();
        let text = metrics.render();
        let read = 5 - dropped;
        assert!(
            text.contains(&format!("\nmcp_raw_dropped_events_total {dropped}\n")),
            "{text}"
        );
        assert!(
            text.contains(&format!("\nmcp_raw_events_total {read}\n")),
            "{text}"
        );
    }
}
