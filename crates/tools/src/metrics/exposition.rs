//! The Prometheus text exposition format, version 0.0.4: per metric family a `# HELP`
//! and a `# TYPE` line, then one line per sample, `name{label="value"} number`.
//! Written by hand: the format is a few lines of rules (escaping, float spelling),
//! and a client library would bring a registry of its own beside the one the wire
//! events fill here.

use std::fmt::Write;

/// The `Content-Type` of a text exposition (Prometheus "Exposition formats", text
/// format 0.0.4).
pub const CONTENT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";

/// An exposition being written.
#[derive(Default)]
pub struct Text {
    /// What is written so far.
    out: String,
}

impl Text {
    /// Starts a metric family: its HELP and TYPE lines (`kind`: `counter`, `gauge`,
    /// `histogram`).
    pub fn family(&mut self, name: &str, kind: &str, help: &str) {
        // HELP text escapes a backslash and a line feed (text format 0.0.4).
        let help = help.replace('\\', "\\\\").replace('\n', "\\n");
        let _ = writeln!(self.out, "# HELP {name} {help}");
        let _ = writeln!(self.out, "# TYPE {name} {kind}");
    }

    /// One sample: `name{labels} value`.
    pub fn sample(&mut self, name: &str, labels: &[(&str, &str)], value: f64) {
        self.out.push_str(name);
        if !labels.is_empty() {
            self.out.push('{');
            for (i, (k, v)) in labels.iter().enumerate() {
                if i > 0 {
                    self.out.push(',');
                }
                let _ = write!(self.out, "{k}=\"{}\"", escape(v));
            }
            self.out.push('}');
        }
        let _ = writeln!(self.out, " {}", float(value));
    }

    /// The exposition's text.
    pub fn finish(self) -> String {
        self.out
    }
}

/// A label value escaped: backslash, double quote and line feed (text format 0.0.4).
pub fn escape(v: &str) -> String {
    v.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

/// A number as the format spells it: integers without a fraction, `+Inf`, `NaN`.
pub fn float(v: f64) -> String {
    if v.is_nan() {
        "NaN".to_owned()
    } else if v.is_infinite() {
        if v > 0.0 { "+Inf" } else { "-Inf" }.to_owned()
    } else {
        format!("{v}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_family_and_its_samples_are_written_exactly() {
        let mut t = Text::default();
        t.family("mcp_raw_x_total", "counter", "Things.\nCounted.");
        t.sample("mcp_raw_x_total", &[("method", "a\"b\\c\n")], 3.0);
        t.sample("mcp_raw_x_total", &[], 0.25);
        assert_eq!(
            t.finish(),
            "# HELP mcp_raw_x_total Things.\\nCounted.\n# TYPE mcp_raw_x_total counter\nmcp_raw_x_total{method=\"a\\\"b\\\\c\\n\"} 3\nmcp_raw_x_total 0.25\n"
        );
    }
}
