//! Where the libraries' reports go: the crates below never print; they report through
//! the `log` facade (a refused TLS handshake, a lapsed task lease, a bridge child's
//! stderr, the Redis trace), and the binary writes each record to stderr as the one
//! line it says, `[mcp-raw] …`, with nothing added: what a user of `serve`, `bridge`
//! or `tap` reads on stderr is what it was when the libraries printed it themselves.

use std::io::Write;

/// The binary's logger: every record, every level, one line on stderr.
struct Stderr;

impl log::Log for Stderr {
    fn enabled(&self, _: &log::Metadata) -> bool {
        true
    }

    fn log(&self, record: &log::Record) {
        // One write of the whole line under the lock, as `eprintln!` does; a stderr
        // nobody reads any more is not a reason to stop serving.
        let line = format!("{}\n", record.args());
        let _ = std::io::stderr().lock().write_all(line.as_bytes());
    }

    fn flush(&self) {
        let _ = std::io::stderr().flush();
    }
}

static STDERR: Stderr = Stderr;

/// Installs the logger once, at start; every level passes (the libraries choose what
/// to report, the flags that turn reports on are theirs: `--store-trace`, `bridge`'s
/// child echo).
pub fn install() {
    if log::set_logger(&STDERR).is_ok() {
        log::set_max_level(log::LevelFilter::Trace);
    }
}
