//! Where a workload runs: free (the kernel places the server and the load generator
//! wherever it likes), or both on one core.
//!
//! A sequential call is a ping-pong: the client writes and sleeps, the server wakes,
//! answers and sleeps, the client wakes. When the two sit on different cores, each
//! wake-up of a sleeping core costs tens of µs on these virtual machines (the idle
//! vCPU halts, and waking it goes through the hypervisor), which dwarfs a call's
//! work; when they share a core, a wake-up is a context switch of about a µs. Left
//! free, the kernel picks one or the other (or a mix) per process start: the pipe
//! floor answered 16,000 calls/s with the two held on different cores, 460,000 with
//! them on one core, and anywhere from 18,000 to 37,000 left free. On one core, what
//! is left is each peer's own cost per call, and the figures repeat within a few %.

use std::io;
use std::os::unix::process::CommandExt;
use std::process::Command;

/// Where a throughput workload's processes run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Placement {
    /// Wherever the kernel puts them: the server may use every core.
    Free,
    /// The server (every thread of it) and the load generator's thread share the
    /// first core this process may use.
    OneCore,
}

/// The CPUs this thread may run on, as the kernel's bit mask.
fn current() -> io::Result<libc::cpu_set_t> {
    // SAFETY: cpu_set_t is plain bits; zeroed is the empty set, and the kernel
    // writes at most size_of::<cpu_set_t>() bytes into it.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(set)
    }
}

/// Sets this thread's CPUs (`sched_setaffinity(0)` is the calling thread).
fn set(set: &libc::cpu_set_t) -> io::Result<()> {
    // SAFETY: `set` is a valid cpu_set_t of the size passed.
    if unsafe { libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), set) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// The first CPU this process may run on, as a one-CPU set.
fn first_core() -> io::Result<libc::cpu_set_t> {
    let mask = current()?;
    for cpu in 0..libc::CPU_SETSIZE as usize {
        // SAFETY: `cpu` < CPU_SETSIZE, and both sets are valid.
        unsafe {
            if libc::CPU_ISSET(cpu, &mask) {
                let mut one: libc::cpu_set_t = std::mem::zeroed();
                libc::CPU_SET(cpu, &mut one);
                return Ok(one);
            }
        }
    }
    Err(io::Error::other("this process may run on no CPU"))
}

/// While alive, the calling thread runs where `placement` says; dropping it gives the
/// thread back the CPUs it had.
pub struct Pinned {
    /// The mask to restore (`None`: nothing was changed).
    before: Option<libc::cpu_set_t>,
}

impl Pinned {
    /// Pins the calling thread for `placement` (a no-op for [`Placement::Free`]).
    pub fn thread(placement: Placement) -> Result<Pinned, String> {
        if placement == Placement::Free {
            return Ok(Pinned { before: None });
        }
        let before = current().map_err(|e| format!("sched_getaffinity: {e}"))?;
        let one = first_core().map_err(|e| format!("sched_getaffinity: {e}"))?;
        set(&one).map_err(|e| format!("sched_setaffinity: {e}"))?;
        Ok(Pinned {
            before: Some(before),
        })
    }
}

impl Drop for Pinned {
    fn drop(&mut self) {
        if let Some(before) = &self.before {
            let _ = set(before);
        }
    }
}

/// Makes `command` start its process where `placement` says: every thread it starts
/// later inherits the mask.
pub fn place(command: &mut Command, placement: Placement) -> Result<(), String> {
    if placement == Placement::Free {
        return Ok(());
    }
    let one = first_core().map_err(|e| format!("sched_getaffinity: {e}"))?;
    // SAFETY: the closure runs in the child between fork and exec and only makes one
    // async-signal-safe system call on a set computed before the fork.
    unsafe {
        command.pre_exec(move || set(&one));
    }
    Ok(())
}
