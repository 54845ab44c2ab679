//! What the kernel says a peer's process has used: CPU time from `/proc/PID/stat`
//! (user + system, every thread, live or gone) and memory from `/proc/PID/status`.

use std::time::Duration;

/// The clock tick `/proc/PID/stat` counts in. Linux's USER_HZ is 100 on every
/// architecture this runs on (sysconf(_SC_CLK_TCK)); a 10 ms tick is why each
/// throughput window runs for seconds, not milliseconds.
const TICK: Duration = Duration::from_millis(10);

/// User + system CPU time used so far by process `pid`, all threads.
pub fn cpu(pid: u32) -> Result<Duration, String> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map_err(|e| format!("/proc/{pid}/stat: {e}"))?;
    // The command name (field 2) is in parentheses and may hold spaces; fields
    // after the last ')' are plain. utime and stime are fields 14 and 15.
    let rest = stat
        .rsplit_once(')')
        .map(|(_, r)| r)
        .ok_or_else(|| format!("/proc/{pid}/stat: no ')' in {stat:?}"))?;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let tick = |i: usize| -> Result<u32, String> {
        fields
            .get(i)
            .and_then(|f| f.parse().ok())
            .ok_or_else(|| format!("/proc/{pid}/stat: field {} unreadable", i + 3))
    };
    // `rest` starts at field 3 (state), so field 14 is index 11.
    Ok(TICK * (tick(11)? + tick(12)?))
}

/// A `kB` line of `/proc/PID/status` (`VmRSS`, `VmHWM`), in KiB.
pub fn status_kib(pid: u32, key: &str) -> Result<u64, String> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))
        .map_err(|e| format!("/proc/{pid}/status: {e}"))?;
    status
        .lines()
        .find_map(|l| l.strip_prefix(key)?.strip_prefix(':'))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .ok_or_else(|| format!("/proc/{pid}/status: no {key}"))
}

/// Resident set size now, KiB.
pub fn rss(pid: u32) -> Result<u64, String> {
    status_kib(pid, "VmRSS")
}

/// The highest resident set size so far, KiB.
pub fn peak(pid: u32) -> Result<u64, String> {
    status_kib(pid, "VmHWM")
}
