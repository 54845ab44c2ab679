//! Giving freed memory back to the operating system. A server that held 50 requests
//! of a megabyte each and then ended their sessions should shrink back, not keep
//! 250 MiB resident for the rest of its life. glibc's allocator does not do that on
//! its own: after the first large block is freed it raises its mmap threshold, so
//! later large blocks come from the heap, and freed heap memory stays with the
//! process. Two knobs fix it (Linux with glibc; elsewhere both do nothing).

/// Blocks of this size and more are mapped on their own and unmapped when freed.
const MMAP_THRESHOLD: usize = 256 * 1024;

/// Fixes glibc's mmap threshold (setting it turns off the dynamic raise), so every
/// large message buffer goes back to the OS the moment it is freed. Call once at
/// start, before the server allocates.
pub fn return_large_blocks_promptly() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only changes allocator parameters; any value is accepted or
    // refused with a return code, never undefined behaviour.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, MMAP_THRESHOLD as libc::c_int);
    }
}

/// Releases the free pages of each heap arena. Called by the session sweeper after
/// sessions ended or connections closed, at most once a tick (not per request: it
/// walks the heap).
pub fn trim() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only returns free memory to the OS; it is thread-safe.
    unsafe {
        libc::malloc_trim(0);
    }
}
