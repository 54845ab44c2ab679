//! `README.zh-CN.md` is the whole of `README.md` in Simplified Chinese.
//!
//! When README.md changes, README.zh-CN.md changes with it, and this test says
//! where: the first heading whose level differs, the index (and first line) of
//! the first code block that differs, the section whose paragraphs, inline code
//! or tables no longer match, or the paragraphs still in English.
//!
//! The rules (`tests/translation/mod.rs`, shared with the book's chapters): the
//! same code blocks byte for byte, the same headings, paragraphs, inline code and
//! table shapes section by section, and every prose paragraph in Chinese.

mod translation;

const EN: &str = include_str!("../README.md");
const ZH: &str = include_str!("../README.zh-CN.md");

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
    translation::same_headings("README.md", EN, "README.zh-CN.md", ZH);
}

#[test]
fn same_code_blocks_byte_for_byte() {
    translation::same_code_blocks("README.md", EN, "README.zh-CN.md", ZH);
}

#[test]
fn each_section_has_the_same_paragraphs_inline_code_and_tables() {
    translation::same_sections("README.md", EN, "README.zh-CN.md", ZH);
}

#[test]
fn the_prose_is_chinese() {
    let (translated, all) = translation::prose_is_chinese("README.zh-CN.md", ZH);
    eprintln!("README.zh-CN.md: {translated} of {all} prose paragraphs in Chinese");
}
