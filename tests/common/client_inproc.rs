//! The servers the client tests talk to, in-process on 127.0.0.1, port 0 (where the
//! server's process is not what a test is about), and the view's captions read back
//! whole.
//!
//! - [`serve`]: `serve --http --era ERA [--fixture conformance]` as an [`InProcess`]
//!   (the same `http::App` the binary runs, with the defaults its flags give).
//! - [`captions`]: the `# …` lines the client prints (the era it found, the tools, each
//!   call's outcome), in order: deterministic text, compared whole by the tests.
#![allow(dead_code)]

use super::InProcess;
use mcp_raw_core::{Eras, Server};
use std::sync::Arc;

/// What `--era ERA` selects (`legacy`, `modern`, `both`).
pub fn eras(era: &str) -> Eras {
    match era {
        "legacy" => Eras::Legacy,
        "modern" => Eras::Modern,
        "both" => Eras::Both,
        other => panic!("no era {other:?}"),
    }
}

/// `serve --fixture conformance --era ERA`'s server (default task limits, as the
/// binary's `--max-tasks`/`--task-ttl` defaults give).
pub fn conformance(era: &str) -> Arc<Server> {
    mcp_raw_core::content::conformance::server(eras(era))
}

/// `serve --era ERA`'s server: the demo tools.
pub fn demo(era: &str) -> Arc<Server> {
    Server::new(mcp_raw_core::content::demo::tool_set(), eras(era))
}

/// `serve --http --era ERA` (the demo tools), in-process.
pub fn demo_http(era: &str) -> InProcess {
    InProcess::start(demo(era))
}

/// `serve --http --fixture conformance --era ERA`, in-process.
pub fn conformance_http(era: &str) -> InProcess {
    InProcess::start(conformance(era))
}

/// The captions of a client view (`# The server speaks …`), each line whole, in
/// order, one per line.
pub fn captions(view: &str) -> String {
    view.lines()
        .filter(|l| l.starts_with("# "))
        .map(|l| format!("{l}\n"))
        .collect()
}

/// The lines of `text` that start with `prefix`, whole, one per line.
pub fn lines_starting(text: &str, prefix: &str) -> String {
    text.lines()
        .filter(|l| l.starts_with(prefix))
        .map(|l| format!("{l}\n"))
        .collect()
}

/// What `--record PATH` gives a server: its own transcript, written as the
/// binary's `--record` writes it (header role `server` over `http`, secrets masked,
/// the default `--max-message-bytes`).
pub fn server_recorder(path: &std::path::Path) -> mcp_raw_wire::recorder::Recorder {
    masked(vec![server_transcript(path)])
}

/// The transcript sink of `--record PATH` on a server (role `server` over `http`,
/// the default `--max-message-bytes`).
fn server_transcript(path: &std::path::Path) -> Box<dyn mcp_raw_wire::recorder::Sink> {
    use mcp_raw_wire::{transcript, transcript_write};
    transcript_write::create(
        path,
        &transcript::Header::new("server", "http"),
        mcp_raw_wire::decode::DEFAULT_MAX_MESSAGE,
    )
    .expect("the server's transcript")
}

/// A recorder feeding `sinks`, secrets masked (the binary's default).
fn masked(sinks: Vec<Box<dyn mcp_raw_wire::recorder::Sink>>) -> mcp_raw_wire::recorder::Recorder {
    let recorder = mcp_raw_wire::recorder::Recorder::new(sinks);
    recorder.set_redaction(true);
    recorder
}

/// `serve --http` (the demo tools, both eras), in-process, recording with `recorder`.
fn demo_recorded(recorder: mcp_raw_wire::recorder::Recorder) -> InProcess {
    InProcess::with(
        demo("both"),
        mcp_raw_net::transport::http::Config {
            recorder: Some(recorder),
            ..Default::default()
        },
    )
}

/// `serve --http --record PATH` (the demo tools, both eras), in-process.
pub fn recording(path: &std::path::Path) -> InProcess {
    demo_recorded(server_recorder(path))
}

/// `--tls-cert CERT --tls-key KEY [--tls-client-ca CA]`: the listener's TLS, read
/// from the files as the binary reads them.
pub fn tls_flags(
    cert: &std::path::Path,
    key: &std::path::Path,
    client_ca: Option<&std::path::Path>,
) -> Option<Arc<mcp_raw_net::transport::tls::Acceptor>> {
    let acceptor =
        mcp_raw_net::transport::tls::Acceptor::from_flags(Some(cert), Some(key), client_ca)
            .expect("the listener's TLS")
            .expect("a certificate and key were given");
    Some(Arc::new(acceptor))
}

/// The lines of `text` that hold `needle`, each whole, one per line: what a test
/// compares exactly where the rest of the output is free (a tool's result line, every
/// `"method": …` line in order).
pub fn lines_with(text: &str, needle: &str) -> String {
    text.lines()
        .filter(|l| l.contains(needle))
        .map(|l| format!("{l}\n"))
        .collect()
}

/// The conformance fixture's tools, as `tools/list` lists them (the client's
/// `# 36 tools: …` caption).
pub const CONFORMANCE_TOOLS: &str = "36 tools: test_simple_text, test_image_content, test_audio_content, test_embedded_resource, test_multiple_content_types, test_error_handling, test_tool_with_progress, test_tool_with_logging, test_logging_tool, test_sampling, test_elicitation, test_elicitation_sep1034_defaults, test_elicitation_sep1330_enums, test_streaming_elicitation, test_trigger_tool_change, test_trigger_prompt_change, test_trigger_resource_update, test_custom_header, test_reconnection, json_schema_2020_12_tool, test_input_required_result_elicitation, test_input_required_result_sampling, test_input_required_result_list_roots, test_input_required_result_request_state, test_input_required_result_tampered_state, test_input_required_result_multiple_inputs, test_input_required_result_multi_round, test_input_required_result_capabilities, test_missing_capability, greet, slow_compute, failing_job, protocol_error_job, confirm_delete, multi_input, test_tool_with_task";

/// The demo server's tools (the client's `# 3 tools: …` caption).
pub const DEMO_TOOLS: &str = "3 tools: get_current_time, echo, add";

/// What the client's caption says of each era it can find.
pub const LEGACY_SPOKEN: &str =
    "The server speaks the legacy era, 2025-11-25 (initialize handshake)";
pub const MODERN_SPOKEN: &str =
    "The server speaks the modern era, 2026-07-28 (stateless, per-request _meta)";

/// Runs `command` (its stdout and stderr piped and read whole), killed if it takes
/// longer than `limit` (a hang fails the test instead of stalling the suite): its
/// output, and how long it took. The exit is awaited, not polled.
pub fn output_within(
    command: &mut std::process::Command,
    limit: std::time::Duration,
) -> (std::process::Output, std::time::Duration) {
    use std::process::Stdio;
    let started = std::time::Instant::now();
    let child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let pid = child.id().to_string();
    let (tx, rx) = std::sync::mpsc::channel();
    // Both pipes drained as they fill (wait_with_output reads them together), so a
    // long view never blocks the child.
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    let out = match rx.recv_timeout(limit) {
        Ok(out) => out,
        Err(_) => {
            let _ = std::process::Command::new("kill")
                .args(["-KILL", &pid])
                .status();
            rx.recv().expect("the waiter")
        }
    }
    .expect("its output");
    (out, started.elapsed())
}

/// The view's `TLS: …` notes, whole lines: times and ports normalized, and how long
/// each handshake took (`full handshake in 81.3 ms`) written `<ms>`.
pub fn tls_notes(view: &str) -> String {
    without_durations(&super::golden::normalize(&lines_with(view, "TLS: ")))
}

/// `text` with each `in 81.3 ms` (a handshake's duration) written `in <ms> ms`.
pub fn without_durations(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find(" in ") {
        let (head, tail) = rest.split_at(at + 4);
        out.push_str(head);
        rest = tail;
        if let Some((number, after)) = rest.split_once(" ms")
            && !number.is_empty()
            && number.bytes().all(|b| b.is_ascii_digit() || b == b'.')
        {
            out.push_str("<ms> ms");
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

/// The result line of `add {a: 2, b: 40}` in the client's view: a legacy response
/// and a modern one are laid out differently (the modern result has more members).
pub const ADDED_LEGACY: &str =
    "<<<   \"result\": {\"content\": [{\"type\": \"text\", \"text\": \"42\"}]}\n";
pub const ADDED_MODERN: &str = "<<<     \"content\": [{\"type\": \"text\", \"text\": \"42\"}],\n";

/// The `"text": …` lines of a client's view, whole (the result of `add` among them).
pub fn text_lines(view: &str) -> String {
    lines_with(view, "\"text\": ")
}

/// The `open` notes of a transcript (`accepted from …`, `connected to …`), one per
/// line, in order.
pub fn opened(transcript: &str) -> String {
    transcript
        .lines()
        .filter_map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).ok()?;
            Some(format!("{}\n", v.get("open")?.as_str()?))
        })
        .collect()
}

/// What an in-process server's `--trace` view wrote, and a signal at each write:
/// what a test reads where the binary's trace would be on its stderr.
#[derive(Clone, Default)]
pub struct Trace(Arc<(std::sync::Mutex<String>, std::sync::Condvar)>);

impl std::io::Write for Trace {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let (text, written) = &*self.0;
        text.lock().unwrap().push_str(&String::from_utf8_lossy(buf));
        written.notify_all();
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Trace {
    /// The trace once `done` holds of it (each write wakes the wait), or as it is
    /// after `limit`.
    pub fn once(&self, limit: std::time::Duration, done: impl Fn(&str) -> bool) -> String {
        let (text, written) = &*self.0;
        let text = text.lock().unwrap();
        let (text, _) = written
            .wait_timeout_while(text, limit, |t| !done(t))
            .unwrap();
        text.clone()
    }
}

/// `serve --http --trace oneline --color never` (the demo tools, both eras),
/// in-process: the one-line view goes to the returned [`Trace`].
pub fn traced_oneline() -> (InProcess, Trace) {
    let trace = Trace::default();
    let view = mcp_raw_wire::oneline::OnelineView::new(
        trace.clone(),
        false,
        mcp_raw_wire::decode::DEFAULT_MAX_MESSAGE,
    );
    (demo_recorded(masked(vec![Box::new(view)])), trace)
}

/// A printer like `mcp-raw client --color never [--record FILE]`'s: the text view
/// (messages only) written to the returned [`Trace`], and the transcript of `role`
/// `client` over `transport` to `record`. (The CLI's `# …` captions are written by the
/// program around the calls; a test driving the library compares what the calls
/// return instead, so its printer's captions go nowhere.)
pub fn viewing(
    record: Option<&std::path::Path>,
    transport: &str,
) -> (mcp_raw_net::client::wire_print::Printer, Trace) {
    use mcp_raw_wire::{transcript, transcript_write};
    let trace = Trace::default();
    let max = mcp_raw_wire::decode::DEFAULT_MAX_MESSAGE;
    let view = mcp_raw_wire::text::TextView::with_max(trace.clone(), false, false, max);
    let mut sinks: Vec<Box<dyn mcp_raw_wire::recorder::Sink>> = vec![Box::new(view)];
    if let Some(path) = record {
        sinks.push(
            transcript_write::create(path, &transcript::Header::new("client", transport), max)
                .expect("the client's transcript"),
        );
    }
    let printer = mcp_raw_net::client::wire_print::Printer::sinks_only(
        sinks,
        max,
        mcp_raw_net::client::wire_print::Screen::new(std::io::sink()),
    );
    printer.recorder().set_redaction(true);
    (printer, trace)
}

/// The library's client (what `mcp-raw client URL` runs) connected in-process to
/// `url`, its view written to the returned [`Trace`].
pub async fn http_client(
    url: &str,
    options: mcp_raw_net::client::mcp_client::Options,
) -> (mcp_raw_net::client::mcp_client::McpClient, Trace) {
    http_client_recording(url, options, None).await
}

/// [`http_client`], its transcript written to `record` too (`--record FILE`).
pub async fn http_client_recording(
    url: &str,
    options: mcp_raw_net::client::mcp_client::Options,
    record: Option<&std::path::Path>,
) -> (mcp_raw_net::client::mcp_client::McpClient, Trace) {
    use mcp_raw_net::client::http_link::HttpLink;
    use mcp_raw_net::client::mcp_client::Link;
    let (printer, trace) = viewing(record, "http");
    let link = Link::Http(HttpLink::new(url, &printer).expect("an http:// URL"));
    (connect(link, url, options).await, trace)
}

/// The library's client connected over `link` (`key`: what the era cache knows the
/// server by, the CLI's TARGET).
pub async fn connect(
    link: mcp_raw_net::client::mcp_client::Link,
    key: &str,
    options: mcp_raw_net::client::mcp_client::Options,
) -> mcp_raw_net::client::mcp_client::McpClient {
    use mcp_raw_net::client::mcp_client::{EraCache, McpClient};
    McpClient::connect(link, key, options, &mut EraCache::default())
        .await
        .expect("connected")
}

/// What [`drive_http`] saw: the era spoken, each call's result (its JSON text, or
/// the JSON-RPC error as the CLI words it), and the view.
pub struct Driven {
    pub spoken: mcp_raw_net::client::mcp_client::Spoken,
    pub results: Vec<Result<String, String>>,
    pub view: String,
}

/// `mcp-raw client URL --call NAME=ARGS…` as the library runs it, in-process on a
/// runtime of its own (so that a test with an [`InProcess`] server can call it):
/// connect, list the tools, call each tool in turn, close.
pub fn drive_http(
    url: &str,
    options: mcp_raw_net::client::mcp_client::Options,
    calls: &[(&str, serde_json::Value)],
) -> Driven {
    drive_http_recording(url, options, calls, None)
}

/// [`drive_http`], the client's transcript written to `record` (`--record FILE`).
pub fn drive_http_recording(
    url: &str,
    options: mcp_raw_net::client::mcp_client::Options,
    calls: &[(&str, serde_json::Value)],
    record: Option<&std::path::Path>,
) -> Driven {
    drive_http_with(url, options, calls, viewing(record, "http"), |_| {})
}

/// [`drive_http`] with this printer and its view (`viewing`, `viewing_oneline`), the
/// link set by `tune` first (what `--header` sets): the view kept whole, stamps
/// removed.
pub fn drive_http_with(
    url: &str,
    options: mcp_raw_net::client::mcp_client::Options,
    calls: &[(&str, serde_json::Value)],
    (printer, trace): (mcp_raw_net::client::wire_print::Printer, Trace),
    tune: impl FnOnce(&mut mcp_raw_net::client::http_link::HttpLink),
) -> Driven {
    use mcp_raw_net::client::http_link::HttpLink;
    use mcp_raw_net::client::mcp_client::Link;
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let mut link = HttpLink::new(url, &printer).expect("an http:// URL");
        tune(&mut link);
        let mut client = connect(Link::Http(link), url, options).await;
        let spoken = client.spoken().clone();
        // As the CLI does: the tools listed before any call.
        client.list_tools().await.unwrap();
        let mut results = Vec::new();
        for (name, arguments) in calls {
            let result = client.call_tool(name, arguments.clone()).await.unwrap();
            results.push(result.map(|v| v.to_string()).map_err(|e| e.to_string()));
        }
        client.close().await.unwrap();
        Driven {
            spoken,
            results,
            view: super::unstamped(&trace.once(std::time::Duration::ZERO, |_| true)),
        }
    })
}

/// A printer like `mcp-raw client --oneline --color never`'s: the one-line view
/// written to the returned [`Trace`] (captions nowhere, as in [`viewing`]).
pub fn viewing_oneline() -> (mcp_raw_net::client::wire_print::Printer, Trace) {
    let trace = Trace::default();
    let max = mcp_raw_wire::decode::DEFAULT_MAX_MESSAGE;
    let view = mcp_raw_wire::oneline::OnelineView::new(trace.clone(), false, max);
    let printer = mcp_raw_net::client::wire_print::Printer::sinks_only(
        vec![Box::new(view)],
        max,
        mcp_raw_net::client::wire_print::Screen::new(std::io::sink()),
    );
    printer.recorder().set_redaction(true);
    (printer, trace)
}

/// The events of the transcript at `path`, read as `show` and `check` read it.
fn transcript_events(path: &std::path::Path) -> Vec<mcp_raw_wire::event::Event> {
    let bytes = std::fs::read(path).expect("the transcript");
    mcp_raw_wire::transcript::read_bytes(&bytes)
        .expect("a transcript")
        .1
}

/// `mcp-raw show --color never [--explain] FILE`, in-process: the library's text
/// view fed the recording's events.
pub fn show_text(path: &std::path::Path, explain: bool) -> String {
    shown(path, false, explain)
}

/// The library's text view (no colour; `raw`: every byte verbatim; `explain`: the
/// captions of `--explain`) fed the recording's events: what `show` writes.
fn shown(path: &std::path::Path, raw: bool, explain: bool) -> String {
    use mcp_raw_wire::recorder::Sink;
    let trace = Trace::default();
    let mut view = mcp_raw_wire::text::TextView::with_max(
        trace.clone(),
        false,
        raw,
        mcp_raw_wire::decode::DEFAULT_MAX_MESSAGE,
    )
    .explaining(explain);
    for e in &transcript_events(path) {
        view.event(e);
    }
    drop(view);
    trace.once(std::time::Duration::ZERO, |_| true)
}

/// `mcp-raw check FILE` (text), in-process: the library's checker fed the
/// recording's events; whether it found errors (the CLI's exit status 1), and its
/// report.
pub fn check_text(path: &std::path::Path) -> (bool, String) {
    use mcp_raw_tools::check::{Checker, report};
    let mut checker = Checker::with_max(mcp_raw_wire::decode::DEFAULT_MAX_MESSAGE);
    let mut findings = Vec::new();
    for e in &transcript_events(path) {
        findings.extend(checker.feed(e));
    }
    findings.extend(checker.finish());
    let totals = report::Totals {
        events: checker.events(),
        messages: checker.messages(),
        ..Default::default()
    };
    (
        report::count(&findings).0 > 0,
        report::text(&findings, totals),
    )
}

/// `mcp-raw show --oneline --color never [--method M…] FILE`, in-process: the
/// library's one-line view fed the recording's events, keeping the messages of
/// `methods` (all when empty).
pub fn show_oneline(path: &std::path::Path, methods: &[&str]) -> String {
    use mcp_raw_wire::recorder::Sink;
    let trace = Trace::default();
    let mut view = mcp_raw_wire::oneline::OnelineView::new(
        trace.clone(),
        false,
        mcp_raw_wire::decode::DEFAULT_MAX_MESSAGE,
    )
    .selecting(mcp_raw_wire::select::Select::new(
        methods.iter().map(|m| m.to_string()).collect(),
        Vec::new(),
        None,
    ));
    for e in &transcript_events(path) {
        view.event(e);
    }
    drop(view);
    trace.once(std::time::Duration::ZERO, |_| true)
}

/// `serve --http --trace --record PATH` (the demo tools, both eras), in-process: the
/// transcript written to `path` as the binary writes it, and the trace (the text
/// view, no colour) to the returned [`Trace`]. The transcript is fed each event
/// before the view, so a wait on the trace sees the file already holding it.
pub fn traced_recording(path: &std::path::Path) -> (InProcess, Trace) {
    let max = mcp_raw_wire::decode::DEFAULT_MAX_MESSAGE;
    let trace = Trace::default();
    let view = mcp_raw_wire::text::TextView::with_max(trace.clone(), false, false, max);
    let recorder = masked(vec![server_transcript(path), Box::new(view)]);
    (demo_recorded(recorder), trace)
}

/// `mcp-raw show --raw --color never FILE`, in-process: the library's text view in
/// raw mode (every byte verbatim) fed the recording's events.
pub fn show_raw(path: &std::path::Path) -> String {
    shown(path, true, false)
}

/// `mcp-raw show --pretty FILE`, in-process: the library's pretty JSON document of
/// the recording, made terminal-safe as the subcommand writes it (its stdout bytes).
pub fn show_pretty(path: &std::path::Path) -> Vec<u8> {
    let bytes = std::fs::read(path).expect("the transcript");
    let (header, events) = mcp_raw_wire::transcript::read_bytes(&bytes).expect("a transcript");
    let out = mcp_raw_wire::transcript::pretty(
        &header,
        &events,
        mcp_raw_wire::decode::DEFAULT_MAX_MESSAGE,
    ) + "\n";
    mcp_raw_wire::term::json_safe(out.as_bytes()).into_owned()
}
