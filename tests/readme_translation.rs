//! `README.zh-CN.md` is the whole of `README.md` in Simplified Chinese.
//!
//! When README.md changes, README.zh-CN.md changes with it, and this test says
//! where: the first heading whose level differs, the index (and first line) of
//! the first code block that differs, the section whose paragraphs, inline code
//! or tables no longer match, or the paragraphs still in English.
//!
//! What must be the same in both files, byte for byte: every fenced code block
//! (info string and contents, in order) and, section by section, the inline
//! code spans (as a multiset: a translation may reorder them within a
//! section). What must have the same shape: the headings, their levels and
//! their order (the text is translated); in each section, the number of prose
//! paragraphs (list items count one each) and the tables' rows and columns.
//! What must be Chinese: the prose — at least [`MIN_TRANSLATED_PERCENT`] of the
//! paragraphs outside code blocks and tables that contain letters hold a CJK
//! character. The one line in each file that links to the other language is
//! left out of all of this. Standard library only.

const EN: &str = include_str!("../README.md");
const ZH: &str = include_str!("../README.zh-CN.md");

/// The share of prose paragraphs (outside code and tables, with letters) that
/// must contain a CJK character in README.zh-CN.md. The translation is whole:
/// every paragraph is translated, so a new English one fails the test.
const MIN_TRANSLATED_PERCENT: usize = 100;

/// One line of a Markdown file, as this test sees it.
enum Part<'a> {
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

fn parts(text: &str) -> Vec<Part<'_>> {
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

/// The line in each file that points at the other language's README.
fn is_language_link(para: &str) -> bool {
    para.contains("](README.md)") || para.contains("](README.zh-CN.md)")
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
    heading: String,
    line: usize,
    paragraphs: usize,
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

#[test]
fn the_chinese_readme_links_back_to_the_english_one_and_back() {
    let first = ZH.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    assert!(
        first.contains("README.md"),
        "README.zh-CN.md should open with a link back to README.md, but its first line is {first:?}"
    );
    assert!(
        EN.lines().take(20).any(|l| l.contains("(README.zh-CN.md)")),
        "README.md should link to README.zh-CN.md near its top (`中文: [README.zh-CN.md](README.zh-CN.md)`)"
    );
}

#[test]
fn same_headings_at_the_same_levels_in_the_same_order() {
    let en = headings(&parts(EN));
    let zh = headings(&parts(ZH));
    for (i, (e, z)) in en.iter().zip(&zh).enumerate() {
        assert_eq!(
            e.0, z.0,
            "heading #{i} differs in level: README.md line {} {:?} vs README.zh-CN.md line {} {:?}",
            e.2, e.1, z.2, z.1
        );
    }
    assert_eq!(
        en.len(),
        zh.len(),
        "README.md has {} headings, README.zh-CN.md {}; the first one only in the longer: {:?}",
        en.len(),
        zh.len(),
        en.get(zh.len()).or(zh.get(en.len())).map(|h| (h.1, h.2))
    );
}

#[test]
fn same_code_blocks_byte_for_byte() {
    let en = code_blocks(&parts(EN));
    let zh = code_blocks(&parts(ZH));
    for (i, (e, z)) in en.iter().zip(&zh).enumerate() {
        if e.0 != z.0 {
            let line =
                e.0.lines()
                    .zip(z.0.lines())
                    .position(|(a, b)| a != b)
                    .unwrap_or(e.0.lines().count().min(z.0.lines().count()));
            panic!(
                "code block #{i} differs (README.md line {}, README.zh-CN.md line {}), \
                 first at its line {line}:\n  en: {:?}\n  zh: {:?}\ncopy the block from README.md unchanged",
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
        "README.md has {} code blocks, README.zh-CN.md {}; the first one only in the longer starts at line {:?}",
        en.len(),
        zh.len(),
        en.get(zh.len()).or(zh.get(en.len())).map(|b| b.1)
    );
}

#[test]
fn each_section_has_the_same_paragraphs_inline_code_and_tables() {
    let en = sections(&parts(EN));
    let zh = sections(&parts(ZH));
    for (e, z) in en.iter().zip(&zh) {
        let at = format!(
            "in the section {:?} (README.md line {}, README.zh-CN.md line {} {:?})",
            e.heading, e.line, z.line, z.heading
        );
        assert_eq!(
            e.paragraphs, z.paragraphs,
            "{at}: README.md has {} prose paragraphs (list items count one each), README.zh-CN.md {}",
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
                "{at}: the inline code differs; more often in README.md than in README.zh-CN.md: \
                 {missing:?}; more often in README.zh-CN.md: {extra:?}. Inline code is copied unchanged"
            );
        }
        let first = e.rows.iter().zip(&z.rows).find(|(a, b)| a.1 != b.1);
        if let Some((a, b)) = first {
            panic!(
                "{at}: a table row has {} columns in README.md (line {}) and {} in README.zh-CN.md (line {})",
                a.1, a.0, b.1, b.0
            );
        }
        assert_eq!(
            e.rows.len(),
            z.rows.len(),
            "{at}: README.md has {} table rows, README.zh-CN.md {}; the first one only in the longer: line {:?}",
            e.rows.len(),
            z.rows.len(),
            e.rows
                .get(z.rows.len())
                .or(z.rows.get(e.rows.len()))
                .map(|r| r.0)
        );
    }
}

#[test]
fn the_prose_is_chinese() {
    let paras: Vec<(String, usize)> = parts(ZH)
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
    let translated = paras.len() - english.len();
    let percent = translated * 100 / paras.len().max(1);
    eprintln!(
        "README.zh-CN.md: {translated} of {} prose paragraphs in Chinese ({percent}%)",
        paras.len()
    );
    let list: String = english
        .iter()
        .map(|(text, n)| {
            let first = text.lines().next().unwrap_or("");
            format!("\n  line {n}: {first}")
        })
        .collect();
    assert!(
        percent >= MIN_TRANSLATED_PERCENT,
        "only {translated} of {} prose paragraphs of README.zh-CN.md ({percent}%) contain Chinese, \
         {MIN_TRANSLATED_PERCENT}% needed; not translated:{list}",
        paras.len()
    );
}
