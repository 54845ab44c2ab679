//! RESP2, the Redis serialization protocol, by hand: commands go out as arrays of bulk
//! strings, replies come back as one of five frame types. Written here rather than
//! taken from the `redis` crate so every byte to and from the store can be read in one
//! screen, and the binary stays small (its idle RSS is a tracked goal).
//!
//! ```text
//! > *3\r\n$3\r\nGET\r\n$22\r\nmcp-raw:task:…\r\n        a command: an array of bulk strings
//! < +OK\r\n   -ERR …\r\n   :1\r\n   $5\r\nhello\r\n   $-1\r\n   *2\r\n…   the replies
//! ```
//!
//! Below the frames, a connection is TCP or TLS over it (`rediss://`): the bytes
//! traced are the plaintext RESP either way.
//!
//! "Need more bytes" is a state ([`parse`] answers `Ok(None)`), not an error; a reply
//! larger than the limit is an error, so a broken or hostile store cannot make the
//! server buffer without end.

use crate::client::tls::Tls;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// The flags a TLS refusal suggests for the store.
pub const TLS_ADVICE: crate::client::tls::Advice = crate::client::tls::Advice {
    plain: "redis://",
    cacert: "--store-cacert",
    insecure: None,
    cert: "--store-cert FILE --store-key FILE",
};

/// The deepest nesting of arrays read (Redis's replies nest two or three deep).
const MAX_DEPTH: usize = 8;

/// One RESP2 reply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Frame {
    /// `+OK`: a status.
    Simple(String),
    /// `-ERR …`: Redis refused the command; the text is its own.
    Error(String),
    /// `:1`.
    Integer(i64),
    /// `$5\r\nhello`: a binary-safe string.
    Bulk(Vec<u8>),
    /// `$-1` or `*-1`: no value (a missing key).
    Nil,
    /// `*2\r\n…`: frames in order (`MGET`, pub/sub messages).
    Array(Vec<Frame>),
}

impl Frame {
    /// The bytes of a bulk or simple string; `None` for anything else.
    pub fn bytes(&self) -> Option<&[u8]> {
        match self {
            Frame::Bulk(b) => Some(b),
            Frame::Simple(s) => Some(s.as_bytes()),
            _ => None,
        }
    }

    /// The text of a bulk or simple string, when it is UTF-8.
    pub fn text(&self) -> Option<&str> {
        self.bytes().and_then(|b| std::str::from_utf8(b).ok())
    }
}

/// `args` as a RESP2 command: `*N\r\n` then `$len\r\nbytes\r\n` for each.
pub fn encode(args: &[&[u8]]) -> Vec<u8> {
    let mut out = Vec::with_capacity(16 + args.iter().map(|a| a.len() + 16).sum::<usize>());
    out.extend_from_slice(format!("*{}\r\n", args.len()).as_bytes());
    for arg in args {
        out.extend_from_slice(format!("${}\r\n", arg.len()).as_bytes());
        out.extend_from_slice(arg);
        out.extend_from_slice(b"\r\n");
    }
    out
}

/// Reads one frame from the front of `buf`: `Ok(Some((frame, bytes used)))`,
/// `Ok(None)` when the frame is not all there yet, `Err` when the bytes are not RESP2
/// or announce more than `max` bytes.
pub fn parse(buf: &[u8], max: usize) -> Result<Option<(Frame, usize)>, String> {
    let mut at = 0;
    Ok(frame(buf, &mut at, max, 0)?.map(|f| (f, at)))
}

fn frame(buf: &[u8], at: &mut usize, max: usize, depth: usize) -> Result<Option<Frame>, String> {
    if depth > MAX_DEPTH {
        return Err(format!("a reply nested deeper than {MAX_DEPTH} arrays"));
    }
    let Some(line) = line(buf, at)? else {
        return Ok(None);
    };
    let (kind, rest) = line
        .split_first()
        .ok_or("an empty line where a reply began")?;
    let text = || String::from_utf8_lossy(rest).into_owned();
    match kind {
        b'+' => Ok(Some(Frame::Simple(text()))),
        b'-' => Ok(Some(Frame::Error(text()))),
        b':' => Ok(Some(Frame::Integer(number(rest)?))),
        b'$' => {
            let len = number(rest)?;
            if len < 0 {
                return Ok(Some(Frame::Nil));
            }
            let len = usize::try_from(len).map_err(|_| format!("bulk length {len}"))?;
            if len > max {
                return Err(format!(
                    "a bulk reply of {len} bytes, over the limit of {max} (serve --store-max-reply-bytes)"
                ));
            }
            // The payload, then its own CRLF.
            if buf.len() < *at + len + 2 {
                return Ok(None);
            }
            let bytes = buf[*at..*at + len].to_vec();
            if &buf[*at + len..*at + len + 2] != b"\r\n" {
                return Err("a bulk reply not followed by CRLF".into());
            }
            *at += len + 2;
            Ok(Some(Frame::Bulk(bytes)))
        }
        b'*' => {
            let n = number(rest)?;
            if n < 0 {
                return Ok(Some(Frame::Nil));
            }
            let n = usize::try_from(n).map_err(|_| format!("array length {n}"))?;
            // Each item takes at least 3 bytes (`:0\r\n` is 4), so a longer array
            // announces more than the limit.
            if n > max / 3 {
                return Err(format!(
                    "an array reply of {n} items, over the limit of {max} bytes"
                ));
            }
            let mut items = Vec::with_capacity(n.min(64));
            for _ in 0..n {
                match frame(buf, at, max, depth + 1)? {
                    Some(f) => items.push(f),
                    None => return Ok(None),
                }
            }
            Ok(Some(Frame::Array(items)))
        }
        other => Err(format!(
            "a reply starting with {:?}, not one of + - : $ *",
            char::from(*other)
        )),
    }
}

/// The bytes up to the next CRLF, moving `at` past it; `None` until it has come.
fn line<'a>(buf: &'a [u8], at: &mut usize) -> Result<Option<&'a [u8]>, String> {
    let rest = &buf[*at..];
    match rest.windows(2).position(|w| w == b"\r\n") {
        Some(end) => {
            *at += end + 2;
            Ok(Some(&rest[..end]))
        }
        None => Ok(None),
    }
}

fn number(digits: &[u8]) -> Result<i64, String> {
    std::str::from_utf8(digits)
        .ok()
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| format!("{:?} is not a number", String::from_utf8_lossy(digits)))
}

/// `bytes` on one line: CR, LF, tab and backslash as `\r`, `\n`, `\t`, `\\`, other
/// control and non-ASCII bytes as `\xNN`; everything else as it is.
pub fn escaped(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len() + 16);
    for &b in bytes {
        match b {
            b'\r' => out.push_str("\\r"),
            b'\n' => out.push_str("\\n"),
            b'\t' => out.push_str("\\t"),
            b'\\' => out.push_str("\\\\"),
            0x20..=0x7e => out.push(char::from(b)),
            _ => out.push_str(&format!("\\x{b:02x}")),
        }
    }
    out
}

/// TCP, or TLS over it (`rediss://`): the bytes above are RESP2 either way.
enum Stream {
    /// `redis://`.
    Plain(TcpStream),
    /// `rediss://`: boxed, the TLS state is large.
    Tls(Box<tokio_rustls::client::TlsStream<TcpStream>>),
}

impl Stream {
    async fn write_all(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        match self {
            Stream::Plain(s) => s.write_all(bytes).await,
            Stream::Tls(s) => {
                // rustls buffers the record; flush sends it.
                s.write_all(bytes).await?;
                s.flush().await
            }
        }
    }

    async fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        match self {
            Stream::Plain(s) => s.read(buf).await,
            Stream::Tls(s) => s.read(buf).await,
        }
    }
}

/// How to reach Redis over TLS: the client's setup, and the host name to verify.
pub struct TlsTo<'a> {
    /// Roots (the system's and `--store-cacert`), shared by every connection.
    pub tls: &'a Tls,
    /// The host of the URL: sent as SNI and checked against the certificate.
    pub host: &'a str,
}

/// One connection to Redis: commands written whole, replies read frame by frame.
pub struct Connection {
    /// The socket, plain or TLS.
    stream: Stream,
    /// The store's flags, for a TLS error to suggest.
    advice: crate::client::tls::Advice,
    /// Has Redis answered anything yet? A plaintext command to a TLS port gets no
    /// RESP back, so the first failed read says which port it may be.
    answered: bool,
    /// Bytes read and not yet parsed (a reply may arrive in pieces).
    buffer: Vec<u8>,
    /// The largest reply accepted (`serve --store-max-reply-bytes`).
    max_reply: usize,
    /// `serve --store-trace`: the name this connection's bytes are printed under on
    /// stderr, `>` out and `<` in, exactly as they cross (CR and LF escaped).
    trace: Option<&'static str>,
}

impl Connection {
    /// Connects to `addr` (`host:port`) within `timeout`, and runs the TLS handshake
    /// when `tls` says so (within the same timeout).
    pub async fn connect(
        addr: &str,
        tls: Option<TlsTo<'_>>,
        timeout: Duration,
        max_reply: usize,
        trace: Option<&'static str>,
    ) -> Result<Connection, String> {
        let started = std::time::Instant::now();
        let tcp = tokio::time::timeout(timeout, TcpStream::connect(addr))
            .await
            .map_err(|_| format!("no connection to {addr} within {timeout:?}"))?
            .map_err(|e| format!("cannot connect to {addr}: {e}"))?;
        // Small commands, answered one by one: no Nagle delay.
        let _ = tcp.set_nodelay(true);
        let stream = match tls {
            None => Stream::Plain(tcp),
            Some(to) => {
                let left = timeout.saturating_sub(started.elapsed());
                let (stream, facts) =
                    tokio::time::timeout(left, to.tls.connect(tcp, to.host, addr, started))
                        .await
                        .map_err(|_| {
                            format!(
                                "no TLS handshake with {addr} within {timeout:?}: is it a plaintext port? Then use redis://"
                            )
                        })?
                        .map_err(|e| format!("{e:#}"))?;
                if let Some(name) = trace {
                    let leaf = facts.chain.first();
                    log::warn!(
                        "[redis {name}] TLS {} {}, certificate {} (issuer {}, SHA-256 {})",
                        facts.version,
                        facts.cipher,
                        leaf.map_or("(none)", |c| c.subject.as_str()),
                        leaf.map_or("(none)", |c| c.issuer.as_str()),
                        leaf.map_or("(none)", |c| c.sha256.as_str()),
                    );
                }
                Stream::Tls(Box::new(stream))
            }
        };
        Ok(Connection {
            stream,
            advice: TLS_ADVICE,
            answered: false,
            buffer: Vec::with_capacity(4096),
            max_reply,
            trace,
        })
    }

    /// Writes one command.
    pub async fn write_command(&mut self, args: &[&[u8]]) -> Result<(), String> {
        let bytes = encode(args);
        self.show('>', &bytes);
        self.send(&bytes).await
    }

    /// Writes one command whose last argument is a secret (`AUTH`'s password): the
    /// trace shows the bytes before it, then says it is not shown.
    pub async fn write_secret_command(&mut self, args: &[&[u8]]) -> Result<(), String> {
        let bytes = encode(args);
        if let Some(name) = self.trace {
            let shown = encode(&args[..args.len().saturating_sub(1)]);
            // The count in front (`*N`) is the real one; the secret's `$len` and
            // bytes are left out.
            let head = escaped(format!("*{}\r\n", args.len()).as_bytes());
            let rest = shown
                .iter()
                .position(|&b| b == b'\n')
                .map_or(&shown[..], |at| &shown[at + 1..]);
            log::warn!(
                "[redis {name}] > {head}{}(the password is not shown)",
                escaped(rest)
            );
        }
        self.send(&bytes).await
    }

    async fn send(&mut self, bytes: &[u8]) -> Result<(), String> {
        self.stream
            .write_all(bytes)
            .await
            .map_err(|e| format!("writing to Redis: {e}"))
    }

    /// Reads the next reply (or pub/sub message).
    pub async fn read_frame(&mut self) -> Result<Frame, String> {
        loop {
            // A TLS record where RESP was expected (RFC 8446 §5.1: content type 21 is
            // an alert, 22 a handshake): the port speaks TLS.
            if !self.answered
                && matches!(self.stream, Stream::Plain(_))
                && matches!(self.buffer.first(), Some(0x15 | 0x16))
            {
                return Err(format!(
                    "Redis answered with a TLS record (first byte 0x{:02x}), not RESP: this port speaks TLS; use rediss://",
                    self.buffer[0]
                ));
            }
            if let Some((frame, used)) = parse(&self.buffer, self.max_reply)? {
                let bytes: Vec<u8> = self.buffer.drain(..used).collect();
                self.show('<', &bytes);
                self.answered = true;
                return Ok(frame);
            }
            if self.buffer.len() > self.max_reply.saturating_add(64) {
                return Err(format!(
                    "a reply longer than the limit of {} bytes (serve --store-max-reply-bytes)",
                    self.max_reply
                ));
            }
            let mut chunk = [0u8; 8192];
            // A TLS port closes (or resets) a connection whose first bytes are not a
            // ClientHello, often without a word.
            let first = !self.answered && matches!(self.stream, Stream::Plain(_));
            let hint = if first {
                " before its first reply: is it a TLS port? Then use rediss://"
            } else {
                ""
            };
            let n = match self.stream.read(&mut chunk).await {
                Ok(n) => n,
                Err(e) if first && e.kind() == std::io::ErrorKind::ConnectionReset => {
                    return Err(format!("Redis reset the connection{hint}"));
                }
                // A TLS 1.3 server refuses a missing client certificate only after the
                // handshake (RFC 8446 §4.4.2.4): the alert comes with the first read.
                Err(e) => {
                    return Err(crate::client::tls::after_handshake_advised(
                        &e,
                        "Redis",
                        &self.advice,
                    )
                    .unwrap_or_else(|| format!("reading from Redis: {e}")));
                }
            };
            if n == 0 {
                return Err(format!("Redis closed the connection{hint}"));
            }
            self.buffer.extend_from_slice(&chunk[..n]);
        }
    }

    /// Reports one frame's bytes when tracing (`log`, trace level): one line each, `\r\n` visible.
    fn show(&self, arrow: char, bytes: &[u8]) {
        if let Some(name) = self.trace {
            log::trace!("[redis {name}] {arrow} {}", escaped(bytes));
        }
    }

    /// Sends a command and reads its reply.
    pub async fn call(&mut self, args: &[&[u8]]) -> Result<Frame, String> {
        self.write_command(args).await?;
        self.read_frame().await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(bytes: &[u8]) -> Frame {
        let (f, used) = parse(bytes, 1024).unwrap().unwrap();
        assert_eq!(used, bytes.len());
        f
    }

    #[test]
    fn traces_show_crlf_and_keep_quotes() {
        assert_eq!(
            escaped(b"$5\r\n{\"a\":'b\\}\x01\r\n"),
            r#"$5\r\n{"a":'b\\}\x01\r\n"#
        );
    }

    #[test]
    fn commands_are_arrays_of_bulk_strings() {
        assert_eq!(
            encode(&[b"SET", b"k", b"v v"]),
            b"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$3\r\nv v\r\n"
        );
        assert_eq!(encode(&[b"PING", b""]), b"*2\r\n$4\r\nPING\r\n$0\r\n\r\n");
    }

    #[test]
    fn every_reply_type_parses() {
        assert_eq!(one(b"+OK\r\n"), Frame::Simple("OK".into()));
        assert_eq!(
            one(b"-ERR unknown command\r\n"),
            Frame::Error("ERR unknown command".into())
        );
        assert_eq!(one(b":-42\r\n"), Frame::Integer(-42));
        assert_eq!(one(b"$5\r\nhe\r\no\r\n"), Frame::Bulk(b"he\r\no".to_vec()));
        assert_eq!(one(b"$0\r\n\r\n"), Frame::Bulk(Vec::new()));
        assert_eq!(one(b"$-1\r\n"), Frame::Nil);
        assert_eq!(one(b"*-1\r\n"), Frame::Nil);
        assert_eq!(
            one(b"*3\r\n$7\r\nmessage\r\n*1\r\n:1\r\n$-1\r\n"),
            Frame::Array(vec![
                Frame::Bulk(b"message".to_vec()),
                Frame::Array(vec![Frame::Integer(1)]),
                Frame::Nil
            ])
        );
    }

    #[test]
    fn a_partial_frame_is_incomplete_at_every_cut() {
        let whole = b"*2\r\n$3\r\nabc\r\n:7\r\n";
        for cut in 0..whole.len() {
            assert_eq!(parse(&whole[..cut], 1024).unwrap(), None, "cut at {cut}");
        }
        // Two replies in one read: the first is taken, the rest stays.
        let mut two = whole.to_vec();
        two.extend_from_slice(b"+OK\r\n");
        let (_, used) = parse(&two, 1024).unwrap().unwrap();
        assert_eq!(&two[used..], b"+OK\r\n");
    }

    #[test]
    fn garbage_and_oversize_are_errors() {
        assert!(parse(b"?what\r\n", 1024).unwrap_err().contains("'?'"));
        assert!(parse(b":x\r\n", 1024).is_err());
        assert!(parse(b"$3\r\nabcXY", 1024).is_err());
        let e = parse(b"$2000\r\n", 1024).unwrap_err();
        assert!(e.contains("2000") && e.contains("limit"), "{e}");
        assert!(parse(b"*1000000\r\n", 1024).is_err());
        let deep = "*1\r\n".repeat(MAX_DEPTH + 2);
        assert!(parse(deep.as_bytes(), 1024).unwrap_err().contains("deeper"));
    }
}
