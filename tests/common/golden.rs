//! Golden files: the one normalizer, and the byte-for-byte comparison with
//! `tests/golden/`.
//!
//! [`check`] compares an output, once [`normalize`]d, with its file under
//! `tests/golden/` byte for byte; `UPDATE_GOLDEN=1` rewrites the file instead (after
//! a deliberate change to what is printed: review the diff, the file is the spec).
//!
//! [`normalize`] replaces what differs from one run of the same command to the next,
//! and nothing else:
//!
//! - **Times.** RFC 3339 timestamps (`2026-12-02T15:51:38.300Z`, the transcript's
//!   `started`, a tool's answer) become `<time>`; HTTP dates in the IMF-fixdate form
//!   of RFC 9110 §5.6.7 (`Wed, 02 Dec 2026 15:51:38 GMT`, the `Date` header) become
//!   `<date>`; offsets since the start in seconds with a fraction (`[c1 +0.004s]`, the
//!   `--oneline` column, `check`'s `event 2 stdio c2s 0.000269s`) become `<t>s`; and
//!   the value of a JSON member named `t` (a transcript event's offset) becomes `<t>`.
//! - **Ids.** UUIDs (an `Mcp-Session-Id`, a task id) become `<uuid>`.
//! - **Ports.** The port after `127.0.0.1:`, `localhost:` or `[::1]:` becomes
//!   `<port>` (servers in tests bind port 0).
//! - **Paths.** The binary's own path becomes `<bin>` (a recording names the command it
//!   spawned; the path depends on where the repository is checked out), and this test
//!   run's scratch directory ([`scratch`], named after the temp dir and the process
//!   id) `<scratch>`.
//! - **The order of a child's stderr.** A stdio server's stderr reaches the client
//!   through another pipe than its stdout, so where its lines fall among the messages
//!   depends on scheduling: the view's `[server stderr]` lines and a transcript's
//!   `"lane":"stderr"` lines are left out.
//! - **The order of a connection's end.** Which side's close is seen first, and as
//!   what (`EOF`, `dropped`, `shutdown`), is a race at teardown: the view's
//!   `··· [LANE +<t>s] DIR closed: …` notes and a transcript's `"close"` lines are left
//!   out.
//!
//! Every replacement keeps the rest of the line as it was: what is left is compared
//! exactly, spacing, `\r` marks and sizes included. Anything else that differs from
//! run to run is a finding (a race in what is printed), to be fixed or added here
//! with its reason; never a reason to compare less. Outputs made from a recording
//! kept in `tests/golden/` are compared with [`compare`], unnormalized.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// `tests/golden/`.
pub fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden")
}

/// Whether this run rewrites the golden files (`UPDATE_GOLDEN=1`).
pub fn updating() -> bool {
    std::env::var_os("UPDATE_GOLDEN").is_some_and(|v| v != "0" && !v.is_empty())
}

/// This run's own scratch directory (`$TMPDIR/mcp-raw-golden-PID`), made once;
/// [`normalize`] writes it `<scratch>`.
pub fn scratch() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("mcp-raw-golden-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("a scratch directory");
        dir
    })
}

/// Compares `got`, normalized, with `tests/golden/NAME` byte for byte (or writes it
/// there under `UPDATE_GOLDEN=1`). On a difference, the whole normalized output is
/// left in the temp dir and the first differing line is shown.
pub fn check(name: &str, got: &str) {
    compare(name, &normalize(got));
}

/// As [`check`], for an output already normalized (or one that needs no normalizing).
pub fn compare(name: &str, got: &str) {
    let path = dir().join(name);
    if updating() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, got).unwrap();
        return;
    }
    let want = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (UPDATE_GOLDEN=1 writes it)", path.display()));
    if got != want {
        let kept = std::env::temp_dir().join(format!("{}.got", name.replace('/', "-")));
        let _ = std::fs::write(&kept, got);
        let line = got
            .lines()
            .zip(want.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(got.lines().count().min(want.lines().count()));
        panic!(
            "{name} differs from the golden file at line {} (the whole output is in {}):\n got: {:?}\nwant: {:?}\n(UPDATE_GOLDEN=1 rewrites it after a deliberate change)",
            line + 1,
            kept.display(),
            got.lines().nth(line),
            want.lines().nth(line)
        );
    }
}

/// The golden files' one normalizer: see the module's documentation for what it
/// replaces and why. Line ends (`\n`, `\r\n`, none at the end) stay as they were.
pub fn normalize(text: &str) -> String {
    let text = text
        .replace(env!("CARGO_BIN_EXE_mcp-raw"), "<bin>")
        .replace(scratch().to_str().unwrap(), "<scratch>");
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let closed = (line.starts_with("··· [") && line.contains(" closed: "))
            || line.contains("\",\"close\":\"");
        if closed || line.contains("[server stderr]") || line.contains("\"lane\":\"stderr\"") {
            continue;
        }
        out.push_str(&normalize_line(line));
    }
    out
}

fn normalize_line(line: &str) -> String {
    let b = line.as_bytes();
    let mut out = String::with_capacity(line.len());
    let mut i = 0;
    // Copied bytes are pushed whole UTF-8 sequences at a time: every match starts at
    // an ASCII byte, so `i` only lands on character boundaries.
    while i < b.len() {
        let before = if i == 0 { b' ' } else { b[i - 1] };
        let rest = &b[i..];
        if !before.is_ascii_alphanumeric()
            && let Some(n) = uuid(rest)
        {
            out.push_str("<uuid>");
            i += n;
        } else if !before.is_ascii_alphanumeric()
            && let Some(n) = rfc3339(rest)
        {
            out.push_str("<time>");
            i += n;
        } else if let Some(n) = imf_fixdate(rest) {
            out.push_str("<date>");
            i += n;
        } else if let Some((host, n)) = host_port(rest) {
            out.push_str(host);
            out.push_str(":<port>");
            i += n;
        } else if !(before.is_ascii_alphanumeric() || before == b'.')
            && let Some(n) = seconds(rest)
        {
            out.push_str("<t>s");
            i += n;
        } else if let Some((key, n)) = json_t(rest) {
            out.push_str(key);
            out.push_str("<t>");
            i += n;
        } else {
            let len = utf8_len(b[i]);
            out.push_str(&line[i..i + len]);
            i += len;
        }
    }
    out
}

fn utf8_len(first: u8) -> usize {
    match first {
        0xf0.. => 4,
        0xe0.. => 3,
        0xc0.. => 2,
        _ => 1,
    }
}

fn digits(b: &[u8]) -> usize {
    b.iter().take_while(|c| c.is_ascii_digit()).count()
}

/// Whether `b` starts with `pattern`, where `9` stands for any digit and `a` for any
/// ASCII letter.
fn shaped(b: &[u8], pattern: &str) -> bool {
    b.len() >= pattern.len()
        && pattern.bytes().zip(b).all(|(p, c)| match p {
            b'9' => c.is_ascii_digit(),
            b'a' => c.is_ascii_alphabetic(),
            _ => p == *c,
        })
}

/// `8-4-4-4-12` hex digits, not followed by another hex digit.
fn uuid(b: &[u8]) -> Option<usize> {
    let ok = b.len() >= 36
        && b[..36].iter().enumerate().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => *c == b'-',
            _ => c.is_ascii_hexdigit(),
        })
        && !b.get(36).is_some_and(u8::is_ascii_alphanumeric);
    ok.then_some(36)
}

/// RFC 3339 §5.6 `date-time`: `2026-12-02T15:51:38[.300](Z|+01:00)`.
fn rfc3339(b: &[u8]) -> Option<usize> {
    if !shaped(b, "9999-99-99T99:99:99") {
        return None;
    }
    let mut n = 19;
    if b.get(n) == Some(&b'.') && digits(&b[n + 1..]) > 0 {
        n += 1 + digits(&b[n + 1..]);
    }
    match b.get(n) {
        Some(b'Z' | b'z') => Some(n + 1),
        Some(b'+' | b'-') if shaped(&b[n + 1..], "99:99") => Some(n + 6),
        _ => None,
    }
}

/// RFC 9110 §5.6.7 IMF-fixdate: `Wed, 02 Dec 2026 15:51:38 GMT`.
fn imf_fixdate(b: &[u8]) -> Option<usize> {
    shaped(b, "aaa, 99 aaa 9999 99:99:99 GMT").then_some(29)
}

/// `127.0.0.1:PORT`, `localhost:PORT`, `[::1]:PORT`: the host, and the length to
/// the port's end.
fn host_port(b: &[u8]) -> Option<(&'static str, usize)> {
    for host in ["127.0.0.1", "localhost", "[::1]"] {
        if b.starts_with(host.as_bytes()) && b.get(host.len()) == Some(&b':') {
            let port = digits(&b[host.len() + 1..]);
            if port > 0 {
                return Some((host, host.len() + 1 + port));
            }
        }
    }
    None
}

/// Seconds with a fraction: `0.004s`, `12.5s`, not followed by a letter or digit.
fn seconds(b: &[u8]) -> Option<usize> {
    let whole = digits(b);
    if whole == 0 || b.get(whole) != Some(&b'.') {
        return None;
    }
    let frac = digits(&b[whole + 1..]);
    let n = whole + 1 + frac;
    (frac > 0 && b.get(n) == Some(&b's') && !b.get(n + 1).is_some_and(u8::is_ascii_alphanumeric))
        .then_some(n + 1)
}

/// A JSON member `"t":NUMBER` or `"t": NUMBER`: the key with its colon and space,
/// and the length to the number's end.
fn json_t(b: &[u8]) -> Option<(&'static str, usize)> {
    for key in ["\"t\": ", "\"t\":"] {
        if b.starts_with(key.as_bytes()) {
            let n = b[key.len()..]
                .iter()
                .take_while(|c| c.is_ascii_digit() || matches!(c, b'.' | b'-' | b'e' | b'E' | b'+'))
                .count();
            if n > 0 {
                return Some((key, key.len() + n));
            }
        }
    }
    None
}
