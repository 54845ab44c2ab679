//! The Streamable HTTP transport (2025-11-25 `basic/transports` "Streamable HTTP"),
//! on `std::net` and HTTP/1.1 written by hand. One endpoint, `/mcp`:
//!
//! - `POST` carries one client message. A request is answered in the response:
//!   as one JSON body, or as an SSE stream (`text/event-stream`) that ends with it;
//!   a notification or response gets `202 Accepted` and no body.
//! - `GET` would open a stream for messages the server sends unprompted. This server
//!   has none, so: `405`, and the body says why.
//! - `DELETE` ends a session.
//!
//! Over stdio the process is the session. Here one process serves many clients, so
//! each session has an id: `Mcp-Session-Id`, given in the answer to `initialize` and
//! sent back by the client on every later request ("Session Management").

use crate::http::{Limits, Reply, Request, is_local, new_session_id, read_request, write_reply};
use crate::rpc::{self, Incoming, Message, Session};
use std::collections::HashMap;
use std::io::BufReader;
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// Every live session, by id.
type Sessions = Arc<Mutex<HashMap<String, Session>>>;

/// Listens on `127.0.0.1:port` (0: any free port) and serves until killed. Loopback
/// only: "Security Warning", servers running locally SHOULD bind to localhost.
pub fn run(port: u16, limits: Limits) -> std::io::Result<()> {
    let listener = TcpListener::bind(("127.0.0.1", port))?;
    let port = listener.local_addr()?.port();
    // The one line a parent reads to find the server (the demo does).
    eprintln!("[learn] Streamable HTTP server listening on http://127.0.0.1:{port}/mcp");
    let sessions: Sessions = Arc::default();
    let open = Arc::new(AtomicUsize::new(0));
    for mut stream in listener.incoming().flatten() {
        if open.load(Ordering::SeqCst) >= limits.max_connections {
            let why = format!(
                "Service Unavailable: {} connections are open, the most this server serves at once (--max-connections)",
                limits.max_connections
            );
            let _ = write_reply(
                &mut stream,
                Reply::refuse("503 Service Unavailable", -32603, &why),
                false,
            );
            continue;
        }
        open.fetch_add(1, Ordering::SeqCst);
        let (sessions, limits, open) = (sessions.clone(), limits.clone(), open.clone());
        std::thread::spawn(move || {
            connection(stream, &sessions, &limits);
            open.fetch_sub(1, Ordering::SeqCst);
        });
    }
    Ok(())
}

/// One connection: requests one after another (HTTP/1.1 keeps it open) until the
/// client closes it, says `connection: close`, sends something unreadable or idles.
fn connection(stream: TcpStream, sessions: &Sessions, limits: &Limits) {
    let _ = stream.set_read_timeout(Some(limits.idle));
    let Ok(mut out) = stream.try_clone() else {
        return;
    };
    let mut input = BufReader::new(stream);
    loop {
        let (reply, keep_open) = match read_request(&mut input, limits.max_body) {
            Ok(None) => return,
            Ok(Some(request)) => {
                let close =
                    request.header("connection").is_some_and(|c| c.eq_ignore_ascii_case("close"));
                (route(&request, sessions, limits), !close)
            }
            Err(reply) => (reply, false),
        };
        if write_reply(&mut out, reply, keep_open).is_err() || !keep_open {
            return;
        }
    }
}

/// Decides the answer to one request.
fn route(request: &Request, sessions: &Sessions, limits: &Limits) -> Reply {
    let invalid = rpc::code::INVALID_REQUEST;
    // "Security Warning": servers MUST validate `Origin` (a web page could otherwise
    // reach this local server through the browser: DNS rebinding).
    for (what, value) in [("Host", request.header("host")), ("Origin", request.header("origin"))] {
        if let Some(value) = value.filter(|v| !is_local(v)) {
            return Reply::refuse(
                "403 Forbidden",
                invalid,
                &format!(
                    "Forbidden: {what} {value:?} is not a host this server answers to (localhost, 127.0.0.1, [::1]); DNS-rebinding protection"
                ),
            );
        }
    }
    if request.path != "/mcp" {
        return Reply::refuse(
            "404 Not Found",
            invalid,
            &format!("Not Found: {} (the MCP endpoint is /mcp)", request.path),
        );
    }
    let not_allowed = |why: &str| {
        let mut reply = Reply::refuse("405 Method Not Allowed", invalid, why);
        // RFC 9110 §15.5.6: a 405 lists the methods that are allowed.
        reply.headers.push(("allow", "POST, DELETE".into()));
        reply
    };
    match request.method.as_str() {
        "POST" => post(request, sessions, limits).unwrap_or_else(|refusal| refusal),
        // "Listening for Messages from the Server": a GET gets an SSE stream, or 405
        // from a server that offers none.
        "GET" => not_allowed(
            "Method Not Allowed: this server offers no GET stream because it never pushes messages unprompted; every response arrives on the POST that asked for it",
        ),
        "DELETE" => match session_id(request) {
            Err(refusal) => refusal,
            Ok(None) => bad_request("DELETE needs the Mcp-Session-Id of the session to end"),
            // "Session Management": the client ends its session with DELETE; the id is
            // unknown from then on (404).
            Ok(Some(id)) => match sessions.lock().map(|mut s| s.remove(id)) {
                Ok(Some(_)) => Reply::empty("204 No Content"),
                _ => session_not_found(id),
            },
        },
        other => not_allowed(&format!(
            "Method Not Allowed: {other} /mcp; use POST to send messages, DELETE to end a session"
        )),
    }
}

/// A POST: headers checked, the message read, then the session it belongs to.
fn post(request: &Request, sessions: &Sessions, limits: &Limits) -> Result<Reply, Reply> {
    let invalid = rpc::code::INVALID_REQUEST;
    // "Sending Messages to the Server": the client MUST accept both answer forms.
    let accept = request.header("accept").unwrap_or("");
    let covers = |want: &str| {
        accept.split(',').map(|r| r.split(';').next().unwrap_or("").trim()).any(|r| {
            r.eq_ignore_ascii_case(want)
                || r == "*/*"
                || r.strip_suffix("/*").is_some_and(|t| want.starts_with(t))
        })
    };
    if !covers("application/json") || !covers("text/event-stream") {
        return Err(Reply::refuse(
            "406 Not Acceptable",
            invalid,
            &format!(
                "Not Acceptable: Accept must list both application/json and text/event-stream, got {accept:?}"
            ),
        ));
    }
    let content_type = request.header("content-type").unwrap_or("");
    if !content_type.split(';').next().unwrap_or("").trim().eq_ignore_ascii_case("application/json")
    {
        return Err(Reply::refuse(
            "415 Unsupported Media Type",
            invalid,
            &format!(
                "Unsupported Media Type: Content-Type must be application/json, got {content_type:?}"
            ),
        ));
    }
    // Unreadable JSON or no JSON-RPC message: 400, the JSON-RPC error as the body.
    let incoming = rpc::read(&request.body).map_err(|e| Reply::json("400 Bad Request", e))?;
    let id = session_id(request)?;
    let mut sessions = sessions
        .lock()
        .map_err(|_| Reply::refuse("500 Internal Server Error", -32603, "a thread panicked"))?;
    match incoming {
        Incoming::One(message) if is_request(&message, "initialize") => {
            initialize(message, id, &mut sessions, limits)
        }
        incoming => in_session(incoming, id, &mut sessions, request),
    }
}

fn is_request(message: &Message, name: &str) -> bool {
    matches!(message, Message::Request { method, .. } if method == name)
}

/// `initialize` is the one request sent without a session: it starts one, and the
/// response carries its id in `Mcp-Session-Id` ("Session Management").
fn initialize(
    message: Message,
    id: Option<&str>,
    sessions: &mut HashMap<String, Session>,
    limits: &Limits,
) -> Result<Reply, Reply> {
    if id.is_some() {
        return Err(bad_request(
            "initialize must be sent without Mcp-Session-Id: it starts a new session",
        ));
    }
    if sessions.len() >= limits.max_sessions {
        return Err(Reply::refuse(
            "503 Service Unavailable",
            -32603,
            &format!(
                "Service Unavailable: {} sessions are open, the most this server keeps (--max-sessions); end one with DELETE",
                limits.max_sessions
            ),
        ));
    }
    let mut session = Session::default();
    let answer = session.handle(message).unwrap_or_default();
    let mut reply = Reply::json("200 OK", answer);
    // Only a successful initialize starts a session (a refused one left the phase).
    if session.phase != rpc::Phase::AwaitingInitialize {
        let id = new_session_id();
        eprintln!("[learn] session {id} created");
        reply.headers.push(("mcp-session-id", id.clone()));
        sessions.insert(id, session);
    }
    Ok(reply)
}

/// Any other message: it must name a live session.
fn in_session(
    incoming: Incoming,
    id: Option<&str>,
    sessions: &mut HashMap<String, Session>,
    request: &Request,
) -> Result<Reply, Reply> {
    // "Session Management": a server that requires sessions SHOULD answer a request
    // without `Mcp-Session-Id` (other than initialize) with 400.
    let Some(id) = id else {
        return Err(bad_request(
            "Mcp-Session-Id header is required; send initialize first to get one",
        ));
    };
    // "Protocol Version Header": later requests say the version agreed; this server
    // agrees only 2025-11-25. Absent, the session already tells which it is.
    if let Some(v) = request.header("mcp-protocol-version").filter(|v| *v != rpc::PROTOCOL_VERSION)
    {
        return Err(bad_request(&format!(
            "Unsupported MCP-Protocol-Version {v:?}; supported: {}",
            rpc::PROTOCOL_VERSION
        )));
    }
    let Some(session) = sessions.get_mut(id) else {
        return Err(session_not_found(id));
    };
    Ok(match incoming {
        Incoming::Batch => Reply::json("400 Bad Request", session.batch_refusal()),
        Incoming::One(message) => {
            let streamed = is_request(&message, "tools/call");
            match session.handle(message) {
                // "Sending Messages to the Server": a notification or a response, once
                // accepted, gets 202 Accepted and no body.
                None => Reply::empty("202 Accepted"),
                // A request gets `application/json` or `text/event-stream`, the server's
                // choice. tools/call goes on an SSE stream though these tools finish at
                // once: the path a long call would use to send progress events first.
                // One event, `data: <the response>`, a blank line, and the stream ends.
                Some(answer) if streamed => Reply {
                    status: "200 OK",
                    headers: vec![
                        ("content-type", "text/event-stream".into()),
                        ("cache-control", "no-cache".into()),
                        ("x-accel-buffering", "no".into()),
                    ],
                    body: format!("data: {answer}\n\n"),
                },
                Some(answer) => Reply::json("200 OK", answer),
            }
        }
    })
}

/// The `Mcp-Session-Id` header, if sent: visible ASCII (0x21 to 0x7E), as the spec
/// requires of the id.
fn session_id(request: &Request) -> Result<Option<&str>, Reply> {
    match request.header("mcp-session-id") {
        None => Ok(None),
        Some(v) if !v.is_empty() && v.bytes().all(|b| (0x21..=0x7e).contains(&b)) => Ok(Some(v)),
        Some(v) => Err(bad_request(&format!(
            "Mcp-Session-Id must be visible ASCII (0x21-0x7E), got {v:?}"
        ))),
    }
}

fn bad_request(why: &str) -> Reply {
    Reply::refuse("400 Bad Request", rpc::code::INVALID_REQUEST, &format!("Bad Request: {why}"))
}

/// "Session Management": a request with an id this server never gave or has ended
/// gets 404, and the client MUST start a new session with a fresh `initialize`. The
/// spec names only the status; -32001 is the code mcp-raw (and the TypeScript SDK)
/// put in the body.
fn session_not_found(id: &str) -> Reply {
    Reply::refuse(
        "404 Not Found",
        -32001,
        &format!(
            "Session not found: {id:?} is unknown or was terminated; send initialize without Mcp-Session-Id to start a new session"
        ),
    )
}
