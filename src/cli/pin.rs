//! `mcp-raw pin FILE`: the tools a trusted recording listed, hashed part by part
//! ([`mcp_raw_tools::check::security::pin`]), for `check --baseline` to compare.

use super::args::PinArgs;
use super::console::Console;
use mcp_raw_tools::check::security::pin::Pins;
use mcp_raw_tools::stats::ledger::Ledger;

/// Runs `pin`; returns the exit status: 0 written, 1 OUT not written, 2 FILE
/// unreadable.
pub fn main(args: PinArgs, console: &Console) -> u8 {
    let events = match super::read_transcript(&args.file) {
        Ok((_, events)) => events,
        Err(e) => {
            console.say(format_args!(
                "mcp-raw pin: {}",
                mcp_raw_wire::term::escape(&e)
            ));
            return 2;
        }
    };
    let pins = Pins::of(&Ledger::read(&events, args.max_message_bytes));
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
