//! A refusal given before the request's body was read: the server will close the
//! connection (the body is not worth reading), so its head says `Connection: close`
//! (RFC 9112 §9.6), whether the body arrives with the head or after it. The server
//! runs in-process on port 0; the client is a raw socket that sends the head first.

mod common;
use common::InProcess;
use common::http_client::Reader;
use std::io::Write;
use std::net::TcpStream;

/// Sends `head` (which announces a 20-byte body), then — unless `body_later` is
/// false, when the body goes with the head — nothing more for now; returns the
/// response's head as sent, its `Date` value blanked, and whether the server then
/// closed the connection.
fn refused(addr: &str, head: &str, body_later: bool) -> (String, bool) {
    let mut sock = TcpStream::connect(addr).unwrap();
    let body = r#"{"jsonrpc":"2.0"}   "#;
    assert_eq!(body.len(), 20);
    if body_later {
        sock.write_all(head.as_bytes()).unwrap();
    } else {
        sock.write_all(format!("{head}{body}").as_bytes()).unwrap();
    }
    let mut reader = Reader::new(sock.try_clone().unwrap());
    let reply = reader.reply();
    let raw = String::from_utf8_lossy(&reply.raw).into_owned();
    let head = &raw[..raw.find("\r\n\r\n").expect("a head") + 4];
    let date = reply.header("date").unwrap_or_default().to_owned();
    let head = head.replace(&date, "DATE");
    // After the response, the server's side ends: a read sees EOF (or a reset), not
    // a connection left open (which waits out the 5 s and answers `Ok(None)`).
    let next = reader.try_part(std::time::Instant::now() + std::time::Duration::from_secs(5));
    let closed = matches!(next, Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof);
    (head, closed)
}

#[test]
fn a_refusal_before_the_body_says_the_connection_ends() {
    let s = InProcess::demo();
    let a = &s.addr;
    // 404: not the MCP endpoint.
    let (head, closed) = refused(
        a,
        &format!(
            "POST /other HTTP/1.1\r\nHost: {a}\r\nContent-Type: application/json\r\nContent-Length: 20\r\n\r\n"
        ),
        true,
    );
    assert_eq!(
        head,
        "HTTP/1.1 404 Not Found\r\ncontent-type: application/json\r\nconnection: close\r\ncontent-length: 108\r\ndate: DATE\r\n\r\n"
    );
    assert!(closed);
    // 406: the POST's Accept check, before the body is read.
    let (head, closed) = refused(
        a,
        &format!(
            "POST /mcp HTTP/1.1\r\nHost: {a}\r\nAccept: text/html\r\nContent-Type: application/json\r\nContent-Length: 20\r\n\r\n"
        ),
        true,
    );
    assert_eq!(
        head,
        "HTTP/1.1 406 Not Acceptable\r\ncontent-type: application/json\r\nconnection: close\r\ncontent-length: 159\r\ndate: DATE\r\n\r\n"
    );
    assert!(closed);
    // The same 404 with the body sent along with the head: still unread, still the end.
    let (head, closed) = refused(
        a,
        &format!(
            "POST /other HTTP/1.1\r\nHost: {a}\r\nContent-Type: application/json\r\nContent-Length: 20\r\n\r\n"
        ),
        false,
    );
    assert_eq!(
        head,
        "HTTP/1.1 404 Not Found\r\ncontent-type: application/json\r\nconnection: close\r\ncontent-length: 108\r\ndate: DATE\r\n\r\n"
    );
    assert!(closed);
}

#[test]
fn a_refusal_without_a_body_keeps_the_connection() {
    let s = InProcess::demo();
    let a = &s.addr;
    let mut sock = TcpStream::connect(a).unwrap();
    let get = format!("GET /other HTTP/1.1\r\nHost: {a}\r\n\r\n");
    // Two requests on one connection: the first refusal did not end it.
    sock.write_all(get.as_bytes()).unwrap();
    let mut reader = Reader::new(sock.try_clone().unwrap());
    let first = reader.reply();
    assert_eq!(first.status, 404);
    assert_eq!(first.header("connection"), None);
    sock.write_all(get.as_bytes()).unwrap();
    assert_eq!(reader.reply().status, 404);
}

#[test]
fn a_401_before_the_body_says_the_connection_ends() {
    // `serve --http --auth-server http://127.0.0.1:9`: a request without a token is
    // refused before any key is fetched, so no authorization server needs to run.
    let mut auth = mcp_raw_net::transport::http::auth::Settings::new("http://127.0.0.1:9");
    auth.resource = "http://127.0.0.1/mcp".into();
    let s = InProcess::with(
        mcp_raw_core::Server::new(
            mcp_raw_core::content::demo::tool_set(),
            mcp_raw_core::Eras::Both,
        ),
        mcp_raw_net::transport::http::Config {
            auth: Some(auth),
            ..Default::default()
        },
    );
    let a = &s.addr;
    let (head, closed) = refused(
        a,
        &format!(
            "POST /mcp HTTP/1.1\r\nHost: {a}\r\nAccept: application/json, text/event-stream\r\nContent-Type: application/json\r\nContent-Length: 20\r\n\r\n"
        ),
        true,
    );
    assert_eq!(
        head,
        "HTTP/1.1 401 Unauthorized\r\ncontent-type: application/json\r\nwww-authenticate: Bearer resource_metadata=\"http://127.0.0.1/.well-known/oauth-protected-resource/mcp\"\r\nconnection: close\r\ncontent-length: 215\r\ndate: DATE\r\n\r\n"
    );
    assert!(closed);
}
