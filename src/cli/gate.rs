//! `check`'s rules beyond the spec's: the contract (`--expect-tool`…, `--contract
//! FILE`) and the security rules (`--security`, `--baseline OLD`), read over the
//! recording once it is whole; `--allow`'s silencing; and where each event sits in
//! the transcript file, for SARIF's locations.

use super::args::{ContractArgs, SecurityArgs};
use mcp_raw_tools::check::contract::{self, Contract};
use mcp_raw_tools::check::security::{self, Options, pin::Pins};
use mcp_raw_tools::check::{Finding, Spot, rules};
use mcp_raw_tools::stats::ledger::Ledger;
use mcp_raw_wire::event::{Dir, Event};

/// What `check` runs besides the spec's rules.
pub struct Gate {
    /// The contract's terms (none: empty).
    pub contract: Contract,
    /// The security scan's options, when asked for.
    pub security: Option<Options>,
}

impl Gate {
    /// Security rules run: for the summary.
    pub fn security_rules(&self) -> usize {
        self.security.as_ref().map_or(0, |_| security::RULES.len())
    }
}

/// The flags and files made one; an error (exit 2) names the file or the flag and
/// quotes what is wrong.
pub fn prepare(c: &ContractArgs, s: &SecurityArgs, max: usize) -> Result<Gate, String> {
    let mut contract = Contract {
        expect_tools: c.expect_tool.clone(),
        forbid_tools: c.forbid_tool.clone(),
        expect_methods: c.expect_method.clone(),
        max_duration: c.max_duration,
        max_latency: c.max_latency.clone(),
        max_errors: c.max_errors,
        allow: s.allow.clone(),
    };
    if let Some(file) = &c.contract {
        let name = file.display().to_string();
        let text = std::fs::read_to_string(file)
            .map_err(|e| format!("cannot read contract {name}: {e}"))?;
        contract.add_file(&name, &text)?;
    }
    for id in &contract.allow {
        let known = rules::ALL
            .iter()
            .chain(contract::RULES)
            .chain(security::RULES)
            .any(|r| r.id == id);
        if !known {
            return Err(format!(
                "--allow {id:?}: no such rule (`mcp-raw check --rules` lists them)"
            ));
        }
    }
    let baseline = match &s.baseline {
        None => None,
        Some(file) => Some(baseline(file, max)?),
    };
    let security = (s.security || baseline.is_some()).then_some(Options {
        sampling_max_tokens: s.sampling_max_tokens,
        baseline,
    });
    Ok(Gate { contract, security })
}

/// The largest pin file `--baseline` reads (a hash per tool part: far smaller).
pub const MAX_PIN_FILE: u64 = 64 * 1024 * 1024;

/// `--baseline OLD`: a pin file, or a recording whose tools are hashed the same way
/// (read as a stream, into a counting ledger, as `pin` reads it).
fn baseline(file: &std::path::Path, max: usize) -> Result<Pins, String> {
    let name = file.display();
    let not_either = |e: String| format!("baseline: {e} (nor a pin file from `mcp-raw pin`)");
    let events = match super::open_transcript(file) {
        Ok((_, events)) => events,
        Err(e) => {
            // Not a transcript from its first line: a pin file (one small document,
            // read whole; a file far bigger than any pin file is not read).
            let len = std::fs::metadata(file)
                .map_err(|e| format!("cannot read baseline {name}: {e}"))?
                .len();
            if len > MAX_PIN_FILE {
                return Err(not_either(e));
            }
            let text =
                std::fs::read(file).map_err(|e| format!("cannot read baseline {name}: {e}"))?;
            return match Pins::from_json(&String::from_utf8_lossy(&text)) {
                Some(pins) => pins.map_err(|e| format!("baseline {name}: {e}")),
                None => Err(not_either(e)),
            };
        }
    };
    let mut ledger = Ledger::build_counting(max);
    for e in events {
        let e =
            e.map_err(|e| not_either(format!("{name} is not a transcript mcp-raw can read: {e}")))?;
        ledger.feed(&e);
    }
    Ok(Pins::of(&ledger.finish()))
}

/// The findings of the contract and the security rules over `events`.
pub fn findings(gate: &Gate, events: &[Event], max: usize) -> Vec<Finding> {
    let mut watch = Watch::new(gate, max);
    for e in events {
        watch.feed(e);
    }
    watch.finish(gate)
}

/// The contract's and the security rules' reading of a recording, fed an event at a
/// time (`check` streams a recording): the ledger they judge, and where it ended.
pub struct Watch {
    /// The ledger being read; none when the gate has nothing to judge.
    ledger: Option<mcp_raw_tools::stats::ledger::Building>,
    /// The last event read, and how many: where a finding about the whole goes.
    end: Spot,
}

impl Watch {
    /// A watch for `gate` (reading nothing when it judges nothing).
    pub fn new(gate: &Gate, max: usize) -> Watch {
        let judges = !gate.contract.is_empty() || gate.security.is_some();
        Watch {
            ledger: judges.then(|| Ledger::build(max)),
            end: Spot {
                lane: "-".into(),
                dir: Dir::ToServer,
                t: Default::default(),
                event: 0,
            },
        }
    }

    /// Reads one event.
    pub fn feed(&mut self, e: &Event) {
        if let Some(l) = &mut self.ledger {
            l.feed(e);
            self.end.event += 1;
            self.end.t = e.t;
            self.end.dir = e.dir;
            if self.end.lane != e.lane.label() {
                self.end.lane = e.lane.label();
            }
        }
    }

    /// The findings, once every event was read.
    pub fn finish(self, gate: &Gate) -> Vec<Finding> {
        let Some(ledger) = self.ledger else {
            return Vec::new();
        };
        let ledger = ledger.finish();
        let mut out = gate.contract.evaluate(&ledger, &self.end);
        if let Some(options) = &gate.security {
            out.extend(security::scan(&ledger, options));
        }
        out
    }
}

/// `--allow` and the contract file's `"allow"`: the findings kept, and those silenced.
pub fn allow(findings: Vec<Finding>, allow: &[String]) -> (Vec<Finding>, Vec<Finding>) {
    findings
        .into_iter()
        .partition(|f| !allow.iter().any(|a| a == f.rule.id))
}

/// The 1-based line of each event (its number from 1 → its line) in a transcript
/// file, read as a stream: the header is line 1, and the fact lines a `--record`
/// writes after an event are not events. Lines past a bad one are not counted.
pub fn event_lines(file: &std::path::Path) -> Vec<u32> {
    use std::io::BufRead;
    let mut lines = Vec::new();
    let Ok(f) = std::fs::File::open(file) else {
        return lines;
    };
    let mut input = std::io::BufReader::with_capacity(256 * 1024, f);
    let mut line = Vec::new();
    let mut number: u32 = 0;
    loop {
        line.clear();
        match input.read_until(b'\n', &mut line) {
            Ok(0) | Err(_) => break,
            Ok(_) => number += 1,
        }
        if number == 1 {
            continue;
        }
        let Ok(text) = std::str::from_utf8(&line) else {
            break;
        };
        if let Ok(Some(_)) = mcp_raw_wire::transcript::event_of_line(text.trim_end()) {
            lines.push(number);
        }
    }
    lines
}
