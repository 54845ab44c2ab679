//! `mcp-raw diff A B`: two recordings compared message by message; exit 1 when they
//! differ.

use super::args::DiffArgs;
use super::console::Console;
use mcp_raw_tools::replay::diff::{self, Ignore};
use serde_json::json;

/// Runs `diff`; returns the exit status: 0 same, 1 different, 2 unreadable or usage.
pub fn main(args: DiffArgs, console: &Console) -> u8 {
    let (a, b, format, max_shown) = (&args.a, &args.b, args.format.as_str(), args.max_shown);
    let color = args.color.enabled(console);
    let ignore = match rules(&args.ignore) {
        Ok(i) => i,
        Err(e) => {
            console.say(format_args!(
                "mcp-raw diff: {}",
                mcp_raw_wire::term::escape(&e)
            ));
            return 2;
        }
    };
    let (ea, eb) = match (read(a), read(b)) {
        (Ok(x), Ok(y)) => (x, y),
        (Err(e), _) | (_, Err(e)) => {
            console.say(format_args!(
                "mcp-raw diff: {}",
                mcp_raw_wire::term::escape(&e)
            ));
            return 2;
        }
    };
    let (ac, as_) = diff::messages(&ea);
    let (bc, bs) = diff::messages(&eb);
    let found = diff::diff(&ea, &eb, &ignore);
    let mut out = String::new();
    if format == "json" {
        let list: Vec<_> = found
            .iter()
            .map(|d| json!({"dir": d.dir.name(), "n": d.n, "what": d.what, "detail": d.detail}))
            .collect();
        out = serde_json::to_string_pretty(&json!({
            "a": {"c2s": ac.len(), "s2c": as_.len()},
            "b": {"c2s": bc.len(), "s2c": bs.len()},
            "differences": list,
        }))
        .unwrap_or_default()
            + "\n";
    } else {
        let s = if color {
            &mcp_raw_wire::text::COLOR
        } else {
            &mcp_raw_wire::text::PLAIN
        };
        for d in found.iter().take(max_shown) {
            out.push_str(&format!(
                "{}{} message {} ({}):{} {}\n",
                s.caption,
                d.dir.name(),
                d.n,
                // Both quote the recordings: shown, not obeyed by the terminal.
                mcp_raw_wire::term::escape_line(&d.what),
                s.reset,
                mcp_raw_wire::term::escape_line(&d.detail)
            ));
        }
        if found.len() > max_shown {
            out.push_str(&format!("… and {} more\n", found.len() - max_shown));
        }
        out.push_str(&format!(
            "{} difference{} (A: {} c2s, {} s2c messages; B: {} c2s, {} s2c)\n",
            found.len(),
            if found.len() == 1 { "" } else { "s" },
            ac.len(),
            as_.len(),
            bc.len(),
            bs.len()
        ));
    }
    console.print(out);
    u8::from(!found.is_empty())
}

/// `--ignore`: the defaults when none is given, nothing for `none`.
pub fn rules(given: &[String]) -> Result<Vec<Ignore>, String> {
    if given.is_empty() {
        return Ok(Ignore::defaults());
    }
    if given.iter().any(|g| g == "none") {
        return Ok(Vec::new());
    }
    given
        .iter()
        .flat_map(|g| g.split(','))
        .map(|g| Ignore::parse(g.trim()).map_err(|e| format!("--ignore {g:?}: {e}")))
        .collect()
}

fn read(file: &std::path::Path) -> Result<Vec<mcp_raw_wire::event::Event>, String> {
    super::read_transcript(file).map(|(_, events)| events)
}
