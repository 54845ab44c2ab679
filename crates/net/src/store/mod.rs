//! Shared state for replicas behind a load balancer (`serve --store redis://…`): the
//! tasks extension's records and the subscription hub's events, kept in Redis so that
//! any replica can serve any stateless 2026-07-28 request about them.
//!
//! ```text
//! shared.rs  the task store's shared half over any `Records`: compare-and-set on
//!            the records, leases, commands from other replicas acted on
//! shared/    its unit tests (tests.rs: the store suite on in-process fake records)
//! resp.rs    RESP2 by hand: commands as arrays of bulk strings, replies as frames
//! redis/     the store: its URL and settings (settings.rs), the connections
//!            (conn.rs), the task records (compare-and-set in Lua, leases:
//!            records.rs), and the bus (pub/sub) that carries hub events and
//!            cross-replica commands (bus.rs)
//! ```
//!
//! The protocol core knows only its own traits ([`crate::protocol::tasks::records::Records`],
//! [`crate::protocol::tasks::replicated::Replicated`],
//! [`crate::protocol::subscriptions::Relay`]); this module implements them and never
//! the other way round. Without `--store`, none of it runs: one process keeps its
//! tasks and listeners in memory, as before.

pub mod redis;
pub mod resp;
pub mod shared;

use std::sync::atomic::{AtomicU64, Ordering};

/// Store operations that failed in this process: a command Redis refused, did not
/// answer in time, or whose connection was lost (the request it served got
/// `-32603`), and each time the bus's subscription went down. What `--metrics`
/// shows as `mcp_raw_store_errors_total`; zero without `--store`.
static ERRORS: AtomicU64 = AtomicU64::new(0);

/// Store operations that failed so far.
pub fn errors() -> u64 {
    ERRORS.load(Ordering::Relaxed)
}

/// One more store operation failed.
pub(crate) fn failed() {
    ERRORS.fetch_add(1, Ordering::Relaxed);
}
