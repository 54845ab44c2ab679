//! Lines of a stdio stream, as bytes (MCP 2025-11-25 `basic/transports` "stdio":
//! messages are delimited by newlines and MUST NOT contain embedded newlines).
//!
//! The [`Framer`] is fed bytes as they arrive and hands out whole lines exactly as
//! they travelled: a CR before the LF, a BOM, bytes that are not UTF-8 all stay, so
//! a wire view can show them and say what is wrong. "Not a whole line yet" is a
//! state ([`Frame::Incomplete`]), not an error; a line longer than the cap is skipped
//! up to its newline and reported once as [`Frame::TooLong`], so nobody buffers
//! without end.

use bytes::{Buf, Bytes, BytesMut};

/// What [`Framer::next_frame`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Frame {
    /// A whole line, without its `\n` (a `\r` before it is kept).
    Line(Bytes),
    /// A line over the cap ended: `len` bytes (its `\n` not counted); `head` holds its
    /// first bytes, for quoting.
    TooLong {
        /// Its length, without the `\n`.
        len: usize,
        /// Its first bytes.
        head: Bytes,
    },
    /// No whole line buffered yet: feed more bytes.
    Incomplete,
}

/// How many bytes of an overlong line are kept for quoting.
const HEAD: usize = 64;

/// Splits a byte stream into lines.
#[derive(Debug)]
pub struct Framer {
    /// Bytes received and not yet handed out.
    buf: BytesMut,
    /// The longest line handed out whole.
    max: usize,
    /// Inside an overlong line: its length so far and its first bytes.
    skipping: Option<(usize, Bytes)>,
}

impl Framer {
    /// A framer holding lines of at most `max` bytes whole.
    pub fn new(max: usize) -> Framer {
        Framer {
            buf: BytesMut::new(),
            max,
            skipping: None,
        }
    }

    /// Adds bytes as they arrived.
    pub fn feed(&mut self, bytes: &[u8]) {
        self.buf.extend_from_slice(bytes);
    }

    /// The next frame. Call until [`Frame::Incomplete`].
    pub fn next_frame(&mut self) -> Frame {
        let newline = memchr::memchr(b'\n', &self.buf);
        if let Some((len, head)) = self.skipping.take() {
            return match newline {
                Some(i) => {
                    self.buf.advance(i + 1);
                    Frame::TooLong { len: len + i, head }
                }
                None => {
                    let n = self.buf.len();
                    self.buf.clear();
                    self.skipping = Some((len + n, head));
                    Frame::Incomplete
                }
            };
        }
        match newline {
            Some(i) if i <= self.max => {
                let line = self.buf.split_to(i + 1).freeze();
                Frame::Line(line.slice(..i))
            }
            Some(i) => {
                let head = self.buf.split_to(i + 1).freeze().slice(..HEAD.min(i));
                Frame::TooLong { len: i, head }
            }
            None if self.buf.len() > self.max => {
                let n = self.buf.len();
                let head = self.buf.split().freeze().slice(..HEAD.min(n));
                self.skipping = Some((n, head));
                Frame::Incomplete
            }
            None => Frame::Incomplete,
        }
    }

    /// The stream ended: a last line without its `\n` still counts.
    pub fn finish(&mut self) -> Option<Frame> {
        if let Some((len, head)) = self.skipping.take() {
            self.buf.clear();
            return Some(Frame::TooLong { len, head });
        }
        if self.buf.is_empty() {
            return None;
        }
        Some(Frame::Line(self.buf.split().freeze()))
    }

    /// Bytes of a line still incomplete (none while skipping an overlong one).
    pub fn pending(&self) -> usize {
        self.buf.len()
    }
}

/// What is unusual about a line, for a wire view to say. Only the bytes count: a
/// line can carry several of these at once.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Oddities {
    /// Ends in `\r` (a CRLF line end: tolerated by JSON parsers, not what the spec
    /// writes).
    pub cr: bool,
    /// Starts with the UTF-8 byte order mark `EF BB BF` (JSON text MUST NOT, RFC 8259
    /// §8.1).
    pub bom: bool,
    /// Is not valid UTF-8 (MCP messages MUST be UTF-8 encoded).
    pub not_utf8: bool,
    /// Holds nothing but spaces and tabs.
    pub blank: bool,
}

impl Oddities {
    /// The oddities of `line`.
    pub fn of(line: &[u8]) -> Oddities {
        Oddities {
            cr: line.last() == Some(&b'\r'),
            bom: line.starts_with(b"\xEF\xBB\xBF"),
            not_utf8: std::str::from_utf8(line).is_err(),
            blank: line.iter().all(u8::is_ascii_whitespace),
        }
    }

    /// The names of what is odd, for a transcript (`["cr", "bom"]`).
    pub fn names(&self) -> Vec<&'static str> {
        let mut out = Vec::new();
        for (on, name) in [
            (self.cr, "cr"),
            (self.bom, "bom"),
            (self.not_utf8, "not-utf8"),
            (self.blank, "blank"),
        ] {
            if on {
                out.push(name);
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(framer: &mut Framer) -> Vec<Frame> {
        let mut out = Vec::new();
        loop {
            match framer.next_frame() {
                Frame::Incomplete => return out,
                f => out.push(f),
            }
        }
    }

    #[test]
    fn keeps_cr_bom_and_bytes_that_are_not_utf8() {
        let mut f = Framer::new(100);
        f.feed(b"a\r\n\xEF\xBB\xBF{}\n\xff\xfe\n");
        assert_eq!(
            lines(&mut f),
            vec![
                Frame::Line(Bytes::from_static(b"a\r")),
                Frame::Line(Bytes::from_static(b"\xEF\xBB\xBF{}")),
                Frame::Line(Bytes::from_static(b"\xff\xfe")),
            ]
        );
        let o = Oddities::of(b"\xEF\xBB\xBF\xff\r");
        assert_eq!(o.names(), vec!["cr", "bom", "not-utf8"]);
    }

    #[test]
    fn a_line_split_anywhere_comes_out_whole() {
        let mut f = Framer::new(100);
        f.feed(b"ab");
        assert_eq!(f.next_frame(), Frame::Incomplete);
        assert_eq!(f.pending(), 2);
        f.feed(b"c\nde");
        assert_eq!(lines(&mut f), vec![Frame::Line(Bytes::from_static(b"abc"))]);
        assert_eq!(f.finish(), Some(Frame::Line(Bytes::from_static(b"de"))));
        assert_eq!(f.finish(), None);
    }

    #[test]
    fn an_overlong_line_is_reported_once_and_skipped() {
        let mut f = Framer::new(4);
        f.feed(b"0123456");
        assert_eq!(f.next_frame(), Frame::Incomplete);
        assert_eq!(f.pending(), 0, "an overlong line is not buffered");
        f.feed(b"789\nok\n");
        assert_eq!(
            lines(&mut f),
            vec![
                Frame::TooLong {
                    len: 10,
                    head: Bytes::from_static(b"0123456")
                },
                Frame::Line(Bytes::from_static(b"ok")),
            ]
        );
        let mut f = Framer::new(4);
        f.feed(b"0123456789\n");
        assert!(matches!(f.next_frame(), Frame::TooLong { len: 10, .. }));
        f.feed(b"xxxxxx");
        assert_eq!(f.next_frame(), Frame::Incomplete);
        assert!(matches!(f.finish(), Some(Frame::TooLong { len: 6, .. })));
    }
}
