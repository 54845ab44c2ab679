//! Work that may be done at once or after a round trip: a task store in memory answers
//! on the first poll, one shared through Redis after its reply. A leaf of the core:
//! the task store and the request context both use it, and it uses neither.

use std::future::Future;
use std::pin::Pin;

/// A boxed future that can move between threads: a response still being made.
pub type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send + 'static>>;

/// Polls `future` once: its output when it is ready at once (an in-memory store's
/// answer), else the future to await later (a shared store's round trip). Lets one
/// async API keep the synchronous wire where nothing had to wait.
pub fn now_or_later<F>(future: F) -> Result<F::Output, BoxFuture<F::Output>>
where
    F: Future + Send + 'static,
{
    let mut future: BoxFuture<F::Output> = Box::pin(future);
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    match future.as_mut().poll(&mut cx) {
        std::task::Poll::Ready(out) => Ok(out),
        std::task::Poll::Pending => Err(future),
    }
}

/// A boxed future that borrows for `'a`: what a trait method returns when its work
/// awaits and reads its arguments meanwhile (the replicated task store's methods).
pub type Later<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;
