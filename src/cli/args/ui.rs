//! The flags of `mcp-raw ui` and the `--ui` of the programs that record (`serve`,
//! `tap`).

use mcp_raw_wire::decode::DEFAULT_MAX_MESSAGE;
use std::path::PathBuf;

macro_rules! ui_examples {
    () => {
        "Examples:
  mcp-raw ui session.jsonl
  mcp-raw ui --follow session.jsonl
      (beside a running --record: the page grows as the file does)
  mcp-raw ui before.jsonl after.jsonl
      (side by side, as `diff` reads them: the first differing field marked)
  mcp-raw serve --http --ui
  mcp-raw tap --ui -- npx -y @modelcontextprotocol/server-everything"
    };
}
pub(crate) use ui_examples;

// `mcp-raw ui`'s arguments.
#[derive(clap::Args)]
#[group(skip)]
pub struct UiArgs {
    /// A JSON Lines transcript written by --record (`tap`, `serve`, `client`) or a
    /// session's short name (`mcp-raw sessions`); two
    /// (A B) are shown side by side, message by message, as `diff` compares them.
    #[arg(required = true, num_args = 1..=2, value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// Keep reading the file as it grows (beside a running --record), and stream
    /// what is appended to the page (one FILE only).
    #[arg(long)]
    pub follow: bool,
    /// With two files: what the comparison leaves out, as `diff --ignore` (id,
    /// time, uuid, a field's path; repeatable; none compares everything). Default:
    /// id, time, uuid.
    #[arg(long, value_name = "WHAT")]
    pub ignore: Vec<String>,
    #[command(flatten)]
    pub page: UiPage,
    /// The largest message read whole; a longer one is shown as too long.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_MESSAGE)]
    pub max_message_bytes: usize,
}

// Where the page is served: `mcp-raw ui`'s flags, and those that go with `--ui`.
#[derive(clap::Args, Clone)]
#[group(skip)]
pub struct UiPage {
    /// The page's port on 127.0.0.1 (0: a free one). The page is on loopback only,
    /// behind a random token printed with its URL on stderr.
    #[arg(long = "ui-port", value_name = "PORT", default_value_t = 0)]
    pub ui_port: u16,
    /// Open the page in the default browser (xdg-open, open) once it is served.
    #[arg(long = "ui-open")]
    pub ui_open: bool,
    /// The most events the page's server keeps in memory; past it the oldest are let
    /// go (a page that has not read them yet is told so; the --record file keeps all).
    #[arg(long = "ui-keep", value_name = "N", default_value_t = mcp_raw_tools::ui::feed::DEFAULT_KEEP)]
    pub ui_keep: usize,
    /// The largest request body the page may send its server (an export's list of
    /// events); a larger one gets 413.
    #[arg(long = "ui-max-body-bytes", value_name = "N", default_value_t = mcp_raw_tools::ui::DEFAULT_MAX_BODY)]
    pub ui_max_body_bytes: usize,
}
