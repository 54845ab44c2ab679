//! `mcp-raw replay FILE`: a recording's server side served to a live client (a mock
//! server); with `--against TARGET`, its client side sent to a live server, what
//! comes back shown and recorded like any client session.

use super::args::View;
use super::client::{Target, Usage};
use mcp_raw_net::client::stdio_link::Spawn;
use mcp_raw_tools::replay::script::Script;
use mcp_raw_tools::replay::{against, mock, serve};
use mcp_raw_wire::transcript;
use std::time::Duration;

/// What `replay` was asked to do.
pub struct Mode {
    /// The live server to send the client side to; with `command`, none: serve.
    pub against: Option<String>,
    /// The live stdio server after `--`.
    pub command: Vec<String>,
    /// How long to wait for the server's next bytes.
    pub timeout: Duration,
    /// Serving: over HTTP whatever the recording's transport.
    pub http: bool,
    /// Serving over HTTP: the port.
    pub port: u16,
    /// Serving over HTTP: `--tls-cert`/`--tls-key`, https:// instead.
    pub tls: super::args::TlsListen,
    /// Serving: what matching leaves out.
    pub ignore: Vec<String>,
}

/// Runs `replay`; returns the exit status.
pub fn main(file: &std::path::Path, mode: Mode, view: &View) -> u8 {
    let serving = mode.against.is_none() && mode.command.is_empty();
    let result = if serving {
        serve(file, &mode, view).map(|()| None)
    } else {
        run(file, mode, view).map(Some)
    };
    match result {
        Ok(Some(outcome)) => {
            eprintln!(
                "[mcp-raw replay] {} client message(s) sent again{}{}",
                outcome.sent,
                if outcome.followed > 0 {
                    format!(", {} GET stream(s) followed", outcome.followed)
                } else {
                    String::new()
                },
                if outcome.skipped > 0 {
                    format!(", {} resuming GET(s) skipped", outcome.skipped)
                } else {
                    String::new()
                }
            );
            0
        }
        Ok(None) => 0,
        Err(e) => {
            eprintln!(
                "mcp-raw replay: {}",
                mcp_raw_wire::term::escape(&format!("{e:#}"))
            );
            if e.downcast_ref::<Usage>().is_some() {
                2
            } else {
                1
            }
        }
    }
}

/// No `--against`: the recording's server side, served on the transport it was
/// recorded on.
fn serve(file: &std::path::Path, mode: &Mode, view: &View) -> anyhow::Result<()> {
    let events = read(file)?;
    let ignore = super::diff::rules(&mode.ignore).map_err(Usage)?;
    let mock = mock::Mock::from_events(&events, ignore);
    let http = mock.http || mode.http;
    let transport = if http { "http" } else { "stdio" };
    let recorder = super::record::recorder_for(
        "replay",
        transport,
        None,
        None,
        view.record.as_deref(),
        view.max_message_bytes,
        super::record::Secrets {
            show: view.show_secrets,
            headers: &view.redact_headers,
        },
    )?
    .unwrap_or_else(mcp_raw_wire::recorder::Recorder::none);
    let n = mock.exchanges.len();
    if !http {
        if mode.tls.tls_cert.is_some() {
            return Err(Usage(
                "--tls-cert and --tls-key need HTTP (--http, or a recording made over HTTP)".into(),
            )
            .into());
        }
        eprintln!(
            "[mcp-raw] replay serving {} over stdio ({n} recorded client messages)",
            file.display()
        );
        return serve::stdio(mock, recorder, view.max_message_bytes);
    }
    let tls = super::serve::tls_listen(&mode.tls)?;
    let scheme = if tls.is_some() { "https" } else { "http" };
    super::runtime()?.block_on(async {
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", mode.port))
            .await
            .map_err(|e| anyhow::anyhow!("cannot listen on 127.0.0.1:{}: {e}", mode.port))?;
        eprintln!(
            "[mcp-raw] replay listening on {scheme}://{}/mcp, serving {} ({n} recorded client messages)",
            listener.local_addr()?,
            file.display()
        );
        tokio::select! {
            r = serve::http(mock, listener, recorder, view.max_message_bytes, tls) => r,
            _ = tokio::signal::ctrl_c() => Ok(()),
        }
    })
}

fn read(file: &std::path::Path) -> anyhow::Result<Vec<mcp_raw_wire::event::Event>> {
    let text =
        std::fs::read(file).map_err(|e| Usage(format!("cannot read {}: {e}", file.display())))?;
    let (_, events) = transcript::read_bytes(&text).map_err(|e| {
        Usage(format!(
            "{} is not a transcript mcp-raw can read: {e}",
            file.display()
        ))
    })?;
    Ok(events)
}

fn run(file: &std::path::Path, mode: Mode, view: &View) -> anyhow::Result<against::Outcome> {
    let Mode {
        against,
        command,
        timeout,
        ..
    } = mode;
    let target = match (against, command.is_empty()) {
        (Some(_), false) => {
            return Err(Usage(
                "give the server either as --against TARGET or after `--`, not both".into(),
            )
            .into());
        }
        (None, true) => return Err(Usage("serve mode has no target".into()).into()),
        (None, false) => Target::Stdio(command),
        (Some(t), true) => match Target::parse(&t) {
            Ok(t) => t,
            Err(e) => return Err(Usage(format!("--against: {e}")).into()),
        },
    };
    let events = read(file)?;
    let script = Script::from_events(&events);
    let (target, transport) = match target {
        Target::Http(url) => (against::Target::Http(url), "http"),
        Target::Stdio(words) => {
            let mut words = words.into_iter();
            let program = words.next().unwrap_or_default();
            (
                against::Target::Stdio(Spawn {
                    program: program.into(),
                    args: words.collect(),
                    ..Spawn::default()
                }),
                "stdio",
            )
        }
    };
    if script.http != (transport == "http") {
        eprintln!(
            "[mcp-raw replay] note: the recording is {}, the target {transport}: the messages are sent as they are",
            if script.http { "HTTP" } else { "stdio" }
        );
    }
    let printer = view.printer(transport)?;
    super::runtime()?.block_on(against::run(script, target, &printer, timeout))
}
