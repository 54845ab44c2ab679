//! `check --security`: what the wire shows of the security problems MCP is known for.
//! Tool poisoning (instructions aimed at the model, invisible characters, look-alike
//! names), secrets in what a server returns or logs, a token passed through to another
//! host, sampling without a bound, elicitation asking for secrets or sending the user
//! to a doubtful URL, guessable session ids, one tool name on two servers; and with
//! `--baseline` the "rug pull": tools changed since a recording that was trusted.
//!
//! They read the recording once it is whole ([`Ledger`]), not message by message, so
//! `tap --check` does not run them. Several are heuristics; each rule's text says
//! where it can misfire, and `--allow RULE` silences one (its findings still counted).
//!
//! ```text
//! mod.rs       the rules, and the scan over a recording's ledger: definitions, secrets
//! asks.rs      sampling's bound, elicitation's fields and URLs
//! servers.rs   session ids, tokens passed through, name collisions, the baseline
//! text.rs      imperatives and hidden tags, invisible characters, look-alike letters
//! secrets.rs   tokens and keys by their shapes, quoted masked
//! pin.rs       each tool's hashes (`mcp-raw pin`), compared by `--baseline`
//! ```

mod asks;
pub mod pin;
pub mod secrets;
mod servers;
pub mod text;

use super::rules::Rule;
use super::{Finding, Spot};
use crate::stats::ledger::{Call, Ledger};
use crate::wire::event::Dir;
use serde_json::Value;
use std::collections::HashSet;

super::rules::rule_table! {
    /// Every security rule.
    RULES;
    TOOL_POISONING = "security/tool-poisoning", Warning,
        "MCP 2025-11-25 server/tools \"Security Considerations\"; OWASP MCP Top 10 (beta) MCP03 Tool Poisoning",
        "a tool's or prompt's description or schema speaks to the model: an imperative to ignore, hide or exfiltrate, or a hidden tag (can misfire: a description may quote such words)";
    INVISIBLE = "security/invisible-unicode", Error,
        "Unicode TR36 §3; CVE-2021-42574 (Trojan Source); OWASP MCP Top 10 (beta) MCP03",
        "a tool's or prompt's name, description or schema holds characters a reader does not see: zero-width, bidirectional controls, tag characters";
    HOMOGLYPH = "security/homoglyph-name", Warning,
        "Unicode TR39 §5 (mixed-script confusables); OWASP MCP Top 10 (beta) MCP03",
        "a tool's or prompt's name mixes Latin letters with Cyrillic, Greek or fullwidth look-alikes (can misfire on a name meant to mix scripts)";
    SECRET = "security/secret-exposed", Warning,
        "MCP 2025-11-25 server/utilities/logging \"Security\"; OWASP MCP Top 10 (beta) MCP01",
        "a tool result, resource content or log carries a token or key by its shape; log messages MUST NOT contain credentials or secrets (can misfire on example keys)";
    PASSTHROUGH = "security/token-passthrough", Error,
        "MCP 2025-11-25 basic/security_best_practices \"Token Passthrough\"; OWASP MCP Top 10 (beta) MCP01",
        "the same Authorization credential sent to two hosts: a token passed through (can misfire when one token is meant for both; a masked recording cannot tell, and is skipped)";
    SAMPLING_UNBOUNDED = "security/sampling-unbounded", Warning,
        "MCP 2025-11-25 client/sampling \"Security Considerations\"",
        "a sampling request whose maxTokens is missing, not a positive whole number, or above --sampling-max-tokens";
    ELICITATION_SECRET = "security/elicitation-secret", Error,
        "MCP 2025-11-25 client/elicitation \"Security Considerations\"",
        "servers MUST NOT use form mode elicitation to request sensitive information: a field named or described as a password, token, key, secret, card number (can misfire on a field that only mentions one)";
    ELICITATION_URL = "security/elicitation-url", Warning,
        "MCP 2025-11-25 client/elicitation \"Safe URL Handling\"",
        "a URL-mode elicitation to a URL that is not https (loopback excepted), or to a host in punycode or mixing scripts";
    SESSION_GUESSABLE = "security/session-id-guessable", Warning,
        "MCP 2025-11-25 basic/transports \"Session Management\"; basic/security_best_practices \"Session Hijacking\"",
        "the session ID SHOULD be globally unique and cryptographically secure: one shorter than 16 characters, or a number one more than the session id issued before it";
    NAME_COLLISION = "security/tool-name-collision", Warning,
        "OWASP MCP Top 10 (beta) MCP03 (tool shadowing); MCP 2025-11-25 server/tools",
        "two servers in one recording list a tool of the same name: which one a model calls is the client's guess";
    TOOL_CHANGED = "security/tool-changed", Error,
        "OWASP MCP Top 10 (beta) MCP03 (rug pull); MCP 2025-11-25 server/tools \"Security Considerations\"",
        "a tool's description, input schema or annotations differ from the baseline's (--baseline): what was trusted is not what runs";
    TOOL_ADDED = "security/tool-added", Warning,
        "OWASP MCP Top 10 (beta) MCP03 (rug pull)",
        "a tool the baseline (--baseline) did not list";
}

/// What the scan is told.
#[derive(Debug, Clone)]
pub struct Options {
    /// The largest `maxTokens` a sampling request may ask for without a finding.
    pub sampling_max_tokens: u64,
    /// A trusted recording's tool hashes, to compare with.
    pub baseline: Option<pin::Pins>,
}

/// `--sampling-max-tokens`' default.
pub const DEFAULT_SAMPLING_MAX_TOKENS: u64 = 100_000;

impl Default for Options {
    fn default() -> Self {
        Options {
            sampling_max_tokens: DEFAULT_SAMPLING_MAX_TOKENS,
            baseline: None,
        }
    }
}

/// Where a request was sent.
fn sent(c: &Call) -> Spot {
    Spot {
        lane: c.lane.clone(),
        dir: c.from,
        t: c.sent,
        event: c.event,
    }
}

/// Where a request was answered (else where it was sent).
fn answered(c: &Call) -> Spot {
    match (&c.answer_at, c.answered) {
        (Some((event, lane)), Some(t)) => Spot {
            lane: lane.clone(),
            dir: match c.from {
                Dir::ToServer => Dir::ToClient,
                Dir::ToClient => Dir::ToServer,
            },
            t,
            event: *event,
        },
        _ => sent(c),
    }
}

/// Every string in a JSON value, keys included (a schema's property names reach the
/// model too).
fn strings<'a>(v: &'a Value, out: &mut Vec<&'a str>) {
    match v {
        Value::String(s) => out.push(s),
        Value::Array(items) => items.iter().for_each(|i| strings(i, out)),
        Value::Object(map) => {
            for (k, v) in map {
                out.push(k);
                strings(v, out);
            }
        }
        _ => {}
    }
}

/// The findings of every security rule over `ledger`.
pub fn scan(ledger: &Ledger, options: &Options) -> Vec<Finding> {
    let mut s = Scan {
        out: Vec::new(),
        once: HashSet::new(),
    };
    for c in &ledger.calls {
        match (c.method.as_str(), &c.result) {
            ("tools/list", Some(r)) => {
                for t in r
                    .get("tools")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    s.definition("tool", t, &answered(c));
                }
            }
            ("prompts/list", Some(r)) => {
                for p in r
                    .get("prompts")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    s.definition("prompt", p, &answered(c));
                }
            }
            ("tools/call" | "resources/read", Some(r)) => {
                s.secrets(&format!("the {} result", c.method), r, &answered(c))
            }
            _ => {}
        }
        // The server's questions: legacy requests to the client, and the 2026-07-28
        // input requests an input_required result carries.
        if c.from == Dir::ToClient
            && let Some(p) = &c.params
        {
            s.question(&c.method, p, &sent(c), options);
        }
        if let Some(asks) = c
            .result
            .as_ref()
            .and_then(|r| r.get("inputRequests"))
            .and_then(Value::as_object)
        {
            for ask in asks.values() {
                if let (Some(m), Some(p)) =
                    (ask.get("method").and_then(Value::as_str), ask.get("params"))
                {
                    s.question(m, p, &answered(c), options);
                }
            }
        }
    }
    for n in ledger.notes.iter().filter(|n| n.from == Dir::ToClient) {
        if let Some(p) = &n.params {
            let at = Spot {
                lane: n.lane.clone(),
                dir: n.from,
                t: n.t,
                event: n.event,
            };
            s.secrets("a notifications/message log", p, &at);
        }
    }
    for l in &ledger.logs {
        if let Some((kind, quote)) = secrets::find(&l.text) {
            let at = Spot {
                lane: l.lane.clone(),
                dir: Dir::ToClient,
                t: l.t,
                event: l.event,
            };
            s.out.push(at.finding(
                SECRET,
                format!("the server's stderr log carries {kind}: {quote}"),
            ));
        }
    }
    s.heads(ledger);
    s.collisions(ledger);
    if let Some(base) = &options.baseline {
        s.rug_pull(ledger, base);
    }
    s.out.sort_by_key(|f| f.at.event);
    s.out
}

/// The scan's findings, and what was reported once already.
struct Scan {
    /// The findings.
    out: Vec<Finding>,
    /// (rule, subject) reported already: a tool listed ten times is one finding.
    once: HashSet<(&'static str, String)>,
}

impl Scan {
    fn push(&mut self, rule: &'static Rule, subject: &str, at: &Spot, message: String) {
        if self.once.insert((rule.id, subject.to_owned())) {
            self.out.push(at.finding(rule, message));
        }
    }

    /// A tool's or prompt's definition: its name, and every string a model reads.
    fn definition(&mut self, what: &str, def: &Value, at: &Spot) {
        let name = def.get("name").and_then(Value::as_str).unwrap_or("");
        let subject = format!("{what} {name}");
        // Debug quoting: an invisible character is shown escaped (`\u{200b}`).
        let shown = format!("{name:?}");
        if let Some(c) = text::homoglyph(name) {
            self.push(
                HOMOGLYPH,
                &subject,
                at,
                format!(
                    "{what} {shown}: its name mixes Latin letters with {} ({})",
                    text::code(c),
                    c
                ),
            );
        }
        let mut all = Vec::new();
        strings(def, &mut all);
        for s in &all {
            if let Some((i, c)) = text::first_invisible(s) {
                let place = if *s == name {
                    "its name".to_owned()
                } else {
                    format!("a text at character {}", i + 1)
                };
                self.push(
                    INVISIBLE,
                    &subject,
                    at,
                    format!(
                        "{what} {shown}: {place} holds the invisible {}",
                        text::code(c)
                    ),
                );
                break;
            }
        }
        for s in &all {
            if let Some(p) = text::imperative(s) {
                self.push(
                    TOOL_POISONING,
                    &subject,
                    at,
                    format!("{what} {shown}: its definition says {p:?} to the model"),
                );
                break;
            }
        }
    }

    fn secrets(&mut self, what: &str, v: &Value, at: &Spot) {
        let mut all = Vec::new();
        strings(v, &mut all);
        for s in all {
            if let Some((kind, quote)) = secrets::find(s) {
                self.out
                    .push(at.finding(SECRET, format!("{what} carries {kind}: {quote}")));
                return;
            }
        }
    }
}
