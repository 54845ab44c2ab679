//! The task records in Redis, for [`Store::shared`](crate::protocol::tasks::Store::shared):
//! each change a compare-and-set in Lua (`EVAL`, run atomically: redis.io "Scripting
//! with Lua"), each running task's lease a key that expires (`PX`) unless its owner
//! renews it.

use super::super::resp::Frame;
use super::conn::Client;
use crate::protocol::context::BoxFuture;
use crate::protocol::tasks::records::{Command, Records, Stored};
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc;

/// Stores a new record with the owner's lease. KEYS: record, lease. ARGV: record,
/// owner, lease ms, ttl ms. `nil` when the id is taken (a UUID v4 never should be).
const INSERT: &str = "redis.call('SET', KEYS[2], ARGV[2], 'PX', ARGV[3]) \
return redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[4])";

/// Compare-and-set, keeping the record's expiry. KEYS: record. ARGV: old, new.
const SWAP: &str = "if redis.call('GET', KEYS[1]) == ARGV[1] then \
redis.call('SET', KEYS[1], ARGV[2], 'KEEPTTL') return 1 end return 0";

/// Renews the lease of a record still there, and returns the record. KEYS: record,
/// lease. ARGV: owner, lease ms.
const RENEW: &str = "local r = redis.call('GET', KEYS[1]) \
if r then redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[2]) end return r";

/// Task records in Redis, for [`Store::shared`].
pub(super) struct RedisRecords {
    /// The command connection.
    pub(super) client: Arc<Client>,
    /// This replica's name (owner of the tasks it runs).
    pub(super) replica: String,
    /// Messages for the bus, sent in order by one task.
    pub(super) bus: mpsc::UnboundedSender<Value>,
}

impl RedisRecords {
    fn key(&self, kind: &str, id: &str) -> String {
        format!("{}:{kind}:{id}", self.client.settings.prefix)
    }

    /// The task's record key and its lease key.
    fn keys(&self, id: &str) -> (String, String) {
        (self.key("task", id), self.key("lease", id))
    }
}

fn millis(d: Duration) -> String {
    d.as_millis().max(1).to_string()
}

fn text(frame: Frame, what: &str) -> Result<Option<String>, String> {
    match frame {
        Frame::Nil => Ok(None),
        Frame::Bulk(b) => String::from_utf8(b)
            .map(Some)
            .map_err(|_| format!("{what}: not UTF-8")),
        other => Err(format!("{what}: unexpected reply {other:?}")),
    }
}

impl Records for RedisRecords {
    fn replica(&self) -> &str {
        &self.replica
    }

    fn lease(&self) -> Duration {
        self.client.settings.lease
    }

    fn insert(&self, id: String, record: String, ttl: Duration) -> BoxFuture<Result<(), String>> {
        let (client, (rec, lease)) = (self.client.clone(), self.keys(&id));
        let (owner, lease_ms) = (self.replica.clone(), millis(self.lease()));
        Box::pin(async move {
            let keys: [&[u8]; 2] = [rec.as_bytes(), lease.as_bytes()];
            let ttl_ms = millis(ttl);
            let args: [&[u8]; 4] = [
                record.as_bytes(),
                owner.as_bytes(),
                lease_ms.as_bytes(),
                ttl_ms.as_bytes(),
            ];
            let reply = client.eval(INSERT, &keys, &args).await?;
            match reply {
                Frame::Simple(_) => Ok(()),
                _ => Err(format!("task id {id} is taken")),
            }
        })
    }

    fn read(&self, id: String) -> BoxFuture<Result<Option<Stored>, String>> {
        let (client, (rec, lease)) = (self.client.clone(), self.keys(&id));
        Box::pin(async move {
            let reply = client
                .call(&[b"MGET", rec.as_bytes(), lease.as_bytes()])
                .await?;
            let Frame::Array(mut both) = reply else {
                return Err(format!("MGET answered {reply:?}"));
            };
            if both.len() != 2 {
                return Err(format!("MGET answered {} items, not 2", both.len()));
            }
            let lease = both.pop().unwrap_or(Frame::Nil);
            let record = both.pop().unwrap_or(Frame::Nil);
            Ok(text(record, "the record")?.map(|text| Stored {
                text,
                lease_alive: lease != Frame::Nil,
            }))
        })
    }

    fn swap(&self, id: String, old: String, new: String) -> BoxFuture<Result<bool, String>> {
        let (client, rec) = (self.client.clone(), self.key("task", &id));
        Box::pin(async move {
            let args: [&[u8]; 2] = [old.as_bytes(), new.as_bytes()];
            let reply = client.eval(SWAP, &[rec.as_bytes()], &args).await?;
            Ok(reply == Frame::Integer(1))
        })
    }

    fn renew(&self, id: String) -> BoxFuture<Result<Option<String>, String>> {
        let (client, (rec, lease)) = (self.client.clone(), self.keys(&id));
        let (owner, lease_ms) = (self.replica.clone(), millis(self.lease()));
        Box::pin(async move {
            let keys: [&[u8]; 2] = [rec.as_bytes(), lease.as_bytes()];
            let args: [&[u8]; 2] = [owner.as_bytes(), lease_ms.as_bytes()];
            let reply = client.eval(RENEW, &keys, &args).await?;
            text(reply, "the record")
        })
    }

    fn release(&self, id: String) -> BoxFuture<Result<(), String>> {
        let (client, lease) = (self.client.clone(), self.key("lease", &id));
        Box::pin(async move {
            client.call(&[b"DEL", lease.as_bytes()]).await?;
            Ok(())
        })
    }

    fn send(&self, command: &Command) {
        let mut message = command.to_json();
        message["from"] = json!(self.replica);
        let _ = self.bus.send(message);
    }
}
