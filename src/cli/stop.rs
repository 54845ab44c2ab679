//! Where a long-running program (`serve --http`, an HTTP tap or proxy, `bridge`,
//! `auth-server`, `replay`'s mock, a page kept served by `--ui`) stops: Ctrl-C
//! (SIGINT), or SIGTERM, what `kill`, systemd and container runtimes send. Either
//! ends the program the same way, so its recordings' writers are drained
//! (`record::drain`) and every file is whole.

use std::sync::atomic::{AtomicBool, Ordering};

/// A stop signal came: a page's [`super::ui::linger`] then lets the program end.
static SIGNALLED: AtomicBool = AtomicBool::new(false);

/// Which signal came: `"interrupted"` (SIGINT) or `"terminated"` (SIGTERM), for the
/// program's last line. Once listened for, a signal no longer ends the process by
/// itself: whoever waits here ends it.
pub async fn signalled() -> &'static str {
    use tokio::signal::unix::{SignalKind, signal};
    let how = match signal(SignalKind::terminate()) {
        Ok(mut term) => tokio::select! {
            _ = tokio::signal::ctrl_c() => "interrupted",
            _ = term.recv() => "terminated",
        },
        // No handler to be had: Ctrl-C alone, as before.
        Err(_) => {
            let _ = tokio::signal::ctrl_c().await;
            "interrupted"
        }
    };
    SIGNALLED.store(true, Ordering::Relaxed);
    how
}

/// Whether the program is ending on a stop signal.
pub fn was_signalled() -> bool {
    SIGNALLED.load(Ordering::Relaxed)
}

/// Waits, on this thread, for Ctrl-C or SIGTERM.
pub fn wait() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build();
    match runtime {
        Ok(rt) => {
            rt.block_on(signalled());
        }
        // No runtime to be had: wait as before, for a signal's default action.
        Err(_) => loop {
            std::thread::park();
        },
    }
}
