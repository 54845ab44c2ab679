//! The exporter: a recording's events → spans and metrics → batches → a collector.
//!
//! Live (`--otlp`), it runs behind an [`crate::offload`] sink: the wire hands
//! each event over a bounded queue and never waits. On that watcher's thread the
//! events become spans ([`super::spans`]) gathered in batches of `batch` spans, sent
//! when full or every `interval`; a batch goes to the sender's thread over a second
//! bounded queue (`queue` spans): when the collector is slower than the wire, whole
//! batches are dropped and counted, never waited for. The sender posts each with a
//! `timeout`; a 500 or a hang is a failed export, counted with its spans. At the end
//! whatever is left gets one more `timeout`, then the counts are reported.
//!
//! For a whole recording (`export otlp`) nothing is dropped: the same steps, each
//! batch waited for.

use super::post::Endpoint;
use super::proto::{KeyValue, Span};
use super::sender::send_all;
use super::{metrics::Metrics, spans::Spans};
use crate::offload::{self, Offload, Watching};
use crate::stats::live::Live;
use crate::wire::event::Event;
use crate::wire::transcript::Header;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender, TrySendError, sync_channel};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// Spans per export by default (OpenTelemetry's batch processor: 512).
pub const BATCH: usize = 512;
/// Spans waiting for the sender at most by default (OpenTelemetry's: 2048).
pub const QUEUE: usize = 2048;
/// How often a partial batch and the metrics are sent by default.
pub const INTERVAL: Duration = Duration::from_secs(5);
/// How long one export may take by default (`OTEL_EXPORTER_OTLP_TIMEOUT`'s 10 s).
pub const TIMEOUT: Duration = Duration::from_secs(10);
/// Requests followed at once (sent, not yet answered); past it a request gets no span.
pub const MAX_OPEN: usize = 10_000;

/// How to export.
#[derive(Debug, Clone)]
pub struct Settings {
    /// `…/v1/traces`, or none to send no spans.
    pub traces: Option<Endpoint>,
    /// `…/v1/metrics`, or none to send no metrics.
    pub metrics: Option<Endpoint>,
    /// Headers added to each POST (`OTEL_EXPORTER_OTLP_HEADERS`, `--otlp-header`).
    pub headers: Vec<(String, String)>,
    /// OTLP/JSON instead of protobuf.
    pub json: bool,
    /// One export's time at most.
    pub timeout: Duration,
    /// Spans per export.
    pub batch: usize,
    /// Spans waiting for the sender at most (live only).
    pub queue: usize,
    /// How often a partial batch and the metrics go.
    pub interval: Duration,
    /// `service.name` and `OTEL_RESOURCE_ATTRIBUTES`.
    pub resource: Vec<KeyValue>,
    /// The largest message read whole (`--max-message-bytes`).
    pub max_message: usize,
    /// `OTEL_EXPORTER_OTLP_CERTIFICATE`: roots trusted for an `https://` collector
    /// besides the system's.
    pub cacert: Vec<std::path::PathBuf>,
    /// The program puts a `traceparent` in the requests it sends (`--trace-context`):
    /// those name its own spans.
    pub injects: bool,
    /// What `OTEL_EXPORTER_OTLP_TRACES_*` says otherwise for the spans.
    pub traces_own: Own,
    /// What `OTEL_EXPORTER_OTLP_METRICS_*` says otherwise for the metrics.
    pub metrics_own: Own,
}

/// One signal's own headers, protocol and timeout (OTLP exporter configuration: a
/// signal's variable wins over the general one); `None` keeps [`Settings`]'.
#[derive(Debug, Clone, Default)]
pub struct Own {
    /// `OTEL_EXPORTER_OTLP_{TRACES,METRICS}_HEADERS`, with the flags' added.
    pub headers: Option<Vec<(String, String)>>,
    /// `…_PROTOCOL`: OTLP/JSON or not.
    pub json: Option<bool>,
    /// `…_TIMEOUT`.
    pub timeout: Option<Duration>,
}

/// How one export is posted: its headers, its encoding, its time.
pub struct Posting<'a> {
    /// The headers sent with it.
    pub headers: &'a [(String, String)],
    /// OTLP/JSON instead of protobuf.
    pub json: bool,
    /// Its time at most.
    pub timeout: Duration,
}

impl Settings {
    /// How an export of spans (`metrics: false`) or of metrics is posted.
    pub fn posting(&self, metrics: bool) -> Posting<'_> {
        let own = if metrics {
            &self.metrics_own
        } else {
            &self.traces_own
        };
        Posting {
            headers: own.headers.as_deref().unwrap_or(&self.headers),
            json: own.json.unwrap_or(self.json),
            timeout: own.timeout.unwrap_or(self.timeout),
        }
    }
}

/// What happened, for the report at the end.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Report {
    /// Spans a collector accepted.
    pub spans_sent: u64,
    /// Spans in exports that failed (an error status, a timeout, no connection).
    pub spans_failed: u64,
    /// Spans dropped because the sender was behind (live only).
    pub spans_dropped: u64,
    /// Metric exports accepted.
    pub metrics_sent: u64,
    /// Metric exports failed or dropped.
    pub metrics_failed: u64,
    /// Events the watcher never saw (its queue was full).
    pub events_dropped: u64,
    /// `requestState` links refused as ambiguous.
    pub ambiguous: u64,
    /// Requests not followed ([`MAX_OPEN`] were open).
    pub untracked: u64,
    /// The first failure, said.
    pub first_error: Option<String>,
}

impl Report {
    /// Nothing failed or was dropped.
    pub fn complete(&self) -> bool {
        self.spans_failed == 0
            && self.spans_dropped == 0
            && self.metrics_failed == 0
            && self.events_dropped == 0
    }
}

/// The counts, shared by the two threads.
#[derive(Default)]
pub(super) struct Counters {
    /// [`Report::spans_sent`].
    pub(super) spans_sent: AtomicU64,
    /// [`Report::spans_failed`].
    pub(super) spans_failed: AtomicU64,
    /// [`Report::spans_dropped`].
    pub(super) spans_dropped: AtomicU64,
    /// [`Report::metrics_sent`].
    pub(super) metrics_sent: AtomicU64,
    /// [`Report::metrics_failed`].
    pub(super) metrics_failed: AtomicU64,
    /// [`Report::ambiguous`], set at the end.
    pub(super) ambiguous: AtomicU64,
    /// [`Report::untracked`], set at the end.
    pub(super) untracked: AtomicU64,
    /// [`Report::first_error`].
    pub(super) first_error: Mutex<Option<String>>,
}

impl Counters {
    pub(super) fn failed(&self, what: &str, e: String) {
        if let Ok(mut f) = self.first_error.lock()
            && f.is_none()
        {
            *f = Some(format!("{what}: {e}"));
        }
    }
}

/// One POST's worth.
pub(super) enum Job {
    /// Spans for `/v1/traces`.
    Spans(Vec<Span>),
    /// The metrics' totals for `/v1/metrics`.
    Metrics(super::proto::ExportMetricsServiceRequest),
}

/// The live exporter's handle: [`Exporter::finish`] once the recorder is gone.
pub struct Exporter {
    /// The watcher (events → spans).
    watching: Watching,
    /// The sender's thread.
    sender: Option<std::thread::JoinHandle<()>>,
    /// The counts.
    counters: Arc<Counters>,
    /// Set when the end began: the sender gives what is left one more timeout.
    closing: Arc<AtomicBool>,
}

impl Exporter {
    /// Waits for the last batch (one more timeout at most) and says what happened.
    /// Call it after every recorder holding the sink is dropped.
    pub fn finish(mut self) -> Report {
        self.closing.store(true, Ordering::SeqCst);
        let events_dropped = self.watching.dropped();
        self.watching.finish();
        if let Some(t) = self.sender.take() {
            let _ = t.join();
        }
        let mut r = report(&self.counters);
        r.events_dropped = events_dropped;
        r
    }
}

fn report(c: &Counters) -> Report {
    Report {
        spans_sent: c.spans_sent.load(Ordering::Relaxed),
        spans_failed: c.spans_failed.load(Ordering::Relaxed),
        spans_dropped: c.spans_dropped.load(Ordering::Relaxed),
        metrics_sent: c.metrics_sent.load(Ordering::Relaxed),
        metrics_failed: c.metrics_failed.load(Ordering::Relaxed),
        events_dropped: 0,
        ambiguous: c.ambiguous.load(Ordering::Relaxed),
        untracked: c.untracked.load(Ordering::Relaxed),
        first_error: c.first_error.lock().ok().and_then(|f| f.clone()),
    }
}

/// Starts exporting a running recorder's events: the sink to give the recorder, and
/// the handle to finish with.
pub fn live(settings: Settings, header: &Header) -> std::io::Result<(Offload, Exporter)> {
    let counters = Arc::new(Counters::default());
    let closing = Arc::new(AtomicBool::new(false));
    let slots = (settings.queue / settings.batch.max(1)).max(1);
    let (jobs, rx) = sync_channel::<Job>(slots);
    let sender = {
        let (settings, counters, closing) = (settings.clone(), counters.clone(), closing.clone());
        std::thread::Builder::new()
            .name("otlp-send".into())
            .spawn(move || send_all(rx, &settings, &counters, &closing))?
    };
    let mut pipeline = Pipeline::new(settings, header, jobs, false, counters.clone());
    let ending = closing.clone();
    let (sink, watching) = offload::start("otlp-watch", offload::QUEUE, move |rx| {
        pipeline.watch(rx, &ending);
    })?;
    Ok((
        sink,
        Exporter {
            watching,
            sender: Some(sender),
            counters,
            closing,
        },
    ))
}

/// Exports a whole recording, each batch waited for: the events as they are read
/// (`export otlp` streams them; a batch goes out as soon as it is full).
pub fn recording(
    settings: Settings,
    header: &Header,
    events: impl IntoIterator<Item = Event>,
) -> Report {
    let counters = Arc::new(Counters::default());
    let closing = Arc::new(AtomicBool::new(false));
    let (jobs, rx) = sync_channel::<Job>(1);
    let sender = {
        let (settings, counters, closing) = (settings.clone(), counters.clone(), closing.clone());
        std::thread::spawn(move || send_all(rx, &settings, &counters, &closing))
    };
    let mut pipeline = Pipeline::new(settings, header, jobs, true, counters.clone());
    let mut last = None;
    for e in events {
        pipeline.feed(&e);
        last = Some(e.t);
    }
    let end = last.map_or(0, |t| pipeline.spans.at(t));
    pipeline.end(end);
    drop(pipeline);
    let _ = sender.join();
    report(&counters)
}

/// The watcher's work: events in, jobs out.
struct Pipeline {
    /// The stats reader, live.
    live: Live,
    /// Calls → spans.
    spans: Spans,
    /// The histograms.
    metrics: Metrics,
    /// The OAuth exchanges.
    hops: super::hops::Hops,
    /// Spans not yet sent.
    batch: Vec<Span>,
    /// To the sender.
    jobs: SyncSender<Job>,
    /// Wait for the sender rather than drop (`export otlp`).
    lossless: bool,
    /// The counts.
    counters: Arc<Counters>,
    /// How.
    settings: Settings,
}

impl Pipeline {
    fn new(
        settings: Settings,
        header: &Header,
        jobs: SyncSender<Job>,
        lossless: bool,
        counters: Arc<Counters>,
    ) -> Pipeline {
        let started = crate::wire::clock::parse_rfc3339_micros(&header.started).unwrap_or(0);
        let spans = Spans::new(&header.role, started, settings.injects);
        let metrics = Metrics::new(spans.at(Duration::ZERO));
        Pipeline {
            live: Live::new(settings.max_message, MAX_OPEN),
            spans,
            metrics,
            hops: Default::default(),
            batch: Vec::new(),
            jobs,
            lossless,
            counters,
            settings,
        }
    }

    /// The live loop: feeds events, sends a batch when full or every interval; at
    /// the end (every sender gone, or `closing` set: a recorder's clone may outlive
    /// the program's main path) what is queued is read and the rest sent.
    fn watch(&mut self, rx: Receiver<Event>, closing: &AtomicBool) {
        let mut due = Instant::now() + self.settings.interval;
        loop {
            if closing.load(Ordering::SeqCst) {
                while let Ok(e) = rx.try_recv() {
                    self.feed(&e);
                }
                break;
            }
            let wait = due
                .saturating_duration_since(Instant::now())
                .min(Duration::from_millis(50));
            match rx.recv_timeout(wait) {
                Ok(e) => self.feed(&e),
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => break,
            }
            if Instant::now() >= due {
                self.flush_spans();
                self.flush_metrics(now_ns());
                due = Instant::now() + self.settings.interval;
            }
        }
        self.end(now_ns());
    }

    fn feed(&mut self, e: &Event) {
        let hops = &mut self.hops;
        hops.event(e);
        let fed = self.live.feed(e, &mut |e, f| hops.fact(e, f));
        for h in std::mem::take(&mut self.hops.done) {
            if self.settings.traces.is_some() {
                self.batch.push(self.spans.hop(&h));
            }
        }
        for c in &fed.calls {
            let mut c = c.clone();
            // A request the lane answered with an HTTP error and no JSON-RPC (a 401
            // before OAuth, a 413): the status says why.
            if c.outcome == crate::stats::items::Outcome::Unanswered && c.status.is_none() {
                c.status = self.hops.status(&c.lane);
            }
            let made = self.spans.call(&c);
            if let Some(m) = &made.measure {
                self.metrics.operation(m);
            }
            if self.settings.traces.is_some() {
                self.batch.extend(made.spans);
            }
        }
        if self.settings.traces.is_some() {
            for n in &fed.notes {
                self.batch.push(self.spans.note(n));
            }
        }
        self.hops.after(e);
        if self.batch.len() >= self.settings.batch.max(1) {
            self.flush_spans();
        }
    }

    /// The end: open operations' spans, the sessions' durations, the last batch.
    fn end(&mut self, now: u64) {
        let left = self.spans.finish();
        if self.settings.traces.is_some() {
            self.batch.extend(left);
        }
        let server = self.spans.role() == super::spans::Role::Server;
        let mut sessions: Vec<_> = self.spans.sessions.values().cloned().collect();
        sessions.sort_by_key(|s| s.first);
        for s in sessions {
            let mut attrs = Vec::new();
            if let Some(v) = s.version {
                attrs.push(("mcp.protocol.version".to_owned(), v));
            }
            self.metrics
                .session(server, s.last.saturating_sub(s.first).as_secs_f64(), attrs);
        }
        self.counters
            .ambiguous
            .store(self.spans.ambiguous, Ordering::Relaxed);
        self.counters
            .untracked
            .store(self.live.untracked(), Ordering::Relaxed);
        while !self.batch.is_empty() {
            self.flush_spans();
        }
        self.flush_metrics(now);
    }

    fn flush_spans(&mut self) {
        if self.batch.is_empty() {
            return;
        }
        let n = self.batch.len().min(self.settings.batch.max(1));
        let spans: Vec<Span> = self.batch.drain(..n).collect();
        self.enqueue(Job::Spans(spans));
    }

    fn flush_metrics(&mut self, now: u64) {
        if self.settings.metrics.is_none() || !self.metrics.changed {
            return;
        }
        if let Some(r) = self.metrics.request(&self.settings.resource, now) {
            self.metrics.changed = false;
            self.enqueue(Job::Metrics(r));
        }
    }

    fn enqueue(&self, job: Job) {
        if self.lossless {
            let _ = self.jobs.send(job);
            return;
        }
        match self.jobs.try_send(job) {
            Ok(()) => {}
            Err(TrySendError::Full(j) | TrySendError::Disconnected(j)) => match j {
                Job::Spans(s) => {
                    self.counters
                        .spans_dropped
                        .fetch_add(s.len() as u64, Ordering::Relaxed);
                }
                Job::Metrics(_) => {
                    self.counters.metrics_failed.fetch_add(1, Ordering::Relaxed);
                }
            },
        }
    }
}

fn now_ns() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX))
}
