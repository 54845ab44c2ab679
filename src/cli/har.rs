//! `mcp-raw export har FILE` and `mcp-raw import har FILE -o OUT`: the library's HAR
//! ([`mcp_raw_tools::har`]) read and written, its refusals said on stderr.

use super::args::{ExportHarArgs, ImportArgs, ImportFormat};
use super::console::Console;
use mcp_raw_tools::har;
use mcp_raw_wire::term::escape;
use std::io::{Read, Seek, Write};

/// The entries' text held in memory while they wait for an earlier one to be
/// written (a long event stream, say); past it they wait in a file.
pub const HELD_IN_MEMORY: usize = 8 * 1024 * 1024;

/// Runs `export`; returns the exit status: 0 written, 1 OUT not written, 2 FILE
/// unreadable or with no HTTP lane.
///
/// The recording is read as a stream ([`har::stream`]) and the document written as
/// its entries are made, byte for byte what `serde_json::to_string_pretty` makes of
/// [`har::export::export`]'s whole document. A line that is not an event ends it
/// with its number (exit 2); with `-o`, the partial file is removed.
pub fn export(args: ExportHarArgs, console: &Console) -> u8 {
    let (header, events) = match super::open_transcript(&args.file) {
        Ok(read) => read,
        Err(e) => {
            console.say(format_args!("mcp-raw export har: {}", escape(&e)));
            return 2;
        }
    };
    let mut lazy = args.output.as_ref().map(|path| Lazy {
        path: path.clone(),
        file: None,
    });
    let mut stdout = console.out();
    let out: &mut dyn Write = match &mut lazy {
        Some(file) => file,
        None => &mut stdout,
    };
    let written = write_har(&header, events, out, HELD_IN_MEMORY).and_then(|n| {
        out.flush().map_err(Failed::Write)?;
        Ok(n)
    });
    let begun = lazy.is_some_and(|l| l.file.is_some());
    let n = match written {
        Ok(n) => n,
        Err(failed) => {
            // A document begun in OUT and not finished is not left there.
            if let Some(path) = &args.output
                && begun
                && matches!(failed, Failed::Read(_) | Failed::Held(_))
            {
                let _ = std::fs::remove_file(path);
            }
            return match failed {
                Failed::Read(why) => {
                    console.say(format_args!(
                        "mcp-raw export har: {}",
                        escape(&format!(
                            "{} is not a transcript mcp-raw can read: {why}",
                            args.file.display()
                        ))
                    ));
                    2
                }
                Failed::NoHttp(why) => {
                    console.say(format_args!(
                        "mcp-raw export har: {}: {why}",
                        args.file.display()
                    ));
                    2
                }
                Failed::Write(e) => match &args.output {
                    Some(path) => {
                        console.say(format_args!(
                            "mcp-raw export har: cannot write {}: {e}",
                            path.display()
                        ));
                        1
                    }
                    // A stdout nobody reads any more (a closed pipe) is not an error
                    // of the program's (as `Console::print` has it): it stops there.
                    None => 0,
                },
                Failed::Held(e) => {
                    console.say(format_args!(
                        "mcp-raw export har: cannot keep the entries waiting on disk: {e}"
                    ));
                    1
                }
            };
        }
    };
    if let Some(path) = &args.output {
        console.say(format_args!(
            "mcp-raw export har: {n} entr{} written to {}",
            if n == 1 { "y" } else { "ies" },
            path.display()
        ));
    }
    0
}

/// `-o OUT`, created at the first byte written: a recording refused before its
/// first entry (no HTTP lane, a bad line) leaves OUT as it was.
struct Lazy {
    /// Where.
    path: std::path::PathBuf,
    /// The file, once a byte is written.
    file: Option<std::io::BufWriter<std::fs::File>>,
}

impl Write for Lazy {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let file = match &mut self.file {
            Some(f) => f,
            None => self
                .file
                .insert(std::io::BufWriter::new(std::fs::File::create(&self.path)?)),
        };
        file.write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.file.as_mut().map_or(Ok(()), Write::flush)
    }
}

/// Why an export stopped.
enum Failed {
    /// A line of the recording is not an event (the reader's error).
    Read(String),
    /// The recording has no HTTP lane.
    NoHttp(har::export::NoHttp),
    /// The output could not be written.
    Write(std::io::Error),
    /// The entries waiting could not be kept in their file.
    Held(std::io::Error),
}

/// Writes the document of `events` to `out`; returns how many entries it holds.
/// Nothing is written before the first entry may be (or the end), so a recording
/// with no HTTP lane writes nothing.
fn write_har(
    header: &mcp_raw_wire::transcript::Header,
    events: impl Iterator<Item = Result<mcp_raw_wire::event::Event, String>>,
    out: &mut dyn Write,
    held_in_memory: usize,
) -> Result<usize, Failed> {
    let doc = har::export::document(header, env!("CARGO_PKG_VERSION"));
    let head = serde_json::to_string_pretty(&doc).unwrap_or_default();
    let mut reader = har::stream::Entries::new(header);
    let mut held = Held::new(held_in_memory);
    let mut written = 0usize;
    // Writes the entries below `mark` (all with `None`), the document's head first.
    let mut flush = |held: &mut Held,
                     mark: Option<har::stream::Key>,
                     out: &mut dyn Write|
     -> Result<(), Failed> {
        while let Some(text) = held.pop_below(mark).map_err(Failed::Held)? {
            let lead: &[u8] = if written == 0 {
                // `"entries": []` opened: the document up to its list.
                head.trim_end_matches("[]\n  }\n}").as_bytes()
            } else {
                b",\n"
            };
            out.write_all(lead).map_err(Failed::Write)?;
            if written == 0 {
                out.write_all(b"[\n").map_err(Failed::Write)?;
            }
            out.write_all(&text).map_err(Failed::Write)?;
            written += 1;
        }
        Ok(())
    };
    for e in events {
        let e = e.map_err(Failed::Read)?;
        reader.feed(&e);
        let made = reader.take();
        if made.is_empty() {
            continue;
        }
        for (key, value) in made {
            held.push(key, indented(&value, 6)).map_err(Failed::Held)?;
        }
        flush(&mut held, reader.watermark(), out)?;
    }
    if !reader.any_http() {
        return Err(Failed::NoHttp(har::export::NoHttp {
            transport: header.transport.clone(),
        }));
    }
    for (key, value) in reader.finish() {
        held.push(key, indented(&value, 6)).map_err(Failed::Held)?;
    }
    flush(&mut held, None, out)?;
    if written == 0 {
        out.write_all(head.as_bytes()).map_err(Failed::Write)?;
        out.write_all(b"\n").map_err(Failed::Write)?;
    } else {
        out.write_all(b"\n    ]\n  }\n}\n").map_err(Failed::Write)?;
    }
    Ok(written)
}

/// `value` pretty-printed as an element nested `indent` spaces deep in a pretty
/// document (JSON strings hold no raw line break, so each line is indented alike).
fn indented(value: &serde_json::Value, indent: usize) -> Vec<u8> {
    let pretty = serde_json::to_string_pretty(value).unwrap_or_default();
    let mut out = Vec::with_capacity(pretty.len() + 64);
    for (i, line) in pretty.lines().enumerate() {
        if i > 0 {
            out.push(b'\n');
        }
        out.resize(out.len() + indent, b' ');
        out.extend_from_slice(line.as_bytes());
    }
    out
}

/// Entries made and not yet written, by their place in the document: their text in
/// memory up to a limit, past it in a scratch file ([`super::scratch_file`]), only
/// their place and where they lie kept in memory.
struct Held {
    /// The most text kept in memory.
    limit: usize,
    /// The text in memory now.
    in_memory: usize,
    /// Each entry waiting: its text, or where it is in the file.
    waiting: std::collections::BTreeMap<har::stream::Key, Place>,
    /// The file, once memory is full, and its length.
    file: Option<(std::fs::File, u64)>,
}

/// Where one waiting entry's text is.
enum Place {
    /// In memory.
    Memory(Vec<u8>),
    /// In the file: offset and length.
    File(u64, usize),
}

impl Held {
    fn new(limit: usize) -> Held {
        Held {
            limit,
            in_memory: 0,
            waiting: Default::default(),
            file: None,
        }
    }

    /// Keeps one entry's text.
    fn push(&mut self, key: har::stream::Key, text: Vec<u8>) -> std::io::Result<()> {
        let place = if self.in_memory + text.len() <= self.limit {
            self.in_memory += text.len();
            Place::Memory(text)
        } else {
            let (file, len) = match &mut self.file {
                Some(f) => f,
                None => self.file.insert((super::scratch_file("har")?, 0)),
            };
            file.seek(std::io::SeekFrom::Start(*len))?;
            file.write_all(&text)?;
            let at = *len;
            *len += text.len() as u64;
            Place::File(at, text.len())
        };
        self.waiting.insert(key, place);
        Ok(())
    }

    /// The first entry's text if its key is below `mark` (`None`: any), taken out.
    fn pop_below(&mut self, mark: Option<har::stream::Key>) -> std::io::Result<Option<Vec<u8>>> {
        let Some(first) = self.waiting.first_entry() else {
            return Ok(None);
        };
        if mark.is_some_and(|m| *first.key() >= m) {
            return Ok(None);
        }
        match first.remove() {
            Place::Memory(text) => {
                self.in_memory -= text.len();
                Ok(Some(text))
            }
            Place::File(at, len) => {
                let Some((file, _)) = &mut self.file else {
                    return Ok(None);
                };
                file.seek(std::io::SeekFrom::Start(at))?;
                let mut text = vec![0; len];
                file.read_exact(&mut text)?;
                Ok(Some(text))
            }
        }
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use mcp_raw_wire::transcript;

    /// A legacy HTTP session as a client records it: a GET event stream opened first
    /// on lane c1 and ended last, POSTs on two keep-alive lanes in turn, one answered
    /// after a 100 Continue, the last never answered.
    fn long_stream_session(calls: usize) -> String {
        let mut text = String::from(
            "{\"transcript\":\"mcp-raw\",\"version\":4,\"role\":\"client\",\"transport\":\"http\",\"started\":\"2026-12-01T10:00:00.000Z\"}\n",
        );
        let mut t = 0.0;
        let mut line = |lane: &str, dir: &str, what: &str, body: serde_json::Value| {
            t += 0.001;
            let mut l =
                serde_json::json!({"t": (t * 1e6f64).round() / 1e6, "lane": lane, "dir": dir});
            l[what] = body;
            text.push_str(&format!("{l}\n"));
        };
        line("c1", "c2s", "open", "connected to 127.0.0.1:3000".into());
        line(
            "c1",
            "c2s",
            "text",
            "GET /mcp HTTP/1.1\r\nHost: a\r\nAccept: text/event-stream\r\n\r\n".into(),
        );
        line("c1", "s2c", "text", "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n".into());
        for i in 0..calls {
            let lane = if i % 2 == 0 { "c2" } else { "c3" };
            if i < 2 {
                line(lane, "c2s", "open", "connected to 127.0.0.1:3000".into());
            }
            let body = format!(
                "{{\"jsonrpc\":\"2.0\",\"id\":{i},\"method\":\"tools/call\",\"params\":{{\"name\":\"echo\"}}}}"
            );
            line(lane, "c2s", "text", format!("POST /mcp HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n", body.len()).into());
            if i == 3 {
                line(lane, "s2c", "text", "HTTP/1.1 100 Continue\r\n\r\n".into());
            }
            line(lane, "c2s", "text", body.into());
            let sse = format!("data: {i}\n\n");
            line(
                "c1",
                "s2c",
                "text",
                format!("{:x}\r\n{sse}\r\n", sse.len()).into(),
            );
            if i + 1 < calls {
                let answer = format!("{{\"jsonrpc\":\"2.0\",\"id\":{i},\"result\":{{}}}}");
                line(lane, "s2c", "text", format!("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{answer}", answer.len()).into());
            }
        }
        line("c1", "s2c", "text", "0\r\n\r\n".into());
        text
    }

    fn streamed(text: &str, limit: usize) -> String {
        let (header, events) = mcp_raw_wire::stream::open(text.as_bytes()).unwrap();
        let mut out = Vec::new();
        let n = write_har(&header, events, &mut out, limit).ok().unwrap();
        let doc: serde_json::Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(doc["log"]["entries"].as_array().unwrap().len(), n);
        String::from_utf8(out).unwrap()
    }

    /// Through memory or through the scratch file, with an entry that holds every
    /// later one back: the document written as it goes is the whole document's
    /// pretty text, byte for byte.
    #[test]
    fn the_streamed_har_is_the_whole_document() {
        let golden = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/golden/har/recording.jsonl"
        ))
        .unwrap();
        for text in [golden, long_stream_session(40)] {
            let (header, events) = transcript::read(&text).unwrap();
            let doc = har::export::export(&header, &events, env!("CARGO_PKG_VERSION")).unwrap();
            let whole = serde_json::to_string_pretty(&doc).unwrap() + "\n";
            for limit in [1, 700, HELD_IN_MEMORY] {
                assert_eq!(streamed(&text, limit), whole, "limit {limit}");
            }
        }
        // The stream's entry is first, though it ended last.
        let text = long_stream_session(5);
        let doc: serde_json::Value = serde_json::from_str(&streamed(&text, 1)).unwrap();
        let entries = doc["log"]["entries"].as_array().unwrap();
        assert_eq!(entries[0]["request"]["method"], "GET");
        assert_eq!(entries.len(), 6);
        assert_eq!(entries[5]["response"]["status"], 0);
        // A recording with HTTP lanes and no request: the empty document.
        let empty = "{\"transcript\":\"mcp-raw\",\"version\":4,\"role\":\"client\",\"transport\":\"http\",\"started\":\"2026-12-01T10:00:00.000Z\"}\n{\"t\":0.001,\"lane\":\"c1\",\"dir\":\"c2s\",\"open\":\"x\"}\n";
        let (header, events) = transcript::read(empty).unwrap();
        let doc = har::export::export(&header, &events, env!("CARGO_PKG_VERSION")).unwrap();
        assert_eq!(
            streamed(empty, 1),
            serde_json::to_string_pretty(&doc).unwrap() + "\n"
        );
    }
}
