//! `mcp-raw ui FILE…` and `--ui`: the recording as a live web page on loopback. The
//! recorder feeds a [`Feed`] (one more sink); this listener serves the page, its
//! script and style (all in the binary: nothing is fetched from anywhere else), and
//! the feed as Server-Sent Events.
//!
//! ```text
//! GET /                       the page (index.html)
//! GET /ui.js, /ui.css         its script and style
//! GET /info?token=T           the recording's header and how many events it holds
//! GET /events?token=T         every event's rows, `id: N` its position; with
//!                             Last-Event-ID: N it goes on from N + 1
//!
//! GET  /export.jsonl?token=T  the whole recording as a transcript (as --record
//!                             writes it); /export.html the frozen page of it
//! POST /export.jsonl?token=T  the same of the events a body `0-4,7` names, and
//!                             what they need to be read (export.rs)
//! POST /resend?token=T        {"event": N, "message": "…"}: request N sent again
//!                             with that body, through the HTTP tap (resend.rs),
//!                             or on a live session: a stdio tap's server, a
//!                             client's session (live.rs)
//! POST /intercept?token=T     {"hold": N, "action": "forward"|"change"|"drop",
//!                             "message": "…"}: a held message decided (tap --intercept)
//! POST /intercept/filter?token=T  {"filter": "method:tools/call"}: what is held
//!
//! `mcp-raw ui A B`, two recordings side by side:
//! GET /diff.html, /diff.js    the side-by-side page and its script
//! GET /diff?token=T           diff's reading of the two, pair by pair (diff.rs)
//! GET /…&side=b               /, /info and /events of B (A without side=)
//! ```
//!
//! Who may read: the listener binds loopback only; `Host` must name a loopback host
//! (DNS rebinding, as `serve` checks it); a request that carries `Origin` must come
//! from this page's own origin, so another page, even on another loopback port,
//! cannot read the stream; and the data carries a random token that only the URL
//! printed at start holds.
//!
//! ```text
//! mod.rs      the listener's site: routes, the checks, the responses
//! feed.rs     the recorder's sink that keeps the rows; each page's SSE stream
//! diff.rs     two recordings paired message by message, for the side-by-side page
//! export.rs   what the page shows, as a transcript or a frozen page
//! post.rs     what the page asks with POST: exports, a resend, a held message
//!             decided, the filter; each body read within its limit
//! resend.rs   a relayed request, edited, sent again through the HTTP tap
//! live.rs     a live session that takes the page's resends (stdio tap, client)
//! findings.rs check's findings, tied to their events, as the page reads them
//! page.rs     the page's files, compiled in
//! page/       index.html, ui.js, ui.css
//! ```

pub mod diff;
pub mod export;
pub mod feed;
pub mod findings;
pub mod live;
pub mod page;
mod post;
pub mod resend;

pub use feed::Feed;

use crate::transport::http::guard::{AllowedHosts, foreign_host};
use crate::transport::http::listen::{self, Listening, Site};
use crate::transport::http::{Limits, names};
use bytes::Bytes;
use http_body_util::{Either, Full};
use hyper::header::{
    CACHE_CONTROL, CONTENT_SECURITY_POLICY, CONTENT_TYPE, HOST, HeaderValue, ORIGIN,
};
use hyper::{Method, Request, Response, StatusCode};
use serde_json::json;
use std::sync::Arc;

/// A response body: a file or a document at once, or a page's event stream.
pub type Body = Either<Full<Bytes>, feed::Events>;

/// The page's server: what it serves, and the token that opens the data.
pub struct Ui {
    /// The recording, as it grows; with `ui A B`, A then B.
    feeds: Vec<Feed>,
    /// With `ui A B`: the two compared (`/diff`, [`diff::document`]), as sent.
    diff: Option<Bytes>,
    /// The secret in the URL printed at start; the data is refused without it.
    token: String,
    /// Loopback only (no `--allow-host`: the page is for the person at this machine).
    hosts: AllowedHosts,
    /// The largest request body the page may send (`--ui-max-body-bytes`).
    max_body: usize,
    /// Where a resent request goes (the HTTP tap's own listener), once the tap has
    /// one; none: the page offers no resend.
    resend_to: std::sync::OnceLock<std::net::SocketAddr>,
    /// The tap's holds (`--intercept`: stdio, HTTP or the proxy), once it has them; none: the page
    /// holds nothing.
    holds: std::sync::OnceLock<Arc<crate::tap::intercept::Interceptor>>,
    /// The live session a resent message goes into (a stdio tap's server, a
    /// client's session), once there is one; none: only `resend_to`, if any.
    live: std::sync::OnceLock<Arc<dyn live::Live>>,
}

/// The largest body the page sends by default (`--ui-max-body-bytes`): the event
/// list of a filtered export of every event kept, with room.
pub const DEFAULT_MAX_BODY: usize = 16 << 20;

impl Ui {
    /// A page over `feed`, opened by `token`.
    pub fn new(feed: Feed, token: String, max_body: usize) -> Arc<Ui> {
        Arc::new(Ui {
            feeds: vec![feed],
            diff: None,
            token,
            hosts: AllowedHosts::default(),
            max_body,
            resend_to: std::sync::OnceLock::new(),
            holds: std::sync::OnceLock::new(),
            live: std::sync::OnceLock::new(),
        })
    }

    /// Two recordings side by side: `a` and `b` each as its own page, and `diff`
    /// (their [`diff::document`]) as the page that compares them.
    pub fn pair(
        a: Feed,
        b: Feed,
        diff: &serde_json::Value,
        token: String,
        max_body: usize,
    ) -> Arc<Ui> {
        Arc::new(Ui {
            feeds: vec![a, b],
            diff: Some(Bytes::from(diff.to_string())),
            token,
            hosts: AllowedHosts::default(),
            max_body,
            resend_to: std::sync::OnceLock::new(),
            holds: std::sync::OnceLock::new(),
            live: std::sync::OnceLock::new(),
        })
    }

    /// Offers resend on the page: requests go to the HTTP tap listening at `to`.
    pub fn resend_to(&self, to: std::net::SocketAddr) {
        let _ = self.resend_to.set(to);
    }

    /// Offers resend on the page: edited requests go into `session`.
    pub fn resend_into(&self, session: Arc<dyn live::Live>) {
        let _ = self.live.set(session);
    }

    /// Shows the tap's held messages on the page and takes its decisions.
    pub fn intercept_with(&self, holds: Arc<crate::tap::intercept::Interceptor>) {
        let _ = self.holds.set(holds);
    }

    /// The URL that opens the page on `addr` (the side-by-side one for two).
    pub fn url(&self, addr: std::net::SocketAddr) -> String {
        let page = if self.diff.is_some() { "diff.html" } else { "" };
        format!("http://{addr}/{page}?token={}", self.token)
    }
}

/// Serves `ui` on `listener` (bound to loopback by the caller) until `shutdown`.
pub async fn serve(
    listener: tokio::net::TcpListener,
    ui: Arc<Ui>,
    shutdown: impl std::future::Future<Output = ()>,
) -> std::io::Result<()> {
    let how = Arc::new(Listening {
        // The connection clocks every listener has: a page that stops reading its
        // stream is closed after the write timeout, and never slows the recorder.
        limits: Limits::default(),
        tls: None,
        recorder: None,
        who: "ui: ",
        max_connections_flag: "the ui's connection limit",
    });
    listen::accept_loop(listener, ui, how, shutdown).await
}

impl Site for Ui {
    type Body = Body;

    async fn answer(self: Arc<Self>, req: Request<hyper::body::Incoming>) -> Response<Body> {
        let mut r = self.route(req).await;
        let headers = r.headers_mut();
        // Nothing the page loads may come from elsewhere, nor be sent elsewhere.
        headers.insert(
            CONTENT_SECURITY_POLICY,
            HeaderValue::from_static(
                "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
            ),
        );
        headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
        headers.insert("referrer-policy", HeaderValue::from_static("no-referrer"));
        headers.insert(
            "x-content-type-options",
            HeaderValue::from_static("nosniff"),
        );
        r
    }
}

impl Ui {
    async fn route(&self, req: Request<hyper::body::Incoming>) -> Response<Body> {
        if let Some(why) = self.foreign(&req) {
            return text(StatusCode::FORBIDDEN, why);
        }
        let path = req.uri().path().to_owned();
        let query = req.uri().query().unwrap_or("").to_owned();
        let posts = matches!(
            path.as_str(),
            "/export.jsonl" | "/export.html" | "/resend" | "/intercept" | "/intercept/filter"
        );
        let post_only = matches!(
            path.as_str(),
            "/resend" | "/intercept" | "/intercept/filter"
        );
        let allowed =
            (req.method() == Method::GET && !post_only) || (posts && req.method() == Method::POST);
        if !allowed {
            return text(
                StatusCode::METHOD_NOT_ALLOWED,
                format!(
                    "Method Not Allowed: {} {path}; {}",
                    req.method(),
                    if post_only {
                        "this is asked for with POST"
                    } else if posts {
                        "an export is read (GET, the whole recording) or asked for (POST, the events listed)"
                    } else {
                        "the page only reads (GET) here"
                    }
                ),
            );
        }
        if req.method() == Method::GET
            && let Some(file) = page::file(&path)
        {
            return respond(
                StatusCode::OK,
                file.content_type,
                Bytes::from_static(file.body),
            );
        }
        if !matches!(path.as_str(), "/info" | "/events" | "/diff") && !posts {
            return text(
                StatusCode::NOT_FOUND,
                format!("Not Found: {path} (the page is at /)"),
            );
        }
        if !self.token_given(&query) {
            return text(
                StatusCode::FORBIDDEN,
                "Forbidden: the token is missing or wrong; open the URL printed when the ui started".into(),
            );
        }
        if path == "/diff" {
            return match &self.diff {
                Some(doc) => respond(StatusCode::OK, "application/json", doc.clone()),
                None => text(
                    StatusCode::NOT_FOUND,
                    "Not Found: /diff compares two recordings (mcp-raw ui A B); this page shows one".into(),
                ),
            };
        }
        let feed = match param(&query, "side") {
            None | Some("a") => &self.feeds[0],
            Some("b") if self.feeds.len() > 1 => &self.feeds[1],
            Some(other) => {
                return text(
                    StatusCode::NOT_FOUND,
                    format!(
                        "Not Found: side={other:?}; this page has {} (side=a{})",
                        if self.feeds.len() > 1 {
                            "two recordings"
                        } else {
                            "one recording"
                        },
                        if self.feeds.len() > 1 {
                            " or side=b"
                        } else {
                            ""
                        }
                    ),
                );
            }
        };
        if path == "/resend" {
            return self.resend(feed, req).await;
        }
        if path.starts_with("/intercept") {
            return self.intercept(&path, req).await;
        }
        if posts {
            return self.export(feed, &path, req).await;
        }
        if path == "/info" {
            let info = json!({
                "header": feed.header(),
                "events": feed.len(),
                "resend": self.resend_to.get().is_some() || self.live.get().is_some(),
                // Which rows the page offers to resend: an HTTP tap's, a request's
                // whole HTTP message; a live session's, a request's JSON.
                "resend_rows": match (self.resend_to.get(), self.live.get()) {
                    (Some(_), _) => Some("http"),
                    (None, Some(l)) => Some(l.rows()),
                    (None, None) => None,
                },
                "intercept": self.holds.get().map(|h| json!({
                    "filter": h.filter(),
                    "timeout": h.timeout().as_secs_f64(),
                })),
            });
            return respond(
                StatusCode::OK,
                "application/json",
                Bytes::from(info.to_string()),
            );
        }
        // EventSource sends the last id it saw when it reconnects (WHATWG HTML §9.2).
        let after = match req.headers().get(names::LAST_EVENT_ID) {
            None => None,
            Some(v) => match v.to_str().ok().and_then(|v| v.trim().parse::<usize>().ok()) {
                Some(n) => Some(n),
                None => {
                    return text(
                        StatusCode::BAD_REQUEST,
                        format!(
                            "Bad Request: Last-Event-ID {v:?} is not an event position this stream gave"
                        ),
                    );
                }
            },
        };
        let mut r = Response::new(Either::Right(feed.events(after)));
        r.headers_mut()
            .insert(CONTENT_TYPE, HeaderValue::from_static("text/event-stream"));
        r
    }

    /// Why a request may not be answered: a `Host` that is no loopback name (DNS
    /// rebinding), or an `Origin` other than this page's own.
    fn foreign(&self, req: &Request<hyper::body::Incoming>) -> Option<String> {
        let headers = req.headers();
        if let Some(why) = foreign_host(headers, &self.hosts) {
            return Some(why);
        }
        let origin = headers.get(ORIGIN)?;
        let own = headers
            .get(HOST)
            .and_then(|h| h.to_str().ok())
            .map(|h| format!("http://{h}"));
        if origin.to_str().ok() == own.as_deref() {
            return None;
        }
        Some(format!(
            "Forbidden: Origin {origin:?} is not this page's own ({}); another page may not read the stream",
            own.as_deref().unwrap_or("none: no Host")
        ))
    }

    /// Does the query carry `token=` this page's token? Compared in constant time.
    fn token_given(&self, query: &str) -> bool {
        query
            .split('&')
            .filter_map(|pair| pair.strip_prefix("token="))
            .any(|given| same(given.as_bytes(), self.token.as_bytes()))
    }
}

/// The value of `key=` in a query, as sent (the page's own parameters are plain
/// words: nothing to decode).
fn param<'q>(query: &'q str, key: &str) -> Option<&'q str> {
    query.split('&').find_map(|pair| {
        pair.strip_prefix(key)
            .and_then(|rest| rest.strip_prefix('='))
    })
}

/// Equal, in a time that does not depend on where they differ.
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

fn respond(status: StatusCode, content_type: &'static str, body: Bytes) -> Response<Body> {
    let mut r = Response::new(Either::Left(Full::new(body)));
    *r.status_mut() = status;
    r.headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static(content_type));
    r
}

/// A refusal in plain words.
fn text(status: StatusCode, message: String) -> Response<Body> {
    respond(
        status,
        "text/plain; charset=utf-8",
        Bytes::from(message + "\n"),
    )
}
