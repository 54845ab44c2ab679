//! HAR (HTTP Archive 1.2) both ways: a recording's HTTP lanes exported as the HTTP
//! that crossed ([`export`]; [`stream`] reads them entry by entry, for a recording
//! read as a stream), and a HAR from a browser, mitmproxy or another tool imported
//! as a transcript ([`import`]) that every view reads. Values in and out; the binary
//! prints and writes files.

pub mod export;
pub mod import;
pub mod lane;
pub mod stream;

use mcp_raw_wire::event::Event;
use mcp_raw_wire::transcript::Header;

/// The largest HAR `import har` reads (`--max-har-bytes`): a bigger file is refused
/// before a byte of it is read.
pub const DEFAULT_MAX_HAR_BYTES: u64 = 256 << 20;

/// Where a HAR is malformed: the JSON path and what is wrong there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HarError {
    /// `$.log.entries[3].request.url`: where, as a JSON path.
    pub path: String,
    /// What is wrong there.
    pub why: String,
}

impl HarError {
    /// An error at `path`.
    pub fn new(path: impl Into<String>, why: impl Into<String>) -> HarError {
        HarError {
            path: path.into(),
            why: why.into(),
        }
    }
}

impl std::fmt::Display for HarError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.path, self.why)
    }
}

/// A HAR's bytes read as JSON, or where they are not (`$`, with the line and column).
pub fn parse(bytes: &[u8]) -> Result<serde_json::Value, HarError> {
    serde_json::from_slice(bytes).map_err(|e| HarError::new("$", format!("not JSON: {e}")))
}

/// An imported HAR as transcript text (JSON Lines, facts and all), as `--record`
/// writes one; `max` is the largest message its facts read whole.
pub fn transcript_text(header: &Header, events: &[Event], max: usize) -> Vec<u8> {
    let mut out = Vec::new();
    let mut decoder = mcp_raw_wire::decode::Decoder::with_max(max);
    let mut line = |v: &serde_json::Value| {
        let text = serde_json::to_vec(v).unwrap_or_default();
        out.extend_from_slice(&mcp_raw_wire::term::json_safe(&text));
        out.push(b'\n');
    };
    line(&header.to_json());
    for e in events {
        line(&mcp_raw_wire::transcript::event_json(e));
        for fact in decoder.feed(e) {
            line(&mcp_raw_wire::transcript::fact_json(e, &fact));
        }
    }
    out
}
