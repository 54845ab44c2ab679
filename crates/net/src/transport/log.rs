//! The stdio server's stderr log. The loop gathers the lines about the messages one
//! read brought in and hands them over in one move (`flush`). Where they go then
//! depends on who reads stderr:
//!
//! - **Someone reading live** (stderr is a pipe, a socket or a terminal: a host that
//!   shows the server's log, `mcp-raw demo`, a shell): each hand-over is written at
//!   once, so a log line shows up next to the message it is about.
//! - **A file, or nobody** (a regular file, `/dev/null`): a writer thread writes what
//!   was handed over at most every [`PERIOD`] (sooner past [`HURRY_AT`]). A sequential
//!   client then costs the loop no `write(2)` to stderr per message (one-core
//!   benchmark, stderr on `/dev/null`: ~0.1 µs of a ~3 µs round trip).
//!
//! With the writer, a log nobody reads must not stall the answers: past
//! `max_pending` bytes waiting, lines are counted instead of kept, and the count is
//! logged when stderr moves again.

use crate::lock::Locked;
use std::io::{self, Write};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::Duration;

/// How long handed-over lines may wait before the writer writes them.
pub const PERIOD: Duration = Duration::from_millis(20);

/// The most bytes of log waiting to be written by default (`serve
/// --max-log-backlog`); lines past it are dropped, counted.
pub const MAX_PENDING: usize = 1024 * 1024;

/// Bytes waiting at which the loop wakes the writer before [`PERIOD`] is up (one
/// wake-up per this much log: a busy server's batches stay small, and so does the
/// memory they take).
pub const HURRY_AT: usize = 16 * 1024;

/// The log: lines of the batch being handled, and the writer they go to.
pub struct Log<W: Write + Send + 'static> {
    /// Lines of the batch being handled, handed over at the next `flush`.
    local: Vec<u8>,
    /// What the loop and the writer thread share.
    shared: Arc<Shared>,
    /// stderr, until the writer thread starts and takes it.
    sink: Option<W>,
    /// The writer thread, once started.
    writer: Option<JoinHandle<()>>,
    /// The most bytes waiting for the writer ([`MAX_PENDING`] by default).
    max_pending: usize,
    /// Hand-overs so far: the first ones are written at once (see `flush`).
    handed: u32,
    /// stderr is read live (a pipe, a socket, a terminal): every hand-over is
    /// written at once, and no writer thread starts.
    live: bool,
}

/// The hand-over point between the loop and the writer.
struct Shared {
    state: Mutex<State>,
    /// Wakes the writer: when lines come after it went idle, and at close.
    wake: Condvar,
}

#[derive(Default)]
struct State {
    /// Bytes handed over, not yet written.
    pending: Vec<u8>,
    /// Lines dropped since the last write, because `pending` was full.
    dropped: usize,
    /// The writer found nothing to write and sleeps until woken.
    idle: bool,
    /// The loop woke the writer early ([`HURRY_AT`]) and it has not written since.
    hurried: bool,
    /// The loop is done: write what is left and stop.
    closed: bool,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.locked()
    }
}

impl<W: Write + Send + 'static> Log<W> {
    /// A log writing to `sink` (stderr): at each hand-over when `live`, else by a
    /// writer thread that drops lines past `max_pending` bytes waiting (`serve
    /// --max-log-backlog`).
    pub fn new(sink: W, max_pending: usize, live: bool) -> Self {
        Log {
            local: Vec::with_capacity(4096),
            shared: Arc::new(Shared {
                state: Mutex::new(State::default()),
                wake: Condvar::new(),
            }),
            sink: Some(sink),
            writer: None,
            max_pending,
            handed: 0,
            live,
        }
    }
}

impl<W: Write + Send + 'static> Write for Log<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.local.extend_from_slice(buf);
        Ok(buf.len())
    }

    /// Hands the gathered lines over. The first hand-over (the ready line, before
    /// any input) is written at once, so that starting a thread never delays a first
    /// answer; the writer starts at the second, which comes after an answer is out.
    fn flush(&mut self) -> io::Result<()> {
        if self.local.is_empty() {
            return Ok(());
        }
        self.handed = self.handed.saturating_add(1);
        if (self.handed == 1 || self.live)
            && let Some(sink) = &mut self.sink
        {
            let written = sink.write_all(&self.local).and_then(|()| sink.flush());
            self.local.clear();
            return written;
        }
        if let Some(sink) = self.sink.take() {
            let shared = self.shared.clone();
            self.writer = std::thread::Builder::new()
                .name("mcp-raw log".into())
                .spawn(move || write_on(&shared, sink))
                .ok();
        }
        let mut state = self.shared.lock();
        if state.pending.len() + self.local.len() > self.max_pending {
            state.dropped += self.local.iter().filter(|&&b| b == b'\n').count();
        } else {
            state.pending.extend_from_slice(&self.local);
        }
        if state.idle || (state.pending.len() >= HURRY_AT && !state.hurried) {
            state.idle = false;
            state.hurried = true;
            self.shared.wake.notify_one();
        }
        drop(state);
        self.local.clear();
        Ok(())
    }
}

impl<W: Write + Send + 'static> Drop for Log<W> {
    /// Writes what is left, then stops the writer: every line is out when the
    /// server returns.
    fn drop(&mut self) {
        let _ = self.flush();
        match self.writer.take() {
            Some(writer) => {
                self.shared.lock().closed = true;
                self.shared.wake.notify_one();
                let _ = writer.join();
            }
            // No writer started (or none could be): what was handed over is written here.
            None => {
                if let Some(sink) = &mut self.sink {
                    let pending = std::mem::take(&mut self.shared.lock().pending);
                    let _ = sink.write_all(&pending).and_then(|()| sink.flush());
                }
            }
        }
    }
}

/// The writer thread: sleeps while there is nothing to write; when lines come, lets
/// more gather for up to [`PERIOD`], then writes them all at once.
fn write_on(shared: &Shared, mut sink: impl Write) {
    let mut spare = Vec::new();
    let mut state = shared.lock();
    loop {
        if state.pending.is_empty() && state.dropped == 0 {
            if state.closed {
                return;
            }
            state.idle = true;
            state = shared.wake.wait(state).unwrap_or_else(|p| p.into_inner());
            continue;
        }
        if !state.closed && state.pending.len() < HURRY_AT {
            state = shared
                .wake
                .wait_timeout(state, PERIOD)
                .map(|(s, _)| s)
                .unwrap_or_else(|p| p.into_inner().0);
        }
        state.hurried = false;
        std::mem::swap(&mut state.pending, &mut spare);
        let dropped = std::mem::take(&mut state.dropped);
        drop(state);
        let mut written = sink.write_all(&spare);
        if dropped > 0 {
            written = written.and_then(|()| {
                writeln!(
                    sink,
                    "[mcp-raw] {dropped} log lines dropped: stderr was not read fast enough"
                )
            });
        }
        let _ = written.and_then(|()| sink.flush());
        spare.clear();
        // A batch grown past the usual (stderr was slow) is not kept for the next.
        if spare.capacity() > 4 * HURRY_AT {
            spare = Vec::new();
        }
        state = shared.lock();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A sink the test can read while the log holds it.
    #[derive(Clone, Default)]
    struct Shared(Arc<Mutex<Vec<u8>>>);

    impl Write for Shared {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    impl Shared {
        fn text(&self) -> String {
            String::from_utf8(self.0.lock().unwrap().clone()).unwrap()
        }
    }

    #[test]
    fn every_line_is_written_in_order_by_the_time_the_log_is_dropped() {
        let sink = Shared::default();
        let mut log = Log::new(sink.clone(), MAX_PENDING, false);
        writeln!(log, "ready").unwrap();
        log.flush().unwrap();
        // The first hand-over is written at once.
        assert_eq!(sink.text(), "ready\n");
        for i in 0..1000 {
            writeln!(log, "line {i}").unwrap();
            if i % 7 == 0 {
                log.flush().unwrap();
            }
        }
        writeln!(log, "last, never flushed").unwrap();
        drop(log);
        let want: String = std::iter::once("ready\n".to_owned())
            .chain((0..1000).map(|i| format!("line {i}\n")))
            .chain(std::iter::once("last, never flushed\n".to_owned()))
            .collect();
        assert_eq!(sink.text(), want);
    }

    #[test]
    fn lines_reach_the_sink_without_another_flush() {
        let sink = Shared::default();
        let mut log = Log::new(sink.clone(), MAX_PENDING, false);
        for line in ["ready\n", "one\n", "two\n"] {
            log.write_all(line.as_bytes()).unwrap();
            log.flush().unwrap();
        }
        // The writer, not the loop, writes them: wait for it (bounded).
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while sink.text() != "ready\none\ntwo\n" && std::time::Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(5));
        }
        assert_eq!(sink.text(), "ready\none\ntwo\n");
        // After going idle, it is woken by the next lines.
        log.write_all(b"three\n").unwrap();
        log.flush().unwrap();
        while sink.text() != "ready\none\ntwo\nthree\n" && std::time::Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(5));
        }
        assert_eq!(sink.text(), "ready\none\ntwo\nthree\n");
    }

    #[test]
    fn a_live_stderr_gets_each_hand_over_at_once() {
        let sink = Shared::default();
        let mut log = Log::new(sink.clone(), MAX_PENDING, true);
        let mut want = String::new();
        for line in ["ready\n", "one\n", "two\n", "three\n"] {
            log.write_all(line.as_bytes()).unwrap();
            log.flush().unwrap();
            want.push_str(line);
            // Written by the loop itself, before `flush` returns: no thread, no wait.
            assert_eq!(sink.text(), want);
        }
        assert!(log.writer.is_none());
    }

    /// A sink that blocks until told: stderr nobody reads.
    struct Stuck(Arc<(Mutex<bool>, Condvar)>, Shared);

    impl Write for Stuck {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            let (open, moved) = &*self.0;
            let mut open = open.lock().unwrap();
            while !*open {
                open = moved.wait(open).unwrap();
            }
            self.1.write(buf)
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_stuck_stderr_never_stalls_the_loop_and_drops_are_counted() {
        let gate = Arc::new((Mutex::new(true), Condvar::new()));
        let sink = Shared::default();
        let mut log = Log::new(Stuck(gate.clone(), sink.clone()), MAX_PENDING, false);
        writeln!(log, "ready").unwrap();
        log.flush().unwrap();
        *gate.0.lock().unwrap() = false;
        // Far more than MAX_PENDING, handed over while nothing can be written.
        let line = format!("{}\n", "x".repeat(1023));
        for _ in 0..(3 * MAX_PENDING / line.len()) {
            log.write_all(line.as_bytes()).unwrap();
            log.flush().unwrap();
        }
        *gate.0.lock().unwrap() = true;
        gate.1.notify_all();
        drop(log);
        let text = sink.text();
        assert!(text.starts_with("ready\nxxx"), "{}", &text[..20]);
        assert!(text.contains(" log lines dropped: stderr was not read fast enough\n"));
        // At most one batch in the stuck write, and a full one waiting.
        assert!(text.len() <= MAX_PENDING * 2 + 1024, "{}", text.len());
    }
}
