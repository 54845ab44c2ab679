//! A recording read as it is made: the same reader as [`super::ledger`], handing each
//! request back once answered, for the sinks that watch a running server, tap or
//! client (`--metrics`, `--otlp`) and keep nothing they have counted.

use super::ledger::{Call, HeadSeen, Note, Reader, ToolDef};
use crate::wire::decode::Fact;
use crate::wire::event::Event;

/// A recording read as it is made (a sink's view: `--metrics`, `--otlp`): each
/// request handed back once answered (or once its lane closed unanswered), with the
/// notifications, heads and tool lists of the event that completed it; nothing kept
/// beyond the requests still open and the lanes still open (a test holds a long run's
/// memory to that: `tests/stats.rs`).
pub struct Live {
    /// The reader, in live mode.
    reader: Reader,
    /// Requests kept open at most; past it a request is not followed
    /// ([`Live::untracked`]), so a peer that never answers cannot grow memory.
    max_open: usize,
}

/// What one event completed.
#[derive(Debug, Default)]
pub struct Fed {
    /// Requests answered (or given up: their lane closed), in the order answered.
    pub calls: Vec<Call>,
    /// Notifications read.
    pub notes: Vec<Note>,
    /// Heads with a session id or an `Authorization`.
    pub heads: Vec<HeadSeen>,
    /// Tools a `tools/list` result defined.
    pub tools: Vec<ToolDef>,
}

impl Live {
    /// A live reader: messages up to `max` bytes, at most `max_open` requests open.
    pub fn new(max: usize, max_open: usize) -> Live {
        Live {
            reader: Reader::new(max, true),
            max_open,
        }
    }

    /// Reads one event; `facts` sees each framing fact it held first (a head's status,
    /// an SSE event), for what a request's answer does not say.
    pub fn feed(&mut self, e: &Event, facts: &mut dyn FnMut(&Event, &Fact)) -> Fed {
        self.reader.max_open = self.max_open;
        self.reader.event(e, facts);
        let r = &mut self.reader;
        // A stdio server's log lines are not handed on: dropped, not kept.
        r.ledger.logs.clear();
        Fed {
            calls: r.finished.drain(..).map(|(_, c)| c).collect(),
            notes: std::mem::take(&mut r.ledger.notes),
            heads: std::mem::take(&mut r.ledger.heads),
            tools: std::mem::take(&mut r.ledger.tools),
        }
    }

    /// Requests open now (sent, not answered).
    pub fn open(&self) -> usize {
        self.reader.open.len()
    }

    /// Everything the reader holds between events: requests open, lanes open,
    /// names and log lines kept. Bounded by what is open, never by what went by.
    pub fn kept(&self) -> usize {
        let r = &self.reader;
        r.open.len() + r.lanes.len() + r.ledger.server_names.len() + r.ledger.logs.len()
    }

    /// Requests not followed because `max_open` were already open.
    pub fn untracked(&self) -> u64 {
        self.reader.untracked
    }
}
