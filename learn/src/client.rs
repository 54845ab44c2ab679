//! The stdio client: starts a server as a child process and drives one whole
//! session through its stdin and stdout, printing every line sent (`>>>`) and
//! received (`<<<`) exactly as it travelled.
//!
//! The session is the seed's `npm run demo`, message for message the one
//! `mcp-raw demo` sends, so the two can be compared byte for byte.

use crate::json::{self, Json};
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

/// How long the client waits for one answer before it gives up.
const ANSWER_TIMEOUT: Duration = Duration::from_secs(10);

/// What the client expects back for one message.
pub enum Expect {
    /// A success response.
    Result,
    /// An error response with this code.
    Error(i64),
    /// Nothing: a notification is never answered.
    Nothing,
}

/// One step of the demo: a caption, the message's bytes, what should come back.
pub struct Step {
    /// A sentence saying what the step shows (printed as `# …`).
    pub caption: &'static str,
    /// The message exactly as sent, compact JSON on one line.
    pub message: &'static str,
    /// What a correct server answers.
    pub expect: Expect,
}

/// The session, in order. The ids count up; a notification has none.
pub const SESSION: [Step; 10] = [
    Step {
        caption: "A request before the handshake: every method but initialize and ping is refused with -32002.",
        message: r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#,
        expect: Expect::Error(-32002),
    },
    Step {
        caption: "The handshake: the client proposes a protocol version and introduces itself; the server answers with its version, capabilities and serverInfo.",
        message: r#"{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"mcp-raw-demo","version":"0.1.0"}}}"#,
        expect: Expect::Result,
    },
    Step {
        caption: "A notification (no \"id\"): the client confirms the handshake. Nobody waits for a notification, so the server sends nothing back.",
        message: r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        expect: Expect::Nothing,
    },
    Step {
        caption: "Proof that nothing came back: ping. The very next line is ping's answer, not a reply to the notification.",
        message: r#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#,
        expect: Expect::Result,
    },
    Step {
        caption: "tools/list: each tool's name, description and a hand-written JSON Schema for its arguments.",
        message: r#"{"jsonrpc":"2.0","id":4,"method":"tools/list"}"#,
        expect: Expect::Result,
    },
    Step {
        caption: "tools/call finds the tool by params.name and runs it; the return value comes back wrapped as text content.",
        message: r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"get_current_time","arguments":{}}}"#,
        expect: Expect::Result,
    },
    Step {
        caption: "tools/call echo",
        message: r#"{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hello, wire"}}}"#,
        expect: Expect::Result,
    },
    Step {
        caption: "tools/call add",
        message: r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"add","arguments":{"a":2,"b":40}}}"#,
        expect: Expect::Result,
    },
    Step {
        caption: "An unknown method is a protocol error: an error response with -32601 naming the method.",
        message: r#"{"jsonrpc":"2.0","id":8,"method":"bogus"}"#,
        expect: Expect::Error(-32601),
    },
    Step {
        caption: "A failing tool is not a protocol error: a result with isError: true, so the model can read what went wrong.",
        message: r#"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"add","arguments":{"a":"two","b":3}}}"#,
        expect: Expect::Result,
    },
];

/// Does `answer` (one line) match `expect`? `Err` says how it does not.
pub fn check(answer: &str, expect: &Expect, message: &str) -> Result<(), String> {
    let answer =
        json::parse(answer.as_bytes()).map_err(|e| format!("the answer is not JSON: {e}"))?;
    let sent =
        json::parse(message.as_bytes()).map_err(|e| format!("the message is not JSON: {e}"))?;
    // A response carries the id of the request it answers (JSON-RPC 2.0 §5).
    if answer.get("id") != sent.get("id") {
        return Err(format!("answered id {:?}, asked {:?}", answer.get("id"), sent.get("id")));
    }
    let code = answer.get("error").and_then(|e| e.get("code")).and_then(Json::as_f64);
    match (expect, code) {
        (Expect::Result, None) if answer.get("result").is_some() => Ok(()),
        (Expect::Error(want), Some(got)) if got == *want as f64 => Ok(()),
        _ => Err("not the answer this step expects".into()),
    }
}

/// Spawns `command` and runs [`SESSION`] through it, printing the wire on stdout.
/// The server's stderr (its logs) is shown as `[server stderr]` lines.
pub fn run(command: &[String]) -> Result<(), String> {
    let (program, args) = command.split_first().ok_or("no server command")?;
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start {program}: {e}"))?;
    // The server's logs, shown apart from the protocol: stderr is not the transport.
    if let Some(stderr) = child.stderr.take() {
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                println!("    [server stderr] {line}");
            }
        });
    }
    println!(
        "# Spawned `{}`: its stdin and stdout are the transport, one JSON message per line.\n",
        command.join(" ")
    );
    let result = session(&mut child);
    // Closing stdin is how a stdio client ends the session (`basic/lifecycle` "Shutdown").
    drop(child.stdin.take());
    match child.wait() {
        Ok(status) => println!("\n# Closed the server's stdin: it read EOF and exited ({status})."),
        Err(e) => eprintln!("[learn] waiting for the server: {e}"),
    }
    result
}

fn session(child: &mut Child) -> Result<(), String> {
    let mut stdin = child.stdin.take().ok_or("no stdin")?;
    let lines = read_lines(BufReader::new(child.stdout.take().ok_or("no stdout")?));
    for step in &SESSION {
        println!("# {}", step.caption);
        send(&mut stdin, step.message)?;
        if let Expect::Nothing = step.expect {
            println!("    (no line comes back: a notification is never answered)\n");
            continue;
        }
        let answer = lines
            .recv_timeout(ANSWER_TIMEOUT)
            .map_err(|_| "the server sent no answer".to_owned())?;
        println!("<<< {answer}\n");
        check(&answer, &step.expect, step.message)?;
    }
    child.stdin = Some(stdin);
    Ok(())
}

/// Writes one message and its `\n`, and shows it.
fn send(stdin: &mut ChildStdin, message: &str) -> Result<(), String> {
    println!(">>> {message}");
    writeln!(stdin, "{message}")
        .and_then(|_| stdin.flush())
        .map_err(|e| format!("the server's stdin is closed: {e}"))
}

/// The server's stdout, line by line, from a thread: the session can then wait for
/// an answer with a timeout (std's pipes have none).
fn read_lines(stdout: impl BufRead + Send + 'static) -> Receiver<String> {
    let (tx, rx) = channel();
    std::thread::spawn(move || {
        for line in stdout.lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    rx
}
