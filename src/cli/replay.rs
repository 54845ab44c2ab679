//! `mcp-raw replay FILE`: a recording's server side served to a live client (a mock
//! server); with `--against TARGET`, its client side sent to a live server, what
//! comes back shown and recorded like any client session.

use super::args::ReplayArgs;
use super::client::Target;
use super::console::Console;
use super::exit::Usage;
use mcp_raw_net::client::stdio_link::Spawn;
use mcp_raw_tools::replay::script::{Source, Unreadable};
use mcp_raw_tools::replay::{against, mock, serve};

/// Runs `replay`; returns the exit status.
pub fn main(args: ReplayArgs, console: &Console) -> u8 {
    let serving = args.against.is_none() && args.command.is_empty();
    let result = if serving {
        serve(&args, console).map(|()| None)
    } else {
        run(args, console).map(Some)
    };
    match result {
        Ok(Some(outcome)) => {
            console.say(format_args!(
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
            ));
            0
        }
        Ok(None) => 0,
        Err(e) => super::exit::report("mcp-raw replay", &e, console),
    }
}

/// No `--against`: the recording's server side, served on the transport it was
/// recorded on.
fn serve(args: &ReplayArgs, console: &Console) -> anyhow::Result<()> {
    let (file, view) = (args.file.as_path(), &args.view);
    let events = read(file)?;
    let ignore = super::diff::rules(&args.ignore).map_err(Usage)?;
    let mock = mock::Mock::from_events(&events, ignore);
    let http = mock.http || args.http;
    let transport = if http { "http" } else { "stdio" };
    let wanted = super::record::Wanted {
        trace: None,
        color: None,
        record: view.record.as_deref(),
        queue: view.record_queue.policy(),
        max_message: view.max_message_bytes,
        show_secrets: view.show_secrets,
        redact_headers: &view.redact_headers,
    };
    let header = mcp_raw_wire::transcript::Header::new("replay", transport);
    let page = super::ui::sinks(
        view.ui,
        &view.ui_page,
        &header,
        view.max_message_bytes,
        console,
    )?;
    let recorder = super::record::recorder(&header, wanted, page, console)?
        .unwrap_or_else(mcp_raw_wire::recorder::Recorder::none);
    let n = mock.exchanges.len();
    if !http {
        if args.tls.tls_cert.is_some() {
            return Err(Usage(
                "--tls-cert and --tls-key need HTTP (--http, or a recording made over HTTP)".into(),
            )
            .into());
        }
        console.say(format_args!(
            "[mcp-raw] replay serving {} over stdio ({n} recorded client messages)",
            file.display()
        ));
        return serve::stdio(
            mock,
            recorder,
            view.max_message_bytes,
            std::io::stdin().lock(),
            std::io::stdout().lock(),
        );
    }
    let tls = super::serve::tls_listen(&args.tls)?;
    let scheme = if tls.is_some() { "https" } else { "http" };
    // The same connection clocks as `serve --http`, with its defaults.
    let mut limits = args
        .clocks
        .apply(mcp_raw_net::transport::http::Limits::default());
    if let Some(t) = args.header_timeout {
        limits.header_timeout = super::args::off_if_zero(t);
    }
    super::runtime()?.block_on(async {
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", args.port))
            .await
            .map_err(|e| anyhow::anyhow!("cannot listen on 127.0.0.1:{}: {e}", args.port))?;
        console.say(format_args!(
            "[mcp-raw] replay listening on {scheme}://{}/mcp, serving {} ({n} recorded client messages)",
            listener.local_addr()?,
            file.display()
        ));
        tokio::select! {
            r = serve::http(mock, listener, recorder, view.max_message_bytes, tls, limits) => r,
            _ = super::stop::signalled() => Ok(()),
        }
    })
}

/// The recording; unreadable, or not a transcript, is the caller's to fix (exit 2).
fn read(file: &std::path::Path) -> anyhow::Result<Vec<mcp_raw_wire::event::Event>> {
    let (_, events) = super::read_transcript(file).map_err(Usage)?;
    Ok(events)
}

fn run(args: ReplayArgs, console: &Console) -> anyhow::Result<against::Outcome> {
    let ReplayArgs {
        file,
        against,
        command,
        timeout,
        view,
        ..
    } = args;
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
    // Read as it is sent: a step at a time (tools/replay/script.rs's Source).
    let (_, events) = super::open_transcript(&file).map_err(Usage)?;
    let unreadable = |why: &dyn std::fmt::Display| {
        Usage(format!(
            "{} is not a transcript mcp-raw can read: {why}",
            file.display()
        ))
    };
    let script = Source::new(Box::new(events)).map_err(|why| unreadable(&why))?;
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
        console.say(format_args!(
            "[mcp-raw replay] note: the recording is {}, the target {transport}: the messages are sent as they are",
            if script.http { "HTTP" } else { "stdio" }
        ));
    }
    let printer = view.printer(transport, console)?;
    super::runtime()?
        .block_on(against::run(script, target, &printer, timeout))
        .map_err(|e| match e.downcast_ref::<Unreadable>() {
            Some(why) => unreadable(why).into(),
            None => e,
        })
}
