//! `mcp-raw client TARGET`: connect to any MCP server, learn its era, list its tools,
//! call some, and print every byte of it. TARGET is an `http://` or `https://` URL, or the command
//! line of a stdio server (or the command after `--`, taken as it is).

mod flags;
mod oauth;
mod resend;
mod target;

pub use target::Target;

use super::args::ClientArgs;
use super::console::Console;
use super::exit::{Usage, usage};
use mcp_raw_core::Eras;
use mcp_raw_net::client::mcp_client::{EraCache, McpClient, Options, Spoken};
use mcp_raw_net::client::wire_print::Printer;
use serde_json::{Value, json};

/// Some calls failed or returned `isError: true`: exit status 1.
#[derive(Debug)]
pub struct CallsFailed(pub usize);

impl std::fmt::Display for CallsFailed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} call(s) failed", self.0)
    }
}

impl std::error::Error for CallsFailed {}

/// The exit status an error means (`client --help` lists them): 1 a call failed,
/// 2 usage, 3 the connection or the protocol.
pub fn exit_code(e: &anyhow::Error) -> u8 {
    if e.is::<CallsFailed>() {
        1
    } else if e.is::<Usage>() {
        2
    } else {
        3
    }
}

/// `mcp-raw client …`, from its parsed arguments to its exit status (`client --help`
/// lists them), what went wrong said on stderr first.
/// `argv` is the command line after `client`, for the order of `--method` and
/// `--params`.
pub fn main(args: ClientArgs, argv: Vec<String>, console: &Console) -> u8 {
    match connect_and_run(args, &argv, console) {
        Ok(()) => 0,
        Err(e) => {
            super::exit::say("mcp-raw", &e, console);
            exit_code(&e)
        }
    }
}

/// The target and the view from the flags, then [`run`] on a runtime.
fn connect_and_run(args: ClientArgs, argv: &[String], console: &Console) -> anyhow::Result<()> {
    let target = match (&args.target, args.command.is_empty()) {
        (Some(t), true) => Target::parse(t)?,
        (None, false) => Target::Stdio(args.command.clone()),
        _ => return Err(usage("give a TARGET, or a command after `--`, not both")),
    };
    let methods = flags::method_calls(argv)?;
    let transport = match target {
        Target::Http(_) => "http",
        Target::Stdio(_) => "stdio",
    };
    let mut extra = Vec::new();
    let header = mcp_raw_wire::transcript::Header::new("client", transport);
    // Reports what it sent when dropped, after the run.
    let _otlp = super::otlp::start(
        &args.otlp,
        args.trace_context,
        &header,
        args.view.max_message_bytes,
        &mut extra,
        console,
    )?;
    let printer = args
        .view
        .printer_with(transport, console, extra)
        .map_err(|e| usage(format!("{e:#}")))?;
    super::runtime()?.block_on(run(&args, target, &methods, printer, console))
}

/// Connects (the era detected), lists the tools, makes the `--call`s and then the
/// `--method` requests, follows what the server sends unprompted when asked, closes.
pub async fn run(
    args: &ClientArgs,
    target: Target,
    methods: &[(String, Value)],
    printer: Printer,
    console: &Console,
) -> anyhow::Result<()> {
    let calls: Vec<(String, Value)> = args
        .calls
        .iter()
        .map(|c| flags::parse_call(c))
        .collect::<Result<_, _>>()?;
    let shown = match &target {
        Target::Http(url) => url.clone(),
        Target::Stdio(words) => words.join(" "),
    };
    let answers = flags::answers(args, console)?;
    // --ui: the page may resend on this session (once the work below is done).
    let resends = resend::offer(console);
    let link = target::open_link(&target, args, &printer, console)?;
    let eras: Eras = args.era.into();
    let options = Options {
        eras,
        timeout: args.timeout,
        startup_timeout: args.startup_timeout,
        answers,
        progress: args.progress,
        shutdown_timeout: args.shutdown_timeout,
        max_resumes: args.max_resumes,
        max_retry_wait: args.max_retry_wait,
        max_input_rounds: args.max_input_rounds,
        log_level: args.log_level.clone(),
        task_timeout: args.task_timeout,
        auth: oauth::auth_config(args)?,
        trace_context: flags::trace_seed(args)?,
        ..Options::default()
    };
    printer.caption(&format!("Connecting to {shown} (client eras: {eras:?})"));
    let mut client = McpClient::connect(link, &shown, options, &mut EraCache::default()).await?;
    if let Some(note) = client.era_note() {
        printer.caption(note);
    }
    printer.caption(&format!("The server speaks {}", client.spoken()));
    let tools = client.list_tools().await?;
    let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
    printer.caption(&format!("{} tools: {}", names.len(), names.join(", ")));
    // A tool the listing excluded is not called: a usage error, before any call.
    for (name, _) in &calls {
        if let Some(why) = client.excluded(name) {
            let refused = usage(format!(
                "--call {name}: tools/list excluded this tool, so it is not called: {why}"
            ));
            client.close().await?;
            return Err(refused);
        }
    }
    let mut failed = 0;
    let modern = matches!(client.spoken(), Spoken::Modern { .. });
    for (name, arguments) in calls {
        let failure = match client.call_tool(&name, arguments).await? {
            Ok(result) if result["isError"] == json!(true) => {
                failed += 1;
                printer.caption(&format!("{name}: the tool failed (isError: true)"));
                Some(result)
            }
            Ok(_) => {
                printer.caption(&format!("{name}: ok"));
                None
            }
            Err(e) => {
                failed += 1;
                printer.caption(&format!("{name}: JSON-RPC error {e}"));
                Some(json!({ "message": e.message, "data": e.data }))
            }
        };
        if let Some(failure) = failure
            && modern
            && eras == Eras::Both
            && wanted_back_channel(&failure)
        {
            printer.caption(&format!(
                "{name}: the server wanted to ask this client something (elicitation, sampling or roots) while the tool ran, and a 2026-07-28 request has no back-channel for that unless the server uses input_required; this client chose the modern era (--era both). With --era legacy the server can ask on the session's streams, and this client answers (--answer, --ask, --root)"
            ));
        }
    }
    for (method, params) in methods {
        match client.request(method, params.clone()).await? {
            Ok(_) => printer.caption(&format!("{method}: ok")),
            Err(e) => {
                failed += 1;
                printer.caption(&format!("{method}: JSON-RPC error {e}"));
            }
        }
    }
    if args.follow {
        printer.caption(
            "Listening for what the server sends unprompted, shown as it arrives (Ctrl-C to stop)",
        );
        let ended = client
            .listen(async {
                let _ = tokio::signal::ctrl_c().await;
            })
            .await?;
        printer.caption(&format!("Stopped listening: {ended}"));
    }
    if let Some(resends) = resends {
        resends.serve(&mut client).await;
    }
    client.close().await?;
    if failed > 0 {
        return Err(CallsFailed(failed).into());
    }
    Ok(())
}

/// Does this failure (a tool result, or a JSON-RPC error's message and data) say
/// that the server could not ask the client? MCP has no error code for it: a server
/// that asks its client only through a legacy session's streams (2025-11-25
/// `client/elicitation`, `client/sampling`, `client/roots`) and not through 2026-07-28
/// `input_required` fails such a tool in words, which SDKs write as "back-channel".
fn wanted_back_channel(failure: &Value) -> bool {
    let mut text = String::new();
    collect_text(failure, &mut text);
    let text = text.to_ascii_lowercase();
    ["back-channel", "back channel", "backchannel"]
        .iter()
        .any(|w| text.contains(w))
}

/// Every string inside `value`, appended to `out`.
fn collect_text(value: &Value, out: &mut String) {
    match value {
        Value::String(s) => {
            out.push_str(s);
            out.push('\n');
        }
        Value::Array(items) => items.iter().for_each(|v| collect_text(v, out)),
        Value::Object(map) => map.values().for_each(|v| collect_text(v, out)),
        _ => {}
    }
}
