//! `mcp-raw wrap`'s actions and flags, and `mcp-raw sessions`'.

use crate::cli::wrap::clients::Client;
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
    #[command(subcommand)]
    pub action: WrapAction,
}

/// What `mcp-raw wrap` does.
#[derive(clap::Subcommand)]
pub enum WrapAction {
    /// Put `mcp-raw tap` in front of each stdio server of the clients'
    /// configurations (the original backed up first); already wrapped ones are left.
    Install(WrapChange),
    /// Put back the bytes install replaced, each entry checked first.
    Uninstall(WrapChange),
    /// List each client's configuration, its servers and whether each is wrapped.
    Status(WrapTarget),
}

// `install` and `uninstall`: which files and servers, and whether to only say.
#[derive(clap::Args)]
pub struct WrapChange {
    #[command(flatten)]
    pub target: WrapTarget,
    /// Say what would change, and change nothing.
    #[arg(long)]
    pub dry_run: bool,
}

// Which configurations and servers.
#[derive(clap::Args)]
pub struct WrapTarget {
    /// Only this client's configurations (repeatable) [default: every client's]
    #[arg(long = "client", value_enum, value_name = "NAME")]
    pub clients: Vec<Client>,
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
pub struct SessionsArgs {
    /// The state directory whose sessions/ to list [default: as `wrap`'s]
    #[arg(long, value_name = "DIR")]
    pub state_dir: Option<PathBuf>,
    /// The largest message read whole when counting; a longer one counts as too long.
    #[arg(long, value_name = "N", default_value_t = mcp_raw_wire::decode::DEFAULT_MAX_MESSAGE)]
    pub max_message_bytes: usize,
}
