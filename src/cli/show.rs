//! `mcp-raw show FILE`: a recorded transcript rendered again, whole or only some of
//! its lanes and directions.

use mcp_raw::wire::event::{Dir, Event};
use mcp_raw::wire::transcript;

/// `--lane` and `--dir`: which events are rendered. Whole lanes and directions are
/// kept or dropped, never parts of one, so each kept direction is framed as it was.
pub struct Only {
    /// Lane labels to keep (`stdio`, `stderr`, `c1`…); empty keeps all.
    pub lanes: Vec<String>,
    /// The one direction to keep; `None` keeps both.
    pub dir: Option<Dir>,
}

impl Only {
    /// The events kept; a `--lane` the recording does not have is an error that names
    /// the lanes it does have.
    fn apply(&self, events: Vec<Event>) -> anyhow::Result<Vec<Event>> {
        let mut present: Vec<String> = Vec::new();
        for e in &events {
            let label = e.lane.label();
            if !present.contains(&label) {
                present.push(label);
            }
        }
        if let Some(missing) = self.lanes.iter().find(|l| !present.contains(l)) {
            anyhow::bail!(
                "--lane {missing:?}: this recording has no such lane (it has: {})",
                present.join(", ")
            );
        }
        Ok(events
            .into_iter()
            .filter(|e| self.lanes.is_empty() || self.lanes.contains(&e.lane.label()))
            .filter(|e| self.dir.is_none_or(|d| e.dir == d))
            .collect())
    }
}

/// `mcp-raw show FILE`: a transcript rendered again.
pub fn show(
    file: &std::path::Path,
    raw: bool,
    pretty: bool,
    color: bool,
    max: usize,
    only: &Only,
) -> anyhow::Result<()> {
    let text = std::fs::read_to_string(file)
        .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", file.display()))?;
    let (header, events) = transcript::read(&text).map_err(|e| {
        anyhow::anyhow!(
            "{} is not a transcript mcp-raw can read: {e}",
            file.display()
        )
    })?;
    let events = only.apply(events)?;
    let out = if pretty {
        transcript::pretty(&header, &events, max) + "\n"
    } else {
        mcp_raw::wire::text::render(&events, raw, color, max)
    };
    use std::io::Write;
    let _ = std::io::stdout().lock().write_all(out.as_bytes());
    Ok(())
}
