//! Golden transcripts: both demos in every era, their text view and the facts of
//! their JSONL transcript, compared byte for byte with `tests/golden/` after the
//! parts that change from run to run (times, UUIDs, ports, `Date`) are normalized.
//! `UPDATE_GOLDEN=1 cargo test --test golden` rewrites the files after a deliberate
//! change to the wire; review the diff.

mod common;
use common::{BIN, unstamped};
use std::path::PathBuf;
use std::process::Command;

/// Replaces every run of `len` bytes at which `matches` holds with `with`.
fn replace_runs(text: &str, len: usize, matches: impl Fn(&[u8]) -> bool, with: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if i + len <= bytes.len() && matches(&bytes[i..i + len]) {
            out.extend_from_slice(with.as_bytes());
            i += len;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).unwrap()
}

fn is_uuid(b: &[u8]) -> bool {
    b.iter().enumerate().all(|(i, c)| match i {
        8 | 13 | 18 | 23 => *c == b'-',
        _ => c.is_ascii_hexdigit() && !c.is_ascii_uppercase(),
    })
}

/// `2026-12-02T15:51:38.300Z`
fn is_time(b: &[u8]) -> bool {
    b.iter().enumerate().all(|(i, c)| match i {
        4 | 7 => *c == b'-',
        10 => *c == b'T',
        13 | 16 => *c == b':',
        19 => *c == b'.',
        23 => *c == b'Z',
        _ => c.is_ascii_digit(),
    })
}

/// Everything that differs between two runs of the same demo.
fn normalize(text: &str) -> String {
    let text = replace_runs(text, 36, is_uuid, "<uuid>");
    let text = replace_runs(&text, 24, is_time, "<time>");
    let mut out = String::new();
    for line in text.lines() {
        if line.contains("[server stderr]") {
            continue;
        }
        let mut line = line.to_owned();
        // `date: Wed, 02 Dec 2026 15:51:38 GMT` in a head, or its JSON in a fact.
        for key in ["date: ", "[\"date\",\""] {
            if let Some(at) = line.find(key)
                && let Some(end) = line[at..].find("GMT")
            {
                line.replace_range(at + key.len()..at + end + 3, "<date>");
            }
        }
        while let Some(at) = line.find("127.0.0.1:") {
            let start = at + "127.0.0.1:".len();
            let digits = line[start..].bytes().take_while(u8::is_ascii_digit).count();
            line.replace_range(at..start + digits, "<host>");
        }
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// The facts of a transcript, without their times, stderr lane left out.
fn facts(jsonl: &str) -> String {
    let mut out = String::new();
    for line in jsonl.lines() {
        let mut v: serde_json::Value = serde_json::from_str(line).unwrap();
        if v.get("fact").is_none() || v["lane"] == "stderr" {
            continue;
        }
        v.as_object_mut().unwrap().remove("t");
        out.push_str(&v.to_string());
        out.push('\n');
    }
    normalize(&out)
}

fn check(name: &str, got: &str) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(name);
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, got).unwrap();
        return;
    }
    let want = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (UPDATE_GOLDEN=1 writes it)", path.display()));
    if got != want {
        let _ = std::fs::write(std::env::temp_dir().join(format!("{name}.got")), got);
        let line = got
            .lines()
            .zip(want.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(got.lines().count().min(want.lines().count()));
        panic!(
            "{name} differs from the golden file at line {} (the whole output is in {}):\n got: {:?}\nwant: {:?}\n(UPDATE_GOLDEN=1 rewrites it after a deliberate change)",
            line + 1,
            std::env::temp_dir().join(format!("{name}.got")).display(),
            got.lines().nth(line),
            want.lines().nth(line)
        );
    }
}

fn demo(name: &str, args: &[&str]) {
    let record = std::env::temp_dir().join(format!(
        "mcp-raw-golden-{name}-{}.jsonl",
        std::process::id()
    ));
    let out = Command::new(BIN)
        .args(args)
        .args(["--color", "never", "--record"])
        .arg(&record)
        .output()
        .unwrap();
    let view = String::from_utf8(out.stdout).unwrap();
    assert!(
        out.status.success(),
        "{view}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    check(&format!("{name}.txt"), &normalize(&unstamped(&view)));
    check(
        &format!("{name}.facts.jsonl"),
        &facts(&std::fs::read_to_string(&record).unwrap()),
    );
    let _ = std::fs::remove_file(record);
}

#[test]
fn stdio_demo_in_every_era() {
    for era in ["legacy", "modern", "both"] {
        demo(&format!("demo-{era}"), &["demo", "--era", era]);
    }
}

#[test]
fn http_demo_in_every_era() {
    for era in ["legacy", "modern", "both"] {
        demo(
            &format!("demo-http-{era}"),
            &["demo-http", "--port", "0", "--era", era],
        );
    }
}
