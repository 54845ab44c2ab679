//! A JSON and JSONC (comments, trailing commas) reader that keeps each value's byte
//! span, so `wrap` can splice new bytes over one value and leave every other byte of
//! the file as it was: comments, key order, indentation, line endings, unknown fields.
//!
//! Ours, not a crate: what `wrap` needs is the spans of a few values and nothing
//! rewritten, and a reader of that size (RFC 8259's grammar plus `//`, `/* */` and a
//! comma before `}` or `]`) is smaller than the glue a CST crate would need.

use std::ops::Range;

/// One JSON value and where its bytes are in the file.
pub struct Node {
    /// The bytes of the value itself (from its first byte to its last, no blanks).
    pub span: Range<usize>,
    /// What it is.
    pub kind: Kind,
}

/// The shapes a value can have; numbers, booleans and null are told apart only as
/// `Scalar` (`wrap` never looks inside them).
pub enum Kind {
    /// An object's members in file order (a repeated key stays repeated).
    Object(Vec<(String, Node)>),
    /// An array's elements in order.
    Array(Vec<Node>),
    /// A string, its escapes decoded.
    String(String),
    /// A number, `true`, `false` or `null`.
    Scalar,
}

impl Node {
    /// The member named `key` (the last one, as JSON parsers that keep one do).
    pub fn get(&self, key: &str) -> Option<&Node> {
        match &self.kind {
            Kind::Object(members) => members.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// The decoded text if the value is a string.
    pub fn as_str(&self) -> Option<&str> {
        match &self.kind {
            Kind::String(s) => Some(s),
            _ => None,
        }
    }
}

/// Where a file failed to parse: 1-based line and column (in characters), and why.
#[derive(Debug)]
pub struct ParseError {
    /// The line, from 1.
    pub line: usize,
    /// The column, from 1, counted in characters.
    pub column: usize,
    /// What was expected or found there.
    pub message: String,
}

/// The line and column (1-based, columns in characters) of byte `at` in `text`.
pub fn line_col(text: &str, at: usize) -> (usize, usize) {
    let at = at.min(text.len());
    let before = &text.as_bytes()[..at];
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let column = String::from_utf8_lossy(&before[start..]).chars().count() + 1;
    (line, column)
}

/// Parses a whole document: one value, blanks and comments around it.
pub fn parse(text: &str) -> Result<Node, ParseError> {
    let mut p = Parser {
        text,
        at: 0,
        depth: 0,
    };
    // A UTF-8 byte order mark is kept in the file and skipped here.
    if text.starts_with('\u{feff}') {
        p.at = 3;
    }
    p.blank()?;
    let value = p.value()?;
    p.blank()?;
    if p.at < text.len() {
        return Err(p.error("expected the end of the file after the top-level value"));
    }
    Ok(value)
}

/// Nesting deeper than this is refused rather than overflowing the stack.
const MAX_DEPTH: usize = 512;

/// The reader's place in the text.
struct Parser<'a> {
    /// The whole document.
    text: &'a str,
    /// The byte being read.
    at: usize,
    /// Objects and arrays open around it (bounded by [`MAX_DEPTH`]).
    depth: usize,
}

impl Parser<'_> {
    fn error(&self, message: &str) -> ParseError {
        let (line, column) = line_col(self.text, self.at);
        let found = match self.text[self.at..].chars().next() {
            Some(c) => format!(" (found {c:?})"),
            None => " (found the end of the file)".to_owned(),
        };
        ParseError {
            line,
            column,
            message: format!("{message}{found}"),
        }
    }

    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.at).copied()
    }

    /// Skips white space and comments.
    fn blank(&mut self) -> Result<(), ParseError> {
        loop {
            match self.peek() {
                Some(b' ' | b'\t' | b'\n' | b'\r') => self.at += 1,
                Some(b'/') if self.text[self.at..].starts_with("//") => {
                    self.at = self.text[self.at..]
                        .find('\n')
                        .map_or(self.text.len(), |i| self.at + i);
                }
                Some(b'/') if self.text[self.at..].starts_with("/*") => {
                    match self.text[self.at + 2..].find("*/") {
                        Some(i) => self.at += 2 + i + 2,
                        None => return Err(self.error("a /* comment is never closed")),
                    }
                }
                _ => return Ok(()),
            }
        }
    }

    fn value(&mut self) -> Result<Node, ParseError> {
        let start = self.at;
        let kind = match self.peek() {
            Some(b'{') => self.nested(b'}', true)?,
            Some(b'[') => self.nested(b']', false)?,
            Some(b'"') => Kind::String(self.string()?),
            Some(b't') if self.text[self.at..].starts_with("true") => self.word(4),
            Some(b'f') if self.text[self.at..].starts_with("false") => self.word(5),
            Some(b'n') if self.text[self.at..].starts_with("null") => self.word(4),
            Some(b'-' | b'0'..=b'9') => self.number(),
            _ => return Err(self.error("expected a value")),
        };
        Ok(Node {
            span: start..self.at,
            kind,
        })
    }

    fn word(&mut self, len: usize) -> Kind {
        self.at += len;
        Kind::Scalar
    }

    fn number(&mut self) -> Kind {
        while let Some(b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9') = self.peek() {
            self.at += 1;
        }
        Kind::Scalar
    }

    /// An object (`close` is `}`) or an array (`]`), a trailing comma allowed.
    fn nested(&mut self, close: u8, object: bool) -> Result<Kind, ParseError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.error("nested too deep"));
        }
        self.at += 1;
        let mut members = Vec::new();
        let mut elements = Vec::new();
        loop {
            self.blank()?;
            if self.peek() == Some(close) {
                self.at += 1;
                break;
            }
            if object {
                if self.peek() != Some(b'"') {
                    return Err(self.error("expected a member name in double quotes, or }"));
                }
                let key = self.string()?;
                self.blank()?;
                if self.peek() != Some(b':') {
                    return Err(self.error("expected ':' after the member name"));
                }
                self.at += 1;
                self.blank()?;
                members.push((key, self.value()?));
            } else {
                elements.push(self.value()?);
            }
            self.blank()?;
            match self.peek() {
                Some(b',') => self.at += 1,
                Some(c) if c == close => {}
                _ if object => return Err(self.error("expected ',' or '}'")),
                _ => return Err(self.error("expected ',' or ']'")),
            }
        }
        self.depth -= 1;
        Ok(if object {
            Kind::Object(members)
        } else {
            Kind::Array(elements)
        })
    }

    /// A string from its opening quote; returns its decoded text.
    fn string(&mut self) -> Result<String, ParseError> {
        self.at += 1;
        let mut out = String::new();
        loop {
            let rest = &self.text[self.at..];
            let Some(i) = rest.find(['"', '\\', '\n']) else {
                self.at = self.text.len();
                return Err(self.error("a string is never closed"));
            };
            out.push_str(&rest[..i]);
            self.at += i;
            match self.peek() {
                Some(b'"') => {
                    self.at += 1;
                    return Ok(out);
                }
                Some(b'\n') => return Err(self.error("a string runs past the end of its line")),
                _ => {
                    self.at += 1;
                    let c = match self.peek() {
                        Some(b'"') => '"',
                        Some(b'\\') => '\\',
                        Some(b'/') => '/',
                        Some(b'b') => '\u{8}',
                        Some(b'f') => '\u{c}',
                        Some(b'n') => '\n',
                        Some(b'r') => '\r',
                        Some(b't') => '\t',
                        Some(b'u') => {
                            self.at += 1;
                            let hi = self.hex4()?;
                            let code = if (0xD800..0xDC00).contains(&hi)
                                && self.text[self.at..].starts_with("\\u")
                            {
                                self.at += 2;
                                let lo = self.hex4()?;
                                0x10000 + ((hi - 0xD800) << 10) + (lo.wrapping_sub(0xDC00) & 0x3FF)
                            } else {
                                hi
                            };
                            out.push(char::from_u32(code).unwrap_or('\u{fffd}'));
                            continue;
                        }
                        _ => return Err(self.error("an unknown escape in a string")),
                    };
                    out.push(c);
                    self.at += 1;
                }
            }
        }
    }

    fn hex4(&mut self) -> Result<u32, ParseError> {
        let digits = self.text.get(self.at..self.at + 4).unwrap_or("");
        match u32::from_str_radix(digits, 16) {
            Ok(n) if digits.len() == 4 => {
                self.at += 4;
                Ok(n)
            }
            _ => Err(self.error("expected four hex digits after \\u")),
        }
    }
}

/// `s` as a JSON string literal (quotes included): `"`, `\` and control characters
/// escaped, everything else as it is.
pub fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => {
                out.push_str(&format!("\\u{:04x}", c as u32));
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_comments_and_trailing_commas() {
        let text = "{\n  // c\n  \"a\": [\"x\", \"y\",], /* b */ \"b\": {\"c\": 1,},\n}\n";
        let doc = parse(text).expect("parses");
        let a = doc.get("a").expect("a");
        assert_eq!(&text[a.span.clone()], "[\"x\", \"y\",]");
        let b = doc.get("b").and_then(|b| b.get("c")).expect("b.c");
        assert_eq!(&text[b.span.clone()], "1");
    }

    #[test]
    fn errors_say_line_and_column() {
        let e = parse("{\n  \"a\": 1\n  \"b\": 2\n}").err().expect("fails");
        assert_eq!((e.line, e.column), (3, 3), "{}", e.message);
        let e = parse("{\"s\": \"\\ud83d\\ude00é\" , \"t\": x}")
            .err()
            .expect("fails");
        assert_eq!((e.line, e.column), (1, 30), "{}", e.message);
    }

    #[test]
    fn strings_decode_and_quote_back() {
        let doc = parse(r#"{"p": "C:\\Program Files\\n\u00e9\ud83d\ude00"}"#).expect("parses");
        let p = doc.get("p").and_then(Node::as_str).expect("p");
        assert_eq!(p, "C:\\Program Files\\né😀");
        assert_eq!(quote(p), "\"C:\\\\Program Files\\\\né😀\"");
    }
}
