//! The stdio transport (MCP 2025-11-25 `basic/transports` "stdio"): the client spawns
//! the server; each JSON-RPC message is one line of UTF-8 JSON ending in `\n` (no
//! length prefix, unlike LSP). stdout carries protocol messages and nothing else;
//! every log line goes to stderr.
//!
//! The loop is synchronous: one process is one session, read → handle → write. A
//! request that takes time (a [`Reply::Later`]) runs on a small background runtime
//! while the loop goes on reading, so `notifications/cancelled` can stop it; its
//! messages and response are written through the same locked stdout, one whole line
//! per write.

use crate::jsonrpc::{self, Parsed, RequestId, Response};
use crate::protocol::context::{Pending, Reply};
use crate::protocol::{Server, Session};
use crate::wire::event::{Dir, LaneKind, What};
use crate::wire::line::{self, Frame};
use crate::wire::recorded::{ReadTap, WriteTap};
use crate::wire::recorder::Recorder;
use std::collections::HashMap;
use std::io::{self, ErrorKind, Read, Write};
use std::sync::{Arc, Mutex};

/// Default cap on one line, so a peer cannot make the server buffer without end.
pub const DEFAULT_MAX_LINE: usize = 4 * 1024 * 1024;

/// stdout, shared by the loop and the requests still running.
type Out = Arc<Mutex<Box<dyn Write + Send>>>;

/// Serves one session over `input`/`output` until EOF. Logs go to `log`; when
/// `recorder` is given, every byte read from `input` and written to `output` is
/// recorded on its `stdio` lane (`serve --trace`, `--record`).
/// Returns when stdin reaches EOF or stdout is gone (the client exited); requests
/// still running then are dropped.
pub fn serve(
    server: Arc<Server>,
    input: impl Read,
    output: impl Write + Send + 'static,
    log: impl Write,
    max_line: usize,
    recorder: Option<Recorder>,
) -> io::Result<()> {
    match recorder {
        None => serve_on(server, input, output, log, max_line),
        Some(recorder) => {
            let lane = recorder.lane(LaneKind::Stdio);
            recorder.emit(lane, Dir::ToServer, What::Open("stdin and stdout".into()));
            let input = ReadTap {
                inner: input,
                recorder: recorder.clone(),
                lane,
                dir: Dir::ToServer,
            };
            let output = WriteTap {
                inner: output,
                recorder,
                lane,
                dir: Dir::ToClient,
            };
            serve_on(server, input, output, log, max_line)
        }
    }
}

fn serve_on(
    server: Arc<Server>,
    mut input: impl Read,
    output: impl Write + Send + 'static,
    mut log: impl Write,
    max_line: usize,
) -> io::Result<()> {
    let out: Out = Arc::new(Mutex::new(Box::new(output)));
    let mut session = Session::new(server);
    // Legacy list changes and resource updates are written to stdout as they happen.
    let push_out = out.clone();
    session.set_push(Arc::new(move |m| {
        send(&push_out, &serde_json::to_vec(&m).unwrap_or_default()).is_ok()
    }));
    let mut running = Running::default();
    let mut framer = line::Framer::new(max_line);
    let mut chunk = vec![0u8; 64 * 1024];
    let _ = writeln!(
        log,
        "[mcp-raw] stdio server ready: one JSON-RPC message per line"
    );
    loop {
        let frame = match framer.next_frame() {
            Frame::Incomplete => match input.read(&mut chunk) {
                Ok(0) => match framer.finish() {
                    Some(last) => last,
                    None => {
                        let _ = writeln!(log, "[mcp-raw] stdin closed: exiting");
                        return Ok(());
                    }
                },
                Ok(n) => {
                    framer.feed(&chunk[..n]);
                    continue;
                }
                Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            },
            frame => frame,
        };
        let reply = match frame {
            Frame::TooLong { .. } => Some(too_long(max_line)),
            // Blank lines (a CRLF's `\r` included) carry nothing to answer.
            Frame::Line(line) if line.iter().all(u8::is_ascii_whitespace) => continue,
            // A CR before the LF is JSON whitespace: the message still parses.
            Frame::Line(line) => handle_line(&mut session, &mut running, &out, &line, &mut log)?,
            Frame::Incomplete => continue,
        };
        let Some(bytes) = reply else { continue };
        if let Err(e) = send(&out, &bytes) {
            if e.kind() == ErrorKind::BrokenPipe {
                let _ = writeln!(log, "[mcp-raw] stdout closed (client gone): exiting");
                return Ok(());
            }
            return Err(e);
        }
    }
}

/// The requests still running, on a runtime started at the first one.
#[derive(Default)]
struct Running {
    runtime: Option<tokio::runtime::Runtime>,
    tasks: HashMap<RequestId, tokio::task::AbortHandle>,
}

impl Running {
    /// Runs a pending request: its messages, then its response, go to stdout.
    fn start(&mut self, pending: Pending, out: &Out) -> io::Result<()> {
        let runtime = match &mut self.runtime {
            Some(rt) => rt,
            None => self.runtime.insert(
                tokio::runtime::Builder::new_multi_thread()
                    .worker_threads(1)
                    .enable_all()
                    .build()?,
            ),
        };
        let Pending {
            id,
            mut outbox,
            response,
            ..
        } = pending;
        let out = out.clone();
        let task = runtime.spawn(async move {
            tokio::pin!(response);
            let response = loop {
                tokio::select! {
                    biased;
                    Some(message) = outbox.recv() => write_out(&out, message),
                    r = &mut response => break r,
                }
            };
            while let Ok(message) = outbox.try_recv() {
                write_out(&out, message);
            }
            let _ = send(&out, &response.to_bytes());
        });
        self.tasks.retain(|_, t| !t.is_finished());
        self.tasks.insert(id, task.abort_handle());
        Ok(())
    }

    /// `notifications/cancelled`: stop the request; it sends nothing more.
    fn cancel(&mut self, id: &RequestId) -> bool {
        match self.tasks.remove(id) {
            Some(task) if !task.is_finished() => {
                task.abort();
                true
            }
            _ => false,
        }
    }
}

/// Parses one line and runs it through the core; returns the bytes to send now, if
/// any.
fn handle_line(
    session: &mut Session,
    running: &mut Running,
    out: &Out,
    line: &[u8],
    log: &mut impl Write,
) -> io::Result<Option<Vec<u8>>> {
    Ok(match jsonrpc::parse(line) {
        Ok(Parsed::One(message)) => {
            let _ = writeln!(log, "[mcp-raw] recv {}", super::describe(&message));
            match session.handle(message) {
                Reply::None => None,
                Reply::Now(response) | Reply::Streamed(response) => Some(response.to_bytes()),
                Reply::Later(pending) => {
                    running.start(pending, out)?;
                    None
                }
                Reply::Cancel(id) => {
                    if running.cancel(&id) {
                        let _ = writeln!(log, "[mcp-raw] cancelled request {id}");
                    }
                    None
                }
            }
        }
        Ok(Parsed::Batch(items)) => {
            let _ = writeln!(log, "[mcp-raw] recv batch of {}", items.len());
            match session.handle_batch(items) {
                Ok(replies) if replies.is_empty() => None,
                Ok(replies) => Some(batch_bytes(&replies)),
                Err(refusal) => Some(refusal.to_bytes()),
            }
        }
        Err(error) => {
            let _ = writeln!(log, "[mcp-raw] recv unreadable line ({} bytes)", line.len());
            Some(error.to_bytes())
        }
    })
}

/// Writes what a running request sends: a message as a line; a pause (an HTTP-only
/// hint) is nothing on stdio.
fn write_out(out: &Out, message: crate::protocol::context::Out) {
    if let crate::protocol::context::Out::Message(m) = message {
        let _ = send(out, &serde_json::to_vec(&m).unwrap_or_default());
    }
}

/// Writes one message as one line under the stdout lock.
fn send(out: &Out, message: &[u8]) -> io::Result<()> {
    let mut w = out.lock().unwrap_or_else(|p| p.into_inner());
    write_line(&mut *w, message)
}

/// The responses to a batch as one JSON array.
pub fn batch_bytes(replies: &[Response]) -> Vec<u8> {
    let mut out = vec![b'['];
    for (i, r) in replies.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(&r.to_bytes());
    }
    out.push(b']');
    out
}

fn too_long(max: usize) -> Vec<u8> {
    Response::error(
        None,
        jsonrpc::ErrorObject::new(
            jsonrpc::code::INVALID_REQUEST,
            format!(
                "Invalid Request: message longer than {max} bytes; skipped to the next newline"
            ),
        ),
    )
    .to_bytes()
}

/// Writes one message and its `\n` with a single `write_all`, then flushes, so the
/// line leaves in one syscall and the peer never sees half a message.
pub fn write_line(output: &mut impl Write, message: &[u8]) -> io::Result<()> {
    let mut line = Vec::with_capacity(message.len() + 1);
    line.extend_from_slice(message);
    line.push(b'\n');
    output.write_all(&line)?;
    output.flush()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Eras;
    use serde_json::Value;

    /// A `Write` the test can read back after the server is done with it.
    #[derive(Clone, Default)]
    struct Shared(Arc<Mutex<Vec<u8>>>);
    impl Write for Shared {
        fn write(&mut self, b: &[u8]) -> io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    fn run(input: &str, max: usize) -> Vec<Value> {
        let out = Shared::default();
        let server = Server::new(crate::content::demo::tool_set(), Eras::Both);
        serve(server, input.as_bytes(), out.clone(), io::sink(), max, None).unwrap();
        let out = out.0.lock().unwrap().clone();
        out.split(|b| *b == b'\n')
            .filter(|l| !l.is_empty())
            .map(|l| serde_json::from_slice(l).unwrap())
            .collect()
    }

    #[test]
    fn bad_lines_get_errors_and_reading_goes_on() {
        let out = run(
            "{oops\n\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\r\n{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}",
            1024,
        );
        assert_eq!(out.len(), 3);
        assert_eq!(out[0]["error"]["code"], -32700);
        assert_eq!(out[1]["id"], 1);
        assert_eq!(out[2]["id"], 2);
    }

    #[test]
    fn an_overlong_line_is_refused_and_skipped() {
        let big = format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{{\"x\":\"{}\"}}}}",
            "a".repeat(200)
        );
        let out = run(
            &format!("{big}\n{{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}}\n"),
            100,
        );
        assert_eq!(out.len(), 2);
        assert_eq!(out[0]["error"]["code"], -32600);
        assert!(
            out[0]["error"]["message"]
                .as_str()
                .unwrap()
                .contains("100 bytes")
        );
        assert_eq!(out[1]["id"], 2);
    }

    #[test]
    fn broken_stdout_ends_the_loop_without_error() {
        struct Closed;
        impl Write for Closed {
            fn write(&mut self, _: &[u8]) -> io::Result<usize> {
                Err(ErrorKind::BrokenPipe.into())
            }
            fn flush(&mut self) -> io::Result<()> {
                Ok(())
            }
        }
        let server = Server::new(crate::content::demo::tool_set(), Eras::Both);
        let input = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n".repeat(3);
        assert!(serve(server, input.as_bytes(), Closed, io::sink(), 1024, None).is_ok());
    }
}
