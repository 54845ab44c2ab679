//! `mcp-raw export har FILE` and `mcp-raw import har FILE -o OUT`: the library's HAR
//! ([`mcp_raw_tools::har`]) read and written, its refusals said on stderr.

use super::args::{ExportHarArgs, ImportArgs, ImportFormat};
use super::console::Console;
use mcp_raw_tools::har;
use mcp_raw_wire::term::escape;

/// Runs `export`; returns the exit status: 0 written, 1 OUT not written, 2 FILE
/// unreadable or with no HTTP lane.
pub fn export(args: ExportHarArgs, console: &Console) -> u8 {
    let (header, events) = match super::read_transcript(&args.file) {
        Ok(read) => read,
        Err(e) => {
            console.say(format_args!("mcp-raw export har: {}", escape(&e)));
            return 2;
        }
    };
    let doc = match har::export::export(&header, &events, env!("CARGO_PKG_VERSION")) {
        Ok(doc) => doc,
        Err(e) => {
            console.say(format_args!(
                "mcp-raw export har: {}: {e}",
                args.file.display()
            ));
            return 2;
        }
    };
    let mut text = serde_json::to_string_pretty(&doc).unwrap_or_default();
    text.push('\n');
    match &args.output {
        None => console.print(text),
        Some(out) => {
            if let Err(e) = std::fs::write(out, text) {
                console.say(format_args!(
                    "mcp-raw export har: cannot write {}: {e}",
                    out.display()
                ));
                return 1;
            }
            let n = doc["log"]["entries"].as_array().map_or(0, Vec::len);
            console.say(format_args!(
                "mcp-raw export har: {n} entr{} written to {}",
                if n == 1 { "y" } else { "ies" },
                out.display()
            ));
        }
    }
    0
}

/// Runs `import`; returns the exit status: 0 written, 1 OUT not written, 2 FILE
/// unreadable, too big or not a HAR.
pub fn import(args: ImportArgs, console: &Console) -> u8 {
    let ImportFormat::Har(args) = args.format;
    let refuse = |why: String| {
        console.say(format_args!("mcp-raw import har: {}", escape(&why)));
        2
    };
    let file = args.file.display();
    // The size first, from the file's metadata: a HAR over the limit is never read.
    match std::fs::metadata(&args.file) {
        Ok(m) if m.len() > args.max_har_bytes => {
            return refuse(format!(
                "{file} is {} bytes, over --max-har-bytes {}: not read",
                m.len(),
                args.max_har_bytes
            ));
        }
        Ok(_) => {}
        Err(e) => return refuse(format!("cannot read {file}: {e}")),
    }
    let bytes = match std::fs::read(&args.file) {
        Ok(b) => b,
        Err(e) => return refuse(format!("cannot read {file}: {e}")),
    };
    let imported = match har::parse(&bytes).and_then(|v| har::import::import(&v)) {
        Ok(i) => i,
        Err(e) => return refuse(format!("{file} is not a HAR mcp-raw can read: {e}")),
    };
    let text = har::transcript_text(&imported.header, &imported.events, args.max_message_bytes);
    let written = mcp_raw_wire::transcript_write::create_private(&args.output)
        .and_then(|mut f| std::io::Write::write_all(&mut f, &text));
    if let Err(e) = written {
        console.say(format_args!(
            "mcp-raw import har: cannot write {}: {e}",
            args.output.display()
        ));
        return 1;
    }
    let lanes = imported
        .events
        .iter()
        .filter(|e| matches!(e.what, mcp_raw_wire::event::What::Open(_)))
        .count();
    console.say(format_args!(
        "mcp-raw import har: {lanes} entr{} written to {} (a lane each; each lane's open note says what is not exact)",
        if lanes == 1 { "y" } else { "ies" },
        args.output.display()
    ));
    0
}
