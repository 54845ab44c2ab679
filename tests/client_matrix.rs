//! The client matrix's scenario cells (scripts/matrix_scenarios.py) follow what the
//! client did on the wire: two sessions of `mcp-raw client` against
//! `serve --http --fixture conformance --record`, one that resumes the dropped stream,
//! declares and answers sampling and goes on after the unknown tool's error, one that
//! declares nothing and stops after the error, give different cells, each the one its
//! recording shows. The script is
//! run with python3 on the server's recordings, as scripts/client-matrix.sh runs it.

mod common;
use common::HttpServer;
use common::cli_inproc::cli_here;

/// The four scenario cells of one recording, as the matrix computes them.
fn cells(recording: &std::path::Path) -> Vec<String> {
    let program = format!(
        "import json, sys\nsys.path.insert(0, 'scripts')\nimport client_matrix as c, matrix_scenarios as m\n\
         print(json.dumps(m.render([m.cells(c.events({:?}), set())])))",
        recording.to_str().unwrap()
    );
    let out = std::process::Command::new("python3")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["-c", &program])
        .output()
        .expect("python3");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// One client session against a fresh recording server; the recording's path.
fn session(dir: &std::path::Path, name: &str, flags: &[&str]) -> std::path::PathBuf {
    let recording = dir.join(format!("{name}.jsonl"));
    // A process: the server records on its own side, as the matrix's servers do.
    let server = HttpServer::start(&[
        "--fixture",
        "conformance",
        "--record",
        recording.to_str().unwrap(),
    ]);
    let url = format!("http://{}/mcp", server.addr);
    let mut args = vec!["client", "--era", "legacy", "--ask", "never"];
    args.extend_from_slice(flags);
    args.extend_from_slice(&[
        "--call",
        r#"test_sampling={"prompt":"Say hello"}"#,
        "--call",
        "no_such_tool",
        &url,
    ]);
    // The calls fail on purpose in one session: its exit status is not the subject.
    let _ = cli_here(args);
    drop(server);
    recording
}

#[test]
fn scenario_cells_follow_what_the_client_did() {
    let dir = common::scratch("client-matrix", "cells");
    let polite = session(
        &dir,
        "polite",
        &[
            "--call",
            "test_reconnection",
            "--answer",
            r#"sampling={"role":"assistant","content":{"type":"text","text":"ok"},"model":"m"}"#,
            "--method",
            "tools/list",
        ],
    );
    assert_eq!(
        cells(&polite),
        [
            "`Last-Event-ID`, after `retry: 500`",
            "sampling: answered",
            "—",
            "kept the session"
        ]
    );
    // No test_reconnection (the server dropped no stream: a dash), sampling not
    // declared, nothing after the error.
    let curt = session(&dir, "curt", &[]);
    assert_eq!(
        cells(&curt),
        ["—", "sampling: not declared", "—", "no later request"]
    );
    let _ = std::fs::remove_dir_all(dir);
}
