//! The bus: one pub/sub channel (redis.io "Pub/Sub") every replica subscribes to,
//! carrying the hub's events and the commands for a task's owner. One task writes it
//! (`PUBLISH`, in order), one reads it on a connection of its own, reconnecting.

use super::super::resp::{Connection, Frame};
use super::Settings;
use super::conn::{Client, open};
use crate::protocol::subscriptions::{Event, Hub, Relay};
use crate::protocol::tasks::Store;
use crate::protocol::tasks::records::Command;
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc;

/// The longest wait between two reconnection attempts of the bus.
const MAX_BACKOFF: Duration = Duration::from_secs(5);

/// The hub's events, onto the bus.
pub(super) struct BusRelay {
    /// This replica's name, so a reader of the channel sees who announced it.
    pub(super) replica: String,
    /// The bus's queue (the same one commands take, so everything leaves in order).
    pub(super) bus: mpsc::UnboundedSender<Value>,
}

impl Relay for BusRelay {
    fn relay(&self, event: &Event) {
        let _ = self
            .bus
            .send(json!({ "from": self.replica, "event": event.to_json() }));
    }
}

/// Sends the bus's messages in order, one `PUBLISH` each. A message that cannot be
/// sent is reported on stderr and dropped: listeners miss that change.
pub(super) async fn write_bus(
    client: Arc<Client>,
    channel: String,
    mut queue: mpsc::UnboundedReceiver<Value>,
) {
    while let Some(message) = queue.recv().await {
        let payload = message.to_string();
        if let Err(e) = client
            .call(&[b"PUBLISH", channel.as_bytes(), payload.as_bytes()])
            .await
        {
            log::warn!("[mcp-raw] store: an event was not published: {e}");
        }
    }
}

/// Reads the bus for as long as the process lives, reconnecting with a doubling
/// backoff (up to [`MAX_BACKOFF`]) when Redis drops; messages sent while it is away
/// are missed (the lease keeper catches up with missed commands). Tells `ready` how
/// the first subscription went.
pub(super) async fn read_bus(
    settings: Settings,
    channel: String,
    hub: Arc<Hub>,
    tasks: Arc<Store>,
    ready: tokio::sync::oneshot::Sender<Result<(), String>>,
) {
    let mut ready = Some(ready);
    let mut backoff = Duration::from_millis(100);
    loop {
        let error = match subscribe(&settings, &channel).await {
            Ok(mut conn) => {
                if let Some(ready) = ready.take() {
                    let _ = ready.send(Ok(()));
                }
                backoff = Duration::from_millis(100);
                loop {
                    match conn.read_frame().await {
                        Ok(frame) => receive(frame, &hub, &tasks),
                        Err(e) => break e,
                    }
                }
            }
            Err(e) => e,
        };
        if let Some(ready) = ready.take() {
            let _ = ready.send(Err(error));
            return;
        }
        crate::store::failed();
        log::warn!("[mcp-raw] store: the bus is down ({error}); reconnecting in {backoff:?}");
        tokio::time::sleep(backoff).await;
        backoff = (backoff * 2).min(MAX_BACKOFF);
    }
}

/// A connection subscribed to the bus (the confirmation read).
async fn subscribe(settings: &Settings, channel: &str) -> Result<Connection, String> {
    let addr = settings.target.addr();
    let mut conn = open(settings, "bus").await?;
    let confirmed = tokio::time::timeout(
        settings.timeout,
        conn.call(&[b"SUBSCRIBE", channel.as_bytes()]),
    )
    .await
    .map_err(|_| format!("Redis at {addr}: SUBSCRIBE timed out"))??;
    match confirmed {
        Frame::Array(items) if items.first().and_then(Frame::text) == Some("subscribe") => Ok(conn),
        other => Err(format!("Redis at {addr}: SUBSCRIBE answered {other:?}")),
    }
}

/// One pub/sub frame: `["message", channel, payload]`. Events go to this replica's
/// listeners, commands to the task store (which acts if the task runs here).
fn receive(frame: Frame, hub: &Hub, tasks: &Store) {
    let Frame::Array(items) = frame else { return };
    if items.first().and_then(Frame::text) != Some("message") {
        return;
    }
    let Some(message) = items
        .get(2)
        .and_then(Frame::bytes)
        .and_then(|b| serde_json::from_slice::<Value>(b).ok())
    else {
        return;
    };
    if let Some(event) = message.get("event").and_then(Event::from_json) {
        hub.deliver(&event);
    } else if let Some(command) = Command::from_json(&message) {
        tasks.on_command(command);
    }
}
