//! `mcp-raw sessions`: the flags mapped to [`mcp_raw_tools::sessions::Listing`], the
//! list printed as text or JSON, and the exit status.

use super::args::SessionsArgs;
use super::console::Console;
use mcp_raw_tools::sessions::{self, Listing};

/// Runs `sessions`: the list on stdout; returns the exit status.
pub fn main(args: SessionsArgs, console: &Console) -> u8 {
    let dir = match sessions::dir(args.state_dir.as_deref()) {
        Ok(d) => d,
        Err(e) => return super::exit::report("mcp-raw sessions", &e, console),
    };
    let listing = match Listing::read(&dir, args.max_message_bytes) {
        Ok(listing) => listing,
        Err(e) => {
            console.say(format_args!(
                "mcp-raw sessions: cannot read {}: {e}",
                dir.display()
            ));
            return 2;
        }
    };
    if args.format == "json" {
        console.print(listing.json());
    } else {
        console.print(listing.text(args.color.enabled(console)));
    }
    0
}
