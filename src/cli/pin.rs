//! `mcp-raw pin FILE`: the tools a trusted recording listed, hashed part by part
//! ([`mcp_raw_tools::check::security::pin`]), for `check --baseline` to compare. The
//! recording is read as a stream.

use super::args::PinArgs;
use super::console::Console;
use mcp_raw_tools::check::security::pin::Pins;
use mcp_raw_tools::stats::ledger::Ledger;

/// Runs `pin`; returns the exit status: 0 written, 1 OUT not written, 2 FILE
/// unreadable.
pub fn main(args: PinArgs, console: &Console) -> u8 {
    let refused = |e: &str| {
        console.say(format_args!(
            "mcp-raw pin: {}",
            mcp_raw_wire::term::escape(e)
        ));
        2
    };
    let events = match super::open_transcript(&args.file) {
        Ok((_, events)) => events,
        Err(e) => return refused(&e),
    };
    // Streamed into a counting ledger (as `stats` reads): the tools listed are kept,
    // no call's params or result.
    let mut ledger = Ledger::build_counting(args.max_message_bytes);
    for e in events {
        match e {
            Ok(e) => ledger.feed(&e),
            Err(e) => {
                return refused(&format!(
                    "{} is not a transcript mcp-raw can read: {e}",
                    args.file.display()
                ));
            }
        }
    }
    let pins = Pins::of(&ledger.finish());
    let text = pins.to_json();
    match &args.out {
        None => {
            console.print(text);
        }
        Some(out) => {
            if let Err(e) = std::fs::write(out, text) {
                console.say(format_args!(
                    "mcp-raw pin: cannot write {}: {e}",
                    out.display()
                ));
                return 1;
            }
            console.say(format_args!(
                "mcp-raw pin: {} tool(s) pinned in {}",
                pins.tools.len(),
                out.display()
            ));
        }
    }
    0
}
