//! `--rewrite-host`: the one change the HTTP tap makes when asked — the `Host` line
//! of every request head becomes the target's authority, so a server that checks
//! `Host` (as MCP 2025-11-25 `basic/transports` "Security Warning" asks servers to
//! validate `Origin`, and mcp-raw's own server checks `Host` against DNS rebinding)
//! accepts requests the client addressed to the tap. Every other byte — the request
//! line, the other headers in their case and order, the body, its chunking — passes
//! as it came.
//!
//! Finding the heads needs framing, done by the library's passive
//! [`http1::Framer`](crate::wire::http1::Framer). The bytes are fed to it one line
//! at a time (a head can only end at a `\n`), so when a line completes a head, that
//! head is the last bytes fed; while a head is still incomplete its bytes are held
//! back, and everything else is passed on as soon as it is read.

use crate::wire::http1::{Framer, Head, Part, Side};

/// Rewrites the `Host` header of the requests on one connection.
pub struct HostRewriter {
    /// Reads the client's bytes as HTTP/1.1 requests, to find each head.
    framer: Framer,
    /// Bytes read and not yet passed on: the start of a head still incomplete.
    held: Vec<u8>,
    /// What `Host` becomes: the target's `host:port`.
    authority: String,
}

impl HostRewriter {
    /// `max_head`: the longest head looked for; a longer one (or bytes that are not
    /// HTTP/1.1) leaves the rest of the connection passed on unchanged.
    pub fn new(authority: &str, max_head: usize) -> HostRewriter {
        HostRewriter {
            framer: Framer::new(Side::Request, max_head),
            held: Vec::new(),
            authority: authority.to_owned(),
        }
    }

    /// Takes the bytes of one read; returns what to send to the target now (perhaps
    /// nothing, while a head is incomplete).
    pub fn feed(&mut self, bytes: &[u8]) -> Vec<u8> {
        let mut out = Vec::with_capacity(bytes.len() + self.held.len());
        for piece in bytes.split_inclusive(|b| *b == b'\n') {
            if self.framer.is_opaque() {
                out.extend_from_slice(piece);
                continue;
            }
            self.held.extend_from_slice(piece);
            let head = self.framer.feed(piece).into_iter().find_map(|p| match p {
                Part::Head(h) => Some(h),
                _ => None,
            });
            match head {
                // The piece ends at the head's last `\n`: the head is the tail of what
                // is held; before it are body bytes or blank lines, passed as they are.
                Some(head) if head.raw.len() <= self.held.len() => {
                    let start = self.held.len() - head.raw.len();
                    out.extend_from_slice(&self.held[..start]);
                    out.extend_from_slice(&self.rewrite(&head));
                    self.held.clear();
                }
                _ => {
                    let keep = self.framer.head_in_progress().min(self.held.len());
                    let pass = self.held.len() - keep;
                    out.extend(self.held.drain(..pass));
                }
            }
        }
        out
    }

    /// The client closed: whatever is held (a head it never finished) goes on as it is.
    pub fn finish(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.held)
    }

    /// The head with each `Host` line's value replaced; the name keeps its case, the
    /// line its ending (CRLF or a bare LF).
    fn rewrite(&self, head: &Head) -> Vec<u8> {
        let mut out = Vec::with_capacity(head.raw.len() + self.authority.len());
        for line in head.raw.split_inclusive(|b| *b == b'\n') {
            let name_end = line.iter().position(|b| *b == b':');
            let is_host = name_end.is_some_and(|i| line[..i].eq_ignore_ascii_case(b"host"));
            match name_end {
                Some(i) if is_host => {
                    let eol: &[u8] = if line.ends_with(b"\r\n") {
                        b"\r\n"
                    } else {
                        b"\n"
                    };
                    out.extend_from_slice(&line[..=i]);
                    out.push(b' ');
                    out.extend_from_slice(self.authority.as_bytes());
                    out.extend_from_slice(eol);
                }
                _ => out.extend_from_slice(line),
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TWO: &[u8] =
        b"POST /mcp HTTP/1.1\r\nhOsT: tap:1\r\nContent-Length: 14\r\n\r\n{\"host\":\"x\"}\r\n\
GET /mcp HTTP/1.1\nHost:tap:1\nX-A: b\n\n";
    const WANT: &[u8] =
        b"POST /mcp HTTP/1.1\r\nhOsT: srv:2\r\nContent-Length: 14\r\n\r\n{\"host\":\"x\"}\r\n\
GET /mcp HTTP/1.1\nHost: srv:2\nX-A: b\n\n";

    /// However the reads cut the bytes, only the Host lines change; a body that
    /// mentions "host" (and holds a CRLF) is left alone.
    #[test]
    fn only_host_lines_change_wherever_the_reads_cut() {
        for cut in 0..TWO.len() {
            let mut rw = HostRewriter::new("srv:2", 1 << 16);
            let mut out = rw.feed(&TWO[..cut]);
            out.extend(rw.feed(&TWO[cut..]));
            out.extend(rw.finish());
            assert_eq!(
                String::from_utf8_lossy(&out),
                String::from_utf8_lossy(WANT),
                "cut at {cut}"
            );
        }
    }

    /// A chunked body passes as it is, and bytes that are not HTTP stop the rewriting
    /// but not the bytes.
    #[test]
    fn chunked_bodies_and_garbage_pass_unchanged() {
        let mut rw = HostRewriter::new("srv:2", 1 << 16);
        let wire = b"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n";
        let out = rw.feed(wire);
        assert_eq!(
            out,
            b"POST / HTTP/1.1\r\nHost: srv:2\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n"
        );
        let mut rw = HostRewriter::new("srv:2", 8);
        let junk = b"\x16\x03\x01 not http at all\r\nHost: a\r\n\r\n";
        let mut out = rw.feed(junk);
        out.extend(rw.finish());
        assert_eq!(out, junk);
    }
}
