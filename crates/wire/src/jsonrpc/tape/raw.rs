//! Reading JSON where it lies: a value of a text that [`super::check::scan`]
//! accepted, found by hopping along the tape the scan left ([`Node`]). Finding a
//! member reads no byte of the values it passes over and builds nothing; a string
//! without escapes is lent as it is; anything else becomes a `Value` through
//! serde_json itself, so a value read here is the one a whole-frame read would have
//! made (duplicate members included: the last one wins).

use super::check::{Node, scan};
use super::spare::{Tape, Text};
use serde_json::Value;
use std::borrow::Cow;

/// A checked JSON text and its tape, owned, and which of its values this is (a
/// request's `params`, kept past its frame: the frame's text copied, its tape moved,
/// both in buffers kept between frames, `jsonrpc/tape/spare.rs`).
#[derive(Clone)]
pub struct Doc {
    /// The text.
    text: Text,
    /// Its values, as the scan found them; the whole text's first.
    tape: Tape,
    /// The value this document stands for: its index on the tape.
    at: usize,
}

impl Doc {
    /// `text`, when it is JSON (as serde_json would read it).
    pub fn parse(text: &str) -> Option<Doc> {
        let mut tape = Tape::take();
        scan(text, &mut tape).then(|| Doc {
            text: Text::copy(text),
            tape,
            at: 0,
        })
    }

    /// The value at tape index `at` of `text`, whose tape [`scan`] filled: the text
    /// copied, the tape kept as it is.
    pub(crate) fn keep(text: &str, tape: Tape, at: usize) -> Doc {
        Doc {
            text: Text::copy(text),
            tape,
            at,
        }
    }

    /// The value this document stands for.
    pub fn root(&self) -> Raw<'_> {
        Raw {
            text: &self.text,
            tape: &self.tape,
            at: self.at,
        }
    }
}

/// One JSON value of a checked text: the text, its tape, and which value.
#[derive(Clone, Copy)]
pub struct Raw<'a> {
    /// The whole checked text.
    text: &'a str,
    /// Its tape.
    tape: &'a [Node],
    /// This value's index on the tape.
    at: usize,
}

impl std::fmt::Debug for Raw<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.text())
    }
}

impl PartialEq for Raw<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.text() == other.text()
    }
}

impl<'a> Raw<'a> {
    /// The top value of `text`, whose tape [`scan`] filled.
    pub(crate) fn top(text: &'a str, tape: &'a [Node]) -> Raw<'a> {
        Raw { text, tape, at: 0 }
    }

    /// This value's index on the tape.
    pub(crate) fn index(self) -> usize {
        self.at
    }

    fn node(self) -> Node {
        self.tape[self.at]
    }

    /// The value's text, as sent.
    pub fn text(self) -> &'a str {
        let node = self.node();
        &self.text[node.start as usize..node.end as usize]
    }

    fn first(self) -> Option<u8> {
        self.text
            .as_bytes()
            .get(self.node().start as usize)
            .copied()
    }

    /// Is this an object?
    pub fn is_object(self) -> bool {
        self.first() == Some(b'{')
    }

    /// Is this `null`?
    pub fn is_null(self) -> bool {
        self.first() == Some(b'n')
    }

    /// The JSON type name, for error messages (as [`crate::jsonrpc::kind`] words it).
    pub fn kind(self) -> &'static str {
        match self.first() {
            Some(b'{') => "an object",
            Some(b'[') => "an array",
            Some(b'"') => "a string",
            Some(b't' | b'f') => "a boolean",
            Some(b'n') => "null",
            _ => "a number",
        }
    }

    /// The string this is, unescaped; lent as sent when it has no escapes.
    pub fn as_str(self) -> Option<Cow<'a, str>> {
        let node = self.node();
        if self.first() != Some(b'"') {
            return None;
        }
        if node.escaped {
            return serde_json::from_str::<String>(self.text())
                .ok()
                .map(Cow::Owned);
        }
        // Inside the quotes: a checked string's quotes are one byte each.
        self.text
            .get(node.start as usize + 1..node.end as usize - 1)
            .map(Cow::Borrowed)
    }

    /// The number this is, as an `f64` (as `Value::as_f64` gives it).
    pub fn as_f64(self) -> Option<f64> {
        match self.first() {
            Some(b'-' | b'0'..=b'9') => self.to_value().as_f64(),
            _ => None,
        }
    }

    /// The value, built: what reading this text into a `Value` gives.
    pub fn to_value(self) -> Value {
        let text = self.text();
        match self.first() {
            Some(b'"') => {
                if let Some(Cow::Borrowed(s)) = self.as_str() {
                    return Value::String(s.to_owned());
                }
            }
            // Integers as serde_json reads them: a `u64`, or a negative `i64` ("-0"
            // is a float there, and left to it).
            // (Nineteen digits or fewer always fit a `u64`: folded as they come.)
            Some(b'0'..=b'9') if text.len() <= 19 => {
                let digits = text.bytes().try_fold(0u64, |n, c| {
                    c.is_ascii_digit().then(|| n * 10 + u64::from(c - b'0'))
                });
                if let Some(n) = digits {
                    return Value::from(n);
                }
            }
            // `{}` and `[]` (declared capabilities are often empty).
            Some(b'{') if self.node().next as usize == self.at + 1 => {
                return Value::Object(serde_json::Map::new());
            }
            Some(b'[') if self.node().next as usize == self.at + 1 => {
                return Value::Array(Vec::new());
            }
            Some(b'-') if text.len() <= 19 && text[1..].bytes().all(|c| c.is_ascii_digit()) => {
                if let Ok(n) = text.parse::<i64>()
                    && n < 0
                {
                    return Value::from(n);
                }
            }
            _ => {}
        }
        // The text passed the check: serde_json reads it.
        serde_json::from_str(text).unwrap_or(Value::Null)
    }

    /// The members of this object, in the order sent (nothing for any other value).
    pub fn members(self) -> Members<'a> {
        let node = self.node();
        let (at, end) = if self.is_object() {
            (self.at + 1, node.next as usize)
        } else {
            (0, 0)
        };
        Members {
            object: self,
            at,
            end,
        }
    }

    /// The member `key` of this object; the last one when it is named twice, as a
    /// read into a map keeps it.
    pub fn get(self, key: &str) -> Option<Raw<'a>> {
        let mut found = None;
        for (name, value) in self.members() {
            if name.is(key) {
                found = Some(value);
            }
        }
        found
    }
}

/// A member name as sent (a string, quotes included).
#[derive(Clone, Copy, Debug)]
pub struct Name<'a>(Raw<'a>);

impl<'a> Name<'a> {
    /// Is this name `key`? Compared as sent unless it has escapes.
    pub fn is(self, key: &str) -> bool {
        let node = self.0.node();
        if node.escaped {
            return self.as_str() == key;
        }
        let (start, end) = (node.start as usize + 1, node.end as usize - 1);
        end - start == key.len() && self.0.text.as_bytes().get(start..end) == Some(key.as_bytes())
    }

    /// The name as it lies between its quotes, when it has no escapes.
    pub fn plain(self) -> Option<&'a str> {
        let node = self.0.node();
        if node.escaped {
            return None;
        }
        self.0
            .text
            .get(node.start as usize + 1..node.end as usize - 1)
    }

    /// The name, unescaped.
    pub fn as_str(self) -> Cow<'a, str> {
        self.0.as_str().unwrap_or_default()
    }
}

/// The members of a checked object, hop by hop along its tape.
pub struct Members<'a> {
    /// The object (for its text and tape).
    object: Raw<'a>,
    /// The tape index of the next member's name.
    at: usize,
    /// Past the object's last member.
    end: usize,
}

impl<'a> Iterator for Members<'a> {
    type Item = (Name<'a>, Raw<'a>);

    fn next(&mut self) -> Option<Self::Item> {
        if self.at >= self.end {
            return None;
        }
        let name = Raw {
            at: self.at,
            ..self.object
        };
        let value = Raw {
            at: self.at + 1,
            ..self.object
        };
        self.at = value.node().next as usize;
        Some((Name(name), value))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    fn doc(text: &str) -> super::Doc {
        super::Doc::parse(text).unwrap_or_else(|| panic!("not JSON: {text}"))
    }

    #[test]
    fn members_are_found_where_they_lie() {
        let text = r#" { "name" : "echo" , "arguments":{"message":"a \"b\" ,}]"},
            "n":-1.5e3, "list":[1,{"x":[]}], "t":true, "z":null, "name":"last" } "#;
        let d = doc(text);
        let obj = d.root();
        let want: Value = serde_json::from_str(text).unwrap();
        let names: Vec<_> = obj
            .members()
            .map(|(n, _)| n.as_str().into_owned())
            .collect();
        assert_eq!(names, ["name", "arguments", "n", "list", "t", "z", "name"]);
        for (key, value) in want.as_object().unwrap() {
            assert_eq!(&obj.get(key).unwrap().to_value(), value, "{key}");
        }
        assert_eq!(obj.get("name").unwrap().text(), "\"last\"");
        assert_eq!(obj.get("missing"), None);
        let args = obj.get("arguments").unwrap();
        assert_eq!(
            args.get("message").unwrap().as_str().unwrap(),
            "a \"b\" ,}]"
        );
        assert_eq!(obj.get("n").unwrap().as_f64(), Some(-1500.0));
        assert_eq!(obj.get("t").unwrap().kind(), "a boolean");
        assert!(obj.get("z").unwrap().is_null());
        assert_eq!(obj.to_value(), want);
    }

    #[test]
    fn escaped_names_and_strings_are_read_as_serde_json_reads_them() {
        let d = doc(r#"{"\u006eame":"\ud83d\ude00 \u00e9","plain":"é"}"#);
        let obj = d.root();
        assert_eq!(obj.get("name").unwrap().as_str().unwrap(), "😀 é");
        assert!(matches!(
            obj.get("plain").unwrap().as_str(),
            Some(std::borrow::Cow::Borrowed("é"))
        ));
        assert_eq!(obj.get("plain").unwrap().to_value(), json!("é"));
    }

    #[test]
    fn only_objects_have_members() {
        for text in ["[1,2]", "\"s\"", "1", "null", "{}", "{ }"] {
            assert_eq!(doc(text).root().members().count(), 0, "{text}");
        }
        assert_eq!(doc("\"s\"").root().as_str().unwrap(), "s");
        assert_eq!(doc("[\"s\"]").root().as_str(), None);
    }

    /// Built values are serde_json's own, integers read the short way included.
    #[test]
    fn values_are_what_serde_json_makes_of_them() {
        for text in [
            "0",
            "7",
            "-7",
            "-0",
            "18446744073709551615",
            "18446744073709551616",
            "-9223372036854775808",
            "-9223372036854775809",
            "1234567890123456789",
            "-123456789012345678",
            "1.5",
            "-0.0",
            "1e3",
            "\"s\"",
            "\"\\u00e9\"",
            "true",
            "null",
            "{}",
            "[]",
            "{ }",
            "[ ]",
            "[{}]",
            "[1,{\"a\":2}]",
            " { \"a\" : [ ] } ",
        ] {
            let want: Value = serde_json::from_str(text).unwrap();
            let got = doc(text).root().to_value();
            assert_eq!(got, want, "{text}");
            // The same kind of number: `u64`, `i64` or `f64` alike.
            assert_eq!(got.to_string(), want.to_string(), "{text}");
        }
    }

    /// A value kept past its frame reads as it did in place.
    #[test]
    fn a_kept_value_reads_as_it_did_in_place() {
        let text = r#"[0, {"params": {"a": [1, {"b": "c"}], "d": {}}}, 2]"#;
        let d = doc(text);
        // Find `params` by hopping: the array's second item, its one member.
        let second = super::Raw { at: 2, ..d.root() };
        let inner = second.get("params").unwrap();
        let mut tape = super::Tape::take();
        assert!(super::scan(text, &mut tape));
        let kept = super::Doc::keep(text, tape, inner.at);
        assert_eq!(kept.root().text(), inner.text());
        assert_eq!(kept.root().to_value(), inner.to_value());
        assert_eq!(kept.root().get("a").unwrap().text(), "[1, {\"b\": \"c\"}]");
        assert_eq!(kept.root().get("d").unwrap().text(), "{}");
        let names: Vec<_> = kept.root().members().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["a", "d"]);
    }
}
