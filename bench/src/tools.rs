//! `mcp-bench tools`: the transcript tools against their floors, on one recording,
//! each as a process of its own with its stdout to /dev/null, interleaved repetition
//! by repetition. The floors: reading the file (`floor-read`: 256 KiB reads, nothing
//! done with them, what `cat > /dev/null` costs) and parsing every line with
//! serde_json into `IgnoredAny` (`floor-parse`: the least a JSON Lines reader does).
//! Printed: median seconds, MB/s and events/s, peak RSS (the kernel's `ru_maxrss`
//! from `wait4`), and each row's time as a multiple of the parse floor's in the same
//! repetition (the median of those ratios). `diff` compares the recording with
//! itself; `export har` is measured on a recording made over HTTP.
//!
//! ```text
//! mcp-bench tools RECORDING MCP-RAW [--reps N]
//! mcp-bench floor-read FILE | floor-parse FILE
//! ```

use crate::table::median;
use std::io::{BufRead, Read};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The tools measured: a row name and `mcp-raw`'s arguments (the file is appended,
/// or put where `FILE` stands).
pub const TOOLS: &[(&str, &[&str])] = &[
    ("show --raw", &["show", "--raw", "--color", "never"]),
    ("show (text view)", &["show", "--color", "never"]),
    ("show --oneline", &["show", "--oneline", "--color", "never"]),
    ("show --pretty", &["show", "--pretty"]),
    ("check", &["check"]),
    ("stats", &["stats"]),
    (
        "diff (the recording against itself)",
        &["diff", "FILE", "FILE", "--color", "never"],
    ),
];

/// Measured only on a recording made over HTTP (`make_recording.py N FILE --http`):
/// a stdio one has nothing to export.
const HTTP_TOOLS: &[(&str, &[&str])] = &[("export har", &["export", "har"])];

/// `floor-read FILE`: reads it to the end, 256 KiB at a time.
pub fn floor_read(file: &str) -> Result<(), String> {
    let mut f = std::fs::File::open(file).map_err(|e| format!("{file}: {e}"))?;
    let mut buf = vec![0u8; 256 * 1024];
    while f.read(&mut buf).map_err(|e| e.to_string())? > 0 {}
    Ok(())
}

/// `floor-parse FILE`: every line parsed as JSON into `IgnoredAny`, none kept.
pub fn floor_parse(file: &str) -> Result<(), String> {
    let f = std::fs::File::open(file).map_err(|e| format!("{file}: {e}"))?;
    let mut input = std::io::BufReader::with_capacity(256 * 1024, f);
    let mut line = Vec::new();
    let mut n = 0u64;
    loop {
        line.clear();
        if input
            .read_until(b'\n', &mut line)
            .map_err(|e| e.to_string())?
            == 0
        {
            break;
        }
        serde_json::from_slice::<serde::de::IgnoredAny>(&line)
            .map_err(|e| format!("line {}: {e}", n + 1))?;
        n += 1;
    }
    Ok(())
}

/// One run: wall time and peak RSS (KiB) of `program args…` with stdout to /dev/null.
fn run(program: &str, args: &[&str]) -> Result<(Duration, u64), String> {
    let start = Instant::now();
    let child = Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("{program}: {e}"))?;
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: a zeroed rusage filled by wait4 for our own child, reaped here once.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let got = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    let took = start.elapsed();
    if got != pid {
        return Err(format!("{program} {args:?}: wait4 failed"));
    }
    // Exit 0 or 1 (check and stats report findings with 1); anything else failed.
    if !libc::WIFEXITED(status) || libc::WEXITSTATUS(status) > 1 {
        return Err(format!("{program} {args:?}: exit status {status}"));
    }
    Ok((took, usage.ru_maxrss as u64))
}

pub fn main(args: &[String]) -> Result<(), String> {
    let usage = "usage: mcp-bench tools RECORDING MCP-RAW [--reps N]";
    let (file, raw) = match args {
        [f, r, ..] => (f.as_str(), r.as_str()),
        _ => return Err(usage.into()),
    };
    let reps = match args.get(2).map(String::as_str) {
        Some("--reps") => args
            .get(3)
            .and_then(|v| v.parse::<usize>().ok())
            .filter(|n| *n > 0)
            .ok_or("--reps: want a positive count")?,
        None => 3,
        Some(other) => return Err(format!("unknown argument {other:?}; {usage}")),
    };
    let bytes = std::fs::metadata(file)
        .map_err(|e| format!("{file}: {e}"))?
        .len();
    let events = {
        let f = std::fs::File::open(file).map_err(|e| format!("{file}: {e}"))?;
        std::io::BufReader::new(f)
            .lines()
            .skip(1)
            .map_while(Result::ok)
            .filter(|l| !l.contains("\"fact\":"))
            .count()
    };
    let me = std::env::current_exe().map_err(|e| e.to_string())?;
    let me = me.to_string_lossy().into_owned();
    let mut rows: Vec<(String, String, Vec<String>)> = vec![
        ("floor: read".into(), me.clone(), vec!["floor-read".into()]),
        (
            "floor: parse".into(),
            me.clone(),
            vec!["floor-parse".into()],
        ),
    ];
    let http = {
        let f = std::fs::File::open(file).map_err(|e| format!("{file}: {e}"))?;
        let mut first = String::new();
        std::io::BufReader::new(f)
            .read_line(&mut first)
            .map_err(|e| format!("{file}: {e}"))?;
        first.contains("\"transport\":\"http\"")
    };
    let http_tools = if http { HTTP_TOOLS } else { &[] };
    for (name, a) in TOOLS.iter().chain(http_tools) {
        rows.push((
            name.to_string(),
            raw.to_owned(),
            a.iter().map(|s| s.to_string()).collect(),
        ));
    }
    // rows × reps: (seconds, peak KiB)
    let mut got: Vec<Vec<(f64, f64)>> = vec![Vec::new(); rows.len()];
    for _ in 0..reps {
        for (i, (_, program, a)) in rows.iter().enumerate() {
            let mut a: Vec<&str> = a
                .iter()
                .map(|a| if a == "FILE" { file } else { a.as_str() })
                .collect();
            if !a.contains(&file) {
                a.push(file);
            }
            let (took, kib) = run(program, &a)?;
            got[i].push((took.as_secs_f64(), kib as f64));
        }
    }
    let mb = bytes as f64 / 1e6;
    println!(
        "\n### The transcript tools on one recording ({:.1} MB, {events} events; {reps} repetitions, medians)\n",
        mb
    );
    println!("| tool | seconds | MB/s | events/s | peak RSS (MiB) | × parse floor |");
    println!("|---|---|---|---|---|---|");
    for (i, (name, _, _)) in rows.iter().enumerate() {
        let secs = median(got[i].iter().map(|g| g.0).collect()).unwrap_or(f64::NAN);
        let rss = median(got[i].iter().map(|g| g.1).collect()).unwrap_or(f64::NAN) / 1024.0;
        let ratio = median(
            got[i]
                .iter()
                .zip(&got[1])
                .map(|(g, floor)| g.0 / floor.0)
                .collect(),
        )
        .unwrap_or(f64::NAN);
        println!(
            "| {name} | {secs:.3} | {:.1} | {:.0} | {rss:.1} | {ratio:.2}× |",
            mb / secs,
            events as f64 / secs
        );
    }
    Ok(())
}
