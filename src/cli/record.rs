//! Where `--trace` and `--record` lead: the sinks a recorder feeds, built from the
//! flags (the text view on stderr, a JSONL transcript file).

use mcp_raw_net::client::wire_print::ColorChoice;
use mcp_raw_wire::recorder::{Recorder, Sink};
use mcp_raw_wire::transcript;

/// `--show-secrets` and `--redact-header`: what a recording masks (HTTP lanes only;
/// stdio is recorded as it crossed).
#[derive(Clone, Copy)]
pub struct Secrets<'a> {
    /// `--show-secrets`: mask nothing.
    pub show: bool,
    /// `--redact-header NAME…`: headers masked whole besides the known ones.
    pub headers: &'a [String],
}

/// `serve --trace`: which text view goes to stderr.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum TraceView {
    Readable,
    Raw,
    /// A line per message (`wire::oneline`).
    Oneline,
}

/// The server's recorder, if `--trace` or `--record` asks for one; it masks tokens
/// and secrets unless `--show-secrets`.
pub fn recorder(
    transport: &str,
    trace: Option<TraceView>,
    color: Option<ColorChoice>,
    record: Option<&std::path::Path>,
    max_message: usize,
    secrets: Secrets<'_>,
) -> anyhow::Result<Option<Recorder>> {
    recorder_for(
        "server",
        transport,
        trace,
        color,
        record,
        max_message,
        secrets,
    )
}

/// A recorder for `role` (`server` or `tap`, the transcript header says which), if
/// `--trace` or `--record` asks for one; tokens and secrets masked unless
/// `secrets.show`.
pub fn recorder_for(
    role: &str,
    transport: &str,
    trace: Option<TraceView>,
    color: Option<ColorChoice>,
    record: Option<&std::path::Path>,
    max_message: usize,
    secrets: Secrets<'_>,
) -> anyhow::Result<Option<Recorder>> {
    recorder_with(
        role,
        transport,
        trace,
        color,
        record,
        max_message,
        Vec::new(),
        secrets,
    )
}

/// [`recorder_for`], with `extra` sinks beside the flags' (`tap --check`'s checker).
// One call site per program; a struct for these would only be unpacked again.
#[allow(clippy::too_many_arguments)]
pub fn recorder_with(
    role: &str,
    transport: &str,
    trace: Option<TraceView>,
    color: Option<ColorChoice>,
    record: Option<&std::path::Path>,
    max_message: usize,
    extra: Vec<Box<dyn Sink>>,
    secrets: Secrets<'_>,
) -> anyhow::Result<Option<Recorder>> {
    let mut sinks: Vec<Box<dyn Sink>> = extra;
    if let Some(view) = trace {
        let color = color.unwrap_or(ColorChoice::Auto).enabled_on_stderr();
        sinks.push(match view {
            TraceView::Oneline => Box::new(mcp_raw_wire::oneline::OnelineView::new(
                std::io::stderr(),
                color,
                max_message,
            )),
            _ => Box::new(mcp_raw_wire::text::TextView::with_max(
                std::io::stderr(),
                color,
                view == TraceView::Raw,
                max_message,
            )),
        });
    }
    if let Some(path) = record {
        sinks.push(record_file(
            path,
            &transcript::Header::new(role, transport),
            max_message,
        )?);
    }
    Ok((!sinks.is_empty()).then(|| {
        let recorder = Recorder::new(sinks);
        recorder.set_redaction(!secrets.show);
        recorder.redact_headers(secrets.headers);
        recorder
    }))
}

pub fn record_file(
    path: &std::path::Path,
    header: &transcript::Header,
    max_message: usize,
) -> anyhow::Result<Box<dyn Sink>> {
    transcript::create(path, header, max_message)
        // A path the recording cannot go to is the caller's to fix: exit status 2.
        .map_err(|e| {
            super::client::usage(format!("--record {}: cannot write it: {e}", path.display()))
        })
}
