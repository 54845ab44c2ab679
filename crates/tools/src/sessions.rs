//! The sessions directory (`STATE/sessions/`): a tap's file per session
//! (`tap --record-dir`), the old ones pruned at start by age and total size;
//! `mcp-raw sessions`, the list, newest first, with each one's messages, error
//! responses and findings; a session's short name turned back into its file.

use super::args::SessionsArgs;
use mcp_raw_tools::check::Checker;
use mcp_raw_tools::check::report;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// The file name's extension.
const EXT: &str = "jsonl";

/// `NAME` as a file name's part: `/` and anything outside `[A-Za-z0-9.-]` → `_`.
fn part(name: &str) -> String {
    let s: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '.' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if s.is_empty() || s.starts_with('.') {
        format!("_{s}")
    } else {
        s
    }
}

/// Prepares `dir` for a new session named `name`: made if absent, its recordings
/// older than `max_age_days` removed, then its oldest until the total is under
/// `max_bytes` (0 turns either limit off). Returns the new session's path.
pub fn start(dir: &Path, name: &str, max_age_days: u64, max_bytes: u64) -> anyhow::Result<PathBuf> {
    std::fs::create_dir_all(dir).map_err(|e| {
        super::exit::usage(format!(
            "--record-dir {}: cannot create it: {e}",
            dir.display()
        ))
    })?;
    prune(dir, max_age_days, max_bytes);
    let stamp: String = mcp_raw_wire::clock::now_rfc3339()
        .chars()
        .filter(|c| !matches!(c, '-' | ':' | '.'))
        .collect();
    Ok(dir.join(format!(
        "{}_{stamp}_p{}.{EXT}",
        part(name),
        std::process::id()
    )))
}

/// The recordings in `dir`: path, size and modification time, newest first.
fn recordings(dir: &Path) -> std::io::Result<Vec<(PathBuf, u64, SystemTime)>> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let path = entry.path();
        if path.extension().is_some_and(|e| e == EXT)
            && let Ok(meta) = entry.metadata()
            && meta.is_file()
        {
            out.push((
                path,
                meta.len(),
                meta.modified().unwrap_or(SystemTime::UNIX_EPOCH),
            ));
        }
    }
    out.sort_by(|a, b| b.2.cmp(&a.2).then_with(|| b.0.cmp(&a.0)));
    Ok(out)
}

fn prune(dir: &Path, max_age_days: u64, max_bytes: u64) {
    let Ok(all) = recordings(dir) else { return };
    let now = SystemTime::now();
    let max_age = Duration::from_secs(max_age_days.saturating_mul(86_400));
    let mut total = 0u64;
    for (path, len, modified) in all {
        let old = max_age_days > 0 && now.duration_since(modified).is_ok_and(|age| age > max_age);
        let over = max_bytes > 0 && total.saturating_add(len) > max_bytes;
        if old || over {
            if let Err(e) = std::fs::remove_file(&path) {
                log::warn!("cannot remove the old recording {}: {e}", path.display());
            }
        } else {
            total += len;
        }
    }
}

/// The sessions directory of the state directory `--state-dir` (or the default).
fn dir(state: Option<&Path>) -> anyhow::Result<PathBuf> {
    Ok(match state {
        Some(s) => s.join("sessions"),
        None => super::wrap::clients::state_dir()?.join("sessions"),
    })
}

/// `FILE` as given, or, when no such file exists and it names a session (its file
/// name without `.jsonl`), that session's file.
pub fn resolve(file: &Path) -> PathBuf {
    if file.exists() || file.components().count() != 1 {
        return file.to_owned();
    }
    match dir(None) {
        Ok(d) => {
            let candidate = d.join(format!("{}.{EXT}", file.display()));
            if candidate.is_file() {
                candidate
            } else {
                file.to_owned()
            }
        }
        Err(_) => file.to_owned(),
    }
}

/// Runs `sessions`: the list on stdout; returns the exit status.
pub fn main(args: SessionsArgs) -> u8 {
    let dir = match dir(args.state_dir.as_deref()) {
        Ok(d) => d,
        Err(e) => return super::exit::report("mcp-raw sessions", &e),
    };
    let all = match recordings(&dir) {
        Ok(all) => all,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(e) => {
            eprintln!("mcp-raw sessions: cannot read {}: {e}", dir.display());
            return 2;
        }
    };
    let color = args.color.enabled() && args.format == "text";
    let mut out = format!("{} session(s) in {}\n", all.len(), dir.display());
    if !all.is_empty() {
        out.push_str(&format!(
            "{:<56} {:>8} {:>6} {:>8} {:>10}\n",
            "SESSION", "MESSAGES", "ERRORS", "FINDINGS", "BYTES"
        ));
    }
    let mut json = Vec::new();
    for (path, len, modified) in &all {
        let name = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let counts = super::read_transcript(path)
            .ok()
            .map(|(_, events)| count(&events, args.max_message_bytes));
        let millis = modified
            .duration_since(SystemTime::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as i64);
        json.push(serde_json::json!({
            "session": name,
            "path": path.to_string_lossy(),
            "messages": counts.map(|c| c.0),
            "errors": counts.map(|c| c.1),
            "findings": counts.map(|c| c.2),
            "bytes": len,
            "modified": mcp_raw_wire::clock::format_unix_millis(millis),
        }));
        let text = match counts {
            Some((messages, errors, findings)) => {
                format!("{messages:>8} {errors:>6} {findings:>8}")
            }
            None => format!("{:>24}", "(unreadable)"),
        };
        let marked = match counts {
            Some((_, e, _)) if color && e > 0 => format!("\x1b[31m{text}\x1b[0m"),
            Some((_, _, f)) if color && f > 0 => format!("\x1b[33m{text}\x1b[0m"),
            _ => text,
        };
        out.push_str(&format!(
            "{:<56} {marked} {len:>10}\n",
            mcp_raw_wire::term::escape(&name)
        ));
    }
    if args.format == "json" {
        out = serde_json::to_string_pretty(&json).unwrap_or_default();
        out.push('\n');
    }
    print!("{out}");
    0
}

/// A recording's JSON-RPC messages, error responses among them, and what `check`
/// finds in it (errors and warnings).
fn count(events: &[mcp_raw_wire::event::Event], max: usize) -> (usize, usize, usize) {
    let mut rows = mcp_raw_wire::rows::Rows::with_max(max);
    let mut checker = Checker::with_max(max);
    let (mut messages, mut errors, mut findings) = (0, 0, Vec::new());
    for (n, e) in events.iter().enumerate() {
        for r in rows.feed(n, e) {
            if r["kind"] == "msg" {
                messages += 1;
                errors += usize::from(r["shape"] == "error");
            }
        }
        findings.extend(checker.feed(e));
    }
    findings.extend(checker.finish());
    let (e, w) = report::count(&findings);
    (messages, errors, e + w)
}
