//! `mcp-raw demo-http [--era legacy|modern|both]`: spawns `mcp-raw serve --http` and
//! drives a session with real HTTP requests on one keep-alive connection, printing each
//! request and response in full: request line, headers, body; status line, headers,
//! body (an SSE body as its raw lines and the decoded message). The legacy session
//! then trips each session rule: no session id (400), an unknown one (404), GET (405),
//! DELETE, and reuse (404).

use super::listening::listening_address;
use super::script::{self, Expect, Step};
use anyhow::{Context, bail};
use hyper::Method;
use mcp_raw_core::{Eras, LATEST_VERSION, meta};
use mcp_raw_net::client::http_link::{HttpLink, HttpReply};
use mcp_raw_net::client::wire_print::Printer;
use mcp_raw_wire::http::{SESSION_ID, mirror};
use std::time::Duration;
use tokio::process::Command;

const START_TIMEOUT: Duration = Duration::from_secs(10);

struct Demo {
    link: HttpLink,
    printer: Printer,
    /// The legacy session id, once `initialize` has minted one.
    session: Option<String>,
    next_id: i64,
}

/// `mcp-raw demo-http`: the view's printer, then [`run`], or with `--auth` the
/// OAuth walk-through ([`super::demo_auth::run`]).
pub fn main(
    args: super::args::DemoHttpArgs,
    console: &super::console::Console,
) -> anyhow::Result<()> {
    let printer = args.view.printer("http", console)?;
    if args.auth {
        return super::runtime()?.block_on(super::demo_auth::run(args.port, printer));
    }
    super::runtime()?.block_on(run(args.port, args.era.into(), printer))
}

pub async fn run(port: u16, era: Eras, printer: Printer) -> anyhow::Result<()> {
    // The modern demo runs against a modern-only server, so GET and DELETE show the
    // 405 such a server answers; the others against a dual-era one.
    let server_era = if era == Eras::Modern {
        "modern"
    } else {
        "both"
    };
    let exe = std::env::current_exe().context("cannot find the mcp-raw binary")?;
    let mut child = Command::new(exe)
        .args([
            "serve",
            "--http",
            "--port",
            &port.to_string(),
            "--era",
            server_era,
        ])
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .context("cannot spawn `mcp-raw serve --http`")?;
    let authority = tokio::time::timeout(
        START_TIMEOUT,
        listening_address(&mut child, printer.clone()),
    )
    .await
    .context("the server did not start listening in time")??;
    let url = format!("http://{authority}{}", mcp_raw_wire::http::ENDPOINT);
    printer.caption(&format!(
        "Spawned `mcp-raw serve --http --era {server_era}`. One endpoint, {url}; every client message is its own POST."
    ));
    let mut demo = Demo {
        link: HttpLink::new(&url, &printer)?,
        printer: printer.clone(),
        session: None,
        next_id: 1,
    };
    let result = match era {
        Eras::Legacy => demo.legacy().await,
        Eras::Modern => demo.modern().await,
        Eras::Both => demo.both().await,
    };
    let _ = child.kill().await;
    result?;
    printer.caption(script::AFTER);
    if era == Eras::Legacy {
        printer.caption(script::TRY_ERAS);
    }
    Ok(())
}

impl Demo {
    /// The session of the original project, then the session rules.
    async fn legacy(&mut self) -> anyhow::Result<()> {
        self.printer.caption(script::SHAPES);
        self.printer.caption("Over HTTP the first gate is the session: a request other than initialize without Mcp-Session-Id is refused with 400.");
        self.post_expect(&script::too_early(), None, 400).await?;

        self.open_session().await?;
        self.printer.caption("Same core as stdio: with a session but before notifications/initialized, tools/list still gets -32002 (inside a 200).");
        self.post_step(&script::too_early()).await?;
        self.confirm_session().await?;

        for step in script::operation() {
            self.printer.caption(step.caption);
            if step.method == "tools/call" {
                self.printer.note("tools/call answers as text/event-stream: one data: event with the response, then the stream ends");
            }
            self.post_step(&step).await?;
        }
        self.session_rules().await
    }

    /// The stateless session, then GET and DELETE on a modern-only server.
    async fn modern(&mut self) -> anyhow::Result<()> {
        for step in script::modern_session(true) {
            self.printer.caption(step.caption);
            self.post_step(&step).await?;
        }
        self.printer
            .note("no Mcp-Session-Id was minted or sent in any exchange above");
        self.printer.caption("GET /mcp: 2026-07-28 removed the standalone stream; change notifications come from a subscriptions/listen request instead. 405.");
        self.expect(Method::GET, self.modern_probe_headers(), 405)
            .await?;
        self.printer
            .caption("DELETE /mcp: there is no session to end. 405.");
        self.expect(Method::DELETE, self.modern_probe_headers(), 405)
            .await
            .map(drop)
    }

    /// One tool call in each era, against one dual-era server.
    async fn both(&mut self) -> anyhow::Result<()> {
        self.printer.caption("The same tool call in both eras, one endpoint. First legacy (2025-11-25): initialize opens a session...");
        self.open_session().await?;
        self.confirm_session().await?;
        self.printer.caption("...and the call rides in the session: Mcp-Session-Id and MCP-Protocol-Version headers, plain params.");
        self.post_step(&script::sample_call()).await?;
        self.printer
            .caption("The legacy client ends its session with DELETE.");
        let headers = self.session_headers();
        self.expect(Method::DELETE, headers, 204).await?;
        self.session = None;

        self.printer.caption("Now modern (2026-07-28): no initialize, no session id. The body's params._meta declares version and capabilities; the headers MCP-Protocol-Version, Mcp-Method and Mcp-Name mirror the body so a load balancer can route without parsing it.");
        self.post_step(&script::sample_call_modern()).await?;
        self.printer.note("the same content, plus resultType: complete and the server's identity in result._meta; no Mcp-Session-Id came back");
        self.printer.caption("GET /mcp is 405 in both eras here (nothing to push); a modern DELETE is 405 too: there is no session to end.");
        self.expect(Method::GET, self.modern_probe_headers(), 405)
            .await?;
        self.expect(Method::DELETE, self.modern_probe_headers(), 405)
            .await
            .map(drop)
    }

    /// `initialize` without a session id; keeps the id the response header carries.
    async fn open_session(&mut self) -> anyhow::Result<()> {
        self.printer.caption(script::initialize().caption);
        self.printer.note("initialize is the one request sent without Mcp-Session-Id; the response header carries the new id");
        let reply = self.post_step(&script::initialize()).await?;
        let id = reply
            .headers
            .get(SESSION_ID)
            .and_then(|v| v.to_str().ok())
            .context("initialize response has no Mcp-Session-Id")?;
        self.session = Some(id.to_owned());
        Ok(())
    }

    async fn confirm_session(&mut self) -> anyhow::Result<()> {
        self.printer.caption(script::initialized().caption);
        self.printer.note("an HTTP request always gets a response: for a notification it is 202 Accepted with an empty body");
        self.post_step(&script::initialized()).await.map(drop)
    }

    /// The session rules, each tripped on purpose.
    async fn session_rules(&mut self) -> anyhow::Result<()> {
        let list = script::bare("tools/list", Expect::Result);
        let live = self.session.clone().context("no session")?;

        self.printer
            .caption("An Mcp-Session-Id the server never issued: 404 Not Found.");
        self.post_expect(&list, Some("00000000-0000-4000-8000-000000000000"), 404)
            .await?;

        self.printer.caption("GET /mcp would open a stream for messages the server sends unprompted. This server has none: 405, and the body says why.");
        let headers = self.session_headers();
        self.expect(Method::GET, headers, 405).await?;

        self.printer
            .caption("DELETE /mcp with the session id ends the session.");
        let headers = self.session_headers();
        self.expect(Method::DELETE, headers, 204).await?;

        self.printer.caption(
            "The ended session's id is now unknown: 404. A client must initialize a new session.",
        );
        self.post_expect(&list, Some(&live), 404).await.map(drop)
    }

    /// POSTs a step (in its era, with the current session) and checks the HTTP
    /// status and the JSON-RPC reply.
    async fn post_step(&mut self, step: &Step) -> anyhow::Result<HttpReply> {
        let session = self.session.clone();
        let reply = self
            .post_expect(step, session.as_deref(), step.http_status())
            .await?;
        script::check(step.expect, reply.message().as_ref())
            .map_err(|e| anyhow::anyhow!("{}: {e}", step.method))?;
        Ok(reply)
    }

    async fn post_expect(
        &mut self,
        step: &Step,
        session: Option<&str>,
        status: u16,
    ) -> anyhow::Result<HttpReply> {
        let id = self.next_id;
        if !step.notification {
            self.next_id += 1;
        }
        let message = step.to_message(id);
        let headers = if step.modern.is_some() {
            step.modern_headers(&message)
        } else {
            let mut h = mirror::post_headers();
            if let Some(id) = session {
                h.push((SESSION_ID.to_owned(), id.to_owned()));
                h.push((
                    mirror::PROTOCOL_VERSION.to_owned(),
                    LATEST_VERSION.to_owned(),
                ));
            }
            h
        };
        let reply = self
            .link
            .exchange(Method::POST, &headers, serde_json::to_vec(&message)?)
            .await?;
        check_status(&reply, status)?;
        Ok(reply)
    }

    async fn expect(
        &mut self,
        method: Method,
        headers: Vec<(String, String)>,
        status: u16,
    ) -> anyhow::Result<HttpReply> {
        let reply = self.link.exchange(method, &headers, Vec::new()).await?;
        check_status(&reply, status)?;
        Ok(reply)
    }

    fn session_headers(&self) -> Vec<(String, String)> {
        let mut h = Vec::new();
        if let Some(id) = &self.session {
            h.push((SESSION_ID.to_owned(), id.clone()));
            h.push((
                mirror::PROTOCOL_VERSION.to_owned(),
                LATEST_VERSION.to_owned(),
            ));
        }
        h
    }

    /// The version header a modern client would put on a GET or DELETE.
    fn modern_probe_headers(&self) -> Vec<(String, String)> {
        vec![(
            mirror::PROTOCOL_VERSION.to_owned(),
            meta::MODERN_VERSIONS[0].to_owned(),
        )]
    }
}

fn check_status(reply: &HttpReply, status: u16) -> anyhow::Result<()> {
    if reply.status.as_u16() != status {
        bail!("expected HTTP {status}, got {}", reply.status);
    }
    Ok(())
}
