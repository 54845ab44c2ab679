//! `mcp-raw replay FILE --against TARGET`: a recording's client side sent to a live
//! server; what comes back is shown and recorded like any client session.

use super::args::View;
use super::client::Target;
use mcp_raw::client::stdio_link::Spawn;
use mcp_raw::replay::against;
use mcp_raw::replay::script::Script;
use mcp_raw::wire::transcript;
use std::time::Duration;

/// Runs `replay`; returns the exit status.
pub fn main(
    file: &std::path::Path,
    against: Option<String>,
    command: Vec<String>,
    timeout: Duration,
    view: &View,
) -> u8 {
    match run(file, against, command, timeout, view) {
        Ok(outcome) => {
            eprintln!(
                "[mcp-raw replay] {} client message(s) sent again{}",
                outcome.sent,
                if outcome.skipped > 0 {
                    format!(", {} GET stream(s) skipped", outcome.skipped)
                } else {
                    String::new()
                }
            );
            0
        }
        Err(e) => {
            eprintln!("mcp-raw replay: {e:#}");
            if e.downcast_ref::<Usage>().is_some() {
                2
            } else {
                1
            }
        }
    }
}

#[derive(Debug)]
struct Usage(String);

impl std::fmt::Display for Usage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Usage {}

fn run(
    file: &std::path::Path,
    against: Option<String>,
    command: Vec<String>,
    timeout: Duration,
    view: &View,
) -> anyhow::Result<against::Outcome> {
    let target = match (against, command.is_empty()) {
        (Some(_), false) => {
            return Err(Usage(
                "give the server either as --against TARGET or after `--`, not both".into(),
            )
            .into());
        }
        (None, true) => {
            return Err(Usage(
                "give the live server to replay against: --against http://HOST:PORT/PATH, --against 'CMD ARG…', or -- CMD ARG… (serving the recording itself as a mock server is not built yet)"
                    .into(),
            )
            .into());
        }
        (None, false) => Target::Stdio(command),
        (Some(t), true) => match Target::parse(&t) {
            Ok(t) => t,
            Err(e) => return Err(Usage(format!("--against: {e}")).into()),
        },
    };
    let text = std::fs::read_to_string(file)
        .map_err(|e| Usage(format!("cannot read {}: {e}", file.display())))?;
    let (_, events) = transcript::read(&text).map_err(|e| {
        Usage(format!(
            "{} is not a transcript mcp-raw can read: {e}",
            file.display()
        ))
    })?;
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
