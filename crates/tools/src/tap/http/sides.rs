//! The lanes one relayed connection is recorded on (the client's, and the target's
//! when `--rewrite-host` makes them differ), and where each direction is in its HTTP
//! messages, for the header and idle clocks.

use super::watch::Watch;
use crate::lock::Locked;
use crate::wire::event::{Dir, Lane, What};
use crate::wire::recorder::Recorder;

/// The lanes one connection is recorded on.
pub(crate) struct Sides<'a> {
    /// Where the events go.
    pub(super) recorder: &'a Recorder,
    /// The client's side (the only lane without `--rewrite-host`).
    pub(super) client: Lane,
    /// The target's side, when it differs (`--rewrite-host`).
    pub(super) target: Option<Lane>,
    /// Where each direction is in its HTTP messages, for the header and idle clocks.
    watch: std::sync::Mutex<Watch>,
    /// Woken when `watch` moves a clock.
    pub(super) changed: tokio::sync::Notify,
    /// `--intercept`: the messages of this connection that may be held; none: every
    /// byte passes as it comes.
    pub(super) holding: Option<super::hold::Holding>,
}

impl<'a> Sides<'a> {
    /// The lanes of one connection: the client's, and the target's when it differs.
    pub(crate) fn new(recorder: &'a Recorder, client: Lane, target: Option<Lane>) -> Sides<'a> {
        Sides {
            recorder,
            client,
            target,
            watch: std::sync::Mutex::new(Watch::new()),
            changed: tokio::sync::Notify::new(),
            holding: None,
        }
    }

    /// The connection's messages may be held (`--intercept`), bodies up to `max`
    /// bytes kept whole.
    pub(crate) fn holding(
        mut self,
        intercept: Option<std::sync::Arc<crate::tap::intercept::Interceptor>>,
        max: usize,
    ) -> Sides<'a> {
        self.holding = intercept.map(|i| super::hold::Holding::new(i, max));
        self
    }

    /// Bytes the client sent before the relay began (the proxy read the first head to
    /// learn the target): recorded, and counted by the header and idle clocks.
    pub(crate) fn client_sent(&self, bytes: &[u8]) {
        self.recorder.bytes(self.client, Dir::ToServer, bytes);
        self.watch().requested(bytes);
    }

    pub(super) fn watch(&self) -> std::sync::MutexGuard<'_, Watch> {
        self.watch.locked()
    }

    pub(super) fn close(&self, dir: Dir, why: &str) {
        for lane in std::iter::once(self.client).chain(self.target) {
            self.recorder.emit(lane, dir, What::Close(why.to_owned()));
        }
    }
}
