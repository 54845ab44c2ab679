//! A request the person edited on the client's page (`client --ui`), sent again on
//! the live session through the client's own link, so it is framed, recorded and
//! shown as every request of this client is: on stdio, one line to the child; on
//! HTTP, POSTed with what the era wants (legacy: the session's `Mcp-Session-Id` and
//! `MCP-Protocol-Version`; 2026-07-28: the standard headers mirrored from the
//! edited body, a listed tool's `x-mcp-header` ones).
//!
//! Its id is the session's next: this client numbers its own requests, and a
//! request id MUST NOT have been used before by the requestor in the same session
//! (2025-11-25 `basic` "Requests"); everything else is sent as edited.

use super::{Link, McpClient, Spoken};
use crate::protocol::meta;
use anyhow::Context;
use serde_json::{Value, json};

/// What became of a resend.
#[derive(Debug, Clone, PartialEq)]
pub struct Resent {
    /// The id it went out with (the session's next).
    pub id: i64,
    /// Its response came (it is on the page as a row, like every message).
    pub answered: bool,
    /// HTTP: the status of the answer.
    pub status: Option<u16>,
}

impl McpClient {
    /// Sends `message` (a JSON-RPC request, as edited) on the session with the
    /// session's next id, and waits for its answer (`--timeout`).
    pub async fn resend(&mut self, mut message: Value) -> anyhow::Result<Resent> {
        let method = message["method"]
            .as_str()
            .context("the message has no \"method\": not a request")?
            .to_owned();
        let id = self.next_id;
        self.next_id += 1;
        message
            .as_object_mut()
            .context("the message is not a JSON object")?
            .insert("id".into(), json!(id));
        let bytes = serde_json::to_vec(&message)?;
        let timeout = self.options.timeout;
        let answer = match &self.link {
            Link::Stdio(_) => self.send_stdio(id, &bytes, timeout).await?,
            Link::Http(_) => {
                // 2026-07-28 basic/transports "Request Metadata": the headers mirror
                // the body, so the version is the edited `_meta`'s when it has one.
                let modern = match &self.spoken {
                    Spoken::Legacy { .. } => None,
                    Spoken::Modern { version } => Some(
                        message["params"]["_meta"][meta::PROTOCOL_VERSION]
                            .as_str()
                            .unwrap_or(version)
                            .to_owned(),
                    ),
                };
                self.send_http(id, &method, &message, bytes, modern.as_deref(), timeout)
                    .await?
            }
        };
        Ok(Resent {
            id,
            answered: answer.response.is_some(),
            status: answer.status.map(|s| s.as_u16()),
        })
    }
}
