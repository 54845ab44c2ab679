//! The rules that keep a Chinese page the whole of its English page, shared by
//! `tests/readme_translation.rs` (the README pair) and `tests/book.rs` (each chapter
//! of `docs/en/` and its twin in `docs/zh-CN/`).
//!
//! What must be the same in both files, byte for byte: every fenced code block
//! (info string and contents, in order) and, section by section, the inline
//! code spans (as a multiset: a translation may reorder them within a
//! section). What must have the same shape: the headings, their levels and
//! their order (the text is translated); in each section, the number of prose
//! paragraphs (list items count one each) and the tables' rows and columns.
//! What must be Chinese: the prose, every paragraph outside code blocks and tables
//! that contains letters holds a CJK character. The one line in each file that links
//! to the other language, and HTML comments (the markers of generated parts), are left
//! out of all of this. Standard library only.
#![allow(dead_code)]

/// One line of a Markdown file, as this test sees it.
pub enum Part<'a> {
    /// A heading outside code: its level (number of `#`) and its line.
    Heading(usize, &'a str, usize),
    /// A fenced code block: the fence line (info string) and everything up to
    /// and including the closing fence, and the line it starts on.
    Code(String, usize),
    /// A paragraph of prose (consecutive non-blank, non-table lines outside
    /// code; list items are paragraphs of their own), and its first line.
    Prose(String, usize),
    /// A table row, and its line.
    Row(&'a str, usize),
}

pub fn parts(text: &str) -> Vec<Part<'_>> {
    let mut out = Vec::new();
    let mut lines = text.lines().enumerate().peekable();
    let mut para = String::new();
    let mut para_start = 0;
    let flush = |para: &mut String, start: usize, out: &mut Vec<Part<'_>>| {
        if !para.trim().is_empty() {
            out.push(Part::Prose(std::mem::take(para), start));
        }
        para.clear();
    };
    while let Some((i, line)) = lines.next() {
        let n = i + 1;
        let t = line.trim_start();
        if t.starts_with("```") {
            flush(&mut para, para_start, &mut out);
            let mut block = String::from(line);
            block.push('\n');
            for (_, l) in lines.by_ref() {
                block.push_str(l);
                block.push('\n');
                if l.trim_start().starts_with("```") {
                    break;
                }
            }
            out.push(Part::Code(block, n));
        } else if line.starts_with('#') {
            flush(&mut para, para_start, &mut out);
            let level = line.chars().take_while(|&c| c == '#').count();
            out.push(Part::Heading(level, line, n));
        } else if t.starts_with('|') {
            flush(&mut para, para_start, &mut out);
            out.push(Part::Row(line, n));
        } else if t.is_empty() {
            flush(&mut para, para_start, &mut out);
        } else {
            let item = t.starts_with("- ")
                || t.starts_with("* ")
                || t.split_once(". ")
                    .is_some_and(|(d, _)| !d.is_empty() && d.chars().all(|c| c.is_ascii_digit()));
            if item {
                flush(&mut para, para_start, &mut out);
            }
            if para.is_empty() {
                para_start = n;
            }
            para.push_str(line);
            para.push('\n');
        }
    }
    flush(&mut para, para_start, &mut out);
    out
}

fn headings<'a>(parts: &[Part<'a>]) -> Vec<(usize, &'a str, usize)> {
    parts
        .iter()
        .filter_map(|p| match p {
            Part::Heading(level, line, n) => Some((*level, *line, *n)),
            _ => None,
        })
        .collect()
}

fn code_blocks(parts: &[Part<'_>]) -> Vec<(String, usize)> {
    parts
        .iter()
        .filter_map(|p| match p {
            Part::Code(block, n) => Some((block.clone(), *n)),
            _ => None,
        })
        .collect()
}

/// The line in each file that points at the other language's README, or an HTML
/// comment (what marks a generated part of a page): neither is translated.
fn is_language_link(para: &str) -> bool {
    para.contains("](README.md)")
        || para.contains("](README.zh-CN.md)")
        || para.trim_start().starts_with("<!--")
}

/// The inline code spans of a text, each with its backticks.
fn code_spans(text: &str) -> Vec<String> {
    text.split('`')
        .skip(1)
        .step_by(2)
        .map(|s| format!("`{s}`"))
        .collect()
}

/// A table row's number of columns: its `|` outside code spans, less one.
fn columns(row: &str) -> usize {
    row.split('`')
        .step_by(2)
        .map(|s| s.matches('|').count())
        .sum::<usize>()
        .saturating_sub(1)
}

/// One section: a heading and what follows it up to the next heading.
struct Section {
    /// The heading's line, to say which section differs.
    heading: String,
    /// Where the heading is, to say where.
    line: usize,
    /// Prose paragraphs (list items one each): a translation has as many.
    paragraphs: usize,
    /// Inline code of the heading and the section, sorted: copied unchanged.
    spans: Vec<String>,
    /// (line, columns) of each table row.
    rows: Vec<(usize, usize)>,
}

fn sections(parts: &[Part<'_>]) -> Vec<Section> {
    let mut out: Vec<Section> = Vec::new();
    for p in parts {
        match p {
            Part::Heading(_, line, n) => out.push(Section {
                heading: line.to_string(),
                line: *n,
                paragraphs: 0,
                spans: code_spans(line),
                rows: Vec::new(),
            }),
            // Before the first heading: only the link to the other language.
            _ if out.is_empty() => {}
            Part::Prose(text, _) if is_language_link(text) => {}
            Part::Prose(text, _) => {
                let s = out.last_mut().unwrap();
                s.paragraphs += 1;
                s.spans.extend(code_spans(text));
            }
            Part::Row(row, n) => {
                let s = out.last_mut().unwrap();
                s.spans.extend(code_spans(row));
                s.rows.push((*n, columns(row)));
            }
            Part::Code(..) => {}
        }
    }
    for s in &mut out {
        s.spans.sort();
    }
    out
}

fn is_cjk(c: char) -> bool {
    ('\u{4E00}'..='\u{9FFF}').contains(&c)
}

/// Prose with the code spans, links' targets and URLs taken out: what is left
/// is what a translator translates.
fn words(para: &str) -> String {
    let mut out = String::new();
    let mut in_code = false;
    let mut in_target = false;
    let mut prev = ' ';
    for c in para.chars() {
        match c {
            '`' => in_code = !in_code,
            '(' if prev == ']' && !in_code => in_target = true,
            ')' if in_target => in_target = false,
            _ if in_code || in_target => {}
            _ => out.push(c),
        }
        prev = c;
    }
    out.split_whitespace()
        .filter(|w| !w.contains("://"))
        .collect::<Vec<_>>()
        .join(" ")
}

fn is_prose(para: &str) -> bool {
    words(para).chars().any(|c| c.is_alphabetic())
}

/// The same headings at the same levels in the same order; panics saying where not.
pub fn same_headings(en_name: &str, en: &str, zh_name: &str, zh: &str) {
    let en = headings(&parts(en));
    let zh = headings(&parts(zh));
    for (i, (e, z)) in en.iter().zip(&zh).enumerate() {
        assert_eq!(
            e.0, z.0,
            "heading #{i} differs in level: {en_name} line {} {:?} vs {zh_name} line {} {:?}",
            e.2, e.1, z.2, z.1
        );
    }
    assert_eq!(
        en.len(),
        zh.len(),
        "{en_name} has {} headings, {zh_name} {}; the first one only in the longer: {:?}",
        en.len(),
        zh.len(),
        en.get(zh.len()).or(zh.get(en.len())).map(|h| (h.1, h.2))
    );
}

/// The same fenced code blocks, byte for byte, in the same order.
pub fn same_code_blocks(en_name: &str, en: &str, zh_name: &str, zh: &str) {
    let en = code_blocks(&parts(en));
    let zh = code_blocks(&parts(zh));
    for (i, (e, z)) in en.iter().zip(&zh).enumerate() {
        if e.0 != z.0 {
            let line =
                e.0.lines()
                    .zip(z.0.lines())
                    .position(|(a, b)| a != b)
                    .unwrap_or(e.0.lines().count().min(z.0.lines().count()));
            panic!(
                "code block #{i} differs ({en_name} line {}, {zh_name} line {}), \
                 first at its line {line}:\n  en: {:?}\n  zh: {:?}\ncopy the block from {en_name} unchanged",
                e.1,
                z.1,
                e.0.lines().nth(line),
                z.0.lines().nth(line)
            );
        }
    }
    assert_eq!(
        en.len(),
        zh.len(),
        "{en_name} has {} code blocks, {zh_name} {}; the first one only in the longer starts at line {:?}",
        en.len(),
        zh.len(),
        en.get(zh.len()).or(zh.get(en.len())).map(|b| b.1)
    );
}

/// Section by section: as many prose paragraphs, the same inline code, the same
/// tables' rows and columns.
pub fn same_sections(en_name: &str, en: &str, zh_name: &str, zh: &str) {
    let en = sections(&parts(en));
    let zh = sections(&parts(zh));
    for (e, z) in en.iter().zip(&zh) {
        let at = format!(
            "in the section {:?} ({en_name} line {}, {zh_name} line {} {:?})",
            e.heading, e.line, z.line, z.heading
        );
        assert_eq!(
            e.paragraphs, z.paragraphs,
            "{at}: {en_name} has {} prose paragraphs (list items count one each), {zh_name} {}",
            e.paragraphs, z.paragraphs
        );
        if e.spans != z.spans {
            let missing: Vec<&String> = e
                .spans
                .iter()
                .filter(|s| {
                    e.spans.iter().filter(|x| x == s).count()
                        > z.spans.iter().filter(|x| x == s).count()
                })
                .collect();
            let extra: Vec<&String> = z
                .spans
                .iter()
                .filter(|s| {
                    z.spans.iter().filter(|x| x == s).count()
                        > e.spans.iter().filter(|x| x == s).count()
                })
                .collect();
            panic!(
                "{at}: the inline code differs; more often in {en_name} than in {zh_name}: \
                 {missing:?}; more often in {zh_name}: {extra:?}. Inline code is copied unchanged"
            );
        }
        let first = e.rows.iter().zip(&z.rows).find(|(a, b)| a.1 != b.1);
        if let Some((a, b)) = first {
            panic!(
                "{at}: a table row has {} columns in {en_name} (line {}) and {} in {zh_name} (line {})",
                a.1, a.0, b.1, b.0
            );
        }
        assert_eq!(
            e.rows.len(),
            z.rows.len(),
            "{at}: {en_name} has {} table rows, {zh_name} {}; the first one only in the longer: line {:?}",
            e.rows.len(),
            z.rows.len(),
            e.rows
                .get(z.rows.len())
                .or(z.rows.get(e.rows.len()))
                .map(|r| r.0)
        );
    }
}

/// Every prose paragraph of the Chinese page holds Chinese; panics listing those that
/// do not. Returns (translated, all) for the caller's log line.
pub fn prose_is_chinese(zh_name: &str, zh: &str) -> (usize, usize) {
    let paras: Vec<(String, usize)> = parts(zh)
        .into_iter()
        .filter_map(|p| match p {
            Part::Prose(text, n) if is_prose(&text) && !is_language_link(&text) => Some((text, n)),
            _ => None,
        })
        .collect();
    let english: Vec<&(String, usize)> = paras
        .iter()
        .filter(|(text, _)| !text.chars().any(is_cjk))
        .collect();
    let list: String = english
        .iter()
        .map(|(text, n)| {
            let first = text.lines().next().unwrap_or("");
            format!("\n  line {n}: {first}")
        })
        .collect();
    assert!(
        english.is_empty(),
        "{} of {} prose paragraphs of {zh_name} contain no Chinese; not translated:{list}",
        english.len(),
        paras.len()
    );
    (paras.len() - english.len(), paras.len())
}
