//! The layout map at the top of `src/lib.rs` names every source file: a reader who
//! opens the crate's docs finds each module there, and a file added without its line
//! fails this test, naming it. Standard library only: the map is read as text.
//!
//! How the map is read: the ```` ```text ```` block of `src/lib.rs`'s docs; a line
//! whose name starts before column 20 is an entry, indented two spaces per directory
//! level (`wire/` then `  http/` then `    mod.rs`); a line indented further is the
//! previous entry's description continued. `main.rs, cli/` names two things at once:
//! the command line lives outside the library and is named as one group.

use std::collections::BTreeSet;
use std::path::Path;

/// Directories the map names as a whole, not file by file: the programs of the
/// command line, outside the library.
const GROUPS: &[&str] = &["cli/"];

/// The paths (relative to `src/`) the map names: files as `wire/event.rs`,
/// directories as `wire/http/`.
fn named_in_map(lib: &str) -> BTreeSet<String> {
    let mut lines = lib.lines().skip_while(|l| !l.starts_with("//! ```text"));
    assert!(
        lines.next().is_some(),
        "src/lib.rs has no ```text layout map in its docs"
    );
    let mut named = BTreeSet::new();
    let mut dirs: Vec<String> = Vec::new();
    for line in lines {
        let Some(body) = line.strip_prefix("//!") else {
            panic!("the layout map ends without its closing ```: {line:?}");
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
            "a layout map entry indented by an odd {indent} spaces: {body:?}"
        );
        dirs.truncate(indent / 2);
        let prefix = dirs.concat();
        // `main.rs, cli/`: a comma joins names on one line.
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
    panic!("the layout map in src/lib.rs has no closing ```");
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

#[test]
fn every_source_file_is_in_the_layout_map() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let lib = std::fs::read_to_string(root.join("lib.rs")).expect("src/lib.rs");
    let named = named_in_map(&lib);
    for group in GROUPS.iter().chain(&["main.rs"]) {
        assert!(
            named.contains(*group),
            "the layout map no longer names {group}"
        );
    }
    let mut files = Vec::new();
    rust_files(&root, &root, &mut files);
    files.sort();
    assert!(files.len() > 100, "only {} files under src/?", files.len());

    let missing: Vec<&String> = files
        .iter()
        // lib.rs is the page the map is on.
        .filter(|f| f.as_str() != "lib.rs")
        .filter(|f| !GROUPS.iter().any(|g| f.starts_with(g)))
        .filter(|f| !named.contains(*f))
        .collect();
    assert!(
        missing.is_empty(),
        "src/lib.rs's layout map does not name {} file(s); add a line for each, \
         indented under its directory:\n  {}",
        missing.len(),
        missing
            .iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join("\n  ")
    );

    // And the other way: a line for a file that is gone misleads as much.
    let stale: Vec<&String> = named
        .iter()
        .filter(|n| n.ends_with(".rs") && !root.join(n).is_file())
        .collect();
    assert!(
        stale.is_empty(),
        "src/lib.rs's layout map names file(s) that do not exist: {stale:?}"
    );
}
