//! Text a peer wrote, made safe for a terminal. A header value, an SSE comment, a
//! JSON string or a child's stderr line may hold control characters: `ESC ]0;title
//! BEL` retitles the window, `ESC [2J` clears the screen, `CR` lets a line overwrite
//! the one before (a fake "0 errors"). Every view that prints bytes it did not make
//! passes them through [`escape`] (or [`escape_line`]) first, so such a character
//! is shown, never obeyed: `\x1b` for the C0 controls and DEL (ECMA-48 §5.2, the
//! 7-bit codes 0x00–0x1F and 0x7F), `\u{9b}` for the C1 controls (U+0080–U+009F,
//! ECMA-48 §5.3: a terminal may take U+009B alone as CSI).

use std::borrow::Cow;

/// Whether a terminal could act on `c` instead of showing it: C0 (but tab), DEL and
/// C1. A newline is one too: [`escape`] keeps it, [`escape_line`] does not.
pub fn is_control(c: char) -> bool {
    c != '\t' && c.is_control()
}

/// `text` with every control character but tab and newline written out visibly
/// (`\x1b`, `\r`, `\u{9b}`); borrowed when there is none.
pub fn escape(text: &str) -> Cow<'_, str> {
    escape_with(text, true)
}

/// [`escape`] for what must stay on one line: a newline is written `\n` too.
pub fn escape_line(text: &str) -> Cow<'_, str> {
    escape_with(text, false)
}

/// Bytes that may not be UTF-8 (a head, a stderr line), as safe text: invalid bytes
/// become U+FFFD, then [`escape`].
pub fn escape_bytes(bytes: &[u8]) -> String {
    escape(&String::from_utf8_lossy(bytes)).into_owned()
}

/// Serialized JSON made safe for a terminal without changing what it means:
/// serde_json escapes C0 in strings (RFC 8259 §7) but writes DEL and the C1
/// controls as they are; here they become `\u007f`, `\u009b`, the same string to
/// any JSON reader. (Outside strings JSON text is ASCII without them, so every one
/// found is inside a string.)
pub fn json_safe(json: &[u8]) -> std::borrow::Cow<'_, [u8]> {
    let is_c1 =
        |i: usize| json[i] == 0xC2 && json.get(i + 1).is_some_and(|b| (0x80..=0x9F).contains(b));
    if !memchr::memchr2_iter(0x7F, 0xC2, json).any(|i| json[i] == 0x7F || is_c1(i)) {
        return Cow::Borrowed(json);
    }
    let mut out = Vec::with_capacity(json.len() + 16);
    let mut i = 0;
    while i < json.len() {
        if json[i] == 0x7F {
            out.extend_from_slice(b"\\u007f");
            i += 1;
        } else if is_c1(i) {
            // UTF-8 writes U+0080–U+009F as C2 80–C2 9F: the second byte is the code point.
            out.extend_from_slice(format!("\\u{:04x}", json[i + 1]).as_bytes());
            i += 2;
        } else {
            out.push(json[i]);
            i += 1;
        }
    }
    Cow::Owned(out)
}

fn escape_with(text: &str, keep_newline: bool) -> Cow<'_, str> {
    let unsafe_char = |c: char| is_control(c) && !(keep_newline && c == '\n');
    if !text.chars().any(unsafe_char) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if !unsafe_char(c) {
            out.push(c);
            continue;
        }
        match c {
            '\r' => out.push_str("\\r"),
            '\n' => out.push_str("\\n"),
            c if (c as u32) < 0x80 => out.push_str(&format!("\\x{:02x}", c as u32)),
            c => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_are_shown_not_obeyed() {
        assert!(matches!(escape("plain\ttext\nok"), Cow::Borrowed(_)));
        assert_eq!(
            escape("a\x1b]0;title\x07b\x1b[2Jc\r\x7f\u{9b}d\n"),
            "a\\x1b]0;title\\x07b\\x1b[2Jc\\r\\x7f\\u{9b}d\n"
        );
        assert_eq!(escape_line("a\nb"), "a\\nb");
        assert_eq!(escape_bytes(b"\xff\x1b"), "\u{fffd}\\x1b");
        // U+00A0 and beyond are text, not controls.
        assert_eq!(escape("\u{a0}é"), "\u{a0}é");
        let json =
            serde_json::to_vec(&serde_json::json!({"t": "a\u{9b}b\u{7f}c\u{80}é\u{1b}"})).unwrap();
        let safe = json_safe(&json);
        assert_eq!(
            std::str::from_utf8(&safe).unwrap(),
            r#"{"t":"a\u009bb\u007fc\u0080é\u001b"}"#
        );
        let back: serde_json::Value = serde_json::from_slice(&safe).unwrap();
        assert_eq!(back["t"], "a\u{9b}b\u{7f}c\u{80}é\u{1b}");
        assert!(matches!(
            json_safe(b"{\"a\":\"\xc3\xa9\"}"),
            Cow::Borrowed(_)
        ));
    }
}
