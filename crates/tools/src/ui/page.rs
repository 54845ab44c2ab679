//! The page's files, compiled into the binary: the page works with no network, and
//! nothing it loads comes from anywhere but this listener. They live in the wire
//! crate (`crates/wire/src/page/`), which also freezes them into `show --html`'s
//! one-file page.

/// One file of the page.
pub struct File {
    /// Its `Content-Type`.
    pub content_type: &'static str,
    /// Its bytes.
    pub body: &'static [u8],
}

/// The file served at `path`, if it is one of the page's.
pub fn file(path: &str) -> Option<File> {
    let (content_type, body): (&str, &[u8]) = match path {
        "/" | "/index.html" => (
            "text/html; charset=utf-8",
            crate::wire::html::INDEX.as_bytes(),
        ),
        "/ui.js" => (
            "text/javascript; charset=utf-8",
            crate::wire::html::JS.as_bytes(),
        ),
        "/ui.css" => ("text/css; charset=utf-8", crate::wire::html::CSS.as_bytes()),
        "/diff.html" => (
            "text/html; charset=utf-8",
            crate::wire::html::DIFF_INDEX.as_bytes(),
        ),
        "/diff.js" => (
            "text/javascript; charset=utf-8",
            crate::wire::html::DIFF_JS.as_bytes(),
        ),
        _ => return None,
    };
    Some(File { content_type, body })
}
