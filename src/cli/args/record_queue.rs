//! `--record-buffer N` and `--lossy-record`: how a recording's writer, on a thread of
//! its own (`wire::behind`), meets a disk that falls behind. Flattened into every
//! program that records (`serve`, `tap`, `bridge`, `auth-server`, the client's view).

use mcp_raw_wire::behind::{DEFAULT_BUFFER, Policy};

// The recording's queue (no group of its own: it is flattened).
#[derive(clap::Args, Debug, Clone)]
pub struct RecordQueue {
    /// With --record (or --record-dir): the most bytes of events waiting for the
    /// recording's writer, a thread of its own; when the disk falls behind and they
    /// are full, the wire waits for it (the recording stays complete), or, with
    /// --lossy-record, events are dropped.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_BUFFER)]
    pub record_buffer: usize,
    /// With --record (or --record-dir): when the writer is --record-buffer bytes
    /// behind, drop events instead of making the wire wait: counted, said on stderr
    /// at the end, and each gap marked in the file by a `dropped` fact line.
    #[arg(long)]
    pub lossy_record: bool,
}

impl RecordQueue {
    /// The queue these flags ask for.
    pub fn policy(&self) -> Policy {
        Policy {
            max_bytes: self.record_buffer.max(1),
            lossy: self.lossy_record,
        }
    }
}
