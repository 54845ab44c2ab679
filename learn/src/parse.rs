//! The JSON parser (RFC 8259): bytes in, a [`Json`] out, or a message saying what
//! is wrong and where. Its messages follow serde_json's wording ("expected value at
//! line 1 column 1"), which is what mcp-raw's server answers: a learner comparing
//! the two servers sees the same bytes, errors included.

use crate::json::Json;

/// How deep arrays and objects may nest before the parser gives up (serde_json's
/// limit too): a line of ten thousand `[` must not exhaust the stack.
const MAX_DEPTH: usize = 128;

/// Parses one JSON text; anything but whitespace after the value is an error.
pub fn parse(bytes: &[u8]) -> Result<Json, String> {
    let mut p = Parser { bytes, pos: 0, depth: 0 };
    let value = p.value()?;
    p.skip_whitespace();
    if p.pos < bytes.len() {
        return Err(p.error_at("trailing characters", p.pos));
    }
    Ok(value)
}

/// The parser's place in the input.
struct Parser<'a> {
    /// The whole input.
    bytes: &'a [u8],
    /// The next byte to read.
    pos: usize,
    /// Arrays and objects open around `pos`.
    depth: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    /// "what at line L column C", the column counting bytes, 1 for the first.
    fn error_at(&self, what: &str, at: usize) -> String {
        let before = &self.bytes[..at.min(self.bytes.len())];
        let line = 1 + before.iter().filter(|&&b| b == b'\n').count();
        let start = before.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        let column = at + 1 - start;
        format!("{what} at line {line} column {column}")
    }

    /// An error at the last byte read (the end of the input, for an EOF).
    fn eof(&self, what: &str) -> String {
        self.error_at(what, self.bytes.len().saturating_sub(1))
    }

    fn skip_whitespace(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.pos += 1;
        }
    }

    fn value(&mut self) -> Result<Json, String> {
        self.skip_whitespace();
        match self.peek() {
            None => Err(self.eof("EOF while parsing a value")),
            Some(b'n') => self.word("null", Json::Null),
            Some(b't') => self.word("true", Json::Bool(true)),
            Some(b'f') => self.word("false", Json::Bool(false)),
            Some(b'"') => self.string().map(Json::Str),
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(b'[') => self.nested(Self::array),
            Some(b'{') => self.nested(Self::object),
            Some(_) => Err(self.error_at("expected value", self.pos)),
        }
    }

    /// Runs `inner` one level deeper, refusing past [`MAX_DEPTH`].
    fn nested(&mut self, inner: fn(&mut Self) -> Result<Json, String>) -> Result<Json, String> {
        self.depth += 1;
        if self.depth >= MAX_DEPTH {
            return Err(self.error_at("recursion limit exceeded", self.pos));
        }
        self.pos += 1; // the `[` or `{`
        let value = inner(self);
        self.depth -= 1;
        value
    }

    fn word(&mut self, word: &str, value: Json) -> Result<Json, String> {
        for &want in word.as_bytes() {
            match self.peek() {
                None => return Err(self.eof("EOF while parsing a value")),
                Some(b) if b == want => self.pos += 1,
                Some(_) => return Err(self.error_at("expected ident", self.pos)),
            }
        }
        Ok(value)
    }

    /// RFC 8259 §6: `-`? int frac? exp?, with no leading zeros.
    fn number(&mut self) -> Result<Json, String> {
        let start = self.pos;
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        match self.peek() {
            Some(b'0') => {
                self.pos += 1;
                if matches!(self.peek(), Some(b'0'..=b'9')) {
                    return Err(self.error_at("invalid number", self.pos));
                }
            }
            Some(b'1'..=b'9') => self.digits(),
            None => return Err(self.eof("EOF while parsing a value")),
            Some(_) => return Err(self.error_at("invalid number", self.pos)),
        }
        if self.peek() == Some(b'.') {
            self.pos += 1;
            self.at_least_one_digit()?;
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.pos += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.pos += 1;
            }
            self.at_least_one_digit()?;
        }
        let text = String::from_utf8_lossy(&self.bytes[start..self.pos]).into_owned();
        Ok(Json::Number(text))
    }

    fn digits(&mut self) {
        while matches!(self.peek(), Some(b'0'..=b'9')) {
            self.pos += 1;
        }
    }

    fn at_least_one_digit(&mut self) -> Result<(), String> {
        match self.peek() {
            Some(b'0'..=b'9') => {
                self.digits();
                Ok(())
            }
            None => Err(self.eof("EOF while parsing a value")),
            Some(_) => Err(self.error_at("invalid number", self.pos)),
        }
    }

    /// A string, its escapes undone (RFC 8259 §7); the bytes must be UTF-8 (§8.1).
    fn string(&mut self) -> Result<String, String> {
        self.pos += 1; // the opening quote
        let mut out = Vec::new();
        loop {
            let Some(b) = self.peek() else {
                return Err(self.eof("EOF while parsing a string"));
            };
            match b {
                b'"' => {
                    self.pos += 1;
                    break;
                }
                b'\\' => {
                    self.pos += 1;
                    self.escape(&mut out)?;
                }
                0..=0x1f => {
                    return Err(self.error_at(
                        "control character (\\u0000-\\u001F) found while parsing a string",
                        self.pos,
                    ));
                }
                0x20..=0x7f => {
                    out.push(b);
                    self.pos += 1;
                }
                _ => {
                    // One UTF-8 sequence, checked by std: 2 to 4 bytes.
                    let len = match b {
                        0xc2..=0xdf => 2,
                        0xe0..=0xef => 3,
                        0xf0..=0xf4 => 4,
                        _ => 0,
                    };
                    let seq = self.bytes.get(self.pos..self.pos + len);
                    match seq.filter(|s| len > 0 && std::str::from_utf8(s).is_ok()) {
                        Some(s) => out.extend_from_slice(s),
                        None => return Err(self.error_at("invalid unicode code point", self.pos)),
                    }
                    self.pos += len;
                }
            }
        }
        // Only whole UTF-8 sequences were pushed.
        String::from_utf8(out).map_err(|_| self.error_at("invalid unicode code point", self.pos))
    }

    /// The character after a `\`.
    fn escape(&mut self, out: &mut Vec<u8>) -> Result<(), String> {
        let Some(b) = self.peek() else {
            return Err(self.eof("EOF while parsing a string"));
        };
        self.pos += 1;
        let c = match b {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => self.unicode_escape()?,
            _ => return Err(self.error_at("invalid escape", self.pos - 1)),
        };
        out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
        Ok(())
    }

    /// `\uXXXX`, or two of them for a character beyond U+FFFF (a surrogate pair).
    fn unicode_escape(&mut self) -> Result<char, String> {
        let first = self.hex4()?;
        let code = if (0xdc00..0xe000).contains(&first) {
            return Err(self.error_at("lone leading surrogate in hex escape", self.pos - 1));
        } else if (0xd800..0xdc00).contains(&first) {
            // A high surrogate must be followed by `\u` and a low one.
            for want in [b'\\', b'u'] {
                if self.peek() != Some(want) {
                    return Err(self.error_at("unexpected end of hex escape", self.pos));
                }
                self.pos += 1;
            }
            let second = self.hex4()?;
            if !(0xdc00..0xe000).contains(&second) {
                return Err(self.error_at("lone leading surrogate in hex escape", self.pos - 1));
            }
            0x10000 + ((first - 0xd800) << 10) + (second - 0xdc00)
        } else {
            first
        };
        char::from_u32(code)
            .ok_or_else(|| self.error_at("invalid unicode code point", self.pos - 1))
    }

    fn hex4(&mut self) -> Result<u32, String> {
        let mut n = 0;
        for _ in 0..4 {
            let Some(b) = self.peek() else {
                return Err(self.eof("EOF while parsing a string"));
            };
            let digit = (b as char)
                .to_digit(16)
                .ok_or_else(|| self.error_at("invalid escape", self.pos))?;
            n = n * 16 + digit;
            self.pos += 1;
        }
        Ok(n)
    }

    /// `[` … `]`. After a `,` a value must follow: `[1,]` is a trailing comma.
    fn array(&mut self) -> Result<Json, String> {
        let mut items = Vec::new();
        loop {
            self.skip_whitespace();
            match (self.peek(), items.is_empty()) {
                (Some(b']'), true) => break,
                (None, true) => return Err(self.eof("EOF while parsing a list")),
                (_, true) => {}
                (Some(b','), false) => {
                    self.pos += 1;
                    self.skip_whitespace();
                    match self.peek() {
                        Some(b']') => return Err(self.error_at("trailing comma", self.pos)),
                        None => return Err(self.eof("EOF while parsing a value")),
                        Some(_) => {}
                    }
                }
                (Some(b']'), false) => break,
                (None, false) => return Err(self.eof("EOF while parsing a list")),
                (Some(_), false) => return Err(self.error_at("expected `,` or `]`", self.pos)),
            }
            items.push(self.value()?);
        }
        self.pos += 1; // the `]`
        Ok(Json::Array(items))
    }

    /// `{` … `}`: `"name": value` pairs, separated by `,`.
    fn object(&mut self) -> Result<Json, String> {
        let mut members = Vec::new();
        loop {
            self.skip_whitespace();
            match (self.peek(), members.is_empty()) {
                (Some(b'}'), _) if members.is_empty() => break,
                (None, true) => return Err(self.eof("EOF while parsing an object")),
                (_, true) => {}
                (Some(b','), false) => {
                    self.pos += 1;
                    self.skip_whitespace();
                    if self.peek() == Some(b'}') {
                        return Err(self.error_at("trailing comma", self.pos));
                    }
                }
                (Some(b'}'), false) => break,
                (None, false) => return Err(self.eof("EOF while parsing an object")),
                (Some(_), false) => return Err(self.error_at("expected `,` or `}`", self.pos)),
            }
            match self.peek() {
                Some(b'"') => {}
                None => return Err(self.eof("EOF while parsing a value")),
                Some(_) => return Err(self.error_at("key must be a string", self.pos)),
            }
            let key = self.string()?;
            self.skip_whitespace();
            match self.peek() {
                Some(b':') => self.pos += 1,
                None => return Err(self.eof("EOF while parsing an object")),
                Some(_) => return Err(self.error_at("expected `:`", self.pos)),
            }
            members.push((key, self.value()?));
        }
        self.pos += 1; // the `}`
        Ok(Json::Object(members))
    }
}
