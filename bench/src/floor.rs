//! The floors: what the machine costs before any MCP is done. Every peer's figures are
//! divided by the floor measured in the same repetition, which is what holds on a
//! shared machine whose absolute speed moves from run to run.
//!
//! - `floor-pipe` reads stdin and, for every `\n` it sees, answers one fixed line. It
//!   parses nothing, and answers every line that one `read` brought in one `write`.
//! - `floor-http PORT` is hyper (HTTP/1.1, keep-alive, `TCP_NODELAY`) answering every
//!   request with one fixed JSON body and a fixed `Mcp-Session-Id`, so the load
//!   generator's legacy workload runs the same exchanges against it as against a
//!   real server.

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use std::convert::Infallible;
use std::io::{Read, Write};

/// The one answer both floors give: shaped like an echo result, so a floor reply
/// is as long as a real one.
pub const ANSWER: &str =
    r#"{"jsonrpc":"2.0","id":0,"result":{"content":[{"type":"text","text":"hello"}]}}"#;

/// `floor-pipe`: a line in, a fixed line out, until stdin closes.
pub fn pipe() -> std::io::Result<()> {
    let mut stdin = std::io::stdin().lock();
    let mut stdout = std::io::stdout().lock();
    let line = format!("{ANSWER}\n");
    let mut buf = vec![0u8; 64 * 1024];
    let mut out = Vec::with_capacity(64 * 1024);
    loop {
        let n = stdin.read(&mut buf)?;
        if n == 0 {
            return Ok(());
        }
        let lines = buf[..n].iter().filter(|&&b| b == b'\n').count();
        if lines == 0 {
            continue;
        }
        out.clear();
        for _ in 0..lines {
            out.extend_from_slice(line.as_bytes());
        }
        stdout.write_all(&out)?;
        stdout.flush()?;
    }
}

/// `floor-http PORT`: hyper answering the fixed body on 127.0.0.1:PORT.
pub fn http(port: u16) -> std::io::Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
        eprintln!(
            "floor-http listening on http://{}/mcp",
            listener.local_addr()?
        );
        loop {
            let (tcp, _) = listener.accept().await?;
            let _ = tcp.set_nodelay(true);
            tokio::spawn(async move {
                let _ = http1::Builder::new()
                    .serve_connection(TokioIo::new(tcp), service_fn(answer))
                    .await;
            });
        }
    })
}

/// Reads the request body to its end (a server must, to keep the connection), then
/// answers the fixed body.
async fn answer(request: Request<Incoming>) -> Result<Response<Full<Bytes>>, Infallible> {
    let _ = request.into_body().collect().await;
    let mut response = Response::new(Full::new(Bytes::from_static(ANSWER.as_bytes())));
    let headers = response.headers_mut();
    headers.insert("content-type", "application/json".parse().expect("static"));
    headers.insert("mcp-session-id", "floor".parse().expect("static"));
    Ok(response)
}
