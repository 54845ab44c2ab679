//! The stdio transport (MCP 2025-11-25 `basic/transports` "stdio"): the client spawns
//! the server; each JSON-RPC message is one line of UTF-8 JSON ending in `\n` (no
//! length prefix, unlike LSP). stdout carries protocol messages and nothing else;
//! every log line goes to stderr.
//!
//! The loop is synchronous: one process is one session, read → handle → write; the
//! answers to every line one read brought in leave together in one write. A
//! request that takes time (a [`Reply::Later`]) runs on a small background runtime
//! while the loop goes on reading, so `notifications/cancelled` can stop it; its
//! messages and response are written through the same locked stdout, one whole line
//! per write.

use crate::jsonrpc::{self, RequestId, Response};
use crate::lock::Locked;
use crate::protocol::context::{Pending, Reply};
use crate::protocol::{Facts, Incoming, Server, Session};
use crate::wire::event::{Dir, LaneKind, What};
use crate::wire::line::{self, Frame, Next};
use crate::wire::recorded::{ReadTap, WriteTap};
use crate::wire::recorder::Recorder;
use std::collections::HashMap;
use std::io::{self, ErrorKind, Read, Write};
use std::sync::{Arc, Mutex};

/// Default cap on one line, so a peer cannot make the server buffer without end.
pub const DEFAULT_MAX_LINE: usize = 4 * 1024 * 1024;

/// stdout, shared by the loop and the requests still running.
type Out = Arc<Mutex<Box<dyn Write + Send>>>;

/// Serves one session over `input`/`output` until EOF. Log lines go to `log`
/// (stderr, through a [`Log`](super::log::Log): at once when someone reads them live,
/// else from a thread of its own, off the answer path); when
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
    // The log is handed over after the answers: lines gathered while there is input
    // to handle, handed over (`flush`) when the answers are out and the loop is
    // about to wait (`serve` hands a [`Log`](super::log::Log), which writes them at once
    // to a live reader, else from a thread of its own).
    let mut session = Session::new(server);
    // Legacy list changes and resource updates are written to stdout as they happen.
    let push_out = out.clone();
    session.set_push(Arc::new(move |m| {
        send(&push_out, &serde_json::to_vec(&m).unwrap_or_default()).is_ok()
    }));
    let mut running = Running::default();
    // Lines are read straight into the framer's buffer and handled where they lie
    // there: no copy of a line, no buffer of its own ([`line::Framer::next_line`]).
    let mut framer = line::Framer::new(max_line);
    // Answers to the lines already read, not yet written: every line one `read`
    // brought in is answered, then all the answers leave in one write (a client
    // that pipelines gets one write per batch, not one per message).
    let mut answers: Vec<u8> = Vec::with_capacity(8 * 1024);
    let _ = writeln!(
        log,
        "[mcp-raw] stdio server ready: one JSON-RPC message per line"
    );
    let _ = log.flush();
    loop {
        match framer.next_line() {
            Next::Line(line) => handle_line(
                &mut session,
                &mut running,
                &out,
                line,
                &mut log,
                &mut answers,
            )?,
            Next::TooLong { .. } => {
                too_long(max_line).write_to(&mut answers);
                answers.push(b'\n');
            }
            Next::Incomplete => {
                // Nothing left to answer without waiting: out go the answers, then
                // the log lines about them (after: the client reads its answers while
                // stderr is written, not after).
                if !flush_answers(&out, &mut answers, &mut log)? {
                    return Ok(());
                }
                let _ = log.flush();
                match framer.read_from(&mut input) {
                    Ok(0) => match framer.finish() {
                        // A last line without its `\n` still counts.
                        Some(Frame::Line(last)) => handle_line(
                            &mut session,
                            &mut running,
                            &out,
                            &last,
                            &mut log,
                            &mut answers,
                        )?,
                        Some(_) => {
                            too_long(max_line).write_to(&mut answers);
                            answers.push(b'\n');
                        }
                        None => {
                            let _ = writeln!(log, "[mcp-raw] stdin closed: exiting");
                            let _ = log.flush();
                            return Ok(());
                        }
                    },
                    Ok(_) => continue,
                    Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                    Err(e) => return Err(e),
                }
            }
        }
        // A client that sends megabytes at once still gets its answers in bounded
        // pieces.
        if answers.len() >= MAX_GATHERED && !flush_answers(&out, &mut answers, &mut log)? {
            return Ok(());
        }
    }
}

/// Bytes of answers gathered before they are written even though more input waits.
const MAX_GATHERED: usize = 64 * 1024;

/// Writes the gathered answers (whole lines) in one write under the stdout lock.
/// `Ok(false)`: stdout is closed (the client is gone), so the loop ends.
fn flush_answers(out: &Out, answers: &mut Vec<u8>, log: &mut impl Write) -> io::Result<bool> {
    if answers.is_empty() {
        return Ok(true);
    }
    let result = {
        let mut w = out.locked();
        w.write_all(answers).and_then(|()| w.flush())
    };
    answers.clear();
    match result {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == ErrorKind::BrokenPipe => {
            let _ = writeln!(log, "[mcp-raw] stdout closed (client gone): exiting");
            let _ = log.flush();
            Ok(false)
        }
        Err(e) => Err(e),
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

/// Parses one line and runs it through the core; what is to be sent now (its answer
/// and `\n`) is appended to `answers`, written straight into the buffer that leaves
/// in one write. A blank line (a CRLF's `\r` included) carries nothing to answer; a
/// CR before the LF of any other is JSON whitespace: the message still parses.
fn handle_line(
    session: &mut Session,
    running: &mut Running,
    out: &Out,
    line: &[u8],
    log: &mut impl Write,
    answers: &mut Vec<u8>,
) -> io::Result<()> {
    if line.iter().all(u8::is_ascii_whitespace) {
        return Ok(());
    }
    // The protocol core answers here, and forwards nothing: `_meta` is read typed.
    match Incoming::read(line, Facts::default(), false) {
        Ok(Incoming::One(envelope)) => {
            let _ = log.write_all(b"[mcp-raw] recv ");
            super::describe(&envelope.message, log);
            let _ = log.write_all(b"\n");
            match session.handle(envelope) {
                Reply::None => return Ok(()),
                Reply::Now(response) | Reply::Streamed(response) => response.write_to(answers),
                Reply::Later(pending) => {
                    running.start(pending, out)?;
                    return Ok(());
                }
                Reply::Cancel(id) => {
                    if running.cancel(&id) {
                        let _ = writeln!(log, "[mcp-raw] cancelled request {id}");
                    }
                    return Ok(());
                }
            }
        }
        Ok(Incoming::Batch(items)) => {
            let _ = writeln!(log, "[mcp-raw] recv batch of {}", items.len());
            match session.handle_batch(items) {
                Ok(replies) if replies.is_empty() => return Ok(()),
                Ok(replies) => answers.extend_from_slice(&batch_bytes(&replies)),
                Err(refusal) => refusal.write_to(answers),
            }
        }
        Err(error) => {
            let _ = writeln!(log, "[mcp-raw] recv unreadable line ({} bytes)", line.len());
            error.write_to(answers);
        }
    }
    answers.push(b'\n');
    Ok(())
}

fn too_long(max: usize) -> Response {
    Response::error(
        None,
        jsonrpc::ErrorObject::new(
            jsonrpc::code::INVALID_REQUEST,
            format!(
                "Invalid Request: message longer than {max} bytes; skipped to the next newline"
            ),
        ),
    )
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
    let mut w = out.locked();
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
        let server = Server::new(crate::protocol::content::demo::tool_set(), Eras::Both);
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
        let server = Server::new(crate::protocol::content::demo::tool_set(), Eras::Both);
        let input = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n".repeat(3);
        assert!(serve(server, input.as_bytes(), Closed, io::sink(), 1024, None).is_ok());
    }

    /// A `Write` that keeps each `write` call apart, to count the writes.
    #[derive(Clone, Default)]
    struct Writes(Arc<Mutex<Vec<Vec<u8>>>>);
    impl Write for Writes {
        fn write(&mut self, b: &[u8]) -> io::Result<usize> {
            self.0.lock().unwrap().push(b.to_vec());
            Ok(b.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    /// A `Read` that hands out one line per `read`, as a client that waits for each
    /// answer does.
    struct LineByLine(Vec<String>);
    impl Read for LineByLine {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            if self.0.is_empty() {
                return Ok(0);
            }
            let line = self.0.remove(0);
            buf[..line.len()].copy_from_slice(line.as_bytes());
            Ok(line.len())
        }
    }

    fn ping(id: u32) -> String {
        format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"ping\"}}\n")
    }

    #[test]
    fn answers_to_lines_read_together_leave_in_one_write() {
        let out = Writes::default();
        let server = Server::new(crate::protocol::content::demo::tool_set(), Eras::Both);
        let input: String = (1..=8).map(ping).collect();
        serve(
            server,
            input.as_bytes(),
            out.clone(),
            io::sink(),
            1024,
            None,
        )
        .unwrap();
        let writes = out.0.lock().unwrap().clone();
        assert_eq!(writes.len(), 1, "one write for the batch: {writes:?}");
        let lines: Vec<&[u8]> = writes[0]
            .split(|b| *b == b'\n')
            .filter(|l| !l.is_empty())
            .collect();
        assert_eq!(lines.len(), 8);
        assert!(writes[0].ends_with(b"\n"), "whole lines only");
    }

    #[test]
    fn a_line_read_alone_is_answered_before_the_next_read() {
        let out = Writes::default();
        let server = Server::new(crate::protocol::content::demo::tool_set(), Eras::Both);
        let input = LineByLine((1..=3).map(ping).collect());
        serve(server, input, out.clone(), io::sink(), 1024, None).unwrap();
        let writes = out.0.lock().unwrap().clone();
        assert_eq!(writes.len(), 3, "one write per answer: {writes:?}");
        for (i, w) in writes.iter().enumerate() {
            let v: Value = serde_json::from_slice(w).unwrap();
            assert_eq!(v["id"], i + 1);
        }
    }
}
