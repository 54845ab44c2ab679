//! What the live page streams: every event of the recording, as the rows it brings
//! ([`wire::rows`](crate::wire::rows)), kept in order in memory. The recorder hands
//! each event to [`FeedSink`] (one more sink beside the text view and the
//! transcript): it appends, wakes the streams, and never waits for a page. Each page
//! reads the log at its own pace from its own position ([`Events`]), so a slow or
//! absent browser costs the relay nothing and misses nothing: a page that reconnects
//! with `Last-Event-ID: N` goes on from event `N + 1`. The log is bounded
//! (`--ui-keep`, [`DEFAULT_KEEP`]): past it the oldest events are let go, and a page
//! that asks for one of them is told (a `gap` event) and goes on from the oldest kept.

use crate::check::Checker;
use crate::lock::Locked;
use crate::wire::event::Event;
use crate::wire::recorder::Sink;
use crate::wire::rows::Rows;
use crate::wire::transcript::Header;
use bytes::Bytes;
use hyper::body::Frame;
use serde_json::json;
use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::sync::watch;

/// How often an idle stream sends an SSE comment, so a page that went away without
/// closing is found (its socket refuses the write) and its connection freed.
pub const KEEP_ALIVE: Duration = Duration::from_secs(15);

/// How many events a feed keeps by default (`--ui-keep`): a day of a busy server's
/// messages at a few hundred bytes each, well under a gigabyte.
pub const DEFAULT_KEEP: usize = 200_000;

/// The most bytes of events one write carries when a page catches up: big enough
/// that 100,000 events arrive in a few hundred writes, small enough to keep a
/// page's first rows quick.
const BATCH_BYTES: usize = 256 * 1024;

/// The recording as the page sees it. Cheap to clone: every clone is the same log.
#[derive(Clone)]
pub struct Feed(Arc<Shared>);

struct Shared {
    /// The events kept: each one's SSE data (`{"n":…,"rows":[…]}`) and the event
    /// itself (what an export writes), in order.
    log: Mutex<Log>,
    /// How many events the recording has had (kept or let go): the streams wait for
    /// it to grow.
    grew: watch::Sender<usize>,
    /// The most events kept (`--ui-keep`).
    keep: usize,
    /// The largest message read whole (`--max-message-bytes`): for the rows, the
    /// findings, and an export's facts.
    max: usize,
    /// The recording's header (role, transport, when it began): the page's title,
    /// and the first line of an export.
    header: Header,
    /// The header as its line's JSON, as `/info` sends it.
    header_json: serde_json::Value,
    /// Set once no more events will come (a recording read from a file, not
    /// followed): the `end` event's data, with what only the whole recording tells
    /// `check` (requests never answered), `{"findings":[…]}`.
    end: std::sync::OnceLock<Bytes>,
}

/// One event kept.
struct Kept {
    /// Its SSE data, as every page's stream sends it.
    data: Bytes,
    /// The event, as the recorder gave it: what an export writes.
    event: Event,
    /// What rows it brought: what an export of some events adds to them.
    brought: Brought,
}

/// What rows an event brought, as a filtered export needs to know it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Brought {
    /// None: it is part of what a later event completes (a read that ended inside a
    /// line, a body not yet whole), or an opening, a close, a handshake.
    Nothing,
    /// Rows, none of them an HTTP head.
    Rows,
    /// An HTTP start line and headers: a message in its direction begins here.
    Head,
}

/// The events kept, and the position of the first of them.
#[derive(Default)]
struct Log {
    /// The kept events, oldest first.
    events: std::collections::VecDeque<Kept>,
    /// The position of `events[0]` in the recording (how many were let go).
    first: usize,
}

impl Log {
    /// How many events the recording has had.
    fn end(&self) -> usize {
        self.first + self.events.len()
    }
}

impl Feed {
    /// An empty feed for a recording described by `header` (the transcript's first
    /// line), keeping at most `keep` events, reading messages up to `max` bytes.
    pub fn new(header: Header, keep: usize, max: usize) -> Feed {
        Feed(Arc::new(Shared {
            log: Mutex::default(),
            grew: watch::Sender::new(0),
            keep: keep.max(1),
            max,
            header_json: header.to_json(),
            header,
            end: std::sync::OnceLock::new(),
        }))
    }

    /// The sink that fills this feed: hand it to the recorder.
    pub fn sink(&self) -> FeedSink {
        FeedSink {
            feed: self.clone(),
            rows: Rows::with_max(self.0.max),
            checker: Checker::with_max(self.0.max),
            n: 0,
        }
    }

    /// The recording's header, as its line's JSON.
    pub fn header(&self) -> &serde_json::Value {
        &self.0.header_json
    }

    /// The recording's header.
    pub fn head(&self) -> &Header {
        &self.0.header
    }

    /// The largest message read whole.
    pub fn max(&self) -> usize {
        self.0.max
    }

    /// The events kept, from the first kept: its position, and each event with
    /// what rows it brought.
    pub fn kept(&self) -> (usize, Vec<(Event, Brought)>) {
        let log = self.0.log.locked();
        let events = log
            .events
            .iter()
            .map(|k| (k.event.clone(), k.brought))
            .collect();
        (log.first, events)
    }

    /// How many events the recording has had (the next one's position).
    pub fn len(&self) -> usize {
        self.0.log.locked().end()
    }

    /// Does it hold none yet?
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Says no more events will come: the streams end once they have sent the last.
    pub fn finish(&self) {
        self.end_with(Bytes::from_static(b"{}"));
    }

    /// Finishes with `data` as the `end` event's (the first finish is the one kept).
    fn end_with(&self, data: Bytes) {
        let _ = self.0.end.set(data);
        self.0.grew.send_modify(|_| {});
    }

    /// A stream of the events after `after` (none: from the first).
    pub fn events(&self, after: Option<usize>) -> Events {
        Events {
            feed: self.clone(),
            next: after.map_or(0, |n| n + 1),
            waiting: None,
            greeted: false,
            ended: false,
        }
    }

    fn push(&self, kept: Kept) {
        let len = {
            let mut log = self.0.log.locked();
            log.events.push_back(kept);
            if log.events.len() > self.0.keep {
                log.events.pop_front();
                log.first += 1;
            }
            log.end()
        };
        // No receiver is fine: a page that connects later reads the log.
        self.0.grew.send_replace(len);
    }

    /// Events `from..`, SSE-framed, up to about [`BATCH_BYTES`]; and the next position.
    /// When `from` was let go, a `gap` event says which ones first.
    fn framed_from(&self, from: usize) -> (Vec<u8>, usize) {
        let log = self.0.log.locked();
        let mut out = Vec::new();
        let mut next = from;
        if next < log.first {
            let gap = json!({"from": next, "to": log.first, "keep": self.0.keep});
            out.extend_from_slice(b"event: gap\n");
            out.extend_from_slice(&crate::wire::sse::encode(
                None,
                None,
                gap.to_string().as_bytes(),
            ));
            next = log.first;
        }
        while next < log.end() && out.len() < BATCH_BYTES {
            out.extend_from_slice(&crate::wire::sse::encode(
                Some(&next.to_string()),
                None,
                &log.events[next - log.first].data,
            ));
            next += 1;
        }
        (out, next)
    }

    fn finished(&self) -> bool {
        self.0.end.get().is_some()
    }
}

/// The recorder's sink that fills a [`Feed`]: each event turned into its rows and
/// appended. It takes a lock for the append only; it never waits for a page.
pub struct FeedSink {
    /// The log it appends to.
    feed: Feed,
    /// Each lane's framing state, so bytes become heads, SSE events and messages.
    rows: Rows,
    /// `check`'s rules over the same events: each event's findings go with its rows.
    checker: Checker,
    /// The next event's position.
    n: usize,
}

impl Sink for FeedSink {
    fn event(&mut self, e: &Event) {
        let rows = self.rows.feed(self.n, e);
        let found = self.checker.feed(e);
        let brought = if rows.iter().any(|r| r["kind"] == "head") {
            Brought::Head
        } else if rows.is_empty() {
            Brought::Nothing
        } else {
            Brought::Rows
        };
        let data = if found.is_empty() {
            json!({"n": self.n, "rows": rows})
        } else {
            let found: Vec<_> = found.iter().map(super::findings::json).collect();
            json!({"n": self.n, "rows": rows, "findings": found})
        };
        self.feed.push(Kept {
            data: Bytes::from(data.to_string()),
            event: e.clone(),
            brought,
        });
        self.n += 1;
    }
}

impl FeedSink {
    /// The recording is whole (a file read to its end): what only its end tells
    /// `check` goes with the `end` event, and the streams end once they sent it all.
    pub fn finish(mut self) {
        let found: Vec<_> = self
            .checker
            .finish()
            .iter()
            .map(super::findings::json)
            .collect();
        self.feed
            .end_with(Bytes::from(json!({ "findings": found }).to_string()));
    }
}

/// One page's stream: an SSE body that sends the log from its position on, then
/// waits for it to grow (with a comment every [`KEEP_ALIVE`]).
pub struct Events {
    /// The log.
    feed: Feed,
    /// The next event to send.
    next: usize,
    /// The wait for the log to grow, or for the keep-alive to be due.
    waiting: Option<Pin<Box<dyn Future<Output = ()> + Send>>>,
    /// The stream's first bytes (`retry:`) are sent.
    greeted: bool,
    /// The `end` event is sent: the recording is whole and the page has all of it.
    ended: bool,
}

impl hyper::body::Body for Events {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        let this = self.get_mut();
        if !this.greeted {
            this.greeted = true;
            // The browser's reconnection delay after a drop: a second, then it sends
            // `Last-Event-ID` with the last id it saw (WHATWG HTML §9.2).
            return Poll::Ready(Some(Ok(Frame::data(Bytes::from_static(
                b"retry: 1000\n\n",
            )))));
        }
        loop {
            let (framed, next) = this.feed.framed_from(this.next);
            if !framed.is_empty() {
                this.next = next;
                this.waiting = None;
                return Poll::Ready(Some(Ok(Frame::data(Bytes::from(framed)))));
            }
            if this.feed.finished() {
                if this.ended {
                    return Poll::Ready(None);
                }
                // Said once, so the page stops (an EventSource would reconnect to a
                // stream that merely ended).
                this.ended = true;
                let data = this.feed.0.end.get().cloned().unwrap_or_default();
                return Poll::Ready(Some(Ok(Frame::data(Bytes::from(
                    [
                        &b"event: end\n"[..],
                        &crate::wire::sse::encode(None, None, &data),
                    ]
                    .concat(),
                )))));
            }
            let waiting = this.waiting.get_or_insert_with(|| {
                let mut grew = this.feed.0.grew.subscribe();
                let seen = this.next;
                Box::pin(async move {
                    let more = grew.wait_for(|len| *len > seen);
                    let _ = tokio::time::timeout(KEEP_ALIVE, more).await;
                })
            });
            match waiting.as_mut().poll(cx) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(()) => {
                    this.waiting = None;
                    if this.feed.len() <= this.next && !this.feed.finished() {
                        // Nothing new within KEEP_ALIVE: a comment, so a gone page is found.
                        return Poll::Ready(Some(Ok(Frame::data(Bytes::from_static(b":\n\n")))));
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::event::{Dir, Lane, LaneKind, What};
    use http_body_util::BodyExt;

    fn line(text: &str) -> Event {
        Event {
            t: Duration::from_millis(2),
            lane: Lane {
                id: 0,
                kind: LaneKind::Stdio,
            },
            dir: Dir::ToServer,
            what: What::Bytes(Bytes::copy_from_slice(text.as_bytes())),
        }
    }

    #[tokio::test(start_paused = true)]
    async fn a_stream_sends_the_log_then_what_comes_and_resumes_after_an_id() {
        let feed = Feed::new(Header::new("tap", "stdio"), DEFAULT_KEEP, 1 << 20);
        let mut sink = feed.sink();
        sink.event(&line("{\"jsonrpc\":\"2.0\",\"method\":\"a\"}\n"));
        let mut events = feed.events(None);
        let first = events.frame().await.unwrap().unwrap().into_data().unwrap();
        assert_eq!(&first[..], b"retry: 1000\n\n");
        let logged = events.frame().await.unwrap().unwrap().into_data().unwrap();
        // One SSE event: its id the event's position, its data one line of JSON.
        let text = std::str::from_utf8(&logged).unwrap();
        let data = text
            .strip_prefix("id: 0\ndata: ")
            .and_then(|rest| rest.strip_suffix("\n\n"))
            .unwrap_or_else(|| panic!("{text:?}"));
        let data: serde_json::Value = serde_json::from_str(data).unwrap();
        assert_eq!(data["n"], 0);
        let row = &data["rows"][0];
        assert_eq!(row["summary"], "notification a");
        assert_eq!(row["bytes"], "{\"jsonrpc\":\"2.0\",\"method\":\"a\"}");
        assert_eq!(row["lane"], "stdio");
        assert_eq!(row["dir"], "c2s");
        // Nothing new: the next frame waits, and after KEEP_ALIVE is a comment.
        let comment = events.frame().await.unwrap().unwrap().into_data().unwrap();
        assert_eq!(&comment[..], b":\n\n");
        // A new event wakes the stream.
        let waiter = tokio::spawn(async move {
            let data = events.frame().await.unwrap().unwrap().into_data().unwrap();
            (events, data)
        });
        tokio::task::yield_now().await;
        sink.event(&line("{\"jsonrpc\":\"2.0\",\"method\":\"b\"}\n"));
        let (_, data) = waiter.await.unwrap();
        assert!(data.starts_with(b"id: 1\ndata: {\"n\":1,"));
        // A page back with Last-Event-ID: 0 gets event 1 on, not 0 again.
        let mut again = feed.events(Some(0));
        again.frame().await.unwrap().unwrap();
        let data = again.frame().await.unwrap().unwrap().into_data().unwrap();
        assert!(data.starts_with(b"id: 1\n"), "{data:?}");
        // A finished feed says so once its streams have it all, then ends them.
        feed.finish();
        let end = again.frame().await.unwrap().unwrap().into_data().unwrap();
        assert_eq!(&end[..], b"event: end\ndata: {}\n\n");
        assert!(again.frame().await.is_none());
    }

    #[tokio::test]
    async fn a_finding_goes_with_its_event_and_the_end_says_what_only_it_tells() {
        let feed = Feed::new(Header::new("tap", "stdio"), DEFAULT_KEEP, 1 << 20);
        let mut sink = feed.sink();
        // A request without "jsonrpc": "2.0" (a finding at once), and one never
        // answered (a finding only the end can tell).
        sink.event(&line("{\"id\":1,\"method\":\"ping\"}\n"));
        sink.event(&line(
            "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\n",
        ));
        sink.finish();
        let mut events = feed.events(None);
        events.frame().await.unwrap().unwrap();
        let text = events.frame().await.unwrap().unwrap().into_data().unwrap();
        let text = std::str::from_utf8(&text).unwrap();
        let data: serde_json::Value =
            serde_json::from_str(text.lines().nth(1).unwrap().strip_prefix("data: ").unwrap())
                .unwrap();
        assert_eq!(data["findings"][0]["event"], 0, "{text}");
        assert_eq!(data["findings"][0]["severity"], "error", "{text}");
        let end = events.frame().await.unwrap().unwrap().into_data().unwrap();
        let end = std::str::from_utf8(&end).unwrap();
        let end: serde_json::Value =
            serde_json::from_str(end.strip_prefix("event: end\ndata: ").unwrap().trim_end())
                .unwrap();
        let rules: Vec<_> = end["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["rule"].clone())
            .collect();
        assert_eq!(rules, [json!("jsonrpc/unanswered")], "{end}");
        assert_eq!(end["findings"][0]["event"], 1, "{end}");
        assert!(events.frame().await.is_none());
    }

    #[tokio::test]
    async fn past_its_bound_the_oldest_go_and_a_page_that_asks_for_them_is_told() {
        let feed = Feed::new(Header::new("tap", "stdio"), 2, 1 << 20);
        let mut sink = feed.sink();
        for m in ["a", "b", "c"] {
            sink.event(&line(&format!(
                "{{\"jsonrpc\":\"2.0\",\"method\":\"{m}\"}}\n"
            )));
        }
        feed.finish();
        let mut events = feed.events(None);
        events.frame().await.unwrap().unwrap();
        let data = events.frame().await.unwrap().unwrap().into_data().unwrap();
        let text = std::str::from_utf8(&data).unwrap();
        assert!(
            text.starts_with(
                "event: gap\ndata: {\"from\":0,\"to\":1,\"keep\":2}\n\nid: 1\ndata: {\"n\":1,"
            ),
            "{text}"
        );
        assert_eq!(
            text.matches("\nid: ").count() + usize::from(text.starts_with("id: ")),
            2
        );
        assert_eq!(feed.len(), 3);
    }
}
