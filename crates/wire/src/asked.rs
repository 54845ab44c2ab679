//! The requests a view has seen and not yet seen answered, by id, so that a
//! response's line can say what it answers (JSON-RPC 2.0 §5: "id … MUST be the same
//! as the value of the id member in the Request Object"). Bounded: a peer that never
//! answers, or a recording of one, must not grow a view without end, so past
//! [`max_unanswered`] requests the older half is forgotten (a late response then
//! shows no method). The bound is one per process, set by the command line's
//! `--max-unanswered N` before any view is made.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The default of `--max-unanswered`: 4,096 requests of a few dozen bytes each
/// remembered per view, a few hundred KiB at worst.
pub const DEFAULT_MAX_UNANSWERED: usize = 4096;

/// The process's bound (`--max-unanswered`), read by every view it makes.
static MAX_UNANSWERED: AtomicUsize = AtomicUsize::new(DEFAULT_MAX_UNANSWERED);

/// Sets how many unanswered requests each view remembers (at least 2, so that
/// forgetting half leaves one).
pub fn set_max_unanswered(n: usize) {
    MAX_UNANSWERED.store(n.max(2), Ordering::Relaxed);
}

/// How many unanswered requests each view remembers.
pub fn max_unanswered() -> usize {
    MAX_UNANSWERED.load(Ordering::Relaxed)
}

/// What a view remembers of each request it has seen, by id (its JSON text, so that
/// `1` and `"1"` stay two ids), with the order it came in.
#[derive(Debug)]
pub struct Asked<T> {
    /// id → (order seen, what the view keeps of the request).
    by_id: HashMap<String, (u64, T)>,
    /// How many requests have been taken: the next one's order.
    seq: u64,
    /// The most kept at once (`--max-unanswered`, read when the view was made).
    max: usize,
}

impl<T> Default for Asked<T> {
    fn default() -> Self {
        Asked {
            by_id: HashMap::new(),
            seq: 0,
            max: max_unanswered(),
        }
    }
}

impl<T> Asked<T> {
    /// Remembers a request by id; past the bound, forgets the older half first.
    pub fn ask(&mut self, id: String, what: T) {
        if self.by_id.len() >= self.max {
            self.forget_oldest();
        }
        self.seq += 1;
        self.by_id.insert(id, (self.seq, what));
    }

    /// What was kept of the request a response with this id answers (once).
    pub fn answer(&mut self, id: &str) -> Option<T> {
        self.by_id.remove(id).map(|(_, what)| what)
    }

    /// How many requests are remembered now.
    pub fn len(&self) -> usize {
        self.by_id.len()
    }

    /// Whether none is.
    pub fn is_empty(&self) -> bool {
        self.by_id.is_empty()
    }

    /// Whether a request with this id is remembered.
    pub fn has(&self, id: &str) -> bool {
        self.by_id.contains_key(id)
    }

    /// Forgets the older half of the requests still unanswered.
    fn forget_oldest(&mut self) {
        let mut order: Vec<u64> = self.by_id.values().map(|(n, _)| *n).collect();
        order.sort_unstable();
        let keep_from = order[order.len() / 2];
        self.by_id.retain(|_, (n, _)| *n >= keep_from);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn past_the_bound_the_older_half_is_forgotten() {
        let mut asked = Asked {
            by_id: HashMap::new(),
            seq: 0,
            max: 8,
        };
        for n in 0..=8 {
            asked.ask(n.to_string(), n);
        }
        // The ninth request found eight: the four oldest went, then it came in.
        assert_eq!(asked.len(), 5);
        assert!(!asked.has("3"));
        assert!(asked.has("4") && asked.has("8"));
        assert_eq!(asked.answer("8"), Some(8));
        assert_eq!(asked.answer("8"), None);
    }
}
