// Over 500 lines: about 175 of them are its unit tests, comparing it with serde_json.
//! Is this text JSON? One pass over a frame, building nothing, that says yes exactly
//! when reading it into a `serde_json::Value` would succeed: the same grammar
//! (RFC 8259), and the same extra refusals serde_json makes on the way. Those are:
//!
//! - a `\u` escape that is a lone UTF-16 surrogate, or a leading surrogate not followed
//!   at once by `\u` and a trailing one: a `String` cannot hold it;
//! - a number too large for an `f64` (`1e400`): "number out of range";
//! - the 128th container nested inside the others: serde_json's recursion limit.
//!
//! Why: most of the time of reading a small request went into building its `params`
//! as `Value`s (a map, a `String` per key and per string, a SipHash per member) and
//! freeing them again. A frame this pass accepts is then read where it lies
//! ([`super::raw`]); a frame it refuses is read by serde_json, whose error (words and
//! position) is the one the peer gets. So this pass never words an error, and it
//! must never accept what serde_json refuses: `tests` and the `json_check` fuzz target
//! compare the two on every input they make.

/// serde_json refuses the 128th container nested inside the others (its
/// `remaining_depth` starts at 128 and a read that brings it to 0 fails).
const DEPTH_LIMIT: u32 = 128;

/// A number longer than this, or one with an exponent, is handed to serde_json to
/// decide: only such numbers can be out of an `f64`'s range. A shorter one without an
/// exponent is below 10^300 whatever its digits are.
const SHORT_NUMBER: usize = 300;

/// One value of a checked text (a member name counts as one), in the order they
/// start: where it lies, and where the next value after it (and after everything
/// inside it) is on the tape. Walking a checked text is then hopping along its tape.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Node {
    /// Its first byte.
    pub start: u32,
    /// One past its last byte.
    pub end: u32,
    /// The tape index of the value after it: the next member's name or the next item
    /// (or past its container's last one).
    pub next: u32,
    /// A string with at least one escape: it must be unescaped to be read (one
    /// without is lent as it lies).
    pub escaped: bool,
}

/// Does serde_json read `text` into a `Value`? The frame reader's check, for a
/// caller that wants the answer alone (the fuzz target that holds it to serde_json).
pub fn is_json(text: &str) -> bool {
    scan(text, &mut Vec::new())
}

/// No container is open (the `next` of an open container's node, until it closes,
/// is the tape index of the one around it).
const NONE: u32 = u32::MAX;

/// Does serde_json read `text` into a `Value`? When it does, `tape` holds a [`Node`]
/// for each of its values, the top one first. (`text` is UTF-8 already: the frame
/// was checked once, as a whole.)
pub fn scan(text: &str, tape: &mut Vec<Node>) -> bool {
    tape.clear();
    // Offsets are kept in 31 bits, and a node takes at least one byte, so that
    // tape indexes fit too; a longer text is left to serde_json.
    if text.len() >= NONE as usize / 2 {
        return false;
    }
    tape.reserve(text.len().min(1 << 12) / 4 + 8);
    let b = text.as_bytes();
    let mut i = 0;
    // The innermost open container's tape index. Until a container closes, its
    // node's `next` holds the index of the one around it: the open containers are a
    // stack threaded through the tape, and a `{` or `[` at its start tells which.
    let mut open = NONE;
    // The innermost open container is an object (kept here, not read back from the
    // tape after every value).
    let mut in_object = false;
    let mut depth: u32 = 0;
    'value: loop {
        i = skip_space(b, i);
        let Some(&c) = b.get(i) else { return false };
        let start = i as u32;
        match c {
            b'{' | b'[' => {
                depth += 1;
                if depth >= DEPTH_LIMIT {
                    return false;
                }
                let at = tape.len() as u32;
                tape.push(Node {
                    start,
                    end: 0,
                    next: open,
                    escaped: false,
                });
                open = at;
                i = skip_space(b, i + 1);
                let close = if c == b'{' { b'}' } else { b']' };
                if b.get(i) == Some(&close) {
                    i += 1;
                    depth -= 1;
                    open = close_node(tape, open, i);
                } else if c == b'{' {
                    in_object = true;
                    match key(b, i, tape) {
                        Some(next) => i = next,
                        None => return false,
                    }
                    continue 'value;
                } else {
                    in_object = false;
                    continue 'value;
                }
            }
            _ => {
                let mut escaped = false;
                let end = match c {
                    b'"' => string(b, i).map(|(end, e)| {
                        escaped = e;
                        end
                    }),
                    b'-' | b'0'..=b'9' => number(text, i),
                    b't' if b[i..].starts_with(b"true") => Some(i + 4),
                    b'f' if b[i..].starts_with(b"false") => Some(i + 5),
                    b'n' if b[i..].starts_with(b"null") => Some(i + 4),
                    _ => None,
                };
                let Some(end) = end else { return false };
                i = end;
                let next = tape.len() as u32 + 1;
                tape.push(Node {
                    start,
                    end: end as u32,
                    next,
                    escaped,
                });
            }
        }
        // After a value: the end of the text, or what its container allows next.
        loop {
            i = skip_space(b, i);
            if depth == 0 {
                return i == b.len();
            }
            match b.get(i) {
                Some(b',') => {
                    i += 1;
                    if in_object {
                        match key(b, skip_space(b, i), tape) {
                            Some(next) => i = next,
                            None => return false,
                        }
                    }
                    continue 'value;
                }
                Some(b'}') if in_object => {}
                Some(b']') if !in_object => {}
                _ => return false,
            }
            i += 1;
            depth -= 1;
            open = close_node(tape, open, i);
            in_object = tape
                .get(open as usize)
                .is_some_and(|node| b.get(node.start as usize) == Some(&b'{'));
        }
    }
}

/// Closes the container whose node is at `at` (`end` is past its closing bracket);
/// the one around it, now innermost.
fn close_node(tape: &mut [Node], at: u32, end: usize) -> u32 {
    let next = tape.len() as u32;
    match tape.get_mut(at as usize) {
        Some(node) => {
            let outer = node.next;
            node.end = end as u32;
            node.next = next;
            outer
        }
        None => NONE,
    }
}

/// A member name and its colon, from `i` (at the name's quote), its node on the
/// tape; the index after the colon.
#[inline(always)]
fn key(b: &[u8], i: usize, tape: &mut Vec<Node>) -> Option<usize> {
    if b.get(i) != Some(&b'"') {
        return None;
    }
    let (end, escaped) = string(b, i)?;
    let next = tape.len() as u32 + 1;
    tape.push(Node {
        start: i as u32,
        end: end as u32,
        next,
        escaped,
    });
    let i = skip_space(b, end);
    (b.get(i) == Some(&b':')).then_some(i + 1)
}

/// The index of the first byte at or after `i` that is not JSON whitespace
/// (RFC 8259 §2: space, tab, line feed, carriage return).
#[inline(always)]
fn skip_space(b: &[u8], mut i: usize) -> usize {
    // Compact JSON has no whitespace between tokens: one compare says so (every
    // JSON whitespace byte is at most a space).
    if b.get(i).is_some_and(|&c| c > b' ') {
        return i;
    }
    while let Some(b' ' | b'\t' | b'\n' | b'\r') = b.get(i) {
        i += 1;
    }
    i
}

/// A string from its opening quote at `i`: the index after its closing quote, and
/// whether it has escapes.
#[inline(always)]
fn string(b: &[u8], mut i: usize) -> Option<(usize, bool)> {
    i += 1;
    let mut escaped = false;
    loop {
        i = plain(b, i);
        match *b.get(i)? {
            b'"' => return Some((i + 1, escaped)),
            b'\\' => {
                escaped = true;
                i = escape(b, i + 1)?;
            }
            // A control character (below U+0020) must be escaped (RFC 8259 §7).
            _ => return None,
        }
    }
}

/// The index of the first byte at or after `i` that ends a string's plain run: a
/// quote, a backslash or a control character (or the end). Eight bytes at a time.
#[inline(always)]
fn plain(b: &[u8], mut i: usize) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    while let Some(&[b0, b1, b2, b3, b4, b5, b6, b7]) = b.get(i..i + 8) {
        let v = u64::from_le_bytes([b0, b1, b2, b3, b4, b5, b6, b7]);
        // A byte of `x` is flagged when it is zero (or below 0x20 for the control
        // test); borrows may flag bytes above the first hit, never below it.
        let zero = |x: u64| x.wrapping_sub(ONES) & !x & HIGH;
        let hits = zero(v ^ (ONES * u64::from(b'"')))
            | zero(v ^ (ONES * u64::from(b'\\')))
            | (v.wrapping_sub(ONES * 0x20) & !v & HIGH);
        if hits != 0 {
            return i + (hits.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while let Some(&c) = b.get(i) {
        if c == b'"' || c == b'\\' || c < 0x20 {
            break;
        }
        i += 1;
    }
    i
}

/// An escape from the byte after its backslash; the index after it.
fn escape(b: &[u8], i: usize) -> Option<usize> {
    match *b.get(i)? {
        b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => Some(i + 1),
        b'u' => {
            let unit = hex4(b, i + 1)?;
            match unit {
                // A trailing surrogate with no leading one before it.
                0xDC00..=0xDFFF => None,
                // A leading surrogate: `\u` and a trailing one must follow at once.
                0xD800..=0xDBFF => {
                    if b.get(i + 5..i + 7) != Some(b"\\u") {
                        return None;
                    }
                    matches!(hex4(b, i + 7)?, 0xDC00..=0xDFFF).then_some(i + 11)
                }
                _ => Some(i + 5),
            }
        }
        _ => None,
    }
}

/// Four hex digits at `i`, as a UTF-16 code unit.
fn hex4(b: &[u8], i: usize) -> Option<u16> {
    let digits = b.get(i..i + 4)?;
    let mut unit = 0u16;
    for &d in digits {
        let v = match d {
            b'0'..=b'9' => d - b'0',
            b'a'..=b'f' => d - b'a' + 10,
            b'A'..=b'F' => d - b'A' + 10,
            _ => return None,
        };
        unit = (unit << 4) | u16::from(v);
    }
    Some(unit)
}

/// A number from `i` (RFC 8259 §6: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`);
/// the index after it.
fn number(text: &str, start: usize) -> Option<usize> {
    let b = text.as_bytes();
    let mut i = start;
    if b[i] == b'-' {
        i += 1;
    }
    match *b.get(i)? {
        // One leading zero, and no digit after it.
        b'0' => i += 1,
        b'1'..=b'9' => i = digits(b, i + 1),
        _ => return None,
    }
    if b.get(i) == Some(&b'.') {
        let after = digits(b, i + 1);
        if after == i + 1 {
            return None;
        }
        i = after;
    }
    let mut exponent = false;
    if let Some(b'e' | b'E') = b.get(i) {
        exponent = true;
        i += 1;
        if let Some(b'+' | b'-') = b.get(i) {
            i += 1;
        }
        let after = digits(b, i);
        if after == i {
            return None;
        }
        i = after;
    }
    if exponent || i - start > SHORT_NUMBER {
        // Range: serde_json decides (and reads numbers alone as in a document).
        serde_json::from_str::<serde_json::Value>(&text[start..i]).ok()?;
    }
    // A digit right after a lone leading zero ("01") is caught here too: it is no
    // structural byte, so the caller refuses it.
    Some(i)
}

/// The index of the first non-digit at or after `i`.
fn digits(b: &[u8], mut i: usize) -> usize {
    while let Some(b'0'..=b'9') = b.get(i) {
        i += 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::is_json;
    use serde_json::Value;

    /// The checker and serde_json agree on `text`.
    fn agrees(text: &str) {
        let want = serde_json::from_str::<Value>(text).is_ok();
        assert_eq!(is_json(text), want, "{text:?}");
    }

    #[test]
    fn agrees_with_serde_json_on_the_grammar() {
        for text in [
            "",
            " ",
            "{}",
            "[]",
            "{ }",
            "[ ]",
            " {} ",
            "{}x",
            "{},",
            "{}}",
            "[]]",
            "{",
            "[",
            "}",
            "]",
            "{\"a\":1}",
            "{\"a\" : 1 , \"b\":[1,2,{}]}",
            "{\"a\":1,}",
            "[1,]",
            "[,1]",
            "{,}",
            "{\"a\"}",
            "{\"a\":}",
            "{a:1}",
            "{\"a\":1 \"b\":2}",
            "[1 2]",
            "{\"a\":1,\"a\":2}",
            "true",
            "false",
            "null",
            "tru",
            "nul",
            "nulll",
            "True",
            "[true,false,null]",
            "[truex]",
            "\"x\"",
            "\"",
            "\"\\\"",
            "\t\r\n[\t1\r\n]\n",
            "\u{a0}1",
            "[1]\u{a0}",
            "{\"é\":\"ü\"}",
            "\"\u{7f}\"",
            "\"a\u{1}b\"",
            "\"a\nb\"",
            "\"\\n\\t\\r\\b\\f\\/\\\\\\\"\"",
            "\"\\q\"",
            "\"\\x41\"",
            "\"\\u0041\"",
            "\"\\u00e9\"",
            "\"\\u00E9\"",
            "\"\\u004\"",
            "\"\\u004g\"",
            "\"\\u\"",
            "\"\\",
            // Surrogates: paired, lone leading, lone trailing, reversed, split.
            "\"\\ud83d\\ude00\"",
            "\"\\uD83D\\uDE00\"",
            "\"\\ud800\"",
            "\"\\udc00\"",
            "\"\\ude00\\ud83d\"",
            "\"\\ud83d x\\ude00\"",
            "\"\\ud83d\\n\"",
            "\"\\ud83d\\u0041\"",
            "\"\\ud83d\\ud83d\\ude00\"",
            "\"\\ud83d\\",
            "\"\\ud83d\\u\"",
            "{\"\\ud800\":1}",
            "{\"\\ud83d\\ude00\":1}",
            // Numbers.
            "0",
            "-0",
            "01",
            "-01",
            "00",
            "1.",
            "1.5",
            ".5",
            "-",
            "-a",
            "+1",
            "1e",
            "1e+",
            "1e5",
            "1E-5",
            "1e+5",
            "1.5e3",
            "1.e3",
            "0.0",
            "-0.0e-0",
            "1x",
            "[1.5.3]",
            "18446744073709551615",
            "18446744073709551616",
            "-9223372036854775808",
            "-9223372036854775809",
            "1e308",
            "1e309",
            "-1e309",
            "1.7976931348623157e308",
            "1.7976931348623159e308",
            "1e-400",
            "0e999999999999",
            "1e999999999999",
            "1e-999999999999",
            "123456789012345678901234567890",
            "[1,-1,0.5,-0.5,1e2,2E-2]",
        ] {
            agrees(text);
        }
    }

    #[test]
    fn agrees_on_long_numbers() {
        for digits in [299, 300, 301, 308, 309, 310, 400] {
            let n = format!("1{}", "0".repeat(digits));
            agrees(&n);
            agrees(&format!("-{n}"));
            agrees(&format!("[{n}.5]"));
            agrees(&format!("0.{n}"));
            agrees(&format!("{n}e-100"));
            agrees(&format!("0.{}1e{}", "0".repeat(digits), digits + 5));
        }
    }

    #[test]
    fn agrees_on_the_depth_limit() {
        for depth in [1, 2, 126, 127, 128, 129, 200] {
            agrees(&format!("{}{}", "[".repeat(depth), "]".repeat(depth)));
            let objects = format!("{}1{}", "{\"a\":".repeat(depth), "}".repeat(depth));
            agrees(&objects);
            let mixed = format!(
                "{}{}{}",
                "[{\"a\":".repeat(depth / 2),
                "1",
                "}]".repeat(depth / 2)
            );
            agrees(&mixed);
            // Deep once, then shallow again: depth comes back down.
            agrees(&format!(
                "[{}{},[[1]]]",
                "[".repeat(depth),
                "]".repeat(depth)
            ));
        }
    }

    #[test]
    fn strings_longer_than_a_word_are_scanned_whole() {
        for len in 0..40 {
            let plain = "a".repeat(len);
            agrees(&format!("\"{plain}\""));
            agrees(&format!("\"{plain}\u{1}\""));
            agrees(&format!("\"{plain}\\\"{plain}\""));
            agrees(&format!("\"{plain}é{plain}\""));
            agrees(&format!("[\"{plain}\",\"{plain}\"]"));
            agrees(&format!("\"{plain}"));
        }
    }
}
