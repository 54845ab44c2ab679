//! `mcp-raw show FILE`: a recorded transcript rendered again.

use mcp_raw::wire::transcript;

/// `mcp-raw show FILE`: a transcript rendered again.
pub fn show(
    file: &std::path::Path,
    raw: bool,
    pretty: bool,
    color: bool,
    max: usize,
) -> anyhow::Result<()> {
    let text = std::fs::read_to_string(file)
        .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", file.display()))?;
    let (header, events) = transcript::read(&text).map_err(|e| {
        anyhow::anyhow!(
            "{} is not a transcript mcp-raw can read: {e}",
            file.display()
        )
    })?;
    let out = if pretty {
        transcript::pretty(&header, &events, max) + "\n"
    } else {
        mcp_raw::wire::text::render(&events, raw, color, max)
    };
    use std::io::Write;
    let _ = std::io::stdout().lock().write_all(out.as_bytes());
    Ok(())
}
