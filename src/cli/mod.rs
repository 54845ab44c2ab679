//! The programs behind the command line, outside the library: they use its public
//! API like any other program would. Each file's one line is in the layout map at
//! the top of `src/main.rs`.

pub mod args;
pub mod auth_server;
pub mod bridge;
pub mod ca;
pub mod check;
pub mod client;
pub mod color;
pub mod completions;
pub mod conformance_client;
pub mod console;
pub mod demo_auth;
pub mod demo_http;
pub mod demo_stdio;
pub mod diff;
pub mod exit;
pub mod gate;
pub mod har;
pub mod listening;
pub mod load;
pub mod metrics;
pub mod otlp;
pub mod otlp_env;
pub mod pin;
pub mod printer;
pub mod record;
pub mod replay;
pub mod script;
pub mod serve;
pub mod sessions;
pub mod show;
pub mod stats;
pub mod stderr_log;
pub mod stop;
pub mod tap;
pub mod trace_context;
pub mod ui;
pub mod wrap;

/// `--header 'NAME: VALUE'` (`client`, `tap --remote`): the name (visible ASCII, RFC
/// 9110 §5.1's token characters and more, never empty) and the value, both trimmed;
/// a usage error quoting the flag otherwise.
pub fn header(given: &str) -> anyhow::Result<(String, String)> {
    let (name, value) = given
        .split_once(':')
        .ok_or_else(|| exit::usage(format!("--header {given:?}: expected 'Name: value'")))?;
    let name = name.trim();
    if name.is_empty() || !name.bytes().all(|b| b.is_ascii_graphic()) {
        return Err(exit::usage(format!(
            "--header {given:?}: {name:?} is not a header name"
        )));
    }
    Ok((name.to_owned(), value.trim().to_owned()))
}

/// The largest file a secret is read from: a secret, not a document.
pub const MAX_SECRET_FILE: u64 = 64 * 1024;

/// A secret given inline (`--client-secret S`) or in a file (`--client-secret-file
/// PATH`, so it stays out of `ps` and the shell's history); clap keeps the two
/// apart. The file holds the secret, one trailing newline (`\n` or `\r\n`) dropped;
/// an unreadable, empty, oversized or non-UTF-8 file is an error naming the flag and
/// the path (never the contents).
pub fn secret(
    inline: Option<&String>,
    file_flag: &str,
    file: Option<&std::path::Path>,
) -> anyhow::Result<Option<String>> {
    let Some(path) = file else {
        return Ok(inline.cloned());
    };
    let at = || format!("{file_flag} {}", path.display());
    let len = std::fs::metadata(path)
        .map_err(|e| anyhow::anyhow!("{}: cannot read it: {e}", at()))?
        .len();
    if len > MAX_SECRET_FILE {
        anyhow::bail!(
            "{}: {len} bytes; a secret file holds the secret alone (at most {MAX_SECRET_FILE} bytes)",
            at()
        );
    }
    let bytes =
        std::fs::read(path).map_err(|e| anyhow::anyhow!("{}: cannot read it: {e}", at()))?;
    let text = String::from_utf8(bytes)
        .map_err(|_| anyhow::anyhow!("{}: the secret is not UTF-8 text", at()))?;
    let text = text
        .strip_suffix('\n')
        .map_or(text.as_str(), |t| t.strip_suffix('\r').unwrap_or(t));
    if text.is_empty() {
        anyhow::bail!("{}: the file is empty; it should hold the secret", at());
    }
    Ok(Some(text.to_owned()))
}

/// A recording read whole: its header and events. The error names the file and
/// says which of the two went wrong: it cannot be read, or it is not a transcript.
pub fn read_transcript(
    file: &std::path::Path,
) -> Result<
    (
        mcp_raw_wire::transcript::Header,
        Vec<mcp_raw_wire::event::Event>,
    ),
    String,
> {
    let text = std::fs::read(file).map_err(|e| format!("cannot read {}: {e}", file.display()))?;
    mcp_raw_wire::transcript::read_bytes(&text).map_err(|e| {
        format!(
            "{} is not a transcript mcp-raw can read: {e}",
            file.display()
        )
    })
}

/// A recording opened as a stream: its header read, its events read one at a time
/// as asked for ([`mcp_raw_wire::stream`]). The errors are [`read_transcript`]'s.
pub fn open_transcript(
    file: &std::path::Path,
) -> Result<
    (
        mcp_raw_wire::transcript::Header,
        mcp_raw_wire::stream::Events<std::io::BufReader<std::fs::File>>,
    ),
    String,
> {
    let f =
        std::fs::File::open(file).map_err(|e| format!("cannot read {}: {e}", file.display()))?;
    mcp_raw_wire::stream::open(std::io::BufReader::with_capacity(256 * 1024, f)).map_err(|e| {
        format!(
            "{} is not a transcript mcp-raw can read: {e}",
            file.display()
        )
    })
}

/// A new file under the temporary directory for what a streaming tool must keep
/// past its memory (`diff`'s JSON differences, `export har`'s entries waiting for
/// their turn): created new and owner-only, then unlinked at once, so it is gone
/// when the process ends however it ends.
pub fn scratch_file(tool: &str) -> std::io::Result<std::fs::File> {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let path = std::env::temp_dir().join(format!(
        "mcp-raw-{tool}-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    let mut options = std::fs::OpenOptions::new();
    // A new file (never one planted there beforehand), read back at the end.
    options.read(true).write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let file = options.open(&path)?;
    let _ = std::fs::remove_file(&path);
    Ok(file)
}

/// A runtime for the async programs.
pub fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    Ok(tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?)
}
