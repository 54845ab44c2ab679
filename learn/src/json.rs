//! JSON, read and written by hand: a value, a parser that says what is wrong and
//! where, and a writer. MCP messages are JSON-RPC 2.0, and JSON-RPC is JSON text
//! (RFC 8259), so this is the whole of what the protocol needs from a library.
//!
//! The parser's messages follow serde_json's wording ("expected value at line 1
//! column 1"), which is what mcp-raw's server answers: a learner comparing the two
//! servers' bytes sees the same error.

use std::fmt::Write as _;

/// A JSON value. Objects keep their members in the order they were written, so what
/// this crate sends is byte for byte what it built.
#[derive(Debug, Clone, PartialEq)]
pub enum Json {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A number, kept as its text: an id like `9007199254740993` comes back as sent.
    Number(String),
    /// A string, unescaped.
    Str(String),
    /// `[…]`.
    Array(Vec<Json>),
    /// `{…}`, members in order.
    Object(Vec<(String, Json)>),
}

impl Json {
    /// A string value.
    pub fn str(s: &str) -> Json {
        Json::Str(s.to_owned())
    }

    /// An object from `(name, value)` pairs, in that order.
    pub fn object<const N: usize>(members: [(&str, Json); N]) -> Json {
        Json::Object(members.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())
    }

    /// A member of an object; the last one wins when a name repeats (RFC 8259 §4
    /// leaves that open; serde_json, and so mcp-raw, keep the last).
    pub fn get(&self, name: &str) -> Option<&Json> {
        match self {
            Json::Object(members) => members.iter().rev().find(|(k, _)| k == name).map(|(_, v)| v),
            _ => None,
        }
    }

    /// The text of a string value.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Json::Str(s) => Some(s),
            _ => None,
        }
    }

    /// A number's value as a float.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Json::Number(n) => n.parse().ok(),
            _ => None,
        }
    }

    /// Is this a number written as an integer (no fraction, no exponent) that fits
    /// 64 bits? JSON-RPC ids "SHOULD NOT contain fractional parts".
    pub fn is_integer(&self) -> bool {
        match self {
            Json::Number(n) => {
                !n.contains(['.', 'e', 'E'])
                    && (n.parse::<i64>().is_ok() || n.parse::<u64>().is_ok())
            }
            _ => false,
        }
    }

    /// "a string", "an object", …: the kind of a value, for error messages.
    pub fn kind(&self) -> &'static str {
        match self {
            Json::Null => "null",
            Json::Bool(_) => "a boolean",
            Json::Number(_) => "a number",
            Json::Str(_) => "a string",
            Json::Array(_) => "an array",
            Json::Object(_) => "an object",
        }
    }
}

/// Compact JSON text, no spaces: `{"a":1}`. This is the form every message takes on
/// the wire here (one line per message on stdio needs no newline inside).
impl std::fmt::Display for Json {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Json::Null => f.write_str("null"),
            Json::Bool(b) => write!(f, "{b}"),
            Json::Number(n) => f.write_str(n),
            Json::Str(s) => write_string(f, s),
            Json::Array(items) => {
                f.write_char('[')?;
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_char(',')?;
                    }
                    write!(f, "{item}")?;
                }
                f.write_char(']')
            }
            Json::Object(members) => {
                f.write_char('{')?;
                for (i, (k, v)) in members.iter().enumerate() {
                    if i > 0 {
                        f.write_char(',')?;
                    }
                    write_string(f, k)?;
                    write!(f, ":{v}")?;
                }
                f.write_char('}')
            }
        }
    }
}

/// A string in quotes. RFC 8259 §7: `"`, `\` and the control characters U+0000 to
/// U+001F must be escaped; everything else (non-ASCII too) may go as it is.
fn write_string(f: &mut impl std::fmt::Write, s: &str) -> std::fmt::Result {
    f.write_char('"')?;
    for c in s.chars() {
        match c {
            '"' => f.write_str("\\\"")?,
            '\\' => f.write_str("\\\\")?,
            '\n' => f.write_str("\\n")?,
            '\r' => f.write_str("\\r")?,
            '\t' => f.write_str("\\t")?,
            '\u{8}' => f.write_str("\\b")?,
            '\u{c}' => f.write_str("\\f")?,
            c if c < ' ' => write!(f, "\\u{:04x}", c as u32)?,
            c => f.write_char(c)?,
        }
    }
    f.write_char('"')
}

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
        if self.depth > MAX_DEPTH {
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
            Some(b'0'..=b'9') => Ok(self.digits()),
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
        let code = if (0xd800..0xdc00).contains(&first) {
            if self.bytes.get(self.pos..self.pos + 2) != Some(b"\\u") {
                return Err(self
                    .error_at("lone leading surrogate in hex escape", self.pos.saturating_sub(1)));
            }
            self.pos += 2;
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

    fn array(&mut self) -> Result<Json, String> {
        let mut items = Vec::new();
        self.skip_whitespace();
        if self.peek() == Some(b']') {
            self.pos += 1;
            return Ok(Json::Array(items));
        }
        loop {
            items.push(self.value()?);
            self.skip_whitespace();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b']') => {
                    self.pos += 1;
                    return Ok(Json::Array(items));
                }
                None => return Err(self.eof("EOF while parsing a list")),
                Some(_) => return Err(self.error_at("expected `,` or `]`", self.pos)),
            }
        }
    }

    fn object(&mut self) -> Result<Json, String> {
        let mut members = Vec::new();
        self.skip_whitespace();
        if self.peek() == Some(b'}') {
            self.pos += 1;
            return Ok(Json::Object(members));
        }
        loop {
            self.skip_whitespace();
            match self.peek() {
                Some(b'"') => {}
                None => return Err(self.eof("EOF while parsing an object")),
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
            self.skip_whitespace();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b'}') => {
                    self.pos += 1;
                    return Ok(Json::Object(members));
                }
                None => return Err(self.eof("EOF while parsing an object")),
                Some(_) => return Err(self.error_at("expected `,` or `}`", self.pos)),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_is_read_is_written_back_the_same() {
        let text = r#"{"a":[1,-2.5e3,true,null],"b":"é\"\n\u0001","c":{}}"#;
        let value = parse(text.as_bytes()).unwrap();
        assert_eq!(value.to_string(), text.replace("\\u0001", "\\u0001"));
        assert_eq!(value.get("b").and_then(Json::as_str), Some("é\"\n\u{1}"));
    }

    #[test]
    fn bad_input_is_refused_with_where() {
        assert_eq!(parse(b"{\"a\":").unwrap_err(), "EOF while parsing a value at line 1 column 5");
        assert_eq!(parse(b"\xff").unwrap_err(), "expected value at line 1 column 1");
        assert_eq!(parse(b"{} x").unwrap_err(), "trailing characters at line 1 column 4");
        assert_eq!(parse(b"[1,]").unwrap_err(), "expected value at line 1 column 4");
        assert!(parse("[".repeat(200).as_bytes()).unwrap_err().starts_with("recursion limit"));
    }
}
