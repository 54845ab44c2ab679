//! `mcp-raw ca`'s flags: the action and the CA's directory.

use std::path::PathBuf;

macro_rules! ca_examples {
    () => {
        "Examples:
  mcp-raw ca
      (creates the CA in ~/.config/mcp-raw and prints how to trust it)
  mcp-raw ca show
  mcp-raw ca rotate --dir /tmp/mcp-raw-ca
  mcp-raw ca delete"
    };
}
pub(crate) use ca_examples;

// `mcp-raw ca`'s arguments.
#[derive(clap::Args)]
pub struct CaArgs {
    /// create (when there is none), show, rotate (a new key and certificate), or
    /// delete.
    #[arg(value_enum, default_value = "create")]
    pub action: CaAction,
    /// The CA's directory [default: $XDG_CONFIG_HOME/mcp-raw, else ~/.config/mcp-raw]
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
}

/// What `mcp-raw ca` does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum CaAction {
    /// Create the CA if there is none; print its path and how to trust it.
    Create,
    /// Print the certificate's subject, validity and SHA-256 fingerprint.
    Show,
    /// Replace the key and certificate with new ones.
    Rotate,
    /// Remove the key and certificate.
    Delete,
}
