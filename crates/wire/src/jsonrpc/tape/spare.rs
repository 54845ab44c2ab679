//! The two buffers a frame read in place needs, kept for the next frame instead of
//! allocated and freed each time: the tape the check leaves ([`Tape`]) and the copy of
//! the frame's text that a request's `params` keeps ([`Text`]). A message outlives
//! its frame, so its `params` owns both; when it is dropped they go back to the
//! thread they are dropped on, and the next frame read there takes them up again.
//! Two allocations and two frees a request fewer (callgrind: ~250 instructions of a
//! ~7,000-instruction `tools/call`), and no copy of the tape.

use super::check::Node;
use std::cell::RefCell;

/// At most this many of each are kept on a thread: one frame is read at a time, and
/// a few more cover messages still held while the next is read (a request running on).
const KEPT: usize = 4;

/// A tape grown past this many nodes by a large frame is let go (4 K nodes of 16
/// bytes: 64 KiB), not kept for every later one: a thread keeps at most 512 KiB of
/// spares, so a burst of large requests does not stay resident after it.
const KEPT_NODES: usize = 1 << 12;

/// A text buffer grown past this is let go.
const KEPT_BYTES: usize = 64 * 1024;

/// What a thread keeps.
struct Spares {
    /// Tapes, empty, ready for a scan.
    tapes: Vec<Vec<Node>>,
    /// Text buffers, empty.
    texts: Vec<String>,
}

thread_local! {
    static SPARES: RefCell<Spares> = const {
        RefCell::new(Spares {
            tapes: Vec::new(),
            texts: Vec::new(),
        })
    };
}

/// A kept buffer from this thread's list that `list` picks, when there is one.
fn take_up<T>(list: fn(&mut Spares) -> &mut Vec<T>) -> Option<T> {
    SPARES
        .try_with(|s| s.try_borrow_mut().ok().and_then(|mut s| list(&mut s).pop()))
        .ok()
        .flatten()
}

/// Keeps `buf` on this thread's list that `list` picks, unless the list is full. A
/// thread being torn down keeps nothing (`try_with` fails then).
fn keep<T>(list: fn(&mut Spares) -> &mut Vec<T>, buf: T) {
    let _ = SPARES.try_with(|s| {
        if let Ok(mut s) = s.try_borrow_mut() {
            let kept = list(&mut s);
            if kept.len() < KEPT {
                kept.push(buf);
            }
        }
    });
}

/// A frame's tape: a `Vec` that goes back to the thread's spares when dropped.
#[derive(Debug, Default)]
pub struct Tape(Vec<Node>);

impl Tape {
    /// An empty tape, a kept one when there is one.
    pub fn take() -> Tape {
        Tape(take_up(|s| &mut s.tapes).unwrap_or_default())
    }
}

impl std::ops::Deref for Tape {
    type Target = Vec<Node>;
    fn deref(&self) -> &Vec<Node> {
        &self.0
    }
}

impl std::ops::DerefMut for Tape {
    fn deref_mut(&mut self) -> &mut Vec<Node> {
        &mut self.0
    }
}

impl Clone for Tape {
    fn clone(&self) -> Tape {
        let mut tape = Tape::take();
        tape.extend_from_slice(&self.0);
        tape
    }
}

impl Drop for Tape {
    fn drop(&mut self) {
        let mut tape = std::mem::take(&mut self.0);
        if tape.capacity() == 0 || tape.capacity() > KEPT_NODES {
            return;
        }
        tape.clear();
        keep(|s| &mut s.tapes, tape);
    }
}

/// A copy of a frame's text: a `String` that goes back to the thread's spares when
/// dropped.
#[derive(Debug, Default)]
pub struct Text(String);

impl Text {
    /// A copy of `text`, in a kept buffer when there is one.
    pub fn copy(text: &str) -> Text {
        let mut buf = take_up(|s| &mut s.texts).unwrap_or_default();
        buf.push_str(text);
        Text(buf)
    }
}

impl std::ops::Deref for Text {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl Clone for Text {
    fn clone(&self) -> Text {
        Text::copy(&self.0)
    }
}

impl Drop for Text {
    fn drop(&mut self) {
        let mut text = std::mem::take(&mut self.0);
        if text.capacity() == 0 || text.capacity() > KEPT_BYTES {
            return;
        }
        text.clear();
        keep(|s| &mut s.texts, text);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dropped_buffer_is_taken_up_again_empty() {
        let mut tape = Tape::take();
        tape.push(Node {
            start: 0,
            end: 1,
            next: 1,
            escaped: false,
        });
        let at = tape.as_ptr();
        drop(tape);
        let again = Tape::take();
        assert!(again.is_empty());
        assert_eq!(again.as_ptr(), at, "the kept tape is reused");

        let text = Text::copy("{\"a\":1}");
        assert_eq!(&*text, "{\"a\":1}");
        let at = text.as_ptr();
        drop(text);
        let again = Text::copy("x");
        assert_eq!(&*again, "x");
        assert_eq!(again.as_ptr(), at, "the kept text buffer is reused");
    }

    #[test]
    fn huge_buffers_and_more_than_kept_are_let_go() {
        let mut big = Tape::take();
        big.reserve(KEPT_NODES + 1);
        drop(big);
        assert!(Tape::take().capacity() <= KEPT_NODES);

        let many: Vec<Text> = (0..KEPT + 4).map(|_| Text::copy("abc")).collect();
        drop(many);
        let kept = SPARES.with(|s| s.borrow().texts.len());
        assert_eq!(kept, KEPT);
    }
}
