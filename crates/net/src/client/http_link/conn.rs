//! The link's connections: opened lazily, reused while they live, reopened when the
//! server closed them; each a lane of its own on the recorder. Over `https://` the
//! TLS handshake comes first ([`crate::client::tls`]) and is recorded as its facts,
//! then the plaintext as it crosses, as over `http://`. A second connection carries
//! the client's answers to requests that arrive while a response still streams on
//! the first (one exchange at a time on an HTTP/1.1 connection: RFC 9112 §9.3.2
//! pipelining is not used).

use super::HttpLink;
use crate::wire::event::{Dir, LaneKind, What};
use crate::wire::recorded::Recorded;
use crate::wire::tls::TlsFacts;
use anyhow::Context;
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::Method;
use hyper::client::conn::http1::{Connection, SendRequest};
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncRead, AsyncWrite};

impl HttpLink {
    /// The connection, ready for the next request: reused while it lives, reopened
    /// when the server has closed it.
    pub(super) async fn ready_sender(&mut self) -> anyhow::Result<&mut SendRequest<Full<Bytes>>> {
        if let Some(sender) = &mut self.sender
            && sender.ready().await.is_ok()
        {
            return Ok(self.sender.as_mut().expect("checked above"));
        }
        let sender = self.connect().await?;
        Ok(self.sender.insert(sender))
    }

    /// POSTs the client's answer on the second connection; the server acknowledges it
    /// with `202 Accepted` (read to its end, so the connection can carry the next).
    pub(super) async fn post_aside(
        &mut self,
        headers: &[(String, String)],
        body: Vec<u8>,
    ) -> anyhow::Result<()> {
        let ready = match &mut self.aside {
            Some(aside) => aside.ready().await.is_ok(),
            None => false,
        };
        if !ready {
            let aside = self.connect().await?;
            self.aside = Some(aside);
        }
        let request = self.request(&Method::POST, headers, body)?;
        let timeout = self.timeout;
        let aside = self.aside.as_mut().context("the answer connection")?;
        let response = tokio::time::timeout(timeout, aside.send_request(request))
            .await
            .with_context(|| format!("no answer to our response within {timeout:?}"))??;
        let _ = tokio::time::timeout(timeout, response.into_body().collect()).await;
        Ok(())
    }

    /// A new recorded connection: its own lane. Over `https://` the TLS handshake
    /// comes first, then its facts are recorded, then the plaintext as it crosses.
    async fn connect(&mut self) -> anyhow::Result<SendRequest<Full<Bytes>>> {
        let started = std::time::Instant::now();
        let stream = tokio::time::timeout(
            self.timeout,
            tokio::net::TcpStream::connect(&self.authority),
        )
        .await
        .context("connecting timed out")?
        .with_context(|| format!("cannot connect to {}", self.authority))?;
        stream.set_nodelay(true)?;
        if self.https {
            let (stream, facts) = tokio::time::timeout(
                self.timeout,
                self.tls
                    .connect(stream, &self.host, &self.authority, started),
            )
            .await
            .with_context(|| {
                format!(
                    "the TLS handshake with {} did not finish within {:?} (--timeout)",
                    self.authority, self.timeout
                )
            })??;
            let note = format!("connected to {} (TLS)", self.authority);
            let (sender, connection) = self.handshake(stream, note, Some(facts)).await?;
            let failure = self.tls_failure.clone();
            let authority = self.authority.clone();
            tokio::spawn(async move {
                if let Err(e) = connection.await
                    && let Some(said) = crate::client::tls::after_handshake(&e, &authority)
                    && let Ok(mut slot) = failure.lock()
                {
                    *slot = Some(said);
                }
            });
            return Ok(sender);
        }
        let note = format!("connected to {}", self.authority);
        let (sender, connection) = self.handshake(stream, note, None).await?;
        tokio::spawn(connection);
        Ok(sender)
    }

    /// HTTP/1.1 over `stream`, recorded on a lane of its own (its first words
    /// `note`; for TLS, the handshake's facts next), as the bytes cross.
    async fn handshake<S>(
        &self,
        stream: S,
        note: String,
        facts: Option<TlsFacts>,
    ) -> anyhow::Result<(
        SendRequest<Full<Bytes>>,
        Connection<TokioIo<Recorded<S>>, Full<Bytes>>,
    )>
    where
        S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
    {
        let lane = self.recorder.lane(LaneKind::Http);
        let stream = Recorded::new(
            stream,
            self.recorder.clone(),
            lane,
            Dir::ToClient,
            Some(note),
        );
        if let Some(facts) = facts {
            self.recorder
                .emit(lane, Dir::ToClient, What::Tls(Box::new(facts)));
        }
        Ok(hyper::client::conn::http1::handshake(TokioIo::new(stream)).await?)
    }
}
