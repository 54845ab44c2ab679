//! The client's side of `tap --remote`: its lines read (each recorded as it came) and
//! handed to the relay, and the relay's answers written back, one line per message,
//! by one writer thread (each recorded as written). The two streams are the binary's
//! stdin and stdout, given to [`super::run`] in its `Config`.

use crate::wire::event::{Dir, Lane, What};
use crate::wire::lock::Locked;
use crate::wire::recorder::Recorder;
use serde_json::json;
use std::io::{BufRead, BufReader, Read, Write};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Reads the client's lines (each recorded as read) and hands them on; a line longer
/// than `max` is answered with a parse error and skipped, as `serve` does.
pub(super) fn read_lines(
    input: Box<dyn Read + Send>,
    recorder: &Recorder,
    lane: Lane,
    max: usize,
    trace: Option<super::super::trace::Injector>,
    lines: &tokio::sync::mpsc::Sender<Vec<u8>>,
    out: &Out,
) {
    let mut input = BufReader::new(input);
    loop {
        let mut line = Vec::new();
        let read = (&mut input)
            .take(max as u64 + 1)
            .read_until(b'\n', &mut line);
        match read {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        recorder.bytes(lane, Dir::ToServer, &line);
        if line.len() > max && !line.ends_with(b"\n") {
            // The rest of the line, dropped (and recorded) up to its end.
            let mut rest = Vec::new();
            let _ = input.read_until(b'\n', &mut rest);
            recorder.bytes(lane, Dir::ToServer, &rest);
            // JSON-RPC 2.0 §5.1: -32700, what `serve` answers to a line it cannot read.
            let said = json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32700,
                "message": format!("tap --remote: a line of more than {max} bytes (--max-message-bytes): not sent")}});
            out.send(said.to_string().into_bytes());
            continue;
        }
        while line.last().is_some_and(|b| *b == b'\n' || *b == b'\r') {
            line.pop();
        }
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        if let Some(t) = &trace {
            line = t.apply(&line).into_owned();
        }
        if lines.blocking_send(line).is_err() {
            break;
        }
    }
    recorder.emit(
        lane,
        Dir::ToServer,
        What::Close("the client closed its stdin".into()),
    );
}

/// The client's stdout: one writer thread, a line per message, each recorded as
/// written.
#[derive(Clone)]
pub(super) struct Out(
    /// The lines to write; `None` ends the writer.
    std::sync::mpsc::Sender<Option<Vec<u8>>>,
    /// Set once the writer has written its last line.
    Arc<Mutex<bool>>,
);

impl Out {
    pub(super) fn start(mut output: Box<dyn Write + Send>, recorder: Recorder, lane: Lane) -> Out {
        let (tx, rx) = std::sync::mpsc::channel::<Option<Vec<u8>>>();
        let closed = Arc::new(Mutex::new(false));
        let done = closed.clone();
        std::thread::spawn(move || {
            while let Ok(Some(line)) = rx.recv() {
                if output
                    .write_all(&line)
                    .and_then(|()| output.flush())
                    .is_err()
                {
                    break;
                }
                recorder.bytes(lane, Dir::ToClient, &line);
            }
            recorder.emit(lane, Dir::ToClient, What::Close("the relay ended".into()));
            *done.locked() = true;
        });
        Out(tx, closed)
    }

    /// Writes `message` as one line: the server's JSON with its line breaks (JSON
    /// whitespace, as none can be inside a JSON string) made spaces, then `\n` (stdio
    /// carries one message a line, 2025-11-25 `basic/transports` "stdio").
    pub(super) fn send(&self, message: impl Into<Vec<u8>>) {
        let mut line: Vec<u8> = message.into();
        for b in &mut line {
            if *b == b'\n' || *b == b'\r' {
                *b = b' ';
            }
        }
        line.push(b'\n');
        let _ = self.0.send(Some(line));
    }

    /// Ends the writer once what was sent is written, and waits (a moment) for it.
    pub(super) fn close(&self, _why: &str) {
        let _ = self.0.send(None);
        for _ in 0..200 {
            if *self.1.locked() {
                return;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }
}
