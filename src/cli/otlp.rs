//! `--otlp URL` on `serve`, `tap`, `client` and `bridge`, and `mcp-raw export otlp`:
//! the settings the flags and variables give (`otlp_env.rs`), the live exporter
//! attached to the recorder as one more sink, and what it sent, failed or dropped
//! said on stderr at the end.

use super::args::{ExportOtlpArgs, OtlpArgs};
use super::console::Console;
use super::otlp_env::{Flags, env, settings};
use mcp_raw_tools::otlp::exporter::{self, Exporter, Report};
use mcp_raw_wire::recorder::Sink;
use mcp_raw_wire::term::escape;
use mcp_raw_wire::transcript::Header;
use std::time::Duration;

/// The live exporter of one program run: its report said on stderr when dropped
/// (the program's end, after its recorder).
pub struct Otlp<'c> {
    /// The exporter, when `--otlp` (or a variable) names a collector.
    exporter: Option<Exporter>,
    /// Where the spans go, for the report.
    to: String,
    /// Where the report goes.
    console: &'c Console,
}

/// Starts exporting for a recorder described by `header`, if `--otlp` or the
/// variables name a collector: its sink is pushed on `sinks` (so a recorder exists
/// even without `--trace` or `--record`). `injects`: the program puts a
/// `traceparent` in the requests it sends (`--trace-context`), naming its own spans.
pub fn start<'c>(
    args: &OtlpArgs,
    injects: bool,
    header: &Header,
    max_message: usize,
    sinks: &mut Vec<Box<dyn Sink>>,
    console: &'c Console,
) -> anyhow::Result<Otlp<'c>> {
    let flags = Flags {
        endpoint: args.otlp.as_deref(),
        protocol: args.otlp_protocol.as_deref(),
        headers: &args.otlp_header,
        timeout: args.otlp_timeout,
        batch: args.otlp_batch,
        queue: args.otlp_queue,
        interval: args.otlp_interval,
    };
    let settings = settings(flags, &env, max_message)
        .map_err(|e| super::exit::usage(format!("--otlp: {e}")))?;
    let Some(mut settings) = settings else {
        return Ok(Otlp {
            exporter: None,
            to: String::new(),
            console,
        });
    };
    let to = settings
        .traces
        .as_ref()
        .or(settings.metrics.as_ref())
        .map(|e| e.url.clone())
        .unwrap_or_default();
    settings.injects = injects;
    let (sink, exporter) = exporter::live(settings, header)?;
    sinks.push(Box::new(sink));
    Ok(Otlp {
        exporter: Some(exporter),
        to,
        console,
    })
}

impl Drop for Otlp<'_> {
    fn drop(&mut self) {
        if let Some(e) = self.exporter.take() {
            let report = e.finish();
            say(self.console, "[mcp-raw] otlp", &self.to, &report);
        }
    }
}

/// The report's line(s): what was sent, failed and dropped, and the first failure.
fn say(console: &Console, who: &str, to: &str, r: &Report) {
    console.say(format_args!(
        "{who}: {} span{} sent to {}, {} failed, {} dropped (queue full); {} metric export{} sent, {} failed; {} event{} not seen (watcher behind)",
        r.spans_sent,
        if r.spans_sent == 1 { "" } else { "s" },
        escape(to),
        r.spans_failed,
        r.spans_dropped,
        r.metrics_sent,
        if r.metrics_sent == 1 { "" } else { "s" },
        r.metrics_failed,
        r.events_dropped,
        if r.events_dropped == 1 { "" } else { "s" },
    ));
    if let Some(e) = &r.first_error {
        console.say(format_args!("{who}: first failure: {}", escape(e)));
    }
    if r.ambiguous > 0 {
        console.say(format_args!(
            "{who}: {} requestState link{} refused as ambiguous (issued twice): those rounds are spans of their own",
            r.ambiguous,
            if r.ambiguous == 1 { "" } else { "s" }
        ));
    }
    if r.untracked > 0 {
        console.say(format_args!(
            "{who}: {} request{} not followed ({} were open at once): no span",
            r.untracked,
            if r.untracked == 1 { "" } else { "s" },
            exporter::MAX_OPEN
        ));
    }
}

/// `mcp-raw export otlp FILE`: returns the exit status (0 all accepted, 1 an export
/// failed, 2 usage or unreadable input).
pub fn export(args: ExportOtlpArgs, console: &Console) -> u8 {
    let flags = Flags {
        endpoint: args.endpoint.as_deref(),
        protocol: args.protocol.as_deref(),
        headers: &args.header,
        timeout: args.timeout,
        batch: args.batch,
        queue: usize::MAX,
        interval: Duration::from_secs(1),
    };
    let settings = match settings(flags, &env, mcp_raw_wire::decode::DEFAULT_MAX_MESSAGE) {
        Ok(Some(s)) => s,
        Ok(None) => {
            console.say(format_args!(
                "mcp-raw export otlp: no collector: give --endpoint URL or set OTEL_EXPORTER_OTLP_ENDPOINT"
            ));
            return 2;
        }
        Err(e) => {
            console.say(format_args!("mcp-raw export otlp: {}", escape(&e)));
            return 2;
        }
    };
    let to = settings
        .traces
        .as_ref()
        .or(settings.metrics.as_ref())
        .map(|e| e.url.clone())
        .unwrap_or_default();
    let (header, events) = match super::open_transcript(&args.file) {
        Ok(read) => read,
        Err(e) => {
            console.say(format_args!("mcp-raw export otlp: {}", escape(&e)));
            return 2;
        }
    };
    // Read as a stream: a line that is not an event ends the export there (what
    // came before it is exported, as for the file cut at that line), then exit 2.
    let mut bad = None;
    let events = events.map_while(|e| e.map_err(|why| bad = Some(why)).ok());
    let report = exporter::recording(settings, &header, events);
    say(console, "mcp-raw export otlp", &to, &report);
    if let Some(why) = bad {
        console.say(format_args!(
            "mcp-raw export otlp: {}",
            escape(&format!(
                "{} is not a transcript mcp-raw can read: {why}",
                args.file.display()
            ))
        ));
        return 2;
    }
    if report.complete() { 0 } else { 1 }
}
