//! `mcp-raw check FILE`: a transcript read back and checked (and its contract's terms,
//! `gate.rs`: contract, security, --allow), the findings in the format asked for; and `tap --check`: the same checker fed live from the tap's
//! recorder, each finding on stderr as it happens.

use super::args::{CheckArgs, CheckFormat};
use super::console::Console;
use mcp_raw_tools::check::report::{self, Totals};
use mcp_raw_tools::check::{Checker, Finding, rules};
use mcp_raw_wire::event::Event;
use mcp_raw_wire::lock::Locked;
use mcp_raw_wire::recorder::Sink;
use std::sync::{Arc, Mutex};

/// Runs `check`; returns the exit status: 0 no errors, 1 errors, 2 unreadable.
pub fn main(args: CheckArgs, console: &Console) -> u8 {
    if args.rules {
        let mut out = String::new();
        use mcp_raw_tools::check::{contract, security};
        for r in rules::ALL
            .iter()
            .chain(contract::RULES)
            .chain(security::RULES)
        {
            out.push_str(&format!(
                "{:<44} {:<7} {}\n    {}\n",
                r.id,
                r.severity.name(),
                r.spec,
                r.text
            ));
        }
        console.print(out);
        return 0;
    }
    if args.files.is_empty() {
        console.say("mcp-raw check: give a transcript FILE (or --rules)");
        return 2;
    }
    let refused = |e: &str| {
        console.say(format_args!(
            "mcp-raw check: {}",
            mcp_raw_wire::term::escape(e)
        ));
        2
    };
    let gate = match super::gate::prepare(&args.contract, &args.security, args.max_message_bytes) {
        Ok(g) => g,
        Err(e) => return refused(&e),
    };
    // Every file checked before any is reported: one that cannot be read (at its
    // start or at any line) is exit 2, alone. Each is read as a stream, an event at a
    // time: memory holds one event, the checker's state and the gate's ledger.
    let mut reports: Vec<(String, bool)> = Vec::new();
    for file in &args.files {
        match one(file, &gate, &args, console) {
            Ok(report) => reports.push(report),
            Err(e) => return refused(&e),
        }
    }
    let failed = reports.iter().any(|(_, f)| *f);
    let texts: Vec<String> = reports.into_iter().map(|(t, _)| t).collect();
    let out = if texts.len() == 1 {
        texts.into_iter().next().unwrap_or_default()
    } else {
        let names: Vec<String> = args.files.iter().map(|f| f.display().to_string()).collect();
        match args.format {
            CheckFormat::Text => names
                .iter()
                .zip(&texts)
                .map(|(name, text)| format!("== {}\n{text}", mcp_raw_wire::term::escape_line(name)))
                .collect(),
            CheckFormat::Json => report::json_many(&texts),
            CheckFormat::Junit => report::junit_many(&texts),
            CheckFormat::Sarif => report::sarif_many(&texts),
        }
    };
    console.print(out);
    u8::from(failed)
}

/// One recording checked, streamed: its report in the format asked for, and whether
/// it broke an error rule; or why it could not be read.
fn one(
    file: &std::path::Path,
    gate: &super::gate::Gate,
    args: &CheckArgs,
    console: &Console,
) -> Result<(String, bool), String> {
    let max = args.max_message_bytes;
    let (_, events) = super::open_transcript(file)?;
    let mut checker = Checker::with_max(max);
    let mut watch = super::gate::Watch::new(gate, max);
    let mut findings = Vec::new();
    for e in events {
        let e = e.map_err(|e| {
            format!(
                "{} is not a transcript mcp-raw can read: {e}",
                file.display()
            )
        })?;
        findings.extend(checker.feed(&e));
        watch.feed(&e);
    }
    findings.extend(checker.finish());
    findings.extend(watch.finish(gate));
    let (findings, silenced) = super::gate::allow(findings, &gate.contract.allow);
    let totals = Totals {
        events: checker.events(),
        messages: checker.messages(),
        contract: gate.contract.terms(),
        security: gate.security_rules(),
        silenced: silenced.len(),
    };
    let out = match args.format {
        CheckFormat::Text if args.color.enabled(console) => colored(&findings, totals),
        CheckFormat::Text => report::text(&findings, totals),
        CheckFormat::Json => report::json(&findings, totals),
        CheckFormat::Junit => report::junit(&file.display().to_string(), &findings, totals),
        CheckFormat::Sarif => {
            let lines = super::gate::event_lines(file);
            let line_of = |event: usize| lines.get(event.checked_sub(1)?).map(|l| *l as usize);
            report::sarif(
                &file.display().to_string(),
                &line_of,
                &findings,
                &silenced,
                totals,
            )
        }
    };
    Ok((out, report::count(&findings).0 > 0))
}

/// The text report, each finding's severity coloured (`--color`): an error red, a
/// warning yellow.
fn colored(findings: &[Finding], totals: Totals) -> String {
    let mut out = String::new();
    for f in findings {
        let line = report::line(f);
        let severity = f.rule.severity.name();
        let colour = match f.rule.severity {
            rules::Severity::Error => "\x1b[1;31m",
            _ => "\x1b[1;33m",
        };
        let marked = format!(": {severity} {}:", f.rule.id);
        let line = line.replacen(
            &marked,
            &format!(": {colour}{severity}\x1b[0m {}:", f.rule.id),
            1,
        );
        out.push_str(&line);
        out.push('\n');
    }
    out.push_str(&report::summary(findings, totals));
    out.push('\n');
    out
}

/// The checker a live tap feeds, shared between its sink and whoever prints the
/// summary at the end.
#[derive(Clone)]
pub struct Live(Arc<Mutex<LiveState>>);

struct LiveState {
    checker: Checker,
    /// Where each finding and the summary are said (stderr).
    console: Console,
    /// Every finding so far, for the closing summary.
    findings: Vec<Finding>,
}

impl Live {
    pub fn new(max: usize, console: &Console) -> Live {
        Live(Arc::new(Mutex::new(LiveState {
            checker: Checker::with_max(max),
            console: console.clone(),
            findings: Vec::new(),
        })))
    }

    /// The sink to hand the recorder.
    pub fn sink(&self) -> Box<dyn Sink> {
        Box::new(self.clone())
    }

    /// The end of the tap: what only the end tells, then the summary, on stderr.
    pub fn finish(&self) {
        let mut s = self.0.locked();
        let late = s.checker.finish();
        print(&late, &s.console);
        s.findings.extend(late);
        let totals = Totals {
            events: s.checker.events(),
            messages: s.checker.messages(),
            ..Totals::default()
        };
        s.console.say(format_args!(
            "[mcp-raw check] {}",
            report::summary(&s.findings, totals)
        ));
    }
}

impl Sink for Live {
    fn event(&mut self, event: &Event) {
        let mut s = self.0.locked();
        let found = s.checker.feed(event);
        print(&found, &s.console);
        s.findings.extend(found);
    }
}

fn print(findings: &[Finding], console: &Console) {
    for f in findings {
        console.say(format_args!("[mcp-raw check] {}", report::line(f)));
    }
}
