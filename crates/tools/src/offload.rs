//! A sink that watches the wire from a thread of its own: each event is handed over a
//! bounded queue (a clone: the bytes are shared, not copied), so what watches (the
//! metrics, the spans) never makes a read or a write wait. When the watcher falls
//! behind and the queue is full, the event is dropped and counted, never waited for.

use crate::wire::event::Event;
use crate::wire::recorder::Sink;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, TrySendError, sync_channel};
use std::thread::JoinHandle;

/// Events a watcher's queue holds by default before the wire's events are dropped.
pub const QUEUE: usize = 65_536;

/// The recorder's end: hands each event to the watcher's thread.
pub struct Offload {
    /// The queue's sending end; dropping it ends the watcher once it drained.
    tx: SyncSender<Event>,
    /// Events dropped because the queue was full (shared with [`Watching`]).
    dropped: Arc<AtomicU64>,
}

impl Sink for Offload {
    fn event(&mut self, event: &Event) {
        match self.tx.try_send(event.clone()) {
            Ok(()) => {}
            Err(TrySendError::Full(_)) | Err(TrySendError::Disconnected(_)) => {
                self.dropped.fetch_add(1, Ordering::Relaxed);
            }
        }
    }
}

/// The watcher's side, kept by whoever started it: how many events were dropped,
/// and its thread, to wait for at the end (after the recorder, and so the
/// [`Offload`], is gone).
pub struct Watching {
    /// Events dropped so far.
    dropped: Arc<AtomicU64>,
    /// The watcher's thread: joined by [`Watching::finish`].
    thread: Option<JoinHandle<()>>,
}

impl Watching {
    /// Events dropped because the watcher was behind.
    pub fn dropped(&self) -> u64 {
        self.dropped.load(Ordering::Relaxed)
    }

    /// A handle on the dropped count, for a watcher's own reports.
    pub fn dropped_counter(&self) -> Arc<AtomicU64> {
        self.dropped.clone()
    }

    /// Waits for the watcher to drain its queue and end: call it once every
    /// recorder holding the [`Offload`] is dropped, or it waits for ever.
    pub fn finish(mut self) {
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Starts a watcher on a thread named `name`: `watch` gets the queue and runs until
/// it ends (every [`Offload`] dropped). `capacity` events are held at most.
pub fn start(
    name: &str,
    capacity: usize,
    watch: impl FnOnce(Receiver<Event>) + Send + 'static,
) -> std::io::Result<(Offload, Watching)> {
    let (tx, rx) = sync_channel(capacity.max(1));
    let dropped = Arc::new(AtomicU64::new(0));
    let thread = std::thread::Builder::new()
        .name(name.to_owned())
        .spawn(move || watch(rx))?;
    Ok((
        Offload {
            tx,
            dropped: dropped.clone(),
        },
        Watching {
            dropped,
            thread: Some(thread),
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::event::{Dir, Lane, LaneKind, What};
    use std::sync::mpsc::channel;

    fn event(n: u8) -> Event {
        Event {
            t: std::time::Duration::from_millis(u64::from(n)),
            lane: Lane {
                id: 0,
                kind: LaneKind::Stdio,
            },
            dir: Dir::ToServer,
            what: What::Bytes(vec![n].into()),
        }
    }

    #[test]
    fn a_watcher_behind_drops_and_counts_and_the_sender_never_waits() {
        let (go_tx, go_rx) = channel::<()>();
        let (seen_tx, seen_rx) = channel::<u8>();
        let (mut sink, watching) = start("test-watch", 2, move |rx| {
            // Held until the sender has sent all five: two fit, three are dropped.
            let _ = go_rx.recv();
            for e in rx {
                if let What::Bytes(b) = e.what {
                    let _ = seen_tx.send(b[0]);
                }
            }
        })
        .unwrap();
        for n in 1..=5 {
            sink.event(&event(n));
        }
        assert_eq!(watching.dropped(), 3);
        go_tx.send(()).unwrap();
        drop(sink);
        watching.finish();
        assert_eq!(seen_rx.iter().collect::<Vec<_>>(), [1, 2]);
    }
}
