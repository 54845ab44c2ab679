//! learn/README.md stays true: its reading-order table names every source file
//! once, with its real line count, and the total it states is their sum.

use std::path::Path;

#[test]
fn the_reading_table_names_every_file_with_its_line_count() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).expect("learn/README.md");
    let mut listed = Vec::new();
    for row in readme.lines().filter(|l| l.starts_with("| `src/")) {
        let cells: Vec<&str> = row.split('|').map(str::trim).collect();
        let file = cells[1].trim_matches('`');
        let said: usize = cells[2].parse().unwrap_or_else(|_| panic!("a line count: {row}"));
        let text =
            std::fs::read_to_string(root.join(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert_eq!(said, text.lines().count(), "README.md says {file} has {said} lines");
        listed.push(file.to_owned());
    }
    let mut files = Vec::new();
    for dir in ["src", "src/bin"] {
        for entry in std::fs::read_dir(root.join(dir)).expect("src/") {
            let path = entry.expect("an entry").path();
            if path.extension().is_some_and(|e| e == "rs") {
                files.push(
                    path.strip_prefix(root)
                        .expect("under learn/")
                        .to_string_lossy()
                        .replace('\\', "/"),
                );
            }
        }
    }
    files.sort();
    listed.sort();
    assert_eq!(listed, files, "README.md's table and src/ differ");
    let total: usize = files
        .iter()
        .map(|f| std::fs::read_to_string(root.join(f)).map_or(0, |t| t.lines().count()))
        .sum();
    let stated = format!("{},{:03} lines in all", total / 1000, total % 1000);
    assert!(readme.contains(&stated), "README.md should say \"{stated}\"");
}
