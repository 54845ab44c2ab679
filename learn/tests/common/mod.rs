//! What the learn tests share: the programs under test (the learn binaries, and
//! mcp-raw's from the same target directory), children with a time limit, and the
//! transcripts mcp-raw records, read with learn's own JSON parser (std only).

#![allow(dead_code)] // each test file uses part of this

use learn::json::{self, Json};
use std::io::{BufRead, BufReader, Read};
use std::path::PathBuf;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

/// A learn binary.
pub fn learn_bin(name: &str) -> PathBuf {
    let path = match name {
        "demo" => env!("CARGO_BIN_EXE_demo"),
        "demo-http" => env!("CARGO_BIN_EXE_demo-http"),
        other => panic!("no learn binary {other}"),
    };
    PathBuf::from(path)
}

/// mcp-raw's binary, beside learn's in the target directory: `cargo test` at the
/// workspace root builds both (mcp-raw's own tests need it). A test run of learn
/// alone must build it first.
pub fn mcp_raw() -> PathBuf {
    let path = learn_bin("demo").with_file_name(format!("mcp-raw{}", std::env::consts::EXE_SUFFIX));
    assert!(
        path.is_file(),
        "{} is missing: run `cargo build --bin mcp-raw` (or `cargo test` at the workspace root) first",
        path.display()
    );
    path
}

/// A fresh scratch directory for one test.
pub fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("learn-tests-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    dir
}

/// Runs `command` to its end, or kills it after `secs` and fails.
pub fn run(command: &mut Command, secs: u64) -> Output {
    let child = command.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("spawn");
    let pid = child.id();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    match rx.recv_timeout(Duration::from_secs(secs)) {
        Ok(out) => out.expect("the child's output"),
        Err(_) => {
            let _ = Command::new("kill").arg("-KILL").arg(pid.to_string()).status();
            panic!("{command:?} did not finish within {secs} s");
        }
    }
}

/// A server or tap started in the background, ended (TERM, then waited for) on drop,
/// so that it writes its record to the end.
pub struct Background {
    /// The running process.
    pub child: Child,
    /// The URL it printed on stderr (`listening on http://…`).
    pub url: String,
}

impl Drop for Background {
    fn drop(&mut self) {
        let _ = Command::new("kill").arg("-TERM").arg(self.child.id().to_string()).status();
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts `command` and waits (10 s at most) for the `http://…` URL it prints on
/// stderr after `marker`; the rest of its stderr is drained.
pub fn start(command: &mut Command, marker: &str) -> Background {
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let stderr = child.stderr.take().expect("stderr");
    let (tx, rx) = std::sync::mpsc::channel();
    let marker = marker.to_owned();
    std::thread::spawn(move || {
        let mut lines = BufReader::new(stderr).lines();
        for line in lines.by_ref().map_while(Result::ok) {
            if let Some(at) = line.find(&marker) {
                let rest = &line[at + marker.len()..];
                let url = rest.split([' ', ',']).next().unwrap_or_default().to_owned();
                let _ = tx.send(url);
                break;
            }
        }
        lines.for_each(drop);
    });
    let url = rx.recv_timeout(Duration::from_secs(10)).unwrap_or_default();
    let background = Background { child, url };
    assert!(background.url.starts_with("http://"), "{command:?} never said where it listens");
    background
}

/// The bytes a transcript saw, per lane and direction (`("stdio", "s2c")`,
/// `("c1", "c2s")`, …), each the concatenation of the lane's `text` events in order:
/// the wire itself. The `stderr` lane (a server's logs) is not the wire.
pub fn wire(record: &std::path::Path) -> Vec<((String, String), String)> {
    let mut text = String::new();
    std::fs::File::open(record)
        .and_then(|mut f| f.read_to_string(&mut text))
        .unwrap_or_else(|e| panic!("{}: {e}", record.display()));
    let mut lanes: Vec<((String, String), String)> = Vec::new();
    for line in text.lines().skip(1) {
        let event = json::parse(line.as_bytes())
            .unwrap_or_else(|e| panic!("a transcript line: {e}: {line}"));
        let field = |name| event.get(name).and_then(Json::as_str).map(str::to_owned);
        let (Some(lane), Some(dir), Some(bytes)) = (field("lane"), field("dir"), field("text"))
        else {
            continue;
        };
        if lane == "stderr" {
            continue;
        }
        match lanes.iter_mut().find(|(key, _)| key.0 == lane && key.1 == dir) {
            Some((_, all)) => all.push_str(&bytes),
            None => lanes.push(((lane, dir), bytes)),
        }
    }
    lanes.sort();
    lanes.iter_mut().for_each(|(_, bytes)| *bytes = normalize(bytes));
    lanes
}

/// What differs from run to run and nothing else: session ids (UUIDs), the time
/// (`get_current_time`'s RFC 3339 answer, HTTP `date:` headers) and loopback ports.
/// Each is replaced by a fixed word of the same kind; every other byte stays.
pub fn normalize(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        let shapes: [Shape; 3] = [
            ("<session-id>", 36, is_uuid),
            ("<time>", 24, is_rfc3339),
            ("<http-date>", 29, is_http_date),
        ];
        if let Some((word, len, _)) =
            shapes.iter().find(|(_, len, ok)| rest.get(..*len).is_some_and(ok))
        {
            out.push_str(word);
            rest = &rest[*len..];
        } else if let Some(after) = rest.strip_prefix("127.0.0.1:") {
            let digits = after.bytes().take_while(u8::is_ascii_digit).count();
            out.push_str("127.0.0.1:<port>");
            rest = &after[digits..];
        } else {
            out.push(c);
            rest = &rest[c.len_utf8()..];
        }
    }
    out
}

/// A run-to-run value: the word it becomes, its length, its test.
type Shape = (&'static str, usize, fn(&str) -> bool);

/// `8-4-4-4-12` lower-case hex digits.
fn is_uuid(s: &str) -> bool {
    s.bytes().enumerate().all(|(i, b)| match i {
        8 | 13 | 18 | 23 => b == b'-',
        _ => b.is_ascii_hexdigit(),
    })
}

/// `2026-12-07T13:38:06.054Z`.
fn is_rfc3339(s: &str) -> bool {
    s.bytes().enumerate().all(|(i, b)| match i {
        4 | 7 => b == b'-',
        10 => b == b'T',
        13 | 16 => b == b':',
        19 => b == b'.',
        23 => b == b'Z',
        _ => b.is_ascii_digit(),
    })
}

/// `Mon, 07 Dec 2026 13:38:19 GMT`.
fn is_http_date(s: &str) -> bool {
    s.ends_with(" GMT")
        && s.as_bytes()[3] == b','
        && s.as_bytes()[19] == b':'
        && s.as_bytes()[22] == b':'
}
