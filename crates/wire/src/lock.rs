//! One way to take a lock, for every crate of the workspace.
//!
//! A `std::sync::Mutex` whose holder panicked is "poisoned": `lock()` returns an
//! error that still carries the guard. Every lock in mcp-raw guards state changed in
//! one critical section (a map entry inserted, a counter moved, a buffer swapped),
//! so a panic cannot leave it half-updated, and the rest of the process (the other
//! sessions, the other connections) must keep serving: the guard is taken anyway.
//! A panic is a bug to fix; it must not turn into a second failure for everyone
//! else.

use std::sync::{Mutex, MutexGuard, PoisonError};

/// [`Mutex::lock`] that takes the guard of a poisoned lock too (see the module's
/// reasons).
pub trait Locked<T: ?Sized> {
    /// The guard, poisoned or not.
    fn locked(&self) -> MutexGuard<'_, T>;
}

impl<T: ?Sized> Locked<T> for Mutex<T> {
    fn locked(&self) -> MutexGuard<'_, T> {
        self.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_poisoned_lock_still_gives_its_guard() {
        let m = std::sync::Arc::new(Mutex::new(1));
        let held = m.clone();
        let _ = std::thread::spawn(move || {
            let _guard = held.lock().unwrap();
            panic!("a holder panics");
        })
        .join();
        assert!(m.is_poisoned());
        *m.locked() += 1;
        assert_eq!(*m.locked(), 2);
    }
}
