//! The Redis backend of the shared store. Everything it sends is a RESP2 command
//! ([`super::resp`]) on one of two connections: one for commands (serialized: one
//! command, its reply, the next), one subscribed to the bus. Each opens the same way,
//! at start and on every reconnection: TCP, TLS for `rediss://` (the client's rustls
//! setup, [`crate::client::tls`]), `AUTH` when `--store-auth-file` gives credentials,
//! `SELECT` when the URL names a database.
//!
//! Keys, under a prefix (`--store-prefix`, default `mcp-raw`):
//!
//! ```text
//! mcp-raw:task:<id>    the task's record (JSON), expiring with the task (PX = ttlMs)
//! mcp-raw:lease:<id>   the owner's lease (its replica name), PX = --task-lease,
//!                      renewed by the owner every third of that
//! mcp-raw:bus          the pub/sub channel: {"from", "event"} for the hub,
//!                      {"from", "command", "taskId", …} for the task's owner
//! ```
//!
//! Changes are compare-and-set in Lua (`EVAL`): the script replaces the record only if
//! it is still the text the replica read, so two replicas changing one task cannot
//! both win. Redis runs a script atomically (redis.io "Scripting with Lua").
//!
//! This file starts a replica ([`connect`]); the rest is one job a file:
//!
//! ```text
//! settings.rs   --store's URL, --store-auth-file, the settings and the TLS setup
//! conn.rs       opening a connection (TLS, AUTH, SELECT); the command connection
//! records.rs    the task records: compare-and-set and leases in Lua
//! bus.rs        the pub/sub bus: hub events and commands, both ways
//! ```

mod bus;
mod conn;
mod records;
mod settings;
#[cfg(test)]
mod tests;

pub use settings::{Auth, Settings, TLS_ADVICE, Target, tls};

use super::resp::Frame;
use crate::protocol::subscriptions::Hub;
use crate::protocol::tasks::{Store, TaskLimits};
use bus::{BusRelay, read_bus, write_bus};
use conn::Client;
use records::RedisRecords;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc;

/// How long a command (or a connection) may take by default (`--store-timeout`).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(5);

/// The largest reply read by default (`--store-max-reply-bytes`): a record holds a
/// task's result, which an HTTP body bounds at 4 MiB by default.
pub const DEFAULT_MAX_REPLY: usize = 64 * 1024 * 1024;

/// How long a lease lasts by default (`--task-lease`): a task whose replica died
/// turns `failed` at most this long after its last renewal.
pub const DEFAULT_LEASE: Duration = Duration::from_secs(10);

/// What `serve --store redis://…` runs on: the hub and the task store every
/// replica shares, and this replica's name.
pub struct Shared {
    /// Change notifications, carried by the bus.
    pub hub: Arc<Hub>,
    /// Task records in Redis; work here.
    pub tasks: Arc<Store>,
    /// This replica's name (in leases and on the bus).
    pub replica: String,
}

/// Connects to Redis (a `PING` must answer, and the bus must be subscribed, within
/// the timeout, or this fails before the server listens), then starts this replica's
/// three background tasks: the bus reader, the bus writer and the lease keeper. Must
/// run on a Tokio runtime.
pub async fn connect(settings: Settings, limits: TaskLimits) -> Result<Shared, String> {
    let addr = settings.target.addr();
    let client = Arc::new(Client::new(settings.clone()));
    match client.call(&[b"PING"]).await {
        Ok(Frame::Simple(pong)) if pong == "PONG" => {}
        Ok(other) => return Err(format!("Redis at {addr} answered PING with {other:?}")),
        // `-NOAUTH Authentication required.`: Redis has a password and none was given.
        Err(e) if e.contains("NOAUTH") => {
            return Err(format!(
                "{e}: Redis requires a password; put user:password (or password) in a file and give it to --store-auth-file"
            ));
        }
        Err(e) => return Err(e),
    }
    let replica = format!(
        "{}-{}",
        std::process::id(),
        &uuid::Uuid::new_v4().simple().to_string()[..8]
    );
    let (bus, queue) = mpsc::unbounded_channel();
    let hub = Arc::new(Hub::default());
    let records = Arc::new(RedisRecords {
        client: client.clone(),
        replica: replica.clone(),
        bus: bus.clone(),
    });
    let tasks = Arc::new(Store::shared(
        limits,
        hub.clone(),
        Box::new(super::shared::Shared::new(records)),
    ));
    let _ = hub.set_relay(Arc::new(BusRelay {
        replica: replica.clone(),
        bus,
    }));
    let channel = format!("{}:bus", settings.prefix);
    let (ready_tx, ready) = tokio::sync::oneshot::channel();
    tokio::spawn(read_bus(
        settings.clone(),
        channel.clone(),
        hub.clone(),
        tasks.clone(),
        ready_tx,
    ));
    match tokio::time::timeout(settings.timeout, ready).await {
        Ok(Ok(Ok(()))) => {}
        Ok(Ok(Err(e))) => return Err(e),
        _ => {
            return Err(format!(
                "Redis at {addr}: SUBSCRIBE {channel} did not answer in time"
            ));
        }
    }
    tokio::spawn(write_bus(client, channel, queue));
    tokio::spawn(tasks.clone().keep_leases());
    Ok(Shared {
        hub,
        tasks,
        replica,
    })
}
