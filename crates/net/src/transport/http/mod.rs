//! The Streamable HTTP transport: one endpoint, `/mcp`, serving both eras. `POST`
//! carries client messages (`post`, then [`legacy`] with sessions per MCP
//! 2025-11-25 `basic/transports`, or [`modern`], stateless, per 2026-07-28
//! `basic/transports/streamable-http`). `GET` opens a legacy session's push stream
//! (or resumes a request's stream) where the server has something to push, else
//! `405`; 2026-07-28 removed it. `DELETE` ends a legacy session ([`sessions`]).
//! Connections are accepted in [`listen`] and served in [`conn`], under the bounds
//! of [`limits`]. Behind it sits any [`Core`]: the protocol core (`serve --http`) or
//! a bridge's forwarding core (`bridge -- SERVER_CMD`); the rules here are the same.

pub mod auth;
pub mod conn;
pub mod guard;
pub mod legacy;
pub mod limits;
pub mod listen;
pub mod modern;
pub mod names;
pub mod reply;
pub mod resume;
pub mod sessions;

use crate::protocol::{Core, Door, Era, Facts, Incoming, Server, era};
use hyper::header::{ALLOW, HeaderValue};
use hyper::{HeaderMap, Method, Request, StatusCode};
pub use limits::Limits;
use reply::HttpResponse;
use sessions::Sessions;
use std::future::Future;
use std::sync::Arc;
use tokio::net::TcpListener;

use crate::wire::http::ENDPOINT;

/// Settings of the HTTP server.
#[derive(Debug, Clone, Default)]
pub struct Config {
    /// Sizes, timeouts and counts a client can run into.
    pub limits: Limits,
    /// Host names accepted in `Host` and `Origin` (loopback always).
    pub allowed_hosts: guard::AllowedHosts,
    /// Where every connection's bytes are recorded (`--trace`, `--record`); none: no
    /// recording, and no cost.
    pub recorder: Option<crate::wire::recorder::Recorder>,
    /// Protect `/mcp` with OAuth bearer tokens from this authorization server
    /// (`--auth-server`); none: every request is served.
    pub auth: Option<auth::Settings>,
    /// Put before every legacy session id (`--session-id-prefix`), so a load balancer
    /// can tell from the id alone which replica holds the session; empty by default.
    pub session_id_prefix: sessions::IdPrefix,
    /// Terminate TLS on every connection with this certificate (`--tls-cert`,
    /// `--tls-key`); none: plain HTTP, and no TLS code on the connection's path.
    pub tls: Option<Arc<crate::transport::tls::Acceptor>>,
}

/// What every connection task shares.
pub struct App {
    /// What answers the messages: the protocol core ([`Server`]), or a bridge's
    /// forwarding core. Every HTTP rule here is the same for both.
    pub core: Arc<dyn Core>,
    /// The legacy sessions alive.
    pub sessions: Sessions,
    /// Host names accepted in `Host` and `Origin`.
    pub allowed_hosts: guard::AllowedHosts,
    /// Each tool's `x-mcp-header` arguments, read once from its schema: the modern
    /// POST checks the `Mcp-Param-*` headers against them.
    pub param_headers:
        std::collections::HashMap<String, Vec<crate::wire::http::x_mcp_header::HeaderParam>>,
    /// Connections closed since the sweeper last gave freed memory back to the OS.
    pub closed_connections: std::sync::atomic::AtomicU64,
    /// The token check in front of `/mcp`, and the metadata document beside it,
    /// when the server is a protected resource.
    pub protection: Option<auth::Protection>,
    /// How its listener takes connections, and every size, timeout and count a
    /// client can run into (`listening.limits`; `serve --help` lists each flag): the
    /// clocks, the TLS (`--tls-cert`), the recorder of every connection's bytes
    /// (`--trace`, `--record`).
    pub listening: Arc<listen::Listening>,
}

/// The MCP endpoint as a listener's site: each request routed (`route`), each
/// closed connection counted for the sweeper.
impl listen::Site for App {
    type Body = reply::Body;

    async fn answer(self: Arc<Self>, req: Request<hyper::body::Incoming>) -> HttpResponse {
        route(&self, req).await
    }

    fn closed(&self) {
        self.closed_connections
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }
}

impl App {
    /// The app of the protocol core's `server`.
    pub fn new(server: Arc<Server>, config: Config) -> Arc<App> {
        App::with_core(server, config)
    }

    /// The app of any [`Core`] (a bridge's forwarding core).
    pub fn with_core(core: Arc<dyn Core>, config: Config) -> Arc<App> {
        let param_headers = core
            .tool_schemas()
            .into_iter()
            .filter_map(|(name, schema)| {
                match crate::wire::http::x_mcp_header::header_params(&schema) {
                    Ok(p) if !p.is_empty() => Some((name, p)),
                    _ => None,
                }
            })
            .collect();
        Arc::new(App {
            core,
            sessions: Sessions::new(&config.limits).with_id_prefix(config.session_id_prefix),
            listening: Arc::new(listen::Listening {
                limits: config.limits,
                tls: config.tls,
                recorder: config.recorder.clone(),
                who: "",
                max_connections_flag: "serve --max-connections",
            }),
            allowed_hosts: config.allowed_hosts,
            param_headers,
            closed_connections: Default::default(),
            protection: config
                .auth
                .map(|settings| auth::Protection::new(settings, config.recorder.clone())),
        })
    }
}

/// The transport facts the era rule reads, from a request's headers.
pub fn facts(headers: &HeaderMap, door: Door) -> Facts<'_> {
    Facts {
        door,
        protocol_versions: headers
            .get_all(names::PROTOCOL_VERSION)
            .iter()
            .map(HeaderValue::as_bytes)
            .collect(),
        session_id: headers.contains_key(names::SESSION_ID),
        method_header: headers.contains_key(names::METHOD),
    }
}

impl App {
    /// The era that serves a bodiless request through `door` ([`era::choose`]).
    fn era(&self, headers: &HeaderMap, door: Door) -> Era {
        era::choose(self.core.eras(), &facts(headers, door), None)
    }
}

/// Serves HTTP on `listener` until `shutdown` completes.
pub async fn run(
    listener: TcpListener,
    server: Arc<Server>,
    config: Config,
    shutdown: impl Future<Output = ()>,
) -> std::io::Result<()> {
    serve(listener, App::new(server, config), shutdown).await
}

/// Serves `app` on `listener` until `shutdown` completes; the caller keeps `app` to
/// look at its sessions (tests do).
pub async fn serve(
    listener: TcpListener,
    app: Arc<App>,
    shutdown: impl Future<Output = ()>,
) -> std::io::Result<()> {
    let sweeper = tokio::spawn(sessions::sweep_every(app.clone()));
    let how = app.listening.clone();
    let result = listen::accept_loop(listener, app, how, shutdown).await;
    sweeper.abort();
    result
}

/// Routes by path and method, after the `Host` / `Origin` check that guards every
/// request and, on a protected server, the token check that guards `/mcp`. Only a
/// POST to `/mcp` reads the body (in [`post`]); every answer given here, before it,
/// while a body is still to come, says the connection ends
/// ([`guard::refused_unread`]).
pub(crate) async fn route(app: &App, mut req: Request<hyper::body::Incoming>) -> HttpResponse {
    let body_coming = !hyper::body::Body::is_end_stream(req.body());
    let unread = |r| guard::refused_unread(body_coming, r);
    {
        let headers = req.headers();
        // Which era's error a refusal here speaks: asked only when there is one to give.
        let looks_modern = || app.era(headers, Door::Headers) == Era::Modern;
        if let Err(refused) = guard::check_singletons(headers, looks_modern) {
            return unread(refused);
        }
        if let Err(refused) = guard::check_host_and_origin(headers, &app.allowed_hosts) {
            return unread(refused);
        }
    }
    if let Some(protection) = &app.protection {
        if let Some(document) = protection.metadata(req.method(), req.uri().path()) {
            return unread(document);
        }
        if req.uri().path() == ENDPOINT {
            match protection.check(req.headers()).await {
                // Whose token this is travels with the request, to the session check.
                Ok(granted) => {
                    req.extensions_mut().insert(granted.principal);
                }
                Err(refused) => return unread(refused),
            }
        }
    }
    if req.uri().path() != ENDPOINT {
        return unread(reply::error(
            StatusCode::NOT_FOUND,
            crate::jsonrpc::code::INVALID_REQUEST,
            format!(
                "Not Found: {} (the MCP endpoint is {ENDPOINT})",
                req.uri().path()
            ),
        ));
    }
    let answer = match *req.method() {
        Method::POST => return post(app, req).await,
        Method::DELETE if app.era(req.headers(), Door::Delete) == Era::Legacy => delete(app, &req),
        Method::DELETE => not_allowed(
            app,
            Era::Modern,
            "Method Not Allowed: 2026-07-28 has no sessions, so there is nothing to DELETE",
        ),
        Method::GET if app.era(req.headers(), Door::Get) == Era::Legacy => get_stream(app, &req),
        Method::GET => not_allowed(
            app,
            Era::Modern,
            "Method Not Allowed: this server offers no GET stream because it never pushes messages unprompted; every response arrives on the POST that asked for it",
        ),
        ref other => not_allowed(
            app,
            if app.era(req.headers(), Door::Headers) == Era::Modern {
                Era::Modern
            } else {
                Era::Legacy
            },
            &format!(
                "Method Not Allowed: {other} /mcp; use POST to send messages, DELETE to end a session"
            ),
        ),
    };
    // A GET's stream or a DELETE's 204 with a body still coming ends the connection too.
    unread(answer)
}

/// A POST to `/mcp`, up to the point where the eras part: headers checked, body
/// read and parsed, era chosen by the core's one rule ([`era::choose`]). The session
/// path continues in [`legacy`], the stateless path in [`modern`].
async fn post(app: &App, request: Request<hyper::body::Incoming>) -> HttpResponse {
    match post_inner(app, request).await {
        Ok(r) | Err(r) => r,
    }
}

async fn post_inner(
    app: &App,
    request: Request<hyper::body::Incoming>,
) -> Result<HttpResponse, HttpResponse> {
    let body_coming = !hyper::body::Body::is_end_stream(request.body());
    let (parts, body) = request.into_parts();
    let headers = &parts.headers;
    let unread = |r| guard::refused_unread(body_coming, r);
    guard::check_accept(headers).map_err(unread)?;
    guard::check_content_type(headers).map_err(unread)?;
    let bytes = guard::read_body(body, headers, &app.listening.limits).await?;
    let body = Incoming::read(&bytes, facts(headers, Door::Message), app.core.keeps_meta())
        .map_err(|e| reply::rpc_error(StatusCode::BAD_REQUEST, e))?;
    // The era rule reads the message's `_meta` too (a batch has none to read).
    let era = match &body {
        Incoming::One(envelope) => {
            era::choose(app.core.eras(), &envelope.facts, Some(&envelope.meta))
        }
        Incoming::Batch(_) => era::choose(app.core.eras(), &facts(headers, Door::Message), None),
    };
    match era {
        Era::Modern => Ok(modern::post(app, headers, body).await),
        Era::Legacy => {
            let who = parts.extensions.get::<auth::Principal>();
            legacy::post(app, headers, who, body).await
        }
    }
}

/// `GET /mcp` in a legacy session. With `Last-Event-ID`: the rest of a request's
/// stream whose connection ended ("Resumability and Redelivery"). Without, on a server
/// that has something to push: an SSE stream that stays open for list changes and
/// resource updates ("Listening for Messages from the Server"); a newer GET takes
/// over from an older one, so nothing is delivered twice. Else 405.
fn get_stream(app: &App, req: &Request<hyper::body::Incoming>) -> HttpResponse {
    let resuming = req.headers().get(names::LAST_EVENT_ID);
    if resuming.is_none() && !app.core.pushes() {
        return not_allowed(
            app,
            Era::Legacy,
            "Method Not Allowed: this server offers no GET stream because it never pushes messages unprompted; every response arrives on the POST that asked for it",
        );
    }
    let accepts_sse = req
        .headers()
        .get_all(hyper::header::ACCEPT)
        .iter()
        .any(|v| {
            v.to_str()
                .is_ok_and(|s| s.contains("text/event-stream") || s.contains("*/*"))
        });
    if !accepts_sse {
        return reply::error(
            StatusCode::NOT_ACCEPTABLE,
            crate::jsonrpc::code::INVALID_REQUEST,
            "Not Acceptable: a GET stream is text/event-stream; list it in Accept",
        );
    }
    let id = match legacy::session_id(req.headers()) {
        Err(bad) => return bad,
        Ok(None) => {
            return legacy::bad_request("GET needs the Mcp-Session-Id of the session to listen to");
        }
        Ok(Some(id)) => id,
    };
    // Resuming a request's stream after a dropped connection.
    if let Some(last) = resuming {
        let last = last.to_str().unwrap_or("");
        return match app
            .sessions
            .with(id, principal(req), |entry| entry.streams.resume(last))
        {
            None => legacy::session_not_found(id),
            Some(None) => legacy::bad_request(format!(
                "Last-Event-ID {last:?} names no stream of this session (expected <stream>-<n>, as sent in an id: line)"
            )),
            Some(Some(reader)) => reply::resumable(reader),
        };
    }
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    let opened = app.sessions.with(id, principal(req), |entry| {
        entry.session.set_push(Arc::new(move |m| {
            tx.send(crate::protocol::context::Out::Message(m)).is_ok()
        }))
    });
    match opened {
        Some(()) => reply::push_stream(rx),
        None => legacy::session_not_found(id),
    }
}

/// `DELETE /mcp` with `Mcp-Session-Id`: the client ends its session.
fn delete(app: &App, req: &Request<hyper::body::Incoming>) -> HttpResponse {
    match legacy::session_id(req.headers()) {
        Err(bad) => bad,
        Ok(None) => legacy::bad_request("DELETE needs the Mcp-Session-Id of the session to end"),
        Ok(Some(id)) => match app.sessions.remove(id, principal(req)) {
            Some(running) => {
                log::warn!(
                    "[mcp-raw] session {id} terminated by DELETE: {running} running request(s) cancelled ({} live)",
                    app.sessions.len()
                );
                reply::status(StatusCode::NO_CONTENT)
            }
            None => legacy::session_not_found(id),
        },
    }
}

/// Whose token the request carries, on a protected server (put there by [`route`]).
fn principal<B>(req: &Request<B>) -> Option<&auth::Principal> {
    req.extensions().get::<auth::Principal>()
}

/// `405` with `Allow`, as RFC 9110 §15.5.6 requires: the methods the endpoint allows
/// in the era that refused the request, so the refused method is never listed. A
/// modern request may only POST (2026-07-28 removed sessions and the GET stream); a
/// legacy one may also DELETE its session, and GET when the server pushes.
fn not_allowed(app: &App, era: Era, why: &str) -> HttpResponse {
    let mut r = reply::error(
        StatusCode::METHOD_NOT_ALLOWED,
        crate::jsonrpc::code::INVALID_REQUEST,
        why,
    );
    let allow = match (era, app.core.eras()) {
        (Era::Modern, _) | (_, crate::protocol::Eras::Modern) => "POST",
        _ if app.core.pushes() => "GET, POST, DELETE",
        _ => "POST, DELETE",
    };
    r.headers_mut()
        .insert(ALLOW, HeaderValue::from_static(allow));
    r
}
