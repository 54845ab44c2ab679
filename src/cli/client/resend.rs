//! `client --ui`: after its work the client keeps the session open while its page is
//! served, so a request edited on the page is sent again on it (through the
//! client's own link: recorded and shown as every request of this client), until
//! Ctrl-C closes the session (a legacy HTTP session is DELETEd, a stdio server's
//! stdin closed) and the program ends. A resend asked while the client still works
//! waits until its work is done.

use crate::cli::console::Console;
use hyper::StatusCode;
use mcp_raw_net::client::mcp_client::McpClient;
use mcp_raw_tools::ui::live::{self, Live, Refusal, Sent};
use serde_json::json;
use std::future::Future;
use std::pin::Pin;
use tokio::sync::{mpsc, oneshot};

/// One resend the page asked for, and where its outcome goes.
type Job = (String, oneshot::Sender<Sent>);

/// The page's side: each resend handed to the client's loop.
struct Session(
    /// Where the client's loop takes each resend from.
    mpsc::Sender<Job>,
);

impl Live for Session {
    fn send(&self, message: String) -> Pin<Box<dyn Future<Output = Sent> + Send + '_>> {
        Box::pin(async move {
            let ended = || {
                Refusal::new(
                    StatusCode::CONFLICT,
                    "the client's session has ended: nothing more can be sent on it",
                )
            };
            let (said, outcome) = oneshot::channel();
            self.0.send((message, said)).await.map_err(|_| ended())?;
            outcome.await.unwrap_or_else(|_| Err(ended()))
        })
    }
}

/// The client's side: the resends the page asks for, from when the page has the
/// session (at start) to [`serve`].
pub struct Resends(
    /// The resends the page asked for, in order.
    mpsc::Receiver<Job>,
    /// Where the session's end is said (stderr).
    Console,
);

/// Offers the page (if this process serves one) resends on the session.
pub fn offer(console: &Console) -> Option<Resends> {
    // A few resends may wait while the client still works; the page's POST waits
    // for its place otherwise.
    let (tx, rx) = mpsc::channel(4);
    super::super::ui::resend_into(std::sync::Arc::new(Session(tx)))
        .then_some(Resends(rx, console.clone()))
}

impl Resends {
    /// The session stays open for the page's resends until Ctrl-C.
    pub async fn serve(mut self, client: &mut McpClient) {
        if let Some(url) = super::super::ui::keep_serving() {
            self.1.say(format_args!(
                "[mcp-raw] ui: done; the page stays at {url} and the session open for its resends until Ctrl-C"
            ));
        }
        let stop = tokio::signal::ctrl_c();
        tokio::pin!(stop);
        loop {
            tokio::select! {
                _ = &mut stop => break,
                job = self.0.recv() => {
                    let Some((message, said)) = job else { break };
                    let _ = said.send(resend(client, &message).await);
                }
            }
        }
        self.1.say("[mcp-raw] ui: interrupted: closing the session");
    }
}

/// One resend on the session: what to tell the page.
async fn resend(client: &mut McpClient, message: &str) -> Sent {
    let (m, asked) = live::request_of(message)?;
    match client.resend(m).await {
        Ok(r) => Ok(json!({
            "id": r.id,
            "asked_id": asked,
            "answered": r.answered,
            "status": r.status,
            "note": format!("sent as id {}: this client numbers its own requests (an id is never used twice in a session)", r.id),
        })),
        Err(e) => Err(Refusal::new(StatusCode::BAD_GATEWAY, format!("{e:#}"))),
    }
}
