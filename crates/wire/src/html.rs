//! `show FILE --html OUT.html`: the live page of `mcp-raw ui`, frozen into one
//! self-contained file. The page's own HTML, with its style and script inline (no
//! network access at all: nothing is fetched, not even from a listener), and the
//! recording's rows — made by [`Rows`], exactly what the live stream would carry —
//! embedded as JSON in a `<script type="application/json">` block. The same script
//! runs live (rows arrive over Server-Sent Events) and frozen (the rows are already
//! in the file).
//!
//! The page's files live here, in the wire crate, so both `show --html` and the
//! live listener (`mcp-raw-tools`' `ui::page`, which serves these constants) use one
//! copy: wire may not depend on tools.

use super::event::Event;
use super::rows::Rows;
use super::transcript::Header;
use serde_json::{Value, json};

/// The page's HTML, as the live listener serves it at `/`.
pub const INDEX: &str = include_str!("page/index.html");
/// The page's script, as the live listener serves it at `/ui.js`.
pub const JS: &str = include_str!("page/ui.js");
/// The page's style, as the live listener serves it at `/ui.css`.
pub const CSS: &str = include_str!("page/ui.css");

/// The side-by-side page of `mcp-raw ui A B`, served at `/diff.html`.
pub const DIFF_INDEX: &str = include_str!("page/diff.html");
/// Its script, served at `/diff.js`.
pub const DIFF_JS: &str = include_str!("page/diff.js");

/// Where the live page loads its style, and where the frozen one has it inline.
const CSS_LINK: &str = "<link rel=\"stylesheet\" href=\"/ui.css\">";
/// Where the live page loads its script.
const JS_LINK: &str = "<script type=\"module\" src=\"/ui.js\"></script>";

/// Every row `events` bring, in order, as the live stream would carry them.
pub fn rows(events: &[Event], max: usize) -> Vec<Value> {
    let mut rows = Rows::with_max(max);
    events
        .iter()
        .enumerate()
        .flat_map(|(n, e)| rows.feed(n, e))
        .collect()
}

/// The frozen page for these events, with `check`'s `findings` on them (the
/// checker lives above this crate: the caller runs it, `mcp_raw_tools::ui::findings`).
pub fn page(header: &Header, events: &[Event], max: usize, findings: Vec<Value>) -> String {
    let recording = json!({
        "header": header.to_json(),
        "events": events.len(),
        "rows": rows(events, max),
        "findings": findings,
    });
    let data = script_safe(&recording.to_string());
    INDEX
        .replacen(CSS_LINK, &format!("<style>\n{CSS}</style>"), 1)
        .replacen(
            JS_LINK,
            &format!(
                "<script type=\"application/json\" id=\"recording\">{data}</script>\n<script type=\"module\">\n{JS}</script>"
            ),
            1,
        )
}

/// JSON that may stand inside a `<script>` element: HTML ends a script's raw text
/// at the first `</script` (HTML Living Standard, 13.1.2.6, "restrictions for
/// contents of script elements"), and `<!--` changes how it is scanned, so every
/// `<`, `>` and `&` is written as its JSON escape (`\u003c`…), which `JSON.parse`
/// reads back as the same character. A payload's `</script>` stays text.
fn script_safe(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    for c in json.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            // Legal in JSON, line terminators in older JavaScript: escaped too.
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::{Dir, Lane, LaneKind, What};
    use std::time::Duration;

    #[test]
    fn the_page_files_have_the_places_the_frozen_page_fills() {
        assert_eq!(INDEX.matches(CSS_LINK).count(), 1);
        assert_eq!(INDEX.matches(JS_LINK).count(), 1);
        // Inline, nothing in them may end their element early.
        assert!(!JS.contains("</script"));
        assert!(!CSS.contains("</style"));
    }

    #[test]
    fn a_payload_cannot_break_out_of_the_data_block() {
        let hostile = br#"{"jsonrpc":"2.0","method":"x</script><script>alert(1)</script><!--","params":{"a":"&amp;"}}
"#;
        let events = vec![Event {
            t: Duration::from_millis(1),
            lane: Lane {
                id: 0,
                kind: LaneKind::Stdio,
            },
            dir: Dir::ToServer,
            what: What::Bytes(bytes::Bytes::copy_from_slice(hostile)),
        }];
        let header = Header::new("tap", "stdio");
        let page = page(&header, &events, 1 << 20, Vec::new());
        // Two scripts: the data and the page's own; the data block ends once.
        assert_eq!(page.matches("</script>").count(), 2);
        assert!(!page.contains("<!--"));
        assert!(!page.contains("src=\""), "nothing is loaded");
        assert!(!page.contains("href=\"/"), "nothing is loaded");
        // The data read back as JSON is the rows the live stream carries.
        let start = page.find("id=\"recording\">").unwrap() + "id=\"recording\">".len();
        let end = start + page[start..].find("</script>").unwrap();
        let data: Value = serde_json::from_str(&page[start..end]).unwrap();
        assert_eq!(data["rows"], json!(rows(&events, 1 << 20)));
        assert_eq!(data["events"], 1);
        assert_eq!(
            data["rows"][0]["bytes"],
            String::from_utf8_lossy(&hostile[..hostile.len() - 1]).as_ref()
        );
    }
}
