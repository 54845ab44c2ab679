//! JSON values, built and written by hand (the parser is `parse.rs`). MCP messages
//! are JSON-RPC 2.0, and JSON-RPC is JSON text (RFC 8259): this and `parse.rs` are
//! the whole of what the protocol needs from a library.

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

pub use crate::parse::parse;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_is_read_is_written_back_the_same() {
        let text = r#"{"a":[1,-2.5e3,true,null],"b":"é\"\n\u0001","c":{}}"#;
        let value = parse(text.as_bytes()).unwrap();
        assert_eq!(value.to_string(), text);
        assert_eq!(value.get("b").and_then(Json::as_str), Some("é\"\n\u{1}"));
    }
}
