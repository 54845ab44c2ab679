//! The transcript tools against hostile or broken input, through the real binary:
//! a peer's control bytes are shown escaped in every text view, never sent to the
//! terminal; an unreadable or broken transcript is refused with exit status 2 and
//! the line it broke on; files the tools write are private and never followed
//! through a symlink.

mod common;

use common::tools_inproc::{TapFlags, TapPeer};
use common::{BIN, golden};
use serde_json::json;
use std::process::{Command, Output};

fn scratch(name: &str) -> std::path::PathBuf {
    common::scratch("hostile", name)
}

fn write_transcript(file: &std::path::Path, lines: &[serde_json::Value]) {
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(file, text).unwrap();
}

fn header(transport: &str) -> serde_json::Value {
    json!({"transcript":"mcp-raw","version":1,"role":"client","transport":transport,"started":"2026-12-04T00:00:00Z"})
}

fn run(args: &[&str]) -> Output {
    // What a terminal gets from the CLI (stdout and stderr, exit statuses): a process.
    Command::new(BIN).args(args).output().unwrap()
}

/// stdout and stderr together, as a terminal would get them.
fn both(out: &Output) -> Vec<u8> {
    let mut all = out.stdout.clone();
    all.extend_from_slice(&out.stderr);
    all
}

/// What a terminal would obey: ESC, BEL, CR, DEL, or a C1 control (U+0080–U+009F,
/// two bytes in UTF-8: C2 80–C2 9F).
fn obeyed(bytes: &[u8]) -> Option<String> {
    let text = String::from_utf8_lossy(bytes);
    text.chars()
        .find(|&c| c != '\n' && c != '\t' && c.is_control())
        .map(|c| format!("U+{:04X}", c as u32))
}

#[test]
fn control_bytes_from_a_peer_are_shown_escaped_in_every_view() {
    let dir = scratch("controls");
    // An HTTP exchange: the request's tool name holds a C1 CSI (U+009B); the
    // response head retitles the window (OSC 0 … BEL), its SSE comment and event
    // field clear the screen, its result text holds CSI and DEL, its close reason ESC.
    let body = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"x\u{9b}2J\"}}";
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    let response = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nX-Title: \x1b]0;pwned\x07\r\n\r\n: \x1b[2J comment\n\nevent: message\x1b[2J\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"\u{9b}31mred\x7f\"}]}}\n\n";
    let http = dir.join("http.jsonl");
    write_transcript(
        &http,
        &[
            header("http"),
            json!({"t":0.001,"lane":"c1","dir":"c2s","open":"connected to 127.0.0.1:1"}),
            json!({"t":0.002,"lane":"c1","dir":"c2s","text":request}),
            json!({"t":0.003,"lane":"c1","dir":"s2c","text":response}),
            json!({"t":0.004,"lane":"c1","dir":"s2c","close":"eof \x1b[2J"}),
        ],
    );
    // A stdio server whose stderr retitles the window and fakes a verdict after a
    // CR, and whose stdout pollution clears the screen.
    let stdio = dir.join("stdio.jsonl");
    write_transcript(
        &stdio,
        &[
            header("stdio"),
            json!({"t":0.001,"lane":"stderr","dir":"s2c","text":"log \x1b]0;title\x07 \x1b[2J\rall checks passed\n"}),
            json!({"t":0.002,"lane":"stdio","dir":"s2c","text":"pollution \x1b[2J\n"}),
        ],
    );
    for file in [&http, &stdio] {
        let f = file.to_str().unwrap();
        for args in [
            vec!["show", f, "--color", "never"],
            vec!["show", f, "--color", "always"],
            vec!["show", f, "--raw", "--color", "never"],
            vec!["show", f, "--explain", "--color", "never"],
            vec!["check", f],
            // JSON on a terminal: the same values, DEL and C1 written as \u escapes.
            vec!["show", f, "--json"],
            vec!["show", f, "--pretty"],
            vec!["show", f, "--json", "--method", "tools/call"],
        ] {
            let out = run(&args);
            let mut shown = both(&out);
            if args.contains(&"always") {
                // Our own colours are the only escapes allowed: drop them, then look.
                let text = String::from_utf8_lossy(&shown).into_owned();
                let text = regex_free_strip_sgr(&text);
                shown = text.into_bytes();
            }
            assert_eq!(
                obeyed(&shown),
                None,
                "{args:?} sent a control to the terminal:\n{}",
                String::from_utf8_lossy(&shown)
            );
        }
    }
    // The whole readable view of the HTTP exchange: every control escaped where it
    // stood (the header's OSC and BEL, the SSE comment's and field's CSI, the C1 CSI
    // in the tool name and the text, DEL, the close reason's ESC).
    let readable =
        String::from_utf8(run(&["show", http.to_str().unwrap(), "--color", "never"]).stdout)
            .unwrap();
    golden::compare("show/hostile-http.txt", &readable);
    // diff quotes the messages it compares.
    let out = run(&["diff", http.to_str().unwrap(), stdio.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert_eq!(
        obeyed(&both(&out)),
        None,
        "{}",
        String::from_utf8_lossy(&both(&out))
    );
    // The client's live view of a server that writes controls to stderr and stdout.
    let script = format!(
        "printf '\\033]0;pwned\\007 log \\033[2J\\r\\n' >&2; printf 'junk \\033[2J\\n'; exec {BIN} serve"
    );
    // A stdio server's stderr and stdout pollution reach the client's terminal: a process.
    let out = Command::new(BIN)
        .args(["client", "--color", "never", "--", "sh", "-c", &script])
        .output()
        .unwrap();
    let shown = String::from_utf8_lossy(&both(&out)).into_owned();
    assert_eq!(obeyed(&both(&out)), None, "{shown}");
    assert!(shown.contains("\\x1b]0;pwned\\x07 log \\x1b[2J"), "{shown}");
    assert!(
        shown.contains("junk ⟨1b⟩[2J") || shown.contains("junk \\x1b[2J"),
        "{shown}"
    );
    // The whole view of the stdio recording: the stderr line's OSC, BEL, CSI and the
    // CR before the fake verdict escaped; the pollution's CSI too.
    let log = String::from_utf8(run(&["show", stdio.to_str().unwrap(), "--color", "never"]).stdout)
        .unwrap();
    golden::compare("show/hostile-stdio.txt", &log);
}

/// `text` without the SGR sequences (`ESC [ digits ; … m`) mcp-raw's own colours are.
fn regex_free_strip_sgr(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find("\x1b[") {
        out.push_str(&rest[..at]);
        let after = &rest[at + 2..];
        let end = after
            .find(|c: char| !(c.is_ascii_digit() || c == ';'))
            .unwrap_or(after.len());
        if after[end..].starts_with('m') {
            rest = &after[end + 1..];
        } else {
            // Not a colour of ours: keep it, so the check finds it.
            out.push_str("\x1b[");
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

#[test]
fn an_unreadable_or_broken_transcript_is_exit_status_2_and_names_its_line() {
    let dir = scratch("broken");
    let missing = dir.join("missing.jsonl");
    let missing = missing.to_str().unwrap();
    // Line 3 holds a byte that is not UTF-8 (0xff) at column 9.
    let bad_utf8 = dir.join("bad-utf8.jsonl");
    let mut bytes = format!(
        "{}\n{}\n",
        header("stdio"),
        json!({"t":0.001,"lane":"stdio","dir":"c2s","text":"{}\n"})
    )
    .into_bytes();
    bytes.extend_from_slice(b"{\"t\":0.0\xff}\n");
    std::fs::write(&bad_utf8, &bytes).unwrap();
    // A header after two blank lines that is not one: its line is 3, not 1.
    let bad_header = dir.join("bad-header.jsonl");
    std::fs::write(&bad_header, "\n\n{\"transcript\":\"other\"}\n").unwrap();
    let good = dir.join("good.jsonl");
    write_transcript(&good, &[header("stdio")]);
    let (bad_utf8, bad_header, good) = (
        bad_utf8.to_str().unwrap(),
        bad_header.to_str().unwrap(),
        good.to_str().unwrap(),
    );
    for args in [
        vec!["show", missing],
        vec!["check", missing],
        vec!["diff", missing, good],
        vec!["replay", missing, "--", "true"],
    ] {
        let out = run(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {out:?}");
        assert_eq!(
            String::from_utf8_lossy(&out.stderr),
            format!(
                "mcp-raw {}: cannot read {missing}: No such file or directory (os error 2)\n",
                args[0]
            ),
            "{args:?}"
        );
    }
    for args in [
        vec!["show", bad_utf8],
        vec!["show", bad_utf8, "--follow"],
        vec!["check", bad_utf8],
        vec!["diff", good, bad_utf8],
        vec!["replay", bad_utf8, "--", "true"],
    ] {
        let out = run(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        // `show --follow` reads as it goes: no "is not a transcript" before the line.
        let what = if args.contains(&"--follow") {
            format!("{bad_utf8}:")
        } else {
            format!("{bad_utf8} is not a transcript mcp-raw can read:")
        };
        assert_eq!(
            err,
            format!(
                "mcp-raw {}: {what} line 3: not UTF-8 at column 9 (byte 0xff): a transcript is JSON text, which is UTF-8 (RFC 8259 §8.1)\n",
                args[0]
            ),
            "{args:?}"
        );
    }
    for args in [vec!["show", bad_header], vec!["check", bad_header]] {
        let out = run(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(
            err,
            format!(
                "mcp-raw {}: {bad_header} is not a transcript mcp-raw can read: line 3: not an mcp-raw transcript header: {{\"transcript\":\"other\"}}\n",
                args[0]
            ),
            "{args:?}"
        );
    }
    // A --lane the recording lacks is a usage mistake too.
    let out = run(&["show", good, "--lane", "c9"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
}

#[test]
fn every_subcommand_states_its_exit_status_in_help() {
    let out = run(&["--help"]);
    let help = String::from_utf8_lossy(&out.stdout);
    let commands: Vec<&str> = help
        .lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .collect();
    assert!(commands.len() >= 10, "{help}");
    for c in commands {
        let out = run(&[c, "--help"]);
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            text.contains("Exit status"),
            "`{c} --help` says no exit status:\n{text}"
        );
        assert!(
            text.contains("2 "),
            "`{c} --help` does not give the usage status 2:\n{text}"
        );
    }
}

#[test]
fn an_unreadable_key_file_is_usage_not_failure() {
    let dir = scratch("key");
    // An unreadable key file is the CLI's usage error (exit status 2): a process.
    let out = Command::new(BIN)
        .args(["serve", "--state-key-file"])
        .arg(dir.join("no-such-key"))
        .env_remove("MCP_RAW_STATE_KEY_FILE")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
}

/// The tap, over HTTP, on port 0 in front of `target`, with `flags`: in-process (the
/// library's relay, as `tap --http --listen 127.0.0.1:0 --target TARGET` sets it up),
/// since what it relays, records and closes is the subject, not its process.
fn http_tap(target: &str, flags: TapFlags) -> TapPeer {
    TapPeer::http(target, flags)
}

fn secs(n: u64) -> std::time::Duration {
    std::time::Duration::from_secs(n)
}

/// A target that reads one request (head and Content-Length body) per connection
/// and answers `reply`, then closes.
fn one_shot_target(reply: &'static [u8]) -> std::net::SocketAddr {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        for conn in listener.incoming() {
            let Ok(mut conn) = conn else { return };
            let mut got = Vec::new();
            let mut buf = [0u8; 4096];
            while let Ok(n) = conn.read(&mut buf) {
                if n == 0 {
                    break;
                }
                got.extend_from_slice(&buf[..n]);
                let text = String::from_utf8_lossy(&got);
                if let Some(end) = text.find("\r\n\r\n") {
                    let len = text[..end]
                        .lines()
                        .find_map(|l| {
                            l.to_ascii_lowercase()
                                .strip_prefix("content-length:")
                                .map(|v| v.trim().parse::<usize>().unwrap_or(0))
                        })
                        .unwrap_or(0);
                    if got.len() >= end + 4 + len {
                        break;
                    }
                }
            }
            let _ = conn.write_all(reply);
        }
    });
    addr
}

fn exchange(addr: &str, request: &[u8]) -> String {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(std::time::Duration::from_secs(10)))
        .unwrap();
    s.write_all(request).unwrap();
    let mut reply = Vec::new();
    let _ = s.read_to_end(&mut reply);
    String::from_utf8_lossy(&reply).into_owned()
}

#[test]
fn cookies_api_keys_introspected_tokens_and_passwords_are_masked_in_the_record() {
    let dir = scratch("redact");
    let record = dir.join("tap.jsonl");
    let target = one_shot_target(
        b"HTTP/1.1 201 Created\r\nContent-Type: application/json\r\nSet-Cookie: sid=SECRETSID4; Path=/; HttpOnly\r\nConnection: close\r\nContent-Length: 60\r\n\r\n{\"client_id\":\"c1\",\"registration_access_token\":\"SECRETREG3\"}",
    );
    let tap = http_tap(
        &format!("http://{target}/introspect"),
        TapFlags {
            record: Some(&record),
            redact_headers: vec!["X-Mine".into()],
            ..TapFlags::default()
        },
    );
    let body = "token=SECRETTOKEN1&token_type_hint=access_token&password=SECRETPASS2";
    let request = format!(
        "POST /introspect HTTP/1.1\r\nHost: x\r\nCookie: a=SECRETCOOKIE5; b=SECRETCOOKIE6\r\nX-Api-Key: SECRETKEY7\r\nX-Mine: SECRETMINE8\r\nX-Plain: visible\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    let reply = exchange(&tap.addr, request.as_bytes());
    // What the tap passes on is never changed: the target's bytes, whole.
    assert_eq!(
        reply,
        "HTTP/1.1 201 Created\r\nContent-Type: application/json\r\nSet-Cookie: sid=SECRETSID4; Path=/; HttpOnly\r\nConnection: close\r\nContent-Length: 60\r\n\r\n{\"client_id\":\"c1\",\"registration_access_token\":\"SECRETREG3\"}"
    );
    drop(tap);
    let recorded = std::fs::read_to_string(&record).unwrap();
    assert!(
        !recorded.contains("SECRET"),
        "a secret recorded in clear: {recorded}"
    );
    // The record holds both ways whole, each secret masked with a `*` per byte (the
    // same lengths) and everything else as it crossed (`X-Plain: visible`,
    // `token_type_hint=access_token`).
    let secrets = [
        "SECRETCOOKIE5",
        "SECRETCOOKIE6",
        "SECRETKEY7",
        "SECRETMINE8",
        "SECRETTOKEN1",
        "SECRETPASS2",
        "SECRETSID4",
        "SECRETREG3",
    ];
    let masked = |text: &str| {
        secrets
            .iter()
            .fold(text.to_owned(), |t, s| t.replace(s, &"*".repeat(s.len())))
    };
    use mcp_raw_wire::event::Dir;
    let (_, events) = mcp_raw_wire::transcript::read(&recorded).unwrap();
    let way = |d: Dir| {
        String::from_utf8(mcp_raw_wire::recorder::concat(&events, |e| e.dir == d)).unwrap()
    };
    assert_eq!(way(Dir::ToServer), masked(&request));
    assert_eq!(way(Dir::ToClient), masked(&reply));
    assert_eq!(
        masked(&request),
        "POST /introspect HTTP/1.1\r\nHost: x\r\nCookie: a=*************; b=*************\r\nX-Api-Key: **********\r\nX-Mine: ***********\r\nX-Plain: visible\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 68\r\n\r\ntoken=************&token_type_hint=access_token&password=***********"
    );
}

/// Reads until the peer closes (or 15 s pass); returns what came and how long after
/// `started` it closed.
fn read_until_closed(
    s: &mut std::net::TcpStream,
    started: std::time::Instant,
) -> (String, std::time::Duration) {
    use std::io::Read;
    s.set_read_timeout(Some(std::time::Duration::from_secs(15)))
        .unwrap();
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    while let Ok(n) = s.read(&mut buf) {
        if n == 0 {
            break;
        }
        got.extend_from_slice(&buf[..n]);
    }
    (
        String::from_utf8_lossy(&got).into_owned(),
        started.elapsed(),
    )
}

#[test]
fn the_http_tap_closes_half_sent_heads_and_idle_connections() {
    use std::io::Write;
    use std::time::Duration;
    // The tap is the subject; the server behind it runs in-process.
    let server = common::InProcess::demo();
    let tap = http_tap(
        &format!("http://{}/mcp", server.addr),
        TapFlags {
            header_timeout: secs(1),
            idle_timeout: secs(2),
            ..TapFlags::default()
        },
    );
    let started = std::time::Instant::now();
    // Half a request line, then nothing: closed after --header-timeout (serve's own
    // header timeout is 30 s, so the close is the tap's).
    let mut half = std::net::TcpStream::connect(&tap.addr).unwrap();
    half.write_all(b"POST /mcp HTT").unwrap();
    // A connection that never sends a byte: the same clock.
    let mut silent = std::net::TcpStream::connect(&tap.addr).unwrap();
    // A whole request, answered; then idle on a kept-alive connection.
    let mut idle = std::net::TcpStream::connect(&tap.addr).unwrap();
    idle.write_all(b"GET /nothing-here HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        .unwrap();
    let (got, took) = read_until_closed(&mut half, started);
    assert_eq!(got, "", "nothing is answered to half a head");
    assert!(
        took >= Duration::from_millis(800) && took < Duration::from_secs(10),
        "half a head closed after {took:?}"
    );
    let (_, took) = read_until_closed(&mut silent, started);
    assert!(
        took < Duration::from_secs(10),
        "a silent connection closed after {took:?}"
    );
    let (got, took) = read_until_closed(&mut idle, started);
    // The server's whole answer, passed on unchanged (its date aside).
    assert_eq!(
        golden::normalize(&got),
        "HTTP/1.1 404 Not Found\r\ncontent-type: application/json\r\ncontent-length: 115\r\ndate: <date>\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32600,\"message\":\"Not Found: /nothing-here (the MCP endpoint is /mcp)\"}}"
    );
    assert!(
        took >= Duration::from_millis(1500) && took < Duration::from_secs(12),
        "an idle connection closed after {took:?}"
    );
}

/// A target that answers each connection with `reply` at once, whatever was asked,
/// then closes.
fn babbling_target(reply: &'static [u8]) -> std::net::SocketAddr {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        for conn in listener.incoming() {
            let Ok(mut conn) = conn else { return };
            let mut buf = [0u8; 1024];
            let _ = conn.read(&mut buf);
            let _ = conn.write_all(reply);
        }
    });
    addr
}

#[test]
fn a_target_that_is_not_http_gets_the_client_a_502() {
    let dir = scratch("not-http");
    let record = dir.join("tap.jsonl");
    for (reply, says) in [
        (
            &b"SSH-2.0-OpenSSH_9.6\r\n"[..],
            r#"its answer is not HTTP (a response starts with a status line, "HTTP/1.1 200 OK"; it sent "SSH-2.0-OpenSSH_9.6\r\n")"#,
        ),
        (
            &b"\x1b[2Jgarbage"[..],
            r#"its answer is not HTTP (a response starts with a status line, "HTTP/1.1 200 OK"; it sent "\u{1b}[2Jgarbage")"#,
        ),
        (&b""[..], "it closed the connection without answering"),
    ] {
        let target = babbling_target(reply);
        let tap = http_tap(
            &format!("http://{target}/mcp"),
            TapFlags {
                record: Some(&record),
                ..TapFlags::default()
            },
        );
        let got = exchange(
            &tap.addr,
            b"POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}",
        );
        // The whole response; the body says what the target sent, escaped.
        let body = format!(
            "mcp-raw tap: the target http://{target}/mcp gave no valid HTTP response: {says}\n"
        );
        assert_eq!(
            got,
            format!(
                "HTTP/1.1 502 Bad Gateway\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            )
        );
        let body = got.split_once("\r\n\r\n").map_or("", |(_, b)| b);
        assert_eq!(obeyed(body.as_bytes()), None, "{got:?}");
    }
}

#[cfg(unix)]
#[test]
fn records_and_pages_are_private_and_never_written_through_a_symlink() {
    use std::os::unix::fs::{PermissionsExt, symlink};
    let dir = scratch("private");
    let record = dir.join("serve.jsonl");
    // An existing file, readable by all, is emptied and made private.
    std::fs::write(&record, "old").unwrap();
    std::fs::set_permissions(&record, std::fs::Permissions::from_mode(0o644)).unwrap();
    // Serve --record creates the file (its mode) before it serves: a process.
    let out = Command::new(BIN)
        .args(["serve", "--record"])
        .arg(&record)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&record), 0o600);
    let page = dir.join("page.html");
    let out = run(&[
        "show",
        record.to_str().unwrap(),
        "--html",
        page.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(mode(&page), 0o600);
    // A symlink where the recording goes: refused, and its target untouched.
    let victim = dir.join("victim.txt");
    std::fs::write(&victim, "precious").unwrap();
    let link = dir.join("link.jsonl");
    symlink(&victim, &link).unwrap();
    // Serve --record refuses a symbolic link (stderr, exit status 2): a process.
    let out = Command::new(BIN)
        .args(["serve", "--record"])
        .arg(&link)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(
        err,
        format!(
            "mcp-raw: --record {}: cannot write it: it is a symbolic link: a recording is never written through one (give the file's own path)\n",
            link.display()
        )
    );
    let out = run(&[
        "show",
        record.to_str().unwrap(),
        "--html",
        link.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert_eq!(
        err,
        format!(
            "mcp-raw show: --html {}: cannot write it: it is a symbolic link: a recording is never written through one (give the file's own path)\n",
            link.display()
        )
    );
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
}

/// `replay --http` of a stdio recording in which the server asked the client
/// (sampling/createMessage) before it answered tools/call: the question goes out on
/// an event stream, the answer comes back on its own POST, then the response follows
/// on the first stream, and the client gets its result. `check` on the mock's own
/// recording finds nothing; on one where the question came back as the POST's JSON
/// reply, it reports an error.
#[test]
fn a_server_request_replayed_over_http_goes_on_an_event_stream() {
    let dir = scratch("replay-question");
    let sampled = r#"sampling={"role":"assistant","content":{"type":"text","text":"sampled!"},"model":"m","stopReason":"endTurn"}"#;
    let call = r#"test_sampling={"prompt":"hi"}"#;
    let (orig, mocked, again) = (
        dir.join("stdio.jsonl"),
        dir.join("mock.jsonl"),
        dir.join("again.jsonl"),
    );
    // The original recording is a stdio one: the client spawns `mcp-raw serve` over pipes.
    let out = Command::new(BIN)
        .args([
            "client", "--era", "legacy", "--answer", sampled, "--call", call, "--record",
        ])
        .arg(&orig)
        .args([
            "--",
            BIN,
            "serve",
            "--fixture",
            "conformance",
            "--era",
            "legacy",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    // The mock and the client after it in-process (the library's replay server and
    // client, with what `replay --http --record` and `client --era legacy --answer
    // … --call … --timeout 10 --record` set): the exchange is the subject. The
    // recording above stays a stdio one, made over real pipes.
    let mock = common::tools_inproc::MockPeer::http_recording(&orig, Some(&mocked));
    let mut answers = mcp_raw_net::client::answers::Answers::default();
    answers.set(sampled).unwrap();
    let driven = common::client_inproc::drive_http_recording(
        &mock.url,
        mcp_raw_net::client::mcp_client::Options {
            eras: mcp_raw_core::Eras::Legacy,
            answers,
            timeout: std::time::Duration::from_secs(10),
            ..Default::default()
        },
        &[("test_sampling", json!({"prompt": "hi"}))],
        Some(&again),
    );
    drop(mock);
    let shown = &driven.view;
    // The question reached the client, on the POST's event stream, before the result.
    // (Not the whole view: where the 202 of the answer's own POST falls among the
    // stream's events is a race between two connections.)
    let asked = shown.find("\"method\": \"sampling/createMessage\"");
    let result = shown.find("LLM response: sampled!");
    assert!(asked.is_some() && asked < result, "{shown}");
    assert!(shown.contains("content-type: text/event-stream"), "{shown}");
    // The call's result, whole (what the CLI captions `# test_sampling: ok`).
    assert_eq!(
        driven.results,
        vec![Ok(
            r#"{"content":[{"type":"text","text":"LLM response: sampled!"}]}"#.to_owned()
        )]
    );
    let (status, report) = common::tools_inproc::check(&mocked);
    assert_eq!(status, 0, "{report}");
    let out = run(&["diff", orig.to_str().unwrap(), again.to_str().unwrap()]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );

    // What the mock used to serve: the question as the POST's JSON reply.
    let post = |id: u32, body: &str| {
        format!(
            "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/json, text/event-stream\r\nContent-Type: application/json\r\nMCP-Protocol-Version: 2025-11-25\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        )
        .replace("{id}", &id.to_string())
    };
    let answer = |body: &str| {
        format!(
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        )
    };
    let broken = dir.join("broken.jsonl");
    write_transcript(
        &broken,
        &[
            json!({"transcript":"mcp-raw","version":1,"role":"replay","transport":"http","started":"2026-12-04T00:00:00Z"}),
            json!({"t":0.001,"lane":"c1","dir":"c2s","text":post(1, r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"roots":{}},"clientInfo":{"name":"c","version":"1"}}}"#)}),
            json!({"t":0.002,"lane":"c1","dir":"s2c","text":answer(r#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}"#)}),
            json!({"t":0.003,"lane":"c1","dir":"c2s","text":post(0, r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)}),
            json!({"t":0.004,"lane":"c1","dir":"s2c","text":"HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n"}),
            json!({"t":0.005,"lane":"c1","dir":"c2s","text":post(2, r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"t","arguments":{}}}"#)}),
            json!({"t":0.006,"lane":"c1","dir":"s2c","text":answer(r#"{"jsonrpc":"2.0","id":"r1","method":"roots/list"}"#)}),
        ],
    );
    let out = run(&["check", broken.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    // The whole report: the error, and the two requests left unanswered.
    assert_eq!(
        text,
        concat!(
            "event 6 c1 s2c 0.006000s: error http/json-not-the-response: the application/json answer to a POST of request 2 is request roots/list #\"r1\", not its response  [MCP 2025-11-25 basic/transports \"Sending Messages to the Server\" 5, \"Multiple Connections\"]\n",
            "event 5 c1 c2s 0.005000s: warning jsonrpc/unanswered: request tools/call (id 2): the server never answered it  [JSON-RPC 2.0 §5]\n",
            "event 6 c1 s2c 0.006000s: warning jsonrpc/unanswered: request roots/list (id \"r1\"): the client never answered it  [JSON-RPC 2.0 §5]\n",
            "1 error, 2 warnings in 5 messages (6 events, 45 rules checked)\n",
        )
    );
}

/// A response in flight is never idle: a stream that stays quiet longer than
/// --idle-timeout passes whole.
#[test]
fn the_http_tap_leaves_a_quiet_stream_alone() {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let target = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        let Ok((mut conn, _)) = listener.accept() else {
            return;
        };
        let mut buf = [0u8; 1024];
        let _ = conn.read(&mut buf);
        let _ = conn.write_all(
            b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n",
        );
        std::thread::sleep(std::time::Duration::from_millis(2500));
        let event = b"data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n";
        let _ = conn.write_all(format!("{:x}\r\n", event.len()).as_bytes());
        let _ = conn.write_all(event);
        let _ = conn.write_all(b"\r\n0\r\n\r\n");
    });
    let tap = http_tap(
        &format!("http://{target}/mcp"),
        TapFlags {
            idle_timeout: secs(1),
            header_timeout: secs(1),
            ..TapFlags::default()
        },
    );
    let got = exchange(
        &tap.addr,
        b"POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}",
    );
    // Passed whole, byte for byte as the target wrote it.
    assert_eq!(
        got,
        "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n2c\r\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n\r\n0\r\n\r\n"
    );
}

/// Bytes that break HTTP framing, to a target that says nothing: the tap cannot tell
/// requests from responses any more, so it measures silence, and closes.
#[test]
fn the_http_tap_closes_a_silent_connection_that_is_not_http() {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let target = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        let Ok((mut conn, _)) = listener.accept() else {
            return;
        };
        let mut buf = [0u8; 1024];
        // Reads and never answers, until the tap closes.
        while matches!(conn.read(&mut buf), Ok(n) if n > 0) {}
    });
    let tap = http_tap(
        &format!("http://{target}/mcp"),
        TapFlags {
            idle_timeout: secs(1),
            header_timeout: secs(60),
            ..TapFlags::default()
        },
    );
    let started = std::time::Instant::now();
    let mut garbage = std::net::TcpStream::connect(&tap.addr).unwrap();
    // A "head" longer than any the tap reads (64 KiB): the framing is lost.
    garbage.write_all(&vec![b'a'; 70_000]).unwrap();
    let (_, took) = read_until_closed(&mut garbage, started);
    assert!(
        took >= std::time::Duration::from_millis(800) && took < std::time::Duration::from_secs(10),
        "closed after {took:?}"
    );
}
