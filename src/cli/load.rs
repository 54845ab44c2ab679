//! `mcp-raw load TARGET`: the flags → the library's plan ([`mcp_raw_tools::load`]),
//! its progress on stderr while it runs, its figures printed as text or JSON, and
//! the exit status the thresholds give.

use super::args::{LoadArgs, LoadFormat};
use super::client::Target;
use super::console::Console;
use super::exit::usage;
use mcp_raw_net::client::stdio_link::Spawn;
use mcp_raw_net::client::wire_print::{Printer, Screen};
use mcp_raw_tools::load::mix::{self, Mix};
use mcp_raw_tools::load::{self, Live, Plan};
use mcp_raw_wire::{transcript, transcript_write};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

/// A run lasts this long when neither `--duration` nor `--requests` bounds it.
const DEFAULT_DURATION: Duration = Duration::from_secs(10);

/// Runs `load`; returns the exit status (`load --help` lists them).
pub fn main(args: LoadArgs, console: &Console) -> anyhow::Result<u8> {
    let plan = plan(&args)?;
    let live = Arc::new(Live::default());
    let progress = (!args.quiet).then(|| Progress::start(live.clone(), console.clone()));
    // One thread drives every client: a call's answer wakes its client on the thread
    // that read it, not across threads, and the other cores are left to the server
    // (measured on two cores shared with `serve --http`, 8 clients: 70k calls/s
    // instead of 54k in 2025-11-25, 57k instead of 39k in 2026-07-28; `perf` showed a
    // multi-threaded runtime spending a fifth of its time switching).
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let report = runtime.block_on(load::run(plan, live));
    if let Some(p) = progress {
        p.stop();
    }
    let broken = report.broken(args.max_p99, args.max_errors);
    console.print(match args.format {
        LoadFormat::Text => report.text(&broken),
        LoadFormat::Json => report.json(&broken),
    });
    if report.spoken.is_none() {
        console.say("mcp-raw load: no client could connect (see the lines above)");
        return Ok(1);
    }
    Ok(u8::from(!broken.is_empty()))
}

/// The library's plan from the flags; what is wrong with them, quoted (exit 2).
fn plan(args: &LoadArgs) -> anyhow::Result<Plan> {
    let target = match (&args.target, args.command.is_empty()) {
        (Some(t), true) => Target::parse(t)?,
        (None, false) => Target::Stdio(args.command.clone()),
        _ => return Err(usage("give a TARGET, or a command after `--`, not both")),
    };
    let transport = match target {
        Target::Http(_) => "http",
        Target::Stdio(_) => "stdio",
    };
    let target = match target {
        Target::Http(url) => {
            let headers = args
                .headers
                .iter()
                .map(|h| super::header(h))
                .collect::<anyhow::Result<Vec<_>>>()?;
            let tls = mcp_raw_net::client::tls::Tls::new(mcp_raw_net::client::tls::TlsOptions {
                cacert: args.cacert.clone(),
                ..Default::default()
            })
            .map_err(|e| usage(format!("{e:#}")))?;
            load::Target::Http {
                url,
                headers,
                tls: Arc::new(tls),
            }
        }
        Target::Stdio(words) => {
            if !args.headers.is_empty() {
                return Err(usage("--header applies to http:// targets only"));
            }
            if !args.cacert.is_empty() || args.share_token {
                return Err(usage(
                    "--cacert and --share-token apply to http:// and https:// targets only",
                ));
            }
            load::Target::Stdio(Spawn {
                program: words[0].clone().into(),
                args: words[1..].to_vec(),
                ..Spawn::default()
            })
        }
    };
    let mut calls = args
        .calls
        .iter()
        .map(|c| mix::parse_call(c))
        .collect::<Result<Vec<_>, _>>()
        .map_err(usage)?;
    if let Some(file) = &args.scenario {
        let text = std::fs::read_to_string(file)
            .map_err(|e| usage(format!("--scenario {}: {e}", file.display())))?;
        let more = mix::parse_scenario(&text)
            .map_err(|e| usage(format!("--scenario {}: {e}", file.display())))?;
        calls.extend(more);
    }
    if let Some(file) = &args.mix_from {
        let (_, events) =
            super::read_transcript(file).map_err(|e| usage(format!("--mix-from: {e}")))?;
        let more = mcp_raw_tools::load::recorded::mix_from(
            &events,
            mcp_raw_wire::decode::DEFAULT_MAX_MESSAGE,
        )
        .map_err(|e| usage(format!("--mix-from {}: {e}", file.display())))?;
        calls.extend(more);
    }
    if calls.is_empty() {
        calls.push(mix::Call {
            method: "tools/list".into(),
            tool: None,
            params: serde_json::json!({}),
            weight: 1,
        });
    }
    let duration = match (args.duration, args.requests) {
        (None, None) => Some(DEFAULT_DURATION),
        (d, _) => d,
    };
    Ok(Plan {
        target,
        eras: args.era.into(),
        clients: args.clients as usize,
        mix: Mix::new(calls).map_err(usage)?,
        rate: args.rate,
        ramp_up: args.ramp_up,
        duration,
        requests: args.requests,
        timeout: super::args::off_if_zero(args.timeout),
        startup_timeout: super::args::off_if_zero(args.startup_timeout),
        recorder: samples(args, transport)?,
        share_token: args.share_token,
    })
}

/// `--record-sample N`: a recording printer for each of the first N clients, each
/// writing `--sample-dir`/client-I.jsonl (created now: a path that cannot be written
/// is a usage error before any load); the other clients record nothing.
fn samples(
    args: &LoadArgs,
    transport: &str,
) -> anyhow::Result<Arc<dyn Fn(usize) -> Option<Printer> + Send + Sync>> {
    let header = transcript::Header::new("client", transport);
    let max = mcp_raw_wire::decode::DEFAULT_MAX_MESSAGE;
    let mut printers = Vec::new();
    for i in 0..args.record_sample {
        let path = args.sample_dir.join(format!("client-{i}.jsonl"));
        let sink = transcript_write::create(&path, &header, max).map_err(|e| {
            usage(format!(
                "--record-sample: cannot write {}: {e}",
                path.display()
            ))
        })?;
        let printer = Printer::sinks_only(vec![sink], max, Screen::new(std::io::sink()));
        // Tokens and secrets masked, as `client --record` masks them by default.
        printer.recorder().set_redaction(true);
        printers.push(printer);
    }
    Ok(Arc::new(move |i| printers.get(i).cloned()))
}

/// The progress line: on a terminal one line kept current, otherwise a line a
/// second; from a thread of its own, so the run's runtime is left to the clients.
struct Progress {
    stop: std::sync::mpsc::Sender<()>,
    thread: std::thread::JoinHandle<()>,
}

impl Progress {
    fn start(live: Arc<Live>, console: Console) -> Progress {
        let (stop, stopped) = std::sync::mpsc::channel();
        let thread = std::thread::spawn(move || {
            let terminal = console.err_is_terminal();
            let start = Instant::now();
            let mut last = 0;
            while stopped.recv_timeout(Duration::from_secs(1)).is_err() {
                let done = live.done.load(Ordering::Relaxed);
                let line = format!(
                    "[mcp-raw load] {:>4.0} s: {} clients connected, {} calls sent, {} answered ({}/s), {} failed",
                    start.elapsed().as_secs_f64(),
                    live.connected.load(Ordering::Relaxed),
                    live.sent.load(Ordering::Relaxed),
                    done,
                    done - last,
                    live.failed.load(Ordering::Relaxed),
                );
                last = done;
                if terminal {
                    let _ = std::io::Write::write_all(
                        &mut console.err(),
                        format!("\r\x1b[K{line}").as_bytes(),
                    );
                } else {
                    console.say(line);
                }
            }
            if terminal {
                let _ = std::io::Write::write_all(&mut console.err(), b"\r\x1b[K");
            }
        });
        Progress { stop, thread }
    }

    fn stop(self) {
        let _ = self.stop.send(());
        let _ = self.thread.join();
    }
}
