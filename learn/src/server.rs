//! The stdio transport (2025-11-25 `basic/transports` "stdio"): the client starts
//! this server as a child process, writes messages to its stdin and reads answers
//! from its stdout.
//!
//! Framing is one JSON message per line: each message ends with `\n` and "MUST NOT
//! contain embedded newlines". There is no length prefix (that is LSP, which looks
//! similar and is not this). stdout carries nothing but messages: one stray
//! `println!` and the client's next parse fails. So every log line goes to stderr.

use crate::rpc::{self, Incoming, Message, Session};
use std::io::{BufRead, Write};

/// The longest line read, by default (mcp-raw's `--max-body-bytes` default too).
pub const MAX_LINE_BYTES: usize = 4 * 1024 * 1024;

/// What one read of a line found.
enum Line {
    /// A whole line, its `\n` removed (the last one may have had none).
    Text(Vec<u8>),
    /// A line longer than the limit, skipped up to its `\n`.
    TooLong,
    /// End of input.
    End,
}

/// Reads one line of at most `max` bytes. A longer one is not kept in memory: the
/// rest of it is read and dropped, so one huge line cannot exhaust the server.
fn read_line(input: &mut impl BufRead, max: usize) -> std::io::Result<Line> {
    let mut line = Vec::new();
    let mut too_long = false;
    loop {
        let buf = input.fill_buf()?;
        if buf.is_empty() {
            // EOF: a last line without its `\n` is still a message.
            return Ok(if too_long {
                Line::TooLong
            } else if line.is_empty() {
                Line::End
            } else {
                Line::Text(line)
            });
        }
        let (chunk, done) = match buf.iter().position(|&b| b == b'\n') {
            Some(i) => (&buf[..i], i + 1),
            None => (buf, buf.len()),
        };
        if !too_long && line.len() + chunk.len() <= max {
            line.extend_from_slice(chunk);
        } else {
            too_long = true;
            line = Vec::new();
        }
        let found_newline = done > chunk.len();
        input.consume(done);
        if found_newline {
            return Ok(if too_long { Line::TooLong } else { Line::Text(line) });
        }
    }
}

/// Serves one session on stdin/stdout until stdin ends (the client's way of saying
/// goodbye, `basic/lifecycle` "Shutdown": it closes the server's input) or stdout
/// closes. `max_line` bounds a message.
pub fn run(max_line: usize) {
    eprintln!("[learn] stdio server ready: one JSON-RPC message per line");
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let mut stdout = std::io::stdout().lock();
    let mut session = Session::default();
    loop {
        let answer = match read_line(&mut input, max_line) {
            Ok(Line::End) => {
                eprintln!("[learn] stdin closed: exiting");
                return;
            }
            Err(e) => {
                eprintln!("[learn] stdin unreadable ({e}): exiting");
                return;
            }
            Ok(Line::TooLong) => {
                eprintln!("[learn] recv a line over {max_line} bytes: skipped");
                Some(rpc::error(
                    None,
                    rpc::code::INVALID_REQUEST,
                    &format!(
                        "Invalid Request: message longer than {max_line} bytes; skipped to the next newline"
                    ),
                ))
            }
            // A blank line (or a lone `\r` of a CRLF) holds no message: nothing to answer.
            Ok(Line::Text(line)) if line.trim_ascii().is_empty() => continue,
            Ok(Line::Text(line)) => {
                let incoming = rpc::read(&line);
                log_received(&incoming, line.len());
                match incoming {
                    Ok(Incoming::One(message)) => session.handle(message),
                    Ok(Incoming::Batch) => Some(session.batch_refusal()),
                    Err(refusal) => Some(refusal),
                }
            }
        };
        let Some(answer) = answer else {
            continue; // a notification or a response: never answered
        };
        // One message, one line: the answer is compact JSON with no newline inside
        // (a `\n` in a string is written `\n`, escaped), then the `\n` that frames it.
        let written = stdout
            .write_all(answer.as_bytes())
            .and_then(|_| stdout.write_all(b"\n"))
            .and_then(|_| stdout.flush());
        if written.is_err() {
            eprintln!("[learn] stdout closed (client gone): exiting");
            return;
        }
    }
}

/// One stderr line per message read: what it was, in a word.
fn log_received(incoming: &Result<Incoming, String>, len: usize) {
    match incoming {
        Ok(Incoming::One(Message::Request { id, method, .. })) => {
            eprintln!("[learn] recv request {method} (id {id})")
        }
        Ok(Incoming::One(Message::Notification { method })) => {
            eprintln!("[learn] recv notification {method}")
        }
        Ok(Incoming::One(Message::Response)) => eprintln!("[learn] recv a response"),
        Ok(Incoming::Batch) => eprintln!("[learn] recv a batch"),
        Err(_) => eprintln!("[learn] recv unreadable line ({len} bytes)"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_split_and_an_overlong_one_is_skipped() {
        let mut input = std::io::BufReader::with_capacity(4, &b"ab\nxxxxxxxxxx\ncd"[..]);
        let mut got = Vec::new();
        loop {
            match read_line(&mut input, 5).unwrap() {
                Line::Text(t) => got.push(String::from_utf8(t).unwrap()),
                Line::TooLong => got.push("<too long>".into()),
                Line::End => break,
            }
        }
        assert_eq!(got, ["ab", "<too long>", "cd"]);
    }
}
