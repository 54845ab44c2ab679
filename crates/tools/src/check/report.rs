//! A check's findings as a reader wants them: lines for a terminal, one JSON document
//! for a program, JUnit XML for a CI system (one test case per rule, so a rule that
//! held is a pass and one that broke is a failure), SARIF 2.1.0 for code-scanning
//! pages (OASIS SARIF v2.1.0: a run, its tool's rules, a result per finding located
//! at the transcript's line).

use super::Finding;
use super::rules::{self, Severity};
use serde_json::json;

/// What a whole check saw, for the summary line.
#[derive(Debug, Clone, Copy, Default)]
pub struct Totals {
    /// Wire events read.
    pub events: usize,
    /// JSON-RPC payloads among them.
    pub messages: usize,
    /// Contract terms checked (`--expect-tool`…, `--contract`): 0 when none, and the
    /// contract's rules are then left out of JUnit and of the summary.
    pub contract: usize,
    /// Security rules run (`--security`): 0 when not asked for.
    pub security: usize,
    /// Findings silenced by `--allow`: counted, not shown, not failing.
    pub silenced: usize,
}

/// The rules a report lists: the spec's, and the contract's when terms were given.
fn listed(totals: Totals) -> Vec<&'static rules::Rule> {
    let mut all: Vec<&'static rules::Rule> = rules::ALL.to_vec();
    if totals.contract > 0 {
        all.extend_from_slice(super::contract::RULES);
    }
    if totals.security > 0 {
        all.extend_from_slice(super::security::RULES);
    }
    all
}

/// Errors and warnings among `findings`.
pub fn count(findings: &[Finding]) -> (usize, usize) {
    let errors = findings
        .iter()
        .filter(|f| f.rule.severity == Severity::Error)
        .count();
    (errors, findings.len() - errors)
}

/// One finding, one line: where, how bad, which rule, what exactly, and the spec.
pub fn line(f: &Finding) -> String {
    format!(
        "{}: {} {}: {}  [{}]",
        f.at,
        f.rule.severity.name(),
        f.rule.id,
        // A message may quote the wire (a method, a header): shown, not obeyed.
        crate::wire::term::escape_line(&f.message),
        f.rule.spec
    )
}

/// Every finding, then the summary.
pub fn text(findings: &[Finding], totals: Totals) -> String {
    let mut out = String::new();
    for f in findings {
        out.push_str(&line(f));
        out.push('\n');
    }
    out.push_str(&summary(findings, totals));
    out.push('\n');
    out
}

/// `2 errors, 1 warning in 14 messages (31 events, 39 rules)`.
pub fn summary(findings: &[Finding], totals: Totals) -> String {
    let (errors, warnings) = count(findings);
    let mut contract = match totals.contract {
        0 => String::new(),
        1 => ", 1 contract term".to_owned(),
        n => format!(", {n} contract terms"),
    };
    if totals.security > 0 {
        contract.push_str(&format!(", {} security rules", totals.security));
    }
    if totals.silenced > 0 {
        contract.push_str(&format!(", {} silenced by --allow", totals.silenced));
    }
    format!(
        "{} error{}, {} warning{} in {} message{} ({} events, {} rules checked{contract})",
        errors,
        if errors == 1 { "" } else { "s" },
        warnings,
        if warnings == 1 { "" } else { "s" },
        totals.messages,
        if totals.messages == 1 { "" } else { "s" },
        totals.events,
        rules::ALL.len()
    )
}

/// One JSON document: the totals and every finding.
pub fn json(findings: &[Finding], totals: Totals) -> String {
    let (errors, warnings) = count(findings);
    let list: Vec<serde_json::Value> = findings
        .iter()
        .map(|f| {
            json!({
                "rule": f.rule.id,
                "severity": f.rule.severity.name(),
                "spec": f.rule.spec,
                "message": f.message,
                "event": f.at.event,
                "lane": f.at.lane,
                "dir": f.at.dir.name(),
                "t": f.at.t.as_secs_f64(),
            })
        })
        .collect();
    let doc = json!({
        "events": totals.events,
        "messages": totals.messages,
        "errors": errors,
        "warnings": warnings,
        "silenced": totals.silenced,
        "findings": list,
    });
    serde_json::to_string_pretty(&doc).unwrap_or_default() + "\n"
}

/// JUnit XML: a test suite named after the file, a test case per rule; an error
/// finding fails its case, a warning is printed in its output.
pub fn junit(name: &str, findings: &[Finding], totals: Totals) -> String {
    let (errors, _) = count(findings);
    let listed = listed(totals);
    let failed_rules = listed
        .iter()
        .filter(|r| {
            findings
                .iter()
                .any(|f| f.rule.id == r.id && r.severity == Severity::Error)
        })
        .count();
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    out.push_str(&format!(
        "<testsuites name=\"mcp-raw check\" tests=\"{}\" failures=\"{failed_rules}\">\n",
        listed.len()
    ));
    out.push_str(&format!(
        "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{failed_rules}\" errors=\"0\">\n",
        crate::wire::markup::xml(name),
        listed.len()
    ));
    out.push_str(&format!(
        "    <properties><property name=\"events\" value=\"{}\"/><property name=\"messages\" value=\"{}\"/><property name=\"error-findings\" value=\"{errors}\"/></properties>\n",
        totals.events, totals.messages
    ));
    for rule in listed {
        let mine: Vec<&Finding> = findings.iter().filter(|f| f.rule.id == rule.id).collect();
        out.push_str(&format!(
            "    <testcase classname=\"{}\" name=\"{}\"",
            crate::wire::markup::xml(rule.spec),
            crate::wire::markup::xml(rule.id)
        ));
        if mine.is_empty() {
            out.push_str("/>\n");
            continue;
        }
        out.push_str(">\n");
        let lines: Vec<String> = mine.iter().map(|f| line(f)).collect();
        let body = crate::wire::markup::xml(&lines.join("\n"));
        if rule.severity == Severity::Error {
            out.push_str(&format!(
                "      <failure message=\"{}\" type=\"{}\">{body}</failure>\n",
                crate::wire::markup::xml(&format!("{} finding(s): {}", mine.len(), rule.text)),
                rule.id
            ));
        } else {
            out.push_str(&format!("      <system-out>{body}</system-out>\n"));
        }
        out.push_str("    </testcase>\n");
    }
    out.push_str("  </testsuite>\n</testsuites>\n");
    out
}

/// SARIF 2.1.0 (OASIS, 2020): one run; its driver lists every rule (id, its text,
/// the spec section in `help`, the default level); a result per finding, located at
/// `uri`'s line that holds the finding's event (`line_of(event)`, 1-based), with the
/// lane, direction and time as properties. An error is level `error`, a warning
/// `warning`.
///
/// Findings `--allow` silenced are results too, each with an external suppression
/// (SARIF 2.1.0 `result.suppressions`), so a code-scanning page shows them as dismissed.
pub fn sarif(
    uri: &str,
    line_of: &dyn Fn(usize) -> Option<usize>,
    findings: &[Finding],
    silenced: &[Finding],
    totals: Totals,
) -> String {
    let listed = listed(totals);
    let level = |s: Severity| match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
    };
    let rules: Vec<serde_json::Value> = listed
        .iter()
        .map(|r| {
            json!({
                "id": r.id,
                "shortDescription": { "text": r.text },
                "help": { "text": r.spec },
                "defaultConfiguration": { "level": level(r.severity) },
                "properties": { "spec": r.spec },
            })
        })
        .collect();
    let results: Vec<serde_json::Value> = findings
        .iter()
        .map(|f| (f, false))
        .chain(silenced.iter().map(|f| (f, true)))
        .map(|(f, quiet)| {
            let mut location = json!({ "artifactLocation": { "uri": uri } });
            if let Some(line) = line_of(f.at.event) {
                location["region"] = json!({ "startLine": line });
            }
            let mut result = json!({
                "ruleId": f.rule.id,
                "level": level(f.rule.severity),
                "message": { "text": f.message },
                "locations": [{ "physicalLocation": location }],
                "properties": {
                    "event": f.at.event,
                    "lane": f.at.lane,
                    "dir": f.at.dir.name(),
                    "t": f.at.t.as_secs_f64(),
                },
            });
            if let Some(i) = listed.iter().position(|r| r.id == f.rule.id) {
                result["ruleIndex"] = json!(i);
            }
            if quiet {
                result["suppressions"] =
                    json!([{ "kind": "external", "justification": "--allow" }]);
            }
            result
        })
        .collect();
    let doc = json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": { "driver": {
                "name": "mcp-raw check",
                "version": env!("CARGO_PKG_VERSION"),
                "informationUri": "https://modelcontextprotocol.io/specification",
                "rules": rules,
            }},
            "artifacts": [{ "location": { "uri": uri } }],
            "results": results,
            "properties": { "events": totals.events, "messages": totals.messages },
        }],
    });
    serde_json::to_string_pretty(&doc).unwrap_or_default() + "\n"
}

/// Several recordings' [`json()`] documents as one JSON array, in order.
pub fn json_many(docs: &[String]) -> String {
    let all: Vec<serde_json::Value> = docs
        .iter()
        .map(|d| serde_json::from_str(d).unwrap_or(serde_json::Value::Null))
        .collect();
    serde_json::to_string_pretty(&all).unwrap_or_default() + "\n"
}

/// Several recordings' [`junit`] documents as one: a `<testsuite>` each under one
/// `<testsuites>`, whose `tests` and `failures` add theirs up.
pub fn junit_many(docs: &[String]) -> String {
    let attr = |line: &str, name: &str| -> usize {
        line.split(&format!(" {name}=\""))
            .nth(1)
            .and_then(|rest| rest.split('"').next())
            .and_then(|n| n.parse().ok())
            .unwrap_or(0)
    };
    let (mut tests, mut failures, mut suites) = (0, 0, String::new());
    for doc in docs {
        let lines: Vec<&str> = doc.lines().collect();
        // The declaration, `<testsuites …>`, the suite's lines, `</testsuites>`.
        if let [_, head, suite @ .., _] = lines.as_slice() {
            tests += attr(head, "tests");
            failures += attr(head, "failures");
            for l in suite {
                suites.push_str(l);
                suites.push('\n');
            }
        }
    }
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"mcp-raw check\" tests=\"{tests}\" failures=\"{failures}\">\n{suites}</testsuites>\n"
    )
}

/// Several recordings' [`sarif`] documents as one log with a run each (SARIF 2.1.0
/// §3.13.4: `runs` is an array).
pub fn sarif_many(docs: &[String]) -> String {
    let mut log: Option<serde_json::Value> = None;
    let mut runs = Vec::new();
    for doc in docs {
        let Ok(mut v) = serde_json::from_str::<serde_json::Value>(doc) else {
            continue;
        };
        if let Some(serde_json::Value::Array(r)) = v.get_mut("runs").map(std::mem::take) {
            runs.extend(r);
        }
        log.get_or_insert(v);
    }
    let mut log = log.unwrap_or_else(|| json!({}));
    log["runs"] = serde_json::Value::Array(runs);
    serde_json::to_string_pretty(&log).unwrap_or_default() + "\n"
}
