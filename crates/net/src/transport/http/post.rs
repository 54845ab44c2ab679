//! One `POST /mcp`, up to the point where the eras part: headers checked, body read
//! and parsed, era chosen by the core's one rule ([`era::choose`]). The session path continues in [`super::legacy`], the
//! stateless path in [`super::modern`].

use super::reply::{self, HttpResponse};
use super::{App, guard, legacy, modern};
use crate::protocol::{Door, Era, Incoming, era};
use hyper::{Request, StatusCode};

/// A POST to `/mcp`: guards, body, parse, then the era's handler.
pub async fn handle(app: &App, request: Request<hyper::body::Incoming>) -> HttpResponse {
    match handle_inner(app, request).await {
        Ok(r) | Err(r) => r,
    }
}

async fn handle_inner(
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
    let body = Incoming::read(
        &bytes,
        super::facts(headers, Door::Message),
        app.core.keeps_meta(),
    )
    .map_err(|e| reply::rpc_error(StatusCode::BAD_REQUEST, e))?;
    // The era rule reads the message's `_meta` too (a batch has none to read).
    let era = match &body {
        Incoming::One(envelope) => {
            era::choose(app.core.eras(), &envelope.facts, Some(&envelope.meta))
        }
        Incoming::Batch(_) => {
            era::choose(app.core.eras(), &super::facts(headers, Door::Message), None)
        }
    };
    match era {
        Era::Modern => Ok(modern::post(app, headers, body).await),
        Era::Legacy => {
            let who = parts.extensions.get::<super::auth::Principal>();
            legacy::post(app, headers, who, body).await
        }
    }
}
