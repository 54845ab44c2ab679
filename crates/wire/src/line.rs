//! Lines of a stdio stream, as bytes (MCP 2025-11-25 `basic/transports` "stdio":
//! messages are delimited by newlines and MUST NOT contain embedded newlines).
//!
//! The [`Framer`] is fed bytes as they arrive and hands out whole lines exactly as
//! they travelled: a CR before the LF, a BOM, bytes that are not UTF-8 all stay, so
//! a wire view can show them and say what is wrong. "Not a whole line yet" is a
//! state ([`Frame::Incomplete`]), not an error; a line longer than the cap is skipped
//! up to its newline and reported once as [`Frame::TooLong`], so nobody buffers
//! without end.

use bytes::Bytes;
use std::io::{self, Read};

/// What [`Framer::next_frame`] found: a line of its own, for a reader that keeps it.
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

/// What [`Framer::next_line`] found: a line lent where it lies in the framer's
/// buffer, for a reader done with it before the next one (the stdio server).
#[derive(Debug, PartialEq, Eq)]
pub enum Next<'a> {
    /// A whole line, without its `\n` (a `\r` before it is kept).
    Line(&'a [u8]),
    /// A line over the cap ended (as [`Frame::TooLong`]).
    TooLong {
        /// Its length, without the `\n`.
        len: usize,
        /// Its first bytes.
        head: Bytes,
    },
    /// No whole line buffered yet.
    Incomplete,
}

/// How many bytes of an overlong line are kept for quoting.
const HEAD: usize = 64;

/// The first read's room: a sequential client's line is a few hundred bytes, and a
/// zeroed 64 KiB buffer cost a server's first answer 25,000 instructions and 7 page
/// faults. Doubled each time a read fills the room it was given, up to `MAX_READ`,
/// for a client that pipelines.
const MIN_READ: usize = 4 * 1024;
const MAX_READ: usize = 64 * 1024;

/// A buffer grown past this (by a long line) is let go once it is empty.
const KEPT: usize = 2 * MAX_READ;

/// Splits a byte stream into lines.
#[derive(Debug)]
pub struct Framer {
    /// The buffer, all of it initialized (so a read goes straight into its free
    /// tail, with no copy and no zeroing per read); the bytes received and not yet
    /// handed out are `buf[start..end]`.
    buf: Vec<u8>,
    /// Where the bytes not yet handed out begin.
    start: usize,
    /// Where they end.
    end: usize,
    /// Up to here the buffer holds no `\n`: a line arriving in many pieces is
    /// searched once, not once per piece.
    searched: usize,
    /// The room the next read is given ([`Framer::read_from`]).
    read_size: usize,
    /// The longest line handed out whole.
    max: usize,
    /// Inside an overlong line: its length so far and its first bytes.
    skipping: Option<(usize, Bytes)>,
}

impl Framer {
    /// A framer holding lines of at most `max` bytes whole.
    pub fn new(max: usize) -> Framer {
        Framer {
            buf: Vec::new(),
            start: 0,
            end: 0,
            searched: 0,
            read_size: MIN_READ,
            max,
            skipping: None,
        }
    }

    /// Adds bytes as they arrived.
    pub fn feed(&mut self, bytes: &[u8]) {
        self.make_room(bytes.len());
        self.buf[self.end..self.end + bytes.len()].copy_from_slice(bytes);
        self.end += bytes.len();
    }

    /// Reads once from `input` straight into the buffer; the byte count, 0 at end of
    /// stream.
    pub fn read_from(&mut self, input: &mut impl Read) -> io::Result<usize> {
        self.make_room(self.read_size);
        let n = input.read(&mut self.buf[self.end..self.end + self.read_size])?;
        self.end += n;
        if n == self.read_size && self.read_size < MAX_READ {
            self.read_size *= 2;
        }
        Ok(n)
    }

    /// At least `want` free bytes after `end`: the pending bytes moved to the front
    /// when that makes the room, else the buffer grown.
    fn make_room(&mut self, want: usize) {
        if self.start == self.end {
            (self.start, self.end, self.searched) = (0, 0, 0);
            // The buffer a huge line grew goes back once that line is handed out.
            if self.buf.len() > KEPT {
                self.buf = Vec::new();
            }
        }
        if self.buf.len() - self.end >= want {
            return;
        }
        if self.start > 0 {
            self.buf.copy_within(self.start..self.end, 0);
            self.searched -= self.start.min(self.searched);
            self.end -= self.start;
            self.start = 0;
        }
        if self.buf.len() - self.end < want {
            let len = (self.end + want).max(self.buf.len() * 2);
            self.buf.resize(len, 0);
        }
    }

    /// Drops everything buffered (the bytes of a line being skipped).
    fn clear(&mut self) {
        (self.start, self.end, self.searched) = (0, 0, 0);
    }

    /// The next line, lent. Call until [`Next::Incomplete`].
    pub fn next_line(&mut self) -> Next<'_> {
        let from = self.searched.max(self.start);
        let newline =
            memchr::memchr(b'\n', &self.buf[from..self.end]).map(|i| from + i - self.start);
        if let Some((len, head)) = self.skipping.take() {
            return match newline {
                Some(i) => {
                    self.start += i + 1;
                    Next::TooLong { len: len + i, head }
                }
                None => {
                    let n = self.end - self.start;
                    self.clear();
                    self.skipping = Some((len + n, head));
                    Next::Incomplete
                }
            };
        }
        let pending = &self.buf[self.start..self.end];
        match newline {
            Some(i) if i <= self.max => {
                let line = self.start..self.start + i;
                self.start += i + 1;
                Next::Line(&self.buf[line])
            }
            Some(i) => {
                let head = Bytes::copy_from_slice(&pending[..HEAD.min(i)]);
                self.start += i + 1;
                Next::TooLong { len: i, head }
            }
            None if pending.len() > self.max => {
                let n = pending.len();
                let head = Bytes::copy_from_slice(&pending[..HEAD.min(n)]);
                self.clear();
                self.skipping = Some((n, head));
                Next::Incomplete
            }
            None => {
                self.searched = self.end;
                Next::Incomplete
            }
        }
    }

    /// The next line, as bytes of its own. Call until [`Frame::Incomplete`].
    pub fn next_frame(&mut self) -> Frame {
        match self.next_line() {
            Next::Line(line) => Frame::Line(Bytes::copy_from_slice(line)),
            Next::TooLong { len, head } => Frame::TooLong { len, head },
            Next::Incomplete => Frame::Incomplete,
        }
    }

    /// The stream ended: a last line without its `\n` still counts.
    pub fn finish(&mut self) -> Option<Frame> {
        if let Some((len, head)) = self.skipping.take() {
            self.clear();
            return Some(Frame::TooLong { len, head });
        }
        if self.start == self.end {
            return None;
        }
        let last = Bytes::copy_from_slice(&self.buf[self.start..self.end]);
        self.clear();
        Some(Frame::Line(last))
    }

    /// Bytes of a line still incomplete (none while skipping an overlong one).
    pub fn pending(&self) -> usize {
        self.end - self.start
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

    #[test]
    fn lines_are_lent_where_they_lie_and_read_straight_in() {
        let mut input: &[u8] = b"{\"a\":1}\n\n{\"b\":2}\r\ntail";
        let mut f = Framer::new(100);
        let mut got = Vec::new();
        loop {
            match f.next_line() {
                Next::Line(l) => got.push(l.to_vec()),
                Next::TooLong { .. } => panic!("too long"),
                Next::Incomplete => {
                    if f.read_from(&mut input).unwrap() == 0 {
                        break;
                    }
                }
            }
        }
        assert_eq!(
            got,
            vec![b"{\"a\":1}".to_vec(), b"".to_vec(), b"{\"b\":2}\r".to_vec()]
        );
        assert_eq!(f.finish(), Some(Frame::Line(Bytes::from_static(b"tail"))));
    }

    /// A line that comes a byte at a time is whole when its newline comes, and the
    /// bytes already searched are not searched again (nor lost when the buffer moves).
    #[test]
    fn a_line_in_many_pieces_comes_out_whole() {
        let line: Vec<u8> = (0..3 * MAX_READ).map(|i| b'a' + (i % 26) as u8).collect();
        let mut f = Framer::new(10 * MAX_READ);
        f.feed(b"first\n");
        assert_eq!(f.next_line(), Next::Line(b"first"));
        for piece in line.chunks(1000) {
            f.feed(piece);
            assert_eq!(f.next_line(), Next::Incomplete);
        }
        f.feed(b"\nnext\n");
        assert_eq!(f.next_line(), Next::Line(&line[..]));
        assert_eq!(f.next_line(), Next::Line(b"next"));
        assert_eq!(f.next_line(), Next::Incomplete);
        // Handed out, the long line's buffer is let go at the next read.
        f.feed(b"x");
        assert!(f.buf.len() <= KEPT, "{} bytes kept", f.buf.len());
    }

    /// The room a read is given doubles while reads fill it, up to `MAX_READ`.
    #[test]
    fn reads_grow_while_they_fill_the_room() {
        let big = vec![b'x'; 4 * MAX_READ];
        let mut input: &[u8] = &big;
        let mut f = Framer::new(8 * MAX_READ);
        let mut sizes = Vec::new();
        while let Ok(n @ 1..) = f.read_from(&mut input) {
            sizes.push(n);
        }
        assert_eq!(sizes[0], MIN_READ);
        assert_eq!(sizes[1], 2 * MIN_READ);
        assert!(sizes.iter().all(|&n| n <= MAX_READ), "{sizes:?}");
        assert!(sizes.contains(&MAX_READ), "{sizes:?}");
        assert_eq!(f.pending(), big.len());
    }
}
