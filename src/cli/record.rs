//! Where `--trace` and `--record` lead: the sinks a recorder feeds, built from the
//! flags (the text view on stderr, a JSONL transcript file).

use super::color::ColorChoice;
use super::console::Console;
use mcp_raw_wire::behind::{Behind, Policy};
use mcp_raw_wire::recorder::{Recorder, Sink};
use mcp_raw_wire::{transcript, transcript_write};

/// What `--trace`, `--record` and their companions ask a recorder for; each
/// program fills it from its own flags (their `--help` differs, their meaning not).
#[derive(Clone, Copy)]
pub struct Wanted<'a> {
    /// `--trace [VIEW]`: a text view on stderr.
    pub trace: Option<TraceView>,
    /// `--color`: of that view (auto: when stderr is a terminal and NO_COLOR unset).
    pub color: Option<ColorChoice>,
    /// `--record FILE`: the JSONL transcript.
    pub record: Option<&'a std::path::Path>,
    /// `--record-buffer`, `--lossy-record`: the queue before its writer's thread.
    pub queue: Policy,
    /// `--max-message-bytes`: the largest message the views read whole.
    pub max_message: usize,
    /// `--show-secrets`: mask nothing (HTTP lanes only are masked; stdio is recorded
    /// as it crossed).
    pub show_secrets: bool,
    /// `--redact-header NAME…`: headers masked whole besides the known ones.
    pub redact_headers: &'a [String],
}

/// `serve --trace`: which text view goes to stderr.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum TraceView {
    Readable,
    Raw,
    /// A line per message (`wire::oneline`).
    Oneline,
}

/// A recorder for `role` (`server`, `tap`, `bridge`…: the transcript header says
/// which), if `--trace` or `--record` asks for one, with `extra` sinks beside the
/// flags' (`tap --check`'s checker); tokens and secrets masked unless
/// `--show-secrets`. The trace goes to `console`'s stderr.
pub fn recorder(
    header: &transcript::Header,
    wanted: Wanted<'_>,
    extra: Vec<Box<dyn Sink>>,
    console: &Console,
) -> anyhow::Result<Option<Recorder>> {
    let Wanted {
        trace,
        color,
        record,
        queue,
        max_message,
        show_secrets,
        redact_headers,
    } = wanted;
    let mut sinks: Vec<Box<dyn Sink>> = extra;
    if let Some(view) = trace {
        let color = color
            .unwrap_or(ColorChoice::Auto)
            .enabled_on_stderr(console);
        sinks.push(match view {
            TraceView::Oneline => Box::new(mcp_raw_wire::oneline::OnelineView::new(
                console.err(),
                color,
                max_message,
            )),
            _ => Box::new(mcp_raw_wire::text::TextView::with_max(
                console.err(),
                color,
                view == TraceView::Raw,
                max_message,
            )),
        });
    }
    if let Some(path) = record {
        sinks.push(record_file(path, header, max_message, queue)?);
    }
    Ok((!sinks.is_empty()).then(|| {
        let recorder = Recorder::new(sinks);
        recorder.set_redaction(!show_secrets);
        recorder.redact_headers(redact_headers);
        recorder
    }))
}

/// The `--record FILE` sink: a transcript with its header line, written by a thread
/// of its own behind a queue (`queue`: `--record-buffer`, `--lossy-record`), so the
/// wire never waits for the transcript's formatting or the disk until the queue is
/// full.
pub fn record_file(
    path: &std::path::Path,
    header: &transcript::Header,
    max_message: usize,
    queue: Policy,
) -> anyhow::Result<Box<dyn Sink>> {
    // A path the recording cannot go to is the caller's to fix: exit status 2.
    let cannot = |e: std::io::Error| {
        super::exit::usage(format!("--record {}: cannot write it: {e}", path.display()))
    };
    let file = transcript_write::create_private(path).map_err(cannot)?;
    let writer = transcript_write::Writer::new(file, header, max_message).map_err(cannot)?;
    let name = format!("--record {}", path.display());
    let behind = Behind::start(&name, Box::new(writer.deferred()), queue).map_err(|e| {
        anyhow::anyhow!("--record {}: cannot start its writer: {e}", path.display())
    })?;
    Ok(Box::new(behind))
}

/// The program's end: waits for every recording's writer to have written all it was
/// given, and says on stderr what a `--lossy-record` queue dropped.
pub fn drain(console: &Console) {
    for (name, lost) in mcp_raw_wire::behind::drain_all() {
        console.say(format_args!(
            "mcp-raw: {}: --lossy-record dropped {} events ({} bytes) while the disk was behind; `dropped` lines in the file mark each gap",
            mcp_raw_wire::term::escape(&name),
            lost.events,
            lost.bytes
        ));
    }
}
