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

use super::resp::{Connection, Frame, TlsTo};
use crate::client::tls::{Advice, Tls};
use crate::protocol::context::BoxFuture;
use crate::protocol::subscriptions::{Event, Hub, Relay};
use crate::protocol::tasks::shared::{Command, Records, Stored};
use crate::protocol::tasks::{Store, TaskLimits};
use serde_json::{Value, json};
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

/// The longest wait between two reconnection attempts of the bus.
const MAX_BACKOFF: Duration = Duration::from_secs(5);

/// `redis://HOST:PORT[/DB]` or `rediss://HOST:PORT[/DB]`, read from `--store`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// `rediss://`: TLS to Redis's `tls-port` (the scheme Redis's own clients use for
    /// it), checked against the system's roots and `--store-cacert`.
    pub tls: bool,
    /// Host name or address.
    pub host: String,
    /// TCP port (required: no silent default).
    pub port: u16,
    /// Database number (`SELECT`); pub/sub channels are not per database, so the
    /// prefix, not the number, keeps deployments apart.
    pub db: Option<u32>,
}

impl Target {
    /// Reads `redis://HOST:PORT[/DB]` or `rediss://…`. Refusals quote the value,
    /// except a password, which is never printed (and never read from the URL: a
    /// command line is visible to every user of the machine; `--store-auth-file`).
    pub fn parse(value: &str) -> Result<Target, String> {
        let (tls, rest) = if let Some(rest) = value.strip_prefix("redis://") {
            (false, rest)
        } else if let Some(rest) = value.strip_prefix("rediss://") {
            (true, rest)
        } else {
            return Err(format!(
                "--store {value:?}: only redis://HOST:PORT[/DB] or rediss://HOST:PORT[/DB] (TLS) is supported"
            ));
        };
        if rest.contains('@') {
            return Err(
                "--store redis://…@…: a user or password in the URL is not supported (the value is not printed); put them in a file given to --store-auth-file"
                    .into(),
            );
        }
        let (hostport, db) = match rest.split_once('/') {
            Some((hp, "")) => (hp, None),
            Some((hp, db)) => (
                hp,
                Some(db.parse::<u32>().map_err(|_| {
                    format!("--store {value:?}: the database after / must be a number")
                })?),
            ),
            None => (rest, None),
        };
        let (host, port) = hostport
            .rsplit_once(':')
            .ok_or_else(|| format!("--store {value:?}: the port is missing (redis://HOST:PORT)"))?;
        let port = port
            .parse::<u16>()
            .ok()
            .filter(|p| *p != 0)
            .ok_or_else(|| format!("--store {value:?}: {port:?} is not a port"))?;
        if host.is_empty() {
            return Err(format!("--store {value:?}: the host is missing"));
        }
        Ok(Target {
            tls,
            host: host
                .trim_start_matches('[')
                .trim_end_matches(']')
                .to_owned(),
            port,
            db,
        })
    }

    /// `host:port`, for connecting and for messages.
    pub fn addr(&self) -> String {
        if self.host.contains(':') {
            format!("[{}]:{}", self.host, self.port)
        } else {
            format!("{}:{}", self.host, self.port)
        }
    }

    /// The URL again (without a password, which it never holds), for messages.
    pub fn url(&self) -> String {
        let scheme = if self.tls { "rediss" } else { "redis" };
        match self.db {
            Some(db) => format!("{scheme}://{}/{db}", self.addr()),
            None => format!("{scheme}://{}", self.addr()),
        }
    }
}

/// Redis AUTH's user and password (redis.io "AUTH": `AUTH [username] password`; a
/// user of an ACL since Redis 6, else the `requirepass` of the `default` user), read
/// from `--store-auth-file`. `Debug` leaves the password out.
#[derive(Clone)]
pub struct Auth {
    /// The ACL user; `None` authenticates as `default` (`AUTH password`).
    pub user: Option<String>,
    /// The password, sent in `AUTH` only, never printed.
    password: String,
    /// The file it came from, to name in errors.
    pub file: std::path::PathBuf,
}

impl std::fmt::Debug for Auth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Auth")
            .field("user", &self.user)
            .field("file", &self.file)
            .finish_non_exhaustive()
    }
}

impl Auth {
    /// Reads `user:password` or `password` from the one line of `path` (a trailing
    /// newline is dropped; the user is what comes before the first `:`, so a
    /// password holding `:` is written `default:pass:word`). Errors name the file,
    /// never its content.
    pub fn from_file(path: &std::path::Path) -> Result<Auth, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("--store-auth-file {}: cannot read it: {e}", path.display()))?;
        let line = text
            .strip_suffix("\r\n")
            .or_else(|| text.strip_suffix('\n'))
            .unwrap_or(&text);
        if line.contains(['\n', '\r']) {
            return Err(format!(
                "--store-auth-file {}: more than one line (expected user:password or password on one line)",
                path.display()
            ));
        }
        let (user, password) = match line.split_once(':') {
            Some((user, password)) => (Some(user.to_owned()), password.to_owned()),
            None => (None, line.to_owned()),
        };
        if password.is_empty() || user.as_deref() == Some("") {
            return Err(format!(
                "--store-auth-file {}: the {} is empty (expected user:password or password on one line)",
                path.display(),
                if password.is_empty() {
                    "password"
                } else {
                    "user"
                }
            ));
        }
        Ok(Auth {
            user,
            password,
            file: path.to_owned(),
        })
    }
}

/// How to reach and use the store (`serve --store …` and its companions).
#[derive(Debug, Clone)]
pub struct Settings {
    /// Where Redis listens.
    pub target: Target,
    /// Namespace of every key and of the channel, so deployments can share a Redis.
    pub prefix: String,
    /// The longest a connection or a command may take before it is an error.
    pub timeout: Duration,
    /// The largest reply accepted.
    pub max_reply: usize,
    /// How long a task's lease lasts without renewal.
    pub lease: Duration,
    /// `--store-trace`: print every byte to and from Redis on stderr.
    pub trace: bool,
    /// With `rediss://`: the TLS setup (the system's roots and `--store-cacert`),
    /// shared by both connections and every reconnection.
    pub tls: Option<Arc<Tls>>,
    /// `--store-auth-file`: `AUTH` sent first on every connection.
    pub auth: Option<Auth>,
}

/// The flags a TLS refusal suggests for the store.
pub const TLS_ADVICE: Advice = Advice {
    plain: "redis://",
    cacert: "--store-cacert",
    insecure: None,
    cert: "--store-cert FILE --store-key FILE",
};

/// The client's TLS for `rediss://`: the system's roots plus `cacert`, the client
/// certificate `cert` with its `key` (Redis asks for one unless `tls-auth-clients
/// no`), no ALPN (Redis negotiates none), refusals naming the store's flags.
pub fn tls(
    cacert: Vec<std::path::PathBuf>,
    cert: Option<std::path::PathBuf>,
    key: Option<std::path::PathBuf>,
) -> Result<Tls, String> {
    Tls::new(crate::client::tls::TlsOptions {
        cacert,
        cert,
        key,
        ..Default::default()
    })
    .map(|tls| tls.for_protocol(Vec::new(), TLS_ADVICE))
    // The setup's errors name the client's flags; these are the store's.
    .map_err(|e| {
        format!("{e:#}")
            .replace("--cacert", "--store-cacert")
            .replace("--cert", "--store-cert")
            .replace("--key", "--store-key")
    })
}

/// The command connection: one at a time, reconnected on the next command after a
/// failure (the server keeps serving; the failed request gets `-32603`).
struct Client {
    /// Where and how.
    settings: Settings,
    /// The open connection, if any; `None` after a failure.
    conn: tokio::sync::Mutex<Option<Connection>>,
}

impl Client {
    /// Runs one command; a Redis error reply is an `Err` quoting it.
    async fn call(&self, args: &[&[u8]]) -> Result<Frame, String> {
        let addr = self.settings.target.addr();
        let mut slot = self.conn.lock().await;
        if slot.is_none() {
            *slot = Some(open(&self.settings, "cmd").await?);
        }
        let Some(conn) = slot.as_mut() else {
            return Err(format!("no connection to Redis at {addr}"));
        };
        let reply = match tokio::time::timeout(self.settings.timeout, conn.call(args)).await {
            Ok(Ok(frame)) => frame,
            Ok(Err(e)) => {
                *slot = None;
                return Err(format!("Redis at {addr}: {e}"));
            }
            Err(_) => {
                // The reply may still come: this connection is out of step now.
                *slot = None;
                return Err(format!(
                    "Redis at {addr} did not answer within {:?} (serve --store-timeout)",
                    self.settings.timeout
                ));
            }
        };
        match reply {
            Frame::Error(e) => Err(format!("Redis at {addr} answered {:?}", format!("-{e}"))),
            frame => Ok(frame),
        }
    }
}

/// A new connection, authenticated and its database selected; `name` labels its
/// trace (`cmd`, `bus`).
async fn open(settings: &Settings, name: &'static str) -> Result<Connection, String> {
    let addr = settings.target.addr();
    let trace = settings.trace.then_some(name);
    let tls = match (&settings.target.tls, &settings.tls) {
        (false, _) => None,
        (true, Some(tls)) => Some(TlsTo {
            tls,
            host: &settings.target.host,
        }),
        (true, None) => return Err(format!("Redis at {addr}: rediss:// without a TLS setup")),
    };
    let mut conn = Connection::connect(&addr, tls, settings.timeout, settings.max_reply, trace)
        .await
        .map_err(|e| format!("Redis at {addr}: {e}"))?;
    if let Some(auth) = &settings.auth {
        // AUTH before anything else: until it succeeds, a server with a password
        // answers every other command `-NOAUTH` (redis.io "AUTH").
        let mut args: Vec<&[u8]> = vec![b"AUTH"];
        if let Some(user) = &auth.user {
            args.push(user.as_bytes());
        }
        args.push(auth.password.as_bytes());
        let sent = async {
            conn.write_secret_command(&args).await?;
            conn.read_frame().await
        };
        let who = match &auth.user {
            Some(user) => format!("user {user:?}"),
            None => "the default user".to_owned(),
        };
        match tokio::time::timeout(settings.timeout, sent).await {
            Ok(Ok(Frame::Simple(_))) => {}
            // `-WRONGPASS invalid username-password pair or user is disabled.`: the
            // reply never quotes the password, so it is shown whole.
            Ok(Ok(Frame::Error(e))) => {
                return Err(format!(
                    "Redis at {addr} refused AUTH as {who} with the password in --store-auth-file {}: {:?}",
                    auth.file.display(),
                    format!("-{e}")
                ));
            }
            Ok(Ok(other)) => {
                return Err(format!("Redis at {addr}: AUTH answered {other:?}"));
            }
            Ok(Err(e)) => return Err(format!("Redis at {addr}: {e}")),
            Err(_) => return Err(format!("Redis at {addr}: AUTH timed out")),
        }
    }
    if let Some(db) = settings.target.db {
        let db = db.to_string();
        match tokio::time::timeout(settings.timeout, conn.call(&[b"SELECT", db.as_bytes()])).await {
            Ok(Ok(Frame::Simple(_))) => {}
            Ok(Ok(other)) => {
                return Err(format!("Redis at {addr}: SELECT {db} answered {other:?}"));
            }
            Ok(Err(e)) => return Err(format!("Redis at {addr}: {e}")),
            Err(_) => return Err(format!("Redis at {addr}: SELECT {db} timed out")),
        }
    }
    Ok(conn)
}

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
struct RedisRecords {
    /// The command connection.
    client: Arc<Client>,
    /// This replica's name (owner of the tasks it runs).
    replica: String,
    /// Messages for the bus, sent in order by one task.
    bus: mpsc::UnboundedSender<Value>,
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
            let reply = client
                .call(&[
                    b"EVAL",
                    INSERT.as_bytes(),
                    b"2",
                    rec.as_bytes(),
                    lease.as_bytes(),
                    record.as_bytes(),
                    owner.as_bytes(),
                    lease_ms.as_bytes(),
                    millis(ttl).as_bytes(),
                ])
                .await?;
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
            let reply = client
                .call(&[
                    b"EVAL",
                    SWAP.as_bytes(),
                    b"1",
                    rec.as_bytes(),
                    old.as_bytes(),
                    new.as_bytes(),
                ])
                .await?;
            Ok(reply == Frame::Integer(1))
        })
    }

    fn renew(&self, id: String) -> BoxFuture<Result<Option<String>, String>> {
        let (client, (rec, lease)) = (self.client.clone(), self.keys(&id));
        let (owner, lease_ms) = (self.replica.clone(), millis(self.lease()));
        Box::pin(async move {
            let reply = client
                .call(&[
                    b"EVAL",
                    RENEW.as_bytes(),
                    b"2",
                    rec.as_bytes(),
                    lease.as_bytes(),
                    owner.as_bytes(),
                    lease_ms.as_bytes(),
                ])
                .await?;
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

/// The hub's events, onto the bus.
struct BusRelay {
    /// This replica's name, so a reader of the channel sees who announced it.
    replica: String,
    /// The bus's queue (the same one commands take, so everything leaves in order).
    bus: mpsc::UnboundedSender<Value>,
}

impl Relay for BusRelay {
    fn relay(&self, event: &Event) {
        let _ = self
            .bus
            .send(json!({ "from": self.replica, "event": event.to_json() }));
    }
}

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
    let client = Arc::new(Client {
        settings: settings.clone(),
        conn: tokio::sync::Mutex::new(None),
    });
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
    let tasks = Arc::new(Store::shared(limits, hub.clone(), records));
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

/// Sends the bus's messages in order, one `PUBLISH` each. A message that cannot be
/// sent is reported on stderr and dropped: listeners miss that change.
async fn write_bus(
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
async fn read_bus(
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::tasks::suite;

    /// A `redis-server` of the test's own on a free port (killed on drop), or `None`
    /// when there is none to start (a `SKIP` line on stderr; a failure under CI,
    /// which installs Debian's).
    struct Server(std::process::Child, u16);

    impl Drop for Server {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }

    fn redis_server() -> Option<Server> {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .ok()?
            .port();
        let child = std::process::Command::new("redis-server")
            .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
            .args(["--save", "", "--appendonly", "no", "--dir"])
            .arg(std::env::temp_dir())
            .stdout(std::process::Stdio::null())
            .spawn();
        let Ok(child) = child else {
            // A test that checked nothing must not pass under CI (`CI=true`, as CI
            // services and `.ci/run` set it); elsewhere the skip is said loudly.
            let ci = std::env::var("CI").is_ok_and(|v| !matches!(v.trim(), "" | "0" | "false"));
            assert!(
                !ci,
                "redis-server is not on PATH and CI is set: the Redis store suite \
                 would check nothing (apt-get install redis-server)"
            );
            log::warn!(
                "SKIP store::redis: redis-server is not on PATH; nothing was checked \
                 (apt-get install redis-server)"
            );
            return None;
        };
        let server = Server(child, port);
        for _ in 0..500 {
            if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
                return Some(server);
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        panic!("redis-server did not listen on {port}");
    }

    fn settings(port: u16) -> Settings {
        Settings {
            target: Target::parse(&format!("redis://127.0.0.1:{port}")).unwrap(),
            prefix: "suite".into(),
            timeout: DEFAULT_TIMEOUT,
            max_reply: DEFAULT_MAX_REPLY,
            lease: DEFAULT_LEASE,
            trace: false,
            tls: None,
            auth: None,
        }
    }

    /// The store suite of `protocol::tasks::shared`, on two replicas of one real Redis.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_store_suite_runs_on_redis() {
        let Some(server) = redis_server() else {
            return;
        };
        let replica = || async {
            connect(settings(server.1), TaskLimits::default())
                .await
                .unwrap()
                .tasks
        };
        let (a, b) = (replica().await, replica().await);
        suite::created_here_read_there_and_completed("redis", a.clone(), b.clone()).await;
        suite::cancelled_there_stops_the_work_here("redis", a.clone(), b.clone()).await;
        suite::answered_there_resumes_the_work_here("redis", a, b).await;
    }

    #[tokio::test]
    async fn an_unreachable_store_is_an_error_naming_it() {
        let free = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = free.local_addr().unwrap().port();
        drop(free);
        let e = connect(settings(port), TaskLimits::default())
            .await
            .err()
            .unwrap();
        assert!(e.contains(&format!("127.0.0.1:{port}")), "{e}");
    }

    #[test]
    fn store_urls_are_read_or_refused_quoting_the_value() {
        assert_eq!(
            Target::parse("redis://127.0.0.1:6379").unwrap(),
            Target {
                tls: false,
                host: "127.0.0.1".into(),
                port: 6379,
                db: None
            }
        );
        assert_eq!(Target::parse("redis://h:1/3").unwrap().db, Some(3));
        let tls = Target::parse("rediss://h:6380/2").unwrap();
        assert!(tls.tls && tls.port == 6380 && tls.url() == "rediss://h:6380/2");
        assert_eq!(
            Target::parse("redis://[::1]:7000").unwrap().addr(),
            "[::1]:7000"
        );
        for (bad, says) in [
            ("http://h:1", "only redis://"),
            ("redis://h", "port is missing"),
            ("redis://h:0", "not a port"),
            ("redis://h:x", "not a port"),
            ("redis://:1", "host is missing"),
            ("redis://h:1/x", "database"),
        ] {
            let e = Target::parse(bad).unwrap_err();
            assert!(e.contains(says) && e.contains(bad), "{bad}: {e}");
        }
        let e = Target::parse("redis://user:s3cret@h:1").unwrap_err();
        assert!(!e.contains("s3cret"), "{e}");
        let e = Target::parse("rediss://user:s3cret@h:1").unwrap_err();
        assert!(
            !e.contains("s3cret") && e.contains("--store-auth-file"),
            "{e}"
        );
    }

    #[test]
    fn auth_files_hold_one_line_and_errors_never_quote_it() {
        let dir = std::env::temp_dir().join(format!("mcp-raw-auth-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = |name: &str, text: &str| {
            let path = dir.join(name);
            std::fs::write(&path, text).unwrap();
            path
        };
        let a = Auth::from_file(&file("user", "app:pa:ss\n")).unwrap();
        assert_eq!(
            (a.user.as_deref(), a.password.as_str()),
            (Some("app"), "pa:ss")
        );
        let a = Auth::from_file(&file("bare", "s3cret")).unwrap();
        assert_eq!((a.user.as_deref(), a.password.as_str()), (None, "s3cret"));
        assert!(!format!("{a:?}").contains("s3cret"));
        for (name, text, says) in [
            ("empty", "\n", "password is empty"),
            ("nouser", ":s3cret\n", "user is empty"),
            ("two", "s3cret\nmore\n", "more than one line"),
        ] {
            let e = Auth::from_file(&file(name, text)).unwrap_err();
            assert!(
                e.contains(says) && e.contains(name) && !e.contains("s3cret"),
                "{e}"
            );
        }
        let e = Auth::from_file(&dir.join("missing")).unwrap_err();
        assert!(e.contains("cannot read"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
