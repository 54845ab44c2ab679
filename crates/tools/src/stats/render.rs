//! `stats`' figures as a reader wants them: aligned tables for a terminal, one JSON
//! document for a program, CSV for a spreadsheet (one table, its first column naming
//! the section: `method`, `tool`, `session`, `lane`, `operations`, `context`,
//! `context-total`). Latencies are in milliseconds with microsecond precision; an
//! empty cell (CSV) or `null` (JSON) or `-` (text) is a figure with nothing to measure.

use super::{Row, Stats};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::time::Duration;

fn ms(d: Option<Duration>) -> Option<f64> {
    d.map(|d| d.as_micros() as f64 / 1000.0)
}

fn ms_text(d: Option<Duration>) -> String {
    ms(d).map_or_else(|| "-".into(), |v| format!("{v:.3}"))
}

/// Text: a table per section.
pub fn text(s: &Stats) -> String {
    let mut out = format!(
        "{} events, {:.3} s recorded, {} request(s) ({} unanswered), {} error(s) ({} JSON-RPC, {} isError)\n",
        s.events,
        s.duration.as_secs_f64(),
        s.all.count,
        s.all.unanswered,
        s.all.errors(),
        s.all.rpc_errors,
        s.all.tool_errors
    );
    for (title, rows) in [
        ("method", &s.methods),
        ("tool", &s.tools),
        ("session", &s.sessions),
        ("lane", &s.lanes),
    ] {
        if rows.is_empty() {
            continue;
        }
        out.push('\n');
        out.push_str(&table(title, rows));
    }
    if s.operations.count > 0 || s.ambiguous > 0 {
        out.push_str(&format!(
            "\n2026-07-28 operations (first attempt to final answer): {} ({} without a final answer), p50 {} p90 {} p99 {} ms; {} ambiguous requestState link(s) refused\n",
            s.operations.count,
            s.operations.unanswered,
            ms_text(s.operations.p(50)),
            ms_text(s.operations.p(90)),
            ms_text(s.operations.p(99)),
            s.ambiguous
        ));
    }
    if !s.context.is_empty() {
        out.push_str(&format!(
            "\n{:<32} {:<16} {:>8} {:>8}\n",
            "context (tools/list)", "server", "bytes", "~tokens"
        ));
        for c in &s.context {
            out.push_str(&format!(
                "{:<32} {:<16} {:>8} {:>8}\n",
                crate::wire::term::escape_line(&c.name),
                crate::wire::term::escape_line(&c.server),
                c.bytes,
                c.tokens
            ));
        }
        let (bytes, tokens) = s.context_total();
        out.push_str(&format!(
            "{:<32} {:<16} {:>8} {:>8}\n(tokens estimated as bytes/{}, rounded up)\n",
            "total",
            "",
            bytes,
            tokens,
            super::BYTES_PER_TOKEN
        ));
    }
    out
}

fn table(title: &str, rows: &BTreeMap<String, Row>) -> String {
    let mut out = format!(
        "{:<32} {:>6} {:>6} {:>10} {:>10} {:>10} {:>10} {:>10}\n",
        title, "count", "errors", "p50 ms", "p90 ms", "p99 ms", "bytes c2s", "bytes s2c"
    );
    for (name, r) in rows {
        out.push_str(&format!(
            "{:<32} {:>6} {:>6} {:>10} {:>10} {:>10} {:>10} {:>10}\n",
            crate::wire::term::escape_line(name),
            r.count,
            r.errors(),
            ms_text(r.p(50)),
            ms_text(r.p(90)),
            ms_text(r.p(99)),
            r.bytes_c2s,
            r.bytes_s2c
        ));
    }
    out
}

fn row_json(r: &Row) -> Value {
    json!({
        "count": r.count,
        "errors": r.errors(),
        "rpc_errors": r.rpc_errors,
        "tool_errors": r.tool_errors,
        "unanswered": r.unanswered,
        "p50_ms": ms(r.p(50)),
        "p90_ms": ms(r.p(90)),
        "p99_ms": ms(r.p(99)),
        "bytes_c2s": r.bytes_c2s,
        "bytes_s2c": r.bytes_s2c,
    })
}

fn rows_json(rows: &BTreeMap<String, Row>) -> Value {
    Value::Object(rows.iter().map(|(k, r)| (k.clone(), row_json(r))).collect())
}

/// One JSON document.
pub fn json(s: &Stats) -> String {
    let (bytes, tokens) = s.context_total();
    let doc = json!({
        "events": s.events,
        "duration_s": s.duration.as_secs_f64(),
        "stray_responses": s.stray,
        "all": row_json(&s.all),
        "methods": rows_json(&s.methods),
        "tools": rows_json(&s.tools),
        "sessions": rows_json(&s.sessions),
        "lanes": rows_json(&s.lanes),
        "operations": {
            "count": s.operations.count,
            "without_final_answer": s.operations.unanswered,
            "ended_in_error": s.operations.rpc_errors,
            "p50_ms": ms(s.operations.p(50)),
            "p90_ms": ms(s.operations.p(90)),
            "p99_ms": ms(s.operations.p(99)),
            "ambiguous_links_refused": s.ambiguous,
        },
        "context": {
            "estimate": format!("tokens = ceil(bytes / {})", super::BYTES_PER_TOKEN),
            "tools": s.context.iter().map(|c| json!({
                "name": c.name, "server": c.server, "bytes": c.bytes, "tokens": c.tokens,
            })).collect::<Vec<_>>(),
            "total_bytes": bytes,
            "total_tokens": tokens,
        },
    });
    serde_json::to_string_pretty(&doc).unwrap_or_default() + "\n"
}

/// A CSV field, quoted when it must be (RFC 4180 §2).
fn field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_owned()
    }
}

fn ms_csv(d: Option<Duration>) -> String {
    ms(d).map_or_else(String::new, |v| format!("{v:.3}"))
}

/// CSV: one header, a row per figure's owner.
pub fn csv(s: &Stats) -> String {
    let mut out = String::from(
        "section,name,count,errors,unanswered,p50_ms,p90_ms,p99_ms,bytes_c2s,bytes_s2c,context_bytes,tokens\n",
    );
    let mut row = |section: &str, name: &str, r: &Row| {
        out.push_str(&format!(
            "{section},{},{},{},{},{},{},{},{},{},,\n",
            field(name),
            r.count,
            r.errors(),
            r.unanswered,
            ms_csv(r.p(50)),
            ms_csv(r.p(90)),
            ms_csv(r.p(99)),
            r.bytes_c2s,
            r.bytes_s2c
        ));
    };
    for (section, rows) in [
        ("method", &s.methods),
        ("tool", &s.tools),
        ("session", &s.sessions),
        ("lane", &s.lanes),
    ] {
        for (name, r) in rows {
            row(section, name, r);
        }
    }
    row("operations", "2026-07-28", &s.operations);
    for c in &s.context {
        out.push_str(&format!(
            "context,{},,,,,,,,,{},{}\n",
            field(&format!("{}@{}", c.name, c.server)),
            c.bytes,
            c.tokens
        ));
    }
    let (bytes, tokens) = s.context_total();
    out.push_str(&format!("context-total,,,,,,,,,,{bytes},{tokens}\n"));
    out
}
