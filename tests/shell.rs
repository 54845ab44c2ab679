//! The command line in a user's shell: `mcp-raw completions SHELL` (the script each
//! shell loads; bash's really completes), and colour only where a terminal shows it.

mod common;

use common::BIN;
use std::process::Command;

fn script(shell: &str) -> String {
    let out = Command::new(BIN)
        .args(["completions", shell])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn bash_completes_subcommands_and_flags() {
    let path = common::scratch("shell", "bash").join("mcp-raw.bash");
    std::fs::write(&path, script("bash")).unwrap();
    // bash sources it, then asks what `mcp-raw au<TAB>` and `mcp-raw serve --req<TAB>`
    // become, as its completion machinery would.
    let ask = |words: &str, cword: usize| {
        let program = format!(
            "source {p}; COMP_WORDS=({words}); COMP_CWORD={cword}; _mcp__raw mcp-raw \"${{COMP_WORDS[$COMP_CWORD]}}\" \"${{COMP_WORDS[$COMP_CWORD-1]}}\"; echo \"${{COMPREPLY[@]}}\"",
            p = path.display()
        );
        let out = Command::new("bash")
            .args(["-c", &program])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap().trim().to_owned()
    };
    assert_eq!(ask("mcp-raw au", 1), "auth-server");
    // The hidden subcommand is not offered: `co` is only `completions`.
    assert_eq!(ask("mcp-raw co", 1), "completions");
    assert_eq!(ask("mcp-raw serve --required-s", 2), "--required-scope");
}

#[test]
fn zsh_and_fish_scripts_name_the_program_and_a_bad_shell_is_a_usage_error() {
    assert!(script("zsh").starts_with("#compdef mcp-raw"));
    assert!(script("fish").contains("complete -c mcp-raw"));
    let out = Command::new(BIN)
        .args(["completions", "tcsh"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("possible values"));
}

/// `demo` on a pseudo-terminal (tests/scripts/on_a_terminal.py) with `TERM` set to
/// `term`: what it wrote.
fn demo_on_a_terminal(term: &str) -> String {
    let out = Command::new("python3")
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/scripts/on_a_terminal.py"
        ))
        .args(["30", "--", BIN, "demo"])
        .env("TERM", term)
        .env_remove("NO_COLOR")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn a_dumb_terminal_gets_no_colour_escapes() {
    assert!(
        demo_on_a_terminal("xterm-256color").contains("\x1b["),
        "no colour on a colour terminal"
    );
    assert!(
        !demo_on_a_terminal("dumb").contains("\x1b["),
        "escapes sent to TERM=dumb"
    );
}

/// Each subcommand's `--help` opens with its own one-line summary (the variant's doc
/// comment), not the doc of an argument struct it is built from: subcommands are built
/// lazily (clap `defer`), which runs the struct's part after the variant's.
#[test]
fn each_subcommand_help_opens_with_its_own_summary() {
    for (sub, opening) in [
        ("serve", "Run the MCP server"),
        ("client", "Connect to any MCP server"),
        ("tap", "Stand between a real client and a real server"),
        ("bridge", "Serve a stdio MCP server as Streamable HTTP"),
        ("auth-server", "A small OAuth 2.1 authorization server"),
    ] {
        let out = Command::new(BIN).args([sub, "--help"]).output().unwrap();
        let help = String::from_utf8(out.stdout).unwrap();
        assert!(
            help.starts_with(opening),
            "`{sub} --help` opens with: {help:.120}"
        );
    }
}

/// `bridge` takes serve's HTTP limits without `--http` (HTTP is all it speaks), and its
/// help drops serve's "With --http:" prefix.
#[test]
fn bridge_takes_the_http_limits_without_http() {
    let out = Command::new(BIN)
        .args(["bridge", "--help"])
        .output()
        .unwrap();
    let help = String::from_utf8(out.stdout).unwrap();
    assert!(help.contains("--max-sessions"), "{help}");
    assert!(!help.contains("With --http:"), "{help}");
    // A bad value is refused by the value check, not by a missing `--http`.
    let out = Command::new(BIN)
        .args(["bridge", "--max-sessions", "x", "--", "true"])
        .output()
        .unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("invalid value 'x'") && !err.contains("--http"),
        "{err}"
    );
}
