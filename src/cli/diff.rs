//! `mcp-raw diff A B`: two recordings compared message by message; exit 1 when they
//! differ. Both are read as streams, side by side ([`align`]): memory holds the
//! messages waiting for their match (at most `--window` a direction), the
//! differences shown (`--max-shown`) and, for `--format json`, the differences'
//! text, kept on disk past [`SPOOL_IN_MEMORY`] bytes; never a whole recording.

use super::args::DiffArgs;
use super::console::Console;
use mcp_raw_tools::replay::align::{self, Side};
use mcp_raw_tools::replay::diff::{Difference, Ignore};
use mcp_raw_wire::event::Dir;
use serde_json::json;
use std::io::{Read, Seek, Write};

/// The JSON differences' text held in memory before it goes to a file.
pub const SPOOL_IN_MEMORY: usize = 8 * 1024 * 1024;

/// Runs `diff`; returns the exit status: 0 same, 1 different, 2 unreadable or usage.
pub fn main(args: DiffArgs, console: &Console) -> u8 {
    let (a, b, format, max_shown) = (&args.a, &args.b, args.format.as_str(), args.max_shown);
    let color = args.color.enabled(console);
    let fail = |e: &str| {
        console.say(format_args!(
            "mcp-raw diff: {}",
            mcp_raw_wire::term::escape(e)
        ));
        2
    };
    let ignore = match rules(&args.ignore) {
        Ok(i) => i,
        Err(e) => return fail(&e),
    };
    let (ea, eb) = match (super::open_transcript(a), super::open_transcript(b)) {
        (Ok((_, x)), Ok((_, y))) => (x, y),
        (Err(e), _) | (_, Err(e)) => return fail(&e),
    };
    let json = format == "json";
    // Per direction (c2s, s2c): how many differ, the first shown, or (json) all.
    let mut total = [0usize; 2];
    let mut shown: [Vec<Difference>; 2] = Default::default();
    let mut spools = [Spool::new(SPOOL_IN_MEMORY), Spool::new(SPOOL_IN_MEMORY)];
    let mut spool_error = None;
    let read = align::align(ea, eb, &ignore, args.window, &mut |d| {
        let i = usize::from(d.dir == Dir::ToClient);
        total[i] += 1;
        if json {
            let item = json!({"dir": d.dir.name(), "n": d.n, "what": d.what, "detail": d.detail});
            if let Err(e) = spools[i].push(&item) {
                spool_error.get_or_insert(e);
            }
        } else if shown[i].len() < max_shown {
            shown[i].push(d);
        }
    });
    let counts = match read {
        Ok(c) => c,
        Err((side, why)) => {
            let file = if side == Side::A { a } else { b };
            return fail(&format!(
                "{} is not a transcript mcp-raw can read: {why}",
                file.display()
            ));
        }
    };
    if let Some(e) = spool_error {
        return fail(&format!("cannot keep the differences on disk: {e}"));
    }
    let found = total[0] + total[1];
    let [ac, as_] = counts.a;
    let [bc, bs] = counts.b;
    if json {
        // The document `serde_json::to_string_pretty` makes of it whole, its
        // differences written from the spools one piece at a time.
        let head = serde_json::to_string_pretty(&json!({
            "a": {"c2s": ac, "s2c": as_},
            "b": {"c2s": bc, "s2c": bs},
            "differences": [],
        }))
        .unwrap_or_default();
        if found == 0 {
            console.print(head + "\n");
        } else {
            console.print(head.trim_end_matches("[]\n}").to_owned() + "[\n");
            let mut first = true;
            for spool in &mut spools {
                if let Err(e) = spool.drain(console, &mut first) {
                    return fail(&format!("cannot read the differences back: {e}"));
                }
            }
            console.print("\n  ]\n}\n");
        }
    } else {
        let mut out = String::new();
        let s = if color {
            &mcp_raw_wire::text::COLOR
        } else {
            &mcp_raw_wire::text::PLAIN
        };
        for d in shown.iter().flatten().take(max_shown) {
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
        if found > max_shown {
            out.push_str(&format!("… and {} more\n", found - max_shown));
        }
        if counts.unaligned > 0 {
            out.push_str(&format!(
                "{} message{} not compared: one recording ran more than --window {} messages of a direction ahead of the other\n",
                counts.unaligned,
                if counts.unaligned == 1 { "" } else { "s" },
                args.window
            ));
        }
        out.push_str(&format!(
            "{} difference{} (A: {} c2s, {} s2c messages; B: {} c2s, {} s2c)\n",
            found,
            if found == 1 { "" } else { "s" },
            ac,
            as_,
            bc,
            bs
        ));
        console.print(out);
    }
    u8::from(found > 0)
}

/// One direction's differences as `--format json` prints them, each indented as an
/// element of the document's list: in memory up to a limit ([`SPOOL_IN_MEMORY`]),
/// then in a file of its own that nobody else can open (removed as soon as made).
struct Spool {
    /// The most text held in memory before it is written to the file.
    limit: usize,
    /// The text not written to the file yet (elements separated by ",\n").
    text: Vec<u8>,
    /// The file, once memory is full.
    file: Option<std::fs::File>,
    /// Whether any element was pushed (a separator goes before the next).
    any: bool,
}

impl Spool {
    /// An empty spool that holds `limit` bytes in memory.
    fn new(limit: usize) -> Spool {
        Spool {
            limit,
            text: Vec::new(),
            file: None,
            any: false,
        }
    }

    /// Appends one difference.
    fn push(&mut self, item: &serde_json::Value) -> std::io::Result<()> {
        if self.any {
            self.text.extend_from_slice(b",\n");
        }
        self.any = true;
        let pretty = serde_json::to_string_pretty(item).unwrap_or_default();
        for (i, line) in pretty.lines().enumerate() {
            if i > 0 {
                self.text.push(b'\n');
            }
            self.text.extend_from_slice(b"    ");
            self.text.extend_from_slice(line.as_bytes());
        }
        if self.text.len() >= self.limit {
            let file = match &mut self.file {
                Some(f) => f,
                None => self.file.insert(super::scratch_file("diff")?),
            };
            file.write_all(&self.text)?;
            self.text.clear();
        }
        Ok(())
    }

    /// Prints what was pushed, after ",\n" unless it is the document's first.
    fn drain(&mut self, console: &Console, first: &mut bool) -> std::io::Result<()> {
        if !self.any {
            return Ok(());
        }
        if !*first {
            console.print(",\n");
        }
        *first = false;
        if let Some(f) = &mut self.file {
            f.rewind()?;
            let mut chunk = vec![0; 256 * 1024];
            loop {
                let n = f.read(&mut chunk)?;
                if n == 0 {
                    break;
                }
                console.print(&chunk[..n]);
            }
        }
        console.print(std::mem::take(&mut self.text));
        Ok(())
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Through memory or through its file, a spool prints the elements exactly as
    /// `to_string_pretty` prints them inside a document's list.
    #[test]
    fn a_spool_prints_what_the_whole_document_holds() {
        let items: Vec<_> = (0..50)
            .map(|i| json!({"dir": "c2s", "n": i, "what": "request x", "detail": "a\nb \u{1b} é"}))
            .collect();
        let whole = serde_json::to_string_pretty(&json!({"differences": items})).unwrap();
        for limit in [1, 200, SPOOL_IN_MEMORY] {
            let mut spools = [Spool::new(limit), Spool::new(limit)];
            for (i, item) in items.iter().enumerate() {
                spools[usize::from(i >= 20)].push(item).unwrap();
            }
            assert_eq!(spools[0].file.is_some(), limit < SPOOL_IN_MEMORY);
            let (console, captured) = Console::captured();
            console.print("{\n  \"differences\": [\n");
            let mut first = true;
            for s in &mut spools {
                s.drain(&console, &mut first).unwrap();
            }
            console.print("\n  ]\n}");
            assert_eq!(String::from_utf8(captured.out()).unwrap(), whole, "{limit}");
        }
    }
}
