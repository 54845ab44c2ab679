//! The command line in a user's shell: `mcp-raw completions SHELL` (the script each
//! shell loads; bash's really completes), and colour only where a terminal shows it.

mod common;

use common::{BIN, golden};
use std::process::Command;

/// `mcp-raw ARGS…`, run to its end.
fn mcp_raw(args: &[&str]) -> std::process::Output {
    // The shell scripts drive the binary: a process.
    Command::new(BIN).args(args).output().unwrap()
}

fn script(shell: &str) -> String {
    let out = mcp_raw(&["completions", shell]);
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
    assert_eq!(ask("mcp-raw wr", 1), "wrap");
    assert_eq!(ask("mcp-raw wrap --cl", 2), "--client");
    assert_eq!(ask("mcp-raw se", 1), "serve sessions");
}

#[test]
fn zsh_and_fish_scripts_name_the_program_and_a_bad_shell_is_a_usage_error() {
    // The whole scripts (`#compdef mcp-raw` first for zsh; `complete -c mcp-raw`
    // lines for fish), compared byte for byte.
    golden::check("completions/zsh.txt", &script("zsh"));
    golden::check("completions/fish.txt", &script("fish"));
    let out = mcp_raw(&["completions", "tcsh"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: invalid value 'tcsh' for '<SHELL>'\n  [possible values: bash, elvish, fish, powershell, zsh]\n\n  tip: a similar value exists: 'zsh'\n\nFor more information, try '--help'.\n"
    );
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
/// lazily (clap `defer`), which runs the struct's part after the variant's. The
/// opening line whole, and the rest of the help as tests/golden/help/ keeps it.
#[test]
fn each_subcommand_help_opens_with_its_own_summary() {
    for (sub, opening) in [
        (
            "serve",
            "Run the MCP server: stdio by default (one JSON-RPC message per line on stdin/stdout, logs on stderr), or Streamable HTTP on /mcp with --http",
        ),
        (
            "client",
            "Connect to any MCP server (an http:// or https:// URL, or a stdio server's command line), detect its era, list its tools, call some, and print the whole wire",
        ),
        (
            "tap",
            "Stand between a real client and a real server, pass every byte on unchanged both ways, and record it: over stdio, `tap [FLAGS] -- SERVER_CMD ARG…` (the client runs this in place of the server); over HTTP, `tap --http --listen ADDR --target URL` (a reverse proxy); or, as a client's HTTPS_PROXY, `tap --proxy --listen ADDR` (a forward proxy that opens TLS with a local CA's leaves)",
        ),
        (
            "bridge",
            "Serve a stdio MCP server as Streamable HTTP on /mcp: `bridge --port PORT -- SERVER_CMD ARG…`. Each legacy session gets its own child process (spawned at initialize, killed when the session ends); modern requests share one",
        ),
        (
            "auth-server",
            "A small OAuth 2.1 authorization server on loopback, for trying `serve --auth-server` and the client's authorization: metadata, key set, dynamic registration, code + PKCE, refresh tokens, client_credentials. It approves every request without asking anyone: for demos and tests only",
        ),
    ] {
        let out = mcp_raw(&[sub, "--help"]);
        let help = String::from_utf8(out.stdout).unwrap();
        assert_eq!(help.lines().next(), Some(opening), "`{sub} --help`");
        golden::check(&format!("help/{sub}.txt"), &help);
    }
}

/// `bridge` takes serve's HTTP limits without `--http` (HTTP is all it speaks), and its
/// help drops serve's "With --http:" prefix.
#[test]
fn bridge_takes_the_http_limits_without_http() {
    let out = mcp_raw(&["bridge", "--help"]);
    let help = String::from_utf8(out.stdout).unwrap();
    // The whole help: --max-sessions and the other limits there, none of them
    // prefixed "With --http:".
    golden::check("help/bridge.txt", &help);
    // A bad value is refused by the value check, not by a missing `--http`.
    let out = mcp_raw(&["bridge", "--max-sessions", "x", "--", "true"]);
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(
        err,
        "error: invalid value 'x' for '--max-sessions <N>': invalid digit found in string\n\nFor more information, try '--help'.\n"
    );
}
