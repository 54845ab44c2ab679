//! The one recording layer: every lane's reads and writes are handed to a
//! [`Recorder`], which stamps them with a time offset and passes them, in order, to
//! its sinks (a transcript file, the text view on a terminal, a test's buffer).

use super::event::{Dir, Event, Lane, LaneKind, What};
use crate::lock::Locked;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// Where events go. A sink sees every event of its recorder, one at a time, in the
/// order of their time offsets.
pub trait Sink: Send {
    /// Takes one event, in order.
    fn event(&mut self, event: &Event);

    /// Writes out what it holds: called by a sink's own thread ([`super::behind`])
    /// when no more events wait. A sink fed on the wire's path writes as it goes.
    fn flush(&mut self) {}

    /// Events were let go before this sink saw them (`--lossy-record`, the disk
    /// behind): said where the gap is, before the next event.
    fn dropped(&mut self, _lost: Dropped) {}
}

/// What a lossy queue let go ([`super::behind`]): said in the recording where the gap
/// is, and by the program at its end.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Dropped {
    /// Events dropped.
    pub events: u64,
    /// Their bytes.
    pub bytes: u64,
}

/// A cheap handle (clone it freely) to one recording.
#[derive(Clone)]
pub struct Recorder(Arc<Shared>);

struct Shared {
    /// Time zero of the recording.
    start: Instant,
    /// The next connection's number.
    next_lane: AtomicU32,
    /// The next child process's number (a bridge spawns many: each gets its own
    /// `stdioN` and `stderrN` lanes).
    next_child: AtomicU32,
    /// Every sink; the lock also orders the events, so offsets never go backwards.
    sinks: Mutex<Vec<Box<dyn Sink>>>,
    /// No sinks at all: recording is skipped (no lock, no copy).
    idle: bool,
    /// Mask secrets on HTTP lanes before the sinks see them ([`super::redact`]): the
    /// client's default, off with `--show-secrets`.
    redact: std::sync::atomic::AtomicBool,
    /// Headers masked whole besides the known ones (`--redact-header NAME`, lower
    /// case): a deployment's own API-key header that no list can guess.
    more_headers: std::sync::OnceLock<Vec<Vec<u8>>>,
}

impl std::fmt::Debug for Recorder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Recorder")
    }
}

impl Recorder {
    /// A recorder feeding `sinks`.
    pub fn new(sinks: Vec<Box<dyn Sink>>) -> Recorder {
        Recorder(Arc::new(Shared {
            start: Instant::now(),
            next_lane: AtomicU32::new(1),
            next_child: AtomicU32::new(1),
            idle: sinks.is_empty(),
            sinks: Mutex::new(sinks),
            redact: std::sync::atomic::AtomicBool::new(false),
            more_headers: std::sync::OnceLock::new(),
        }))
    }

    /// Masks secrets (tokens, client secrets, codes) on HTTP lanes from now on, or
    /// stops masking them.
    pub fn set_redaction(&self, on: bool) {
        self.0.redact.store(on, Ordering::Relaxed);
    }

    /// Also masks the values of these headers (any case) whenever masking is on;
    /// the first call's names stay.
    pub fn redact_headers(&self, names: &[String]) {
        if !names.is_empty() {
            let names = names
                .iter()
                .map(|n| n.trim().to_ascii_lowercase().into_bytes());
            let _ = self.0.more_headers.set(names.collect());
        }
    }

    /// The bytes a sink may see: masked when redacting an HTTP lane.
    fn shown(&self, lane: Lane, bytes: bytes::Bytes) -> bytes::Bytes {
        if lane.kind != LaneKind::Http || !self.0.redact.load(Ordering::Relaxed) {
            return bytes;
        }
        let more = self.0.more_headers.get().map_or(&[][..], |v| v.as_slice());
        match super::redact::mask_with(&bytes, more) {
            Some(masked) => bytes::Bytes::from(masked),
            None => bytes,
        }
    }

    /// A recorder that records nothing (a quiet client).
    pub fn none() -> Recorder {
        Recorder::new(Vec::new())
    }

    /// A new lane of this kind: connections are numbered `c1`, `c2`…; a process has
    /// one `stdio` and one `stderr` lane.
    pub fn lane(&self, kind: LaneKind) -> Lane {
        let id = match kind {
            LaneKind::Http => self.0.next_lane.fetch_add(1, Ordering::Relaxed),
            LaneKind::Stdio | LaneKind::Stderr => 0,
        };
        Lane { id, kind }
    }

    /// The two lanes of one more child process, numbered from 1: its stdin and stdout
    /// (`stdioN`), its stderr (`stderrN`).
    pub fn child_lanes(&self) -> (Lane, Lane) {
        let id = self.0.next_child.fetch_add(1, Ordering::Relaxed);
        (
            Lane {
                id,
                kind: LaneKind::Stdio,
            },
            Lane {
                id,
                kind: LaneKind::Stderr,
            },
        )
    }

    /// Records one event now.
    pub fn emit(&self, lane: Lane, dir: Dir, what: What) {
        if self.0.idle {
            return;
        }
        // A sink that panicked leaves the list as it was: recording goes on.
        let what = match what {
            What::Bytes(b) => What::Bytes(self.shown(lane, b)),
            other => other,
        };
        let mut sinks = self.0.sinks.locked();
        let event = Event {
            t: self.0.start.elapsed(),
            lane,
            dir,
            what,
        };
        for sink in sinks.iter_mut() {
            sink.event(&event);
        }
    }

    /// Runs a write with the recording held, then records what it wrote: the peer's
    /// answer, read on another thread, cannot be recorded before the bytes it
    /// answers. `write` returns its result and the bytes it got out, if any.
    pub fn write<R>(
        &self,
        lane: Lane,
        dir: Dir,
        write: impl FnOnce() -> (R, Option<bytes::Bytes>),
    ) -> R {
        if self.0.idle {
            return write().0;
        }
        let mut sinks = self.0.sinks.locked();
        let (result, written) = write();
        if let Some(bytes) = written.filter(|b| !b.is_empty()) {
            let event = Event {
                t: self.0.start.elapsed(),
                lane,
                dir,
                what: What::Bytes(self.shown(lane, bytes)),
            };
            for sink in sinks.iter_mut() {
                sink.event(&event);
            }
        }
        result
    }

    /// Records bytes that crossed (nothing for an empty read or write).
    pub fn bytes(&self, lane: Lane, dir: Dir, bytes: &[u8]) {
        if !bytes.is_empty() && !self.0.idle {
            self.emit(lane, dir, What::Bytes(bytes::Bytes::copy_from_slice(bytes)));
        }
    }
}

/// A sink that keeps every event, for tests and for programs that render later.
#[derive(Clone, Default)]
pub struct Memory(pub Arc<Mutex<Vec<Event>>>);

impl Memory {
    /// Every event so far.
    pub fn events(&self) -> Vec<Event> {
        self.0.locked().clone()
    }

    /// The bytes of one lane's direction, concatenated: what crossed, in order.
    pub fn bytes(&self, lane: Lane, dir: Dir) -> Vec<u8> {
        concat(&self.events(), |e| e.lane == lane && e.dir == dir)
    }
}

impl Sink for Memory {
    fn event(&mut self, event: &Event) {
        self.0.locked().push(event.clone());
    }
}

/// The bytes of the events `keep` selects, concatenated in order.
pub fn concat(events: &[Event], keep: impl Fn(&Event) -> bool) -> Vec<u8> {
    let mut out = Vec::new();
    for e in events.iter().filter(|e| keep(e)) {
        if let What::Bytes(b) = &e.what {
            out.extend_from_slice(b);
        }
    }
    out
}
