//! One child process of the bridge: the stdio server, spawned with all three pipes
//! (MCP 2025-11-25 `basic/transports` "stdio": the client launches the server as a
//! subprocess, writes one JSON-RPC message per line to its stdin and reads one per
//! line from its stdout; stderr is its log). Every byte of the three pipes goes
//! through the recorder on the child's own lanes (`stdioN`, `stderrN`). Dropping the
//! [`Child`] kills the process.

use crate::wire::event::Dir;
use crate::wire::line::{self, Frame};
use crate::wire::recorded::Recorded;
use crate::wire::recorder::Recorder;
use bytes::Bytes;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::sync::{mpsc, oneshot};

/// What the child's stdout yields, in order.
pub enum FromChild {
    /// One line, without its `\n`.
    Line(Bytes),
    /// A line longer than the limit (`--max-body-bytes`): skipped, its bytes recorded.
    TooLong(usize),
    /// stdout closed: the child exited (how, in words) or closed it.
    Gone(String),
}

/// How to start the stdio server: its command line and where its bytes are recorded.
#[derive(Clone)]
pub struct Spawn {
    /// The program and its arguments, as given after `--`.
    pub command: Vec<String>,
    /// Where every byte of the child's pipes goes (idle without `--record`/`--trace`).
    pub recorder: Recorder,
    /// The longest stdout line read whole (`--max-body-bytes`): a child cannot make the
    /// bridge buffer without end.
    pub max_line: usize,
    /// How long a child's stdout may stay closed before its exit is reported without a
    /// status (a child that closes stdout and keeps running).
    pub exit_wait: Duration,
    /// Copy each child's stderr lines to the bridge's stderr (`[child N] …`); off
    /// under `--trace`, whose view shows them already.
    pub echo_stderr: bool,
    /// The most children alive at once (`--max-children`): each legacy session is a
    /// process, so without a cap of its own the bridge would fork as many as
    /// `--max-sessions` allows.
    pub max_children: usize,
    /// How long a forwarded request waits for the child's answer
    /// (`--request-timeout`): a child that never answers must not hold the HTTP
    /// caller (and its stream) forever. `subscriptions/listen` is exempt: it is
    /// answered only when the client ends it.
    pub request_timeout: Duration,
    /// The children alive now, shared by every clone of this `Spawn`.
    pub alive: Arc<std::sync::atomic::AtomicUsize>,
}

/// The defaults of `--max-children` and `--request-timeout`.
pub const MAX_CHILDREN: usize = 100;
/// See [`MAX_CHILDREN`].
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(300);

/// One of the `--max-children` places, held while its child's [`super::Linked`] lives.
pub struct Place(Arc<std::sync::atomic::AtomicUsize>);

impl Place {
    /// A place for one more child, or why there is none.
    pub fn take(spawn: &Spawn) -> Result<Place, String> {
        use std::sync::atomic::Ordering;
        let taken = spawn
            .alive
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                (n < spawn.max_children).then_some(n + 1)
            });
        match taken {
            Ok(_) => Ok(Place(spawn.alive.clone())),
            Err(n) => Err(format!(
                "the bridge runs {n} stdio servers already, the most it keeps (bridge --max-children {}): end a session with DELETE, or retry later",
                spawn.max_children
            )),
        }
    }
}

impl Drop for Place {
    fn drop(&mut self) {
        self.0.fetch_sub(1, std::sync::atomic::Ordering::AcqRel);
    }
}

/// A running child process.
pub struct Child {
    /// Lines for its stdin, written in order by the writer task.
    stdin: mpsc::UnboundedSender<Vec<u8>>,
    /// Dropping this sender kills the child: its waiter task watches the receiver.
    _kill: oneshot::Sender<()>,
    /// The N of its `stdioN` lane, to name it in log lines.
    pub number: u32,
}

impl Child {
    /// Spawns the child; `on` gets each stdout line as it arrives, and last its end,
    /// and may hand back a message to write to the child at once (an answer the bridge
    /// gives in the client's place). `why` says whom it serves, for the log.
    pub fn spawn(
        spawn: &Spawn,
        why: &str,
        mut on: impl FnMut(FromChild) -> Option<Vec<u8>> + Send + 'static,
    ) -> Result<Child, String> {
        let (program, args) = spawn
            .command
            .split_first()
            .ok_or("no server command after `--`")?;
        let mut child = tokio::process::Command::new(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| format!("cannot spawn the server {program:?}: {e}"))?;
        let (lane, log) = spawn.recorder.child_lanes();
        let number = lane.id;
        let pipes = (child.stdin.take(), child.stdout.take(), child.stderr.take());
        let (Some(stdin), Some(stdout), Some(stderr)) = pipes else {
            return Err(format!(
                "the server {program:?} was spawned without its pipes"
            ));
        };
        let pid = child.id().map_or_else(|| "?".to_owned(), |p| p.to_string());
        log::warn!(
            "[mcp-raw] bridge: child {number} (pid {pid}) spawned for {why}: {}",
            spawn.command.join(" ")
        );
        // The bridge is the client of this server: it reads what goes to the client
        // (stdout) and writes what goes to the server (stdin).
        let rec = &spawn.recorder;
        let mut stdin = Recorded::new(
            stdin,
            rec.clone(),
            lane,
            Dir::ToClient,
            Some(format!("spawned {} for {why}", spawn.command.join(" "))),
        )
        .writing_only();
        let stdout = Recorded::new(stdout, rec.clone(), lane, Dir::ToClient, None).reading_only();
        let stderr = Recorded::new(stderr, rec.clone(), log, Dir::ToClient, None).reading_only();

        let (lines, mut to_write) = mpsc::unbounded_channel::<Vec<u8>>();
        tokio::spawn(async move {
            while let Some(mut line) = to_write.recv().await {
                line.push(b'\n');
                if stdin.write_all(&line).await.is_err() || stdin.flush().await.is_err() {
                    // The child is gone; its stdout's end reports it.
                    return;
                }
            }
        });

        let last_log = Arc::new(Mutex::new(String::new()));
        tokio::spawn(pass_on_log(
            stderr,
            number,
            last_log.clone(),
            spawn.echo_stderr,
        ));

        let (kill, killed) = oneshot::channel::<()>();
        let (exited, exit) = oneshot::channel::<String>();
        tokio::spawn(async move {
            let status = tokio::select! {
                status = child.wait() => status,
                // The session ended (DELETE, expiry) or the bridge is stopping. A
                // stdio server is asked to stop by closing its stdin (2025-11-25
                // `basic/lifecycle` "Shutdown"), but nothing it could still say has a
                // reader any more, so it is killed outright and reaped.
                _ = killed => {
                    let _ = child.start_kill();
                    let _ = child.wait().await;
                    log::warn!("[mcp-raw] bridge: child {number} killed: what it served has ended");
                    let _ = exited.send("it was killed: what it served has ended".to_owned());
                    return;
                }
            };
            let said = match status {
                Ok(s) => format!("it exited with {s}"),
                Err(e) => format!("waiting for it failed: {e}"),
            };
            log::warn!("[mcp-raw] bridge: child {number}: {said}");
            let _ = exited.send(said);
        });

        let (max, exit_wait) = (spawn.max_line, spawn.exit_wait);
        let answers = lines.clone();
        tokio::spawn(async move {
            let mut on_line = |what| {
                if let Some(back) = on(what) {
                    let _ = answers.send(back);
                }
            };
            read_lines(stdout, max, &mut on_line).await;
            let said = match tokio::time::timeout(exit_wait, exit).await {
                Ok(Ok(said)) => said,
                _ => "it closed its stdout".to_owned(),
            };
            let last = last_log.lock().map(|l| l.clone()).unwrap_or_default();
            let mut why = format!("the stdio server (child {number}) is gone: {said}");
            if !last.is_empty() {
                why.push_str(&format!("; its last stderr line: {last:?}"));
            }
            on(FromChild::Gone(why));
        });

        Ok(Child {
            stdin: lines,
            _kill: kill,
            number,
        })
    }

    /// Queues one message for the child's stdin (the newline is added); `false` when
    /// the child can take no more.
    pub fn send(&self, message: Vec<u8>) -> bool {
        self.stdin.send(message).is_ok()
    }
}

/// Reads stdout as lines of bytes until it closes.
async fn read_lines(mut pipe: impl AsyncRead + Unpin, max: usize, on: &mut impl FnMut(FromChild)) {
    let mut framer = line::Framer::new(max);
    let mut chunk = vec![0u8; 64 * 1024];
    loop {
        let n = pipe.read(&mut chunk).await.unwrap_or(0);
        if n == 0 {
            if let Some(last) = framer.finish() {
                frame(last, on);
            }
            return;
        }
        framer.feed(&chunk[..n]);
        loop {
            match framer.next_frame() {
                Frame::Incomplete => break,
                f => frame(f, on),
            }
        }
    }
}

fn frame(frame: Frame, on: &mut impl FnMut(FromChild)) {
    match frame {
        Frame::Line(l) => on(FromChild::Line(l)),
        Frame::TooLong { len, .. } => on(FromChild::TooLong(len)),
        Frame::Incomplete => {}
    }
}

/// The child's stderr is its log: each line goes on to the bridge's stderr, named by
/// child (the recorder has the bytes as they came), and the last one is kept to
/// quote if the child dies.
async fn pass_on_log(
    mut pipe: impl AsyncRead + Unpin,
    number: u32,
    last: Arc<Mutex<String>>,
    echo: bool,
) {
    let mut framer = line::Framer::new(64 * 1024);
    let mut chunk = vec![0u8; 16 * 1024];
    loop {
        let n = pipe.read(&mut chunk).await.unwrap_or(0);
        if n == 0 {
            if let Some(Frame::Line(l)) = framer.finish() {
                log_line(&l, number, &last, echo);
            }
            return;
        }
        framer.feed(&chunk[..n]);
        while let Frame::Line(l) = framer.next_frame() {
            log_line(&l, number, &last, echo);
        }
    }
}

fn log_line(line: &[u8], number: u32, last: &Mutex<String>, echo: bool) {
    let text = String::from_utf8_lossy(line);
    let text = text.trim_end_matches('\r');
    if echo {
        log::info!("[child {number}] {text}");
    }
    if let Ok(mut l) = last.lock() {
        *l = text.chars().take(200).collect();
    }
}
