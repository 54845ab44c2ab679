//! The flags of the subcommands that read a recording: `check`, `diff`, `show`.

use crate::cli::color::ColorChoice;
use mcp_raw_wire::decode::DEFAULT_MAX_MESSAGE;
use std::path::PathBuf;

macro_rules! check_examples {
    () => {
        "Examples:
  mcp-raw check session.jsonl
  mcp-raw check --format junit session.jsonl > check.xml
  mcp-raw check session.jsonl --expect-tool add --forbid-tool delete --max-latency p99=250,method=tools/call --max-errors 0
  mcp-raw check --contract ci/contract.json --format sarif session.jsonl > check.sarif
  mcp-raw check --security --baseline tools.pin.json --allow security/secret-exposed session.jsonl
  mcp-raw check --rules"
    };
}
pub(crate) use check_examples;

macro_rules! diff_examples {
    () => {
        "Examples:
  mcp-raw diff before.jsonl after.jsonl
  mcp-raw diff --ignore result.serverInfo.version --format json before.jsonl after.jsonl"
    };
}
pub(crate) use diff_examples;

macro_rules! show_examples {
    () => {
        "Examples:
  mcp-raw show session.jsonl --oneline
  mcp-raw show session.jsonl --method tools/call --explain
  mcp-raw show session.jsonl --lane c2 --dir s2c --raw
  mcp-raw show session.jsonl --html session.html
  mcp-raw show --follow session.jsonl
      (from a second terminal, beside a running --record)"
    };
}
pub(crate) use show_examples;

// `mcp-raw check`'s arguments.
#[derive(clap::Args)]
#[group(skip)]
pub struct CheckArgs {
    /// JSON Lines transcripts written by --record (`tap`, `serve`, `client`), or
    /// sessions' short names (`mcp-raw sessions`); each checked on its own, their
    /// reports one after the other (JSON: an array; JUnit: a testsuite each; SARIF: a
    /// run each).
    #[arg(value_name = "FILE", required_unless_present = "rules")]
    pub files: Vec<PathBuf>,
    /// text (a line per finding, then a summary), json (one document), junit
    /// (a test case per rule, for CI) or sarif (SARIF 2.1.0, for code-scanning
    /// pages: a result per finding at its transcript line).
    #[arg(long, value_enum, default_value_t = CheckFormat::Text)]
    pub format: CheckFormat,
    /// List every rule the checker knows (id, severity, spec section) and exit.
    #[arg(long, conflicts_with = "files")]
    pub rules: bool,
    /// The largest message read whole; a longer one is skipped.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_MESSAGE)]
    pub max_message_bytes: usize,
    /// Colour the text report (error and warning marked): auto (only on a
    /// terminal, and not when NO_COLOR is set), always, or never.
    #[arg(long, value_enum, value_name = "WHEN", default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
    /// What the session must and must not do (args/contract.rs).
    #[command(flatten)]
    pub contract: super::contract::ContractArgs,
    /// The security rules, the baseline, --allow (args/security.rs).
    #[command(flatten)]
    pub security: super::security::SecurityArgs,
}

/// `check --format`.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum CheckFormat {
    Text,
    Json,
    Junit,
    Sarif,
}

// `mcp-raw diff`'s arguments.
#[derive(clap::Args)]
#[group(skip)]
pub struct DiffArgs {
    /// The recording expected (e.g. the one made once and kept).
    pub a: PathBuf,
    /// The recording to compare (e.g. `replay --against … --record B`).
    pub b: PathBuf,
    /// What to leave out: id (request ids and the ids that refer to them), time
    /// (RFC 3339 strings), uuid (strings holding one), or a field's path such as
    /// result.serverInfo.version or result.content[].text (repeatable). Default:
    /// id, time, uuid; --ignore none compares everything.
    #[arg(long, value_name = "WHAT")]
    pub ignore: Vec<String>,
    /// text (a line per difference, then a summary) or json.
    #[arg(long, value_parser = ["text", "json"], default_value = "text")]
    pub format: String,
    /// Show at most this many differences (the count is always complete).
    #[arg(long, value_name = "N", default_value_t = 20)]
    pub max_shown: usize,
    /// The two recordings are read side by side: at most this many messages of one
    /// direction wait for their match; past it, the oldest is said not compared.
    #[arg(long, value_name = "N", default_value_t = mcp_raw_tools::replay::align::DEFAULT_WINDOW, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=10_000_000))]
    pub window: usize,
    /// Colour the text output (each difference's place marked): auto (only on a
    /// terminal, and not when NO_COLOR is set), always, or never.
    #[arg(long, value_enum, value_name = "WHEN", default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
}

// `mcp-raw show`'s arguments.
#[derive(clap::Args)]
#[group(skip)]
pub struct ShowArgs {
    /// A JSON Lines transcript written by --record, or a session's short name
    /// (`mcp-raw sessions`).
    pub file: PathBuf,
    /// Every byte verbatim, invisible ones marked.
    #[arg(long)]
    pub raw: bool,
    /// One pretty JSON document: each event with the facts read from it.
    #[arg(long, conflicts_with = "raw")]
    pub pretty: bool,
    /// text (a text view, the default), json (as --json) or pretty (as --pretty).
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub format: Option<ShowFormat>,
    /// One line per message: direction, lane, time, shape, method (and a
    /// tools/call's tool), id, status, size in bytes, and the first line of a
    /// tool's result.
    #[arg(long, conflicts_with_all = ["raw", "pretty", "json", "explain", "html"])]
    pub oneline: bool,
    /// The largest message read whole; a longer one is shown as too long.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_MESSAGE)]
    pub max_message_bytes: usize,
    /// Colour: auto (on a terminal, NO_COLOR unset), always or never.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
    /// Only these lanes: `stdio`, `stderr`, `c1`, `c2`…, and a bridge's children's
    /// `stdio1`, `stderr1`… (repeatable).
    #[arg(long, value_name = "LANE")]
    pub lane: Vec<String>,
    /// Only one direction: c2s (what the client sent) or s2c (what the server sent).
    #[arg(long, value_name = "DIR", value_parser = ["c2s", "s2c"])]
    pub dir: Option<String>,
    /// Only messages of this method, and the responses to those requests
    /// (repeatable); heads, chunks and SSE framing are left out.
    #[arg(long, value_name = "METHOD")]
    pub method: Vec<String>,
    /// Only messages with this id (`3`, `abc`), requests and responses (repeatable).
    #[arg(long, value_name = "ID")]
    pub id: Vec<String>,
    /// Only messages that declare 2026-07-28 in `_meta` (modern), or that do not
    /// (legacy), and the responses to those requests.
    #[arg(long, value_name = "ERA", value_parser = ["legacy", "modern"])]
    pub era: Option<String>,
    /// The JSON Lines transcript of what is kept, on stdout (with a message
    /// filter: only the kept messages' fact lines).
    #[arg(long, conflicts_with_all = ["raw", "pretty", "explain"])]
    pub json: bool,
    /// Annotate each message and HTTP head with what it is and the spec rule that
    /// governs it (its shape, its era, its method's section).
    #[arg(long, conflicts_with_all = ["raw", "pretty"])]
    pub explain: bool,
    /// Keep reading as the file grows (from a second terminal, beside a running
    /// --record), until interrupted; waits for a file that does not exist yet.
    #[arg(long, conflicts_with = "pretty")]
    pub follow: bool,
    /// Write one self-contained HTML page (no network access) to OUT: a column per
    /// lane, a row per head, SSE event and message, each opening to its exact bytes
    /// and its explanation.
    #[arg(long, value_name = "OUT", conflicts_with_all = ["raw", "pretty", "json", "explain", "follow", "method", "id", "era"])]
    pub html: Option<PathBuf>,
}

/// `show --format`.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ShowFormat {
    Text,
    Json,
    Pretty,
}
