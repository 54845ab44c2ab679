//! `mcp-raw wrap` and `mcp-raw sessions`, through the real binary: each client's
//! configuration, written from its documentation (`tests/golden/wrap/*.in.*`),
//! wrapped and compared with its golden file byte for byte (the binary's and the
//! state directory's paths written `@MCP_RAW@` and `@STATE@`), installed twice
//! (no change), then unwrapped to the original bytes; and the refusals: a file that
//! does not parse, a read-only one, one changed since install, an entry that cannot
//! be wrapped. Then a wrapped server run the way its client would run it, its
//! session listed by `sessions` and shown by its short name.
//! `UPDATE_GOLDEN=1 cargo test --test wrap` rewrites the golden files.

mod common;
use common::{BIN, golden};
use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

/// A scratch home: `home/` (HOME), `state/` (XDG_STATE_HOME), `config/`
/// (XDG_CONFIG_HOME), `project/` (the current directory).
struct Home {
    root: PathBuf,
}

impl Home {
    fn new(name: &str) -> Home {
        let root = golden::scratch().join(format!("wrap-{name}"));
        let _ = std::fs::remove_dir_all(&root);
        for d in ["home", "state", "config", "project"] {
            std::fs::create_dir_all(root.join(d)).unwrap();
        }
        Home { root }
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.root.join(rel)
    }

    /// `mcp-raw ARGS` in this home, from `project/`, with nothing else of the caller's
    /// environment.
    fn run(&self, args: &[&str]) -> Output {
        self.run_as(std::path::Path::new(BIN), args)
    }

    /// `mcp-raw ARGS` as [`Home::run`] runs it, from this copy of the binary.
    fn run_as(&self, bin: &std::path::Path, args: &[&str]) -> Output {
        // A copy of the binary just written may be "text file busy" (ETXTBSY) for a
        // moment: another test's fork in this process may hold its write descriptor
        // until that child execs. Tried again, briefly.
        for _ in 0..50 {
            // The CLI with its own environment, directory and path (where wrap says it
            // runs from) is the subject: a process.
            let ran = Command::new(bin)
                .args(args)
                .env_clear()
                .env("HOME", self.path("home"))
                .env("XDG_STATE_HOME", self.path("state"))
                .env("XDG_CONFIG_HOME", self.path("config"))
                .current_dir(self.path("project"))
                .output();
            match ran {
                Err(e) if e.raw_os_error() == Some(26) => {
                    std::thread::sleep(std::time::Duration::from_millis(20))
                }
                other => return other.unwrap(),
            }
        }
        panic!("{} stayed busy (ETXTBSY) for a second", bin.display());
    }

    /// Places fixture `name` at `rel` (under the scratch root), returning its path.
    fn place(&self, name: &str, rel: &str) -> PathBuf {
        let to = self.path(rel);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(golden::dir().join("wrap").join(name), &to).unwrap();
        to
    }
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn ok(out: &Output) -> String {
    assert!(
        out.status.success(),
        "{}\nstdout: {}\nstderr: {}",
        out.status,
        text(&out.stdout),
        text(&out.stderr)
    );
    text(&out.stdout)
}

/// The wrapped file with this run's paths replaced by placeholders.
fn placeheld(home: &Home, wrapped: &str) -> String {
    let bin = std::fs::canonicalize(BIN).unwrap();
    let state = home.path("state");
    // In JSON and TOML basic strings a path is written with its `\` doubled (on Unix
    // there are none, so this is the path itself).
    wrapped
        .replace(bin.to_str().unwrap(), "@MCP_RAW@")
        .replace(state.to_str().unwrap(), "@STATE@")
}

/// One fixture through install, install again, status and uninstall.
fn round_trip(
    fixture: &str,
    client: &str,
    rel: &str,
    explicit: bool,
    expect_wrapped: &[&str],
    expect_left: &[&str],
) {
    let home = Home::new(fixture);
    let config = home.place(fixture, rel);
    let original = std::fs::read(&config).unwrap();
    let config_s = config.to_str().unwrap().to_owned();
    let pointed: Vec<&str> = if explicit {
        vec!["--config", &config_s, "--client", client]
    } else {
        vec!["--client", client]
    };
    let with = |action: &[&str]| -> Vec<String> {
        action
            .iter()
            .chain(pointed.iter())
            .map(|s| s.to_string())
            .collect()
    };
    let run = |action: &[&str]| {
        let args = with(action);
        home.run(&args.iter().map(String::as_str).collect::<Vec<_>>())
    };

    // --dry-run says and changes nothing.
    let dry = ok(&run(&["wrap", "install", "--dry-run"]));
    assert_eq!(
        std::fs::read(&config).unwrap(),
        original,
        "--dry-run changed {fixture}"
    );
    for name in expect_wrapped {
        assert!(dry.contains(&format!("{name}: would be wrapped")), "{dry}");
    }

    let out = run(&["wrap", "install"]);
    let said = ok(&out);
    for name in expect_wrapped {
        assert!(
            said.contains(&format!("  {name}: wrapped")),
            "{fixture}: {name} not wrapped:\n{said}"
        );
    }
    for name in expect_left {
        assert!(
            said.contains(&format!("  {name}: not wrapped: ")),
            "{fixture}: {name} not said left:\n{said}"
        );
    }
    let all = format!("{said}{}", text(&out.stderr));
    for secret in [
        "sk-live-0123456789abcdef",
        "patXXXXXXXXXXXXXX.secret",
        "ghp_secretsecretsecret",
        "secret-token-value",
        "MY_ENV_VALUE",
    ] {
        assert!(
            !all.contains(secret),
            "{fixture}: a secret was printed:\n{all}"
        );
    }
    let wrapped = std::fs::read(&config).unwrap();
    let ext = fixture.rsplit('.').next().unwrap();
    let stem = fixture.split(".in.").next().unwrap();
    golden::compare(
        &format!("wrap/{stem}.wrapped.{ext}"),
        &placeheld(&home, &text(&wrapped)),
    );
    // A client whose reader is strict JSON still reads the wrapped file.
    if ext == "json" && !stem.starts_with("vscode") {
        let v: serde_json::Value = serde_json::from_slice(&wrapped)
            .unwrap_or_else(|e| panic!("{fixture} wrapped is not JSON: {e}"));
        let servers = v.get("mcpServers").unwrap();
        for name in expect_wrapped.iter().filter(|n| !n.contains(" (project ")) {
            assert_eq!(servers[name]["args"][0], "tap", "{fixture}: {name}");
        }
    }

    // The original is kept, readable by its owner alone.
    let kept: Vec<_> = std::fs::read_dir(home.path("state/mcp-raw/wrap"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    let orig = kept
        .iter()
        .find(|p| p.extension().is_some_and(|e| e == "orig"))
        .expect("an .orig kept");
    assert_eq!(std::fs::read(orig).unwrap(), original);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(
            std::fs::metadata(orig).unwrap().permissions().mode() & 0o777,
            0o600
        );
    }

    // Twice: nothing changes.
    let again = ok(&run(&["wrap", "install"]));
    assert_eq!(
        std::fs::read(&config).unwrap(),
        wrapped,
        "a second install changed {fixture}"
    );
    for name in expect_wrapped {
        assert!(
            again.contains(&format!("{name}: already wrapped")),
            "{again}"
        );
    }

    let status = ok(&run(&["wrap", "status"]));
    for name in expect_wrapped {
        assert!(status.contains(&format!("  {name}: wrapped\n")), "{status}");
    }

    let back = ok(&run(&["wrap", "uninstall"]));
    assert!(
        back.contains("byte for byte what it was before install"),
        "{back}"
    );
    assert_eq!(
        text(&std::fs::read(&config).unwrap()),
        text(&original),
        "{fixture}: uninstall did not restore the original bytes"
    );
    assert_eq!(std::fs::read(&config).unwrap(), original);
    let status = ok(&run(&["wrap", "status"]));
    for name in expect_wrapped {
        assert!(
            status.contains(&format!("  {name}: not wrapped\n"))
                || status.contains(&format!("  {name}: remote (URL): not wrapped\n")),
            "{status}"
        );
    }
}

#[test]
fn claude_desktop_at_its_linux_place() {
    round_trip(
        "claude-desktop.in.json",
        "claude-desktop",
        "config/Claude/claude_desktop_config.json",
        false,
        &["filesystem", "sqlite"],
        &[],
    );
}

#[test]
fn claude_code_user_file_with_unknown_fields() {
    round_trip(
        "claude-code-user.in.json",
        "claude-code",
        "home/.claude.json",
        false,
        &[
            "airtable",
            "sentry",
            "local",
            "db (project /home/me/code/api)",
        ],
        &[],
    );
}

#[test]
fn claude_code_project_file() {
    round_trip(
        "claude-code-project.in.json",
        "claude-code",
        "project/.mcp.json",
        false,
        &["api-server"],
        &["weather"],
    );
}

#[test]
fn cursor_with_crlf_windows_paths_and_escapes() {
    round_trip(
        "cursor.in.json",
        "cursor",
        "home/.cursor/mcp.json",
        false,
        &["github", "python-tool", "linear"],
        &[],
    );
}

#[test]
fn vscode_workspace_with_comments_and_trailing_commas() {
    round_trip(
        "vscode-workspace.in.json",
        "vscode",
        "project/.vscode/mcp.json",
        false,
        &["Perplexity", "fetch", "github"],
        &[],
    );
}

#[test]
fn vscode_user_settings_mcp_servers() {
    round_trip(
        "vscode-settings.in.json",
        "vscode",
        "config/Code/User/settings.json",
        false,
        &["memory"],
        &[],
    );
}

#[test]
fn windsurf_with_tabs_and_no_final_newline() {
    round_trip(
        "windsurf.in.json",
        "windsurf",
        "home/.codeium/windsurf/mcp_config.json",
        false,
        &["git", "figma"],
        &[],
    );
}

#[test]
fn gemini_cli_settings() {
    round_trip(
        "gemini.in.json",
        "gemini",
        "home/.gemini/settings.json",
        false,
        &["pythonTools", "nodeServer", "httpServer"],
        &["sseServer"],
    );
}

#[test]
fn codex_config_toml() {
    round_trip(
        "codex.in.toml",
        "codex",
        "home/.codex/config.toml",
        false,
        &["context7", "local", "multiline"],
        &["figma"],
    );
}

#[test]
fn codex_crlf_inline_tables_given_by_config() {
    round_trip(
        "codex-crlf.in.toml",
        "codex",
        "elsewhere/config.toml",
        true,
        &["inline", "bare", "table"],
        &[],
    );
}

/// A file that does not parse: left alone, the error names FILE:LINE:COLUMN.
#[test]
fn a_file_that_does_not_parse_is_left_alone_with_its_line_and_column() {
    let home = Home::new("unparsable");
    let json = home.path("home/.cursor/mcp.json");
    std::fs::create_dir_all(json.parent().unwrap()).unwrap();
    let bad = "{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\"}\n    \"b\": {\"command\": \"y\"}\n  }\n}\n";
    std::fs::write(&json, bad).unwrap();
    let out = home.run(&["wrap", "install", "--client", "cursor"]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(
        err.contains(&format!(
            "{}:4:5: expected ',' or '}}' (found '\"')",
            json.display()
        )),
        "{err}"
    );
    assert_eq!(std::fs::read_to_string(&json).unwrap(), bad);

    let toml = home.path("home/.codex/config.toml");
    std::fs::create_dir_all(toml.parent().unwrap()).unwrap();
    let bad = "[mcp_servers.a]\ncommand = \"x\"\nargs = [\"unclosed\"\n";
    std::fs::write(&toml, bad).unwrap();
    let out = home.run(&["wrap", "install", "--client", "codex"]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(
        err.contains(&format!(
            "{}:3:19: unclosed array, expected `]`",
            toml.display()
        )),
        "{err}"
    );
    assert_eq!(std::fs::read_to_string(&toml).unwrap(), bad);
}

/// A read-only configuration is refused, said, and unchanged; a writable one keeps
/// its mode through the rename.
#[cfg(unix)]
#[test]
fn a_read_only_file_is_refused_and_a_files_mode_is_kept() {
    use std::os::unix::fs::PermissionsExt;
    let home = Home::new("modes");
    let config = home.place("gemini.in.json", "home/.gemini/settings.json");
    std::fs::set_permissions(&config, std::fs::Permissions::from_mode(0o444)).unwrap();
    let out = home.run(&["wrap", "install", "--client", "gemini"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("is read-only; not changed"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(
        std::fs::read(&config).unwrap(),
        std::fs::read(golden::dir().join("wrap/gemini.in.json")).unwrap()
    );
    assert!(
        !home.path("state/mcp-raw/wrap").exists(),
        "nothing kept for a file left alone"
    );

    std::fs::set_permissions(&config, std::fs::Permissions::from_mode(0o640)).unwrap();
    ok(&home.run(&["wrap", "install", "--client", "gemini"]));
    assert_eq!(
        std::fs::metadata(&config).unwrap().permissions().mode() & 0o777,
        0o640
    );
    assert!(
        std::fs::read_to_string(&config)
            .unwrap()
            .contains("\"tap\"")
    );
}

/// Changes made between install and uninstall: one elsewhere in the file is kept
/// (and said); one to a wrapped entry cannot be undone exactly: refused, nothing
/// changed.
#[test]
fn a_file_changed_since_install() {
    let home = Home::new("changed");
    let config = home.place(
        "claude-desktop.in.json",
        "config/Claude/claude_desktop_config.json",
    );
    let original = std::fs::read_to_string(&config).unwrap();
    ok(&home.run(&["wrap", "install", "--client", "claude-desktop"]));
    let wrapped = std::fs::read_to_string(&config).unwrap();

    // A wrapped entry's args edited by hand: refused.
    let edited = wrapped.replacen("\"--name\"", "\"--label\"", 1);
    std::fs::write(&config, &edited).unwrap();
    let out = home.run(&["wrap", "uninstall", "--client", "claude-desktop"]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(err.contains("server filesystem's args changed since install; cannot restore it exactly, nothing changed"), "{err}");
    assert_eq!(std::fs::read_to_string(&config).unwrap(), edited);

    // Put back, and a setting changed elsewhere: the entries are restored, the
    // setting kept.
    let elsewhere = wrapped.replace("Ctrl+Space", "Alt+Space");
    std::fs::write(&config, &elsewhere).unwrap();
    let said = ok(&home.run(&["wrap", "uninstall", "--client", "claude-desktop"]));
    assert!(
        said.contains("the file changed elsewhere since install: those changes are kept"),
        "{said}"
    );
    assert_eq!(
        std::fs::read_to_string(&config).unwrap(),
        original.replace("Ctrl+Space", "Alt+Space")
    );
}

/// Entries `wrap` cannot wrap are said and left byte for byte; `--server` picks.
#[test]
fn entries_that_cannot_be_wrapped_and_server_choice() {
    let home = Home::new("unusable");
    let config = home.path("project/.cursor/mcp.json");
    std::fs::create_dir_all(config.parent().unwrap()).unwrap();
    let text_in = "{\"mcpServers\": {\n  \"num\": {\"command\": 42},\n  \"mixed\": {\"command\": \"x\", \"args\": [\"a\", 1]},\n  \"none\": {\"disabled\": true},\n  \"twice\": {\"command\": \"a\"},\n  \"twice\": {\"command\": \"b\"},\n  \"one\": {\"command\": \"one\"},\n  \"two\": {\"command\": \"two\"}\n}}\n";
    std::fs::write(&config, text_in).unwrap();
    let said = ok(&home.run(&[
        "wrap", "install", "--client", "cursor", "--server", "num", "--server", "mixed",
        "--server", "none", "--server", "twice", "--server", "two",
    ]));
    assert!(
        said.contains("num: not wrapped: its command is not a string"),
        "{said}"
    );
    assert!(
        said.contains("mixed: not wrapped: an element of its args is not a string"),
        "{said}"
    );
    assert!(
        said.contains("none: not wrapped: it has neither a command nor a URL"),
        "{said}"
    );
    assert!(!said.contains("  one:"), "{said}");
    let now = std::fs::read_to_string(&config).unwrap();
    let bin = std::fs::canonicalize(BIN).unwrap();
    let expected = text_in.replace(
        "{\"command\": \"two\"}",
        &format!(
            "{{\"command\": \"{}\", \"args\": [\"tap\", \"--record-dir\", \"{}\", \"--name\", \"cursor/two\", \"--\", \"two\"]}}",
            bin.display(),
            home.path("state/mcp-raw/sessions").display()
        ),
    );
    assert_eq!(now, expected);
    let coloured = ok(&home.run(&["wrap", "status", "--client", "cursor", "--color", "always"]));
    assert!(
        coloured.contains("  two: \x1b[32mwrapped\x1b[0m\n"),
        "{coloured:?}"
    );
    assert!(
        coloured.contains("  one: \x1b[33mnot wrapped\x1b[0m\n"),
        "{coloured:?}"
    );
    ok(&home.run(&["wrap", "uninstall", "--client", "cursor"]));
    assert_eq!(std::fs::read_to_string(&config).unwrap(), text_in);
}

/// `--config` without one `--client`: usage, exit 2.
#[test]
fn config_needs_its_client() {
    let home = Home::new("usage");
    let out = home.run(&["wrap", "status", "--config", "x.json"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("--config PATH needs one --client NAME"),
        "{}",
        text(&out.stderr)
    );
}

/// A wrapped server started as its client starts it (the configuration's command
/// and args, its env): the session is recorded under the state directory, listed
/// by `sessions` with its counts, and shown and checked by its short name.
#[test]
fn a_wrapped_server_records_a_session_that_sessions_lists() {
    let home = Home::new("session");
    let config = home.path("home/.cursor/mcp.json");
    std::fs::create_dir_all(config.parent().unwrap()).unwrap();
    let serve = format!(
        "{{\"mcpServers\": {{\"demo\": {{\"command\": {:?}, \"args\": [\"serve\"], \"env\": {{\"X\": \"1\"}}}}}}}}\n",
        BIN
    );
    std::fs::write(&config, serve).unwrap();
    ok(&home.run(&["wrap", "install", "--client", "cursor"]));
    let wrapped: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&config).unwrap()).unwrap();
    let entry = &wrapped["mcpServers"]["demo"];
    let args: Vec<&str> = entry["args"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap())
        .collect();

    // An old recording and a fresh one already there: the old one goes at start.
    let sessions = home.path("state/mcp-raw/sessions");
    std::fs::create_dir_all(&sessions).unwrap();
    let old = sessions.join("cursor_demo_20200101T000000000Z_p1.jsonl");
    let f = std::fs::File::create(&old).unwrap();
    f.set_modified(std::time::SystemTime::now() - std::time::Duration::from_secs(40 * 86_400))
        .unwrap();
    drop(f);

    // The client's side: the command and args from the file, as the client runs them.
    let mut child = Command::new(entry["command"].as_str().unwrap())
        .args(&args)
        .env("X", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(concat!(
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#, "\n",
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#, "\n",
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#, "\n",
        r#"{"jsonrpc":"2.0","id":3,"method":"no/such/method"}"#, "\n",
    ).as_bytes()).unwrap();
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", out.status);
    assert_eq!(
        text(&out.stdout).lines().count(),
        3,
        "{}",
        text(&out.stdout)
    );

    assert!(!old.exists(), "the 40-day-old recording was not pruned");
    let listed = ok(&home.run(&["sessions"]));
    let line = listed
        .lines()
        .find(|l| l.starts_with("cursor_demo_"))
        .unwrap_or_else(|| panic!("{listed}"));
    let cols: Vec<&str> = line.split_whitespace().collect();
    // 4 messages sent, 3 answers (one of them an error response), and check's two
    // warnings: requests sent before initialize was answered (this test pipelines).
    assert_eq!(&cols[1..4], ["7", "1", "2"], "{listed}");
    assert!(listed.starts_with("1 session(s) in "), "{listed}");

    let short = cols[0];
    let json: serde_json::Value =
        serde_json::from_str(&ok(&home.run(&["sessions", "--format", "json"]))).unwrap();
    assert_eq!(json[0]["session"], short);
    assert_eq!(
        (
            json[0]["messages"].as_u64(),
            json[0]["errors"].as_u64(),
            json[0]["findings"].as_u64()
        ),
        (Some(7), Some(1), Some(2))
    );
    // Coloured on request: a session with error responses in red.
    let coloured = ok(&home.run(&["sessions", "--color", "always"]));
    assert!(
        coloured.contains("\x1b[31m       7      1        2\x1b[0m"),
        "{coloured:?}"
    );
    let shown = ok(&home.run(&["show", "--oneline", short]));
    assert!(shown.contains("tools/list"), "{shown}");
    let checked = home.run(&["check", short]);
    assert_eq!(checked.status.code(), Some(0), "{}", text(&checked.stdout));
    assert!(
        text(&checked.stdout).contains("0 errors, 2 warnings in 7 messages"),
        "{}",
        text(&checked.stdout)
    );

    // ui too: the page is served for the session named (its URL on stderr), then
    // stopped here.
    let mut ui = Command::new(BIN)
        .args(["ui", short])
        .env_clear()
        .env("HOME", home.path("home"))
        .env("XDG_STATE_HOME", home.path("state"))
        .current_dir(home.path("project"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(ui.stderr.take().unwrap()),
        &mut first,
    )
    .unwrap();
    let _ = ui.kill();
    let _ = ui.wait();
    assert!(
        first.starts_with("[mcp-raw] ui: http://127.0.0.1:"),
        "{first}"
    );

    ok(&home.run(&["wrap", "uninstall"]));
}

/// `tap --record-dir`'s size limit: the oldest go until the total is under it.
#[test]
fn the_sessions_directory_keeps_under_its_size_limit() {
    let home = Home::new("size");
    let dir = home.path("state/mcp-raw/sessions");
    std::fs::create_dir_all(&dir).unwrap();
    let now = std::time::SystemTime::now();
    for (i, name) in ["a", "b", "c"].iter().enumerate() {
        let p = dir.join(format!("{name}.jsonl"));
        let mut f = std::fs::File::create(&p).unwrap();
        f.write_all(&[b'x'; 1000]).unwrap();
        f.set_modified(now - std::time::Duration::from_secs(100 * (3 - i as u64)))
            .unwrap();
    }
    let d = dir.to_str().unwrap();
    let out = home.run(&[
        "tap",
        "--record-dir",
        d,
        "--record-dir-max-bytes",
        "2500",
        "--name",
        "x/y",
        "--",
        "true",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let mut left: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    assert_eq!(left.len(), 3, "{left:?}");
    assert_eq!(&left[..2], ["b.jsonl", "c.jsonl"], "{left:?}");
    assert!(
        left[2].starts_with("x_y_") && left[2].ends_with(".jsonl"),
        "{left:?}"
    );
}

/// A client rewriting its file (atomically, as editors do) while `install` runs,
/// again and again: every look at the file finds one whole version (the client's
/// or the client's wrapped), never a mixture; each install either wrapped or said
/// the file changed under it; once the client stops, an install wraps its last one.
#[test]
fn a_file_its_client_rewrites_meanwhile_is_never_half_written() {
    let home = Home::new("race");
    let config = home.place("gemini.in.json", "home/.gemini/settings.json");
    let a = std::fs::read_to_string(&config).unwrap();
    let b = a.replace("\"GitHub\"", "\"Dracula\"");
    let wrapped_of = |text: &str| {
        std::fs::write(&config, text).unwrap();
        ok(&home.run(&["wrap", "install", "--client", "gemini"]));
        let w = std::fs::read_to_string(&config).unwrap();
        ok(&home.run(&["wrap", "uninstall", "--client", "gemini"]));
        assert_eq!(std::fs::read_to_string(&config).unwrap(), text);
        w
    };
    let (wa, wb) = (wrapped_of(&a), wrapped_of(&b));
    let whole = [a.clone(), b.clone(), wa.clone(), wb.clone()];

    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let client = {
        let (stop, config, a, b) = (stop.clone(), config.clone(), a.clone(), b.clone());
        std::thread::spawn(move || {
            let tmp = config.with_extension("client-tmp");
            let mut n = 0u32;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                std::fs::write(&tmp, if n.is_multiple_of(2) { &b } else { &a }).unwrap();
                std::fs::rename(&tmp, &config).unwrap();
                n += 1;
                std::thread::sleep(std::time::Duration::from_millis(2));
            }
            // The client's last word.
            std::fs::write(&tmp, &b).unwrap();
            std::fs::rename(&tmp, &config).unwrap();
        })
    };
    let (mut wrapped, mut refused) = (0, 0);
    for _ in 0..25 {
        let out = home.run(&["wrap", "install", "--client", "gemini"]);
        let said = format!("{}{}", text(&out.stdout), text(&out.stderr));
        match out.status.code() {
            Some(0) => wrapped += 1,
            Some(1) if said.contains("changed while wrap was editing it") => refused += 1,
            other => panic!("install ended {other:?}: {said}"),
        }
        let now = std::fs::read_to_string(&config).unwrap();
        assert!(whole.contains(&now), "a mixture on disk:\n{now}");
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    client.join().unwrap();
    eprintln!("race: {wrapped} wrapped, {refused} refused");
    assert_eq!(wrapped + refused, 25);
    ok(&home.run(&["wrap", "install", "--client", "gemini"]));
    assert_eq!(std::fs::read_to_string(&config).unwrap(), wb);
}

/// A sessions directory the tap cannot write to does not keep the server from
/// running: said on stderr, the bytes relayed all the same, unrecorded.
#[test]
fn an_unwritable_sessions_directory_leaves_the_server_running() {
    let home = Home::new("unwritable");
    let file = home.path("a-file");
    std::fs::write(&file, "").unwrap();
    let dir = file.join("sessions");
    let mut child = Command::new(BIN)
        .args([
            "tap",
            "--record-dir",
            dir.to_str().unwrap(),
            "--name",
            "c/s",
            "--",
            BIN,
            "serve",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n")
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("\"id\":1"),
        "{}",
        text(&out.stdout)
    );
    let err = text(&out.stderr);
    assert!(
        err.contains("mcp-raw tap: --record-dir ") && err.contains("the server runs unrecorded"),
        "{err}"
    );
}

/// Odd files: a byte order mark (kept), a symbolic link (followed: its target is
/// edited, the link stays), bytes that are not UTF-8 (left alone, the place said),
/// and an entry wrapped under another state directory (uninstall says so and leaves it).
#[cfg(unix)]
#[test]
fn a_bom_a_symlink_bytes_not_utf8_and_a_wrap_it_has_no_record_of() {
    let home = Home::new("odd");
    let real = home.path("dotfiles/mcp.json");
    std::fs::create_dir_all(real.parent().unwrap()).unwrap();
    let original = "\u{feff}{\"mcpServers\": {\"s\": {\"command\": \"srv\"}}}\n";
    std::fs::write(&real, original).unwrap();
    let link = home.path("home/.cursor/mcp.json");
    std::fs::create_dir_all(link.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let said = ok(&home.run(&["wrap", "install", "--client", "cursor"]));
    assert!(said.contains("  s: wrapped"), "{said}");
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    let wrapped = std::fs::read_to_string(&real).unwrap();
    assert!(
        wrapped.starts_with("\u{feff}{\"mcpServers\": {\"s\": {\"command\": \"/"),
        "{wrapped}"
    );

    // Another state directory has no record of it: said, left.
    let elsewhere = home.path("other-state");
    let said = ok(&home.run(&[
        "wrap",
        "uninstall",
        "--client",
        "cursor",
        "--state-dir",
        elsewhere.to_str().unwrap(),
    ]));
    assert!(
        said.contains("  s: wrapped, but ")
            && said.contains("holds no record of it; left as it is"),
        "{said}"
    );
    assert_eq!(std::fs::read_to_string(&real).unwrap(), wrapped);

    ok(&home.run(&["wrap", "uninstall", "--client", "cursor"]));
    assert_eq!(std::fs::read_to_string(&real).unwrap(), original);

    let bad = home.path("home/.gemini/settings.json");
    std::fs::create_dir_all(bad.parent().unwrap()).unwrap();
    std::fs::write(&bad, b"{\n  \"theme\": \"caf\xe9\"\n}\n").unwrap();
    let out = home.run(&["wrap", "install", "--client", "gemini"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains(&format!("{}:2:16: not UTF-8 text", bad.display())),
        "{}",
        text(&out.stderr)
    );
}

/// A remote (URL) entry wrapped: the client now starts `mcp-raw tap --remote URL` as
/// a stdio server (with the entry's headers), and what it says reaches the server at
/// the URL; the session is recorded and listed like any other, and `uninstall` puts
/// the URL entry back byte for byte.
#[test]
fn a_wrapped_remote_entry_reaches_its_server_and_records_the_session() {
    let server = common::InProcess::demo();
    let home = Home::new("remote-session");
    let config = home.path("home/.cursor/mcp.json");
    std::fs::create_dir_all(config.parent().unwrap()).unwrap();
    let original = format!(
        "{{\"mcpServers\": {{\"far\": {{\"url\": \"http://{}/mcp\", \"headers\": {{\"X-Team\": \"blue\"}}}}}}}}\n",
        server.addr
    );
    std::fs::write(&config, &original).unwrap();
    let said = ok(&home.run(&["wrap", "install", "--client", "cursor"]));
    assert!(
        said.contains("  far: wrapped (a remote server: through tap --remote)\n"),
        "{said}"
    );
    let wrapped: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&config).unwrap()).unwrap();
    let entry = &wrapped["mcpServers"]["far"];
    let args: Vec<&str> = entry["args"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap())
        .collect();
    assert_eq!(
        &args[..5],
        [
            "tap",
            "--remote",
            &format!("http://{}/mcp", server.addr),
            "--header",
            "X-Team: blue"
        ]
    );
    // The client's side: the command and args from the file, as the client runs them.
    let mut child = Command::new(entry["command"].as_str().unwrap())
        .args(&args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(concat!(
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#, "\n",
    ).as_bytes()).unwrap();
    let mut lines = std::io::BufRead::lines(std::io::BufReader::new(child.stdout.take().unwrap()));
    let first = lines.next().unwrap().unwrap();
    assert!(
        first.starts_with(r#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25""#),
        "{first}"
    );
    stdin.write_all(concat!(
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#, "\n",
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"add","arguments":{"a":20,"b":22}}}"#, "\n",
    ).as_bytes()).unwrap();
    assert_eq!(
        lines.next().unwrap().unwrap(),
        r#"{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"42"}]}}"#
    );
    drop(stdin);
    assert!(child.wait().unwrap().success());

    let listed = ok(&home.run(&["sessions", "--format", "json"]));
    let json: serde_json::Value = serde_json::from_str(&listed).unwrap();
    let session = json[0]["session"].as_str().unwrap().to_owned();
    assert!(session.starts_with("cursor_far_"), "{listed}");
    // The recording holds the HTTP side with the entry's header on each request.
    let shown = ok(&home.run(&["show", &session, "--raw", "--color", "never"]));
    assert!(shown.contains("x-team: blue"), "{shown}");

    ok(&home.run(&["wrap", "uninstall", "--client", "cursor"]));
    assert_eq!(text(&std::fs::read(&config).unwrap()), original);
}

/// Run through `npx`, mcp-raw lives in npx's cache, which npx may clear: the entries
/// name `npx -y mcp-raw@VERSION` instead of that path, still read as wrapped, and
/// come off again byte for byte.
#[test]
fn run_from_npxs_cache_the_entries_name_npx_not_the_cache() {
    let home = Home::new("npx");
    let cached = home.path("home/.npm/_npx/0a1b2c/node_modules/@mcp-raw/linux-x64/bin/mcp-raw");
    std::fs::create_dir_all(cached.parent().unwrap()).unwrap();
    std::fs::copy(BIN, &cached).unwrap();
    let config = home.path("home/.cursor/mcp.json");
    std::fs::create_dir_all(config.parent().unwrap()).unwrap();
    let original =
        "{\"mcpServers\": {\"s\": {\"command\": \"node\", \"args\": [\"server.js\"]}}}\n";
    std::fs::write(&config, original).unwrap();
    let said = ok(&home.run_as(&cached, &["wrap", "install", "--client", "cursor"]));
    let version = env!("CARGO_PKG_VERSION");
    assert!(
        said.contains(&format!(
            "  (mcp-raw runs from npx's cache here, which npx may clear: the entries start it as `npx -y mcp-raw@{version}`)\n"
        )),
        "{said}"
    );
    let wrapped: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&config).unwrap()).unwrap();
    let entry = &wrapped["mcpServers"]["s"];
    assert_eq!(entry["command"], "npx");
    let args: Vec<&str> = entry["args"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap())
        .collect();
    assert_eq!(&args[..3], ["-y", &format!("mcp-raw@{version}"), "tap"]);
    assert!(!String::from_utf8_lossy(&std::fs::read(&config).unwrap()).contains("_npx"));
    // Read back as wrapped, by this binary and by an installed one.
    let again = ok(&home.run(&["wrap", "install", "--client", "cursor"]));
    assert!(again.contains("  s: already wrapped\n"), "{again}");
    ok(&home.run(&["wrap", "uninstall", "--client", "cursor"]));
    assert_eq!(text(&std::fs::read(&config).unwrap()), original);
}
