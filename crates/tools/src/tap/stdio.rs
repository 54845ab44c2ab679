//! The stdio tap: `mcp-raw tap -- SERVER_CMD ARG…`, spawned by a client in place of
//! the server.
//!
//! MCP 2025-11-25 `basic/transports` "stdio": the client launches the server as a
//! subprocess; the server reads JSON-RPC messages from its stdin and writes them to its
//! stdout, one per line; it MAY write UTF-8 logs to stderr, which the client MAY
//! capture, forward or ignore. The tap is both: a server to its client (its own stdin
//! and stdout) and a client to the real server (the child's pipes). Three threads copy
//! bytes, one per pipe:
//!
//! ```text
//! client ──our stdin──▶ [c2s] ──child stdin──▶ server      lane stdio, c2s
//! client ◀─our stdout── [s2c] ◀─child stdout── server      lane stdio, s2c
//!   our stderr ◀──────── [log] ◀─child stderr── server      lane stderr, s2c
//! ```
//!
//! A read is recorded, then written on at once in one write: no line is waited for,
//! so a server that writes half a line, or a line that is not JSON, is passed on as it
//! is. (With `--intercept`, or `--ui` whose page resends into the server's stdin, the
//! stdio lane passes whole lines instead: `copy_lines`, `resend.rs`.) The end of a pipe is passed on too: the client closing our stdin closes the
//! server's (which is how a stdio session ends, `basic/lifecycle` "Shutdown"); the
//! server closing its stdout closes ours: the client sees the end the moment the
//! server's comes. (The tap writes through a duplicate of its stdout and never closes
//! fd 1 under the standard library, which would let the next file opened take that
//! number and any later write to "stdout" land in that file: once the server's stdout
//! ends, the duplicate is dropped and fd 1 pointed at /dev/null.)
//!
//! The tap exits with the server's status (128 + the signal, as shells say it, when a
//! signal killed it), and SIGTERM or SIGINT sent to the tap are sent on to the server,
//! so a client that stops "the server" stops the real one.

use super::CHUNK;
use crate::wire::event::{Dir, Lane, LaneKind, What};
use crate::wire::recorder::Recorder;
use anyhow::Context;
use std::fs::File;
use std::io::{ErrorKind, Read, Write};
use std::os::fd::{AsFd, OwnedFd};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// What the stdio tap needs to run.
pub struct Config {
    /// The server's program and its arguments, as the client would have run them.
    pub command: Vec<String>,
    /// Where every forwarded byte goes (`--record`, `--trace`; idle without them).
    pub recorder: Recorder,
    /// After the server exits, how long its pipes may stay open (a grandchild holding
    /// them) before the tap exits anyway (`--drain-timeout`).
    pub drain_timeout: Duration,
    /// `--intercept`: messages held in flight as the filter says. With it, the stdio
    /// lane passes whole lines (a read that ends inside a line waits for its end,
    /// up to `max_line` bytes), so a message can be held before any of it crosses.
    pub intercept: Option<std::sync::Arc<super::intercept::Interceptor>>,
    /// The longest line held whole for `--intercept` (`--max-message-bytes`); a
    /// longer one is passed on as it comes, never held.
    pub max_line: usize,
    /// `--ui`: the page's resends, written to the server's stdin between the
    /// client's lines (both directions then pass whole lines, through its
    /// interceptor, `intercept` when given), and their answers kept from the client.
    pub resend: Option<std::sync::Arc<super::resend::Resender>>,
    /// `--trace-context`: trace context put into the client's requests (the
    /// client → server direction then passes whole lines, as under `--intercept`).
    pub trace: Option<super::trace::Injector>,
}

/// Why the tap could not start the server: the shells' 126 and 127 tell a client
/// "not executable" and "not found" apart.
#[derive(Debug)]
pub struct SpawnError {
    /// The program the tap tried to run.
    pub program: String,
    /// What the operating system said.
    pub source: std::io::Error,
}

impl std::fmt::Display for SpawnError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "cannot spawn the server {:?}: {}",
            self.program, self.source
        )
    }
}

impl std::error::Error for SpawnError {}

impl SpawnError {
    /// The exit status a shell gives for the same failure.
    pub fn exit_code(&self) -> i32 {
        match self.source.kind() {
            ErrorKind::NotFound => 127,
            _ => 126,
        }
    }
}

/// Runs the server behind the tap until it exits; returns the status the tap must
/// exit with.
pub fn run(config: Config) -> anyhow::Result<i32> {
    let Config {
        command,
        recorder,
        drain_timeout,
        intercept,
        max_line,
        resend,
        trace,
    } = config;
    // Whole lines whenever something is held or written between the client's.
    let intercept = intercept.or_else(|| resend.as_ref().map(|r| r.interceptor().clone()));
    let (program, args) = command
        .split_first()
        .context("no server command after `--`")?;
    // Duplicates, written and read with no buffer of std's in between; fd 1 itself
    // stays std's (pointed at /dev/null once the server's stdout ends).
    let our_stdout = dup(std::io::stdout().as_fd(), "stdout")?;
    let our_stdin = dup(std::io::stdin().as_fd(), "stdin")?;
    let our_stderr = dup(std::io::stderr().as_fd(), "stderr")?;

    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|source| SpawnError {
            program: program.clone(),
            source,
        })?;
    signals::forward_to(child.id());

    let lane = recorder.lane(LaneKind::Stdio);
    let log = recorder.lane(LaneKind::Stderr);
    recorder.emit(
        lane,
        Dir::ToServer,
        What::Open(format!("spawned {}", command.join(" "))),
    );
    let child_stdin = child.stdin.take().context("the server's stdin pipe")?;
    let child_stdout = child.stdout.take().context("the server's stdout pipe")?;
    let child_stderr = child.stderr.take().context("the server's stderr pipe")?;

    // The client → server copy is never joined: it may sit in a read of our stdin
    // after the server is gone, and the process exit ends it.
    let rec = recorder.clone();
    let held = intercept.clone();
    let page = resend.clone();
    // With the page's resends, the server's stdin is shared with them, under one
    // lock, from before anything can be sent.
    let child_stdin = match &resend {
        Some(r) => {
            r.attach(File::from(OwnedFd::from(child_stdin)));
            None
        }
        None => Some(child_stdin),
    };
    // `--trace-context`: each whole line of the client's, with trace context when it
    // is a request (before it is held, resent around or recorded: what the server gets).
    let whole = trace.is_some();
    std::thread::spawn(move || match (held, page, child_stdin) {
        (_, Some(r), _) => {
            copy_lines(
                our_stdin,
                &rec,
                lane,
                Dir::ToServer,
                max_line,
                &mut |line| r.client_line(&injected(&trace, line)),
                &mut |part| r.client_part(part),
            );
            r.close();
        }
        (Some(i), None, Some(mut to)) => {
            let to = std::cell::RefCell::new(&mut to);
            copy_lines(
                our_stdin,
                &rec,
                lane,
                Dir::ToServer,
                max_line,
                &mut |line| {
                    i.pass(
                        &rec,
                        lane,
                        Dir::ToServer,
                        &injected(&trace, line),
                        &mut |b| to.borrow_mut().write_all(b),
                    )
                },
                &mut |part| {
                    rec.bytes(lane, Dir::ToServer, part);
                    to.borrow_mut().write_all(part)
                },
            )
        }
        (None, None, Some(mut to)) if whole => {
            let to = std::cell::RefCell::new(&mut to);
            let pass = |bytes: &[u8]| {
                rec.bytes(lane, Dir::ToServer, bytes);
                to.borrow_mut().write_all(bytes)
            };
            copy_lines(
                our_stdin,
                &rec,
                lane,
                Dir::ToServer,
                max_line,
                &mut |line| pass(&injected(&trace, line)),
                &mut |part| pass(part),
            )
        }
        (None, None, Some(to)) => copy(our_stdin, to, &rec, lane, Dir::ToServer),
        (_, None, None) => {}
    });
    let (done, finished) = mpsc::channel();
    for (from, to, lane) in [
        (File::from(OwnedFd::from(child_stdout)), our_stdout, lane),
        (File::from(OwnedFd::from(child_stderr)), our_stderr, log),
    ] {
        let (rec, done) = (recorder.clone(), done.clone());
        let held = intercept.clone().filter(|_| lane.kind == LaneKind::Stdio);
        let page = resend.clone();
        std::thread::spawn(move || {
            match held {
                Some(i) => {
                    let mut to = to;
                    let to = std::cell::RefCell::new(&mut to);
                    copy_lines(
                        from,
                        &rec,
                        lane,
                        Dir::ToClient,
                        max_line,
                        &mut |line| {
                            // The answer to a page's resend: recorded, kept from the
                            // client, which never asked.
                            if page.as_ref().is_some_and(|r| r.server_line(line)) {
                                return Ok(());
                            }
                            i.pass(&rec, lane, Dir::ToClient, line, &mut |b| {
                                to.borrow_mut().write_all(b)
                            })
                        },
                        &mut |part| {
                            rec.bytes(lane, Dir::ToClient, part);
                            to.borrow_mut().write_all(part)
                        },
                    )
                }
                None => copy(from, to, &rec, lane, Dir::ToClient),
            }
            if lane.kind == LaneKind::Stdio {
                // The server closed its stdout: so must we, at once, as a real
                // server's closing is what its client sees. Our duplicate is gone
                // (dropped by `copy`); fd 1 is the last copy of the client's pipe, so
                // it is pointed at /dev/null: the client reads its end, and std's
                // stdout stays a valid descriptor (never a number the next open
                // file could take).
                if let Err(e) = stdout_to_null() {
                    rec.emit(
                        lane,
                        Dir::ToClient,
                        What::Close(format!(
                            "could not close our stdout ({e}): the client sees its end when the tap exits"
                        )),
                    );
                }
            }
            let _ = done.send(());
        });
    }

    let status = child.wait().context("waiting for the server")?;
    // The server is gone; what it wrote last is still in the pipes: pass it on before
    // exiting (two copies: stdout and stderr), but not forever.
    let deadline = std::time::Instant::now() + drain_timeout;
    for _ in 0..2 {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        if finished.recv_timeout(left).is_err() {
            recorder.emit(
                lane,
                Dir::ToClient,
                What::Close(format!(
                    "the server exited but its pipes stayed open {drain_timeout:?} (--drain-timeout): the tap exits"
                )),
            );
            break;
        }
    }
    Ok(exit_code(status))
}

/// Points fd 1 at /dev/null (dup2: the client's pipe is closed in this process, fd 1
/// stays open for whatever std still writes to it).
fn stdout_to_null() -> std::io::Result<()> {
    let null = File::options().write(true).open("/dev/null")?;
    rustix::stdio::dup2_stdout(&null)?;
    Ok(())
}

/// A duplicate of one of our standard streams, as a plain file: reads and writes go
/// straight to the descriptor, with no buffer of std's in between (stdout's would hold
/// bytes back until a newline).
fn dup(fd: std::os::fd::BorrowedFd<'_>, name: &str) -> anyhow::Result<File> {
    Ok(File::from(
        fd.try_clone_to_owned()
            .with_context(|| format!("cannot duplicate our {name}"))?,
    ))
}

/// Copies one pipe to another until either end closes: each read is recorded, then
/// written on in one write. Returning drops both ends, which passes the close on.
fn copy(mut from: impl Read, mut to: impl Write, recorder: &Recorder, lane: Lane, dir: Dir) {
    let (source, sink) = match (lane.kind, dir) {
        (LaneKind::Stderr, _) => ("the server's stderr", "our stderr"),
        (_, Dir::ToServer) => ("the client (our stdin)", "the server's stdin"),
        (_, Dir::ToClient) => ("the server's stdout", "the client (our stdout)"),
    };
    let mut buf = vec![0u8; CHUNK];
    let why = loop {
        let n = match from.read(&mut buf) {
            Ok(0) => break format!("EOF from {source}: closing {sink}"),
            Ok(n) => n,
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(e) => break format!("reading {source} failed: {e}"),
        };
        // Recorded before it is passed on, so the peer's answer to these bytes (read
        // on another thread) can never be recorded ahead of them. A failed write is
        // said in the lane's close.
        recorder.bytes(lane, dir, &buf[..n]);
        if let Err(e) = to.write_all(&buf[..n]) {
            break format!(
                "writing {sink} failed: {e} (the last {n} bytes recorded from {source} were not passed on)"
            );
        }
    };
    recorder.emit(lane, dir, What::Close(why));
}

/// A client's line with `--trace-context`'s trace context when it is a request
/// (before it is held, resent around or recorded: what the server gets); borrowed,
/// uncopied, without the flag.
fn injected<'a>(
    trace: &Option<super::trace::Injector>,
    line: &'a [u8],
) -> std::borrow::Cow<'a, [u8]> {
    match trace {
        Some(t) => t.apply(line),
        None => std::borrow::Cow::Borrowed(line),
    }
}

/// [`copy`] in whole lines (under `--intercept`, or with the page's resends): each
/// line handed to `line` (which records and writes it, or holds or keeps it), in
/// order. A line longer than `max_line`, and what is left without a newline at the
/// end, go to `part` as they are (recorded and written, never held).
fn copy_lines(
    mut from: impl Read,
    recorder: &Recorder,
    lane: Lane,
    dir: Dir,
    max_line: usize,
    line: &mut dyn FnMut(&[u8]) -> std::io::Result<()>,
    part: &mut dyn FnMut(&[u8]) -> std::io::Result<()>,
) {
    let (source, sink) = match dir {
        Dir::ToServer => ("the client (our stdin)", "the server's stdin"),
        Dir::ToClient => ("the server's stdout", "the client (our stdout)"),
    };
    let mut buf = vec![0u8; CHUNK];
    let mut pending: Vec<u8> = Vec::new();
    let why = 'copy: loop {
        let n = match from.read(&mut buf) {
            Ok(0) => {
                if !pending.is_empty() {
                    let _ = part(&pending);
                }
                break format!("EOF from {source}: closing {sink}");
            }
            Ok(n) => n,
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(e) => break format!("reading {source} failed: {e}"),
        };
        pending.extend_from_slice(&buf[..n]);
        let mut start = 0;
        while let Some(i) = pending[start..].iter().position(|&b| b == b'\n') {
            let end = start + i + 1;
            if let Err(e) = line(&pending[start..end]) {
                break 'copy format!("writing {sink} failed: {e}");
            }
            start = end;
        }
        pending.drain(..start);
        if pending.len() > max_line {
            // Too long to hold whole: passed on as it comes, never held.
            if let Err(e) = part(&pending) {
                break format!("writing {sink} failed: {e}");
            }
            pending.clear();
        }
    };
    recorder.emit(lane, dir, What::Close(why));
}

/// The status a shell would report for the server: its exit code, or 128 + the signal
/// that killed it.
pub fn exit_code(status: ExitStatus) -> i32 {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => code,
        (None, Some(signal)) => 128 + signal,
        (None, None) => 1,
    }
}

/// SIGTERM and SIGINT to the tap, passed on to the server.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
mod signals {
    use std::sync::atomic::{AtomicI32, Ordering};

    /// The server's pid, for the handler (0: none yet).
    static CHILD: AtomicI32 = AtomicI32::new(0);

    extern "C" fn forward(signal: libc::c_int) {
        let pid = CHILD.load(Ordering::Relaxed);
        if pid > 0 {
            // SAFETY: kill(2) is async-signal-safe; the pid is our child's.
            unsafe {
                libc::kill(pid, signal);
            }
        }
    }

    /// From now on SIGTERM and SIGINT go to `pid` instead of ending the tap: the tap
    /// ends when the server does, with its status.
    pub fn forward_to(pid: u32) {
        let Ok(pid) = i32::try_from(pid) else { return };
        CHILD.store(pid, Ordering::Relaxed);
        for signal in [libc::SIGTERM, libc::SIGINT] {
            // SAFETY: a zeroed sigaction with a handler that only reads an atomic and
            // calls kill(2); SA_RESTART so the copying threads' reads are not cut.
            unsafe {
                let mut action: libc::sigaction = std::mem::zeroed();
                action.sa_sigaction = forward as *const () as libc::sighandler_t;
                action.sa_flags = libc::SA_RESTART;
                libc::sigemptyset(&mut action.sa_mask);
                libc::sigaction(signal, &action, std::ptr::null_mut());
            }
        }
    }
}

/// Elsewhere the signals keep their default action (the tap ends; the server sees
/// its stdin close).
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
mod signals {
    pub fn forward_to(_pid: u32) {}
}
