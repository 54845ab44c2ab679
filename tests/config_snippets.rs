//! The book's "Configuring a client to use it" (`docs/en/src/use/configure.md`) and the
//! README's "Configure a client": every JSON block parses, and every server it
//! configures starts as its client would start it and answers `initialize`. (The
//! Chinese pages hold the same blocks byte for byte: `tests/book.rs`,
//! `tests/readme_translation.rs`.)

mod common;

use common::{BIN, scratch};
use serde_json::Value;
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

/// The JSON blocks of the chapter, then the README's.
fn snippets() -> Vec<Value> {
    let chapter = include_str!("../docs/en/src/use/configure.md");
    let readme = include_str!("../README.md");
    let start = readme.find("## Configure a client").expect("the section");
    let section = &readme[start..];
    let section = &section[..section[3..].find("\n## ").map_or(section.len(), |i| i + 3)];
    [chapter, section]
        .into_iter()
        .flat_map(|text| text.split("```json\n").skip(1))
        .map(|block| {
            let json = &block[..block.find("```").expect("a closed block")];
            serde_json::from_str(json).unwrap_or_else(|e| panic!("{e}: {json}"))
        })
        .collect()
}

/// Starts `command args` as a stdio client would, sends `initialize`, returns the
/// server's name.
fn initialize(command: &str, args: &[String]) -> String {
    let mut child = Command::new(command)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    writeln!(stdin, "{}", common::initialize("2025-11-25")).unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    drop(stdin);
    let _ = child.wait();
    let reply: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line:?}"));
    reply["result"]["serverInfo"]["name"]
        .as_str()
        .unwrap_or_else(|| panic!("no serverInfo in {reply}"))
        .to_owned()
}

#[test]
fn every_snippet_parses_and_every_server_in_it_starts() {
    let dir = scratch("config_snippets", "servers");
    let mut servers = 0;
    for snippet in snippets() {
        let entries = snippet
            .get("mcpServers")
            .or_else(|| snippet.get("servers"))
            .and_then(Value::as_object)
            .unwrap_or_else(|| panic!("neither mcpServers nor servers: {snippet}"));
        for (name, entry) in entries {
            servers += 1;
            if let Some(url) = entry.get("url") {
                assert_eq!(entry["type"], "http", "{name}");
                // `serve --http` with no flags: the default port, the one endpoint.
                assert_eq!(url, "http://127.0.0.1:3100/mcp", "{name}");
                continue;
            }
            let mut args: Vec<String> = entry["args"]
                .as_array()
                .unwrap()
                .iter()
                .map(|a| a.as_str().unwrap().to_owned())
                .collect();
            // `npx -y mcp-raw ARGS` and `uvx mcp-raw ARGS` run the npm package's or the
            // wheel's copy of this very binary with ARGS (scripts/packages.sh proves
            // that, installed from the packages' files); neither may be reachable
            // here, so the test checks the shape and runs ARGS on the binary.
            let wrapper: &[&str] = match entry["command"].as_str() {
                Some("mcp-raw") => &[],
                Some("npx") => &["-y", "mcp-raw"],
                Some("uvx") => &["mcp-raw"],
                other => panic!("{name}: command {other:?}, not mcp-raw, npx or uvx"),
            };
            assert!(
                args.starts_with(&wrapper.iter().map(|w| w.to_string()).collect::<Vec<_>>()),
                "{name}: {args:?} does not start with {wrapper:?}"
            );
            args.drain(..wrapper.len());
            // A tap's server is whatever follows `--`; npx may be absent here, so
            // the test puts mcp-raw's own server there, and the record in scratch.
            if let Some(split) = args.iter().position(|a| a == "--") {
                args.truncate(split + 1);
                args.extend([BIN.to_owned(), "serve".to_owned()]);
                if let Some(i) = args.iter().position(|a| a == "--record") {
                    args[i + 1] = dir.join(format!("{name}.jsonl")).display().to_string();
                }
            }
            assert_eq!(initialize(BIN, &args), "mcp-raw", "{name}: {args:?}");
        }
    }
    assert_eq!(servers, 7, "the chapter's six servers and the README's one");
    // The tap recorded what crossed.
    let recorded = std::fs::read_to_string(dir.join("everything-tapped.jsonl")).unwrap();
    assert!(recorded.contains("initialize"), "{recorded}");
}
