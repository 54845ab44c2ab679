//! Every bound the HTTP server puts on a peer, with its default, in one place. Each
//! has a `serve` flag (named in its doc line) and a line in the limits table (the
//! book's docs/en/src/operate/limits.md, linked from the README): a slow, stuck or abusive client runs into one of these, gets a clear
//! answer where HTTP has one, and the server goes on serving everyone else.

use std::time::Duration;

/// The limits of one HTTP server.
#[derive(Debug, Clone)]
pub struct Limits {
    /// Largest POST body in bytes; larger gets `413` (`--max-body-bytes`).
    pub max_body: usize,
    /// How long a request head (request line and headers) may take to arrive once it
    /// has started, and how long a new connection may wait before sending its first
    /// byte; then the connection is closed (`--header-timeout`).
    pub header_timeout: Duration,
    /// How long a keep-alive connection may sit between requests with nothing in
    /// flight; then it is closed (`--idle-timeout`).
    pub idle_timeout: Duration,
    /// How long a response write may wait on a client that reads nothing (its socket
    /// buffers full); then the connection is closed (`--write-timeout`).
    pub write_timeout: Duration,
    /// Largest request head (request line and headers) in bytes; larger gets `431`
    /// and the connection is closed (`--max-header-bytes`).
    pub max_header_bytes: usize,
    /// Most header fields in one request; more gets `431` (`--max-headers`).
    pub max_headers: usize,
    /// How long a POST body may take to arrive in full; then `408` (`--body-timeout`).
    pub body_timeout: Duration,
    /// How long a legacy session may stay without `notifications/initialized`; then
    /// it ends and its id gets `404` (`--init-timeout`).
    pub init_timeout: Duration,
    /// How long an initialized legacy session may go unused; then it ends
    /// (`--session-timeout`).
    pub session_timeout: Duration,
    /// Most legacy sessions alive at once; `initialize` beyond gets `503`
    /// (`--max-sessions`).
    pub max_sessions: usize,
    /// Connections the kernel may hold completed but not yet accepted (`--backlog`).
    pub backlog: u32,
    /// Most connections open at once; one more is answered `503` and closed
    /// (`--max-connections`).
    pub max_connections: usize,
    /// After the server closes a connection the client was still sending on (an
    /// early `413`, say), how long it keeps reading and discarding so the client
    /// sees the response instead of a reset (`--linger-timeout`).
    pub linger_timeout: Duration,
    /// ... and how many bytes it discards at most (`--linger-bytes`).
    pub linger_bytes: u64,
    /// Events a legacy request's stream keeps for a client that resumes with
    /// `Last-Event-ID`; older ones cannot be replayed (`--resume-events`).
    pub resume_events: usize,
    /// Finished streams a legacy session keeps for late resumers (`--resume-streams`).
    pub resume_streams: usize,
}

/// hyper's own default header count, kept on the stack; another value costs a heap
/// allocation per request, so it is set only when asked for.
pub const DEFAULT_MAX_HEADERS: usize = 100;

/// The connection limit when none is given: half the process's open-file limit
/// (`ulimit -n`, read at start), at most 10,000. The other half is headroom for
/// lingering closes, files and the listener, so the server never reaches `EMFILE`
/// through its own clients.
pub fn default_max_connections() -> usize {
    open_file_limit().map_or(512, |n| (n / 2).clamp(16, 10_000) as usize)
}

/// The soft `RLIMIT_NOFILE`, read from `/proc/self/limits` (Linux); `None` elsewhere.
fn open_file_limit() -> Option<u64> {
    let limits = std::fs::read_to_string("/proc/self/limits").ok()?;
    let line = limits.lines().find(|l| l.starts_with("Max open files"))?;
    let soft = line.split_whitespace().nth(3)?;
    match soft {
        "unlimited" => Some(u64::MAX),
        n => n.parse().ok(),
    }
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_body: 4 * 1024 * 1024,
            max_header_bytes: 64 * 1024,
            max_headers: DEFAULT_MAX_HEADERS,
            header_timeout: Duration::from_secs(30),
            idle_timeout: Duration::from_secs(60),
            body_timeout: Duration::from_secs(60),
            write_timeout: Duration::from_secs(60),
            init_timeout: Duration::from_secs(60),
            session_timeout: Duration::from_secs(60 * 60),
            max_sessions: 10_000,
            backlog: 1024,
            max_connections: default_max_connections(),
            linger_timeout: Duration::from_secs(5),
            linger_bytes: 64 * 1024 * 1024,
            resume_events: 1024,
            resume_streams: 16,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_connection_limit_is_below_the_open_file_limit() {
        let max = default_max_connections();
        if let Some(fds) = open_file_limit() {
            assert!((max as u64) < fds, "{max} connections, {fds} fds");
        }
        assert!(max >= 16);
    }
}
