//! The Streamable HTTP client: real HTTP/1.1 requests on one TCP connection, each
//! printed as it is sent (`>>>`) and each response as it arrives (`<<<`): request
//! line, headers, body; status line, headers, body.
//!
//! The session is the seed's `npm run demo:http`, request for request the one
//! `mcp-raw demo-http` sends: every session rule of the transport is shown once,
//! the refusals (400, 404, 405) too.

use crate::client::{Expect, SESSION, check};
use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::time::Duration;

/// An id no server issued, for the 404 step.
const UNKNOWN_SESSION: &str = "00000000-0000-4000-8000-000000000000";

/// One HTTP request of the demo.
struct Call {
    /// `# …`: what the step shows.
    caption: &'static str,
    /// `POST`, `GET` or `DELETE`.
    method: &'static str,
    /// The JSON-RPC message a POST carries.
    body: &'static str,
    /// Which session id to send: none, the real one, or one never issued.
    session: Session,
    /// The status a correct server answers with.
    status: u16,
    /// What the JSON-RPC answer in the body should be, for a 200.
    expect: Expect,
}

/// Which `Mcp-Session-Id` a request carries.
#[derive(PartialEq)]
enum Session {
    /// None (initialize, and the 400 refusal).
    Without,
    /// The one the server gave at initialize.
    Ours,
    /// One the server never gave.
    Unknown,
}

fn calls() -> Vec<Call> {
    let post = |caption, step: usize, session, status, expect| Call {
        caption,
        method: "POST",
        body: SESSION[step].message,
        session,
        status,
        expect,
    };
    vec![
        post(
            "Over HTTP the first gate is the session: a request other than initialize without Mcp-Session-Id is refused with 400.",
            0,
            Session::Without,
            400,
            Expect::Nothing,
        ),
        post(
            "initialize is the one request sent without Mcp-Session-Id; the response header carries the new id.",
            1,
            Session::Without,
            200,
            Expect::Result,
        ),
        Call {
            caption: "Same core as stdio: with a session but before notifications/initialized, tools/list still gets -32002 (inside a 200).",
            method: "POST",
            body: r#"{"jsonrpc":"2.0","id":3,"method":"tools/list"}"#,
            session: Session::Ours,
            status: 200,
            expect: Expect::Error(-32002),
        },
        post(
            "A notification: an HTTP request always gets a response, and for a notification it is 202 Accepted with an empty body.",
            2,
            Session::Ours,
            202,
            Expect::Nothing,
        ),
        post(
            "tools/list: a JSON body (Content-Type: application/json).",
            4,
            Session::Ours,
            200,
            Expect::Result,
        ),
        post(
            "tools/call answers as text/event-stream: one data: event with the response, then the stream ends.",
            5,
            Session::Ours,
            200,
            Expect::Result,
        ),
        post("tools/call echo", 6, Session::Ours, 200, Expect::Result),
        post("tools/call add", 7, Session::Ours, 200, Expect::Result),
        post(
            "An unknown method: -32601, inside a 200.",
            8,
            Session::Ours,
            200,
            Expect::Error(-32601),
        ),
        post(
            "A failing tool: a result with isError: true, on an event stream like every tools/call.",
            9,
            Session::Ours,
            200,
            Expect::Result,
        ),
        Call {
            caption: "An Mcp-Session-Id the server never issued: 404 Not Found.",
            method: "POST",
            body: r#"{"jsonrpc":"2.0","id":10,"method":"tools/list"}"#,
            session: Session::Unknown,
            status: 404,
            expect: Expect::Nothing,
        },
        Call {
            caption: "GET /mcp would open a stream for messages the server sends unprompted. This server has none: 405, and the body says why.",
            method: "GET",
            body: "",
            session: Session::Ours,
            status: 405,
            expect: Expect::Nothing,
        },
        Call {
            caption: "DELETE /mcp with the session id ends the session.",
            method: "DELETE",
            body: "",
            session: Session::Ours,
            status: 204,
            expect: Expect::Nothing,
        },
        Call {
            caption: "The ended session's id is now unknown: 404. A client must initialize a new session.",
            method: "POST",
            body: r#"{"jsonrpc":"2.0","id":11,"method":"tools/list"}"#,
            session: Session::Ours,
            status: 404,
            expect: Expect::Nothing,
        },
    ]
}

/// Drives the session against `url` (`http://127.0.0.1:3100/mcp`), printing the wire.
pub fn run(url: &str) -> Result<(), String> {
    let rest = url.strip_prefix("http://").ok_or_else(|| format!("not an http:// URL: {url}"))?;
    let (authority, path) =
        rest.split_once('/').map_or((rest, "/".to_owned()), |(a, p)| (a, format!("/{p}")));
    let stream =
        TcpStream::connect(authority).map_err(|e| format!("cannot connect to {authority}: {e}"))?;
    stream.set_read_timeout(Some(Duration::from_secs(10))).map_err(|e| e.to_string())?;
    let mut out = stream.try_clone().map_err(|e| e.to_string())?;
    let mut input = BufReader::new(stream);
    let mut session_id = String::new();
    for call in calls() {
        println!("# {}", call.caption);
        // Headers in the order mcp-raw's client sends them, lower case.
        let mut head = format!("{} {path} HTTP/1.1\r\nhost: {authority}\r\n", call.method);
        if call.method == "POST" {
            // "Sending Messages to the Server": the client MUST accept both forms of answer.
            head.push_str(
                "accept: application/json, text/event-stream\r\ncontent-type: application/json\r\n",
            );
        }
        let id = match call.session {
            Session::Without => None,
            Session::Ours => Some(session_id.as_str()),
            Session::Unknown => Some(UNKNOWN_SESSION),
        };
        if let Some(id) = id {
            // Every request after initialize names its session and the version agreed
            // ("Session Management", "Protocol Version Header").
            head.push_str(&format!("mcp-session-id: {id}\r\nmcp-protocol-version: 2025-11-25\r\n"));
        }
        if call.method == "POST" {
            head.push_str(&format!("content-length: {}\r\n", call.body.len()));
        }
        head.push_str("\r\n");
        show(">>>", &head, call.body);
        // Head and body in one write (two small ones would wait on each other).
        out.write_all(format!("{head}{}", call.body).as_bytes()).map_err(|e| e.to_string())?;
        let (status, headers, body) = read_response(&mut input)?;
        show("<<<", &headers, &body);
        println!();
        if status != call.status {
            return Err(format!("{} answered {status}, not {}", call.method, call.status));
        }
        // initialize's answer carries the session id in a header; keep it.
        if let Some(line) =
            headers.lines().find(|l| l.to_ascii_lowercase().starts_with("mcp-session-id:"))
        {
            session_id = line["mcp-session-id:".len()..].trim().to_owned();
        }
        if status == 200 {
            // An SSE body is `data: <message>` then a blank line; a JSON body is the message.
            let message = body.strip_prefix("data: ").map_or(body.as_str(), |m| m.trim_end());
            check(message, &call.expect, call.body)?;
        }
    }
    Ok(())
}

/// Prints a head and a body, each line after `prefix`, CR LF shown as line ends.
fn show(prefix: &str, head: &str, body: &str) {
    for line in head.trim_end_matches("\r\n").split("\r\n") {
        println!("{prefix} {line}");
    }
    println!("{prefix}");
    for line in body.lines() {
        match line {
            "" => println!("{prefix}"), // the blank line that ends an SSE event
            line => println!("{prefix} {line}"),
        }
    }
}

/// Reads one response: status line and headers up to the empty line, then
/// `content-length` bytes of body. Returns (status, the head as sent, the body).
fn read_response(input: &mut impl BufRead) -> Result<(u16, String, String), String> {
    let mut head = String::new();
    loop {
        let n = input.read_line(&mut head).map_err(|e| format!("reading the response: {e}"))?;
        if n == 0 {
            return Err("the server closed the connection".into());
        }
        if head.ends_with("\r\n\r\n") {
            break;
        }
    }
    let status = head.split(' ').nth(1).and_then(|s| s.parse().ok()).ok_or("no status line")?;
    let length = head
        .lines()
        .find_map(|l| {
            l.to_ascii_lowercase().strip_prefix("content-length:").map(|n| n.trim().to_owned())
        })
        .map_or(Ok(0), |n| n.parse::<usize>())
        .map_err(|e| format!("content-length: {e}"))?;
    let mut body = vec![0; length];
    input.read_exact(&mut body).map_err(|e| format!("reading the body: {e}"))?;
    Ok((status, head, String::from_utf8_lossy(&body).into_owned()))
}
