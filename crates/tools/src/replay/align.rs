//! `diff A B` on two streams: both recordings read side by side, event by event, and
//! each direction's `n`th message of A paired with B's `n`th as soon as both are read
//! (the pairing [`super::diff::diff`] makes on whole files). What is held is the
//! messages one side has read and the other not yet: when the two recordings order
//! their directions alike (the same session recorded twice, a replay) that is a few;
//! when they do not, a side may run ahead. The window bounds it: past `window`
//! messages waiting in one direction, the oldest is let go and said as not compared
//! (what, and why), never kept; the pairing of the rest goes on by number.

use super::diff::{Difference, Ignore, Message, Reader, differ, slot, what};
use crate::wire::event::{Dir, Event};
use std::collections::VecDeque;

/// The messages of one direction that may wait for their match, by default.
pub const DEFAULT_WINDOW: usize = 1000;

/// Which recording.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// The first (expected).
    A,
    /// The second (compared).
    B,
}

impl Side {
    fn name(i: usize) -> &'static str {
        ["A", "B"][i]
    }
}

/// What a streamed comparison counted, once both recordings are read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Counts {
    /// A's messages: c2s, s2c.
    pub a: [usize; 2],
    /// B's messages: c2s, s2c.
    pub b: [usize; 2],
    /// The pairs not compared because one side ran more than the window ahead.
    pub unaligned: usize,
    /// The most messages that waited at once in one direction (at most the window).
    pub most_waiting: usize,
}

/// Reads `a` and `b` to their ends, side by side, and gives each difference to
/// `found` as it is known: per direction in the order of its number (the directions
/// interleaved as the recordings go). The error is the first event one side could
/// not read, with that side.
pub fn align<A, B>(
    a: A,
    b: B,
    ignore: &[Ignore],
    window: usize,
    found: &mut dyn FnMut(Difference),
) -> Result<Counts, (Side, String)>
where
    A: Iterator<Item = Result<Event, String>>,
    B: Iterator<Item = Result<Event, String>>,
{
    let mut state = Aligner {
        ignore,
        window: window.max(1),
        waiting: Default::default(),
        ended: [false; 2],
        let_go: [0; 2],
        unaligned: 0,
        most_waiting: 0,
    };
    let (mut a, mut b) = (a, b);
    let mut readers = [Reader::default(), Reader::default()];
    let mut turn = 1;
    loop {
        let side = match state.ended {
            [true, true] => break,
            [true, false] => 1,
            [false, true] => 0,
            [false, false] => {
                // Read the side that is behind; when neither is, each in turn.
                let ahead = |s: usize| state.waiting[s].iter().any(|q| !q.is_empty());
                match (ahead(0), ahead(1)) {
                    (true, false) => 1,
                    (false, true) => 0,
                    _ => {
                        turn = 1 - turn;
                        turn
                    }
                }
            }
        };
        let next = if side == 0 { a.next() } else { b.next() };
        match next {
            None => state.end(side, found),
            Some(Err(why)) => return Err((if side == 0 { Side::A } else { Side::B }, why)),
            Some(Ok(e)) => {
                for (dir, m) in readers[side].feed(&e) {
                    state.take(side, dir, m, found);
                }
            }
        }
    }
    let counts = |r: &Reader| [r.count(Dir::ToServer), r.count(Dir::ToClient)];
    Ok(Counts {
        a: counts(&readers[0]),
        b: counts(&readers[1]),
        unaligned: state.unaligned,
        most_waiting: state.most_waiting,
    })
}

/// The pairing's state between two reads.
struct Aligner<'i> {
    /// What the comparison leaves out.
    ignore: &'i [Ignore],
    /// The most messages one direction may hold waiting for their match.
    window: usize,
    /// Messages read on one side whose match the other has not read yet, by side
    /// then direction; of a direction, only one side's list is ever non-empty.
    waiting: [[VecDeque<Message>; 2]; 2],
    /// Which sides are read to their end.
    ended: [bool; 2],
    /// Per direction, the highest number let go unpaired (its match, when read, is
    /// passed over: the pair was said once).
    let_go: [usize; 2],
    /// How many pairs were let go.
    unaligned: usize,
    /// The most that waited at once.
    most_waiting: usize,
}

impl Aligner<'_> {
    /// A message read on `side`: paired with the other side's, said alone if the
    /// other has ended, or kept waiting (the oldest let go past the window).
    fn take(&mut self, side: usize, dir: Dir, m: Message, found: &mut dyn FnMut(Difference)) {
        let (d, other) = (slot(dir), 1 - side);
        if m.n <= self.let_go[d] {
            return;
        }
        if let Some(x) = self.waiting[other][d].pop_front() {
            let (ma, mb) = if side == 0 { (&m, &x) } else { (&x, &m) };
            if let Some(diff) = differ(dir, m.n, Some(ma), Some(mb), self.ignore) {
                found(diff);
            }
        } else if self.ended[other] {
            found(alone(side, dir, &m, self.ignore));
        } else {
            let list = &mut self.waiting[side][d];
            list.push_back(m);
            if list.len() > self.window
                && let Some(x) = list.pop_front()
            {
                self.let_go[d] = x.n;
                self.unaligned += 1;
                found(not_compared(side, dir, &x, self.window));
            }
            self.most_waiting = self.most_waiting.max(self.waiting[side][d].len());
        }
    }

    /// `side` has no more events: what waits on the other side is its alone.
    fn end(&mut self, side: usize, found: &mut dyn FnMut(Difference)) {
        self.ended[side] = true;
        let other = 1 - side;
        for dir in [Dir::ToServer, Dir::ToClient] {
            for m in std::mem::take(&mut self.waiting[other][slot(dir)]) {
                found(alone(other, dir, &m, self.ignore));
            }
        }
    }
}

/// A message only `side` has.
fn alone(side: usize, dir: Dir, m: &Message, ignore: &[Ignore]) -> Difference {
    let (x, y) = if side == 0 {
        (Some(m), None)
    } else {
        (None, Some(m))
    };
    // `differ` says "only in A/B" for one message and never returns None for it.
    differ(dir, m.n, x, y, ignore).unwrap_or_else(|| Difference {
        dir,
        n: m.n,
        what: what(m),
        detail: String::new(),
        at: Vec::new(),
    })
}

/// The pair of `m` let go: its side read `window` more of that direction while the
/// other had not reached its match.
fn not_compared(side: usize, dir: Dir, m: &Message, window: usize) -> Difference {
    let (me, them) = (Side::name(side), Side::name(1 - side));
    Difference {
        dir,
        n: m.n,
        what: what(m),
        detail: format!(
            "not compared: {me} (event {}) ran more than {window} {} messages ahead of {them}, which had not reached it (--window {window})",
            m.event,
            dir.name()
        ),
        at: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::replay::diff;

    /// A stdio recording's events: each `(dir, message)` a line of its own.
    fn recording(lines: &[(&str, String)]) -> Vec<Event> {
        let mut text = String::from(
            "{\"transcript\":\"mcp-raw\",\"version\":4,\"role\":\"client\",\"transport\":\"stdio\",\"started\":\"2026-12-07T00:00:00Z\"}\n",
        );
        for (i, (dir, m)) in lines.iter().enumerate() {
            let line = serde_json::json!({
                "t": 0.001 * (i + 1) as f64,
                "lane": "stdio",
                "dir": dir,
                "text": format!("{m}\n"),
            });
            text.push_str(&format!("{line}\n"));
        }
        crate::wire::transcript::read(&text).unwrap().1
    }

    fn session(n: usize, answer: &str, clients_first: bool) -> Vec<Event> {
        let ask = |i: usize| {
            (
                "c2s",
                format!(
                    r#"{{"jsonrpc":"2.0","id":{i},"method":"tools/call","params":{{"name":"echo"}}}}"#
                ),
            )
        };
        let tell = |i: usize| {
            (
                "s2c",
                format!(r#"{{"jsonrpc":"2.0","id":{i},"result":{{"text":"{answer}{i}"}}}}"#),
            )
        };
        let lines: Vec<_> = if clients_first {
            (0..n).map(ask).chain((0..n).map(tell)).collect()
        } else {
            (0..n).flat_map(|i| [ask(i), tell(i)]).collect()
        };
        recording(&lines)
    }

    fn streamed(a: &[Event], b: &[Event], window: usize) -> (Vec<Difference>, Counts) {
        let mut found = Vec::new();
        let counts = align(
            a.iter().cloned().map(Ok),
            b.iter().cloned().map(Ok),
            &Ignore::defaults(),
            window,
            &mut |d| found.push(d),
        )
        .unwrap();
        // The whole-file order: c2s first, each direction by number.
        found.sort_by_key(|d| slot(d.dir));
        (found, counts)
    }

    #[test]
    fn side_by_side_finds_what_the_whole_files_give() {
        let cases = [
            (session(30, "x", false), session(30, "x", false)),
            (session(30, "x", false), session(30, "y", false)),
            (session(30, "x", false), session(25, "x", false)),
            (session(12, "x", false), session(30, "y", false)),
            (session(30, "x", true), session(30, "y", false)),
        ];
        for (i, (a, b)) in cases.iter().enumerate() {
            let whole = diff::diff(a, b, &Ignore::defaults());
            let (found, counts) = streamed(a, b, DEFAULT_WINDOW);
            assert_eq!(found, whole, "case {i}");
            assert_eq!(counts.unaligned, 0, "case {i}");
            let (ma, mb) = (diff::messages(a), diff::messages(b));
            assert_eq!(counts.a, [ma.0.len(), ma.1.len()], "case {i}");
            assert_eq!(counts.b, [mb.0.len(), mb.1.len()], "case {i}");
        }
        // The same session twice: nothing waits longer than one read of the other.
        let (_, counts) = streamed(&cases[0].0, &cases[0].1, DEFAULT_WINDOW);
        assert!(counts.most_waiting <= 1, "{counts:?}");
    }

    #[test]
    fn past_the_window_a_pair_is_said_not_compared_and_the_rest_still_pair() {
        // A sends all its requests before any answer; B answers each in turn: read
        // side by side, A's requests run ahead of B's (B's answers wait for A's).
        let a = session(10, "x", true);
        let b = session(10, "y", false);
        let (found, counts) = streamed(&a, &b, 3);
        assert!(counts.unaligned > 0, "{counts:?}");
        assert!(counts.most_waiting <= 3, "{counts:?}");
        let not: Vec<_> = found
            .iter()
            .filter(|d| d.detail.starts_with("not compared"))
            .collect();
        assert_eq!(not.len(), counts.unaligned);
        assert!(
            not[0].detail.contains("more than 3") && not[0].detail.contains("--window 3"),
            "{}",
            not[0].detail
        );
        // Every pair is said once: compared (the answers differ), or not compared.
        let s2c: Vec<usize> = found
            .iter()
            .filter(|d| d.dir == Dir::ToClient)
            .map(|d| d.n)
            .collect();
        assert_eq!(s2c, (1..=10).collect::<Vec<_>>());
        // A window wide enough: the whole files' answer again.
        let (found, counts) = streamed(&a, &b, 10);
        assert_eq!(counts.unaligned, 0);
        assert_eq!(found, diff::diff(&a, &b, &Ignore::defaults()));
    }

    #[test]
    fn an_unreadable_event_names_its_side() {
        let a = session(3, "x", false);
        let bad = a
            .iter()
            .cloned()
            .map(Ok)
            .take(2)
            .chain([Err("line 4: bad".to_owned())]);
        let got = align(
            a.iter().cloned().map(Ok),
            bad,
            &[],
            DEFAULT_WINDOW,
            &mut |_| {},
        );
        assert_eq!(got, Err((Side::B, "line 4: bad".to_owned())));
    }
}
