//! `mcp-raw client TARGET`: connect to any MCP server, learn its era, list its tools,
//! call some, and print every byte of it. TARGET is an `http://` or `https://` URL, or the command
//! line of a stdio server (or the command after `--`, taken as it is).

use super::args::{AskWhen, ClientArgs};
use mcp_raw_core::Eras;
use mcp_raw_net::client::answers::Answers;
use mcp_raw_net::client::ask_user::Asker;
use mcp_raw_net::client::auth::assertion::ClientKey;
use mcp_raw_net::client::auth::extension::{Enterprise, Given};
use mcp_raw_net::client::auth::{AuthConfig, Grant};
use mcp_raw_net::client::http_link::HttpLink;
use mcp_raw_net::client::mcp_client::{EraCache, Link, McpClient, Options, Spoken};
use mcp_raw_net::client::stdio_link::{Spawn, StdioLink};
use mcp_raw_net::client::task_store::TaskStore;
use mcp_raw_net::client::tls::{Tls, TlsOptions};
use mcp_raw_net::client::wire_print::Printer;
use serde_json::{Value, json};
use std::io::IsTerminal;

/// A bad flag value or TARGET: exit status 2.
#[derive(Debug)]
pub struct Usage(pub String);

impl std::fmt::Display for Usage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Usage {}

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

pub fn usage(text: impl Into<String>) -> anyhow::Error {
    Usage(text.into()).into()
}

/// The `--method` / `--params` pairs in the order given: each `--params` belongs to
/// the `--method` before it (clap keeps each flag's values apart, so the command line
/// itself is read for their order; what follows `--` is the server's).
pub fn method_calls(argv: &[String]) -> anyhow::Result<Vec<(String, Value)>> {
    let mut calls: Vec<(String, Option<Value>)> = Vec::new();
    let mut words = argv.iter();
    while let Some(word) = words.next() {
        if word == "--" {
            break;
        }
        let (flag, inline) = match word.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f, Some(v.to_owned())),
            _ => (word.as_str(), None),
        };
        let value = || inline.clone().or_else(|| words.clone().next().cloned());
        match flag {
            "--method" => {
                let name = value().unwrap_or_default();
                calls.push((name, None));
            }
            "--params" => {
                let text = value().unwrap_or_default();
                let Some((method, params)) = calls.last_mut() else {
                    return Err(usage(format!("--params {text}: no --method before it")));
                };
                if params.is_some() {
                    return Err(usage(format!("--method {method} has two --params")));
                }
                let v: Value = serde_json::from_str(&text).map_err(|e| {
                    usage(format!("--params of {method}: not JSON ({e}): {text:?}"))
                })?;
                if !v.is_object() {
                    return Err(usage(format!(
                        "--params of {method}: must be a JSON object (MCP params are named), got {v}"
                    )));
                }
                *params = Some(v);
            }
            _ => continue,
        }
        if inline.is_none() {
            words.next();
        }
    }
    Ok(calls
        .into_iter()
        .map(|(m, p)| (m, p.unwrap_or_else(|| json!({}))))
        .collect())
}

/// `mcp-raw client …`, from its parsed arguments to its outcome.
pub fn main(args: ClientArgs) -> anyhow::Result<()> {
    let target = match (&args.target, args.command.is_empty()) {
        (Some(t), true) => Target::parse(t)?,
        (None, false) => Target::Stdio(args.command.clone()),
        _ => return Err(usage("give a TARGET, or a command after `--`, not both")),
    };
    let argv: Vec<String> = std::env::args().skip(2).collect();
    let methods = method_calls(&argv)?;
    let transport = match target {
        Target::Http(_) => "http",
        Target::Stdio(_) => "stdio",
    };
    let printer = args
        .view
        .printer(transport)
        .map_err(|e| usage(format!("{e:#}")))?;
    super::runtime()?.block_on(run(&args, target, &methods, printer))
}

/// What TARGET names.
pub enum Target {
    Http(String),
    /// The program and its arguments.
    Stdio(Vec<String>),
}

impl Target {
    /// `http://…` or `https://…` is Streamable HTTP; anything else is a command line, split as a
    /// shell splits words (no variables, no globbing). What looks like a URL without
    /// its scheme is refused with the likely fix.
    pub fn parse(target: &str) -> anyhow::Result<Target> {
        if target.starts_with("http://") || target.starts_with("https://") {
            return Ok(Target::Http(target.to_owned()));
        }
        let words = split_words(target).map_err(usage)?;
        if words.is_empty() {
            return Err(usage("empty TARGET: give an http:// URL or a command"));
        }
        if words.len() == 1 && looks_like_address(&words[0]) {
            return Err(usage(format!(
                "{target:?} is neither a URL nor a command: did you mean http://{target}?"
            )));
        }
        Ok(Target::Stdio(words))
    }
}

/// `localhost:3000/mcp`, `127.0.0.1:8080`: a host and a port, no scheme.
fn looks_like_address(word: &str) -> bool {
    let authority = word.split('/').next().unwrap_or("");
    match authority.rsplit_once(':') {
        Some((host, port)) => {
            !host.is_empty() && !port.is_empty() && port.bytes().all(|b| b.is_ascii_digit())
        }
        None => false,
    }
}

/// Splits a command line into words as POSIX `sh` would for quoting: `'…'` keeps
/// everything, `"…"` keeps everything but `\\"` and `\\\\`, a backslash outside quotes
/// escapes the next character.
pub fn split_words(line: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => word.push(c),
                        None => return Err(format!("unclosed ' in TARGET {line:?}")),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(c @ ('"' | '\\')) => word.push(c),
                            Some(c) => {
                                word.push('\\');
                                word.push(c);
                            }
                            None => return Err(format!("unclosed \" in TARGET {line:?}")),
                        },
                        Some(c) => word.push(c),
                        None => return Err(format!("unclosed \" in TARGET {line:?}")),
                    }
                }
            }
            '\\' => {
                in_word = true;
                match chars.next() {
                    Some(c) => word.push(c),
                    None => return Err(format!("TARGET {line:?} ends in a lone backslash")),
                }
            }
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    Ok(words)
}

/// Opens the link a target names.
pub fn open_link(target: &Target, args: &ClientArgs, printer: &Printer) -> anyhow::Result<Link> {
    match target {
        Target::Http(url) => {
            let mut http = HttpLink::new(url, printer).map_err(|e| usage(format!("{e:#}")))?;
            http.tls = std::sync::Arc::new(
                Tls::new(TlsOptions {
                    cacert: args.cacert.clone(),
                    insecure: args.insecure,
                    cert: args.cert.clone(),
                    key: args.key.clone(),
                    keylog: args.keylog.clone(),
                })
                .map_err(|e| usage(format!("{e:#}")))?,
            );
            if args.insecure {
                // Said on every run, whatever the view: an unverified server may be anyone.
                eprintln!(
                    "mcp-raw: WARNING: --insecure: https server certificates are NOT verified; whoever answers is trusted (the transcript records \"insecure\":true)"
                );
            }
            http.timeout = args.timeout;
            http.max_body = args.max_response_bytes;
            http.max_document = args.max_oauth_bytes;
            for header in &args.headers {
                let (name, value) = header
                    .split_once(':')
                    .ok_or_else(|| usage(format!("--header {header:?}: expected 'Name: value'")))?;
                let name = name.trim();
                if name.is_empty() || !name.bytes().all(|b| b.is_ascii_graphic()) {
                    return Err(usage(format!(
                        "--header {header:?}: {name:?} is not a header name"
                    )));
                }
                http.extra_headers
                    .push((name.to_owned(), value.trim().to_owned()));
            }
            Ok(Link::Http(http))
        }
        Target::Stdio(words) => {
            if !args.headers.is_empty() {
                return Err(usage("--header applies to http:// targets only"));
            }
            if !args.cacert.is_empty() || args.insecure || args.cert.is_some() {
                return Err(usage(
                    "--cacert, --insecure, --cert and --key apply to http(s):// targets only",
                ));
            }
            let mut env = Vec::new();
            for pair in &args.env {
                let (k, v) = pair
                    .split_once('=')
                    .filter(|(k, _)| !k.is_empty())
                    .ok_or_else(|| usage(format!("--env {pair:?}: expected NAME=VALUE")))?;
                env.push((k.to_owned(), v.to_owned()));
            }
            let spawn = Spawn {
                program: words[0].clone().into(),
                args: words[1..].to_vec(),
                env,
                cwd: args.cwd.clone(),
            };
            Ok(Link::Stdio(StdioLink::spawn_with(&spawn, printer)?))
        }
    }
}

/// The answers `--root`, `--answer` and `--answers` configure.
fn answers(args: &ClientArgs) -> anyhow::Result<Answers> {
    let mut answers = Answers::default();
    if let Some(file) = &args.answers {
        let text = std::fs::read_to_string(file)
            .map_err(|e| usage(format!("--answers {}: {e}", file.display())))?;
        answers
            .load(&text, &file.display().to_string())
            .map_err(usage)?;
    }
    for spec in &args.answer {
        answers.set(spec).map_err(usage)?;
    }
    for root in &args.roots {
        answers.roots.push(Answers::root(root).map_err(usage)?);
    }
    if args.tasks {
        answers.tasks = Some(TaskStore::default());
    }
    let on_terminal = std::io::stdin().is_terminal() && std::io::stdout().is_terminal();
    answers.asker = match args.ask {
        AskWhen::Never => None,
        AskWhen::Auto if !on_terminal || args.view.json() => None,
        AskWhen::Auto | AskWhen::Always => Some(
            Asker::terminal()
                .map_err(|e| usage(format!("--ask: cannot open the terminal (/dev/tty): {e}")))?,
        ),
    };
    Ok(answers)
}

/// Splits `NAME` or `NAME=JSON` (a `--call` value) into the tool and its arguments.
pub fn parse_call(spec: &str) -> anyhow::Result<(String, Value)> {
    match spec.split_once('=') {
        None => Ok((spec.to_owned(), json!({}))),
        Some((name, args)) => {
            let args: Value = serde_json::from_str(args).map_err(|e| {
                usage(format!(
                    "--call {name}: arguments are not JSON ({e}): {args:?}"
                ))
            })?;
            if !args.is_object() {
                return Err(usage(format!(
                    "--call {name}: arguments must be a JSON object, got {args}"
                )));
            }
            Ok((name.to_owned(), args))
        }
    }
}

pub async fn run(
    args: &ClientArgs,
    target: Target,
    methods: &[(String, Value)],
    printer: Printer,
) -> anyhow::Result<()> {
    let calls: Vec<(String, Value)> = args
        .calls
        .iter()
        .map(|c| parse_call(c))
        .collect::<Result<_, _>>()?;
    let shown = match &target {
        Target::Http(url) => url.clone(),
        Target::Stdio(words) => words.join(" "),
    };
    let answers = answers(args)?;
    let link = open_link(&target, args, &printer)?;
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
        auth: auth_config(args)?,
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

/// The OAuth flags, checked together: each grant says what it needs (a usage error
/// names the missing flag), a client key is read and parsed now, not at the first 401.
fn auth_config(args: &ClientArgs) -> anyhow::Result<AuthConfig> {
    let grant: Grant = args.grant.into();
    let client_key = match &args.client_key {
        Some(path) => {
            let pem = std::fs::read(path)
                .map_err(|e| usage(format!("--client-key {}: {e}", path.display())))?;
            Some(
                ClientKey::from_pem(&pem, Some(&args.client_key_alg))
                    .map_err(|e| usage(format!("--client-key {}: {e:#}", path.display())))?,
            )
        }
        None => None,
    };
    let client_secret = super::secret(
        args.client_secret.as_ref(),
        "--client-secret-file",
        args.client_secret_file.as_deref(),
    )
    .map_err(|e| usage(format!("{e:#}")))?;
    let idp_client_secret = super::secret(
        args.idp_client_secret.as_ref(),
        "--idp-client-secret-file",
        args.idp_client_secret_file.as_deref(),
    )
    .map_err(|e| usage(format!("{e:#}")))?;
    let need = |missing: bool, text: &str| if missing { Err(usage(text)) } else { Ok(()) };
    match grant {
        Grant::ClientCredentials => need(
            args.client_id.is_none() || (client_secret.is_none() && client_key.is_none()),
            "--grant client-credentials needs --client-id with --client-secret or --client-key",
        )?,
        Grant::JwtBearer => need(
            args.assertion.is_none(),
            "--grant jwt-bearer needs --assertion FILE (the JWT to present)",
        )?,
        Grant::IdJag => need(
            args.client_id.is_none()
                || args.id_token.is_none()
                || args.idp_token_endpoint.is_none(),
            "--grant id-jag needs --client-id, --id-token FILE and --idp-token-endpoint URL",
        )?,
        Grant::AuthorizationCode => {}
    }
    let enterprise = match (&args.idp_token_endpoint, &args.id_token) {
        (Some(endpoint), Some(id_token)) => Some(Enterprise {
            token_endpoint: endpoint.clone(),
            client_id: args.idp_client_id.clone(),
            client_secret: idp_client_secret,
            id_token: Given::File(id_token.clone()),
        }),
        _ => None,
    };
    Ok(AuthConfig {
        grant,
        client_id: args.client_id.clone(),
        client_secret,
        client_key,
        client_metadata_url: args.client_metadata_url.clone(),
        assertion: args.assertion.clone().map(Given::File),
        enterprise,
        dpop: args.dpop.into(),
        scope: args.scope.clone(),
        wait: args.auth_timeout,
        assertion_lifetime: args.assertion_lifetime,
        max_rounds: args.max_auth_rounds,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_split_like_a_shell() {
        assert_eq!(
            split_words(r#"sh -c 'echo hi' "a \"b\"" c\ d"#).unwrap(),
            vec!["sh", "-c", "echo hi", "a \"b\"", "c d"]
        );
        assert_eq!(split_words("  x  ''  ").unwrap(), vec!["x", ""]);
        assert!(split_words("sh 'open").unwrap_err().contains("unclosed '"));
    }

    #[test]
    fn each_params_goes_with_the_method_before_it() {
        let argv: Vec<String> = [
            "--method",
            "ping",
            "--call",
            "x",
            "--method=resources/read",
            "--params",
            r#"{"uri":"a"}"#,
            "--method",
            "prompts/list",
            "--",
            "--method",
            "no",
        ]
        .iter()
        .map(|s| (*s).to_owned())
        .collect();
        let calls = method_calls(&argv).unwrap();
        assert_eq!(
            calls,
            vec![
                ("ping".to_owned(), json!({})),
                ("resources/read".to_owned(), json!({"uri": "a"})),
                ("prompts/list".to_owned(), json!({})),
            ]
        );
        let bad: Vec<String> = ["--params", "{}"].iter().map(|s| (*s).to_owned()).collect();
        assert!(
            method_calls(&bad)
                .unwrap_err()
                .to_string()
                .contains("no --method before it")
        );
        let bad: Vec<String> = ["--method", "x", "--params", "[]"]
            .iter()
            .map(|s| (*s).to_owned())
            .collect();
        assert!(
            method_calls(&bad)
                .unwrap_err()
                .to_string()
                .contains("must be a JSON object")
        );
    }

    #[test]
    fn an_address_without_a_scheme_gets_the_fix() {
        let Err(e) = Target::parse("localhost:3000/mcp") else {
            panic!("accepted")
        };
        assert_eq!(exit_code(&e), 2);
        assert!(
            e.to_string()
                .contains("did you mean http://localhost:3000/mcp?")
        );
        assert!(matches!(Target::parse("mcp-raw serve"), Ok(Target::Stdio(w)) if w.len() == 2));
    }
}
