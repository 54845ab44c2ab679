//! What the kernel says a peer has used: CPU time from `/proc/PID/stat` (user +
//! system, every thread, live or gone) and memory from `/proc/PID/status`, summed
//! over the peer's process group (mcp-bench starts each peer as a group leader, so
//! a peer of several processes, nginx and its replicas, counts whole; a peer of one
//! process is just that process).

use std::time::Duration;

/// The clock tick `/proc/PID/stat` counts in. Linux's USER_HZ is 100 on every
/// architecture this runs on (sysconf(_SC_CLK_TCK)); a 10 ms tick is why each
/// throughput window runs for seconds, not milliseconds.
const TICK: Duration = Duration::from_millis(10);

/// The live processes of process group `pgid` (the leader first).
fn group(pgid: u32) -> Vec<u32> {
    let mut pids = vec![pgid];
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return pids;
    };
    for entry in dir.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        if pid == pgid {
            continue;
        }
        // Field 5 of /proc/PID/stat is the process group; after the ')' that ends
        // the command name the fields are: state, ppid, pgrp.
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        let pgrp = stat
            .rsplit_once(')')
            .and_then(|(_, r)| r.split_whitespace().nth(2)?.parse::<u32>().ok());
        if pgrp == Some(pgid) {
            pids.push(pid);
        }
    }
    pids
}

/// User + system CPU time used so far by the peer whose group leader is `pid`.
pub fn cpu(pid: u32) -> Result<Duration, String> {
    let mut total = one_cpu(pid)?;
    for p in group(pid).into_iter().skip(1) {
        total += one_cpu(p).unwrap_or_default();
    }
    Ok(total)
}

/// User + system CPU time used so far by process `pid`, all threads.
fn one_cpu(pid: u32) -> Result<Duration, String> {
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
fn status_kib(pid: u32, key: &str) -> Result<u64, String> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))
        .map_err(|e| format!("/proc/{pid}/status: {e}"))?;
    status
        .lines()
        .find_map(|l| l.strip_prefix(key)?.strip_prefix(':'))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .ok_or_else(|| format!("/proc/{pid}/status: no {key}"))
}

/// `key` summed over the peer's processes.
fn group_kib(pid: u32, key: &str) -> Result<u64, String> {
    let mut total = status_kib(pid, key)?;
    for p in group(pid).into_iter().skip(1) {
        total += status_kib(p, key).unwrap_or(0);
    }
    Ok(total)
}

/// Resident set size now, KiB (the peer's processes together).
pub fn rss(pid: u32) -> Result<u64, String> {
    group_kib(pid, "VmRSS")
}

/// The highest resident set size so far, KiB (each process's peak, summed).
pub fn peak(pid: u32) -> Result<u64, String> {
    group_kib(pid, "VmHWM")
}
