//! A load run's figures: per method and per tool the calls, failures and latency
//! percentiles (nearest rank, as `mcp-raw stats`), failures by kind, throughput, the
//! stdio servers' CPU and peak RSS; as text or one JSON document; and the
//! thresholds (`--max-p99`, `--max-errors`) it breaks.

use super::procfs::Usage;
use super::tally::{Row, Tally};
use crate::stats::percentile;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::fmt::Write;
use std::time::Duration;

/// What the run knew when it ended, for [`Report::new`].
pub struct Setup {
    /// The target, as given.
    pub target: String,
    /// The era the clients spoke (the first connected client's).
    pub spoken: Option<String>,
    /// Clients started.
    pub clients: usize,
    /// Clients that connected (a client whose turn in the ramp came after the
    /// duration never starts).
    pub connected: usize,
    /// The open loop's rate, if any.
    pub rate: Option<f64>,
    /// From the first client's start to the last one's close.
    pub elapsed: Duration,
    /// From the first call's send to the last call's answer (throughput's window:
    /// the clients' connects and closes left out).
    pub calling: Duration,
    /// Open loop: calls sent later than due.
    pub behind: u64,
    /// Each stdio server's usage.
    pub servers: Vec<Usage>,
    /// Whether the target is a stdio server (its usage is then reported).
    pub stdio: bool,
    /// The counts.
    pub tally: Tally,
}

/// One row's figures.
#[derive(Debug, Clone, PartialEq)]
pub struct Figures {
    /// The method or tool.
    pub name: String,
    /// Calls.
    pub count: u64,
    /// Failed calls.
    pub errors: u64,
    /// Latency percentiles of the answered calls: p50, p90, p99, max.
    pub p50: Option<Duration>,
    /// 90th percentile.
    pub p90: Option<Duration>,
    /// 99th percentile.
    pub p99: Option<Duration>,
    /// The slowest.
    pub max: Option<Duration>,
}

impl Figures {
    fn of(name: &str, row: &Row) -> Figures {
        let mut sorted = row.latencies.clone();
        sorted.sort_unstable();
        Figures {
            name: name.to_owned(),
            count: row.count,
            errors: row.errors,
            p50: percentile(&sorted, 50),
            p90: percentile(&sorted, 90),
            p99: percentile(&sorted, 99),
            max: sorted.last().copied(),
        }
    }

    fn json(&self) -> Value {
        let ms = |d: Option<Duration>| d.map(|d| d.as_secs_f64() * 1e3);
        json!({ "name": self.name, "count": self.count, "errors": self.errors,
            "p50_ms": ms(self.p50), "p90_ms": ms(self.p90), "p99_ms": ms(self.p99), "max_ms": ms(self.max) })
    }
}

/// The run's figures.
#[derive(Debug, Clone)]
pub struct Report {
    /// The target.
    pub target: String,
    /// The era spoken.
    pub spoken: Option<String>,
    /// Clients started.
    pub clients: usize,
    /// Clients that connected.
    pub connected: usize,
    /// The open loop's rate, if any.
    pub rate: Option<f64>,
    /// The run's length.
    pub elapsed: Duration,
    /// The calling window: first call sent to last answered.
    pub calling: Duration,
    /// Open loop: calls sent later than due.
    pub behind: u64,
    /// All calls together.
    pub all: Figures,
    /// Per method.
    pub methods: Vec<Figures>,
    /// Per tool.
    pub tools: Vec<Figures>,
    /// Failures by kind.
    pub errors: BTreeMap<String, u64>,
    /// The first failure of each kind, in words.
    pub examples: BTreeMap<String, String>,
    /// Stdio: the servers' CPU time added up and the largest peak RSS, and how many
    /// were read.
    pub server: Option<(Duration, u64, usize)>,
}

impl Report {
    /// The figures of a finished run.
    pub fn new(s: Setup) -> Report {
        let mut all = Row::default();
        for row in s.tally.methods.values() {
            all.count += row.count;
            all.errors += row.errors;
            all.latencies.extend(&row.latencies);
        }
        let server = s.stdio.then(|| {
            let cpu = s.servers.iter().map(|u| u.cpu).sum();
            let peak = s.servers.iter().map(|u| u.peak_rss_kib).max().unwrap_or(0);
            (cpu, peak, s.servers.len())
        });
        Report {
            target: s.target,
            spoken: s.spoken,
            clients: s.clients,
            connected: s.connected,
            rate: s.rate,
            elapsed: s.elapsed,
            calling: s.calling,
            behind: s.behind,
            all: Figures::of("all", &all),
            methods: s
                .tally
                .methods
                .iter()
                .map(|(k, r)| Figures::of(k, r))
                .collect(),
            tools: s
                .tally
                .tools
                .iter()
                .map(|(k, r)| Figures::of(k, r))
                .collect(),
            errors: s.tally.errors,
            examples: s.tally.examples,
            server,
        }
    }

    /// Calls per second over the calling window.
    pub fn throughput(&self) -> f64 {
        self.all.count as f64 / self.calling.as_secs_f64().max(1e-9)
    }

    /// Every failure, calls' and connections' alike.
    pub fn failures(&self) -> u64 {
        self.errors.values().sum()
    }

    /// The thresholds broken, each said in a line: p99 over `max_p99`, more failures
    /// than `max_errors`.
    pub fn broken(&self, max_p99: Option<Duration>, max_errors: Option<u64>) -> Vec<String> {
        let mut out = Vec::new();
        if let (Some(max), Some(p99)) = (max_p99, self.all.p99)
            && p99 > max
        {
            out.push(format!(
                "p99 {:.3} ms is over --max-p99 {:.3} ms",
                p99.as_secs_f64() * 1e3,
                max.as_secs_f64() * 1e3
            ));
        }
        if let Some(max) = max_errors
            && self.failures() > max
        {
            out.push(format!(
                "{} failures are more than --max-errors {max}",
                self.failures()
            ));
        }
        out
    }

    /// One JSON document.
    pub fn json(&self, broken: &[String]) -> String {
        let server = self.server.map(|(cpu, peak, n)| {
            json!({ "processes": n, "cpu_ms": cpu.as_secs_f64() * 1e3, "peak_rss_kib": peak })
        });
        let doc = json!({
            "target": self.target,
            "era": self.spoken,
            "clients": self.clients,
            "connected": self.connected,
            "loop": if self.rate.is_some() { "open" } else { "closed" },
            "rate": self.rate,
            "elapsed_s": self.elapsed.as_secs_f64(),
            "calling_s": self.calling.as_secs_f64(),
            "calls": self.all.count,
            "errors": self.failures(),
            "throughput": self.throughput(),
            "behind": self.behind,
            "all": self.all.json(),
            "methods": self.methods.iter().map(Figures::json).collect::<Vec<_>>(),
            "tools": self.tools.iter().map(Figures::json).collect::<Vec<_>>(),
            "errors_by_kind": self.errors,
            "error_examples": self.examples,
            "server": server,
            "broken": broken,
        });
        let mut text = serde_json::to_string_pretty(&doc).unwrap_or_default();
        text.push('\n');
        text
    }

    /// A table per section.
    pub fn text(&self, broken: &[String]) -> String {
        let mut o = String::new();
        let era = self.spoken.as_deref().unwrap_or("(no client connected)");
        let mode = match self.rate {
            Some(r) => format!("open loop at {r} calls/s"),
            None => "closed loop".into(),
        };
        let _ = writeln!(
            o,
            "target   {}\nera      {era}\nclients  {} ({} connected), {mode}",
            self.target, self.clients, self.connected
        );
        let _ = writeln!(
            o,
            "calls    {} in {:.2} s (of {:.2} s in all): {:.1} calls/s, {} failed",
            self.all.count,
            self.calling.as_secs_f64(),
            self.elapsed.as_secs_f64(),
            self.throughput(),
            self.failures()
        );
        if self.rate.is_some() {
            let _ = writeln!(
                o,
                "behind   {} calls sent late (every client busy)",
                self.behind
            );
        }
        if let Some((cpu, peak, n)) = self.server {
            let _ = writeln!(
                o,
                "server   {n} process(es): {:.1} ms CPU in all, peak RSS {:.1} MiB (the largest)",
                cpu.as_secs_f64() * 1e3,
                peak as f64 / 1024.0
            );
        }
        for (title, rows) in [("method", &self.methods), ("tool", &self.tools)] {
            if rows.is_empty() {
                continue;
            }
            let _ = writeln!(
                o,
                "\n{title:<24} {:>8} {:>7} {:>9} {:>9} {:>9} {:>9}",
                "calls", "errors", "p50 ms", "p90 ms", "p99 ms", "max ms"
            );
            for f in rows.iter().chain((title == "method").then_some(&self.all)) {
                let ms = |d: Option<Duration>| {
                    d.map_or("-".into(), |d| format!("{:.3}", d.as_secs_f64() * 1e3))
                };
                let _ = writeln!(
                    o,
                    "{:<24} {:>8} {:>7} {:>9} {:>9} {:>9} {:>9}",
                    f.name,
                    f.count,
                    f.errors,
                    ms(f.p50),
                    ms(f.p90),
                    ms(f.p99),
                    ms(f.max)
                );
            }
        }
        if !self.errors.is_empty() {
            let _ = writeln!(o, "\n{:<24} {:>8}  the first, in words", "failure", "count");
            for (kind, n) in &self.errors {
                let example = self.examples.get(kind).map_or("", String::as_str);
                let _ = writeln!(o, "{kind:<24} {n:>8}  {example}");
            }
        }
        for line in broken {
            let _ = writeln!(o, "\nBROKEN: {line}");
        }
        o
    }
}
