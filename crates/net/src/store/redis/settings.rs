//! What `serve --store` is told: the URL (`redis://` or `rediss://`, read by hand),
//! the credentials of `--store-auth-file` (redis.io "AUTH"), the settings both
//! connections share, and the TLS setup for `rediss://`.

use crate::client::tls::Tls;
use std::sync::Arc;
use std::time::Duration;

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
    pub(super) password: String,
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

pub use super::super::resp::TLS_ADVICE;

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
