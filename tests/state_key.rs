//! `serve --state-key-file`: replicas that share a key open each other's MRTR
//! `requestState` (2026-07-28 `basic/patterns/mrtr`: the server keeps no memory between
//! rounds, so round 2 may reach another replica); a replica with another key refuses it
//! with `-32602`; a missing or short key file stops the server before it listens,
//! naming the file.
//!
//! The replicas are processes: the key is installed once per process
//! (`state_key::install`), so two keys need two processes.

mod common;

use common::cli_inproc::cli_here;
use common::wire::*;
use common::{BIN, HttpServer};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::Command;

const TOOL: &str = "test_input_required_result_request_state";

/// A key file under the system temp dir, unique to this test process.
fn key_file(name: &str, bytes: &[u8]) -> PathBuf {
    let p = std::env::temp_dir().join(format!("mcp-raw-state-key-{}-{name}", std::process::id()));
    std::fs::write(&p, bytes).unwrap();
    p
}

/// A conformance replica sealing with the key in `key`.
fn replica(key: &Path) -> Wire {
    // The state key is process-wide (state_key::install): replicas with their own keys are processes.
    Wire::over(HttpServer::start(&[
        "--fixture",
        "conformance",
        "--state-key-file",
        key.to_str().unwrap(),
    ]))
}

/// A modern `tools/call` of [`TOOL`] that may ask for elicitation, with `extra` params.
fn call(extra: Value) -> Value {
    let mut p = modern_with(json!({"name": TOOL}), json!({"elicitation": {}}));
    if let Value::Object(m) = extra {
        for (k, v) in m {
            p[k] = v;
        }
    }
    p
}

/// Round 2 of [`TOOL`] on `to`, with the state round 1 got from `from`.
fn round_two(from: &mut Wire, to: &mut Wire) -> Value {
    let r1 = from.call(1, "tools/call", call(json!({})));
    assert_eq!(r1["result"]["resultType"], "input_required", "{r1}");
    let state = r1["result"]["requestState"].as_str().unwrap().to_owned();
    let confirm = json!({"confirm": {"action": "accept", "content": {"ok": true}}});
    to.call(
        2,
        "tools/call",
        call(json!({"inputResponses": confirm, "requestState": state})),
    )
}

#[test]
fn replicas_sharing_a_key_open_each_others_state_and_another_key_is_refused() {
    let shared = key_file("shared", format!("{}\n", "k".repeat(32)).as_bytes());
    let other = key_file("other", "o".repeat(40).as_bytes());
    let (mut a, mut b, mut c) = (replica(&shared), replica(&shared), replica(&other));

    // A seals, B opens: the same key file.
    let r = round_two(&mut a, &mut b);
    assert_eq!(r["result"]["resultType"], "complete", "{r}");
    assert_eq!(text_of(&r["result"]), "Confirmed: state-ok");

    // A seals, C (another key) refuses it, saying why and what to do.
    let r = round_two(&mut a, &mut c);
    let (code, message) = error_of(&r);
    assert_eq!(code, -32602, "{r}");
    assert_eq!(
        message,
        "requestState integrity check failed: the seal does not match (altered, forged, or sealed with another key: replicas must share one --state-key-file)"
    );
    for p in [shared, other] {
        let _ = std::fs::remove_file(p);
    }
}

#[test]
fn the_variable_names_the_key_file_too() {
    let shared = key_file("env", "e".repeat(32).as_bytes());
    let start = || {
        // MCP_RAW_STATE_KEY_FILE is read from the process's environment: a process.
        let mut command = Command::new(BIN);
        command
            .args(["serve", "--http", "--port", "0", "--fixture", "conformance"])
            .env("MCP_RAW_STATE_KEY_FILE", &shared);
        Wire::over(HttpServer::spawn(command))
    };
    let (mut a, mut b) = (start(), start());
    let r = round_two(&mut a, &mut b);
    assert_eq!(text_of(&r["result"]), "Confirmed: state-ok", "{r}");
    let _ = std::fs::remove_file(shared);
}

#[test]
fn a_text_key_loses_its_newline_and_a_binary_key_ending_in_one_is_kept_whole() {
    // Typed, with and without the newline an editor adds: the same key.
    let typed = key_file("typed", format!("{}\r\n", "t".repeat(32)).as_bytes());
    let bare = key_file("bare", "t".repeat(32).as_bytes());
    let r = round_two(&mut replica(&typed), &mut replica(&bare));
    assert_eq!(text_of(&r["result"]), "Confirmed: state-ok", "{r}");
    // 32 random bytes whose last is `\n` (`head -c 32 /dev/urandom` makes one in 256):
    // all 32 are the key, so the server starts and seals with it.
    let mut random: Vec<u8> = (0x80..0x9f).collect();
    random.push(b'\n');
    let binary = key_file("binary", &random);
    let r = round_two(&mut replica(&binary), &mut replica(&binary));
    assert_eq!(text_of(&r["result"]), "Confirmed: state-ok", "{r}");
    // Not the same key as its first 31 bytes and a newline trimmed away would be.
    // (Its own file name: the tests run in parallel in one process, and another test
    // removes its "other" file when it ends.)
    let other = key_file("first-31", &random[..31]);
    // The key file refused as it is read, before the process-wide key is installed
    // (the flag wins over MCP_RAW_STATE_KEY_FILE): in-process.
    let out = cli_here([
        "serve".as_ref(),
        "--http".as_ref(),
        "--port".as_ref(),
        "0".as_ref(),
        "--state-key-file".as_ref(),
        other.as_os_str(),
    ]);
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!(
            "mcp-raw: the state key file {other:?} holds 31 byte(s); at least 32 are needed (RFC 2104 §3; make one with `head -c 32 /dev/urandom > {}`)\n",
            other.display()
        ),
        "{out:?}"
    );
    assert_eq!(out.status.code(), Some(2), "a usage error");
    for p in [typed, bare, binary, other] {
        let _ = std::fs::remove_file(p);
    }
}

#[test]
fn a_missing_or_short_key_file_stops_the_server_naming_the_file() {
    let missing = std::env::temp_dir().join("mcp-raw-state-key-missing");
    let short = key_file("short", b"too short\n");
    for (path, says) in [
        (
            &missing,
            format!(
                "mcp-raw: cannot read the state key file {missing:?}: No such file or directory (os error 2)\n"
            ),
        ),
        (
            &short,
            format!(
                "mcp-raw: the state key file {short:?} holds 9 byte(s); at least 32 are needed (RFC 2104 §3; make one with `head -c 32 /dev/urandom > {}`)\n",
                short.display()
            ),
        ),
    ] {
        // The CLI's refusal of a bad key file (stderr, exit status), before the
        // process-wide key is installed: in-process.
        let out = cli_here([
            "serve".as_ref(),
            "--http".as_ref(),
            "--port".as_ref(),
            "0".as_ref(),
            "--state-key-file".as_ref(),
            path.as_os_str(),
        ]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "a usage error: {stderr}");
        // The whole of stderr: the one error line, naming the file, and no
        // "listening" line before it.
        assert_eq!(stderr, says, "{path:?}");
    }
    let _ = std::fs::remove_file(short);
}
