//! `mcp-raw client`'s flags: the target, the calls, the links' limits, TLS, OAuth.

use super::view::View;
use super::{EraArg, secs};
use std::path::PathBuf;
use std::time::Duration;

/// `client --help`'s examples: the ones whose quoting people get wrong.
macro_rules! client_examples {
    () => {
        r#"Examples:
  mcp-raw client http://127.0.0.1:3100/mcp
  mcp-raw client --call add='{"a": 2, "b": 3}' -- mcp-raw serve
      (NAME=JSON is one shell word: single quotes around the JSON, double quotes inside)
  mcp-raw client --call echo='{"message": "hi"}' --record out.jsonl "npx -y @modelcontextprotocol/server-everything"
  mcp-raw client --method resources/read --params '{"uri": "test://static-text"}' -- mcp-raw serve --fixture conformance
  mcp-raw client --oneline --call get_current_time -- mcp-raw serve
      (a line per message instead of the whole JSON)
  mcp-raw client --ui --call add='{"a": 2, "b": 3}' -- mcp-raw serve
      (with --ui the session stays open after the calls, for requests edited and
      resent from the page, until Ctrl-C closes it: DELETE, or the server's stdin)"#
    };
}
pub(crate) use client_examples;

// `mcp-raw client`'s arguments.
#[derive(clap::Args)]
pub struct ClientArgs {
    /// `http://host:port/path` or `https://host/path`, or the command line of a
    /// stdio server, split like a shell would (quotes and backslashes), e.g.
    /// "mcp-raw serve". Or leave it out and give the command after `--`.
    #[arg(required_unless_present = "command", conflicts_with = "command")]
    pub target: Option<String>,
    /// The stdio server's program and arguments, taken as they are: `-- CMD ARG…`.
    #[arg(last = true, value_name = "CMD")]
    pub command: Vec<String>,
    /// Eras this client may speak: both probes with server/discover and falls back
    /// to initialize; modern or legacy insist on one.
    #[arg(long, value_enum, default_value_t = EraArg::Both)]
    pub era: EraArg,
    /// Call a tool after listing: NAME or NAME={"json":"arguments"} (repeatable).
    #[arg(long = "call", value_name = "NAME[=JSON]")]
    pub calls: Vec<String>,
    /// Seconds to wait for the server's next bytes of an answer (a response head,
    /// the next piece of its body, a stdio reply); a stream lives as long as it
    /// moves, and SSE keep-alive comments do not count as moving.
    #[arg(long, value_name = "SECS", default_value = "60", value_parser = secs)]
    pub timeout: Duration,
    /// Seconds a server may take to give its first answer: to initialize, or (stdio)
    /// a late one to the era probe, which a server still starting sends once up.
    #[arg(long, value_name = "SECS", default_value = "30", value_parser = secs)]
    pub startup_timeout: Duration,
    /// Seconds a stdio server may take to exit after its stdin closes; then it gets
    /// SIGTERM, and as long again later SIGKILL.
    #[arg(long, value_name = "SECS", default_value = "5", value_parser = secs)]
    pub shutdown_timeout: Duration,
    /// Legacy HTTP: how many times a stream that closed before its response is resumed
    /// (GET with Last-Event-ID) before giving up.
    #[arg(long, value_name = "N", default_value_t = 5)]
    pub max_resumes: usize,
    /// Legacy HTTP: the longest retry: (seconds) honoured before resuming a stream.
    #[arg(long, value_name = "SECS", default_value = "10", value_parser = secs)]
    pub max_retry_wait: Duration,
    /// Modern: the most input_required rounds one request may take.
    #[arg(long, value_name = "N", default_value_t = 8)]
    pub max_input_rounds: usize,
    /// HTTP: the largest response body read whole (a JSON response, one request's
    /// event stream), and the largest single event of a long-lived stream; a bigger
    /// one ends the run with exit status 3.
    #[arg(long, value_name = "N", default_value_t = mcp_raw_net::client::http_link::DEFAULT_MAX_BODY)]
    pub max_response_bytes: usize,
    /// OAuth: the largest body of a metadata document, registration or token response
    /// (read whole, then parsed); a bigger one ends the run with exit status 3.
    #[arg(long, value_name = "N", default_value_t = mcp_raw_net::client::http_link::DEFAULT_MAX_DOCUMENT)]
    pub max_oauth_bytes: usize,
    /// An environment variable for the stdio server, NAME=VALUE (repeatable).
    #[arg(long = "env", value_name = "NAME=VALUE")]
    pub env: Vec<String>,
    /// The stdio server's working directory.
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,
    /// An HTTP header sent with every request, 'Name: value' (repeatable).
    #[arg(long = "header", value_name = "NAME: VALUE")]
    pub headers: Vec<String>,
    /// https: trust the CA certificates in this PEM file too, besides the system's
    /// trust store (repeatable).
    #[arg(long = "cacert", value_name = "FILE")]
    pub cacert: Vec<PathBuf>,
    /// https: connect even when the server's certificate does not verify (expired,
    /// self-signed, another host's). Warns on every run; the transcript records it.
    #[arg(long)]
    pub insecure: bool,
    /// https: a client certificate (PEM, leaf first) for servers that require one
    /// (mTLS); needs --key.
    #[arg(long, value_name = "FILE", requires = "key")]
    pub cert: Option<PathBuf>,
    /// https: the private key of --cert (PEM).
    #[arg(long, value_name = "FILE", requires = "cert")]
    pub key: Option<PathBuf>,
    /// https: append each TLS session's secrets to FILE (NSS key log format, created
    /// 0600), so Wireshark can decrypt a capture of the same session. Off by default.
    #[arg(long, value_name = "FILE", env = "SSLKEYLOGFILE")]
    pub keylog: Option<PathBuf>,
    /// After the calls, keep reading what the server sends unprompted (list changes,
    /// resource updates) until the stream ends or Ctrl-C: GET /mcp in a legacy
    /// session, a subscriptions/listen request in the modern era. (Formerly
    /// `--listen`, still accepted: `--listen` elsewhere names an address to bind.)
    #[arg(long, alias = "listen")]
    pub follow: bool,
    /// A root to offer the server (roots/list), a local path (repeatable); declares
    /// the roots capability.
    #[arg(long = "root", value_name = "PATH")]
    pub roots: Vec<PathBuf>,
    /// What to answer when the server asks: sampling=JSON (a CreateMessageResult),
    /// elicitation=JSON (an ElicitResult for a form) or elicitation-url=JSON (for a
    /// URL-mode elicitation), repeatable; declares that capability. Unanswerable
    /// questions get a JSON-RPC error saying which flag is missing.
    #[arg(long = "answer", value_name = "KIND=JSON")]
    pub answer: Vec<String>,
    /// The answers from a file: {"sampling": …, "elicitation": …, "roots": […]}.
    #[arg(long, value_name = "FILE")]
    pub answers: Option<PathBuf>,
    /// Ask the user at the terminal (/dev/tty) what no --answer scripts: sampling
    /// and form elicitation. auto: when stdin and stdout are a terminal; always
    /// (fails without one); never: unscripted questions are refused.
    #[arg(long, value_enum, value_name = "WHEN", default_value_t = AskWhen::Auto)]
    pub ask: AskWhen,
    /// Tasks: follow a tool a legacy server runs as a task also when the task is
    /// optional (one it requires always is), declare the modern tasks extension,
    /// and run the server's task-augmented sampling and elicitation as tasks.
    #[arg(long)]
    pub tasks: bool,
    /// OAuth (HTTP, on 401): a client id registered beforehand with the
    /// authorization server; without one the client uses --client-metadata-url where
    /// the server supports it, else dynamic client registration.
    #[arg(long, value_name = "ID")]
    pub client_id: Option<String>,
    /// OAuth: the secret of --client-id, for a confidential client.
    #[arg(long, value_name = "SECRET", requires = "client_id")]
    pub client_secret: Option<String>,
    /// OAuth: --client-secret read from FILE instead (kept out of `ps` and the shell's
    /// history; one trailing newline is dropped).
    #[arg(
        long,
        value_name = "FILE",
        requires = "client_id",
        conflicts_with = "client_secret"
    )]
    pub client_secret_file: Option<PathBuf>,
    /// OAuth: an https URL of this client's metadata document, used as its client id
    /// where the authorization server supports client ID metadata documents.
    #[arg(long, value_name = "URL")]
    pub client_metadata_url: Option<String>,
    /// OAuth: the scope to ask for, instead of the one the server suggests (the
    /// 401's scope, else the resource's scopes_supported).
    #[arg(long, value_name = "SCOPE")]
    pub scope: Option<String>,
    /// OAuth: seconds to wait for the browser's redirect when the authorization
    /// server needs a person to approve (the URL to open is printed).
    #[arg(long, value_name = "SECS", default_value = "300", value_parser = secs)]
    pub auth_timeout: Duration,
    /// OAuth: the most authorization rounds one request may cause (a server that
    /// keeps refusing with 403 insufficient_scope must not loop the client).
    #[arg(long, value_name = "N", default_value_t = 3)]
    pub max_auth_rounds: usize,
    /// OAuth: how to get the token. authorization-code: a person approves in a
    /// browser (PKCE). client-credentials: the client acts for itself, with
    /// --client-id and --client-secret or --client-key (RFC 6749 §4.4).
    /// jwt-bearer: the JWT of --assertion is the grant (workload identity, RFC 7523
    /// §2.1). id-jag: enterprise-managed, the --id-token exchanged at the
    /// --idp-token-endpoint for an ID-JAG, then that as a jwt-bearer grant (RFC 8693).
    #[arg(long, value_enum, value_name = "GRANT", default_value_t = GrantArg::AuthorizationCode)]
    pub grant: GrantArg,
    /// OAuth: a PEM private key (PKCS#8; RSA also PKCS#1) whose public half the
    /// authorization server knows: the client authenticates with a signed
    /// client_assertion (private_key_jwt, RFC 7523 §2.2) instead of a secret.
    #[arg(long, value_name = "FILE", requires = "client_id")]
    pub client_key: Option<PathBuf>,
    /// OAuth: the JWS algorithm of --client-key (ES256, ES384, RS256, PS256, EdDSA…).
    #[arg(
        long,
        value_name = "ALG",
        default_value = "ES256",
        requires = "client_key"
    )]
    pub client_key_alg: String,
    /// OAuth: seconds a client assertion the client signs stays valid (its exp).
    #[arg(long, value_name = "SECS", default_value = "60", value_parser = secs)]
    pub assertion_lifetime: Duration,
    /// OAuth, --grant jwt-bearer: a file holding the JWT to present (e.g. a workload
    /// identity token), read each time a token is needed, so a rotated one is used.
    #[arg(long, value_name = "FILE")]
    pub assertion: Option<PathBuf>,
    /// OAuth, --grant id-jag: a file holding the user's ID token from the identity
    /// provider.
    #[arg(long, value_name = "FILE")]
    pub id_token: Option<PathBuf>,
    /// OAuth, --grant id-jag: the identity provider's token endpoint, where the ID
    /// token is exchanged for an ID-JAG.
    #[arg(long, value_name = "URL")]
    pub idp_token_endpoint: Option<String>,
    /// OAuth, --grant id-jag: this client's id at the identity provider.
    #[arg(long, value_name = "ID")]
    pub idp_client_id: Option<String>,
    /// OAuth, --grant id-jag: its secret there (client_secret_basic).
    #[arg(long, value_name = "SECRET", requires = "idp_client_id")]
    pub idp_client_secret: Option<String>,
    /// OAuth, --grant id-jag: --idp-client-secret read from FILE instead.
    #[arg(
        long,
        value_name = "FILE",
        requires = "idp_client_id",
        conflicts_with = "idp_client_secret"
    )]
    pub idp_client_secret_file: Option<PathBuf>,
    /// OAuth: bind tokens to a key the client holds (DPoP, RFC 9449): a proof with
    /// the token request and with every request to the server. auto: when the
    /// server asks (a DPoP challenge, or dpop_bound_access_tokens_required).
    #[arg(long, value_enum, value_name = "WHEN", default_value_t = DpopArg::Auto)]
    pub dpop: DpopArg,
    /// Seconds a task a server runs for a tools/call is followed (polled, its result
    /// awaited) before the client cancels it and gives up.
    #[arg(long, value_name = "SECS", default_value = "300", value_parser = secs)]
    pub task_timeout: Duration,
    /// After the calls, send this request (any method: resources/read, prompts/get,
    /// ping, tasks/get…), repeatable, run in order; its params come from the
    /// --params that follows it.
    #[arg(long = "method", value_name = "NAME")]
    pub methods: Vec<String>,
    /// The params (a JSON object) of the --method before it; {} when left out.
    #[arg(long = "params", value_name = "JSON", requires = "methods")]
    pub params: Vec<String>,
    /// Ask for progress notifications: a progressToken on every request that does
    /// work.
    #[arg(long)]
    pub progress: bool,
    /// Ask for log messages at this level and above (debug, info, notice, warning,
    /// error, critical, alert, emergency): logging/setLevel in a legacy session, in
    /// each request's _meta in the modern era.
    #[arg(long, value_name = "LEVEL", value_parser = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"])]
    pub log_level: Option<String>,
    /// Put a W3C traceparent (and tracestate) in every request's params._meta, as
    /// OpenTelemetry's MCP conventions carry trace context: each request sent from a
    /// span of its own, in the trace named by TRACEPARENT/TRACESTATE in the
    /// environment, else in a new trace for the run. It changes the bytes sent (the
    /// recording shows them)
    #[arg(long)]
    pub trace_context: bool,
    #[command(flatten)]
    pub view: View,
    #[command(flatten)]
    pub otlp: super::OtlpArgs,
}

/// `client --ask`: when the user at the terminal answers the server's questions.
#[derive(Clone, Copy, PartialEq, Eq, Debug, clap::ValueEnum)]
pub enum AskWhen {
    Auto,
    Always,
    Never,
}

/// `client --grant`.
#[derive(Clone, Copy, PartialEq, Eq, Debug, clap::ValueEnum)]
pub enum GrantArg {
    AuthorizationCode,
    ClientCredentials,
    JwtBearer,
    IdJag,
}

impl From<GrantArg> for mcp_raw_net::client::auth::Grant {
    fn from(g: GrantArg) -> Self {
        use mcp_raw_net::client::auth::Grant;
        match g {
            GrantArg::AuthorizationCode => Grant::AuthorizationCode,
            GrantArg::ClientCredentials => Grant::ClientCredentials,
            GrantArg::JwtBearer => Grant::JwtBearer,
            GrantArg::IdJag => Grant::IdJag,
        }
    }
}

/// `client --dpop`.
#[derive(Clone, Copy, PartialEq, Eq, Debug, clap::ValueEnum)]
pub enum DpopArg {
    Auto,
    Always,
    Never,
}

impl From<DpopArg> for mcp_raw_net::client::auth::DpopUse {
    fn from(d: DpopArg) -> Self {
        use mcp_raw_net::client::auth::DpopUse;
        match d {
            DpopArg::Auto => DpopUse::Auto,
            DpopArg::Always => DpopUse::Always,
            DpopArg::Never => DpopUse::Never,
        }
    }
}
