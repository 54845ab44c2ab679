//! One escaper for markup: text made safe to put inside HTML (`show --html`'s page)
//! or XML (`check --format junit`). Both escape `&`, `<`, `>` and `"` (text and
//! double-quoted attributes); XML also escapes `'`, and writes the control
//! characters XML 1.0 cannot carry at all (XML 1.0 §2.2 "Characters": only tab, LF
//! and CR below U+0020) as `\u{..}`, so a peer's odd bytes cannot make the report
//! unreadable.

/// `s` for HTML text or a double-quoted attribute.
pub fn html(s: &str) -> String {
    escape(s, false)
}

/// `s` for XML 1.0 text or an attribute: the five escapes, control characters written out.
pub fn xml(s: &str) -> String {
    escape(s, true)
}

fn escape(s: &str, xml: bool) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' if xml => out.push_str("&apos;"),
            '\n' | '\t' => out.push(c),
            c if xml && (c as u32) < 0x20 => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn html_and_xml_differ_only_in_apostrophes_and_controls() {
        let s = "a<b & \"c\" 'd'\u{1}\n";
        assert_eq!(super::html(s), "a&lt;b &amp; &quot;c&quot; 'd'\u{1}\n");
        assert_eq!(
            super::xml(s),
            "a&lt;b &amp; &quot;c&quot; &apos;d&apos;\\u{1}\n"
        );
    }
}
