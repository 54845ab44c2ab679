//! `mcp-raw completions`'s one argument: the shell.

macro_rules! completions_examples {
    () => {
        "Examples:
  mkdir -p ~/.local/share/bash-completion/completions
  mcp-raw completions bash > ~/.local/share/bash-completion/completions/mcp-raw
  mcp-raw completions fish > ~/.config/fish/completions/mcp-raw.fish"
    };
}
pub(crate) use completions_examples;

// `mcp-raw completions SHELL`.
#[derive(clap::Args)]
#[group(skip)]
pub struct CompletionsArgs {
    /// The shell to complete in.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}
