//! A sink moved off the wire's path: the recorder hands each event to a queue (a
//! clone: the bytes are shared, not copied) and a thread of the sink's own writes it,
//! so a read or a write on the wire waits for a lock and a push, never for the
//! transcript's formatting, its facts or the disk.
//!
//! The queue is bounded in bytes (`--record-buffer`). When the disk falls behind and
//! the queue is full, the default waits (the relay stalls until there is room: the
//! recording stays complete); with `--lossy-record` the event is dropped and counted,
//! and the sink is told where the gap is (a transcript writes a `dropped` fact line).
//! The thread writes what it took in one go and flushes when the queue is empty, so a
//! reader following the file (`tail -f`, `show --follow`) sees each event promptly.
//!
//! Every queue is registered, so the program's end can wait for all of them to be
//! written ([`drain_all`]): a clone of the recorder held by a thread still blocked on
//! a read must not cost the recording its last events.

use crate::event::{Event, What};
use crate::lock::Locked;
use crate::recorder::{Dropped, Sink};
use std::collections::VecDeque;
use std::sync::{Arc, Condvar, Mutex, Weak};
use std::thread::JoinHandle;

/// The queue's size by default, in bytes of events waiting: `--record-buffer`.
pub const DEFAULT_BUFFER: usize = 16 << 20;

/// What a queued event costs besides its bytes (its place in the queue, its lane
/// and time), so that a flood of empty events is bounded too.
const EVENT_COST: usize = 64;

/// How a full queue is met.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Policy {
    /// The most bytes of events waiting to be written (`--record-buffer`); one event
    /// larger than this is still taken when the queue is empty.
    pub max_bytes: usize,
    /// Drop and count instead of waiting (`--lossy-record`).
    pub lossy: bool,
}

impl Default for Policy {
    fn default() -> Policy {
        Policy {
            max_bytes: DEFAULT_BUFFER,
            lossy: false,
        }
    }
}

/// The recorder's end of one queue.
pub struct Behind {
    /// The queue, shared with the writing thread and the registry.
    queue: Arc<Queue>,
    /// The writing thread: joined when this end is dropped (the recorder gone).
    thread: Option<JoinHandle<()>>,
}

/// The queue between the recorder and the writing thread.
struct Queue {
    /// The events waiting, and the counts the waits are decided by.
    state: Mutex<State>,
    /// Wakes the writer: an event is waiting, or the queue closed.
    work: Condvar,
    /// Wakes whoever waits on the writer: room freed (a full queue's emitter), or
    /// everything so far written (a drain).
    progress: Condvar,
    /// The queue's bound and its lossy choice.
    policy: Policy,
    /// The sink's name, for the program's last words (`--record FILE`).
    name: String,
}

/// What the queue's lock guards.
#[derive(Default)]
struct State {
    /// Events taken, not yet handed to the sink.
    events: VecDeque<Event>,
    /// Their cost in bytes (each event's bytes plus [`EVENT_COST`]).
    bytes: usize,
    /// Events ever queued: a drain waits until `written` reaches it.
    queued: u64,
    /// Events the sink has taken and flushed.
    written: u64,
    /// Dropped so far, all told.
    dropped: Dropped,
    /// Dropped since the sink was last told, for its gap line.
    untold: Dropped,
    /// The recorder's end is gone: write what is left and end.
    closed: bool,
    /// The sink panicked and its thread ended: events are let go (the wire must
    /// never wait on a writer that is gone), and a drain does not wait.
    dead: bool,
    /// The writer sleeps on `work` until woken: an emitter wakes it (otherwise the
    /// writer looks on its own every [`POLL`]: no wake-up, no system call).
    writer_asleep: bool,
}

/// Every queue of the process, for [`drain_all`].
static QUEUES: Mutex<Vec<Weak<Queue>>> = Mutex::new(Vec::new());

/// What the queues already ended (their recorder gone) dropped, for [`drain_all`]'s
/// report.
static ENDED: Mutex<Vec<(String, Dropped)>> = Mutex::new(Vec::new());

/// The bytes an event holds (what bounds the queue).
fn cost(event: &Event) -> usize {
    EVENT_COST
        + match &event.what {
            What::Bytes(b) => b.len(),
            What::Intercept(i) => i.bytes.len(),
            What::Open(s) | What::Close(s) => s.len(),
            What::Tls(_) => 1024,
        }
}

impl Behind {
    /// Moves `sink` to a thread named `name` behind a queue with `policy`.
    pub fn start(name: &str, sink: Box<dyn Sink>, policy: Policy) -> std::io::Result<Behind> {
        let queue = Arc::new(Queue {
            state: Mutex::new(State::default()),
            work: Condvar::new(),
            progress: Condvar::new(),
            policy,
            name: name.to_owned(),
        });
        let theirs = queue.clone();
        let thread = std::thread::Builder::new()
            .name("mcp-raw-record".to_owned())
            .spawn(move || {
                let written = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    write_loop(&theirs, sink)
                }));
                if written.is_err() {
                    let mut s = theirs.state.locked();
                    s.dead = true;
                    s.events.clear();
                    theirs.progress.notify_all();
                }
            })?;
        let mut all = QUEUES.locked();
        all.retain(|q| q.strong_count() > 0);
        all.push(Arc::downgrade(&queue));
        Ok(Behind {
            queue,
            thread: Some(thread),
        })
    }

    /// Dropped so far (always zero unless lossy).
    pub fn lost(&self) -> Dropped {
        self.queue.state.locked().dropped
    }
}

impl Sink for Behind {
    fn event(&mut self, event: &Event) {
        let q = &self.queue;
        let cost = cost(event);
        let mut s = q.state.locked();
        if s.dead {
            return;
        }
        // One event larger than the whole bound still goes in, alone.
        while !s.events.is_empty() && s.bytes + cost > q.policy.max_bytes {
            if q.policy.lossy {
                s.dropped.events += 1;
                s.dropped.bytes += cost as u64 - EVENT_COST as u64;
                s.untold.events += 1;
                s.untold.bytes += cost as u64 - EVENT_COST as u64;
                return;
            }
            s = q.progress.wait(s).unwrap_or_else(|e| e.into_inner());
            if s.dead {
                return;
            }
        }
        s.events.push_back(event.clone());
        s.bytes += cost;
        s.queued += 1;
        // A writer that is looking every POLL needs no wake-up, unless the queue is
        // half full (then sooner is better than a stall).
        if s.writer_asleep || s.bytes > q.policy.max_bytes / 2 {
            s.writer_asleep = false;
            q.work.notify_one();
        }
    }
}

impl Drop for Behind {
    fn drop(&mut self) {
        self.queue.state.locked().closed = true;
        self.queue.work.notify_one();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
        let dropped = self.lost();
        if dropped != Dropped::default() {
            ENDED.locked().push((self.queue.name.clone(), dropped));
        }
    }
}

/// How often a busy writer looks at its queue: events that arrive meanwhile wait
/// at most this long (a reader following the file sees them that much later), and
/// the wire's threads never make a system call to wake the writer.
const POLL: std::time::Duration = std::time::Duration::from_millis(1);

/// Quiet looks after which the writer sleeps until woken (an idle program costs no
/// wake-ups; the next event then wakes it, once).
const QUIET_LOOKS: u32 = 50;

/// The writing thread: takes everything waiting, hands it to the sink, flushes when
/// nothing more waits, until the queue is closed and empty. While events keep
/// coming it looks every [`POLL`]; after [`QUIET_LOOKS`] looks with nothing new it
/// sleeps until an emitter wakes it.
fn write_loop(q: &Queue, mut sink: Box<dyn Sink>) {
    let mut batch = VecDeque::new();
    let mut quiet_looks = QUIET_LOOKS;
    loop {
        let (untold, closing) = {
            let mut s = q.state.locked();
            while s.events.is_empty() && !s.closed && s.untold == Dropped::default() {
                if quiet_looks >= QUIET_LOOKS {
                    s.writer_asleep = true;
                    s = q.work.wait(s).unwrap_or_else(|e| e.into_inner());
                    quiet_looks = 0;
                } else {
                    s = q
                        .work
                        .wait_timeout(s, POLL)
                        .map_or_else(|e| e.into_inner().0, |(s, _)| s);
                    quiet_looks += 1;
                }
            }
            s.writer_asleep = false;
            std::mem::swap(&mut batch, &mut s.events);
            s.bytes = 0;
            let untold = std::mem::take(&mut s.untold);
            // Room for the emitters now, before the writing.
            q.progress.notify_all();
            (untold, s.closed)
        };
        quiet_looks = 0;
        let n = batch.len() as u64;
        let wrote = n > 0 || untold != Dropped::default();
        if untold != Dropped::default() {
            sink.dropped(untold);
        }
        for event in batch.drain(..) {
            sink.event(&event);
        }
        // Flushed only when the emitters are quiet: a busy queue's writes are
        // batched, an idle one's reach the file at once.
        let quiet = q.state.locked().events.is_empty();
        if quiet && wrote {
            sink.flush();
        }
        let mut s = q.state.locked();
        s.written += n;
        if quiet {
            q.progress.notify_all();
        }
        if closing && s.events.is_empty() {
            return;
        }
    }
}

/// Waits until every queue has written what it held when called (the program's
/// end: each recording complete on disk), and returns what each lossy queue dropped,
/// by sink name (the queues already ended included, each said once).
pub fn drain_all() -> Vec<(String, Dropped)> {
    let queues: Vec<Arc<Queue>> = QUEUES.locked().iter().filter_map(Weak::upgrade).collect();
    let mut lost = std::mem::take(&mut *ENDED.locked());
    for q in queues {
        let mut s = q.state.locked();
        let target = s.queued;
        q.work.notify_one();
        while s.written < target && !s.dead {
            s = q.progress.wait(s).unwrap_or_else(|e| e.into_inner());
        }
        if s.dropped != Dropped::default() {
            lost.push((q.name.clone(), s.dropped));
        }
    }
    lost
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::{Dir, Lane, LaneKind};
    use std::sync::mpsc::{Receiver, Sender, channel};

    fn event(n: u8, len: usize) -> Event {
        Event {
            t: std::time::Duration::from_millis(u64::from(n)),
            lane: Lane {
                id: 0,
                kind: LaneKind::Stdio,
            },
            dir: Dir::ToServer,
            what: What::Bytes(vec![n; len].into()),
        }
    }

    /// A sink that waits for a go per event, and says what it saw.
    struct Slow {
        go: Receiver<()>,
        seen: Sender<String>,
    }

    impl Sink for Slow {
        fn event(&mut self, event: &Event) {
            let _ = self.go.recv();
            if let What::Bytes(b) = &event.what {
                let _ = self.seen.send(format!("event {}", b[0]));
            }
        }
        fn dropped(&mut self, d: Dropped) {
            let _ = self.seen.send(format!("dropped {} {}", d.events, d.bytes));
        }
        fn flush(&mut self) {
            let _ = self.seen.send("flush".to_owned());
        }
    }

    fn slow() -> (Box<dyn Sink>, Sender<()>, Receiver<String>) {
        let (go_tx, go) = channel();
        let (seen, seen_rx) = channel();
        (Box::new(Slow { go, seen }), go_tx, seen_rx)
    }

    #[test]
    fn a_lossy_queue_drops_and_counts_and_tells_the_sink_where() {
        let (sink, go, seen) = slow();
        let policy = Policy {
            max_bytes: 2 * (EVENT_COST + 10),
            lossy: true,
        };
        let mut behind = Behind::start("test", sink, policy).unwrap();
        // The writer takes event 1 and waits for its go; 2 and 3 fill the queue; 4
        // and 5 are dropped, at once (the emitter never waits).
        behind.event(&event(1, 10));
        while behind.queue.state.locked().queued != 1
            || !behind.queue.state.locked().events.is_empty()
        {
            std::thread::yield_now();
        }
        for n in 2..=5 {
            behind.event(&event(n, 10));
        }
        assert_eq!(
            behind.lost(),
            Dropped {
                events: 2,
                bytes: 20
            }
        );
        for _ in 0..3 {
            go.send(()).unwrap();
        }
        drop(behind);
        let said: Vec<String> = seen.iter().collect();
        assert_eq!(
            said,
            ["event 1", "dropped 2 20", "event 2", "event 3", "flush"]
        );
    }

    #[test]
    fn a_full_queue_makes_the_emitter_wait_and_loses_nothing() {
        let (sink, go, seen) = slow();
        let policy = Policy {
            max_bytes: EVENT_COST + 10,
            lossy: false,
        };
        let mut behind = Behind::start("test", sink, policy).unwrap();
        let emitter = std::thread::spawn(move || {
            for n in 1..=4 {
                behind.event(&event(n, 10));
            }
            behind
        });
        for _ in 0..4 {
            go.send(()).unwrap();
        }
        let behind = emitter.join().unwrap();
        assert_eq!(behind.lost(), Dropped::default());
        drop(behind);
        let events: Vec<String> = seen.iter().filter(|s| s.starts_with("event")).collect();
        assert_eq!(events, ["event 1", "event 2", "event 3", "event 4"]);
    }

    /// A sink that panics at its second event.
    struct Panics(u8);

    impl Sink for Panics {
        fn event(&mut self, _: &Event) {
            self.0 += 1;
            assert!(self.0 < 2, "the sink gives up");
        }
    }

    #[test]
    fn a_sink_that_panics_never_makes_the_wire_wait() {
        let policy = Policy {
            max_bytes: EVENT_COST + 10,
            lossy: false,
        };
        let mut behind = Behind::start("panics-test", Box::new(Panics(0)), policy).unwrap();
        // Far more than the queue holds: once the sink is gone, they are let go.
        for n in 0..100 {
            behind.event(&event(n, 10));
        }
        drop(behind);
    }

    #[test]
    fn drain_all_waits_for_the_writer() {
        let (sink, go, seen) = slow();
        let mut behind = Behind::start("drain-test", sink, Policy::default()).unwrap();
        behind.event(&event(7, 3));
        let drained = std::thread::spawn(drain_all);
        go.send(()).unwrap();
        // (The other tests' queues, running beside this one, are drained too.)
        let lost = drained.join().unwrap();
        assert!(
            lost.iter().all(|(name, _)| name != "drain-test"),
            "{lost:?}"
        );
        assert_eq!(seen.recv().unwrap(), "event 7");
        assert_eq!(seen.recv().unwrap(), "flush");
        drop(behind);
    }
}
