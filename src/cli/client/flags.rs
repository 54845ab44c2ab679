//! What the client does once connected, from its flags: the `--call`s, the
//! `--method`/`--params` pairs in order, and the answers it gives when the server asks.

use super::usage;
use crate::cli::args::{AskWhen, ClientArgs};
use crate::cli::console::Console;
use mcp_raw_net::client::answers::Answers;
use mcp_raw_net::client::ask_user::Asker;
use mcp_raw_net::client::mcp_client::TraceSeed;
use mcp_raw_net::client::task_store::TaskStore;
use serde_json::{Value, json};
use std::io::IsTerminal;

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

/// The answers `--root`, `--answer` and `--answers` configure.
pub fn answers(args: &ClientArgs, console: &Console) -> anyhow::Result<Answers> {
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
    let on_terminal = std::io::stdin().is_terminal() && console.out_is_terminal();
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

/// `--trace-context`: the trace the requests join (the caller's, from the
/// environment, or a new one).
pub fn trace_seed(args: &ClientArgs) -> anyhow::Result<Option<TraceSeed>> {
    if !args.trace_context {
        return Ok(None);
    }
    let (parent, state) = crate::cli::trace_context::from_env()?;
    Ok(Some(TraceSeed { parent, state }))
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
