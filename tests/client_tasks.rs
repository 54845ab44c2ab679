//! `mcp-raw client` follows tasks, and asks the user at a terminal.
//!
//! Tasks: a modern server's task handle (`resultType: "task"`) is polled with
//! `tasks/get` and its questions answered with `tasks/update` (2026-07-28, the tasks
//! extension); a legacy server's task-augmented `tools/call` is polled and its result
//! fetched with `tasks/result`, which first asks a question (2025-11-25 experimental
//! tasks); and the client runs a server's task-augmented sampling as a task of its own.
//! Terminal: `--ask` on a pseudo-terminal answers elicitation and sampling from what
//! the user types.

mod common;
use common::client_inproc::drive_http;
use common::client_inproc::{
    CONFORMANCE_TOOLS, LEGACY_SPOKEN, MODERN_SPOKEN, captions, conformance_http, lines_starting,
    lines_with,
};
use common::{BIN, unstamped};
use mcp_raw_net::client::answers::Answers;
use mcp_raw_net::client::mcp_client::{Options, Spoken};
use mcp_raw_net::client::task_store::TaskStore;
use std::process::Command;

const NAMED: &str = r#"elicitation={"action":"accept","content":{"name":"Ada","confirm":true}}"#;

fn client(args: &[&str]) -> (Option<i32>, String) {
    // Stdio targets (the server a child of the client) and the CLI's --tasks/--answer flags: a process.
    let out = Command::new(BIN)
        .args(["client", "--color", "never"])
        .args(args)
        .output()
        .unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    (out.status.code(), unstamped(&text))
}

/// The modern task calls, and what each must show.
const MODERN_CALLS: [&str; 8] = [
    "--call",
    r#"slow_compute={"seconds":0.3,"label":"computed-x"}"#,
    "--call",
    "multi_input",
    "--call",
    "failing_job",
    "--call",
    "protocol_error_job",
];

fn check_modern(out: &str, target: &str, how: &str) {
    // Each call's outcome, whole: a tool error completes its task; a JSON-RPC error
    // fails it.
    assert_eq!(
        captions(out),
        format!(
            "# Connecting to {target} (client eras: Both)\n# {MODERN_SPOKEN}\n# {CONFORMANCE_TOOLS}\n\
             # slow_compute: ok\n# multi_input: ok\n\
             # failing_job: the tool failed (isError: true)\n\
             # protocol_error_job: JSON-RPC error -32603 protocol_error_job: an internal error, on purpose (a JSON-RPC error, not a tool result)\n"
        ),
        "{how}"
    );
    check_modern_view(out, how);
}

/// The messages of the modern task calls, as the view shows them.
fn check_modern_view(out: &str, how: &str) {
    // The handle (resultType task), the polls (tasks/get), the result inlined in the
    // last one; multi_input's questions came in inputRequests and went back in
    // tasks/update (inputResponses). Polls are as many as the time takes: the
    // distinct lines, in the order first seen.
    let mut seen: Vec<&str> = Vec::new();
    let lines = lines_with(out, "\"method\": \"tasks/")
        + &lines_with(out, "\"resultType\": ")
        + &lines_with(out, "\"inputResponses\"")
        + &lines_with(out, "computed-x")
        + &lines_with(out, "\"io.modelcontextprotocol/tasks\"");
    for line in lines.lines() {
        if !seen.contains(&line) {
            seen.push(line);
        }
    }
    assert_eq!(
        seen.join("\n"),
        concat!(
            ">>>   \"method\": \"tasks/get\",\n",
            ">>>   \"method\": \"tasks/update\",\n",
            "<<<     \"resultType\": \"complete\",\n",
            "<<<     \"resultType\": \"task\",\n",
            "<<<       \"resultType\": \"complete\",\n",
            ">>>     \"inputResponses\": {\n",
            ">>>     \"arguments\": {\"seconds\": 0.3, \"label\": \"computed-x\"},\n",
            "<<<       \"content\": [{\"type\": \"text\", \"text\": \"Computed computed-x in 0.3 s.\"}]\n",
            ">>>         \"extensions\": {\"io.modelcontextprotocol/tasks\": {}}\n",
            "<<<       \"extensions\": {\"io.modelcontextprotocol/tasks\": {}}"
        ),
        "{how}"
    );
}

#[test]
fn a_modern_task_is_polled_answered_and_its_outcome_taken_over_both_transports() {
    let mut args = vec!["--tasks", "--answer", NAMED];
    args.extend(MODERN_CALLS);
    let mut stdio = args.clone();
    stdio.extend([
        "--",
        BIN,
        "serve",
        "--fixture",
        "conformance",
        "--era",
        "modern",
    ]);
    let (code, out) = client(&stdio);
    assert_eq!(code, Some(1), "two calls fail on purpose: {out}");
    check_modern(
        &out,
        &format!("{BIN} serve --fixture conformance --era modern"),
        "stdio",
    );

    // Over HTTP, the client's protocol behaviour: the library's client, in-process,
    // with the answers --tasks and --answer give.
    let http = conformance_http("modern");
    let url = format!("http://{}/mcp", http.addr);
    let options = Options {
        answers: Answers {
            tasks: Some(TaskStore::default()),
            elicitation: Some(serde_json::from_str(NAMED.split_once('=').unwrap().1).unwrap()),
            ..Answers::default()
        },
        ..Options::default()
    };
    let calls: Vec<(&str, serde_json::Value)> = MODERN_CALLS
        .chunks(2)
        .map(|c| match c[1].split_once('=') {
            Some((name, args)) => (name, serde_json::from_str(args).unwrap()),
            None => (c[1], serde_json::json!({})),
        })
        .collect();
    let driven = drive_http(&url, options, &calls);
    assert!(
        matches!(driven.spoken, Spoken::Modern { .. }),
        "{}",
        driven.view
    );
    // Each outcome, whole: a tool error completes its task (isError: true); a
    // JSON-RPC error fails it.
    let complete = |text: &str, more: &str| {
        Ok(format!(
            r#"{{"resultType":"complete","content":[{{"type":"text","text":"{text}"}}]{more}}}"#
        ))
    };
    assert_eq!(
        driven.results,
        [
            complete("Computed computed-x in 0.3 s.", ""),
            complete(r#"Received both inputs: name \"Ada\" and confirm true."#, ""),
            complete(
                "failing_job failed on purpose: the tool ran and reports an error",
                r#","isError":true"#
            ),
            Err("-32603 protocol_error_job: an internal error, on purpose (a JSON-RPC error, not a tool result)".to_owned()),
        ],
        "{}",
        driven.view
    );
    check_modern_view(&driven.view, "http");
}

#[test]
fn without_tasks_declared_the_same_tools_answer_directly() {
    let (code, out) = client(&[
        "--answer",
        NAMED,
        "--call",
        r#"slow_compute={"seconds":0.1,"label":"direct"}"#,
        "--",
        BIN,
        "serve",
        "--fixture",
        "conformance",
        "--era",
        "modern",
    ]);
    assert_eq!(code, Some(0), "{out}");
    assert_eq!(
        lines_with(&out, "direct"),
        concat!(
            ">>>     \"arguments\": {\"seconds\": 0.1, \"label\": \"direct\"},\n",
            "<<<     \"content\": [{\"type\": \"text\", \"text\": \"Computed direct in 0.1 s.\"}],\n"
        )
    );
    assert!(!out.contains("\"method\": \"tasks/get\""), "{out}");
}

#[test]
fn a_task_that_outlives_task_timeout_is_cancelled_and_the_client_fails() {
    let (code, out) = client(&[
        "--tasks",
        "--task-timeout",
        "0.5",
        "--call",
        r#"slow_compute={"seconds":30,"label":"late"}"#,
        "--",
        BIN,
        "serve",
        "--fixture",
        "conformance",
        "--era",
        "modern",
    ]);
    assert_eq!(code, Some(3), "{out}");
    assert_eq!(
        lines_with(&out, "\"method\": \"tasks/cancel\""),
        ">>>   \"method\": \"tasks/cancel\",\n"
    );
    assert_eq!(
        common::golden::normalize(&lines_starting(&out, "mcp-raw: ")),
        "mcp-raw: task <uuid> did not end within 500ms (--task-timeout); cancelled it\n"
    );
}

#[test]
fn legacy_tasks_are_followed_and_run_for_the_server() {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/servers/legacy_tasks.py");
    let (code, out) = client(&[
        "--tasks",
        "--answer",
        r#"elicitation={"action":"accept","content":{"pick":"b"}}"#,
        "--answer",
        r#"sampling={"role":"assistant","content":{"type":"text","text":"sampled"},"model":"m"}"#,
        "--call",
        "research",
        "--call",
        "ask_as_task",
        "--",
        "python3",
        script,
    ]);
    assert_eq!(code, Some(0), "{out}");
    let asked_task = out.find("\"task\": {").expect("tools/call carried a task");
    let polled = out
        .find("\"method\": \"tasks/get\"")
        .expect("tasks/get polled");
    let fetched = out
        .find("\"method\": \"tasks/result\"")
        .expect("tasks/result");
    let question = out.find("\"method\": \"elicitation/create\"").unwrap();
    let result = out.find("researched: b").expect("the task's result");
    assert!(asked_task < polled && polled < fetched && fetched < question && question < result);
    // The client ran sampling as a task: the server saw it completed and got its result.
    assert_eq!(
        lines_with(&out, "client task completed"),
        "<<<     \"content\": [{\"type\": \"text\", \"text\": \"client task completed: sampled\"}]\n"
    );
    // tasks.requests declared.
    assert_eq!(
        lines_with(&out, "\"requests\": {"),
        concat!(
            ">>>         \"requests\": {\n",
            "<<<       \"tasks\": {\"list\": {}, \"cancel\": {}, \"requests\": {\"tools\": {\"call\": {}}}}\n"
        )
    );
    assert_eq!(
        captions(&out),
        format!(
            "# Connecting to python3 {script} (client eras: Both)\n# {LEGACY_SPOKEN}\n# 2 tools: research, ask_as_task\n# research: ok\n# ask_as_task: ok\n"
        )
    );
}

/// `tests/scripts/on_a_terminal.py`: the client on a pseudo-terminal, answers typed.
fn on_a_terminal(typed: &[&str], args: &[&str]) -> (Option<i32>, String) {
    let driver = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/scripts/on_a_terminal.py"
    );
    let out = Command::new("python3")
        .arg(driver)
        .arg("30")
        .args(typed)
        .args(["--", BIN, "client", "--color", "never"])
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code(),
        unstamped(&String::from_utf8_lossy(&out.stdout)),
    )
}

#[test]
fn on_a_terminal_the_user_answers_elicitation_and_sampling_in_both_eras() {
    for era in ["legacy", "modern"] {
        let (code, out) = on_a_terminal(
            &[
                "accept, decline or cancel?",
                "a",
                "username [string] *:",
                "ada",
                "email [string] *:",
                "ada@example.com",
                "Your reply as the assistant",
                "typed at the terminal",
            ],
            &[
                "--call",
                r#"test_elicitation={"message":"who are you?"}"#,
                "--call",
                r#"test_sampling={"prompt":"say something"}"#,
                "--",
                BIN,
                "serve",
                "--fixture",
                "conformance",
                "--era",
                era,
            ],
        );
        assert_eq!(code, Some(0), "{era}: {out}");
        for want in [
            "the server asks for input (elicitation/create)",
            "who are you?",
            r#"content={\"username\":\"ada\",\"email\":\"ada@example.com\"}"#,
            "user: say something",
            "LLM response: typed at the terminal",
            "# test_elicitation: ok",
            "# test_sampling: ok",
        ] {
            assert!(out.contains(want), "{era}: missing {want:?} in\n{out}");
        }
    }
}

#[test]
fn ask_always_without_a_terminal_is_a_usage_error() {
    // --ask without a controlling terminal (/dev/tty) is the process's condition: a process.
    let out = Command::new(BIN)
        .args(["client", "--ask", "always", "--", BIN, "serve"])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    // A process without a controlling terminal cannot open /dev/tty. Under a test
    // harness that has one, this check proves nothing, so it is skipped.
    if std::fs::File::open("/dev/tty").is_ok() {
        return;
    }
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.starts_with("mcp-raw: --ask: cannot open the terminal"),
        "{err}"
    );
}
