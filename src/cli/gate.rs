//! `check`'s contract (`--expect-tool`…, `--contract FILE`): the flags and the file
//! made one [`Contract`], and the terms the recording breaks as findings; and where
//! each event sits in the transcript file, for SARIF's locations.

use super::args::ContractArgs;
use mcp_raw_tools::check::contract::Contract;
use mcp_raw_tools::check::{Finding, Spot};
use mcp_raw_tools::stats::ledger::Ledger;
use mcp_raw_wire::event::{Dir, Event};

/// The terms of the flags and of `--contract FILE`; an error (exit 2) names the
/// file and quotes what is wrong.
pub fn contract(args: &ContractArgs) -> Result<Contract, String> {
    let mut c = Contract {
        expect_tools: args.expect_tool.clone(),
        forbid_tools: args.forbid_tool.clone(),
        expect_methods: args.expect_method.clone(),
        max_duration: args.max_duration,
        max_latency: args.max_latency.clone(),
        max_errors: args.max_errors,
    };
    if let Some(file) = &args.contract {
        let name = file.display().to_string();
        let text = std::fs::read_to_string(file)
            .map_err(|e| format!("cannot read contract {name}: {e}"))?;
        c.add_file(&name, &text)?;
    }
    Ok(c)
}

/// The findings of `contract` over the recording's `events`.
pub fn findings(contract: &Contract, events: &[Event], max: usize) -> Vec<Finding> {
    if contract.is_empty() {
        return Vec::new();
    }
    let ledger = Ledger::read(events, max);
    let end = match events.last() {
        Some(e) => Spot {
            lane: e.lane.label(),
            dir: e.dir,
            t: e.t,
            event: events.len(),
        },
        None => Spot {
            lane: "-".into(),
            dir: Dir::ToServer,
            t: Default::default(),
            event: 0,
        },
    };
    contract.evaluate(&ledger, &end)
}

/// The 1-based line of each event (its number from 1 → its line) in a transcript's
/// text: the header is line 1, and the fact lines a `--record` writes after an event
/// are not events.
pub fn event_lines(text: &str) -> Vec<usize> {
    let mut lines = Vec::new();
    for (i, line) in text.lines().enumerate().skip(1) {
        if let Ok(Some(_)) = mcp_raw_wire::transcript::event_of_line(line) {
            lines.push(i + 1);
        }
    }
    lines
}
