//! One command-line convention across every subcommand, through the real binary's
//! `--help`: each has an Examples section whose command lines parse; `--format` is
//! there wherever a machine-readable output is; `--color` wherever anything is
//! printed; `--listen` always names an address to bind (the client's old `--listen`,
//! "keep reading after the calls", is `--follow` now and the old spelling a hidden
//! alias).

mod common;

use common::cli_inproc::{Ran, cli_here};
use common::{BIN, golden};
use std::process::Command;

/// Subcommands with a machine-readable output, and the formats `--format` offers.
const FORMATS: &[(&str, &[&str])] = &[
    ("client", &["text", "json"]),
    ("demo", &["text", "json"]),
    ("demo-http", &["text", "json"]),
    ("replay", &["text", "json"]),
    ("check", &["text", "json", "junit", "sarif"]),
    ("diff", &["text", "json"]),
    ("show", &["text", "json", "pretty"]),
    ("sessions", &["text", "json"]),
    ("stats", &["text", "json", "csv"]),
    ("load", &["text", "json"]),
];

/// The subcommands that print nothing a colour could mark (a shell script; a CA's
/// paths and fingerprint; the page's URL, the page drawing its own colours; tables
/// of figures, `stats`' and `load`'s; a pin file of hashes; a HAR, and a transcript
/// written from one).
const UNCOLOURED: &[&str] = &[
    "completions",
    "ca",
    "ui",
    "stats",
    "load",
    "pin",
    "export",
    "import",
];

/// `mcp-raw ARGS…`, run to its end in-process (the binary is this same `run` on the
/// process's streams: `the_binary_is_run_on_the_process_console`).
fn mcp_raw(args: &[&str]) -> Ran {
    cli_here(args)
}

/// `mcp-raw ARGS…`: whether it succeeded, and its stdout and stderr.
fn help(args: &[&str]) -> (bool, String) {
    let out = mcp_raw(args);
    (
        out.ok(),
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    )
}

/// The subcommands `mcp-raw --help` lists (the hidden ones are not for people).
fn subcommands() -> Vec<String> {
    let (ok, text) = help(&["--help"]);
    assert!(ok, "{text}");
    let list: Vec<String> = text
        .lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|name| *name != "help")
        .map(str::to_owned)
        .collect();
    assert!(list.len() >= 12, "{text}");
    list
}

/// The value list clap prints for an option: `[possible values: text, json]`.
fn possible_values(help: &str, flag: &str) -> Vec<String> {
    let start = help
        .find(&format!("{flag} <"))
        .unwrap_or_else(|| panic!("no {flag} in\n{help}"));
    let rest = &help[start..];
    let end = rest.find("\n  -").unwrap_or(rest.len());
    let block = &rest[..end];
    let Some(values) = block.split("[possible values: ").nth(1) else {
        panic!("{flag}: no possible values in {block}");
    };
    values
        .split(']')
        .next()
        .unwrap()
        .split(',')
        .map(|v| v.trim().to_owned())
        .collect()
}

#[test]
fn every_subcommand_has_examples_that_parse() {
    for sub in subcommands() {
        let (ok, text) = help(&[&sub, "--help"]);
        assert!(ok, "{sub} --help: {text}");
        let examples: Vec<&str> = text
            .lines()
            .skip_while(|l| *l != "Examples:")
            .skip(1)
            .take_while(|l| l.starts_with("  "))
            .filter(|l| l.starts_with("  mcp-raw "))
            .collect();
        assert!(
            examples
                .iter()
                .any(|l| l.starts_with(&format!("  mcp-raw {sub}"))),
            "{sub} --help has no Examples section showing `mcp-raw {sub}`:\n{text}"
        );
        // Each example's flags exist: the line, with --help added before any `--`,
        // parses (quoted ones are left to the shell, and to a reader).
        for line in examples {
            if line.contains(['\'', '"']) {
                continue;
            }
            let line = line.split(" > ").next().unwrap();
            let mut args: Vec<&str> = line.split_whitespace().skip(1).collect();
            let at = args.iter().position(|a| *a == "--").unwrap_or(args.len());
            args.insert(at, "--help");
            let (ok, out) = help(&args);
            assert!(
                ok && out.contains("Usage:"),
                "{sub}: the example `{line}` does not parse:\n{out}"
            );
        }
    }
}

#[test]
fn format_and_color_are_where_they_should_be() {
    for sub in subcommands() {
        // -h: clap lists an option's values on one line, `[possible values: …]`.
        let (_, text) = help(&[&sub, "-h"]);
        if let Some((_, formats)) = FORMATS.iter().find(|(s, _)| *s == sub) {
            assert_eq!(possible_values(&text, "--format"), *formats, "{sub}");
        }
        if !UNCOLOURED.contains(&sub.as_str()) {
            assert_eq!(
                possible_values(&text, "--color"),
                ["auto", "always", "never"],
                "{sub}"
            );
        }
        // --listen, where there is one, takes an address.
        if let Some(at) = text.find("  --listen") {
            assert!(
                text[at..].starts_with("  --listen <"),
                "{sub}: --listen without a value:\n{text}"
            );
        }
    }
    // The whole help of each (tests/golden/help/): no --color in it.
    for sub in UNCOLOURED {
        let (_, text) = help(&[sub, "--help"]);
        golden::check(&format!("help/{sub}.txt"), &text);
    }
}

#[test]
fn client_follow_is_the_old_listen_and_format_json_is_json() {
    // The whole help, as tests/golden/help/ keeps it: `--follow` offered, the old
    // `--listen` not.
    let (_, text) = help(&["client", "--help"]);
    golden::check("help/client.txt", &text);
    // The old spelling still parses: the same help.
    let (ok, out) = help(&["client", "--listen", "--help"]);
    assert!(ok, "{out}");
    assert_eq!(out, text);

    // `--format json` is `--json`: the transcript on stdout.
    let out = mcp_raw(&[
        "client",
        "--format",
        "json",
        "--call",
        "add={\"a\":1,\"b\":2}",
        "--",
        BIN,
        "serve",
    ]);
    assert!(out.ok(), "{}", out.err());
    let stdout = String::from_utf8_lossy(&out.stdout);
    let first: serde_json::Value =
        serde_json::from_str(stdout.lines().next().unwrap()).expect("JSON Lines");
    assert_eq!(first["role"], "client", "{stdout}");
    // And beside a text view's flag it is refused, saying why.
    let (ok, out) = help(&[
        "client",
        "--format",
        "json",
        "--oneline",
        "--",
        BIN,
        "serve",
    ]);
    assert!(!ok);
    assert_eq!(
        out,
        "mcp-raw: --oneline shows a text view: it cannot go with --format json\n"
    );
    // `show --format pretty` is `--pretty`; with --raw it is a usage error (2). What
    // `--format json` printed is a transcript `show` reads.
    let file = common::scratch("conventions", "show").join("s.jsonl");
    std::fs::write(&file, stdout.as_bytes()).unwrap();
    let file = file.to_str().unwrap();
    let pretty = mcp_raw(&["show", "--format", "pretty", file]);
    let doc: serde_json::Value = serde_json::from_slice(&pretty.stdout).expect("one JSON document");
    assert!(doc.is_object() || doc.is_array());
    let refused = mcp_raw(&["show", "--format", "json", "--raw", file]);
    assert_eq!(refused.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&refused.stderr),
        "error: --raw shows a text view: it cannot go with --format json or pretty\n\nUsage: mcp-raw [OPTIONS] <COMMAND>\n\nFor more information, try '--help'.\n"
    );
}

#[test]
fn color_always_colours_a_trace_and_never_does_not() {
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    for (when, escapes) in [("always", true), ("never", false)] {
        // --color always/never on a piped stderr is the CLI's decision: a process.
        let mut child = Command::new(BIN)
            .args(["serve", "--trace", "--color", when])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        use std::io::Write;
        let mut stdin = child.stdin.take().unwrap();
        writeln!(stdin, "{init}").unwrap();
        drop(stdin);
        let out = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.contains('\x1b'), escapes, "--color {when}: {err}");
        // The two traced lines whole (their time normalized), escapes and all; the
        // server's log lines around them are plain either way.
        let traced: Vec<String> = err
            .lines()
            .filter(|l| l.contains(">>>") || l.contains("<<<"))
            .map(golden::normalize)
            .collect();
        let want = if escapes {
            concat!(
                "\x1b[1;34m>>>\x1b[0m \x1b[2m[+<t>s]\x1b[0m {\x1b[36m\"jsonrpc\"\x1b[0m: \x1b[32m\"2.0\"\x1b[0m, \x1b[36m\"id\"\x1b[0m: \x1b[33m1\x1b[0m, \x1b[36m\"method\"\x1b[0m: \x1b[32m\"ping\"\x1b[0m}\n",
                "\x1b[1;32m<<<\x1b[0m \x1b[2m[+<t>s]\x1b[0m {\x1b[36m\"jsonrpc\"\x1b[0m: \x1b[32m\"2.0\"\x1b[0m, \x1b[36m\"id\"\x1b[0m: \x1b[33m1\x1b[0m, \x1b[36m\"result\"\x1b[0m: \x1b[2m{}\x1b[0m}"
            )
        } else {
            concat!(
                r#">>> [+<t>s] {"jsonrpc": "2.0", "id": 1, "method": "ping"}"#,
                "\n",
                r#"<<< [+<t>s] {"jsonrpc": "2.0", "id": 1, "result": {}}"#
            )
        };
        assert_eq!(traced.join("\n"), want, "--color {when}");
    }
}

/// The binary is `mcp_raw::run` on the process's arguments and streams, so what the
/// other tests here (and every `cli_here` in the suite) see in-process is what a user
/// sees: for each command line, the real binary's exit status, stdout and stderr
/// equal the in-process run's, byte for byte (a help page, clap's refusal, a program's
/// own refusal, a report on stdout with exit 1, a view of a recording).
#[test]
fn the_binary_is_run_on_the_process_console() {
    let dir = common::scratch("conventions", "process");
    let recording = dir.join("r.jsonl");
    let ran = cli_here([
        "client",
        "--record",
        recording.to_str().unwrap(),
        "--call",
        "echo={\"message\":\"hi\"}",
        "--",
        BIN,
        "serve",
    ]);
    assert!(ran.ok(), "{}", ran.err());
    let file = recording.to_str().unwrap();
    let lines: &[&[&str]] = &[
        &["--help"],
        &["show", "--help"],
        &["--version"],
        &["serve", "--no-such-flag"],
        &["check", "--rules"],
        &["check"],
        &["show", file, "--color", "never"],
        &["show", file, "--json"],
        &["show", "/nonexistent/recording.jsonl"],
        &["diff", file, file],
        &["ca", "show", "--dir", "/nonexistent/ca"],
    ];
    for args in lines {
        // The binary's own run of the line, to compare with: a process.
        let process = Command::new(BIN).args(*args).output().unwrap();
        let here = cli_here(*args);
        assert_eq!(
            process.status.code(),
            here.status.code(),
            "{args:?}: exit status"
        );
        assert_eq!(
            String::from_utf8_lossy(&process.stdout),
            String::from_utf8_lossy(&here.stdout),
            "{args:?}: stdout"
        );
        assert_eq!(
            String::from_utf8_lossy(&process.stderr),
            here.err(),
            "{args:?}: stderr"
        );
    }
}
