//! `mcp-raw completions SHELL`: clap_complete's script for the shell, of the
//! subcommands people use.

use super::args::{Cli, CompletionsArgs};
use super::console::Console;
use std::io::Write;

pub fn main(args: CompletionsArgs, console: &Console) -> anyhow::Result<()> {
    use clap::CommandFactory;
    let shell = args.shell;
    // Hidden subcommands (`conformance-client`) are not offered: clap_complete
    // lists them all, so the command it reads is built without them.
    let full = Cli::command();
    let mut command = clap::Command::new("mcp-raw")
        .version(env!("CARGO_PKG_VERSION"))
        .subcommands(full.get_subcommands().filter(|c| !c.is_hide_set()).cloned());
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut command, "mcp-raw", &mut script);
    if shell == clap_complete::Shell::Bash {
        // clap_complete 4.6's bash script escapes the `-` of `mcp-raw` one way
        // where it sets `cmd` (`mcp__raw__subcmd__serve`) and another in the
        // `case` that reads it (`mcp__subcmd__raw__subcmd__serve`), so no
        // subcommand's flags would complete: make the two agree.
        script = String::from_utf8_lossy(&script)
            .replace("mcp__subcmd__raw__", "mcp__raw__")
            .into_bytes();
    }
    // A closed pipe (`| head`) is the reader's choice, not an error.
    match console.out().write_all(&script) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => other.map_err(anyhow::Error::from),
    }
}
