//! `mcp-raw wrap`'s actions and flags, and `mcp-raw sessions`'.

use crate::cli::color::ColorChoice;
use mcp_raw_tools::wrap::clients::Client;
use std::path::PathBuf;

macro_rules! wrap_examples {
    () => {
        "Examples:
  mcp-raw wrap status
  mcp-raw wrap install --dry-run
  mcp-raw wrap install --client cursor --server github
  mcp-raw wrap install --config ./.vscode/mcp.json --client vscode
  mcp-raw wrap uninstall
  mcp-raw sessions
      (each wrapped server's sessions, newest first)"
    };
}
pub(crate) use wrap_examples;

macro_rules! sessions_examples {
    () => {
        "Examples:
  mcp-raw sessions
  mcp-raw show cursor_github_20261207T112233123Z_p4242
      (show, check and ui take a session's short name, the first column)"
    };
}
pub(crate) use sessions_examples;

// `mcp-raw wrap`'s arguments.
#[derive(clap::Args)]
pub struct WrapArgs {
    /// install (put `mcp-raw tap` in front of each stdio server, the original kept
    /// first; wrapped ones are left), uninstall (put back the bytes install
    /// replaced, each entry checked first) or status (each configuration, its
    /// servers, and whether each is wrapped).
    #[arg(value_enum)]
    pub action: WrapAction,
    #[command(flatten)]
    pub target: WrapTarget,
    /// With install or uninstall: say what would change, and change nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Colour what each server's line says (wrapped green, left as it is yellow, a
    /// file left alone red): auto (on a terminal, NO_COLOR unset), always or never.
    #[arg(long, value_enum, value_name = "WHEN", default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
}

/// What `mcp-raw wrap` does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum WrapAction {
    /// Put the tap in front of each stdio server.
    Install,
    /// Put back what install replaced.
    Uninstall,
    /// List the configurations and their servers.
    Status,
}

/// `--client NAME`: the clients of [`Client`], as clap reads and lists them (the
/// library takes no clap types; `From` maps each to its own).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ClientName {
    // No doc comments on these: clap would print them in `--help` as each value's
    // description, and the help is a golden file.
    ClaudeDesktop,
    ClaudeCode,
    Cursor,
    Vscode,
    Windsurf,
    Gemini,
    Codex,
}

impl From<ClientName> for Client {
    fn from(c: ClientName) -> Client {
        match c {
            ClientName::ClaudeDesktop => Client::ClaudeDesktop,
            ClientName::ClaudeCode => Client::ClaudeCode,
            ClientName::Cursor => Client::Cursor,
            ClientName::Vscode => Client::Vscode,
            ClientName::Windsurf => Client::Windsurf,
            ClientName::Gemini => Client::Gemini,
            ClientName::Codex => Client::Codex,
        }
    }
}

// Which configurations and servers.
#[derive(clap::Args)]
#[group(skip)]
pub struct WrapTarget {
    /// Only this client's configurations (repeatable) [default: every client's]
    #[arg(long = "client", value_enum, value_name = "NAME")]
    pub clients: Vec<ClientName>,
    /// Only the server of this name (repeatable) [default: every server]
    #[arg(long = "server", value_name = "NAME")]
    pub servers: Vec<String>,
    /// This file, of the kind --client names, in place of the clients' own.
    #[arg(long, value_name = "PATH")]
    pub config: Option<PathBuf>,
    /// Where the originals, the edits and the recordings are kept [default:
    /// $XDG_STATE_HOME/mcp-raw, else ~/.local/state/mcp-raw; macOS ~/Library/Application
    /// Support/mcp-raw; Windows %LOCALAPPDATA%\mcp-raw]
    #[arg(long, value_name = "DIR")]
    pub state_dir: Option<PathBuf>,
}

// `mcp-raw sessions`' arguments.
#[derive(clap::Args)]
#[group(skip)]
pub struct SessionsArgs {
    /// The state directory whose sessions/ to list [default: as `wrap`'s]
    #[arg(long, value_name = "DIR")]
    pub state_dir: Option<PathBuf>,
    /// The largest message read whole when counting; a longer one counts as too long.
    #[arg(long, value_name = "N", default_value_t = mcp_raw_wire::decode::DEFAULT_MAX_MESSAGE)]
    pub max_message_bytes: usize,
    /// text (a line per session) or json (an array: each session's name, path,
    /// counts, size and time).
    #[arg(long, value_parser = ["text", "json"], default_value = "text")]
    pub format: String,
    /// Colour the text list (a session with error responses or findings marked):
    /// auto (on a terminal, NO_COLOR unset), always or never.
    #[arg(long, value_enum, value_name = "WHEN", default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::ValueEnum;

    /// Each name clap accepts is the library's name for the client it maps to, and
    /// every client of the library has one, in the same order.
    #[test]
    fn client_names_are_the_librarys() {
        let names: Vec<String> = ClientName::value_variants()
            .iter()
            .map(|c| {
                let v = c.to_possible_value().expect("not skipped");
                assert_eq!(v.get_name(), Client::from(*c).name());
                v.get_name().to_owned()
            })
            .collect();
        let library: Vec<&str> = Client::ALL.iter().map(|c| c.name()).collect();
        assert_eq!(names, library);
    }
}
