//! Where a program's own output goes: its stdout (the view, the report, the listing) and
//! its stderr (captions, `[mcp-raw] …` lines, what went wrong). The binary runs every
//! program on the process's two streams; a test runs the same command line in-process
//! on two buffers (`mcp_raw::run` with [`Console::captured`]) and compares what each
//! received, byte for byte, with the exit status `run` returns.
//!
//! What is not the console: a transport's bytes (`serve`'s stdio transport and the stdio
//! tap read and write the process's stdin and stdout themselves: the process is their
//! subject), and the libraries' reports through the `log` facade (`stderr_log.rs`: one
//! logger per process, always the process's stderr).

use mcp_raw_wire::lock::Locked;
use std::io::{IsTerminal, Write};
use std::sync::{Arc, Mutex};

/// A program's two output streams; cloned into whatever prints (a printer, a task).
#[derive(Clone)]
pub struct Console {
    /// What the program prints as its result: views, reports, listings.
    out: Stream,
    /// What it says about itself: captions, progress lines, errors.
    err: Stream,
}

/// One of the two streams.
#[derive(Clone)]
enum Stream {
    /// The process's stdout.
    Stdout,
    /// The process's stderr.
    Stderr,
    /// A buffer the caller reads when the program has returned (a test).
    Buffer(Arc<Mutex<Vec<u8>>>),
}

/// What a captured run printed, read once it has returned.
pub struct Captured {
    /// Its stdout.
    out: Arc<Mutex<Vec<u8>>>,
    /// Its stderr.
    err: Arc<Mutex<Vec<u8>>>,
}

impl Console {
    /// The process's stdout and stderr: the binary's console.
    pub fn process() -> Console {
        Console {
            out: Stream::Stdout,
            err: Stream::Stderr,
        }
    }

    /// Two buffers, and the handle that reads them afterwards.
    pub fn captured() -> (Console, Captured) {
        let out = Arc::new(Mutex::new(Vec::new()));
        let err = Arc::new(Mutex::new(Vec::new()));
        let console = Console {
            out: Stream::Buffer(out.clone()),
            err: Stream::Buffer(err.clone()),
        };
        (console, Captured { out, err })
    }

    /// A writer onto stdout.
    pub fn out(&self) -> Writer {
        Writer(self.out.clone())
    }

    /// A writer onto stderr.
    pub fn err(&self) -> Writer {
        Writer(self.err.clone())
    }

    /// Whether this is the process's console (what clap prints itself, in its colours,
    /// goes there and nowhere else).
    pub fn is_process(&self) -> bool {
        matches!((&self.out, &self.err), (Stream::Stdout, Stream::Stderr))
    }

    /// Whether stdout is a terminal (`--color auto`, the client's prompts); a buffer
    /// never is.
    pub fn out_is_terminal(&self) -> bool {
        matches!(self.out, Stream::Stdout) && std::io::stdout().is_terminal()
    }

    /// Whether stderr is a terminal (`--trace`'s colour, serve's banner).
    pub fn err_is_terminal(&self) -> bool {
        matches!(self.err, Stream::Stderr) && std::io::stderr().is_terminal()
    }

    /// Prints `text` on stdout in one write; a stdout nobody reads any more (a closed
    /// pipe) is not an error of the program's.
    pub fn print(&self, text: impl AsRef<[u8]>) {
        let _ = self.out().write_all(text.as_ref());
    }

    /// Prints `line` and a newline on stderr in one write, as `eprintln!` does.
    pub fn say(&self, line: impl std::fmt::Display) {
        let _ = self.err().write_all(format!("{line}\n").as_bytes());
    }
}

impl Captured {
    /// Everything printed on stdout so far.
    pub fn out(&self) -> Vec<u8> {
        self.out.locked().clone()
    }

    /// Everything printed on stderr so far.
    pub fn err(&self) -> Vec<u8> {
        self.err.locked().clone()
    }
}

/// A [`Console`] stream as a `Write` (`Send + 'static`: printers and tasks own one).
pub struct Writer(Stream);

impl Write for Writer {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match &self.0 {
            Stream::Stdout => std::io::stdout().write(buf),
            Stream::Stderr => std::io::stderr().write(buf),
            Stream::Buffer(b) => {
                b.locked().extend_from_slice(buf);
                Ok(buf.len())
            }
        }
    }

    /// One write under the stream's lock, so lines from two threads never interleave.
    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        match &self.0 {
            Stream::Stdout => std::io::stdout().lock().write_all(buf),
            Stream::Stderr => std::io::stderr().lock().write_all(buf),
            Stream::Buffer(b) => {
                b.locked().extend_from_slice(buf);
                Ok(())
            }
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match &self.0 {
            Stream::Stdout => std::io::stdout().flush(),
            Stream::Stderr => std::io::stderr().flush(),
            Stream::Buffer(_) => Ok(()),
        }
    }
}
