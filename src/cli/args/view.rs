//! The flags of the view a client-side program prints (`client`, the demos, `replay
//! --against`, `conformance-client`): the text view, `--raw`, `--oneline` or the
//! transcript, and its `--record` file. The printer they make is built in
//! `cli/printer.rs`.

use crate::cli::color::ColorChoice;
use mcp_raw_wire::decode::DEFAULT_MAX_MESSAGE;
use std::path::PathBuf;

/// `--format` of the client, the demos and replay: the text view, or the transcript.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum OutputFormat {
    Text,
    Json,
}

#[derive(clap::Args)]
pub struct View {
    /// Print every byte exactly as it travelled (CR, chunk sizes, SSE fields, compact
    /// JSON) instead of the readable view.
    #[arg(long)]
    pub raw: bool,
    /// Print the JSON Lines transcript on stdout instead of the text view (captions go
    /// to stderr); the same as --format json.
    #[arg(long, conflicts_with = "raw")]
    json: bool,
    /// text (a text view on stdout, the default) or json (the JSON Lines transcript
    /// on stdout, captions on stderr; as --json).
    #[arg(long, value_enum, value_name = "FORMAT")]
    format: Option<OutputFormat>,
    /// Print one line per message instead of the text view: direction, lane, time,
    /// shape, method (and a tools/call's tool), id, status, size in bytes, and the
    /// first line of a tool's result.
    #[arg(long, conflicts_with_all = ["raw", "json"])]
    pub oneline: bool,
    /// Also write the JSON Lines transcript to FILE.
    #[arg(long, value_name = "FILE")]
    pub record: Option<PathBuf>,
    #[command(flatten)]
    pub record_queue: super::RecordQueue,
    /// Show every byte in and out live in a web page on 127.0.0.1 (its URL, with a
    /// random token, printed on stderr): the messages as a list or a sequence, each
    /// opening to its exact bytes.
    #[arg(long)]
    pub ui: bool,
    #[command(flatten)]
    pub ui_page: super::UiPage,
    /// The largest message (stdio line, HTTP head, body, SSE event) read and shown
    /// whole; a longer one is skipped and shown as too long (the record keeps its
    /// bytes).
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_MESSAGE)]
    pub max_message_bytes: usize,
    /// Colour the output: auto (only on a terminal, and not when NO_COLOR is set),
    /// always, or never.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
    /// Show tokens and secrets as they crossed. By default the view and the record
    /// mask them, same length, with `*`: Authorization/DPoP header values, token
    /// fields of OAuth JSON, and codes, verifiers and secrets in forms and URLs. Only
    /// HTTP is masked: a stdio server's wire is recorded as it crossed.
    #[arg(long)]
    pub show_secrets: bool,
    /// With --trace or --record: also mask the value of this header (any case;
    /// repeatable), as Authorization, Cookie and X-Api-Key always are, for an API key
    /// under a name of its own. HTTP lanes only: stdio recordings are never masked.
    #[arg(long = "redact-header", value_name = "NAME")]
    pub redact_headers: Vec<String>,
}

impl View {
    /// Is the transcript on stdout (`--json`, `--format json`)?
    pub fn json(&self) -> bool {
        self.json || self.format == Some(OutputFormat::Json)
    }
}
