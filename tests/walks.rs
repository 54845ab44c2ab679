//! `docs/walks.md` follows one `tools/call` through the code, file by file; every
//! step is a numbered line `` `file`: `f`, `g`: what they do ``, naming a file and
//! the functions that do the step's job there. This test keeps the
//! walks true: each file must exist and define each function (`fn NAME`), and each
//! walk must cross the number of distinct files its heading says.

use std::collections::BTreeSet;
use std::path::Path;

/// The `code` spans of a line, in order.
fn spans(line: &str) -> Vec<&str> {
    line.split('`').skip(1).step_by(2).collect()
}

#[test]
fn every_step_of_the_walks_names_a_real_file_and_real_functions() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let doc = std::fs::read_to_string(root.join("docs/walks.md")).expect("docs/walks.md");
    let mut walks = 0;
    let mut files: BTreeSet<String> = BTreeSet::new();
    let mut said: Option<usize> = None;
    let check_count = |files: &BTreeSet<String>, said: Option<usize>| {
        if let Some(n) = said {
            assert_eq!(files.len(), n, "a walk says {n} files but names {files:?}");
        }
    };
    for line in doc.lines() {
        if line.starts_with("## ") {
            check_count(&files, said);
            files.clear();
            said = None;
            walks += 1;
            continue;
        }
        if let Some(n) = line.strip_suffix(" files.") {
            said = n.parse().ok();
            continue;
        }
        let Some((number, step)) = line.split_once(". ") else {
            continue;
        };
        if number.is_empty() || !number.bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        let (head, tail) = step
            .split_once(": ")
            .unwrap_or_else(|| panic!("step without a colon: {line}"));
        let file = spans(head);
        assert_eq!(file.len(), 1, "a step names one file first: {line}");
        let source = std::fs::read_to_string(root.join(file[0]))
            .unwrap_or_else(|e| panic!("{}: {e} (in: {line})", file[0]));
        // `file`: `f`, `g`: prose. The functions stand between the two colons.
        let (functions, _prose) = tail
            .split_once(": ")
            .unwrap_or_else(|| panic!("a step is `file`: `functions`: prose: {line}"));
        let named = spans(functions);
        assert!(!named.is_empty(), "a step names no function: {line}");
        for f in named {
            assert!(
                source.contains(&format!("fn {f}(")) || source.contains(&format!("fn {f}<")),
                "{} defines no fn {f} (in: {line})",
                file[0]
            );
        }
        files.insert(file[0].to_string());
    }
    check_count(&files, said);
    assert_eq!(walks, 2, "docs/walks.md has two walks");
}
