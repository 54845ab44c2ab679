//! What the page asks of its server with POST (the routes are in `mod.rs`): an
//! export of the events its filters show, a resend through the HTTP tap, a held
//! message decided and the filter of what is held (`tap --intercept`). Each body is
//! read whole within `--ui-max-body-bytes` and the body clock; each refusal says
//! what was wrong.

use super::{Body, Feed, Ui, export, resend, respond, text};
use crate::transport::http::Limits;
use bytes::Bytes;
use http_body_util::{BodyExt, Limited};
use hyper::header::{CONTENT_DISPOSITION, HeaderValue};
use hyper::{Method, Request, Response, StatusCode};
use serde_json::json;

impl Ui {
    /// `/export.jsonl`, `/export.html`: the whole recording (GET), or the events a
    /// POST lists; a download, named after the recording.
    pub(super) async fn export(
        &self,
        feed: &Feed,
        path: &str,
        req: Request<hyper::body::Incoming>,
    ) -> Response<Body> {
        let picked = if req.method() == Method::POST {
            let body = match self.body(req).await {
                Ok(b) => b,
                Err(refusal) => return refusal,
            };
            let listed = std::str::from_utf8(&body)
                .map_err(|_| "the body is not UTF-8 text".to_owned())
                .and_then(export::positions);
            match listed {
                Ok(p) => Some(p),
                Err(e) => {
                    return text(
                        StatusCode::BAD_REQUEST,
                        format!("Bad Request: the events to export: {e}"),
                    );
                }
            }
        } else {
            None
        };
        let events = match export::events(feed, picked.as_deref()) {
            Ok(e) => e,
            Err(e) => {
                return text(
                    StatusCode::UNPROCESSABLE_ENTITY,
                    format!("Unprocessable Content: {e}"),
                );
            }
        };
        let head = feed.head();
        let (content_type, ext, body) = if path == "/export.html" {
            (
                "text/html; charset=utf-8",
                "html",
                Bytes::from(export::html(head, &events, feed.max())),
            )
        } else {
            (
                "application/jsonl; charset=utf-8",
                "jsonl",
                Bytes::from(export::jsonl(head, &events, feed.max())),
            )
        };
        let mut r = respond(StatusCode::OK, content_type, body);
        // `mcp-raw-tap-2026-12-06T11-54-36-112Z.jsonl`: the recording's role and start.
        // `-shown` for the events a page's filters kept.
        let name = format!(
            "mcp-raw-{}-{}{}.{ext}",
            head.role,
            head.started.replace([':', '.'], "-"),
            if picked.is_some() { "-shown" } else { "" }
        );
        let name: String = name
            .chars()
            .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_'))
            .collect();
        if let Ok(v) = HeaderValue::from_str(&format!("attachment; filename=\"{name}\"")) {
            r.headers_mut().insert(CONTENT_DISPOSITION, v);
        }
        r
    }

    /// `/resend`: `{"event": N, "message": "…"}` sent again through the tap; 202
    /// with the new connection's address (its answer comes as that lane's rows).
    pub(super) async fn resend(
        &self,
        feed: &Feed,
        req: Request<hyper::body::Incoming>,
    ) -> Response<Body> {
        let live = self.live.get().filter(|_| self.resend_to.get().is_none());
        if self.resend_to.get().is_none() && live.is_none() {
            return text(
                StatusCode::CONFLICT,
                "Conflict: this page cannot resend: the pages of an HTTP tap (tap --http --ui, plain listener), a stdio tap (tap --ui) and a client (client --ui) send requests again".into(),
            );
        }
        let body = match self.body(req).await {
            Ok(b) => b,
            Err(refusal) => return refusal,
        };
        let asked: Result<(usize, String), String> =
            serde_json::from_slice::<serde_json::Value>(&body)
                .map_err(|e| format!("the body is not JSON: {e}"))
                .and_then(|v| {
                    let n = v["event"]
                        .as_u64()
                        .ok_or("\"event\" (an event position) is missing")?;
                    let m = v["message"]
                        .as_str()
                        .ok_or("\"message\" (the JSON to send, as text) is missing")?;
                    Ok((n as usize, m.to_owned()))
                });
        let (n, message) = match asked {
            Ok(a) => a,
            Err(e) => return text(StatusCode::BAD_REQUEST, format!("Bad Request: resend: {e}")),
        };
        if let Some(session) = live {
            return self.resend_live(feed, n, message, session.as_ref()).await;
        }
        let Some(&to) = self.resend_to.get() else {
            return text(
                StatusCode::CONFLICT,
                "Conflict: this page cannot resend".into(),
            );
        };
        let (bytes, warning) = match resend::request(feed, n, &message) {
            Ok(r) => r,
            Err(e) => {
                return text(
                    StatusCode::UNPROCESSABLE_ENTITY,
                    format!("Unprocessable Content: resend: {e}"),
                );
            }
        };
        match resend::send(to, bytes).await {
            Ok(from) => {
                let said = json!({"from": from.to_string(), "warning": warning});
                respond(
                    StatusCode::ACCEPTED,
                    "application/json",
                    Bytes::from(said.to_string()),
                )
            }
            Err(e) => text(StatusCode::BAD_GATEWAY, format!("Bad Gateway: resend: {e}")),
        }
    }

    /// `/resend` on a live session: event `n` must be a message a client sent; the
    /// edited `message` goes into `session`, which says what it sent (202) or why
    /// not.
    async fn resend_live(
        &self,
        feed: &Feed,
        n: usize,
        message: String,
        session: &dyn super::live::Live,
    ) -> Response<Body> {
        if let Err(e) = resend::sent_by_client(feed, n) {
            return text(
                StatusCode::UNPROCESSABLE_ENTITY,
                format!("Unprocessable Content: resend: {e}"),
            );
        }
        match session.send(message).await {
            Ok(said) => respond(
                StatusCode::ACCEPTED,
                "application/json",
                Bytes::from(said.to_string()),
            ),
            Err(refusal) => text(refusal.status, refusal.message),
        }
    }

    /// `/intercept`: a held message decided; `/intercept/filter`: what is held.
    pub(super) async fn intercept(
        &self,
        path: &str,
        req: Request<hyper::body::Incoming>,
    ) -> Response<Body> {
        use crate::tap::intercept::Decision;
        let Some(holds) = self.holds.get() else {
            return text(
                StatusCode::CONFLICT,
                "Conflict: this page holds nothing: only a tap's page with --intercept (or --intercept-ui) does".into(),
            );
        };
        let body = match self.body(req).await {
            Ok(b) => b,
            Err(refusal) => return refusal,
        };
        let asked = match serde_json::from_slice::<serde_json::Value>(&body) {
            Ok(v) => v,
            Err(e) => {
                return text(
                    StatusCode::BAD_REQUEST,
                    format!("Bad Request: {path}: the body is not JSON: {e}"),
                );
            }
        };
        if path == "/intercept/filter" {
            let Some(filter) = asked["filter"].as_str() else {
                return text(
                    StatusCode::BAD_REQUEST,
                    "Bad Request: /intercept/filter: \"filter\" (text; empty holds nothing) is missing".into(),
                );
            };
            return match holds.set_filter(filter) {
                Ok(()) => respond(
                    StatusCode::OK,
                    "application/json",
                    Bytes::from(json!({"filter": holds.filter()}).to_string()),
                ),
                Err(e) => text(
                    StatusCode::BAD_REQUEST,
                    format!("Bad Request: the filter: {e}"),
                ),
            };
        }
        let Some(hold) = asked["hold"].as_u64() else {
            return text(
                StatusCode::BAD_REQUEST,
                "Bad Request: /intercept: \"hold\" (the held message's number) is missing".into(),
            );
        };
        let decision = match asked["action"].as_str() {
            Some("forward") => Decision::Forward,
            Some("drop") => Decision::Drop,
            Some("change") => {
                let Some(m) = asked["message"].as_str() else {
                    return text(
                        StatusCode::BAD_REQUEST,
                        "Bad Request: /intercept: \"change\" needs \"message\", the edited JSON as text".into(),
                    );
                };
                if let Err(e) = serde_json::from_str::<serde_json::Value>(m) {
                    return text(
                        StatusCode::UNPROCESSABLE_ENTITY,
                        format!("Unprocessable Content: the edited message is not JSON: {e}"),
                    );
                }
                if m.contains('\n') {
                    // One message is one line on stdio (2025-11-25 basic/transports:
                    // messages "MUST NOT contain embedded newlines").
                    let one: serde_json::Value = serde_json::from_str(m).unwrap_or_default();
                    Decision::Change(Bytes::from(one.to_string()))
                } else {
                    Decision::Change(Bytes::copy_from_slice(m.as_bytes()))
                }
            }
            other => {
                return text(
                    StatusCode::BAD_REQUEST,
                    format!(
                        "Bad Request: /intercept: \"action\" {other:?} is not forward, change or drop"
                    ),
                );
            }
        };
        match holds.decide(hold, decision) {
            Ok(()) => respond(
                StatusCode::OK,
                "application/json",
                Bytes::from(json!({"hold": hold}).to_string()),
            ),
            Err(e) => text(StatusCode::CONFLICT, format!("Conflict: {e}")),
        }
    }

    /// The request's body, whole, up to `--ui-max-body-bytes` and within the body
    /// clock every listener has; a refusal that says which limit otherwise.
    async fn body(&self, req: Request<hyper::body::Incoming>) -> Result<Bytes, Response<Body>> {
        let limit = self.max_body;
        let too_large = || {
            text(
                StatusCode::PAYLOAD_TOO_LARGE,
                format!(
                    "Payload Too Large: the body exceeds the {limit}-byte limit (--ui-max-body-bytes)"
                ),
            )
        };
        let read = Limited::new(req.into_body(), limit).collect();
        let clock = Limits::default().body_timeout;
        match tokio::time::timeout(clock, read).await {
            Err(_) => Err(text(
                StatusCode::REQUEST_TIMEOUT,
                format!(
                    "Request Timeout: the body did not arrive in full within {} s",
                    clock.as_secs_f64()
                ),
            )),
            Ok(Ok(collected)) => Ok(collected.to_bytes()),
            Ok(Err(e)) if e.is::<http_body_util::LengthLimitError>() => Err(too_large()),
            Ok(Err(e)) => Err(text(
                StatusCode::BAD_REQUEST,
                format!("Bad Request: could not read the body: {e}"),
            )),
        }
    }
}
