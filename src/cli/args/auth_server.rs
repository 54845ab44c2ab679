//! `mcp-raw auth-server`'s flags: where it listens, what it issues, its limits.

use super::listener::{ListenerClocks, TlsListen};
use super::{TraceStyle, TraceView, secs};
use std::path::PathBuf;
use std::time::Duration;

macro_rules! auth_server_examples {
    () => {
        "Examples:
  mcp-raw auth-server --port 3200 --scope mcp:tools
  mcp-raw serve --http --auth-server http://127.0.0.1:3200
      (in a second shell: a server protected by it)
  mcp-raw client http://127.0.0.1:3100/mcp
      (in a third: the client walks the OAuth flow, hop by hop)"
    };
}
pub(crate) use auth_server_examples;

// `auth-server`: where it listens, what it issues, its limits.
#[derive(clap::Args)]
pub struct AuthServerArgs {
    /// Loopback address to bind (it approves everything, so it refuses any other).
    #[arg(long, default_value = "127.0.0.1")]
    pub host: String,
    /// Port to bind (0 picks a free one; the log line says which).
    #[arg(short, long, default_value_t = 3200)]
    pub port: u16,
    /// A scope it issues (repeatable); requests for others get invalid_scope
    /// [default: mcp:tools].
    #[arg(long = "scope", value_name = "SCOPE")]
    pub scopes: Vec<String>,
    /// A pre-registered client, ID (public) or ID:SECRET (confidential; may use
    /// client_credentials); repeatable. Others register with POST /register.
    #[arg(long = "client", value_name = "ID[:SECRET]")]
    pub clients: Vec<String>,
    /// Pre-registered clients read from FILE, one ID or ID:SECRET a line (blank lines
    /// and lines starting with # skipped), so secrets stay out of `ps`; instead of
    /// --client.
    #[arg(long, value_name = "FILE", conflicts_with = "clients")]
    pub clients_file: Option<PathBuf>,
    /// Seconds an access token lasts.
    #[arg(long, value_name = "SECS", default_value = "3600", value_parser = secs)]
    pub token_ttl: Duration,
    /// Seconds an authorization code may wait for its exchange.
    #[arg(long, value_name = "SECS", default_value = "60", value_parser = secs)]
    pub code_ttl: Duration,
    /// Most clients registered at once; one more registration gets 503.
    #[arg(long, value_name = "N", default_value_t = 1000)]
    pub max_clients: usize,
    /// Most authorization codes waiting for their exchange; one more /authorize is
    /// redirected back with error=temporarily_unavailable.
    #[arg(long, value_name = "N", default_value_t = mcp_raw_tools::authserver::MAX_CODES)]
    pub max_codes: usize,
    /// Most refresh tokens kept (used ones included, until they expire, to catch a
    /// replay); a grant that would issue one more gets 503 temporarily_unavailable.
    #[arg(long, value_name = "N", default_value_t = mcp_raw_tools::authserver::MAX_REFRESH)]
    pub max_refresh_tokens: usize,
    /// Seconds a refresh token lasts. Each is used once (rotated); one used twice
    /// revokes every refresh token of its family.
    #[arg(long, value_name = "SECS", default_value = "86400", value_parser = secs)]
    pub refresh_ttl: Duration,
    /// Largest request body in bytes; larger gets 413.
    #[arg(long, value_name = "N", default_value_t = 64 * 1024)]
    pub max_body_bytes: usize,
    /// Seconds a request head (or, with --tls-cert, the TLS handshake) may take to
    /// arrive; then the connection is closed.
    #[arg(long, value_name = "SECS", default_value = "30", value_parser = secs)]
    pub header_timeout: Duration,
    /// Print every byte in and out on stderr, as `serve --trace` does.
    #[arg(long, value_enum, value_name = "VIEW", num_args = 0..=1, default_missing_value = "readable")]
    pub trace: Option<TraceView>,
    /// Write every byte in and out to FILE as a JSON Lines transcript.
    #[arg(long, value_name = "FILE")]
    pub record: Option<PathBuf>,
    #[command(flatten)]
    pub record_queue: super::RecordQueue,
    /// With --trace or --record: show tokens, codes and secrets as they are.
    #[arg(long)]
    pub show_secrets: bool,
    #[command(flatten)]
    pub style: TraceStyle,
    #[command(flatten)]
    pub tls: TlsListen,
    #[command(flatten)]
    pub clocks: ListenerClocks,
}
