//! A test-side HTTP/1.1 client over a raw socket. It writes literal request bytes and
//! reads what comes back through the library's own readers: `wire::http1::Framer`
//! (the head as sent, chunk sizes, de-chunked body) and `wire::sse::Decoder` (each
//! event the moment its blank line arrives). No test carries its own parser.

use mcp_raw_wire::http1::{Framer, Head, Part, Side};
use mcp_raw_wire::sse::{self, Line};
use serde_json::Value;
use std::collections::VecDeque;
use std::io::{self, ErrorKind, Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

/// The largest head the test clients read (the default view cap).
const HEAD_CAP: usize = mcp_raw_wire::decode::DEFAULT_MAX_MESSAGE;

/// How long an expected head, event or end of body may take.
pub const WAIT: Duration = Duration::from_secs(5);

/// One SSE event, as the library's decoder read it.
pub type Sse = sse::Event;

/// The event's data as JSON.
pub fn json_of(e: &Sse) -> Value {
    serde_json::from_str(&e.data).unwrap_or_else(|err| panic!("{err}: {e:?}"))
}

/// `event.json()`: an SSE event's data as JSON.
pub trait Json {
    fn json(&self) -> Value;
}

impl Json for Sse {
    fn json(&self) -> Value {
        json_of(self)
    }
}

/// What reading a streaming body produced.
#[derive(Debug)]
pub enum Next {
    Event(Sse),
    /// The body ended (the terminating chunk, the full Content-Length, or the close).
    End,
    /// Nothing within the time allowed; the body is still open.
    Quiet,
}

/// The request bytes of `method /mcp` with exactly these headers, plus Host and
/// Content-Length.
pub fn request_bytes(addr: &str, method: &str, headers: &[(&str, &str)], body: &str) -> Vec<u8> {
    let mut req = format!("{method} /mcp HTTP/1.1\r\nHost: {addr}\r\n");
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str(&format!("Content-Length: {}\r\n\r\n{body}", body.len()));
    req.into_bytes()
}

/// Reads responses from one connection, part by part.
pub struct Reader {
    pub sock: TcpStream,
    framer: Framer,
    /// Parts the framer produced and nobody took yet.
    parts: VecDeque<Part>,
    /// Every byte read from the socket, in order.
    pub raw: Vec<u8>,
    /// The socket reached EOF (and the framer was told).
    eof: bool,
}

impl Reader {
    pub fn new(sock: TcpStream) -> Reader {
        Reader {
            sock,
            framer: Framer::new(Side::Response, HEAD_CAP),
            parts: VecDeque::new(),
            raw: Vec::new(),
            eof: false,
        }
    }

    /// The next part, reading the socket until `deadline`; `None` on a timeout.
    /// Panics on broken framing or a close mid-response.
    pub fn part(&mut self, deadline: Instant) -> Option<Part> {
        self.try_part(deadline)
            .unwrap_or_else(|e| panic!("{e}: {:?}", String::from_utf8_lossy(&self.raw)))
    }

    /// The same, with broken framing, a close mid-response or a failed read as an
    /// error.
    pub fn try_part(&mut self, deadline: Instant) -> io::Result<Option<Part>> {
        loop {
            if let Some(p) = self.parts.pop_front() {
                if let Part::Invalid(why) = &p {
                    return Err(io::Error::new(
                        ErrorKind::InvalidData,
                        format!("the response breaks HTTP/1.1 framing ({why})"),
                    ));
                }
                return Ok(Some(p));
            }
            if self.eof {
                return Err(io::Error::new(
                    ErrorKind::UnexpectedEof,
                    "the connection closed mid-response",
                ));
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Ok(None);
            }
            self.sock.set_read_timeout(Some(left))?;
            let mut buf = [0u8; 16384];
            match self.sock.read(&mut buf) {
                Ok(0) => self.closed(),
                Ok(n) => {
                    self.raw.extend_from_slice(&buf[..n]);
                    self.parts.extend(self.framer.feed(&buf[..n]));
                }
                Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
                    return Ok(None);
                }
                Err(e) if e.kind() == ErrorKind::ConnectionReset => self.closed(),
                Err(e) => return Err(e),
            }
        }
    }

    fn closed(&mut self) {
        self.eof = true;
        self.parts.extend(self.framer.finish());
    }

    /// The next response head.
    pub fn head(&mut self) -> Head {
        match self.part(Instant::now() + WAIT) {
            Some(Part::Head(h)) => h,
            other => panic!(
                "expected a response head, got {other:?}: {:?}",
                String::from_utf8_lossy(&self.raw)
            ),
        }
    }

    /// A whole response: its head, then its body to the end.
    pub fn reply(&mut self) -> Reply {
        self.try_reply(WAIT)
            .unwrap_or_else(|e| panic!("{e}: {:?}", String::from_utf8_lossy(&self.raw)))
    }

    /// The same, failing with an error when the response is broken, cut short, or
    /// does not come within `within`.
    pub fn try_reply(&mut self, within: Duration) -> io::Result<Reply> {
        // Requests go one at a time, so no byte of this response was read before.
        let start = self.raw.len();
        let deadline = Instant::now() + within;
        let timeout = || io::Error::new(ErrorKind::TimedOut, "no whole response in time");
        let head = match self.try_part(deadline)? {
            Some(Part::Head(h)) => h,
            Some(other) => {
                return Err(io::Error::new(
                    ErrorKind::InvalidData,
                    format!("expected a head, got {other:?}"),
                ));
            }
            None => return Err(timeout()),
        };
        let mut body = Vec::new();
        loop {
            match self.try_part(deadline)? {
                Some(Part::Body(b)) => body.extend_from_slice(&b),
                Some(Part::ChunkSize { .. }) => {}
                Some(Part::End) => break,
                Some(other) => {
                    return Err(io::Error::new(
                        ErrorKind::InvalidData,
                        format!("unexpected {other:?}"),
                    ));
                }
                None => return Err(timeout()),
            }
        }
        let status = head
            .status()
            .ok_or_else(|| io::Error::new(ErrorKind::InvalidData, head.start_line.clone()))?;
        Ok(Reply {
            status,
            head,
            body,
            raw: self.raw[start..].to_vec(),
        })
    }
}

/// A whole response.
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    /// The head as sent.
    pub head: Head,
    /// The body, de-chunked.
    pub body: Vec<u8>,
    /// The exact bytes read on the connection for this response (head, chunk-size
    /// lines and all).
    pub raw: Vec<u8>,
}

impl Reply {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.head.header(name)
    }

    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    /// The body as JSON; the response must say it is JSON.
    pub fn json(&self) -> Value {
        assert_eq!(
            self.header("content-type"),
            Some("application/json"),
            "{}",
            self.text()
        );
        serde_json::from_slice(&self.body).unwrap_or_else(|e| panic!("{e}: {}", self.text()))
    }

    /// Every event of an SSE body (events and comment blocks alike, in order).
    pub fn events(&self) -> Vec<Sse> {
        assert!(self.head.is_sse(), "not an event stream: {}", self.text());
        let mut d = sse::Decoder::new();
        let events = d.feed(&self.body);
        assert!(
            d.finish().is_none(),
            "the body ended inside an event: {}",
            self.text()
        );
        events
    }

    /// The whole events of an SSE body that may still be arriving.
    pub fn events_so_far(&self) -> Vec<Sse> {
        sse::Decoder::new().feed(&self.body)
    }

    /// The data of each SSE event that carries some, as JSON.
    pub fn sse_messages(&self) -> Vec<Value> {
        self.events()
            .iter()
            .filter(|e| !e.data.is_empty())
            .map(json_of)
            .collect()
    }

    /// The one JSON-RPC message of the body: JSON, or a single-event SSE stream.
    pub fn only_message(&self) -> Value {
        if self.head.is_sse() {
            let events = self.events();
            assert_eq!(events.len(), 1, "{events:?}");
            json_of(&events[0])
        } else {
            self.json()
        }
    }

    /// The JSON-RPC response in the body: the body itself, or the SSE event that
    /// carries a result or an error (after any notifications and requests).
    pub fn response(&self) -> Option<Value> {
        if !self.head.is_sse() {
            return serde_json::from_slice(&self.body).ok();
        }
        self.events().iter().find_map(|e| {
            let v: Value = serde_json::from_str(&e.data).ok()?;
            (v.get("result").is_some() || v.get("error").is_some()).then_some(v)
        })
    }
}

/// The first response in `bytes` (what a raw connection received so far), read
/// through the framer; its body may still be unfinished.
pub fn reply_in(bytes: &[u8]) -> Reply {
    let mut head = None;
    let mut body = Vec::new();
    for part in Framer::new(Side::Response, HEAD_CAP).feed(bytes) {
        match part {
            Part::Head(h) => head = Some(h),
            Part::Body(b) => body.extend_from_slice(&b),
            Part::ChunkSize { .. } => {}
            Part::End => break,
            Part::Invalid(why) => panic!(
                "the response breaks HTTP/1.1 framing ({why}): {:?}",
                String::from_utf8_lossy(bytes)
            ),
        }
    }
    let head = head.unwrap_or_else(|| {
        panic!(
            "no whole response head in {:?}",
            String::from_utf8_lossy(bytes)
        )
    });
    Reply {
        status: head.status().expect("a status line"),
        head,
        body,
        raw: bytes.to_vec(),
    }
}

/// Has a whole response head arrived in `bytes`?
pub fn has_head(bytes: &[u8]) -> bool {
    Framer::new(Side::Response, HEAD_CAP)
        .feed(bytes)
        .iter()
        .any(|p| matches!(p, Part::Head(_)))
}

/// `<stream>` and `<n>` of a legacy event id `<stream>-<n>`.
pub fn event_id(e: &Sse) -> (u64, u64) {
    let id = e.id.as_deref().unwrap_or_else(|| panic!("no id: {e:?}"));
    let (s, n) = id.split_once('-').unwrap();
    (s.parse().unwrap(), n.parse().unwrap())
}

/// Sends `request` on a fresh connection and reads the one response.
pub fn exchange(addr: &str, request: &[u8]) -> Reply {
    let mut sock = TcpStream::connect(addr).unwrap();
    sock.write_all(request).unwrap();
    Reader::new(sock).reply()
}

/// One HTTP exchange whose response body is read as it arrives: SSE event by event.
pub struct Stream {
    reader: Reader,
    pub head: Head,
    pub status: u16,
    sse: sse::Decoder,
    events: VecDeque<Sse>,
    /// De-chunked body bytes so far.
    body: Vec<u8>,
    ended: bool,
}

impl Stream {
    /// Sends `method /mcp` with exactly these headers (plus Host and Content-Length)
    /// on a fresh connection and reads the response head.
    pub fn open(addr: &str, method: &str, headers: &[(&str, &str)], body: &str) -> Stream {
        let mut sock = TcpStream::connect(addr).unwrap();
        sock.write_all(&request_bytes(addr, method, headers, body))
            .unwrap();
        let mut reader = Reader::new(sock);
        let head = reader.head();
        Stream {
            status: head.status().expect("a status line"),
            head,
            reader,
            sse: sse::Decoder::new(),
            events: VecDeque::new(),
            body: Vec::new(),
            ended: false,
        }
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.head.header(name)
    }

    /// The next SSE event, the end of the body, or `Quiet` after `within`. Every
    /// event must carry fields, and only `id`, `retry` and `data` (what this server
    /// sends).
    pub fn next_within(&mut self, within: Duration) -> Next {
        let deadline = Instant::now() + within;
        loop {
            if let Some(e) = self.events.pop_front() {
                for line in &e.lines {
                    match line {
                        Line::Field { name, .. } if ["id", "retry", "data"].contains(&&**name) => {}
                        other => panic!("unexpected SSE line {other:?} in {e:?}"),
                    }
                }
                assert!(e.has_fields(), "an event with no field: {e:?}");
                return Next::Event(e);
            }
            if self.ended {
                assert!(
                    self.sse.finish().is_none(),
                    "body ended inside an event: {:?}",
                    String::from_utf8_lossy(&self.body)
                );
                return Next::End;
            }
            match self.reader.part(deadline) {
                Some(Part::Body(b)) => {
                    self.body.extend_from_slice(&b);
                    self.events.extend(self.sse.feed(&b));
                }
                Some(Part::ChunkSize { .. }) => {}
                Some(Part::End) => self.ended = true,
                Some(other) => panic!("unexpected {other:?}"),
                None => return Next::Quiet,
            }
        }
    }

    /// The next event; panics on the end of the body or a timeout.
    pub fn event(&mut self) -> Sse {
        match self.next_within(WAIT) {
            Next::Event(e) => e,
            other => panic!("expected an SSE event, got {other:?}"),
        }
    }

    /// The next event's data as JSON.
    pub fn message(&mut self) -> Value {
        json_of(&self.event())
    }

    /// Asserts the body ends next (no more events).
    pub fn end(&mut self) {
        match self.next_within(WAIT) {
            Next::End => {}
            other => panic!("expected the end of the body, got {other:?}"),
        }
    }

    /// Reads the whole body.
    pub fn finish(mut self) -> Reply {
        let deadline = Instant::now() + WAIT;
        while !self.ended {
            match self.reader.part(deadline) {
                Some(Part::Body(b)) => self.body.extend_from_slice(&b),
                Some(Part::ChunkSize { .. }) => {}
                Some(Part::End) => self.ended = true,
                other => panic!("the body did not end within {WAIT:?}: {other:?}"),
            }
        }
        Reply {
            status: self.status,
            head: self.head,
            body: self.body,
            raw: self.reader.raw,
        }
    }
}
