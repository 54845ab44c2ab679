//! `mcp-raw sessions`: the flags mapped to [`mcp_raw_tools::sessions::Listing`], the
//! list printed as text or JSON, and the exit status.

use super::args::SessionsArgs;
use mcp_raw_tools::sessions::{self, Listing};

/// Runs `sessions`: the list on stdout; returns the exit status.
pub fn main(args: SessionsArgs) -> u8 {
    let dir = match sessions::dir(args.state_dir.as_deref()) {
        Ok(d) => d,
        Err(e) => return super::exit::report("mcp-raw sessions", &e),
    };
    let listing = match Listing::read(&dir, args.max_message_bytes) {
        Ok(listing) => listing,
        Err(e) => {
            eprintln!("mcp-raw sessions: cannot read {}: {e}", dir.display());
            return 2;
        }
    };
    if args.format == "json" {
        print!("{}", listing.json());
    } else {
        print!("{}", listing.text(args.color.enabled()));
    }
    0
}
