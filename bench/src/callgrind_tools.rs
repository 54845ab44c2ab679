//! Instructions per event of the transcript tools under `valgrind --tool=callgrind`,
//! the count a noisy machine cannot move (as `callgrind.rs` gives the server's per
//! call). Each tool runs on two recordings of the same session, a short and a long
//! one; the difference of the totals divided by the difference of their events is
//! one event's cost, start-up and the end cancelled out. Beside them, the parse
//! floor (`floor-parse`: each line into serde_json's `IgnoredAny`) counted the same
//! way, and each tool's count as a multiple of it.
//!
//! ```text
//! mcp-bench callgrind-tools MCP-RAW SHORT.jsonl LONG.jsonl
//! ```

use std::io::BufRead;
use std::process::{Command, Stdio};

/// Prints the table for `raw` (mcp-raw's binary) on the two recordings.
pub fn main(args: &[String]) -> Result<(), String> {
    let [raw, short, long] = args else {
        return Err("usage: mcp-bench callgrind-tools MCP-RAW SHORT.jsonl LONG.jsonl".into());
    };
    let (few, many) = (events(short)?, events(long)?);
    if many <= few {
        return Err(format!(
            "{long} ({many} events) must hold more events than {short} ({few})"
        ));
    }
    let dir = std::env::temp_dir().join(format!("mcp-bench-cg-tools-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let me = std::env::current_exe().map_err(|e| e.to_string())?;
    let me = me.to_string_lossy().into_owned();
    let mut rows: Vec<(&str, String, Vec<String>)> =
        vec![("floor: parse", me, vec!["floor-parse".into()])];
    for (name, a) in crate::tools::TOOLS {
        rows.push((name, raw.clone(), a.iter().map(|s| s.to_string()).collect()));
    }
    println!(
        "\n### The transcript tools under callgrind (instructions per event: {short}, {few} events, and {long}, {many})\n"
    );
    println!("| tool | instructions per event | × parse floor |");
    println!("|---|---|---|");
    let mut floor = None;
    for (n, (name, program, a)) in rows.iter().enumerate() {
        let mut totals = Vec::new();
        for (i, file) in [short, long].into_iter().enumerate() {
            let mut a: Vec<&str> = a
                .iter()
                .map(|a| {
                    if a == "FILE" {
                        file.as_str()
                    } else {
                        a.as_str()
                    }
                })
                .collect();
            if !a.contains(&file.as_str()) {
                a.push(file);
            }
            let out = dir.join(format!("{n}-{i}.out"));
            let status = Command::new("valgrind")
                .arg("--tool=callgrind")
                .arg(format!("--callgrind-out-file={}", out.display()))
                .arg(program)
                .args(&a)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .map_err(|e| format!("valgrind: {e}"))?;
            // `diff` of a recording against itself says 0; anything else is 0 or 1
            // (`check`'s findings); 2 is a failure.
            if status.code().is_none_or(|c| c > 1) {
                return Err(format!("{name} on {file}: {status}"));
            }
            totals.push(crate::callgrind::total(&out)?);
        }
        let per = (totals[1] as f64 - totals[0] as f64) / (many - few) as f64;
        let base = *floor.get_or_insert(per);
        println!("| {name} | {per:.0} | {:.2}× |", per / base);
    }
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}

/// A recording's events: its lines after the header that are not fact lines.
fn events(file: &str) -> Result<u64, String> {
    let f = std::fs::File::open(file).map_err(|e| format!("{file}: {e}"))?;
    Ok(std::io::BufReader::new(f)
        .lines()
        .skip(1)
        .map_while(Result::ok)
        .filter(|l| !l.contains("\"fact\":"))
        .count() as u64)
}
