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
