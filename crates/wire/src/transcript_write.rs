//! The transcript written (`--record`, `--json`): each event's line and the lines of
//! the facts it completed, made straight from the event where serde_json would build
//! a `Value` first (the same bytes: tests hold them equal), in one `write_all` per
//! event, or per batch behind a thread of its own ([`super::behind`]).

use super::decode::{Decoder, Fact, Source};
use super::event::{Dir, Event, Lane, What};
use super::recorder::{Dropped, Sink};
use super::transcript::{Header, event_json, fact_json};
use serde_json::{Value, json};
use std::io::Write;
use std::time::Duration;

/// A sink writing the transcript: an event's line and its facts' lines in one
/// `write_all`, or, deferred (behind a thread of its own, [`super::behind`]), many
/// events' lines in one when the queue empties.
pub struct Writer<W: Write + Send> {
    /// The transcript file (or stdout for `--json`).
    out: W,
    /// Reads the facts that follow each event line.
    decoder: Decoder,
    /// Lines made, not yet written.
    buf: Vec<u8>,
    /// Written only on [`Sink::flush`] (or past [`DEFER_BYTES`]), not per event.
    deferred: bool,
    /// The last event's place (time, lane, direction): where a `dropped` line says
    /// its gap began.
    last: (Duration, Lane, Dir),
}

/// A deferred writer's most bytes held between flushes.
const DEFER_BYTES: usize = 256 * 1024;

impl<W: Write + Send> Writer<W> {
    /// Starts a transcript: writes its first line. Facts are read from messages up
    /// to `max` bytes (`--max-message-bytes`); a longer one is a `too-long` fact, its
    /// bytes all kept.
    pub fn new(mut out: W, header: &Header, max: usize) -> std::io::Result<Writer<W>> {
        let mut buf = Vec::with_capacity(4096);
        push_value(&mut buf, &header.to_json());
        out.write_all(&buf)?;
        out.flush()?;
        buf.clear();
        Ok(Writer {
            out,
            decoder: Decoder::with_max(max),
            buf,
            deferred: false,
            last: (
                Duration::ZERO,
                Lane {
                    id: 0,
                    kind: super::event::LaneKind::Stdio,
                },
                Dir::ToServer,
            ),
        })
    }

    /// Writes only when flushed: for a writer on a thread of its own, which flushes
    /// when no more events wait.
    pub fn deferred(mut self) -> Writer<W> {
        self.deferred = true;
        self
    }

    fn write_out(&mut self) {
        if !self.buf.is_empty() {
            // A full disk must not stop the server: the transcript just ends short.
            let _ = self.out.write_all(&self.buf);
            let _ = self.out.flush();
            self.buf.clear();
        }
    }
}

/// One line: `v` as JSON with DEL and C1 escaped (a transcript on a terminal,
/// `--json`, `cat`, `tail -f`, shows them, never obeys them), then `\n`.
fn push_value(buf: &mut Vec<u8>, v: &Value) {
    let start = buf.len();
    // Writing to a Vec cannot fail, and a Value always serializes.
    let _ = serde_json::to_writer(&mut *buf, v);
    end_line(buf, start);
}

/// Ends the line begun at `start`: its DEL and C1 escaped (copied only when there is
/// one), then `\n`.
fn end_line(buf: &mut Vec<u8>, start: usize) {
    if let std::borrow::Cow::Owned(safe) = super::term::json_safe(&buf[start..]) {
        buf.truncate(start);
        buf.extend_from_slice(&safe);
    }
    buf.push(b'\n');
}

/// `{"t":…,"lane":"…","dir":"…"`: the start every event and fact line shares, as
/// [`place`] serializes it.
fn push_place(buf: &mut Vec<u8>, e: &Event) {
    buf.extend_from_slice(b"{\"t\":");
    let _ = serde_json::to_writer(&mut *buf, &(e.t.as_micros() as f64 / 1e6));
    // A lane's label is letters and digits: nothing in it to escape.
    buf.extend_from_slice(b",\"lane\":\"");
    let (name, n) = match (e.lane.kind, e.lane.id) {
        (super::event::LaneKind::Http, n) => ("c", Some(n)),
        (super::event::LaneKind::Stdio, 0) => ("stdio", None),
        (super::event::LaneKind::Stderr, 0) => ("stderr", None),
        (super::event::LaneKind::Stdio, n) => ("stdio", Some(n)),
        (super::event::LaneKind::Stderr, n) => ("stderr", Some(n)),
    };
    buf.extend_from_slice(name.as_bytes());
    if let Some(n) = n {
        let _ = write!(buf, "{n}");
    }
    buf.extend_from_slice(b"\",\"dir\":\"");
    buf.extend_from_slice(e.dir.name().as_bytes());
    buf.push(b'"');
}

/// An event's line, written straight from the event for the common one (bytes that
/// are UTF-8): the same bytes [`event_json`] serializes to, without building it.
fn push_event(buf: &mut Vec<u8>, e: &Event) {
    let What::Bytes(b) = &e.what else {
        return push_value(buf, &event_json(e));
    };
    let Ok(text) = std::str::from_utf8(b) else {
        return push_value(buf, &event_json(e));
    };
    let start = buf.len();
    push_place(buf, e);
    buf.extend_from_slice(b",\"text\":");
    let _ = serde_json::to_writer(&mut *buf, text);
    buf.push(b'}');
    end_line(buf, start);
}

/// A fact's line, written straight for the common one (a message's, with no odd
/// framing): the same bytes [`fact_json`] serializes to, without building it.
fn push_fact(buf: &mut Vec<u8>, e: &Event, fact: &Fact) {
    let Fact::Payload {
        source, odd, class, ..
    } = fact
    else {
        return push_value(buf, &fact_json(e, fact));
    };
    if !odd.names().is_empty() {
        return push_value(buf, &fact_json(e, fact));
    }
    let start = buf.len();
    push_place(buf, e);
    buf.extend_from_slice(b",\"fact\":\"");
    buf.extend_from_slice(fact.name().as_bytes());
    buf.extend_from_slice(b"\",\"source\":\"");
    buf.extend_from_slice(match source {
        Source::Body => b"body".as_slice(),
        Source::SseData => b"sse-data",
        Source::Line => b"line",
    });
    buf.extend_from_slice(b"\",\"shape\":");
    let _ = serde_json::to_writer(&mut *buf, class.shape);
    if let Some(method) = &class.method {
        buf.extend_from_slice(b",\"method\":");
        let _ = serde_json::to_writer(&mut *buf, method);
    }
    if let Some(id) = &class.id {
        buf.extend_from_slice(b",\"id\":");
        let _ = serde_json::to_writer(&mut *buf, id);
    }
    if let Some(code) = class.code {
        let _ = write!(buf, ",\"code\":{code}");
    }
    if let Some(era) = class.era {
        buf.extend_from_slice(b",\"era\":");
        let _ = serde_json::to_writer(&mut *buf, era);
    }
    if let Some(problem) = &class.problem {
        buf.extend_from_slice(b",\"problem\":");
        let _ = serde_json::to_writer(&mut *buf, problem);
    }
    buf.push(b'}');
    end_line(buf, start);
}

impl<W: Write + Send> Sink for Writer<W> {
    fn event(&mut self, event: &Event) {
        push_event(&mut self.buf, event);
        self.last = (event.t, event.lane, event.dir);
        for fact in self.decoder.feed(event) {
            push_fact(&mut self.buf, event, &fact);
        }
        if !self.deferred || self.buf.len() >= DEFER_BYTES {
            self.write_out();
        }
    }

    fn flush(&mut self) {
        self.write_out();
    }

    fn dropped(&mut self, lost: Dropped) {
        // Where the gap is: a fact line (readers derive facts again and skip this
        // one), at the time of the last event written before it.
        let (t, lane, dir) = self.last;
        let line = json!({
            "t": t.as_micros() as f64 / 1e6,
            "lane": lane.label(),
            "dir": dir.name(),
            "fact": "dropped",
            "events": lost.events,
            "bytes": lost.bytes,
        });
        push_value(&mut self.buf, &line);
    }
}

impl<W: Write + Send> Drop for Writer<W> {
    fn drop(&mut self) {
        self.write_out();
    }
}

/// A sink writing a new transcript file at `path` (`--record FILE`).
pub fn create(
    path: &std::path::Path,
    header: &Header,
    max: usize,
) -> std::io::Result<Box<dyn Sink>> {
    let file = create_private(path)?;
    Ok(Box::new(Writer::new(file, header, max)?))
}

/// Opens `path` to write a recording (`--record`, `show --html`): a new file is made
/// `0600`, and an existing one is emptied and made `0600` too, since a recording
/// holds what crossed (tokens when `--show-secrets`, a session's data always). A
/// symbolic link is refused, not followed (`O_NOFOLLOW`): a link planted where a
/// recording goes would otherwise aim it at any file the user can write.
pub fn create_private(path: &std::path::Path) -> std::io::Result<std::fs::File> {
    let is_link = |p: &std::path::Path| std::fs::symlink_metadata(p).is_ok_and(|m| m.is_symlink());
    let refused = || {
        std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "it is a symbolic link: a recording is never written through one (give the file's own path)",
        )
    };
    // Looked at first for the clear error everywhere; `O_NOFOLLOW` then closes the
    // window between the look and the open where the platform has it.
    if is_link(path) {
        return Err(refused());
    }
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600).custom_flags(O_NOFOLLOW);
    }
    let file = options
        .open(path)
        .map_err(|e| if is_link(path) { refused() } else { e })?;
    #[cfg(unix)]
    if file.metadata()?.is_file() {
        use std::os::unix::fs::PermissionsExt;
        file.set_permissions(std::fs::Permissions::from_mode(0o600))?;
    }
    Ok(file)
}

/// `O_NOFOLLOW`: libc's where the crate links it (Linux with glibc).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const O_NOFOLLOW: i32 = libc::O_NOFOLLOW;
/// `O_NOFOLLOW` on other Unix systems, where libc is not a dependency: the kernel's
/// value (Linux by architecture; 0x100 on macOS and the BSDs), or no flag where it is
/// not known here (the look before the open still refuses a link).
#[cfg(all(unix, not(all(target_os = "linux", target_env = "gnu"))))]
const O_NOFOLLOW: i32 = if cfg!(any(target_os = "linux", target_os = "android")) {
    if cfg!(any(
        target_arch = "aarch64",
        target_arch = "arm",
        target_arch = "powerpc",
        target_arch = "powerpc64"
    )) {
        0o100000
    } else if cfg!(any(
        target_arch = "x86",
        target_arch = "x86_64",
        target_arch = "riscv64",
        target_arch = "loongarch64",
        target_arch = "s390x"
    )) {
        0o400000
    } else {
        0
    }
} else if cfg!(any(
    target_os = "macos",
    target_os = "ios",
    target_os = "freebsd",
    target_os = "openbsd",
    target_os = "netbsd",
    target_os = "dragonfly"
)) {
    0x0100
} else {
    0
};

#[cfg(test)]
mod tests {
    use super::*;

    /// The event line written straight from the event is, byte for byte, the line
    /// serde_json makes of [`event_json`] (escapes, DEL and C1, lanes, times).
    #[test]
    fn the_direct_event_line_is_the_value_line() {
        use crate::event::LaneKind;
        let texts: [&[u8]; 6] = [
            b"{\"jsonrpc\":\"2.0\",\"id\":1}\n",
            b"tab\there \"quoted\" back\\slash \x01 \x1f",
            "del \u{7f} c1 \u{85} \u{9f} é ✓ 😀".as_bytes(),
            b"",
            b"\xff\xfe not utf-8",
            b"POST /mcp HTTP/1.1\r\nhost: x\r\n\r\n",
        ];
        let lanes = [
            (LaneKind::Stdio, 0),
            (LaneKind::Stderr, 0),
            (LaneKind::Stdio, 3),
            (LaneKind::Stderr, 12),
            (LaneKind::Http, 1),
            (LaneKind::Http, 40_000),
        ];
        let times = [0, 1, 999, 1_000_000, 123_456_789, 86_400_000_001];
        for (i, text) in texts.iter().enumerate() {
            for (j, (kind, id)) in lanes.iter().enumerate() {
                let e = Event {
                    t: Duration::from_micros(times[(i + j) % times.len()]),
                    lane: Lane {
                        id: *id,
                        kind: *kind,
                    },
                    dir: if j % 2 == 0 {
                        Dir::ToServer
                    } else {
                        Dir::ToClient
                    },
                    what: What::Bytes(bytes::Bytes::copy_from_slice(text)),
                };
                let (mut direct, mut by_value) = (Vec::new(), Vec::new());
                push_event(&mut direct, &e);
                push_value(&mut by_value, &event_json(&e));
                assert_eq!(
                    String::from_utf8_lossy(&direct),
                    String::from_utf8_lossy(&by_value)
                );
                assert_eq!(direct, by_value);
            }
        }
    }

    /// A fact's line written straight is, byte for byte, the line serde_json makes of
    /// [`fact_json`]: every fact an HTTP exchange, an SSE stream and stdio lines of
    /// each shape (and broken ones) give.
    #[test]
    fn the_direct_fact_line_is_the_value_line() {
        use crate::event::LaneKind;
        let http = Lane {
            id: 2,
            kind: LaneKind::Http,
        };
        let stdio = Lane {
            id: 0,
            kind: LaneKind::Stdio,
        };
        let body = r#"{"jsonrpc":"2.0","id":"a\"b","method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#;
        let sse = "data: {\"jsonrpc\":\"2.0\",\"id\":7,\"error\":{\"code\":-32602,\"message\":\"no\"}}\n\n: ping\n\n";
        let traffic: Vec<(Lane, Dir, String)> = vec![
            (
                http,
                Dir::ToServer,
                format!(
                    "POST /mcp HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
                    body.len()
                ),
            ),
            (
                http,
                Dir::ToClient,
                format!(
                    "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n{:x}\r\n{sse}\r\n0\r\n\r\n",
                    sse.len()
                ),
            ),
            (
                stdio,
                Dir::ToServer,
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{}}\n".into(),
            ),
            (
                stdio,
                Dir::ToClient,
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"x\":\"\u{85}\u{7f}\"}}\n".into(),
            ),
            (
                stdio,
                Dir::ToServer,
                "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\r\n".into(),
            ),
            (
                stdio,
                Dir::ToServer,
                "not json at all\n[1,2]\n\n{\"jsonrpc\":\"1.0\"}\n".into(),
            ),
            (
                stdio,
                Dir::ToClient,
                "[{\"jsonrpc\":\"2.0\",\"id\":null,\"result\":{}}]\n".into(),
            ),
        ];
        let mut decoder = Decoder::with_max(1 << 20);
        let mut facts = 0;
        for (n, (lane, dir, text)) in traffic.into_iter().enumerate() {
            let e = Event {
                t: Duration::from_micros(1000 * n as u64 + 7),
                lane,
                dir,
                what: What::Bytes(text.into()),
            };
            for fact in decoder.feed(&e) {
                let (mut direct, mut by_value) = (Vec::new(), Vec::new());
                push_fact(&mut direct, &e, &fact);
                push_value(&mut by_value, &fact_json(&e, &fact));
                assert_eq!(
                    String::from_utf8_lossy(&direct),
                    String::from_utf8_lossy(&by_value)
                );
                facts += 1;
            }
        }
        assert!(facts >= 12, "{facts} facts");
    }
}
