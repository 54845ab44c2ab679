//! `check --expect-tool`, `--forbid-tool`, `--expect-method`, `--max-duration`,
//! `--max-latency`, `--max-errors`, `--contract FILE`: what a session must and must not
//! do, for a CI gate. They are not the spec's rules: they hold only when asked for,
//! and each broken term is a finding of severity error (exit 1), in every format.
//!
//! The contract file is JSON (serde_json is already how every recording is read; a
//! contract needs no comments or tables, and JSON's errors carry a line and column):
//!
//! ```json
//! {
//!   "expect-tool": ["add"],
//!   "forbid-tool": ["delete_everything"],
//!   "expect-method": ["tools/list"],
//!   "max-duration": 30,
//!   "max-latency": ["p99=250", "p90=100,method=tools/call"],
//!   "max-errors": 0,
//!   "allow": ["security/secret-exposed"]
//! }
//! ```
//!
//! Each key is a flag's name and takes what the flag takes; a key not listed here is
//! refused, so a misspelt term cannot pass silently. Terms from the file and from
//! flags add up. `allow` is `--allow`'s list: the rules a project silences, kept with
//! its contract (it is not a term).

use super::{Finding, Spot};
use crate::stats::ledger::{Ledger, Outcome};
use crate::stats::percentile;
use crate::wire::event::Dir;
use serde_json::Value;
use std::time::Duration;

/// Where every contract rule comes from.
const CONTRACT_SPEC: &str = "the contract (check's flags or --contract FILE)";

super::rules::rule_table! {
    /// Every contract rule.
    RULES;
    EXPECT_TOOL = "contract/expect-tool", Error, CONTRACT_SPEC, "the session calls this tool (tools/call) at least once";
    FORBID_TOOL = "contract/forbid-tool", Error, CONTRACT_SPEC, "the session never calls this tool";
    EXPECT_METHOD = "contract/expect-method", Error, CONTRACT_SPEC, "this method is sent at least once (a request or a notification, either side)";
    MAX_DURATION = "contract/max-duration", Error, CONTRACT_SPEC, "the recording spans at most this long, first event to last";
    MAX_LATENCY = "contract/max-latency", Error, CONTRACT_SPEC, "this percentile of request latency (of one method, or of all) stays within the limit";
    MAX_ERRORS = "contract/max-errors", Error, CONTRACT_SPEC, "at most this many errors: JSON-RPC error responses and tools/call results with isError: true";
}

/// A latency limit: `p99=250` or `p90=100,method=tools/call`.
#[derive(Debug, Clone, PartialEq)]
pub struct Latency {
    /// The percentile, 1 to 100.
    pub percentile: u32,
    /// The limit.
    pub max: Duration,
    /// Only this method's requests (else all).
    pub method: Option<String>,
}

impl Latency {
    /// Reads `pNN=MS[,method=M]`; the error quotes what was wrong.
    pub fn parse(text: &str) -> Result<Latency, String> {
        let bad = |why: &str| {
            format!("--max-latency {text:?}: {why} (write pNN=MS[,method=M], e.g. p99=250)")
        };
        let mut parts = text.split(',');
        let first = parts.next().unwrap_or("");
        let (p, ms) = first
            .split_once('=')
            .ok_or_else(|| bad("no '=' in the percentile"))?;
        let percentile: u32 = p
            .strip_prefix('p')
            .and_then(|n| n.parse().ok())
            .filter(|n| (1..=100).contains(n))
            .ok_or_else(|| bad(&format!("{p:?} is not p1…p100")))?;
        // try_from: a finite value too large for a Duration (1e300) is refused, not a panic.
        let max = ms
            .parse::<f64>()
            .ok()
            .filter(|v| v.is_finite() && *v >= 0.0)
            .and_then(|v| Duration::try_from_secs_f64(v / 1000.0).ok())
            .ok_or_else(|| bad(&format!("{ms:?} is not a number of milliseconds")))?;
        let mut method = None;
        for part in parts {
            match part.split_once('=') {
                Some(("method", m)) if !m.is_empty() && method.is_none() => {
                    method = Some(m.to_owned())
                }
                _ => return Err(bad(&format!("{part:?} is not method=M (once)"))),
            }
        }
        Ok(Latency {
            percentile,
            max,
            method,
        })
    }
}

/// Every term of a contract.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Contract {
    /// Tools that must be called.
    pub expect_tools: Vec<String>,
    /// Tools that must not be called.
    pub forbid_tools: Vec<String>,
    /// Methods that must be sent.
    pub expect_methods: Vec<String>,
    /// The longest the recording may span.
    pub max_duration: Option<Duration>,
    /// Latency limits.
    pub max_latency: Vec<Latency>,
    /// The most errors allowed.
    pub max_errors: Option<usize>,
    /// Rules silenced (`"allow"`, as `--allow`): not a term, not counted as one.
    pub allow: Vec<String>,
}

/// Reads `--max-duration`'s seconds; the error quotes the value.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    text.parse::<f64>()
        .ok()
        .filter(|v| v.is_finite() && *v >= 0.0)
        .and_then(|v| Duration::try_from_secs_f64(v).ok())
        .ok_or_else(|| format!("--max-duration {text:?}: not a number of seconds (e.g. 30 or 2.5)"))
}

impl Contract {
    /// No term at all.
    pub fn is_empty(&self) -> bool {
        self.terms() == 0
    }

    /// How many terms, for the summary.
    pub fn terms(&self) -> usize {
        self.expect_tools.len()
            + self.forbid_tools.len()
            + self.expect_methods.len()
            + usize::from(self.max_duration.is_some())
            + self.max_latency.len()
            + usize::from(self.max_errors.is_some())
    }

    /// Adds the terms of a contract file's text (`name` for the errors); the error
    /// names the key and quotes the value that is wrong.
    pub fn add_file(&mut self, name: &str, text: &str) -> Result<(), String> {
        let doc: Value =
            serde_json::from_str(text).map_err(|e| format!("contract {name}: not JSON: {e}"))?;
        let Value::Object(map) = doc else {
            return Err(format!(
                "contract {name}: not a JSON object: {}",
                super::scope::short(&doc)
            ));
        };
        let strings = |key: &str, v: &Value| -> Result<Vec<String>, String> {
            let bad = || {
                format!(
                    "contract {name}: \"{key}\" must be an array of strings, not {}",
                    super::scope::short(v)
                )
            };
            v.as_array()
                .ok_or_else(bad)?
                .iter()
                .map(|s| s.as_str().map(str::to_owned).ok_or_else(bad))
                .collect()
        };
        for (key, v) in &map {
            match key.as_str() {
                "expect-tool" => self.expect_tools.extend(strings(key, v)?),
                "forbid-tool" => self.forbid_tools.extend(strings(key, v)?),
                "expect-method" => self.expect_methods.extend(strings(key, v)?),
                "allow" => self.allow.extend(strings(key, v)?),
                "max-latency" => {
                    for s in strings(key, v)? {
                        self.max_latency
                            .push(Latency::parse(&s).map_err(|e| format!("contract {name}: {e}"))?);
                    }
                }
                "max-duration" => {
                    let secs = v.as_f64().and_then(|s| Duration::try_from_secs_f64(s).ok()).ok_or_else(|| {
                        format!(
                            "contract {name}: \"max-duration\" must be a number of seconds, not {}",
                            super::scope::short(v)
                        )
                    })?;
                    self.max_duration = Some(secs);
                }
                "max-errors" => {
                    let n = v.as_u64().ok_or_else(|| {
                        format!(
                            "contract {name}: \"max-errors\" must be a whole number, not {}",
                            super::scope::short(v)
                        )
                    })?;
                    self.max_errors = Some(usize::try_from(n).unwrap_or(usize::MAX));
                }
                other => {
                    return Err(format!(
                        "contract {name}: unknown key {other:?} (known: expect-tool, forbid-tool, expect-method, max-duration, max-latency, max-errors, allow)"
                    ));
                }
            }
        }
        Ok(())
    }

    /// The terms `ledger` breaks, each a finding; `end` is where findings about the
    /// whole recording are placed (its last event).
    pub fn evaluate(&self, ledger: &Ledger, end: &Spot) -> Vec<Finding> {
        let mut out = Vec::new();
        let spot_of = |event: usize, lane: &str, dir: Dir, t: Duration| Spot {
            lane: lane.to_owned(),
            dir,
            t,
            event,
        };
        for tool in &self.expect_tools {
            if !ledger.calls.iter().any(|c| c.tool.as_deref() == Some(tool)) {
                out.push(end.finding(
                    EXPECT_TOOL,
                    format!("tool {tool:?} was never called (tools/call)"),
                ));
            }
        }
        for tool in &self.forbid_tools {
            for c in ledger
                .calls
                .iter()
                .filter(|c| c.tool.as_deref() == Some(tool))
            {
                out.push(spot_of(c.event, &c.lane, c.from, c.sent).finding(
                    FORBID_TOOL,
                    format!("tool {tool:?} was called (a forbidden tool)"),
                ));
            }
        }
        for method in &self.expect_methods {
            let sent = ledger.calls.iter().any(|c| &c.method == method)
                || ledger.notes.iter().any(|n| &n.method == method);
            if !sent {
                out.push(end.finding(EXPECT_METHOD, format!("method {method:?} was never sent")));
            }
        }
        if let Some(max) = self.max_duration
            && ledger.duration() > max
        {
            out.push(end.finding(
                MAX_DURATION,
                format!(
                    "the recording spans {:.3} s, over the {:.3} s allowed",
                    ledger.duration().as_secs_f64(),
                    max.as_secs_f64()
                ),
            ));
        }
        for limit in &self.max_latency {
            let mut l: Vec<Duration> = ledger
                .calls
                .iter()
                .filter(|c| limit.method.as_ref().is_none_or(|m| m == &c.method))
                .filter_map(|c| c.latency())
                .collect();
            l.sort();
            let of = limit
                .method
                .as_deref()
                .map_or_else(|| "all requests".to_owned(), |m| format!("{m:?}"));
            if let Some(p) = percentile(&l, limit.percentile)
                && p > limit.max
            {
                out.push(end.finding(
                    MAX_LATENCY,
                    format!(
                        "p{} latency of {of} is {:.3} ms over {} answered request(s), over the {:.3} ms allowed",
                        limit.percentile,
                        p.as_micros() as f64 / 1000.0,
                        l.len(),
                        limit.max.as_micros() as f64 / 1000.0
                    ),
                ));
            }
        }
        if let Some(max) = self.max_errors {
            let errors: Vec<_> = ledger
                .calls
                .iter()
                .filter(|c| c.outcome.is_error())
                .collect();
            if errors.len() > max {
                let rpc = errors
                    .iter()
                    .filter(|c| matches!(c.outcome, Outcome::Error(_)))
                    .count();
                out.push(end.finding(
                    MAX_ERRORS,
                    format!(
                        "{} error(s) ({rpc} JSON-RPC error response(s), {} isError result(s)), over the {max} allowed",
                        errors.len(),
                        errors.len() - rpc
                    ),
                ));
            }
        }
        out
    }
}
