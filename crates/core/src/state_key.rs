//! The key that seals MRTR `requestState` ([`super::mrtr`]): drawn at random once per
//! process by default, or read from a file that every replica of a scaled-out server
//! shares (`serve --state-key-file PATH`, or the `MCP_RAW_STATE_KEY_FILE` variable).
//!
//! Why replicas need one key: in the 2026-07-28 era a request carries everything it
//! needs, so a load balancer may send round 2 of a multi round-trip request to another
//! replica than round 1 (2026-07-28 `basic/patterns/mrtr`: the server keeps no memory
//! between rounds; `requestState` carries it). That replica can only open the state if
//! it checks the seal with the same key.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The environment variable that names the key file when `--state-key-file` is not
/// given. It holds a path, never the key: a value in the environment or on a command
/// line is seen by `ps` and shell history; a file can be `chmod 600`.
pub const ENV: &str = "MCP_RAW_STATE_KEY_FILE";

/// The shortest key accepted, in bytes: the length of HMAC-SHA256's output. RFC 2104
/// §3: "keys shorter than L bytes are strongly discouraged as it would decrease the
/// security strength of the function".
pub const MIN_KEY_BYTES: usize = 32;

/// The largest key file read: a key longer than SHA-256's 64-byte block is hashed
/// down anyway (RFC 2104 §2), so a bigger file is a mistake (the wrong path).
pub const MAX_KEY_FILE_BYTES: u64 = 4096;

/// A sealing key. `Debug` never shows the bytes.
#[derive(Clone)]
pub struct StateKey {
    /// The HMAC key itself.
    bytes: Vec<u8>,
    /// Where it came from, for the startup line and errors: a file, or `None` when
    /// drawn at random for this process.
    source: Option<PathBuf>,
}

impl fmt::Debug for StateKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StateKey")
            .field("bytes", &format_args!("<{} bytes>", self.bytes.len()))
            .field("source", &self.source)
            .finish()
    }
}

/// Why a key file cannot be used; each quotes the path.
#[derive(Debug)]
pub enum KeyError {
    /// The file could not be read (missing, a directory, no permission).
    Unreadable {
        /// The path as given.
        path: PathBuf,
        /// What the OS said.
        source: std::io::Error,
    },
    /// The file holds fewer than [`MIN_KEY_BYTES`] bytes (after one trailing newline).
    TooShort {
        /// The path as given.
        path: PathBuf,
        /// How many bytes the key had.
        len: usize,
    },
    /// The file is larger than [`MAX_KEY_FILE_BYTES`].
    TooLong {
        /// The path as given.
        path: PathBuf,
        /// The file's size.
        len: u64,
    },
    /// A key was already in use when another was installed: states sealed with the
    /// first would no longer open.
    AlreadySet,
}

impl fmt::Display for KeyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KeyError::Unreadable { path, source } => {
                write!(f, "cannot read the state key file {path:?}: {source}")
            }
            KeyError::TooShort { path, len } => write!(
                f,
                "the state key file {path:?} holds {len} byte(s); at least {MIN_KEY_BYTES} are needed \
                 (RFC 2104 §3; make one with `head -c 32 /dev/urandom > {}`)",
                path.display()
            ),
            KeyError::TooLong { path, len } => write!(
                f,
                "the state key file {path:?} is {len} bytes, more than {MAX_KEY_FILE_BYTES}: is it the right file?"
            ),
            KeyError::AlreadySet => write!(
                f,
                "a requestState key is already in use in this process; install the shared key before serving"
            ),
        }
    }
}

impl std::error::Error for KeyError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            KeyError::Unreadable { source, .. } => Some(source),
            _ => None,
        }
    }
}

impl StateKey {
    /// Reads a key file: its bytes, at least [`MIN_KEY_BYTES`] long. A text key (printable
    /// ASCII, typed or made with `openssl rand -hex 32 > FILE`) loses one trailing
    /// newline (`\n` or `\r\n`); a binary key (`head -c 32 /dev/urandom > FILE`) is
    /// used whole, since its last random byte may be `\n` (one key in 256).
    pub fn from_file(path: &Path) -> Result<StateKey, KeyError> {
        let unreadable = |source| KeyError::Unreadable {
            path: path.to_owned(),
            source,
        };
        let len = std::fs::metadata(path).map_err(unreadable)?.len();
        if len > MAX_KEY_FILE_BYTES {
            return Err(KeyError::TooLong {
                path: path.to_owned(),
                len,
            });
        }
        let mut bytes = std::fs::read(path).map_err(unreadable)?;
        let text = bytes
            .strip_suffix(b"\n")
            .map(|b| b.strip_suffix(b"\r").unwrap_or(b));
        if let Some(text) = text
            && text.iter().all(|b| (0x20..0x7f).contains(b))
        {
            bytes.truncate(text.len());
        }
        if bytes.len() < MIN_KEY_BYTES {
            return Err(KeyError::TooShort {
                path: path.to_owned(),
                len: bytes.len(),
            });
        }
        Ok(StateKey {
            bytes,
            source: Some(path.to_owned()),
        })
    }

    /// 32 bytes from the OS CSPRNG: states sealed by another process (an earlier run,
    /// another replica) do not open.
    pub fn random() -> StateKey {
        let mut k = vec![0u8; 32];
        // Without an OS random source nothing here is safe; refuse to run.
        getrandom::fill(&mut k).expect("the OS random number generator is unavailable");
        StateKey {
            bytes: k,
            source: None,
        }
    }

    /// The file the key was read from, if any.
    pub fn source(&self) -> Option<&Path> {
        self.source.as_deref()
    }
}

/// The process's key, set by [`install`] or drawn at the first seal.
static KEY: OnceLock<StateKey> = OnceLock::new();

/// Makes `key` the one this process seals and opens with. Must come before the first
/// `requestState` is sealed or opened; a second call is refused.
pub fn install(key: StateKey) -> Result<(), KeyError> {
    KEY.set(key).map_err(|_| KeyError::AlreadySet)
}

/// The key in use: the installed one, or a random one drawn now and kept.
pub(crate) fn current() -> &'static [u8] {
    &KEY.get_or_init(StateKey::random).bytes
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(name: &str, bytes: &[u8]) -> PathBuf {
        let p = std::env::temp_dir().join(format!("mcp-raw-key-{}-{name}", std::process::id()));
        std::fs::write(&p, bytes).unwrap();
        p
    }

    #[test]
    fn a_key_file_is_read_less_one_newline_and_checked() {
        let hex = "ab".repeat(32);
        let k = StateKey::from_file(&file("hex", format!("{hex}\r\n").as_bytes())).unwrap();
        assert_eq!(k.bytes, hex.as_bytes());
        assert!(!format!("{k:?}").contains("ab"), "Debug hides the key");

        let short = file("short", b"0123456789012345678901234567890\n");
        let e = StateKey::from_file(&short).unwrap_err().to_string();
        assert!(
            e.contains(&format!("{short:?}")) && e.contains("31 byte(s)"),
            "{e}"
        );

        let missing = std::env::temp_dir().join("mcp-raw-key-does-not-exist");
        let e = StateKey::from_file(&missing).unwrap_err().to_string();
        assert!(
            e.starts_with(&format!("cannot read the state key file {missing:?}")),
            "{e}"
        );

        let long = file("long", &[7u8; MAX_KEY_FILE_BYTES as usize + 1]);
        assert!(matches!(
            StateKey::from_file(&long),
            Err(KeyError::TooLong { .. })
        ));
        for p in [short, long] {
            let _ = std::fs::remove_file(p);
        }
    }
}
