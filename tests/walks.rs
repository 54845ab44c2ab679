//! `docs/en/src/internals/walks.md` (and its Chinese page, `docs/zh-CN/src/internals/walks.md`) follows one
//! `tools/call` through the code, file by file; every step is a numbered line
//! `` `file`: `f`, `g`: what they do ``, naming a file and the functions that do the
//! step's job there. This test keeps the
//! walks true: each file must exist and define each function (`fn NAME`), each
//! walk must cross the number of distinct files it says, and the two languages must
//! walk the same steps.

use std::collections::BTreeSet;
use std::path::Path;

/// The `code` spans of a line, in order.
fn spans(line: &str) -> Vec<&str> {
    line.split('`').skip(1).step_by(2).collect()
}

/// One walk: the number of files it says it crosses, and its steps as
/// (file, functions).
struct Walk {
    said: Option<usize>,
    steps: Vec<(String, Vec<String>)>,
}

/// The walks of one page. `count` reads a walk's "N files." line in the page's language.
fn walks(page: &str, count: impl Fn(&str) -> Option<usize>) -> Vec<Walk> {
    let mut walks: Vec<Walk> = Vec::new();
    for line in page.lines() {
        if line.starts_with("## ") {
            walks.push(Walk {
                said: None,
                steps: Vec::new(),
            });
            continue;
        }
        let Some(walk) = walks.last_mut() else {
            continue;
        };
        if let Some(n) = count(line) {
            walk.said = Some(n);
            continue;
        }
        let Some((number, step)) = line.split_once(". ") else {
            continue;
        };
        if number.is_empty() || !number.bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        // `file`: `f`, `g`: prose. The functions stand between the two colons.
        let mut parts = step.splitn(3, ": ");
        let (Some(head), Some(functions), Some(_prose)) =
            (parts.next(), parts.next(), parts.next())
        else {
            panic!("a step is `file`: `functions`: prose: {line}");
        };
        let file = spans(head);
        assert_eq!(file.len(), 1, "a step names one file first: {line}");
        let named: Vec<String> = spans(functions).into_iter().map(str::to_owned).collect();
        assert!(!named.is_empty(), "a step names no function: {line}");
        walk.steps.push((file[0].to_owned(), named));
    }
    walks
}

#[test]
fn every_step_of_the_walks_names_a_real_file_and_real_functions() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let read = |name: &str| {
        std::fs::read_to_string(root.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
    };
    let english = walks(&read("docs/en/src/internals/walks.md"), |l| {
        l.strip_suffix(" files.")?.parse().ok()
    });
    assert_eq!(
        english.len(),
        2,
        "docs/en/src/internals/walks.md has two walks"
    );
    for walk in &english {
        let files: BTreeSet<&str> = walk.steps.iter().map(|(f, _)| f.as_str()).collect();
        assert_eq!(
            Some(files.len()),
            walk.said,
            "a walk says {:?} files but names {files:?}",
            walk.said
        );
        for (file, named) in &walk.steps {
            let source = read(file);
            for f in named {
                assert!(
                    source.contains(&format!("fn {f}(")) || source.contains(&format!("fn {f}<")),
                    "{file} defines no fn {f}"
                );
            }
        }
    }
    // The Chinese page walks the same steps, file for file and function for function.
    let chinese = walks(&read("docs/zh-CN/src/internals/walks.md"), |l| {
        l.strip_prefix("共 ")?
            .strip_suffix(" 个文件。")?
            .parse()
            .ok()
    });
    assert_eq!(
        chinese.len(),
        english.len(),
        "docs/zh-CN/src/internals/walks.md has as many walks"
    );
    for (zh, en) in chinese.iter().zip(&english) {
        assert_eq!(zh.said, en.said, "the two pages say different file counts");
        assert_eq!(
            zh.steps, en.steps,
            "docs/zh-CN/src/internals/walks.md walks other steps"
        );
    }
}
