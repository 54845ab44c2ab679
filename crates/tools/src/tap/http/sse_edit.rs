//! `tap --intercept` on an event stream: the events of a stretch of its text, the
//! `data` of each (its `data:` lines joined by LF, as a browser's EventSource joins
//! them: the HTML Living Standard, "server-sent events", "dispatch the event"), and
//! an event with new data in place of its own, every other line kept.

use bytes::Bytes;

/// An edited event's data on one line: a CR or LF in it would end the `data:` line
/// (the event stream's line ends), so JSON written over lines is written again on
/// one; the page sends JSON only.
pub(super) fn one_line(new: Bytes) -> Bytes {
    if !new.iter().any(|b| *b == b'\r' || *b == b'\n') {
        return new;
    }
    match serde_json::from_slice::<serde_json::Value>(&new) {
        Ok(v) => Bytes::from(v.to_string()),
        Err(_) => Bytes::from(
            new.iter()
                .map(|b| if *b == b'\r' || *b == b'\n' { b' ' } else { *b })
                .collect::<Vec<u8>>(),
        ),
    }
}

/// The lines of `bytes`, each with its line end (CRLF, LF or a lone CR: the event
/// stream's three).
fn lines(bytes: &[u8]) -> Vec<&[u8]> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\n' => {
                out.push(&bytes[start..=i]);
                start = i + 1;
            }
            b'\r' => {
                let end = if bytes.get(i + 1) == Some(&b'\n') {
                    i + 1
                } else {
                    i
                };
                out.push(&bytes[start..=end]);
                start = end + 1;
                i = end;
            }
            _ => {}
        }
        i += 1;
    }
    if start < bytes.len() {
        out.push(&bytes[start..]);
    }
    out
}

/// Whole events, each with the blank line that ends it.
pub(super) fn split_events(text: &[u8]) -> Vec<&[u8]> {
    let mut out = Vec::new();
    let (mut start, mut at) = (0, 0);
    for line in lines(text) {
        at += line.len();
        if line.trim_ascii_end().is_empty() && line.iter().all(|b| *b == b'\r' || *b == b'\n') {
            out.push(&text[start..at]);
            start = at;
        }
    }
    if start < text.len() {
        out.push(&text[start..]);
    }
    out
}

/// A line's field name and value (one space after the colon dropped).
fn field(line: &[u8]) -> (&[u8], &[u8]) {
    let line = strip_end(line);
    match line.iter().position(|b| *b == b':') {
        Some(i) => {
            let v = &line[i + 1..];
            (&line[..i], v.strip_prefix(b" ").unwrap_or(v))
        }
        None => (line, &[]),
    }
}

/// A line without its line end.
fn strip_end(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// The event's line end (its first line's).
fn line_end(event: &[u8]) -> &[u8] {
    let first = lines(event).into_iter().next().unwrap_or(b"\n");
    let bare = strip_end(first).len();
    if bare == first.len() {
        b"\n"
    } else {
        &first[bare..]
    }
}

/// An event's data: its `data` lines' values joined by LF.
pub(super) fn data_of(event: &[u8]) -> Vec<u8> {
    let mut data: Vec<&[u8]> = Vec::new();
    for line in lines(event) {
        let (name, value) = field(line);
        if name == b"data" {
            data.push(value);
        }
    }
    data.join(&b'\n')
}

/// The event with one `data: NEW` line in place of its first data line, its other
/// data lines gone, every other line (`id`, `event`, `retry`, comments) as it was.
pub(super) fn with_data(event: &[u8], new: &[u8]) -> Vec<u8> {
    let eol = line_end(event);
    let mut out = Vec::with_capacity(event.len() + new.len());
    let mut placed = false;
    for line in lines(event) {
        if field(line).0 == b"data" && strip_end(line) != b"" {
            if !placed {
                out.extend_from_slice(b"data: ");
                out.extend_from_slice(new);
                out.extend_from_slice(eol);
                placed = true;
            }
            continue;
        }
        out.extend_from_slice(line);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_split_at_blank_lines_and_edits_stay_on_one_line() {
        assert_eq!(split_events(b"data: 1\n\ndata: 2\r\n\r\n: c\r\r").len(), 3);
        assert_eq!(data_of(b"event: m\ndata: a\ndata:b\n\n"), b"a\nb");
        assert_eq!(
            &one_line(Bytes::from_static(b"{\"a\":\r 2}"))[..],
            b"{\"a\":2}"
        );
        assert_eq!(
            with_data(b"id: 1\ndata: x\nretry: 5\ndata: y\n\n", b"z"),
            b"id: 1\ndata: z\nretry: 5\n\n"
        );
        assert_eq!(line_end(b"data: x\r\n\r\n"), b"\r\n");
    }
}
