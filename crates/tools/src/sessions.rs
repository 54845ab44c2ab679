//! The sessions directory (`STATE/sessions/`): a tap's file per session
//! (`tap --record-dir`), the old ones pruned at start by age and total size;
//! `mcp-raw sessions`, the list, newest first, with each one's messages, error
//! responses and findings; a session's short name turned back into its file.
//!
//! [`Listing::read`] returns the list as values, [`Listing::text`] and
//! [`Listing::json`] its two renderings; the caller prints them.

use crate::check::Checker;
use crate::check::report;
use crate::wire;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// The file name's extension.
const EXT: &str = "jsonl";

/// `text` with `/` and anything outside `[A-Za-z0-9.-]` made `_`: safe in a file
/// name on every system (also `wrap`'s backups).
pub(crate) fn file_safe(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '.' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// `NAME` as a file name's part ([`file_safe`]), never empty or hidden.
fn part(name: &str) -> String {
    let s = file_safe(name);
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
    std::fs::create_dir_all(dir)
        .map_err(|e| anyhow::anyhow!("--record-dir {}: cannot create it: {e}", dir.display()))?;
    prune(dir, max_age_days, max_bytes);
    let stamp: String = wire::clock::now_rfc3339()
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

/// Removes the recordings older than `max_age_days`, then the oldest until the rest
/// total at most `max_bytes` (0 turns either limit off); one that cannot be removed
/// is logged and kept.
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

/// The sessions directory of the state directory `state` (`--state-dir`), or of
/// the default one (see [`crate::wrap::clients::state_dir`]).
pub fn dir(state: Option<&Path>) -> anyhow::Result<PathBuf> {
    Ok(match state {
        Some(s) => s.join("sessions"),
        None => crate::wrap::clients::state_dir()?.join("sessions"),
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

/// What one recording holds, as `check` and the rows count it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Counts {
    /// Its JSON-RPC messages, both directions.
    pub messages: usize,
    /// The error responses among them.
    pub errors: usize,
    /// What `check` finds in it: errors and warnings.
    pub findings: usize,
}

/// One session in the sessions directory.
pub struct Session {
    /// Its short name: the file name without `.jsonl` (what `show`, `check` and
    /// `ui` take in place of a file).
    pub name: String,
    /// Its file.
    pub path: PathBuf,
    /// The file's size.
    pub bytes: u64,
    /// When it was last written.
    pub modified: SystemTime,
    /// Its counts, or `None` when it cannot be read as a transcript.
    pub counts: Option<Counts>,
}

/// The sessions of one directory, newest first.
pub struct Listing {
    /// The directory listed.
    pub dir: PathBuf,
    /// Its sessions, newest first.
    pub sessions: Vec<Session>,
}

impl Listing {
    /// Reads `dir` (an absent one holds no session), each recording counted with
    /// messages read whole up to `max_message_bytes`.
    pub fn read(dir: &Path, max_message_bytes: usize) -> std::io::Result<Listing> {
        let all = match recordings(dir) {
            Ok(all) => all,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(e) => return Err(e),
        };
        let sessions = all
            .into_iter()
            .map(|(path, bytes, modified)| {
                let name = path
                    .file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_default();
                let counts = std::fs::read(&path)
                    .ok()
                    .and_then(|text| wire::transcript::read_bytes(&text).ok())
                    .map(|(_, events)| count(&events, max_message_bytes));
                Session {
                    name,
                    path,
                    bytes,
                    modified,
                    counts,
                }
            })
            .collect();
        Ok(Listing {
            dir: dir.to_owned(),
            sessions,
        })
    }

    /// The list as text: a count and the directory, then a line per session (its
    /// counts red when it has error responses, yellow when findings, if `color`).
    pub fn text(&self, color: bool) -> String {
        let mut out = format!(
            "{} session(s) in {}\n",
            self.sessions.len(),
            self.dir.display()
        );
        if !self.sessions.is_empty() {
            out.push_str(&format!(
                "{:<56} {:>8} {:>6} {:>8} {:>10}\n",
                "SESSION", "MESSAGES", "ERRORS", "FINDINGS", "BYTES"
            ));
        }
        for s in &self.sessions {
            let text = match s.counts {
                Some(c) => format!("{:>8} {:>6} {:>8}", c.messages, c.errors, c.findings),
                None => format!("{:>24}", "(unreadable)"),
            };
            let marked = match s.counts {
                Some(c) if color && c.errors > 0 => format!("\x1b[31m{text}\x1b[0m"),
                Some(c) if color && c.findings > 0 => format!("\x1b[33m{text}\x1b[0m"),
                _ => text,
            };
            out.push_str(&format!(
                "{:<56} {marked} {:>10}\n",
                wire::term::escape(&s.name),
                s.bytes
            ));
        }
        out
    }

    /// The list as a JSON array (pretty, a line break after it): each session's
    /// name, path, counts (`null` when unreadable), size and time.
    pub fn json(&self) -> String {
        let json: Vec<serde_json::Value> = self
            .sessions
            .iter()
            .map(|s| {
                let millis = s
                    .modified
                    .duration_since(SystemTime::UNIX_EPOCH)
                    .map_or(0, |d| d.as_millis() as i64);
                serde_json::json!({
                    "session": s.name,
                    "path": s.path.to_string_lossy(),
                    "messages": s.counts.map(|c| c.messages),
                    "errors": s.counts.map(|c| c.errors),
                    "findings": s.counts.map(|c| c.findings),
                    "bytes": s.bytes,
                    "modified": wire::clock::format_unix_millis(millis),
                })
            })
            .collect();
        let mut out = serde_json::to_string_pretty(&json).unwrap_or_default();
        out.push('\n');
        out
    }
}

/// A recording's JSON-RPC messages, error responses among them, and what `check`
/// finds in it (errors and warnings).
fn count(events: &[wire::event::Event], max: usize) -> Counts {
    let mut rows = wire::rows::Rows::with_max(max);
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
    Counts {
        messages,
        errors,
        findings: e + w,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A scratch directory of this test's own, removed first if a run left it.
    fn scratch(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("mcp-raw-sessions-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    #[test]
    fn names_become_file_name_parts() {
        assert_eq!(part("cursor/github"), "cursor_github");
        assert_eq!(part("a b:c.d-e"), "a_b_c.d-e");
        assert_eq!(part(".hidden"), "_.hidden");
        assert_eq!(part(""), "_");
    }

    #[test]
    fn start_makes_the_directory_and_prunes_the_oldest_over_the_size() {
        let dir = scratch("prune");
        let path = start(&dir, "c/s", 0, 0).expect("starts");
        assert!(dir.is_dir());
        let file = path.file_name().and_then(|n| n.to_str()).expect("a name");
        assert!(
            file.starts_with("c_s_") && file.ends_with(&format!("_p{}.jsonl", std::process::id())),
            "{file}"
        );
        // Three recordings of 10 bytes, oldest first by name (same mtime: the
        // later name counts as newer); a limit of 25 bytes keeps the newest two.
        for n in ["a", "b", "c"] {
            std::fs::write(dir.join(format!("{n}.jsonl")), [b'x'; 10]).expect("writes");
        }
        std::fs::write(dir.join("notes.txt"), [b'x'; 100]).expect("writes");
        start(&dir, "c/s", 0, 25).expect("starts");
        let left: Vec<String> = recordings(&dir)
            .expect("lists")
            .into_iter()
            .map(|(p, _, _)| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(left.len(), 2, "{left:?}");
        assert!(
            dir.join("notes.txt").exists(),
            "only .jsonl files are pruned"
        );
        std::fs::remove_dir_all(&dir).expect("cleans up");
    }

    #[test]
    fn an_absent_directory_lists_nothing_and_an_unreadable_session_says_so() {
        let dir = scratch("list");
        let empty = Listing::read(&dir, 1024).expect("absent is empty");
        assert_eq!(
            empty.text(false),
            format!("0 session(s) in {}\n", dir.display())
        );
        assert_eq!(empty.json(), "[]\n");
        std::fs::create_dir_all(&dir).expect("makes");
        std::fs::write(dir.join("x_1.jsonl"), "not a transcript\n").expect("writes");
        let one = Listing::read(&dir, 1024).expect("reads");
        assert_eq!(one.sessions.len(), 1);
        assert_eq!(one.sessions[0].name, "x_1");
        assert_eq!(one.sessions[0].counts, None);
        let text = one.text(true);
        assert!(text.contains("(unreadable)"), "{text}");
        assert!(!text.contains('\x1b'), "nothing to colour: {text:?}");
        let json: serde_json::Value = serde_json::from_str(&one.json()).expect("JSON");
        assert_eq!(json[0]["session"], "x_1");
        assert_eq!(json[0]["messages"], serde_json::Value::Null);
        assert_eq!(json[0]["bytes"], 17);
        std::fs::remove_dir_all(&dir).expect("cleans up");
    }
}
