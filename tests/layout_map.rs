//! Every crate's layout map names every source file: the ```` ```text ```` block at the
//! top of each crate's root (`crates/*/src/lib.rs`, `learn/src/lib.rs`, and the command
//! line's `src/lib.rs`)
//! lists its files, so a reader who opens a crate's docs finds each module there, and a
//! file added without its line fails this test, naming it. Standard library only: the
//! map is read as text.
//!
//! How a map is read: a line whose name starts before column 20 is an entry, indented
//! two spaces per directory level (`http/` then `  auth/` then `    mod.rs`); a line
//! indented further is the previous entry's description continued; a comma joins
//! names on one line (`main.rs, cli/`).

use std::collections::BTreeSet;
use std::path::Path;

/// The paths (relative to the crate's `src/`) a map names: files as `http/mod.rs`,
/// directories as `http/`.
fn named_in_map(root_file: &str, doc: &str) -> BTreeSet<String> {
    let mut lines = doc.lines().skip_while(|l| !l.starts_with("//! ```text"));
    assert!(
        lines.next().is_some(),
        "{root_file} has no ```text layout map in its docs"
    );
    let mut named = BTreeSet::new();
    let mut dirs: Vec<String> = Vec::new();
    for line in lines {
        let Some(body) = line.strip_prefix("//!") else {
            panic!("{root_file}: the layout map ends without its closing ```: {line:?}");
        };
        let body = body.strip_prefix(' ').unwrap_or(body);
        if body.starts_with("```") {
            return named;
        }
        let indent = body.len() - body.trim_start_matches(' ').len();
        if body.trim().is_empty() || indent >= 20 {
            continue; // a description continued
        }
        assert!(
            indent % 2 == 0,
            "{root_file}: a layout map entry indented by an odd {indent} spaces: {body:?}"
        );
        dirs.truncate(indent / 2);
        let prefix = dirs.concat();
        let mut last = "";
        for token in body.split_whitespace() {
            let name = token.trim_end_matches(',');
            named.insert(format!("{prefix}{name}"));
            last = name;
            if !token.ends_with(',') {
                break;
            }
        }
        if last.ends_with('/') {
            dirs.push(last.to_string());
        }
    }
    panic!("the layout map in {root_file} has no closing ```");
}

/// Every `.rs` file under `dir`, as a path relative to `root` with `/` separators.
fn rust_files(root: &Path, dir: &Path, out: &mut Vec<String>) {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for entry in entries {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            rust_files(root, &path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let relative = path.strip_prefix(root).expect("under src/");
            let parts: Vec<_> = relative
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            out.push(parts.join("/"));
        }
    }
}

/// The crates' roots, relative to the workspace: each one's map covers its `src/`.
const ROOTS: &[&str] = &[
    "crates/wire/src/lib.rs",
    "crates/core/src/lib.rs",
    "crates/net/src/lib.rs",
    "crates/tools/src/lib.rs",
    "src/lib.rs",
    // The teaching crate beside the five (std only): its map is also its reading order.
    "learn/src/lib.rs",
];

/// Checks one crate: every file under its `src/` named, every name a file.
fn check_crate(workspace: &Path, root_file: &str) -> usize {
    let path = workspace.join(root_file);
    let doc = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{root_file}: {e}"));
    let named = named_in_map(root_file, &doc);
    let src = path.parent().expect("a crate's src/");
    let page = path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default();
    let mut files = Vec::new();
    rust_files(src, src, &mut files);
    files.sort();
    let missing: Vec<&String> = files.iter().filter(|f| !named.contains(*f)).collect();
    assert!(
        missing.is_empty(),
        "{root_file}'s layout map does not name {} file(s); add a line for each, \
         indented under its directory:\n  {}",
        missing.len(),
        missing
            .iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join("\n  ")
    );
    assert!(
        named.contains(page),
        "{root_file}'s map does not name {page}, its own page"
    );

    // And the other way: a line for a file that is gone misleads as much.
    let stale: Vec<&String> = named
        .iter()
        .filter(|n| n.ends_with(".rs") && !src.join(n).is_file())
        .collect();
    assert!(
        stale.is_empty(),
        "{root_file}'s layout map names file(s) that do not exist: {stale:?}"
    );
    files.len()
}

#[test]
fn every_source_file_is_in_its_crates_layout_map() {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR"));
    let total: usize = ROOTS.iter().map(|r| check_crate(workspace, r)).sum();
    assert!(total > 150, "only {total} source files in the workspace?");
    // No crate the list forgets: every crates/*/ has its root here.
    for entry in std::fs::read_dir(workspace.join("crates")).expect("crates/") {
        let name = entry.expect("an entry").file_name();
        let root = format!("crates/{}/src/lib.rs", name.to_string_lossy());
        assert!(ROOTS.contains(&root.as_str()), "{root} is not checked here");
    }
}

/// Every `.rs` file under `dir`, recursively.
fn source_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            source_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Small files with one job: a source file over 500 lines says why on its first line
/// (`// Over 500 lines: …`), so the exception is a decision a reader can see, and a
/// file that grew past it without one fails here, naming it.
#[test]
fn a_file_over_500_lines_says_why_at_its_top() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    source_files(&root.join("src"), &mut files);
    for krate in ["wire", "core", "net", "tools"] {
        source_files(&root.join("crates").join(krate).join("src"), &mut files);
    }
    source_files(&root.join("learn").join("src"), &mut files);
    let mut silent = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        if text.lines().count() > 500 && !text.starts_with("// Over 500 lines") {
            silent.push(file.strip_prefix(root).unwrap().display().to_string());
        }
    }
    assert!(
        silent.is_empty(),
        "over 500 lines with no `// Over 500 lines: why` first line: {silent:?}"
    );
    assert!(files.len() > 100, "{} source files found", files.len());
}

/// Library crates never print: they report through the `log` facade or hand back
/// values, and write only to the writers the binary gives them; the binary (`src/`)
/// decides what reaches stdout and stderr. So no library source names a print macro or
/// one of the process's own streams, outside comments.
#[test]
fn library_crates_never_print() {
    // The stdio tap's streams are its data, not a report: it relays this process's
    // stdin, stdout and stderr to and from the server it runs.
    const RELAYS_ITS_OWN_STREAMS: &[&str] = &["crates/tools/src/tap/stdio.rs"];
    const PRINTING: &[&str] = &[
        "print!(",
        "println!(",
        "dbg!(",
        "stdout()",
        "stderr()",
        "stdin()",
    ];
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for krate in ["wire", "core", "net", "tools"] {
        source_files(&root.join("crates").join(krate).join("src"), &mut files);
    }
    let mut printing = Vec::new();
    for file in &files {
        let name = file.strip_prefix(root).unwrap().display().to_string();
        if RELAYS_ITS_OWN_STREAMS.contains(&name.as_str()) {
            continue;
        }
        let text = std::fs::read_to_string(file).unwrap();
        for (n, line) in text.lines().enumerate() {
            let code = line.trim_start();
            if code.starts_with("//") {
                continue;
            }
            if let Some(what) = PRINTING.iter().find(|p| code.contains(*p)) {
                printing.push(format!("{name}:{}: {what}", n + 1));
            }
        }
    }
    assert!(
        printing.is_empty(),
        "library code that prints or names the process's streams: {printing:?}"
    );
    assert!(
        files.len() > 100,
        "{} library source files found",
        files.len()
    );
}
