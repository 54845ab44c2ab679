//! What each call came to, counted: latencies per method and per tool, and failures
//! by kind. Each client keeps its own tally; the run adds them up at the end.

use super::mix::Call;
use mcp_raw_net::client::mcp_client::RpcError;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::time::Duration;

/// How one call ended.
pub type Answered = anyhow::Result<Result<Value, RpcError>>;

/// One row's raw figures.
#[derive(Debug, Clone, Default)]
pub struct Row {
    /// Calls made.
    pub count: u64,
    /// Calls that failed, whatever the kind.
    pub errors: u64,
    /// The latency of every call that got an answer (a success, a JSON-RPC error, an
    /// `isError` result); a call that timed out or lost its transport has none.
    pub latencies: Vec<Duration>,
}

impl Row {
    fn add(&mut self, other: Row) {
        self.count += other.count;
        self.errors += other.errors;
        self.latencies.extend(other.latencies);
    }
}

/// A client's (or the run's) counts.
#[derive(Debug, Clone, Default)]
pub struct Tally {
    /// Per JSON-RPC method.
    pub methods: BTreeMap<String, Row>,
    /// Per tool (`tools/call` only).
    pub tools: BTreeMap<String, Row>,
    /// Failures by kind: `jsonrpc <code>`, `isError`, `http <status>`, `timeout`,
    /// `transport`, `connect`.
    pub errors: BTreeMap<String, u64>,
    /// The first failure of each kind, in words (a JSON-RPC error's message, the
    /// client's error), so a report says what went wrong and not only how often.
    pub examples: BTreeMap<String, String>,
}

impl Tally {
    /// Counts one call: its answer (or why there was none) and how long it took.
    /// Returns the failure's kind, if it failed.
    pub fn record(&mut self, call: &Call, answered: &Answered, took: Duration) -> Option<String> {
        let (kind, answered_at_all, example) = match answered {
            Ok(Ok(result)) if result["isError"] == json!(true) => {
                let text = result["content"][0]["text"].as_str().unwrap_or_default();
                (Some("isError".to_owned()), true, text.to_owned())
            }
            Ok(Ok(_)) => (None, true, String::new()),
            Ok(Err(e)) => (Some(format!("jsonrpc {}", e.code)), true, e.to_string()),
            Err(e) => (Some(kind_of(e)), false, format!("{e:#}")),
        };
        let mut one = Row {
            count: 1,
            errors: u64::from(kind.is_some()),
            latencies: Vec::new(),
        };
        if answered_at_all {
            one.latencies.push(took);
        }
        if let Some(tool) = &call.tool {
            self.tools.entry(tool.clone()).or_default().add(one.clone());
        }
        self.methods
            .entry(call.method.clone())
            .or_default()
            .add(one);
        if let Some(kind) = &kind {
            *self.errors.entry(kind.clone()).or_default() += 1;
            self.examples.entry(kind.clone()).or_insert(example);
        }
        kind
    }

    /// Counts a failure outside any call (a client that could not connect), and
    /// what it was.
    pub fn failed(&mut self, kind: &str, example: String) {
        *self.errors.entry(kind.to_owned()).or_default() += 1;
        self.examples.entry(kind.to_owned()).or_insert(example);
    }

    /// Adds another tally to this one.
    pub fn add(&mut self, other: Tally) {
        for (k, row) in other.methods {
            self.methods.entry(k).or_default().add(row);
        }
        for (k, row) in other.tools {
            self.tools.entry(k).or_default().add(row);
        }
        for (k, n) in other.errors {
            *self.errors.entry(k).or_default() += n;
        }
        for (k, e) in other.examples {
            self.examples.entry(k).or_insert(e);
        }
    }
}

/// The kind of a call that got no JSON-RPC answer, from the client's error: a wait
/// that ran out (`timeout`), an HTTP status with no response in it (`http NNN`), or
/// anything else on the way (`transport`).
pub fn kind_of(e: &anyhow::Error) -> String {
    let text = format!("{e:#}");
    let lower = text.to_ascii_lowercase();
    // The link's words for a clock that ran out: `--timeout` named, a wait "within"
    // a limit, tokio's "deadline has elapsed".
    if ["timed out", " within ", "--timeout", "deadline has elapsed"]
        .iter()
        .any(|w| lower.contains(w))
    {
        return "timeout".into();
    }
    if let Some(at) = text.find("HTTP ") {
        let code: String = text[at + 5..].chars().take(3).collect();
        if code.len() == 3 && code.bytes().all(|b| b.is_ascii_digit()) {
            return format!("http {code}");
        }
    }
    "transport".into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failures_are_told_apart() {
        let e = anyhow::anyhow!(
            "tools/call: the server answered HTTP 503 Service Unavailable with no JSON-RPC response in its body"
        );
        assert_eq!(kind_of(&e), "http 503");
        let e = anyhow::anyhow!("no response to tools/call within 2s");
        assert_eq!(kind_of(&e), "timeout");
        let e = anyhow::anyhow!("the response body stalled: nothing for 30ms (--timeout)");
        assert_eq!(kind_of(&e), "timeout");
        assert_eq!(
            kind_of(&anyhow::anyhow!("the server's stdin is closed")),
            "transport"
        );
    }
}
