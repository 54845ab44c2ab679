//! `mcp-raw stats FILE…`: each recording read into the library's ledger, the figures
//! added up ([`mcp_raw_tools::stats::Stats`]) and printed as text, JSON or CSV.

use super::args::{StatsArgs, StatsFormat};
use super::console::Console;
use mcp_raw_tools::stats::{Stats, ledger::Ledger, render};

/// Runs `stats`; returns the exit status: 0 printed, 2 a file unreadable.
pub fn main(args: StatsArgs, console: &Console) -> u8 {
    let mut stats = Stats::default();
    let several = args.files.len() > 1;
    // Each recording streamed into a counting ledger: memory holds the calls'
    // figures, never the recording.
    for file in &args.files {
        let refused = |e: &str| {
            console.say(format_args!(
                "mcp-raw stats: {}",
                mcp_raw_wire::term::escape(e)
            ));
            2
        };
        let events = match super::open_transcript(file) {
            Ok((_, events)) => events,
            Err(e) => return refused(&e),
        };
        let mut ledger = Ledger::build_counting(args.max_message_bytes);
        for e in events {
            match e {
                Ok(e) => ledger.feed(&e),
                Err(e) => {
                    return refused(&format!(
                        "{} is not a transcript mcp-raw can read: {e}",
                        file.display()
                    ));
                }
            }
        }
        let prefix = if several {
            format!("{}:", file.display())
        } else {
            String::new()
        };
        stats.add(&prefix, &ledger.finish());
    }
    let stats = stats.done();
    let out = match args.format {
        StatsFormat::Text => render::text(&stats),
        StatsFormat::Json => render::json(&stats),
        StatsFormat::Csv => render::csv(&stats),
    };
    console.print(out);
    0
}
