//! Resumable SSE streams of the legacy era (2025-11-25 `basic/transports`
//! "Resumability and Redelivery"). A running request of a session writes its events
//! into a [`StreamLog`] instead of straight into the HTTP body; each event gets an
//! id `<stream>-<n>`. The POST that started the request reads the log; if that
//! connection ends (the client went away, or the server closed it on purpose after a
//! `retry:` hint), a `GET` with `Last-Event-ID` picks the stream up after that event.
//! So in this era a dropped connection does not cancel the request; only
//! `notifications/cancelled` does.

use crate::lock::Locked;
use crate::protocol::context::{Out, Pending};
use crate::wire::sse::encode;
use bytes::Bytes;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};
use tokio::sync::oneshot;

enum Entry {
    Event(Bytes),
    /// The server ends the current connection here (the client reconnects after
    /// `retry` ms); a reader that resumed later passes over it.
    Pause,
}

#[derive(Default)]
struct Inner {
    /// Entry `i` of the stream is `entries[i - dropped]`.
    entries: VecDeque<Entry>,
    /// How many entries were evicted from the front (beyond `--resume-events`).
    dropped: usize,
    /// The response has been written: no entry will follow.
    done: bool,
    /// The readers waiting for the next entry, one waker each, keyed by reader; a
    /// reader that goes away takes its waker with it ([`Reader`]'s `Drop`).
    wakers: Vec<(u64, Waker)>,
    /// The key of the next reader.
    next_reader: u64,
}

/// The events of one request's stream.
pub struct StreamLog {
    /// The `<stream>` part of its event ids.
    id: u64,
    /// How many entries it keeps (`--resume-events`).
    keep: usize,
    inner: Mutex<Inner>,
}

impl StreamLog {
    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.locked()
    }

    /// The id of entry `n`: `<stream>-<n>`.
    fn event_id(&self, n: usize) -> String {
        format!("{}-{n}", self.id)
    }

    fn push(&self, make: impl FnOnce(String) -> Entry) {
        let mut inner = self.lock();
        let n = inner.dropped + inner.entries.len();
        let entry = make(self.event_id(n));
        inner.entries.push_back(entry);
        if inner.entries.len() > self.keep {
            inner.entries.pop_front();
            inner.dropped += 1;
        }
        for (_, w) in inner.wakers.drain(..) {
            w.wake();
        }
    }

    /// A new reader from entry `next` on.
    fn reader(self: &Arc<Self>, next: usize, resumed: bool) -> Reader {
        let key = {
            let mut inner = self.lock();
            inner.next_reader += 1;
            inner.next_reader
        };
        Reader {
            log: self.clone(),
            key,
            next,
            resumed,
        }
    }

    fn event(&self, data: &[u8], retry: Option<u64>) {
        self.push(|id| Entry::Event(Bytes::from(encode(Some(&id), retry, data))));
    }

    fn finish(&self) {
        let mut inner = self.lock();
        inner.done = true;
        for (_, w) in inner.wakers.drain(..) {
            w.wake();
        }
    }
}

/// The streams of one session.
pub struct Streams {
    /// The id of the newest stream.
    next: u64,
    /// Its running streams, and the newest finished ones.
    logs: Vec<Arc<StreamLog>>,
    /// Events kept per stream (`--resume-events`).
    keep_events: usize,
    /// Finished streams kept (`--resume-streams`).
    keep_finished: usize,
}

impl Streams {
    /// A log that keeps `keep_events` events per stream and `keep_finished`
    /// finished streams.
    pub fn new(keep_events: usize, keep_finished: usize) -> Self {
        Streams {
            next: 0,
            logs: Vec::new(),
            keep_events: keep_events.max(1),
            keep_finished,
        }
    }

    /// Starts a stream for `pending` and the task that feeds it; returns the reader
    /// for the POST that asked. `cancel` stops the request (no response follows).
    pub fn start(&mut self, pending: Pending, cancel: oneshot::Receiver<()>) -> Reader {
        self.next += 1;
        let log = Arc::new(StreamLog {
            id: self.next,
            keep: self.keep_events,
            inner: Mutex::default(),
        });
        // Forget the oldest finished streams beyond the few kept for late readers.
        let finished = self.logs.iter().filter(|l| l.lock().done).count();
        let mut extra = finished.saturating_sub(self.keep_finished);
        self.logs.retain(|l| {
            let drop = extra > 0 && l.lock().done;
            extra -= usize::from(drop);
            !drop
        });
        self.logs.push(log.clone());
        // The priming event: an id and no data, so the client has an id to resume
        // from before anything else arrives ("Sending Messages" rule 6).
        log.event(b"", None);
        tokio::spawn(feed(pending, log.clone(), cancel));
        log.reader(0, false)
    }

    /// A reader for `GET` with `Last-Event-ID: <stream>-<n>`: from entry `n + 1` on.
    /// `None` for an id this server never sent: malformed, an unknown stream, or an
    /// `n` so large that `n + 1` does not exist (`1-18446744073709551615`).
    pub fn resume(&self, last_event_id: &str) -> Option<Reader> {
        let (stream, n) = last_event_id.split_once('-')?;
        let (stream, n): (u64, usize) = (stream.parse().ok()?, n.parse().ok()?);
        let next = n.checked_add(1)?;
        let log = self.logs.iter().find(|l| l.id == stream)?;
        Some(log.reader(next, true))
    }

    /// How many readers of this session's streams wait for an event right now.
    pub fn waiting_readers(&self) -> usize {
        self.logs.iter().map(|l| l.lock().wakers.len()).sum()
    }
}

/// Runs the request, writing what it sends into the log, then its response.
async fn feed(pending: Pending, log: Arc<StreamLog>, cancel: oneshot::Receiver<()>) {
    let Pending {
        mut outbox,
        response,
        ..
    } = pending;
    tokio::pin!(response);
    tokio::pin!(cancel);
    let write = |out: Out| match out {
        Out::Message(m) => log.event(&serde_json::to_vec(&m).unwrap_or_default(), None),
        Out::Pause { retry_ms } => {
            log.event(b"", Some(retry_ms));
            log.push(|_| Entry::Pause);
        }
    };
    let response = loop {
        tokio::select! {
            biased;
            // `notifications/cancelled` sent the signal, or the session ended and
            // dropped the sender: either way the request stops here, and dropping
            // `response` frees everything it held (a question waiting for the
            // client included).
            _ = &mut cancel => {
                log.finish();
                return;
            }
            Some(out) = outbox.recv() => write(out),
            r = &mut response => break r,
        }
    };
    while let Ok(out) = outbox.try_recv() {
        write(out);
    }
    log.event(&response.to_bytes(), None);
    log.finish();
}

/// Reads a stream's events from some point on, as an HTTP body.
pub struct Reader {
    /// The stream read.
    log: Arc<StreamLog>,
    /// This reader's key among the log's waiting wakers.
    key: u64,
    /// The entry to send next.
    next: usize,
    /// A reader that resumed passes over pauses meant for earlier connections.
    resumed: bool,
}

impl Reader {
    /// The next event's bytes, once there; `None` when the stream is over.
    pub fn poll_event(&mut self, cx: &mut Context<'_>) -> Poll<Option<Bytes>> {
        let mut inner = self.log.lock();
        loop {
            let Some(i) = self.next.checked_sub(inner.dropped) else {
                // Evicted before this reader got to them: continue from the oldest kept.
                self.next = inner.dropped;
                continue;
            };
            match inner.entries.get(i) {
                Some(Entry::Event(bytes)) => {
                    self.next += 1;
                    return Poll::Ready(Some(bytes.clone()));
                }
                Some(Entry::Pause) if self.resumed => self.next += 1,
                Some(Entry::Pause) => return Poll::Ready(None),
                None if inner.done => return Poll::Ready(None),
                None => {
                    // One waker per reader, the newest: a reader polled again
                    // replaces its old one rather than adding another.
                    let key = self.key;
                    match inner.wakers.iter_mut().find(|(k, _)| *k == key) {
                        Some((_, w)) => w.clone_from(cx.waker()),
                        None => inner.wakers.push((key, cx.waker().clone())),
                    }
                    return Poll::Pending;
                }
            }
        }
    }
}

impl Drop for Reader {
    /// The client hung up: its waker leaves with it.
    fn drop(&mut self) {
        let key = self.key;
        self.log.lock().wakers.retain(|(k, _)| *k != key);
    }
}
