//! A wire event: one read or one write of bytes, as it happened. Everything mcp-raw
//! shows — the server's `--trace`, the client's view, a `--record` transcript, the
//! tests' assertions — is a rendering of these, never of parsed data.

use bytes::Bytes;
use std::time::Duration;

/// Which way bytes travelled, named by role so that the server's trace, the client's
/// view and a tap agree: `>>>` is always what the client sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Dir {
    /// Client → server: a request, the client's stdin writes.
    ToServer,
    /// Server → client: a response, the server's stdout (or stderr) writes.
    ToClient,
}

impl Dir {
    /// The text view's arrow.
    pub fn arrow(self) -> &'static str {
        match self {
            Dir::ToServer => ">>>",
            Dir::ToClient => "<<<",
        }
    }

    /// The transcript's name for it.
    pub fn name(self) -> &'static str {
        match self {
            Dir::ToServer => "c2s",
            Dir::ToClient => "s2c",
        }
    }

    /// `c2s` → to the server, `s2c` → to the client (the transcript's names).
    pub fn from_name(name: &str) -> Option<Dir> {
        match name {
            "c2s" => Some(Dir::ToServer),
            "s2c" => Some(Dir::ToClient),
            _ => None,
        }
    }
}

/// What kind of path a lane is: it decides how its bytes are framed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LaneKind {
    /// One TCP connection carrying HTTP/1.1 (requests one after another).
    Http,
    /// A stdio server's stdin and stdout: one JSON-RPC message per line.
    Stdio,
    /// A stdio server's stderr: its log, never protocol.
    Stderr,
}

/// One path bytes travel on. On HTTP every connection is its own lane, so concurrent
/// requests (each on its own connection, HTTP/1.1 has no multiplexing) are told apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Lane {
    /// Numbered from 1 in the order lanes opened, per recorder.
    pub id: u32,
    /// How its bytes are framed.
    pub kind: LaneKind,
}

impl Lane {
    /// `c1`, `c2`… for connections; `stdio` and `stderr` for a process's pipes, and
    /// `stdio1`, `stderr1`… for the pipes of the children a bridge spawns, numbered.
    pub fn label(&self) -> String {
        match (self.kind, self.id) {
            (LaneKind::Http, n) => format!("c{n}"),
            (LaneKind::Stdio, 0) => "stdio".to_owned(),
            (LaneKind::Stderr, 0) => "stderr".to_owned(),
            (LaneKind::Stdio, n) => format!("stdio{n}"),
            (LaneKind::Stderr, n) => format!("stderr{n}"),
        }
    }

    /// The inverse of [`Lane::label`].
    pub fn from_label(label: &str) -> Option<Lane> {
        match label {
            "stdio" => Some(Lane {
                id: 0,
                kind: LaneKind::Stdio,
            }),
            "stderr" => Some(Lane {
                id: 0,
                kind: LaneKind::Stderr,
            }),
            _ => {
                let (kind, number) = if let Some(n) = label.strip_prefix("stdio") {
                    (LaneKind::Stdio, n)
                } else if let Some(n) = label.strip_prefix("stderr") {
                    (LaneKind::Stderr, n)
                } else {
                    (LaneKind::Http, label.strip_prefix('c')?)
                };
                // A leading zero or sign would give one lane two labels.
                if number.starts_with(['0', '+']) {
                    return None;
                }
                Some(Lane {
                    id: number.parse().ok()?,
                    kind,
                })
            }
        }
    }
}

/// What happened on a lane.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum What {
    /// The lane opened: a connection accepted or made (the peer's address), a process
    /// spawned (its command line).
    Open(String),
    /// Bytes that crossed, exactly as one read returned them or one write took them.
    Bytes(Bytes),
    /// The lane's direction closed: EOF, a reset, a timeout (why, in words).
    Close(String),
    /// A TLS handshake ended on this lane (its bytes above are the plaintext inside):
    /// what was negotiated and the peer's certificates. Boxed: it is rare and big.
    Tls(Box<super::tls::TlsFacts>),
    /// A tap held a message in flight (`tap --intercept`), or said what became of one
    /// it held; or it wrote the page's resend, or kept the answer to one from the
    /// client: not bytes that crossed (those follow as their own event when the
    /// message is passed on), a mark on the lane where they would have. Boxed: rare.
    Intercept(Box<Intercepted>),
}

/// One step of a message a tap held (`tap --intercept`), or of a message the page
/// had the tap send (a resend on a stdio tap): the tap's own doings on the wire.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Intercepted {
    /// Which held message or resend: numbered from 1 per tap (holds and resends
    /// share the count, so a number names one of them), the same on each of its
    /// steps.
    pub hold: u64,
    /// What happened to it.
    pub step: HoldStep,
    /// `Held`: the message as it arrived; `Changed`: as the person edited it (the
    /// two versions); `Resent`: the line the tap wrote to the server; `Answered`:
    /// the server's answer, which never crossed to the client; empty for the
    /// other steps.
    pub bytes: Bytes,
}

impl Intercepted {
    /// One line: `held #1 (waiting: forward, edit or drop): {"jsonrpc":…}`.
    pub fn summary(&self) -> String {
        let text = String::from_utf8_lossy(&self.bytes);
        let text = text.trim_end();
        match self.step {
            HoldStep::Held => format!(
                "held #{} (tap --intercept; waiting: forward, edit or drop): {text}",
                self.hold
            ),
            HoldStep::Forwarded => format!("held #{}: forwarded as it arrived", self.hold),
            HoldStep::Changed => format!("held #{}: forwarded as edited: {text}", self.hold),
            HoldStep::Dropped => format!("held #{}: dropped (never passed on)", self.hold),
            HoldStep::Expired => format!(
                "held #{}: no decision before the deadline (--intercept-timeout): forwarded as it arrived",
                self.hold
            ),
            HoldStep::Resent => format!(
                "resend #{} from the page (the client never sent it), written to the server: {text}",
                self.hold
            ),
            HoldStep::Answered => format!(
                "resend #{}: the server's answer, kept from the client (which never asked): {text}",
                self.hold
            ),
        }
    }
}

/// What a tap did with a message it held.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HoldStep {
    /// It matched the filter and waits for a decision; nothing of it crossed yet.
    Held,
    /// Passed on as it arrived (its bytes follow).
    Forwarded,
    /// Passed on as edited (its new bytes follow; `bytes` holds them too).
    Changed,
    /// Not passed on: the peer never sees it.
    Dropped,
    /// No decision before the deadline (`--intercept-timeout`): passed on unchanged.
    Expired,
    /// Not the client's: the page's resend, written to the server between the
    /// client's lines (its bytes follow on the lane, as the server got them).
    Resent,
    /// The server's answer to a resend (the same id): recorded here, never passed
    /// to the client, which never asked (so not among the lane's bytes).
    Answered,
}

impl HoldStep {
    /// The transcript's name for it.
    pub fn name(self) -> &'static str {
        match self {
            HoldStep::Held => "held",
            HoldStep::Forwarded => "forwarded",
            HoldStep::Changed => "changed",
            HoldStep::Dropped => "dropped",
            HoldStep::Expired => "expired",
            HoldStep::Resent => "resent",
            HoldStep::Answered => "answered",
        }
    }

    /// The step a transcript names.
    pub fn from_name(name: &str) -> Option<HoldStep> {
        [
            HoldStep::Held,
            HoldStep::Forwarded,
            HoldStep::Changed,
            HoldStep::Dropped,
            HoldStep::Expired,
            HoldStep::Resent,
            HoldStep::Answered,
        ]
        .into_iter()
        .find(|s| s.name() == name)
    }
}

/// One wire event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Event {
    /// Since the recorder started: events of one recorder are in this order.
    pub t: Duration,
    /// Which path.
    pub lane: Lane,
    /// Which way.
    pub dir: Dir,
    /// What crossed.
    pub what: What,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_label_reads_back_as_its_lane() {
        for (id, kind) in [
            (3, LaneKind::Http),
            (0, LaneKind::Stdio),
            (0, LaneKind::Stderr),
            (2, LaneKind::Stdio),
            (12, LaneKind::Stderr),
        ] {
            let lane = Lane { id, kind };
            assert_eq!(
                Lane::from_label(&lane.label()),
                Some(lane),
                "{}",
                lane.label()
            );
        }
        assert_eq!(Lane::from_label("stdio02"), None);
        assert_eq!(Lane::from_label("c+1"), None);
        assert_eq!(Lane::from_label("x1"), None);
    }
}
