//! `mcp-raw show FILE`: a recorded transcript rendered again, whole or only some of
//! its lanes, directions and messages; as text, as the transcript itself (`--json`),
//! or live as the file grows (`--follow`).

use super::args::{ShowArgs, ShowFormat};
use super::console::Console;
use mcp_raw_wire::decode::{Decoder, Fact};
use mcp_raw_wire::event::{Dir, Event};
use mcp_raw_wire::recorder::Sink;
use mcp_raw_wire::select::Select;
use mcp_raw_wire::text::TextView;
use mcp_raw_wire::{transcript, transcript_write};
use std::io::{Read, Write};
use std::time::Duration;

/// An unreadable FILE, a file that is not a transcript, or flags that do not fit it:
/// exit status 2, as `check`, `diff` and `replay` (the exit-status rule, src/cli/exit.rs).
macro_rules! usage {
    ($($t:tt)*) => { super::exit::usage(format!($($t)*)) };
}

/// `return Err(usage!(…))`.
macro_rules! bail_usage {
    ($($t:tt)*) => { return Err(usage!($($t)*)) };
}

/// `--lane` and `--dir`: which events are rendered. Whole lanes and directions are
/// kept or dropped, never parts of one, so each kept direction is framed as it was.
pub struct Only {
    /// Lane labels to keep (`stdio`, `stderr`, `c1`…); empty keeps all.
    pub lanes: Vec<String>,
    /// The one direction to keep; `None` keeps both.
    pub dir: Option<Dir>,
}

impl Only {
    fn keeps(&self, e: &Event) -> bool {
        (self.lanes.is_empty() || self.lanes.contains(&e.lane.label()))
            && self.dir.is_none_or(|d| e.dir == d)
    }

    /// A `--lane` the recording does not have (`present` holds the lanes it has) is
    /// an error that names the lanes it does have.
    fn present(&self, present: &[String]) -> anyhow::Result<()> {
        if let Some(missing) = self.lanes.iter().find(|l| !present.contains(l)) {
            bail_usage!(
                "--lane {missing:?}: this recording has no such lane (it has: {})",
                present.join(", ")
            );
        }
        Ok(())
    }

    /// The events kept, checked as [`Only::present`] does.
    fn apply(&self, events: Vec<Event>) -> anyhow::Result<Vec<Event>> {
        let mut present: Vec<String> = Vec::new();
        for e in &events {
            let label = e.lane.label();
            if !present.contains(&label) {
                present.push(label);
            }
        }
        self.present(&present)?;
        Ok(events.into_iter().filter(|e| self.keeps(e)).collect())
    }
}

/// How `show` renders.
pub struct Options {
    /// Every byte verbatim (text view).
    pub raw: bool,
    /// One pretty JSON document.
    pub pretty: bool,
    /// A line per message.
    pub oneline: bool,
    /// The JSON Lines transcript of what is kept (message fact lines only, with a
    /// message filter).
    pub json: bool,
    /// Annotate each message and head with its rule.
    pub explain: bool,
    /// Keep reading as the file grows.
    pub follow: bool,
    /// Write one HTML page here instead.
    pub html: Option<std::path::PathBuf>,
    pub color: bool,
    /// Where the view goes (stdout).
    pub console: Console,
    /// The largest message read whole.
    pub max: usize,
    pub only: Only,
    /// `--method`, `--id`, `--era`.
    pub select: Select,
}

/// Runs `show`; returns the exit status: 0 shown, 1 the output could not be
/// written (`--html`), 2 the file is unreadable or not a transcript, or a flag
/// does not fit it.
pub fn main(args: ShowArgs, console: &Console) -> u8 {
    // `--format json|pretty` is `--json` or `--pretty`, and refused beside a
    // text view's flags the way those are.
    let json = args.json || args.format == Some(ShowFormat::Json);
    let pretty = args.pretty || args.format == Some(ShowFormat::Pretty);
    if json || pretty {
        let text_flags = [
            ("--raw", args.raw),
            ("--oneline", args.oneline),
            ("--explain", args.explain),
        ];
        if let Some((flag, _)) = text_flags.iter().find(|(_, on)| *on) {
            use clap::CommandFactory;
            let refused = super::args::Cli::command().error(
                clap::error::ErrorKind::ArgumentConflict,
                format!("{flag} shows a text view: it cannot go with --format json or pretty"),
            );
            return super::exit::clap_refused(refused, console);
        }
    }
    let opts = Options {
        raw: args.raw,
        pretty,
        oneline: args.oneline,
        json,
        explain: args.explain,
        follow: args.follow,
        html: args.html,
        color: args.color.enabled(console),
        console: console.clone(),
        max: args.max_message_bytes,
        only: Only {
            lanes: args.lane,
            dir: args.dir.as_deref().and_then(Dir::from_name),
        },
        select: Select::new(args.method, args.id, args.era),
    };
    match show(&args.file, opts) {
        Ok(()) => 0,
        Err(e) => super::exit::report("mcp-raw show", &e, console),
    }
}

/// `mcp-raw show FILE`. Every view but `--html` streams: the recording is read a
/// line at a time and each event rendered as it is read, so memory holds one event
/// whatever the file's size. A line that is not an event ends the view there, with
/// the error (exit status 2).
pub fn show(file: &std::path::Path, opts: Options) -> anyhow::Result<()> {
    if opts.follow {
        return follow(file, opts);
    }
    if let Some(out) = &opts.html {
        // One page with every event: read whole.
        let (header, events) = super::read_transcript(file).map_err(super::exit::usage)?;
        let events = opts.only.apply(events)?;
        let findings = mcp_raw_tools::ui::findings::of_recording(&events, opts.max);
        let page = mcp_raw_wire::html::page(&header, &events, opts.max, findings);
        transcript_write::create_private(out)
            .and_then(|mut f| f.write_all(page.as_bytes()))
            .map_err(|e| anyhow::anyhow!("--html {}: cannot write it: {e}", out.display()))?;
        return Ok(());
    }
    let (header, events) = super::open_transcript(file).map_err(super::exit::usage)?;
    let only = Only {
        lanes: opts.only.lanes.clone(),
        dir: opts.only.dir,
    };
    let mut present: Vec<String> = Vec::new();
    let mut note = |e: &Event| {
        if !only.lanes.is_empty() {
            let label = e.lane.label();
            if !present.contains(&label) {
                present.push(label);
            }
        }
    };
    let bad = |e: String| {
        usage!(
            "{} is not a transcript mcp-raw can read: {e}",
            file.display()
        )
    };
    if opts.pretty {
        // One document, written an event at a time; terminal-safe as it goes (a
        // chunk ends at an event's end, never inside a character).
        let console = opts.console.clone();
        let mut out = Vec::new();
        let mut doc = mcp_raw_wire::pretty_doc::PrettyDoc::start(&mut out, &header, opts.max);
        for e in events {
            let e = e.map_err(bad)?;
            note(&e);
            if only.keeps(&e) {
                doc.event(&mut out, &e);
            }
            if out.len() >= PRETTY_CHUNK {
                console.print(mcp_raw_wire::term::json_safe(&out));
                out.clear();
            }
        }
        doc.finish(&mut out);
        out.push(b'\n');
        console.print(mcp_raw_wire::term::json_safe(&out));
    } else {
        let mut sink = sink(&header, opts)?;
        for e in events {
            let e = e.map_err(bad)?;
            note(&e);
            if only.keeps(&e) {
                sink.event(&e);
            }
        }
    }
    only.present(&present)
}

/// How much of the pretty document is written at once.
const PRETTY_CHUNK: usize = 64 * 1024;

/// Where the kept events go: the text view, or JSON Lines, on stdout.
fn sink(header: &transcript::Header, opts: Options) -> anyhow::Result<Box<dyn Sink>> {
    if opts.json && opts.select.is_empty() {
        return Ok(Box::new(transcript_write::Writer::new(
            opts.console.out(),
            header,
            opts.max,
        )?));
    }
    if opts.json {
        return Ok(Box::new(Messages {
            out: opts.console.out(),
            decoder: Decoder::with_max(opts.max),
            select: opts.select,
        }));
    }
    if opts.oneline {
        return Ok(Box::new(
            mcp_raw_wire::oneline::OnelineView::new(opts.console.out(), opts.color, opts.max)
                .selecting(opts.select),
        ));
    }
    Ok(Box::new(
        TextView::with_max(opts.console.out(), opts.color, opts.raw, opts.max)
            .selecting(opts.select)
            .explaining(opts.explain),
    ))
}

/// `--json` with a message filter: the `message` fact lines of the kept messages.
struct Messages {
    /// Where the kept lines go (stdout).
    out: super::console::Writer,
    decoder: Decoder,
    select: Select,
}

impl Sink for Messages {
    fn event(&mut self, event: &Event) {
        let out = &mut self.out;
        for fact in self.decoder.feed(event) {
            if let Fact::Payload { class, .. } = &fact
                && self.select.keep(class)
            {
                let line = transcript::fact_json(event, &fact).to_string();
                let mut line = mcp_raw_wire::term::json_safe(line.as_bytes()).into_owned();
                line.push(b'\n');
                let _ = out.write_all(&line);
            }
        }
        let _ = out.flush();
    }
}

/// How often `--follow` looks for more of the file.
const FOLLOW_POLL: Duration = Duration::from_millis(100);

/// `--follow`: renders the file as it is, then each line appended to it, until
/// interrupted (like `tail -f`). A file that does not exist yet is waited for.
fn follow(file: &std::path::Path, opts: Options) -> anyhow::Result<()> {
    if opts.pretty {
        bail_usage!("--follow renders as the file grows; --pretty needs the whole file");
    }
    let mut f = loop {
        match std::fs::File::open(file) {
            Ok(f) => break f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => std::thread::sleep(FOLLOW_POLL),
            Err(e) => bail_usage!("cannot read {}: {e}", file.display()),
        }
    };
    let mut pending: Vec<u8> = Vec::new();
    let mut sink: Option<Box<dyn Sink>> = None;
    let mut opts = Some(opts);
    let mut keep: Option<Only> = None;
    let mut line_no = 0usize;
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = f
            .read(&mut buf)
            .map_err(|e| usage!("reading {}: {e}", file.display()))?;
        if n == 0 {
            std::thread::sleep(FOLLOW_POLL);
            continue;
        }
        pending.extend_from_slice(&buf[..n]);
        // Only whole lines: the writer may be in the middle of one.
        while let Some(end) = pending.iter().position(|&b| b == b'\n') {
            let line: Vec<u8> = pending.drain(..=end).collect();
            line_no += 1;
            let text = std::str::from_utf8(&line).map_err(|e| {
                usage!(
                    "{}: {}",
                    file.display(),
                    transcript::not_utf8(&line, e.valid_up_to(), line_no)
                )
            })?;
            let text = text.trim_end();
            if text.is_empty() {
                continue;
            }
            if let Some(s) = sink.as_mut() {
                let event = transcript::event_of_line(text)
                    .map_err(|e| usage!("{} line {line_no}: {e}", file.display()))?;
                if let Some(e) = event
                    && keep.as_ref().is_none_or(|k| k.keeps(&e))
                {
                    s.event(&e);
                }
            } else if let Some(o) = opts.take() {
                // The first line: the header, then the sink it names.
                let header = transcript::header_of_line(text).map_err(|e| {
                    usage!(
                        "{} is not a transcript mcp-raw can read: line {line_no}: {e}",
                        file.display()
                    )
                })?;
                keep = Some(Only {
                    lanes: o.only.lanes.clone(),
                    dir: o.only.dir,
                });
                sink = Some(self::sink(&header, o)?);
            }
        }
    }
}
