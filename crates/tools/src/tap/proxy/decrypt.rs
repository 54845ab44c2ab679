//! A host to decrypt: the proxy opens its own TLS to the real host (the client's
//! connector: system roots and `--cacert`), answers the `CONNECT` with `200` (RFC 9110
//! §9.3.6), plays the server's part of TLS with a leaf the local CA signs for the host,
//! and relays the plaintext between the two, recorded once on the connection's lane.

use super::{Asked, Config, ESTABLISHED, answer, opened};
use crate::tap::connect;
use crate::tap::http::{Clocks, Sides, pipe};
use crate::wire::event::{Dir, What};
use crate::wire::tls::TlsFacts;
use std::time::Instant;
use tokio::io::AsyncWriteExt;

/// A host to decrypt: the real host's TLS first (so a failure there is the client's
/// 502, RFC 9110 §15.6.3), then `200`, then the client's TLS with a leaf for `host`,
/// then the plaintext relayed, recorded once on the connection's lane.
pub(super) async fn decrypted(asked: Asked, config: &Config) {
    let (target, mut client) = (asked.target(), asked.client);
    let (lane, peer, host, port) = (asked.lane, asked.peer, asked.host.as_str(), asked.port);
    let head = &asked.head;
    let recorder = &config.recorder;
    opened(
        recorder,
        lane,
        format!(
            "proxy, client side: CONNECT {target} from {peer}; TLS terminated here with a leaf for {host} signed by the mcp-raw CA (decrypted)"
        ),
    );
    let started = Instant::now();
    let upstream = async {
        let tcp = connect(host, port, config.connect_timeout).await?;
        let local = tcp.local_addr().map(|a| a.to_string()).unwrap_or_default();
        let tls = tokio::time::timeout(
            config.connect_timeout,
            config.tls.connect(tcp, host, &target, started),
        )
        .await
        .map_err(|_| {
            format!(
                "the TLS handshake with {target} took longer than {:?} (--connect-timeout)",
                config.connect_timeout
            )
        })?
        .map_err(|e| format!("{e:#}"))?;
        Ok::<_, String>((tls, local))
    }
    .await;
    let ((upstream, facts), local) = match upstream {
        Ok(u) => u,
        Err(why) => {
            // The CONNECT as it came, then the proxy's answer to it.
            return answer(&mut client, lane, recorder, head, "502 Bad Gateway", &why).await;
        }
    };
    let leaf = match config.ca.server_config(host) {
        Ok(c) => c,
        Err(why) => {
            return answer(
                &mut client,
                lane,
                recorder,
                head,
                "502 Bad Gateway",
                &format!("{why:#}"),
            )
            .await;
        }
    };
    if client.write_all(ESTABLISHED).await.is_err() {
        recorder.emit(
            lane,
            Dir::ToClient,
            What::Close("the client is gone".into()),
        );
        return;
    }
    let accepted = Instant::now();
    // The handshake is what comes before the first request head: its clock.
    let handshake = tokio::time::timeout(
        config.header_timeout,
        tokio_rustls::TlsAcceptor::from(leaf).accept(client),
    )
    .await;
    let client = match handshake {
        Ok(Ok(s)) => s,
        Ok(Err(e)) => {
            let why = format!(
                "the client's TLS handshake failed: {e}; a client that does not trust the mcp-raw CA refuses the proxy's leaf for {host} (`mcp-raw ca` prints how to trust it)"
            );
            recorder.emit(lane, Dir::ToServer, What::Close(why));
            return;
        }
        Err(_) => {
            let why = format!(
                "the client's TLS handshake took longer than {} s (tap --header-timeout): closed",
                config.header_timeout.as_secs_f64()
            );
            recorder.emit(lane, Dir::ToServer, What::Close(why));
            return;
        }
    };
    // One lane: the plaintext is the same on both sides (nothing is rewritten); the
    // two handshakes' facts come first, the client's side, then the target's.
    recorder.emit(
        lane,
        Dir::ToClient,
        What::Tls(Box::new(server_facts(client.get_ref().1, host, accepted))),
    );
    opened(
        recorder,
        lane,
        format!(
            "proxy, target side: connected {local} → {target} over TLS; the plaintext below is what crossed both"
        ),
    );
    recorder.emit(lane, Dir::ToClient, What::Tls(Box::new(facts)));
    let sides =
        Sides::new(recorder, lane, None).holding(config.intercept.clone(), config.intercept_max);
    let clocks = Clocks {
        header_timeout: config.header_timeout,
        idle_timeout: config.idle_timeout,
    };
    pipe(
        tokio::io::split(client),
        tokio::io::split(upstream),
        &sides,
        None,
        &format!("https://{target}"),
        clocks,
    )
    .await;
}

/// The facts of the client's side of a decrypted connection: what it negotiated with
/// the proxy, which accepted it (no peer chain: a client sends none; the leaf is the
/// proxy's own), through the one reading of a handshake both sides share.
fn server_facts(conn: &rustls::ServerConnection, host: &str, started: Instant) -> TlsFacts {
    let mut facts = crate::transport::tls::settled(conn, started.elapsed().as_micros() as u64);
    facts.sni = conn.server_name().map(str::to_owned);
    facts.server_name = host.to_owned();
    facts.accepted = true;
    facts
}
