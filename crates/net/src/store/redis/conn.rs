//! A connection to Redis, opened the same way at start and on every reconnection
//! (TCP, TLS for `rediss://`, `AUTH`, `SELECT`), and the command connection: one
//! command at a time, its reply, the next (RESP2 has no ids to match replies by).

use super::super::resp::{Connection, Frame, TlsTo};
use super::Settings;

/// The command connection: one at a time, reconnected on the next command after a
/// failure (the server keeps serving; the failed request gets `-32603`).
pub(super) struct Client {
    /// Where and how.
    pub(super) settings: Settings,
    /// The open connection, if any; `None` after a failure.
    conn: tokio::sync::Mutex<Option<Connection>>,
}

impl Client {
    /// A client that connects on its first command.
    pub(super) fn new(settings: Settings) -> Client {
        Client {
            settings,
            conn: tokio::sync::Mutex::new(None),
        }
    }

    /// Runs one command; a Redis error reply is an `Err` quoting it. Every `Err` is
    /// counted ([`crate::store::errors`]).
    pub(super) async fn call(&self, args: &[&[u8]]) -> Result<Frame, String> {
        let reply = self.call_once(args).await;
        if reply.is_err() {
            crate::store::failed();
        }
        reply
    }

    /// [`Client::call`], uncounted.
    async fn call_once(&self, args: &[&[u8]]) -> Result<Frame, String> {
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

    /// Runs a Lua script (`EVAL script numkeys key… arg…`, redis.io "EVAL"): the
    /// keys apart from the other arguments, as Redis Cluster needs them named.
    pub(super) async fn eval(
        &self,
        script: &str,
        keys: &[&[u8]],
        args: &[&[u8]],
    ) -> Result<Frame, String> {
        let count = keys.len().to_string();
        let mut command: Vec<&[u8]> = vec![b"EVAL", script.as_bytes(), count.as_bytes()];
        command.extend_from_slice(keys);
        command.extend_from_slice(args);
        self.call(&command).await
    }
}

/// A new connection, authenticated and its database selected; `name` labels its
/// trace (`cmd`, `bus`).
pub(super) async fn open(settings: &Settings, name: &'static str) -> Result<Connection, String> {
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
