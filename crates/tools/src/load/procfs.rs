//! A local stdio server's cost, read from Linux's `/proc/PID`: the CPU time it used
//! (`stat`'s utime + stime) and its peak resident set (`status`'s `VmHWM`). Elsewhere,
//! or once the process is gone, nothing is read.

use std::time::Duration;

/// `/proc/PID/stat` counts in clock ticks of `USER_HZ`, which Linux fixes at 100 for
/// what it shows user space, whatever the kernel's own tick.
const USER_HZ: u64 = 100;

/// What one server process used, up to the moment it was read.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Usage {
    /// User and system CPU time.
    pub cpu: Duration,
    /// The peak resident set, KiB.
    pub peak_rss_kib: u64,
}

/// Reads process `pid`'s usage; `None` when `/proc` does not have it.
pub fn usage(pid: u32) -> Option<Usage> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) is in parentheses and may hold spaces: count the
    // fields from after its closing one. utime and stime are fields 14 and 15.
    let rest = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let utime: u64 = fields.get(11)?.parse().ok()?;
    let stime: u64 = fields.get(12)?.parse().ok()?;
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let peak_rss_kib = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    Some(Usage {
        cpu: Duration::from_millis((utime + stime) * 1000 / USER_HZ),
        peak_rss_kib,
    })
}

#[cfg(test)]
mod tests {
    #[test]
    #[cfg(target_os = "linux")]
    fn this_process_has_a_peak() {
        let u = super::usage(std::process::id()).expect("/proc/self");
        assert!(u.peak_rss_kib > 0);
    }
}
