//! `mcp-raw diff A B` reads both recordings as streams, side by side: its output is
//! the whole files' pairing (each direction's `n`th message of A against B's), byte
//! for byte; a line that is not an event ends it with that file and line (exit 2);
//! recordings whose directions run too far apart for `--window` are said, pair by
//! pair, not compared.

mod common;

use common::cli_inproc::cli_here;
use common::golden;
use mcp_raw_tools::replay::diff::{self, Ignore};

fn scratch(name: &str) -> std::path::PathBuf {
    let dir = golden::scratch().join(format!("diff-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    dir
}

/// A stdio recording of `n` calls to echo, answered `answer{i}`: interleaved (each
/// call then its answer) or all calls first.
fn session(n: usize, answer: &str, calls_first: bool) -> String {
    let mut text = String::from(
        "{\"transcript\":\"mcp-raw\",\"version\":4,\"role\":\"client\",\"transport\":\"stdio\",\"started\":\"2026-12-07T00:00:00Z\"}\n",
    );
    let ask = |i: usize| {
        (
            "c2s",
            format!(
                r#"{{"jsonrpc":"2.0","id":{i},"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"m{i}"}}}}}}"#
            ),
        )
    };
    let tell = |i: usize| {
        (
            "s2c",
            format!(
                r#"{{"jsonrpc":"2.0","id":{i},"result":{{"content":[{{"type":"text","text":"{answer}{i}"}}]}}}}"#
            ),
        )
    };
    let lines: Vec<_> = if calls_first {
        (0..n).map(ask).chain((0..n).map(tell)).collect()
    } else {
        (0..n).flat_map(|i| [ask(i), tell(i)]).collect()
    };
    for (i, (dir, m)) in lines.iter().enumerate() {
        let line = serde_json::json!({"t": 0.001 * (i + 1) as f64, "lane": "stdio", "dir": dir, "text": format!("{m}\n")});
        text.push_str(&format!("{line}\n"));
    }
    text
}

fn write(dir: &std::path::Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.to_str().unwrap().to_owned()
}

fn events(text: &str) -> Vec<mcp_raw_wire::event::Event> {
    mcp_raw_wire::transcript::read(text).unwrap().1
}

/// Many differences (past `--max-shown`), one side longer: the JSON document is
/// what `to_string_pretty` makes of the whole files' differences, byte for byte,
/// and the text lists the first 20 of them in that order.
#[test]
fn the_streamed_diff_is_the_whole_files_diff() {
    let dir = scratch("whole");
    let (ta, tb) = (session(60, "x", false), session(45, "y", false));
    let (a, b) = (write(&dir, "a.jsonl", &ta), write(&dir, "b.jsonl", &tb));
    let (ea, eb) = (events(&ta), events(&tb));
    let whole = diff::diff(&ea, &eb, &Ignore::defaults());
    let (ma, mb) = (diff::messages(&ea), diff::messages(&eb));
    assert!(whole.len() > 40);

    let out = cli_here(["diff", &a, &b, "--format", "json"]);
    assert_eq!(out.status.code(), Some(1), "{}", out.err());
    let doc = serde_json::json!({
        "a": {"c2s": ma.0.len(), "s2c": ma.1.len()},
        "b": {"c2s": mb.0.len(), "s2c": mb.1.len()},
        "differences": whole.iter().map(|d| serde_json::json!({"dir": d.dir.name(), "n": d.n, "what": d.what, "detail": d.detail})).collect::<Vec<_>>(),
    });
    assert_eq!(
        out.out(),
        serde_json::to_string_pretty(&doc).unwrap() + "\n"
    );

    let out = cli_here(["diff", &a, &b, "--color", "never"]);
    assert_eq!(out.status.code(), Some(1));
    let mut want: String = whole
        .iter()
        .take(20)
        .map(|d| {
            format!(
                "{} message {} ({}): {}\n",
                d.dir.name(),
                d.n,
                d.what,
                d.detail
            )
        })
        .collect();
    want.push_str(&format!(
        "… and {} more\n{} differences (A: 60 c2s, 60 s2c messages; B: 45 c2s, 45 s2c)\n",
        whole.len() - 20,
        whole.len()
    ));
    assert_eq!(out.out(), want);
}

/// A line that is not an event halfway through either file ends the diff with that
/// file's name and the line's number (exit 2), and nothing on stdout.
#[test]
fn a_bad_line_midway_ends_diff_with_its_line_number() {
    let dir = scratch("midway");
    let good = session(40, "x", false);
    let lines: Vec<&str> = good.lines().collect();
    let cut = lines.len() / 2;
    let mut bad = lines[..cut].join("\n");
    bad.push_str("\n{\"t\": 1, \"lane\": \"stdio\", \"dir\": \"sideways\", \"text\": \"x\"}\n");
    bad.push_str(&lines[cut..].join("\n"));
    let (good, bad) = (
        write(&dir, "good.jsonl", &good),
        write(&dir, "bad.jsonl", &bad),
    );
    for (a, b) in [(&good, &bad), (&bad, &good)] {
        let out = cli_here(["diff", a, b]);
        assert_eq!(out.status.code(), Some(2), "{a} {b}");
        assert!(out.stdout.is_empty(), "{}", out.out());
        assert_eq!(
            out.err(),
            format!(
                "mcp-raw diff: {bad} is not a transcript mcp-raw can read: line {}: bad \"dir\" (c2s or s2c): \"sideways\"\n",
                cut + 1
            )
        );
    }
}

/// A sends every call before any answer, B answers each in turn: read side by side,
/// B's answers wait for A's. Within `--window 3` they cannot all wait: the pairs let
/// go are said (which, and why) and counted; a window as wide as the session pairs
/// them all and finds what the whole files give.
#[test]
fn what_the_window_cannot_pair_is_said_not_compared() {
    let dir = scratch("window");
    let (ta, tb) = (session(10, "x", true), session(10, "x", false));
    let (a, b) = (write(&dir, "a.jsonl", &ta), write(&dir, "b.jsonl", &tb));
    let out = cli_here(["diff", &a, &b, "--window", "3", "--color", "never"]);
    assert_eq!(out.status.code(), Some(1), "{}", out.out());
    let text = out.out();
    let not: Vec<&str> = text
        .lines()
        .filter(|l| l.contains(": not compared: "))
        .collect();
    assert!(!not.is_empty(), "{text}");
    assert!(
        not[0].contains("ran more than 3") && not[0].contains("(--window 3)"),
        "{}",
        not[0]
    );
    assert!(
        text.contains(&format!(
            "{} messages not compared: one recording ran more than --window 3 messages of a direction ahead of the other\n",
            not.len()
        )),
        "{text}"
    );
    // Wide enough: the same session ordered differently has no difference.
    let out = cli_here(["diff", &a, &b, "--window", "10"]);
    assert_eq!(out.status.code(), Some(0), "{}", out.out());
    assert_eq!(
        out.out(),
        "0 differences (A: 10 c2s, 10 s2c messages; B: 10 c2s, 10 s2c)\n"
    );
    assert!(diff::diff(&events(&ta), &events(&tb), &Ignore::defaults()).is_empty());
    let out = cli_here(["diff", &a, &b, "--window", "0"]);
    assert_eq!(out.status.code(), Some(2));
}

/// What `diff` remembers of requests not answered yet is bounded as every view's is
/// (`--max-unanswered`): past it the older half is forgotten, and a late answer is
/// named `response`, without the method it answers; the comparison is unchanged.
/// The real binary, in a process of its own: the bound is one per process.
#[test]
fn requests_unanswered_are_remembered_within_max_unanswered() {
    let dir = scratch("unanswered");
    let (ta, tb) = (session(5, "x", true), session(5, "y", true));
    let (a, b) = (write(&dir, "a.jsonl", &ta), write(&dir, "b.jsonl", &tb));
    let run = |extra: &[&str]| {
        let mut args = extra.to_vec();
        args.extend(["diff", &a, &b, "--color", "never"]);
        let out = std::process::Command::new(common::BIN)
            .args(&args)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1));
        String::from_utf8(out.stdout).unwrap()
    };
    let named = run(&[]);
    assert!(
        named.starts_with("s2c message 1 (response to tools/call): "),
        "{named}"
    );
    let bounded = run(&["--max-unanswered", "2"]);
    assert!(
        bounded.starts_with("s2c message 1 (response): "),
        "{bounded}"
    );
    // The last two asked are still named; the counts are the same.
    assert!(
        bounded.contains("s2c message 5 (response to tools/call): "),
        "{bounded}"
    );
    assert_eq!(named.lines().last(), bounded.lines().last());
}
