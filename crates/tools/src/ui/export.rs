//! Export what the page shows: the transcript (JSON Lines, as `--record` writes it)
//! or the frozen page (`show --html`'s), of the whole recording or of the events
//! the page's filters keep.
//!
//! An export is made of whole events, never of rows cut out of them, so what it
//! holds is bytes that crossed, exactly, and `show`, `check`, `replay` and `mcp-raw ui`
//! read it as any recording. Which events a filtered export needs beyond the ones
//! whose rows are shown (`needed`), each direction of a lane read as the byte
//! stream it is:
//! - on an HTTP connection, the whole HTTP message a shown event is part of: from
//!   the event that brought its head to the one before the next head that way (a
//!   body means nothing without its head, nor a chunk without its size line), and
//!   the connection's opening, handshake and close;
//! - on stdio, each shown event and the reads before it that brought no row (a line
//!   that took several reads is completed by the last of them).
//!
//! An event that carried more than the shown message carries it all.

use super::feed::{Brought, Feed};
use crate::wire::event::{Event, LaneKind, What};
use crate::wire::recorder::Sink;
use crate::wire::transcript;

/// The largest `0-4,7` list read: a position list for every event kept, with room.
pub const MAX_PICKS: usize = 1 << 22;

/// `0-4,7,9-12`: event positions, as the page sends the events of the rows it
/// shows. A bad part is refused, quoted.
pub fn positions(text: &str) -> Result<Vec<usize>, String> {
    let mut out = Vec::new();
    for part in text.trim().split(',').filter(|p| !p.is_empty()) {
        let number = |s: &str| {
            s.trim().parse::<usize>().map_err(|_| {
                format!("{part:?} is not an event position or a range of them (0-4,7)")
            })
        };
        match part.split_once('-') {
            Some((from, to)) => {
                let (from, to) = (number(from)?, number(to)?);
                if to < from {
                    return Err(format!("{part:?} is a range that ends before it begins"));
                }
                out.extend(from..=to);
            }
            None => out.push(number(part)?),
        }
        if out.len() > MAX_PICKS {
            return Err(format!("more than {MAX_PICKS} event positions"));
        }
    }
    if out.is_empty() {
        return Err("no event positions: the filters show no row".into());
    }
    Ok(out)
}

/// The events of `feed` an export holds: every kept one (`picked` none), or those
/// `picked` names and what they need to be read (see the module's words). A picked
/// event the feed has let go, or has not had, is refused.
pub fn events(feed: &Feed, picked: Option<&[usize]>) -> Result<Vec<Event>, String> {
    let (first, kept) = feed.kept();
    let Some(picked) = picked else {
        if first > 0 {
            // Said, not hidden: the page exports what its server still holds.
            log::warn!(
                "ui: the export begins at event {first}: the ones before were let go (--ui-keep)"
            );
        }
        return Ok(kept.into_iter().map(|(e, _)| e).collect());
    };
    let end = first + kept.len();
    if let Some(&bad) = picked.iter().find(|&&n| n < first || n >= end) {
        return Err(if bad < first {
            format!(
                "event {bad} was let go (the page's server keeps {} events, --ui-keep); the --record file has it",
                kept.len()
            )
        } else {
            format!("event {bad} is not in the recording ({end} events so far)")
        });
    }
    Ok(events_of(&kept, first, picked))
}

/// Of `kept` (the first at position `first`), the events at `picked` (each one
/// kept) and what they need to be read.
pub fn events_of(kept: &[(Event, Brought)], first: usize, picked: &[usize]) -> Vec<Event> {
    let wanted = needed(kept, picked.iter().map(|n| n - first));
    kept.iter()
        .zip(wanted)
        .filter(|(_, w)| *w)
        .map(|((e, _), _)| e.clone())
        .collect()
}

/// Which of `kept` (each event, and what rows it brought) an export of the events
/// at `picked` (indexes into `kept`) holds.
fn needed(kept: &[(Event, Brought)], picked: impl Iterator<Item = usize>) -> Vec<bool> {
    let mut wanted = vec![false; kept.len()];
    let mut connections = std::collections::HashSet::new();
    // The events of one direction of one lane, before and after `i`.
    let stream = |i: usize| {
        let (lane, dir) = (kept[i].0.lane, kept[i].0.dir);
        let on = move |j: &usize| kept[*j].0.lane == lane && kept[*j].0.dir == dir;
        ((0..i).rev().filter(on), (i + 1..kept.len()).filter(on))
    };
    let bytes = |j: usize| matches!(kept[j].0.what, What::Bytes(_));
    for i in picked {
        wanted[i] = true;
        let (before, after) = stream(i);
        if kept[i].0.lane.kind != LaneKind::Http {
            // Back over the reads this one completes: those with no row.
            for j in before.filter(|&j| bytes(j)) {
                if kept[j].1 != Brought::Nothing {
                    break;
                }
                wanted[j] = true;
            }
            continue;
        }
        connections.insert(kept[i].0.lane.id);
        if kept[i].1 != Brought::Head {
            // Back to the head of the message this event is part of.
            for j in before.filter(|&j| bytes(j)) {
                wanted[j] = true;
                if kept[j].1 == Brought::Head {
                    break;
                }
            }
        }
        // On to the end of the message: the next head that way begins another.
        for j in after.filter(|&j| bytes(j)) {
            if kept[j].1 == Brought::Head {
                break;
            }
            wanted[j] = true;
        }
    }
    // A connection's opening, handshake and close go with any of its messages.
    for (w, (e, _)) in wanted.iter_mut().zip(kept) {
        if e.lane.kind == LaneKind::Http
            && connections.contains(&e.lane.id)
            && !matches!(e.what, What::Bytes(_))
        {
            *w = true;
        }
    }
    wanted
}

/// The transcript of `events`, as `--record` writes it: the header line, and each
/// event's line with the facts read from it.
pub fn jsonl(header: &transcript::Header, events: &[Event], max: usize) -> Vec<u8> {
    let mut out = Vec::new();
    // Writing into memory cannot fail.
    if let Ok(mut writer) = crate::wire::transcript_write::Writer::new(&mut out, header, max) {
        for e in events {
            writer.event(e);
        }
    }
    out
}

/// The frozen page of `events`, as `show --html` writes it (with `check`'s findings).
pub fn html(header: &transcript::Header, events: &[Event], max: usize) -> String {
    let findings = super::findings::of_recording(events, max);
    crate::wire::html::page(header, events, max, findings)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::event::{Dir, Lane};
    use std::time::Duration;

    fn on(lane: Lane, text: &str) -> Event {
        Event {
            t: Duration::ZERO,
            lane,
            dir: Dir::ToServer,
            what: What::Bytes(bytes::Bytes::copy_from_slice(text.as_bytes())),
        }
    }

    #[test]
    fn positions_are_read_and_a_bad_list_is_quoted() {
        assert_eq!(positions("0-2,7"), Ok(vec![0, 1, 2, 7]));
        assert_eq!(
            positions("3,x"),
            Err("\"x\" is not an event position or a range of them (0-4,7)".into())
        );
        assert_eq!(
            positions("5-1"),
            Err("\"5-1\" is a range that ends before it begins".into())
        );
        assert!(positions("").is_err());
    }

    #[test]
    fn a_line_brings_the_reads_it_took_and_a_body_its_whole_message() {
        let stdio = Lane {
            id: 0,
            kind: LaneKind::Stdio,
        };
        let c1 = Lane {
            id: 1,
            kind: LaneKind::Http,
        };
        let opened = Event {
            t: Duration::ZERO,
            lane: c1,
            dir: Dir::ToServer,
            what: What::Open("accepted from 127.0.0.1:1".into()),
        };
        use Brought::*;
        let kept = vec![
            (on(stdio, "{\"a\":1}\n"), Rows),
            (on(stdio, "{\"b\""), Nothing),
            (opened, Nothing),
            (on(c1, "POST / HTTP/1.1\r\ncontent-length: 4\r\n\r\n"), Head),
            (on(stdio, ":2}\n"), Rows),
            (on(c1, "{}"), Nothing),
            (on(c1, "{}"), Rows),
            (
                on(c1, "POST / HTTP/1.1\r\ncontent-length: 2\r\n\r\n{}"),
                Head,
            ),
            (on(stdio, "{\"c\":3}\n"), Rows),
        ];
        // The second line (event 4) took events 1 and 4; event 0 is not needed.
        assert_eq!(
            needed(&kept, [4].into_iter()),
            [false, true, false, false, true, false, false, false, false]
        );
        // The first request's body (event 6) brings its head and the read between,
        // and the connection's opening; not the second request.
        assert_eq!(
            needed(&kept, [6].into_iter()),
            [false, false, true, true, false, true, true, false, false]
        );
    }
}
