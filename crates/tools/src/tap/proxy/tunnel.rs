//! A host not decrypted: `CONNECT` answered `200` (RFC 9110 §9.3.6), then an opaque
//! tunnel — bytes copied both ways as they come, counted, not recorded, closed when
//! both sides have closed or nothing has moved for `--idle-timeout`.

use super::super::CHUNK;
use super::{Asked, Config, ESTABLISHED, answer, opened};
use crate::lock::Locked;
use crate::tap::connect;
use crate::wire::event::{Dir, What};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

/// A host not decrypted: `200`, then bytes copied both ways, counted, not recorded.
pub(super) async fn tunnel(asked: Asked, config: &Config) {
    let (target, mut client) = (asked.target(), asked.client);
    let (lane, peer, host, port) = (asked.lane, asked.peer, asked.host.as_str(), asked.port);
    let (head, rest) = (&asked.head, asked.rest);
    let recorder = &config.recorder;
    opened(
        recorder,
        lane,
        format!(
            "proxy: opaque tunnel, CONNECT {target} from {peer} (not decrypted: no --decrypt-host matches {host}); its bytes are counted, not recorded"
        ),
    );
    let mut upstream = match connect(host, port, config.connect_timeout).await {
        Ok(s) => s,
        Err(why) => {
            // The CONNECT as it came, then the proxy's answer to it.
            return answer(&mut client, lane, recorder, head, "502 Bad Gateway", &why).await;
        }
    };
    if client.write_all(ESTABLISHED).await.is_err() || upstream.write_all(&rest).await.is_err() {
        recorder.emit(
            lane,
            Dir::ToClient,
            What::Close("opaque tunnel: a side is gone".into()),
        );
        return;
    }
    let last = std::sync::Mutex::new(Instant::now());
    let (sent, received) = (AtomicU64::new(0), AtomicU64::new(0));
    let (cr, cw) = client.into_split();
    let (ur, uw) = upstream.into_split();
    let up = count(cr, uw, &last, &sent);
    let down = count(ur, cw, &last, &received);
    tokio::pin!(up, down);
    let (mut up_done, mut down_done) = (false, false);
    let mut why = "both sides closed".to_owned();
    while !(up_done && down_done) {
        let since = *last.locked();
        let clock = async {
            match since.checked_add(config.idle_timeout) {
                Some(at) => tokio::time::sleep_until(at.into()).await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            () = &mut up, if !up_done => up_done = true,
            () = &mut down, if !down_done => down_done = true,
            () = clock => {
                // Bytes may have moved the clock since it was set.
                let since = *last.locked();
                if since.elapsed() >= config.idle_timeout {
                    why = format!(
                        "no bytes either way for {} s (tap --idle-timeout): closed",
                        config.idle_timeout.as_secs_f64()
                    );
                    break;
                }
            }
        }
    }
    recorder.emit(
        lane,
        Dir::ToServer,
        What::Close(format!(
            "opaque tunnel to {target} ended ({why}): {} bytes client → {target}, {} bytes {target} → client",
            sent.load(Ordering::Relaxed),
            received.load(Ordering::Relaxed)
        )),
    );
}

/// Copies `from` to `to` until EOF or an error (the EOF passed on as a half close),
/// adding each write to `total` and stamping `last`.
async fn count(
    mut from: impl AsyncRead + Unpin,
    mut to: impl AsyncWrite + Unpin,
    last: &std::sync::Mutex<Instant>,
    total: &AtomicU64,
) {
    let mut buf = vec![0u8; CHUNK];
    loop {
        let n = match from.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        *last.locked() = Instant::now();
        if to.write_all(&buf[..n]).await.is_err() {
            break;
        }
        total.fetch_add(n as u64, Ordering::Relaxed);
    }
    let _ = to.shutdown().await;
}
