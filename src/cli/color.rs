//! `--color WHEN`: when the views colour what they print. Whether stdout or stderr is
//! a terminal is the binary's question: the libraries take the answer as a `bool`
//! (`color`) and never look at the process's streams themselves.

use super::console::Console;

/// When to colour the output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorChoice {
    /// On a terminal (not `NO_COLOR`, not `TERM=dumb`).
    Auto,
    /// Always.
    Always,
    /// Never.
    Never,
}

impl ColorChoice {
    /// `auto` means: stdout is a terminal, `NO_COLOR` is unset, `TERM` is not `dumb`.
    pub fn enabled(self, console: &Console) -> bool {
        match self {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => mcp_raw_wire::text::auto_color(console.out_is_terminal()),
        }
    }

    /// The same for what goes to stderr (`--trace`): `auto` asks whether stderr is a
    /// terminal.
    pub fn enabled_on_stderr(self, console: &Console) -> bool {
        match self {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => mcp_raw_wire::text::auto_color(console.err_is_terminal()),
        }
    }
}
