//! The client side of stdio: spawn the server as a child process, write one JSON
//! message per line to its stdin, read its stdout as lines of bytes. Its stderr is
//! read too, on its own lane: it is the server's log, never protocol.
//!
//! All three pipes go through the recorder, so what is shown (and recorded) is what
//! crossed, as it crossed: a CRLF, a BOM, a line that is not UTF-8 or not JSON. Such
//! lines are handed up as they are; the session goes on.

use super::wire_print::Printer;
use crate::wire::event::{Dir, LaneKind};
use crate::wire::line::{self, Frame};
use crate::wire::recorded::Recorded;
use anyhow::{Context, bail};
use bytes::Bytes;
use std::process::{ExitStatus, Stdio};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::process::{Child, ChildStdin, Command};
use tokio::sync::mpsc;

/// What the stdout reader hands to the link.
pub enum Output {
    /// One line, without its `\n`.
    Line(Bytes),
    /// A line over the printer's `max_message`, skipped (its bytes are all recorded).
    TooLong(usize),
}

/// How to start a stdio server.
#[derive(Debug, Clone, Default)]
pub struct Spawn {
    /// The server's program, looked up on `PATH` when it has no slash.
    pub program: std::path::PathBuf,
    /// Its arguments, passed as they are.
    pub args: Vec<String>,
    /// Variables added to the inherited environment.
    pub env: Vec<(String, String)>,
    /// The working directory; the client's own when `None`.
    pub cwd: Option<std::path::PathBuf>,
}

/// A stdio server the client spawned: its pipes, recorded, and its stderr.
pub struct StdioLink {
    child: Child,
    stdin: Option<Recorded<ChildStdin>>,
    /// stdout's lines, in order, from the reader task.
    output: mpsc::UnboundedReceiver<Output>,
    /// The stderr reader: awaited at close, so the log's last lines are shown.
    stderr_done: Option<tokio::task::JoinHandle<()>>,
}

impl StdioLink {
    /// Spawns `program args...` with all three standard streams piped.
    pub fn spawn(
        program: &std::path::Path,
        args: &[&str],
        printer: &Printer,
    ) -> anyhow::Result<StdioLink> {
        let spawn = Spawn {
            program: program.to_owned(),
            args: args.iter().map(|a| (*a).to_owned()).collect(),
            ..Spawn::default()
        };
        StdioLink::spawn_with(&spawn, printer)
    }

    /// Spawns the server `spawn` describes, all three standard streams piped.
    pub fn spawn_with(spawn: &Spawn, printer: &Printer) -> anyhow::Result<StdioLink> {
        let mut command = Command::new(&spawn.program);
        command
            .args(&spawn.args)
            .envs(spawn.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        if let Some(dir) = &spawn.cwd {
            command.current_dir(dir);
        }
        let mut child = command.spawn().with_context(|| {
            let mut what = format!("cannot spawn {}", spawn.program.display());
            if let Some(dir) = &spawn.cwd {
                what.push_str(&format!(" in {}", dir.display()));
            }
            what
        })?;
        let program = spawn.program.as_path();
        let args = &spawn.args;
        let recorder = printer.recorder().clone();
        let lane = recorder.lane(LaneKind::Stdio);
        let log = recorder.lane(LaneKind::Stderr);
        let command = std::iter::once(program.display().to_string())
            .chain(args.iter().cloned())
            .collect::<Vec<_>>()
            .join(" ");
        let stdout = child.stdout.take().context("child stdout")?;
        let stderr = child.stderr.take().context("child stderr")?;
        let stdin = child.stdin.take().context("child stdin")?;
        let stdin = Recorded::new(
            stdin,
            recorder.clone(),
            lane,
            Dir::ToClient,
            Some(format!("spawned {command}")),
        )
        .writing_only();
        let stdout =
            Recorded::new(stdout, recorder.clone(), lane, Dir::ToClient, None).reading_only();
        let stderr = Recorded::new(stderr, recorder, log, Dir::ToClient, None).reading_only();
        let (tx, output) = mpsc::unbounded_channel();
        tokio::spawn(read_lines(stdout, tx, printer.max_message));
        let stderr_done = tokio::spawn(drain(stderr));
        Ok(StdioLink {
            child,
            stdin: Some(stdin),
            output,
            stderr_done: Some(stderr_done),
        })
    }

    /// The server process's id while it runs (`mcp-raw load` reads its CPU time and
    /// peak RSS from `/proc`).
    pub fn pid(&self) -> Option<u32> {
        self.child.id()
    }

    /// Writes one message and its newline in one write.
    pub async fn send(&mut self, message: &[u8]) -> anyhow::Result<()> {
        let stdin = self.stdin.as_mut().context("stdin already closed")?;
        let mut line = Vec::with_capacity(message.len() + 1);
        line.extend_from_slice(message);
        line.push(b'\n');
        stdin
            .write_all(&line)
            .await
            .context("the server's stdin is closed")?;
        stdin.flush().await.context("the server's stdin is closed")
    }

    /// The next stdout line (shown already, as it arrived). `None` when `timeout`
    /// passes first.
    pub async fn receive(&mut self, timeout: Duration) -> anyhow::Result<Option<Output>> {
        match tokio::time::timeout(timeout, self.output.recv()).await {
            Err(_) => Ok(None),
            // stdout closed: say how the server ended, if it has (a moment's wait,
            // as the exit follows the close).
            Ok(None) => match tokio::time::timeout(Duration::from_secs(1), self.child.wait()).await
            {
                Ok(Ok(status)) => bail!("the server exited with {status} (its stdout closed)"),
                _ => bail!("the server closed its stdout (it is still running)"),
            },
            Ok(Some(out)) => Ok(Some(out)),
        }
    }

    /// Waits a moment for the server's log lines about what it just read, so they
    /// show next to it (the demos, after a notification, which gets no answer).
    pub async fn settle(&mut self) {
        tokio::time::sleep(Duration::from_millis(30)).await;
    }

    /// Closes the child's stdin (EOF ends a stdio session) and waits for it to exit.
    ///
    /// MCP 2025-11-25 `basic/lifecycle` "Shutdown", stdio: the client closes the
    /// server's stdin and waits for it to exit; one that has not exited "within a
    /// reasonable time" gets SIGTERM, then, if still alive, SIGKILL. `grace` is each
    /// wait (`--shutdown-timeout`).
    pub async fn close(mut self, grace: Duration) -> anyhow::Result<Exit> {
        if let Some(mut stdin) = self.stdin.take() {
            let _ = stdin.shutdown().await;
        }
        let mut stopped = None;
        let status = match tokio::time::timeout(grace, self.child.wait()).await {
            Ok(status) => status?,
            Err(_) => {
                terminate(&self.child);
                stopped = Some("SIGTERM");
                match tokio::time::timeout(grace, self.child.wait()).await {
                    Ok(status) => status?,
                    Err(_) => {
                        stopped = Some("SIGKILL");
                        self.child.kill().await?;
                        self.child.wait().await?
                    }
                }
            }
        };
        if let Some(done) = self.stderr_done.take() {
            let _ = tokio::time::timeout(Duration::from_secs(1), done).await;
        }
        Ok(Exit { status, stopped })
    }
}

/// How a stdio server ended.
#[derive(Debug, Clone, Copy)]
pub struct Exit {
    /// How the server exited.
    pub status: ExitStatus,
    /// The signal it took to stop it, when it did not exit after its stdin closed.
    pub stopped: Option<&'static str>,
}

impl std::fmt::Display for Exit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.stopped {
            None => write!(f, "{}", self.status),
            Some(signal) => write!(
                f,
                "{} (it did not exit after its stdin closed, so it was sent {signal})",
                self.status
            ),
        }
    }
}

/// Asks the child to stop: SIGTERM where the C library is at hand, else a kill.
fn terminate(child: &Child) {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    if let Some(pid) = child.id().and_then(|p| i32::try_from(p).ok()) {
        // SAFETY: kill(2) on a pid we spawned and have not reaped; no memory is shared.
        unsafe {
            libc::kill(pid, libc::SIGTERM);
        }
        return;
    }
    let _ = child;
}

/// Reads stdout as lines of bytes until it closes.
async fn read_lines(
    mut pipe: impl AsyncRead + Unpin,
    tx: mpsc::UnboundedSender<Output>,
    max: usize,
) {
    let mut framer = line::Framer::new(max);
    let mut chunk = vec![0u8; 64 * 1024];
    loop {
        let n = pipe.read(&mut chunk).await.unwrap_or(0);
        if n == 0 {
            if let Some(last) = framer.finish() {
                let _ = tx.send(output(last));
            }
            return;
        }
        framer.feed(&chunk[..n]);
        loop {
            match framer.next_frame() {
                Frame::Incomplete => break,
                frame => {
                    if tx.send(output(frame)).is_err() {
                        return;
                    }
                }
            }
        }
    }
}

fn output(frame: Frame) -> Output {
    match frame {
        Frame::Line(l) => Output::Line(l),
        Frame::TooLong { len, .. } => Output::TooLong(len),
        Frame::Incomplete => Output::TooLong(0),
    }
}

/// Reads stderr to its end: the recorder shows each line.
async fn drain(mut pipe: impl AsyncRead + Unpin) {
    let mut chunk = vec![0u8; 16 * 1024];
    while let Ok(n) = pipe.read(&mut chunk).await {
        if n == 0 {
            return;
        }
    }
}
