//! A payload laid out for a reader, as the text view (`>>>`/`<<<` without `--raw`)
//! and the HTML page show it: JSON re-indented with its keys in the order they came,
//! a value that fits on one line kept there, anything that is not JSON shown with its
//! invisible bytes marked; every peer's text made safe for a terminal on the way.

use super::text::Style;
use serde_json::Value;

/// Bytes as text with the invisible ones marked. Runs of plain characters are copied
/// whole (a JSON line is one run up to its newline).
pub fn mark(bytes: &[u8], s: &Style) -> String {
    let mut out = String::with_capacity(bytes.len() + 16);
    let mut rest = bytes;
    if let Some(r) = rest.strip_prefix(b"\xEF\xBB\xBF") {
        out.push_str(&format!("{}⟨BOM⟩{}", s.dim, s.reset));
        rest = r;
    }
    for chunk in rest.utf8_chunks() {
        let valid = chunk.valid();
        let (text, mut start, mut i) = (valid.as_bytes(), 0, 0);
        while i < text.len() {
            // Plain: printable ASCII, and tab, passed over byte by byte; anything
            // else is a character to look at (an ASCII byte is always a boundary).
            if (b' '..=b'~').contains(&text[i]) || text[i] == b'\t' {
                i += 1;
                continue;
            }
            let Some(c) = valid[i..].chars().next() else {
                break;
            };
            if c == '\r' || super::term::is_control(c) {
                out.push_str(&valid[start..i]);
                if c == '\r' {
                    out.push_str(&format!("{}␍{}", s.dim, s.reset));
                } else {
                    out.push_str(&format!("{}⟨{:02x}⟩{}", s.dim, c as u32, s.reset));
                }
                start = i + c.len_utf8();
            }
            i += c.len_utf8();
        }
        out.push_str(&valid[start..]);
        for b in chunk.invalid() {
            out.push_str(&format!("{}⟨{b:02x}⟩{}", s.dim, s.reset));
        }
    }
    out
}

/// The readable view of a payload: JSON re-indented, anything else marked.
pub fn json_text(bytes: &[u8], s: &Style) -> String {
    match serde_json::from_slice::<Value>(bytes) {
        Ok(v) => {
            let mut out = String::new();
            pretty(&v, 0, s, &mut out);
            out
        }
        Err(_) => mark(bytes, s),
    }
}

/// The widest a value may be, with its indentation, to stay on one line: so a
/// message's first screen shows its shape, not a column of braces.
const INLINE_WIDTH: usize = 72;

/// Two-space indented JSON with the keys in the order they came; an object or array
/// whose one-line form (`{"a": 1, "b": [2, 3]}`) fits in `INLINE_WIDTH` (72) with its
/// indentation stays on one line.
pub fn pretty(v: &Value, depth: usize, s: &Style, out: &mut String) {
    let pad = |d: usize| "  ".repeat(d);
    if (v.is_object() || v.is_array()) && depth * 2 + inline_len(v) <= INLINE_WIDTH {
        inline(v, s, out);
        return;
    }
    match v {
        Value::Object(map) if !map.is_empty() => {
            out.push_str("{\n");
            for (i, (k, v)) in map.iter().enumerate() {
                out.push_str(&pad(depth + 1));
                out.push_str(&format!("{}{}{}: ", s.key, json_string(k), s.reset));
                pretty(v, depth + 1, s, out);
                out.push_str(if i + 1 < map.len() { ",\n" } else { "\n" });
            }
            out.push_str(&pad(depth));
            out.push('}');
        }
        Value::Array(items) if !items.is_empty() => {
            out.push_str("[\n");
            for (i, v) in items.iter().enumerate() {
                out.push_str(&pad(depth + 1));
                pretty(v, depth + 1, s, out);
                out.push_str(if i + 1 < items.len() { ",\n" } else { "\n" });
            }
            out.push_str(&pad(depth));
            out.push(']');
        }
        _ => inline(v, s, out),
    }
}

/// A JSON string as written (quoted, escaped), safe for a terminal: JSON escapes
/// C0 (RFC 8259 §7) but lets DEL and the C1 controls through, which
/// [`super::term::escape`] then writes out (`\x7f`, `\u{9b}`).
fn json_string(text: &str) -> String {
    let quoted = Value::String(text.to_owned()).to_string();
    super::term::escape(&quoted).into_owned()
}

/// The length of `v` on one line, as [`inline`] writes it (without colours).
fn inline_len(v: &Value) -> usize {
    match v {
        Value::Object(map) if !map.is_empty() => {
            // `{` `}`, `"k": ` per key, `, ` between.
            2 + map
                .iter()
                .map(|(k, v)| Value::String(k.clone()).to_string().len() + 2 + inline_len(v))
                .sum::<usize>()
                + 2 * (map.len() - 1)
        }
        Value::Array(items) if !items.is_empty() => {
            2 + items.iter().map(inline_len).sum::<usize>() + 2 * (items.len() - 1)
        }
        other => other.to_string().len(),
    }
}

/// `v` on one line: `{"a": 1, "b": [2, 3]}`, coloured like [`pretty`].
fn inline(v: &Value, s: &Style, out: &mut String) {
    match v {
        Value::Object(map) if !map.is_empty() => {
            out.push('{');
            for (i, (k, v)) in map.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                out.push_str(&format!("{}{}{}: ", s.key, json_string(k), s.reset));
                inline(v, s, out);
            }
            out.push('}');
        }
        Value::Array(items) if !items.is_empty() => {
            out.push('[');
            for (i, v) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                inline(v, s, out);
            }
            out.push(']');
        }
        Value::String(text) => {
            out.push_str(&format!("{}{}{}", s.string, json_string(text), s.reset))
        }
        Value::Number(_) => out.push_str(&format!("{}{v}{}", s.number, s.reset)),
        Value::Bool(_) | Value::Null => out.push_str(&format!("{}{v}{}", s.literal, s.reset)),
        _ => out.push_str(&format!("{}{v}{}", s.dim, s.reset)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `mark` as it was, a character at a time: the reference the run-copying one
    /// must equal.
    fn marked_one_by_one(bytes: &[u8], s: &Style) -> String {
        let mut out = String::new();
        let mut rest = bytes;
        if let Some(r) = rest.strip_prefix(b"\xEF\xBB\xBF") {
            out.push_str(&format!("{}⟨BOM⟩{}", s.dim, s.reset));
            rest = r;
        }
        for chunk in rest.utf8_chunks() {
            for c in chunk.valid().chars() {
                match c {
                    '\r' => out.push_str(&format!("{}␍{}", s.dim, s.reset)),
                    '\t' => out.push('\t'),
                    c if crate::term::is_control(c) => {
                        out.push_str(&format!("{}⟨{:02x}⟩{}", s.dim, c as u32, s.reset))
                    }
                    c => out.push(c),
                }
            }
            for b in chunk.invalid() {
                out.push_str(&format!("{}⟨{b:02x}⟩{}", s.dim, s.reset));
            }
        }
        out
    }

    #[test]
    fn marking_runs_equals_marking_each_character() {
        for bytes in [
            &b"{\"jsonrpc\":\"2.0\",\"id\":1}\n"[..],
            b"\xEF\xBB\xBFa\r\n\tb\x1b[31m\x7f",
            "caf\u{e9} \u{202e}rtl\u{9b} \u{1F600}".as_bytes(),
            b"bad \xff\xfe utf8 \xc3",
            b"",
            b"\r",
        ] {
            for style in [&crate::text::PLAIN, &crate::text::COLOR] {
                assert_eq!(
                    mark(bytes, style),
                    marked_one_by_one(bytes, style),
                    "{bytes:?}"
                );
            }
        }
    }
}
