//! The client side of stdio: spawn the server as a child process, write one JSON
//! message per line to its stdin, read one per line from its stdout. Its stderr is
//! read too and shown marked, because it is the server's log, never protocol.

use super::wire_print::{Direction, Printer};
use anyhow::{Context, bail};
use std::process::{ExitStatus, Stdio};
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, Command};
use tokio::sync::mpsc;

/// How long to wait for more stderr lines after a reply, so the log a message caused
/// is shown next to it.
const STDERR_GRACE: Duration = Duration::from_millis(30);

/// A line from one of the child's two output pipes.
enum Output {
    Stdout(String),
    Stderr(String),
}

pub struct StdioLink {
    child: Child,
    stdin: Option<ChildStdin>,
    /// Both pipes, merged in arrival order by two reader tasks (one per pipe).
    output: mpsc::UnboundedReceiver<Output>,
    printer: Printer,
}

impl StdioLink {
    /// Spawns `program args...` with all three standard streams piped.
    pub fn spawn(
        program: &std::path::Path,
        args: &[&str],
        printer: Printer,
    ) -> anyhow::Result<StdioLink> {
        let mut child = Command::new(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .with_context(|| format!("cannot spawn {}", program.display()))?;
        let (tx, output) = mpsc::unbounded_channel();
        let stdout = child.stdout.take().context("child stdout")?;
        let stderr = child.stderr.take().context("child stderr")?;
        forward(BufReader::new(stdout), tx.clone(), Output::Stdout);
        forward(BufReader::new(stderr), tx, Output::Stderr);
        let stdin = child.stdin.take();
        Ok(StdioLink {
            child,
            stdin,
            output,
            printer,
        })
    }

    /// Writes one message and its newline, and prints it.
    pub async fn send(&mut self, message: &[u8]) -> anyhow::Result<()> {
        self.printer.message(Direction::Sent, message);
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

    /// The next stdout line, printed; stderr lines are printed as they come.
    /// `None` when `timeout` passes first.
    pub async fn receive(&mut self, timeout: Duration) -> anyhow::Result<Option<Vec<u8>>> {
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            match tokio::time::timeout_at(deadline, self.output.recv()).await {
                Err(_) => return Ok(None),
                Ok(None) => bail!("the server closed its stdout"),
                Ok(Some(Output::Stderr(line))) => self.printer.server_stderr(&line),
                Ok(Some(Output::Stdout(line))) => {
                    self.drain_stderr().await;
                    self.printer.message(Direction::Received, line.as_bytes());
                    return Ok(Some(line.into_bytes()));
                }
            }
        }
    }

    /// Prints the stderr lines that arrive within a short grace period.
    pub async fn drain_stderr(&mut self) {
        while let Ok(Some(event)) = tokio::time::timeout(STDERR_GRACE, self.output.recv()).await {
            match event {
                Output::Stderr(line) => self.printer.server_stderr(&line),
                Output::Stdout(line) => self.printer.message(Direction::Received, line.as_bytes()),
            }
        }
    }

    /// Closes the child's stdin (EOF ends a stdio session) and waits for it to exit.
    pub async fn close(mut self) -> anyhow::Result<ExitStatus> {
        drop(self.stdin.take());
        let status = tokio::time::timeout(Duration::from_secs(10), self.child.wait())
            .await
            .context("the server did not exit after EOF")??;
        self.drain_stderr().await;
        Ok(status)
    }
}

/// Reads lines on a task and hands them to the link, until the pipe closes.
fn forward(
    reader: impl tokio::io::AsyncBufRead + Unpin + Send + 'static,
    tx: mpsc::UnboundedSender<Output>,
    wrap: fn(String) -> Output,
) {
    tokio::spawn(async move {
        let mut lines = reader.lines();
        while let Ok(Some(line)) = lines.next_line().await {
            if tx.send(wrap(line)).is_err() {
                return;
            }
        }
    });
}
