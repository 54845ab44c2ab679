//! `mcp-raw demo-http`: spawns `mcp-raw serve --http` and drives the same session
//! with real HTTP requests on one keep-alive connection, printing each request and
//! response in full: request line, headers, body; status line, headers, body (an SSE
//! body as its raw lines and the decoded message). Then it trips each session rule:
//! no session id (400), an unknown one (404), GET (405), DELETE, and reuse (404).

use super::script::{self, Expect, Step};
use super::wire_print::Printer;
use anyhow::{Context, bail};
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::client::conn::http1::SendRequest;
use hyper::{Method, Request, StatusCode};
use hyper_util::rt::TokioIo;
use serde_json::Value;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

const TIMEOUT: Duration = Duration::from_secs(10);

struct Demo {
    sender: SendRequest<Full<Bytes>>,
    /// `host:port` of the server, sent as `Host`.
    authority: String,
    printer: Printer,
    session: Option<String>,
    next_id: i64,
}

/// One HTTP exchange's outcome.
struct Reply {
    status: StatusCode,
    headers: hyper::HeaderMap,
    /// The JSON-RPC message in the body (for SSE, the last event's data).
    message: Option<Value>,
}

pub async fn run(port: u16, printer: Printer) -> anyhow::Result<()> {
    let exe = std::env::current_exe().context("cannot find the mcp-raw binary")?;
    let mut child = Command::new(exe)
        .args(["serve", "--http", "--port", &port.to_string()])
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .context("cannot spawn `mcp-raw serve --http`")?;
    let authority = tokio::time::timeout(TIMEOUT, listening_address(&mut child, &printer))
        .await
        .context("the server did not start listening in time")??;
    let stream = tokio::net::TcpStream::connect(&authority)
        .await
        .with_context(|| format!("cannot connect to {authority}"))?;
    stream.set_nodelay(true)?;
    let (sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream)).await?;
    tokio::spawn(connection);
    let mut demo = Demo {
        sender,
        authority,
        printer,
        session: None,
        next_id: 1,
    };
    let result = demo.session().await;
    let _ = child.kill().await;
    result
}

/// Reads the child's stderr until its "listening on http://ADDR/mcp" line, then keeps
/// forwarding the rest of its stderr to the printer.
async fn listening_address(child: &mut Child, printer: &Printer) -> anyhow::Result<String> {
    let stderr = child.stderr.take().context("child stderr")?;
    let mut lines = BufReader::new(stderr).lines();
    while let Some(line) = lines.next_line().await? {
        printer.server_stderr(&line);
        if let Some(rest) = line.split("listening on http://").nth(1) {
            let authority = rest
                .trim_end_matches(crate::transport::http::ENDPOINT)
                .to_owned();
            let color = printer.colored();
            tokio::spawn(async move {
                let printer = Printer::new(color, false);
                while let Ok(Some(line)) = lines.next_line().await {
                    printer.server_stderr(&line);
                }
            });
            return Ok(authority);
        }
    }
    bail!("the server exited before listening (is the port in use? try --port 0)")
}

impl Demo {
    async fn session(&mut self) -> anyhow::Result<()> {
        let p = &self.printer;
        p.caption(&format!(
            "Spawned `mcp-raw serve --http`. One endpoint, http://{}/mcp; every client message is its own POST.",
            self.authority
        ));
        p.caption(script::SHAPES);

        let early = script::too_early();
        self.printer.caption("Over HTTP the first gate is the session: a request other than initialize without Mcp-Session-Id is refused with 400.");
        let reply = self.post(&early, None).await?;
        expect_status(&reply, StatusCode::BAD_REQUEST)?;

        self.printer.caption(script::initialize().caption);
        self.printer.note("initialize is the one request sent without Mcp-Session-Id; the response header carries the new id");
        let reply = self
            .post_step(&script::initialize(), StatusCode::OK)
            .await?;
        let id = reply
            .headers
            .get("mcp-session-id")
            .and_then(|v| v.to_str().ok())
            .context("initialize response has no Mcp-Session-Id")?;
        self.session = Some(id.to_owned());

        self.printer.caption("Same core as stdio: with a session but before notifications/initialized, tools/list still gets -32002 (inside a 200).");
        self.post_step(&early, StatusCode::OK).await?;

        self.printer.caption(script::initialized().caption);
        self.printer.note("an HTTP request always gets a response: for a notification it is 202 Accepted with an empty body");
        self.post_step(&script::initialized(), StatusCode::ACCEPTED)
            .await?;

        for step in script::operation() {
            self.printer.caption(step.caption);
            if step.method == "tools/call" {
                self.printer.note("tools/call answers as text/event-stream: one data: event with the response, then the stream ends");
            }
            self.post_step(&step, StatusCode::OK).await?;
        }

        self.session_rules().await?;
        self.printer.caption(script::AFTER);
        Ok(())
    }

    /// The session rules, each tripped on purpose.
    async fn session_rules(&mut self) -> anyhow::Result<()> {
        let list = Step {
            caption: "",
            method: "tools/list",
            params: None,
            notification: false,
            expect: Expect::Result,
        };
        let live = self.session.clone().context("no session")?;

        self.printer
            .caption("An Mcp-Session-Id the server never issued: 404 Not Found.");
        let reply = self
            .post(&list, Some("00000000-0000-4000-8000-000000000000"))
            .await?;
        expect_status(&reply, StatusCode::NOT_FOUND)?;

        self.printer.caption("GET /mcp would open a stream for messages the server sends unprompted. This server has none: 405, and the body says why.");
        let reply = self.exchange(Method::GET, Some(&live), Vec::new()).await?;
        expect_status(&reply, StatusCode::METHOD_NOT_ALLOWED)?;

        self.printer
            .caption("DELETE /mcp with the session id ends the session.");
        let reply = self
            .exchange(Method::DELETE, Some(&live), Vec::new())
            .await?;
        if !reply.status.is_success() {
            bail!("DELETE: expected 2xx, got {}", reply.status);
        }

        self.printer.caption(
            "The ended session's id is now unknown: 404. A client must initialize a new session.",
        );
        let reply = self.post(&list, Some(&live)).await?;
        expect_status(&reply, StatusCode::NOT_FOUND)
    }

    /// POSTs a step with the current session and checks status and JSON-RPC reply.
    async fn post_step(&mut self, step: &Step, status: StatusCode) -> anyhow::Result<Reply> {
        let session = self.session.clone();
        let reply = self.post(step, session.as_deref()).await?;
        expect_status(&reply, status)?;
        script::check(step.expect, reply.message.as_ref())
            .map_err(|e| anyhow::anyhow!("{}: {e}", step.method))?;
        Ok(reply)
    }

    async fn post(&mut self, step: &Step, session: Option<&str>) -> anyhow::Result<Reply> {
        let id = self.next_id;
        if !step.notification {
            self.next_id += 1;
        }
        let body = serde_json::to_vec(&step.to_message(id))?;
        self.exchange(Method::POST, session, body).await
    }

    /// Sends one request with every header set explicitly (what is printed is what
    /// goes out), reads the whole response and prints both.
    async fn exchange(
        &mut self,
        method: Method,
        session: Option<&str>,
        body: Vec<u8>,
    ) -> anyhow::Result<Reply> {
        let mut builder = Request::builder()
            .method(method.clone())
            .uri(crate::transport::http::ENDPOINT)
            .header("host", &self.authority);
        if method == Method::POST {
            builder = builder
                .header("accept", "application/json, text/event-stream")
                .header("content-type", "application/json")
                .header("content-length", body.len());
        }
        if let Some(id) = session {
            builder = builder
                .header("mcp-session-id", id)
                .header("mcp-protocol-version", script::DEMO_VERSION);
        }
        let (head, ()) = builder.body(())?.into_parts();
        self.printer.http_request(&head, &body);
        let request = Request::from_parts(head, Full::new(Bytes::from(body)));

        // Keep-alive: wait until the connection has finished the previous exchange.
        self.sender
            .ready()
            .await
            .context("the connection to the server closed")?;
        let response = tokio::time::timeout(TIMEOUT, self.sender.send_request(request))
            .await
            .context("no response in time")??;
        let (head, incoming) = response.into_parts();
        let bytes = tokio::time::timeout(TIMEOUT, incoming.collect())
            .await
            .context("the response body did not end in time")??
            .to_bytes();
        self.printer.http_response(&head, &bytes);
        Ok(Reply {
            status: head.status,
            message: decode_body(&head.headers, &bytes),
            headers: head.headers,
        })
    }
}

/// The JSON-RPC message of a response body: JSON as is, SSE from its last event.
fn decode_body(headers: &hyper::HeaderMap, bytes: &[u8]) -> Option<Value> {
    let is_sse = headers
        .get(hyper::header::CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes().starts_with(b"text/event-stream"));
    if is_sse {
        let text = String::from_utf8_lossy(bytes);
        let last = crate::transport::sse::decode(&text)
            .into_iter()
            .rev()
            .find(|e| !e.data.is_empty())?;
        serde_json::from_str(&last.data).ok()
    } else {
        serde_json::from_slice(bytes).ok()
    }
}

fn expect_status(reply: &Reply, status: StatusCode) -> anyhow::Result<()> {
    if reply.status != status {
        bail!("expected HTTP {status}, got {}", reply.status);
    }
    Ok(())
}
