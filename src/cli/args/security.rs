//! `check`'s security flags: the security rules asked for, a trusted baseline of
//! tools, a bound for sampling, and rules silenced. The rules themselves are
//! `mcp_raw_tools::check::security`'s.

use mcp_raw_tools::check::security::DEFAULT_SAMPLING_MAX_TOKENS;
use std::path::PathBuf;

// `check`'s security flags, flattened into its arguments.
#[derive(clap::Args)]
#[group(skip)]
pub struct SecurityArgs {
    /// Also run the security rules (tool poisoning, invisible and look-alike
    /// characters, secrets returned or logged, tokens passed through, unbounded
    /// sampling, elicitation of secrets or to doubtful URLs, guessable session
    /// ids, tool name collisions); several are heuristics, each says so in
    /// `check --rules`.
    #[arg(long)]
    pub security: bool,
    /// A trusted recording, or a pin file (`mcp-raw pin`): each tool changed since
    /// (description, title, schemas, annotations) is an error, each new one a
    /// warning (the "rug pull"). Implies --security.
    #[arg(long, value_name = "OLD")]
    pub baseline: Option<PathBuf>,
    /// The largest maxTokens a sampling request may ask for before
    /// security/sampling-unbounded.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_SAMPLING_MAX_TOKENS)]
    pub sampling_max_tokens: u64,
    /// Silence a rule by its id (repeatable): its findings are still counted
    /// (the summary, JSON's "silenced", SARIF's suppressions) but not shown
    /// and never fail the check. A contract file's "allow" adds to them.
    #[arg(long, value_name = "RULE")]
    pub allow: Vec<String>,
}
