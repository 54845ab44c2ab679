//! The stdio transport, through the real `mcp-raw serve` child process.

mod common;
use common::{BIN, initialize};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Starts `mcp-raw serve ARGS`, its stdin and stdout piped, its stderr to `stderr`.
fn spawn_serve(args: &[&str], stderr: impl Into<Stdio>) -> std::process::Child {
    // Serve over stdio (its pipes) is the subject: a process.
    Command::new(BIN)
        .arg("serve")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(stderr)
        .spawn()
        .unwrap()
}

/// Runs `mcp-raw serve ARGS` with `input` on stdin; returns (stdout lines, stderr,
/// status).
fn serve(args: &[&str], input: &str) -> (Vec<String>, String, std::process::ExitStatus) {
    let mut child = spawn_serve(args, Stdio::piped());
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    (
        stdout.lines().map(str::to_owned).collect(),
        String::from_utf8(out.stderr).unwrap(),
        out.status,
    )
}

fn run(input: &str) -> (Vec<String>, String, std::process::ExitStatus) {
    serve(&[], input)
}

fn parse(line: &str) -> Value {
    serde_json::from_str(line).unwrap_or_else(|e| panic!("stdout line is not JSON ({e}): {line:?}"))
}

#[test]
fn a_whole_session_one_message_per_line() {
    let input = [
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#.to_owned(),
        initialize("2025-06-18"),
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.to_owned(),
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#.to_owned(),
        r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"add","arguments":{"a":1.5,"b":2}}}"#.to_owned(),
        r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"add","arguments":{"a":"x","b":2}}}"#.to_owned(),
        r#"{"jsonrpc":"2.0","id":5,"method":"bogus"}"#.to_owned(),
        r#"{"jsonrpc":"2.0","method":"bogus/notification"}"#.to_owned(),
        r#"{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"nope"}}"#.to_owned(),
    ]
    .join("\n")
        + "\n";
    let (lines, stderr, status) = run(&input);
    assert!(status.success());
    let msgs: Vec<Value> = lines.iter().map(|l| parse(l)).collect();
    // Two notifications in, no lines out for them: 7 requests, 7 responses, in order.
    assert_eq!(msgs.len(), 7, "{lines:#?}");
    assert_eq!(msgs[0]["error"]["code"], -32002);
    assert_eq!(msgs[1]["result"]["protocolVersion"], "2025-06-18");
    assert_eq!(msgs[2]["result"]["tools"][0]["name"], "get_current_time");
    assert_eq!(
        msgs[3]["result"],
        json!({"content":[{"type":"text","text":"3.5"}]})
    );
    assert_eq!(msgs[4]["result"]["isError"], true);
    assert_eq!(
        msgs[5]["error"],
        json!({"code":-32601,"message":"Method not found: bogus"})
    );
    assert_eq!(msgs[6]["error"]["code"], -32602);
    let ids: Vec<&Value> = msgs.iter().map(|m| &m["id"]).collect();
    assert_eq!(
        ids,
        [1, 1, 2, 3, 4, 5, 6]
            .map(|i| json!(i))
            .iter()
            .collect::<Vec<_>>()
    );
    // Logs went to stderr, not stdout: the whole log, a line per message read.
    assert_eq!(
        stderr,
        concat!(
            "[mcp-raw] stdio server ready: one JSON-RPC message per line\n",
            "[mcp-raw] recv request tools/list (id 1)\n",
            "[mcp-raw] recv request initialize (id 1)\n",
            "[mcp-raw] recv notification notifications/initialized\n",
            "[mcp-raw] recv request tools/list (id 2)\n",
            "[mcp-raw] recv request tools/call (id 3)\n",
            "[mcp-raw] recv request tools/call (id 4)\n",
            "[mcp-raw] recv request bogus (id 5)\n",
            "[mcp-raw] recv notification bogus/notification\n",
            "[mcp-raw] recv request tools/call (id 6)\n",
            "[mcp-raw] stdin closed: exiting\n",
        )
    );
}

#[test]
fn bad_lines_get_errors_and_the_server_keeps_reading() {
    let input = "this is not json\n[]\n{\"jsonrpc\":\"2.0\",\"id\":1}\n{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\n";
    let (lines, _, status) = run(input);
    assert!(status.success());
    let msgs: Vec<Value> = lines.iter().map(|l| parse(l)).collect();
    assert_eq!(msgs.len(), 4);
    assert_eq!(msgs[0]["error"]["code"], -32700);
    assert_eq!(msgs[0]["id"], Value::Null);
    assert_eq!(
        msgs[1]["error"]["code"], -32600,
        "a batch before initialize"
    );
    assert_eq!(msgs[2]["error"]["code"], -32600);
    assert_eq!(msgs[2]["id"], 1);
    assert_eq!(msgs[3], json!({"jsonrpc":"2.0","id":2,"result":{}}));
}

/// The line reader's edges, as a client meets them: blank lines (CRLF too) get no
/// answer, a line over `--max-body-bytes` gets `-32600` and the next line is read as
/// ever, and a last line without its `\n` is still answered at end of input.
#[test]
fn blank_overlong_and_unterminated_lines_through_the_binary() {
    let ping = |id: u32| format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"ping\"}}");
    let long = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"{}\"}}",
        "x".repeat(300)
    );
    let input = format!("\n\r\n{}\n{long}\n{}\r\n{}", ping(1), ping(3), ping(4));
    let (lines, stderr, status) = serve(&["--max-body-bytes", "100"], &input);
    assert!(status.success(), "{stderr}");
    let msgs: Vec<Value> = lines.iter().map(|l| parse(l)).collect();
    assert_eq!(msgs.len(), 4, "{lines:?}");
    assert_eq!(msgs[0], json!({"jsonrpc":"2.0","id":1,"result":{}}));
    assert_eq!(msgs[1]["error"]["code"], -32600);
    assert_eq!(msgs[1]["id"], Value::Null);
    let message = msgs[1]["error"]["message"].as_str().unwrap();
    assert_eq!(
        message,
        "Invalid Request: message longer than 100 bytes; skipped to the next newline"
    );
    assert_eq!(msgs[2], json!({"jsonrpc":"2.0","id":3,"result":{}}));
    assert_eq!(msgs[3], json!({"jsonrpc":"2.0","id":4,"result":{}}));
}

#[test]
fn eof_on_stdin_exits_zero_promptly() {
    let start = Instant::now();
    let (lines, stderr, status) = run("");
    assert!(status.success());
    assert!(lines.is_empty());
    assert_eq!(
        stderr,
        "[mcp-raw] stdio server ready: one JSON-RPC message per line\n[mcp-raw] stdin closed: exiting\n"
    );
    assert!(start.elapsed() < Duration::from_secs(5));
}

#[test]
fn a_closed_stdout_does_not_panic() {
    let mut child = spawn_serve(&[], Stdio::piped());
    drop(child.stdout.take()); // the client stops reading
    let mut stdin = child.stdin.take().unwrap();
    for i in 0..100 {
        if writeln!(stdin, r#"{{"jsonrpc":"2.0","id":{i},"method":"ping"}}"#).is_err() {
            break; // the server already left, as it should
        }
    }
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{:?} {stderr}", out.status);
    // No panic: the log ends with the line saying why the server left, whole.
    assert_eq!(
        stderr.lines().last(),
        Some("[mcp-raw] stdout closed (client gone): exiting"),
        "{stderr}"
    );
}

#[test]
fn replies_arrive_while_the_session_is_open() {
    // Interactive: each reply comes back before the next line is sent.
    let mut child = spawn_serve(&[], Stdio::null());
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    for id in 1..=3 {
        writeln!(stdin, r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#).unwrap();
        let mut line = String::new();
        stdout.read_line(&mut line).unwrap();
        // The whole line, its newline included.
        assert_eq!(
            line,
            format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"result\":{{}}}}\n")
        );
    }
    drop(stdin);
    assert!(child.wait().unwrap().success());
}

fn run_with(args: &[&str], input: &str) -> Vec<Value> {
    let (lines, stderr, status) = serve(args, input);
    assert!(status.success(), "{stderr}");
    lines.iter().map(|l| parse(l)).collect()
}

const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

#[test]
fn modern_requests_need_no_handshake_on_stdio() {
    let input = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"server/discover\",\"params\":{{{META}}}}}\n\
         {{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{{\"name\":\"echo\",\"arguments\":{{\"message\":\"m\"}},{META}}}}}\n\
         {{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"initialize\",\"params\":{{{META}}}}}\n"
    );
    let msgs = run_with(&[], &input);
    assert_eq!(
        msgs[0]["result"]["supportedVersions"],
        json!(["2026-07-28"])
    );
    assert_eq!(msgs[1]["result"]["resultType"], "complete");
    assert_eq!(msgs[1]["result"]["content"][0]["text"], "m");
    assert_eq!(msgs[2]["error"]["code"], -32601);
}

#[test]
fn era_flag_selects_what_the_process_speaks() {
    let discover = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"server/discover\",\"params\":{{{META}}}}}\n"
    );
    let legacy = run_with(&["--era", "legacy"], &discover);
    assert_eq!(legacy[0]["error"]["code"], -32002);

    let modern = run_with(
        &["--era", "modern"],
        &format!("{}\n", initialize("2025-11-25")),
    );
    assert_eq!(modern[0]["error"]["code"], -32022);
    assert_eq!(
        modern[0]["error"]["message"],
        "This server speaks only protocol version 2026-07-28 (stateless, no initialize handshake); initialize asked for \"2025-11-25\". Send each request with params._meta[\"io.modelcontextprotocol/protocolVersion\"] instead."
    );
    assert_eq!(
        modern[0]["error"]["data"]["supported"],
        json!(["2026-07-28"])
    );
}

/// Pipelined lines that arrive in one read are answered in one write: the server's
/// own record (one `text` event per write) shows the eight answers as one event.
#[test]
fn answers_to_pipelined_lines_leave_in_one_write() {
    let record = common::scratch("stdio", "one-write").join("server.jsonl");
    let input: String = (1..=8)
        .map(|id| format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"ping\"}}\n"))
        .collect();
    // Under PIPE_BUF (4 KiB), so the pipe hands the server all eight lines at once.
    assert!(input.len() < 4096);
    let (lines, stderr, status) = serve(&["--record", record.to_str().unwrap()], &input);
    assert!(status.success(), "{stderr}");
    assert_eq!(lines.len(), 8, "{lines:?}");
    let text = std::fs::read_to_string(&record).unwrap();
    let writes: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|e| e["dir"] == "s2c" && e.get("text").is_some())
        .collect();
    assert_eq!(
        writes.len(),
        1,
        "one write for the eight answers: {writes:?}"
    );
    assert_eq!(writes[0]["text"].as_str().unwrap().matches('\n').count(), 8);
}

/// A client that sends far more than the first read buffer holds (4 KiB) at once:
/// the buffer grows (a read brings in more than 4 KiB), no line is lost or split
/// across two reads wrongly, and every answer comes back in order.
#[test]
fn a_burst_larger_than_the_first_read_buffer_is_read_whole() {
    let record = common::scratch("stdio", "burst").join("server.jsonl");
    let input: String = (1..=2000)
        .map(|id| format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"ping\"}}\n"))
        .collect();
    assert!(input.len() > 64 * 1024);
    let (lines, stderr, status) = serve(&["--record", record.to_str().unwrap()], &input);
    assert!(status.success(), "{stderr}");
    let ids: Vec<u64> = lines
        .iter()
        .map(|l| parse(l)["id"].as_u64().unwrap())
        .collect();
    assert_eq!(ids, (1..=2000).collect::<Vec<u64>>());
    let text = std::fs::read_to_string(&record).unwrap();
    let reads: Vec<usize> = text
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|e| e["dir"] == "c2s")
        .filter_map(|e| e["text"].as_str().map(str::len))
        .collect();
    assert_eq!(reads.iter().sum::<usize>(), input.len(), "{reads:?}");
    assert!(
        reads.iter().any(|&n| n > 4096),
        "the buffer never grew: {reads:?}"
    );
}

/// stderr to a file (no one reading it live): the log's writer thread writes the
/// lines, and by the time the server exits every one is there, in order, and
/// stdout carried the answers alone. With `--max-log-backlog` tiny, the server still
/// answers everything, and the log says how many lines it dropped.
#[test]
fn a_log_to_a_file_is_whole_by_exit_and_never_holds_up_answers() {
    let dir = common::scratch("stdio", "log-file");
    let input: String = (1..=300)
        .map(|id| format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"ping\"}}\n"))
        .collect();
    for (backlog, whole) in [("1048576", true), ("100", false)] {
        let log = dir.join(format!("stderr-{backlog}.txt"));
        let mut child = spawn_serve(
            &["--max-log-backlog", backlog],
            std::fs::File::create(&log).unwrap(),
        );
        // One line at a time, each answered before the next is sent.
        let mut stdin = child.stdin.take().unwrap();
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        for id in 1..=300u64 {
            let line = input.lines().nth(id as usize - 1).unwrap();
            writeln!(stdin, "{line}").unwrap();
            let mut answer = String::new();
            stdout.read_line(&mut answer).unwrap();
            assert_eq!(parse(&answer)["id"], id, "{answer}");
        }
        drop(stdin);
        assert!(child.wait().unwrap().success());
        let text = std::fs::read_to_string(&log).unwrap();
        let recv: Vec<&str> = text
            .lines()
            .filter(|l| l.contains("recv request"))
            .collect();
        if whole {
            let want: Vec<String> = (1..=300)
                .map(|id| format!("[mcp-raw] recv request ping (id {id})"))
                .collect();
            assert_eq!(recv, want);
            // The whole log: ready, a line per request, the goodbye.
            assert_eq!(
                text,
                format!(
                    "[mcp-raw] stdio server ready: one JSON-RPC message per line\n{}\n[mcp-raw] stdin closed: exiting\n",
                    want.join("\n")
                )
            );
        } else {
            assert!(recv.len() < 300, "nothing dropped: {}", recv.len());
            let dropped: Vec<&str> = text.lines().filter(|l| l.contains(" dropped")).collect();
            // Each such line whole, counting what went; with the lines kept, every
            // request (and the goodbye) is accounted for.
            let counts: Vec<usize> = dropped
                .iter()
                .map(|l| {
                    l.strip_prefix("[mcp-raw] ")
                        .and_then(|l| l.split(' ').next())
                        .and_then(|n| n.parse().ok())
                        .unwrap_or_else(|| panic!("no count in {l:?}"))
                })
                .collect();
            let said: Vec<String> = counts
                .iter()
                .map(|n| {
                    format!("[mcp-raw] {n} log lines dropped: stderr was not read fast enough")
                })
                .collect();
            assert_eq!(dropped, said, "{text}");
            let goodbye = text
                .lines()
                .filter(|l| *l == "[mcp-raw] stdin closed: exiting")
                .count();
            assert_eq!(
                counts.iter().sum::<usize>() + recv.len() + goodbye,
                301,
                "{text}"
            );
        }
    }
}
