//! The `mcp-raw` binary: the process's arguments run on the process's console
//! ([`mcp_raw::run`]; the layout map is the library's, `src/lib.rs`).

use mcp_raw::cli::console::Console;
use std::process::ExitCode;

fn main() -> ExitCode {
    mcp_raw_net::memory::return_large_blocks_promptly();
    mcp_raw::cli::stderr_log::install();
    ExitCode::from(mcp_raw::run(
        std::env::args_os().collect(),
        &Console::process(),
    ))
}
