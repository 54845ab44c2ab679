//! `mcp-raw demo`: spawns `mcp-raw serve` (this same binary) as a child process and
//! drives one whole session over its stdin/stdout, printing every line both ways.
//! The child's stderr is shown too, marked, to make the rule visible: stdout carries
//! protocol messages only, logs go to stderr.

use super::script::{self, Expect, Step};
use super::wire_print::{Direction, Printer};
use anyhow::{Context, bail};
use serde_json::Value;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::Duration;

/// How long to wait for a response line before calling the server stuck.
const REPLY_TIMEOUT: Duration = Duration::from_secs(10);
/// How long to wait for more stderr lines after a reply.
const STDERR_GRACE: Duration = Duration::from_millis(30);

/// A line from one of the child's two output pipes.
enum Output {
    Stdout(String),
    Stderr(String),
    Closed,
}

struct Demo {
    child: Child,
    stdin: Option<ChildStdin>,
    output: Receiver<Output>,
    printer: Printer,
    next_id: i64,
}

pub fn run(printer: Printer) -> anyhow::Result<()> {
    let exe = std::env::current_exe().context("cannot find the mcp-raw binary")?;
    let mut child = Command::new(exe)
        .arg("serve")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .context("cannot spawn `mcp-raw serve`")?;
    let (tx, output) = mpsc::channel();
    let stdout = child.stdout.take().context("child stdout")?;
    let stderr = child.stderr.take().context("child stderr")?;
    forward(BufReader::new(stdout), tx.clone(), Output::Stdout);
    forward(BufReader::new(stderr), tx, Output::Stderr);
    let stdin = child.stdin.take();
    let mut demo = Demo {
        child,
        stdin,
        output,
        printer,
        next_id: 1,
    };
    let result = demo.session();
    if result.is_err() {
        let _ = demo.child.kill();
    }
    result
}

/// Reads lines on a thread and hands them to the demo loop.
fn forward(
    reader: impl BufRead + Send + 'static,
    tx: mpsc::Sender<Output>,
    wrap: fn(String) -> Output,
) {
    std::thread::spawn(move || {
        for line in reader.lines() {
            let Ok(line) = line else { break };
            if tx.send(wrap(line)).is_err() {
                return;
            }
        }
        let _ = tx.send(Output::Closed);
    });
}

impl Demo {
    fn session(&mut self) -> anyhow::Result<()> {
        self.printer.caption("Spawned `mcp-raw serve`: its stdin and stdout are the transport, one JSON message per line.");
        self.drain_stderr();
        self.printer.caption(script::SHAPES);
        self.step(&script::too_early())?;
        self.step(&script::initialize())?;
        self.step(&script::initialized())?;
        self.printer.caption(
            "Proof that nothing came back: send ping. The very next stdout line is ping's answer, not a reply to the notification.",
        );
        self.step(&Step {
            caption: "",
            method: "ping",
            params: None,
            notification: false,
            expect: Expect::Result,
        })?;
        for step in script::operation() {
            self.step(&step)?;
        }
        self.finish()
    }

    /// Sends one message, prints it, waits for the reply (if one is due) and checks it.
    fn step(&mut self, step: &Step) -> anyhow::Result<()> {
        if !step.caption.is_empty() {
            self.printer.caption(step.caption);
        }
        let id = self.next_id;
        if !step.notification {
            self.next_id += 1;
        }
        let bytes = serde_json::to_vec(&step.to_message(id))?;
        self.send(&bytes)?;
        let reply = if step.notification {
            self.drain_stderr();
            self.printer
                .note("no line on stdout: a notification is never answered");
            None
        } else {
            Some(self.receive()?)
        };
        script::check(step.expect, reply.as_ref())
            .map_err(|e| anyhow::anyhow!("{}: {e}", step.method))
    }

    fn send(&mut self, bytes: &[u8]) -> anyhow::Result<()> {
        self.printer.message(Direction::Sent, bytes);
        let stdin = self.stdin.as_mut().context("stdin already closed")?;
        crate::transport::stdio::write_line(stdin, bytes).context("the server's stdin is closed")
    }

    /// Waits for the next stdout line, showing stderr lines as they come.
    fn receive(&mut self) -> anyhow::Result<Value> {
        loop {
            match self.output.recv_timeout(REPLY_TIMEOUT) {
                Ok(Output::Stderr(line)) => self.printer.server_stderr(&line),
                Ok(Output::Stdout(line)) => {
                    self.drain_stderr();
                    self.printer.message(Direction::Received, line.as_bytes());
                    return serde_json::from_str(&line).with_context(|| {
                        format!("the server wrote a non-JSON line to stdout: {line:?}")
                    });
                }
                Ok(Output::Closed) => bail!("the server closed its output before answering"),
                Err(RecvTimeoutError::Timeout) => bail!("no reply within {REPLY_TIMEOUT:?}"),
                Err(RecvTimeoutError::Disconnected) => bail!("the server's output pipes are gone"),
            }
        }
    }

    /// Prints the stderr lines that arrive within a short grace period.
    fn drain_stderr(&mut self) {
        while let Ok(event) = self.output.recv_timeout(STDERR_GRACE) {
            match event {
                Output::Stderr(line) => self.printer.server_stderr(&line),
                Output::Stdout(line) => self.printer.message(Direction::Received, line.as_bytes()),
                Output::Closed => {}
            }
        }
    }

    /// Closes stdin: the server sees EOF and exits; its status is shown.
    fn finish(&mut self) -> anyhow::Result<()> {
        self.printer.caption(
            "Closing the server's stdin: it reads EOF, which ends the session, and exits.",
        );
        drop(self.stdin.take());
        let status = self.child.wait().context("waiting for the server")?;
        self.drain_stderr();
        self.printer.note(&format!("server exited with {status}"));
        if !status.success() {
            bail!("the server exited with {status}");
        }
        self.printer.caption(script::AFTER);
        self.printer
            .caption("Next: `cargo demo-http` drives the same session over Streamable HTTP.");
        let _ = std::io::stdout().flush();
        Ok(())
    }
}
