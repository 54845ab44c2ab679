//! The stdio path: one JSON-RPC message per line on the child's stdin, answers read
//! from its stdout line by line. A request the server sends while the client waits is
//! answered at once; anything else that is not the awaited response was shown by the
//! link as it came and is passed over (MCP 2025-11-25 `basic/transports` "stdio":
//! newline-delimited messages; 2026-07-28 `basic/transports/stdio`, where a
//! `subscriptions/listen` stream is the later lines of stdout).

use super::{Answer, Link, McpClient};
use crate::client::answers::Answers;
use crate::client::stdio_link::Output;
use crate::jsonrpc::{self, Message, Parsed, RequestId, Response};
use anyhow::bail;
use serde_json::Value;
use std::time::Duration;

impl McpClient {
    /// stdio: sends one request's bytes and waits up to `timeout` for its response.
    pub(super) async fn send_stdio(
        &mut self,
        id: i64,
        bytes: &[u8],
        timeout: Duration,
    ) -> anyhow::Result<Answer> {
        let Link::Stdio(stdio) = &mut self.link else {
            bail!("not a stdio link")
        };
        stdio.send(bytes).await?;
        let response = stdio_answer(&mut self.link, &self.options.answers, &[id], timeout)
            .await?
            .map(|(_, r)| r);
        Ok(Answer {
            id,
            response,
            status: None,
        })
    }

    /// stdio's [`listen`](McpClient::listen): a modern client sends
    /// `subscriptions/listen` (version `modern`) and reads the later lines; a legacy
    /// one reads stdout, which carries the notifications anyway.
    pub(super) async fn listen_stdio(
        &mut self,
        filter: Value,
        modern: Option<String>,
        stop: impl std::future::Future<Output = ()>,
    ) -> anyhow::Result<String> {
        tokio::pin!(stop);
        if let Some(version) = &modern {
            let (_, message) = self.build("subscriptions/listen", filter, Some(version))?;
            let bytes = serde_json::to_vec(&message)?;
            if let Link::Stdio(stdio) = &mut self.link {
                stdio.send(&bytes).await?;
            }
        }
        let Link::Stdio(stdio) = &mut self.link else {
            unreachable!("listen_stdio is called for a stdio link")
        };
        loop {
            tokio::select! {
                () = &mut stop => return Ok("interrupted".into()),
                line = stdio.receive(Duration::MAX) => match line {
                    Ok(Some(Output::Line(line))) => {
                        if let Ok(Parsed::One(Message::Request(r))) = jsonrpc::parse(&line) {
                            stdio.send(&self.options.answers.respond(&r).to_bytes()).await?;
                        }
                    }
                    Ok(Some(_)) => {}
                    Ok(None) | Err(_) => return Ok("the server closed its stdout".into()),
                },
            }
        }
    }
}

/// stdio: the next response to one of `ids`, read within `timeout`. Lines that
/// answer something else, notifications and lines that are not JSON-RPC were shown
/// by the link as they came and are passed over here.
pub(super) async fn stdio_answer(
    link: &mut Link,
    answers: &Answers,
    ids: &[i64],
    timeout: Duration,
) -> anyhow::Result<Option<(i64, Response)>> {
    let Link::Stdio(stdio) = link else {
        bail!("not a stdio link")
    };
    let deadline = tokio::time::Instant::now() + timeout;
    loop {
        let left = deadline.saturating_duration_since(tokio::time::Instant::now());
        let Some(out) = stdio.receive(left).await? else {
            return Ok(None);
        };
        let Output::Line(line) = out else {
            continue;
        };
        match jsonrpc::parse(&line) {
            // A request from the server is answered at once, whatever we wait for.
            Ok(Parsed::One(Message::Request(request))) => {
                stdio.send(&answers.respond(&request).to_bytes()).await?;
            }
            Ok(Parsed::One(Message::Response(response))) => {
                if let Some(id) = ids
                    .iter()
                    .find(|id| response.id == Some(RequestId::from(**id)))
                {
                    return Ok(Some((*id, response)));
                }
            }
            _ => {}
        }
    }
}
