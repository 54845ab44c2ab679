//! The stdio transport (MCP 2025-11-25 `basic/transports` "stdio"): the client spawns
//! the server; each JSON-RPC message is one line of UTF-8 JSON ending in `\n` (no
//! length prefix, unlike LSP). stdout carries protocol messages and nothing else;
//! every log line goes to stderr.
//!
//! Synchronous on purpose: one process is one session and messages are handled in
//! order, so a blocking read → handle → write loop is the whole transport.

use crate::jsonrpc::{self, Parsed, Response};
use crate::protocol::{Server, Session};
use std::io::{self, BufRead, ErrorKind, Write};
use std::sync::Arc;

/// Default cap on one line, so a peer cannot make the server buffer without end.
pub const DEFAULT_MAX_LINE: usize = 4 * 1024 * 1024;

/// One step of [`read_line`].
#[derive(Debug, PartialEq)]
pub enum Line {
    /// A complete line (without its `\n`) is in the buffer.
    Ready,
    /// The line exceeded the cap; its bytes were skipped up to the next `\n`.
    TooLong,
    /// stdin closed and no partial line remains.
    Eof,
}

/// Serves one session over `input`/`output` until EOF. Logs go to `log`.
/// Returns when stdin reaches EOF or stdout is gone (the client exited).
pub fn serve(
    server: Arc<Server>,
    mut input: impl BufRead,
    mut output: impl Write,
    mut log: impl Write,
    max_line: usize,
) -> io::Result<()> {
    let mut session = Session::new(server);
    let mut line = Vec::new();
    let _ = writeln!(
        log,
        "[mcp-raw] stdio server ready: one JSON-RPC message per line"
    );
    loop {
        let reply = match read_line(&mut input, &mut line, max_line)? {
            Line::Eof => {
                let _ = writeln!(log, "[mcp-raw] stdin closed: exiting");
                return Ok(());
            }
            Line::TooLong => Some(too_long(max_line)),
            Line::Ready if line.iter().all(u8::is_ascii_whitespace) => continue,
            Line::Ready => handle_line(&mut session, &line, &mut log),
        };
        let Some(bytes) = reply else { continue };
        if let Err(e) = write_line(&mut output, &bytes) {
            if e.kind() == ErrorKind::BrokenPipe {
                let _ = writeln!(log, "[mcp-raw] stdout closed (client gone): exiting");
                return Ok(());
            }
            return Err(e);
        }
    }
}

/// Parses one line and runs it through the core; returns the bytes to send, if any.
fn handle_line(session: &mut Session, line: &[u8], log: &mut impl Write) -> Option<Vec<u8>> {
    match jsonrpc::parse(line) {
        Ok(Parsed::One(message)) => {
            let _ = writeln!(log, "[mcp-raw] recv {}", super::describe(&message));
            session.handle(message).map(|r| r.to_bytes())
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
    }
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

/// Reads the next line into `buf` (cleared first), keeping at most `max` bytes.
/// A trailing `\r` is dropped; a last line without `\n` before EOF still counts.
pub fn read_line(input: &mut impl BufRead, buf: &mut Vec<u8>, max: usize) -> io::Result<Line> {
    buf.clear();
    let mut overflow = false;
    loop {
        let available = match input.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if available.is_empty() {
            return Ok(match (overflow, buf.is_empty()) {
                (true, _) => Line::TooLong,
                (false, true) => Line::Eof,
                (false, false) => Line::Ready,
            });
        }
        let (chunk, done) = match available.iter().position(|&b| b == b'\n') {
            Some(i) => (&available[..i], i + 1),
            None => (available, available.len()),
        };
        let complete = done > chunk.len();
        if !overflow && buf.len() + chunk.len() <= max {
            buf.extend_from_slice(chunk);
        } else {
            overflow = true;
            buf.clear();
        }
        input.consume(done);
        if complete {
            if overflow {
                return Ok(Line::TooLong);
            }
            if buf.last() == Some(&b'\r') {
                buf.pop();
            }
            return Ok(Line::Ready);
        }
    }
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

    fn run(input: &str, max: usize) -> Vec<Value> {
        let mut out = Vec::new();
        let server = Server::new(crate::tools::demo::tool_set(), Eras::Both);
        serve(server, input.as_bytes(), &mut out, io::sink(), max).unwrap();
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
    fn read_line_handles_lines_split_across_reads() {
        let data = b"abc\ndef";
        let mut reader = io::BufReader::with_capacity(2, &data[..]);
        let mut buf = Vec::new();
        assert_eq!(read_line(&mut reader, &mut buf, 10).unwrap(), Line::Ready);
        assert_eq!(buf, b"abc");
        assert_eq!(read_line(&mut reader, &mut buf, 10).unwrap(), Line::Ready);
        assert_eq!(buf, b"def");
        assert_eq!(read_line(&mut reader, &mut buf, 10).unwrap(), Line::Eof);
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
        let server = Server::new(crate::tools::demo::tool_set(), Eras::Both);
        let input = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n".repeat(3);
        assert!(serve(server, input.as_bytes(), Closed, io::sink(), 1024).is_ok());
    }
}
