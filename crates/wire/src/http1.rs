//! HTTP/1.1 framing (RFC 9112), read passively from the bytes of one direction of a
//! connection: the start line and headers exactly as sent (names in their case, in
//! their order), then the body as its framing delimits it — `Content-Length` bytes,
//! `Transfer-Encoding: chunked` chunks with their size lines, or everything up to
//! the close. It never refuses anything: it reports what it sees, and bytes that
//! break the framing become [`Part::Invalid`], after which the direction is opaque.
//! (hyper does the real parsing on both sides; this is the wire view's reading.)

use bytes::{Buf, Bytes, BytesMut};

/// Which side's messages a direction carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// The bytes a client sends.
    Request,
    /// The bytes a server sends.
    Response,
}

/// A start line and its header lines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Head {
    /// The exact bytes, up to and including the blank line.
    pub raw: Bytes,
    /// `POST /mcp HTTP/1.1` or `HTTP/1.1 200 OK`, as sent.
    pub start_line: String,
    /// Every header line split at its first colon: the name as sent, the value with
    /// the optional whitespace around it removed (RFC 9112 §5).
    pub headers: Vec<(String, String)>,
}

impl Head {
    /// The first value of a header, its name matched case-insensitively.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// A response's status code.
    pub fn status(&self) -> Option<u16> {
        let mut words = self.start_line.split(' ');
        words.next().filter(|v| v.starts_with("HTTP/"))?;
        words.next()?.parse().ok()
    }

    /// A request's method.
    pub fn method(&self) -> Option<&str> {
        self.start_line
            .split(' ')
            .next()
            .filter(|m| !m.starts_with("HTTP/"))
    }

    /// Is the body a form (`application/x-www-form-urlencoded`)?
    pub fn is_form(&self) -> bool {
        self.header("content-type").is_some_and(|v| {
            v.trim_start()
                .to_ascii_lowercase()
                .starts_with("application/x-www-form-urlencoded")
        })
    }

    /// Is the body an event stream?
    pub fn is_sse(&self) -> bool {
        self.header("content-type")
            .is_some_and(|v| v.trim_start().starts_with("text/event-stream"))
    }
}

/// One thing the framer recognised.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Part {
    /// A start line and headers.
    Head(Head),
    /// A chunk-size line (`1a;ext\r\n`, exact bytes) and the size it announces; the
    /// last chunk announces 0.
    ChunkSize {
        /// The chunk-size line as sent.
        line: Bytes,
        /// The size it announces.
        size: u64,
    },
    /// Body bytes, de-chunked, in the order they came.
    Body(Bytes),
    /// One message ended (its last chunk and trailers, or its length, reached).
    End,
    /// The bytes break HTTP/1.1 framing; what follows is not interpreted.
    Invalid(String),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Head,
    Fixed(u64),
    ChunkSize,
    ChunkData(u64),
    ChunkEnd,
    Trailers,
    UntilClose,
    Opaque,
}

/// Reads one direction of a connection.
#[derive(Debug)]
pub struct Framer {
    /// Requests or responses: a response's status decides whether it has a body.
    side: Side,
    /// Where in a message the next bytes belong.
    state: State,
    /// Bytes received and not yet part of a part handed out.
    buf: BytesMut,
    /// The longest head read before calling the stream invalid.
    max_head: usize,
}

impl Framer {
    /// A framer for `side`, refusing heads over `max_head` bytes.
    pub fn new(side: Side, max_head: usize) -> Framer {
        Framer {
            side,
            state: State::Head,
            buf: BytesMut::new(),
            max_head,
        }
    }

    /// Feeds the bytes of one read; returns what they completed.
    pub fn feed(&mut self, bytes: &[u8]) -> Vec<Part> {
        self.buf.extend_from_slice(bytes);
        let mut parts = Vec::new();
        while let Some(part) = self.step() {
            parts.push(part);
        }
        parts
    }

    /// Takes `bytes` in without reading them yet: [`Framer::next_part`] then hands out
    /// one part at a time, and [`Framer::buffered`] after each says where it ended (a
    /// relay that must cut the bytes at a message's end: `tap --intercept`).
    pub fn push(&mut self, bytes: &[u8]) {
        self.buf.extend_from_slice(bytes);
    }

    /// The next part the bytes pushed so far complete, if any.
    pub fn next_part(&mut self) -> Option<Part> {
        self.step()
    }

    /// How many of the bytes pushed are not yet part of a part handed out: the bytes
    /// pushed so far, less these, end where the last part ended.
    pub fn buffered(&self) -> usize {
        self.buf.len()
    }

    /// How many bytes fed so far are the start of a head not yet complete (0 inside
    /// a body, between messages, or once opaque). A relay that rewrites heads (the
    /// tap's `--rewrite-host`) holds exactly these back and forwards the rest.
    pub fn head_in_progress(&self) -> usize {
        match self.state {
            State::Head => self.buf.len(),
            _ => 0,
        }
    }

    /// The bytes broke the framing: nothing after them is interpreted.
    pub fn is_opaque(&self) -> bool {
        self.state == State::Opaque
    }

    /// The direction closed: a body read to the close ends here; anything else cut
    /// short is reported.
    pub fn finish(&mut self) -> Vec<Part> {
        let state = std::mem::replace(&mut self.state, State::Opaque);
        match state {
            State::UntilClose => vec![Part::End],
            State::Head if self.buf.is_empty() => vec![],
            State::Opaque => vec![],
            State::Head => vec![Part::Invalid(format!(
                "the connection closed inside a head ({} bytes)",
                self.buf.len()
            ))],
            _ => vec![Part::Invalid(
                "the connection closed before the body's end".into(),
            )],
        }
    }

    fn step(&mut self) -> Option<Part> {
        match self.state {
            State::Opaque => {
                self.buf.clear();
                None
            }
            State::Head => self.head(),
            State::Fixed(0) => {
                self.state = State::Head;
                Some(Part::End)
            }
            State::Fixed(left) | State::ChunkData(left) if !self.buf.is_empty() => {
                let n = (left as usize).min(self.buf.len());
                let data = self.buf.split_to(n).freeze();
                self.state = match self.state {
                    State::Fixed(_) => State::Fixed(left - n as u64),
                    _ if left == n as u64 => State::ChunkEnd,
                    _ => State::ChunkData(left - n as u64),
                };
                Some(Part::Body(data))
            }
            State::Fixed(_) | State::ChunkData(_) => None,
            State::UntilClose if !self.buf.is_empty() => {
                Some(Part::Body(self.buf.split().freeze()))
            }
            State::UntilClose => None,
            State::ChunkSize => {
                let line = self.line()?;
                let text = String::from_utf8_lossy(&line);
                let digits = text.trim_end_matches(['\r', '\n']);
                let digits = digits.split(';').next().unwrap_or("").trim();
                match u64::from_str_radix(digits, 16) {
                    Ok(size) => {
                        self.state = if size == 0 {
                            State::Trailers
                        } else {
                            State::ChunkData(size)
                        };
                        Some(Part::ChunkSize { line, size })
                    }
                    Err(_) => self.invalid(format!("bad chunk-size line {text:?}")),
                }
            }
            State::ChunkEnd => {
                if self.buf.len() < 2 && !self.buf.starts_with(b"\n") {
                    return None;
                }
                let n = if self.buf.starts_with(b"\r\n") {
                    2
                } else if self.buf.starts_with(b"\n") {
                    1
                } else {
                    return self.invalid("a chunk's data is not followed by CRLF".into());
                };
                self.buf.advance(n);
                self.state = State::ChunkSize;
                self.step()
            }
            State::Trailers => {
                let line = self.line()?;
                if line.iter().all(|b| *b == b'\r' || *b == b'\n') {
                    self.state = State::Head;
                    Some(Part::End)
                } else {
                    self.step()
                }
            }
        }
    }

    /// A whole line (through its `\n`), or `None` until one is buffered.
    fn line(&mut self) -> Option<Bytes> {
        let i = self.buf.iter().position(|b| *b == b'\n')?;
        Some(self.buf.split_to(i + 1).freeze())
    }

    fn invalid(&mut self, why: String) -> Option<Part> {
        self.state = State::Opaque;
        self.buf.clear();
        Some(Part::Invalid(why))
    }

    fn head(&mut self) -> Option<Part> {
        // Blank lines before a request line are allowed (RFC 9112 §2.2).
        while self.side == Side::Request
            && (self.buf.starts_with(b"\r\n") || self.buf.starts_with(b"\n"))
        {
            let n = if self.buf[0] == b'\r' { 2 } else { 1 };
            self.buf.advance(n);
        }
        // Over the cap is invalid whether its end is already here or not, so the
        // verdict does not depend on how the bytes were cut.
        let max = self.max_head;
        let end = find_head_end(&self.buf);
        let Some(end) = end.filter(|e| *e <= max) else {
            if end.is_some() || self.buf.len() > max {
                return self.invalid(format!("no end of head within {max} bytes"));
            }
            return None;
        };
        let raw = self.buf.split_to(end).freeze();
        let text = String::from_utf8_lossy(&raw).into_owned();
        let mut lines = text.split('\n').map(|l| l.strip_suffix('\r').unwrap_or(l));
        let start_line = lines.next().unwrap_or("").to_owned();
        let mut headers: Vec<(String, String)> = Vec::new();
        for line in lines.filter(|l| !l.is_empty()) {
            if line.starts_with([' ', '\t']) {
                // An obsolete line folding: part of the previous value.
                if let Some((_, v)) = headers.last_mut() {
                    v.push(' ');
                    v.push_str(line.trim());
                }
                continue;
            }
            let (name, value) = line.split_once(':').unwrap_or((line, ""));
            headers.push((name.to_owned(), value.trim_matches([' ', '\t']).to_owned()));
        }
        let head = Head {
            raw,
            start_line,
            headers,
        };
        self.state = self.body_state(&head);
        Some(Part::Head(head))
    }

    /// How this message's body is delimited (RFC 9112 §6.3).
    fn body_state(&self, head: &Head) -> State {
        if self.side == Side::Response {
            match head.status() {
                Some(s) if (100..200).contains(&s) || s == 204 || s == 304 => {
                    return State::Fixed(0);
                }
                _ => {}
            }
        }
        let chunked = head
            .headers
            .iter()
            .filter(|(n, _)| n.eq_ignore_ascii_case("transfer-encoding"))
            .flat_map(|(_, v)| v.split(','))
            .last()
            .is_some_and(|coding| coding.trim().eq_ignore_ascii_case("chunked"));
        if chunked {
            return State::ChunkSize;
        }
        if let Some(len) = head.header("content-length") {
            return match len.trim().parse() {
                Ok(n) => State::Fixed(n),
                Err(_) => State::Opaque,
            };
        }
        match self.side {
            Side::Request => State::Fixed(0),
            Side::Response => State::UntilClose,
        }
    }
}

/// Where the head ends: after the first blank line (`\r\n\r\n`, or a bare `\n\n`).
fn find_head_end(buf: &[u8]) -> Option<usize> {
    let mut i = 0;
    while let Some(p) = buf[i..].iter().position(|b| *b == b'\n') {
        let at = i + p;
        let next = &buf[at + 1..];
        if next.starts_with(b"\r\n") {
            return Some(at + 3);
        }
        if next.starts_with(b"\n") {
            return Some(at + 2);
        }
        i = at + 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_chunked_response_split_anywhere_keeps_case_order_and_chunks() {
        let wire = b"HTTP/1.1 200 OK\r\nX-Zed: 1\r\ncontent-TYPE: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n1;x=y\r\nd\r\n0\r\n\r\n";
        for cut in 0..wire.len() {
            let mut f = Framer::new(Side::Response, 1 << 20);
            let mut parts = f.feed(&wire[..cut]);
            parts.extend(f.feed(&wire[cut..]));
            let Part::Head(head) = &parts[0] else {
                panic!("{parts:?}")
            };
            assert_eq!(head.start_line, "HTTP/1.1 200 OK");
            assert_eq!(
                head.headers[1],
                ("content-TYPE".into(), "text/event-stream".into())
            );
            assert!(head.is_sse());
            let body: Vec<u8> = parts
                .iter()
                .filter_map(|p| match p {
                    Part::Body(b) => Some(b.to_vec()),
                    _ => None,
                })
                .flatten()
                .collect();
            assert_eq!(body, b"abcd", "cut at {cut}");
            let sizes: Vec<u64> = parts
                .iter()
                .filter_map(|p| match p {
                    Part::ChunkSize { size, .. } => Some(*size),
                    _ => None,
                })
                .collect();
            assert_eq!(sizes, vec![3, 1, 0]);
            assert_eq!(parts.last(), Some(&Part::End));
        }
    }

    #[test]
    fn requests_follow_one_another_and_a_bad_chunk_is_reported() {
        let mut f = Framer::new(Side::Request, 1 << 20);
        let parts =
            f.feed(b"POST /mcp HTTP/1.1\r\nContent-Length: 2\r\n\r\n{}GET / HTTP/1.1\r\n\r\n");
        assert_eq!(parts.len(), 5, "{parts:?}");
        assert!(matches!(&parts[3], Part::Head(h) if h.method() == Some("GET")));
        let mut f = Framer::new(Side::Response, 1 << 20);
        let parts = f.feed(b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n");
        assert!(matches!(&parts[1], Part::Invalid(why) if why.contains("\"zz\\r\\n\"")));
        let mut f = Framer::new(Side::Response, 1 << 20);
        let mut parts = f.feed(b"HTTP/1.0 200 OK\r\n\r\nall of it");
        parts.extend(f.finish());
        assert_eq!(parts.last(), Some(&Part::End));
    }
}
