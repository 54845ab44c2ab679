//! The stdio lane: every line of the server's stdout and of its stdin must be one
//! MCP message (MCP 2025-11-25 `basic/transports` "stdio"); the whole pipe is one
//! conversation.

use super::rules;
use super::scope::Scope;
use super::{Finding, Spot, quote};
use crate::wire::decode::{Fact, Source};
use crate::wire::event::Dir;
use serde_json::Value;

/// The stdio lanes' checks.
#[derive(Default)]
pub struct State {
    /// The conversation on each pipe (a bridge records one per child, `stdio1`,
    /// `stdio2`…): a stdio server is spawned for its client, so the recording sees it
    /// from its first line.
    scopes: std::collections::BTreeMap<u32, Scope>,
}

impl State {
    /// Checks one fact of stdio lane `lane`, read in direction `dir`.
    pub fn fact(&mut self, lane: u32, dir: Dir, fact: &Fact, at: &Spot, out: &mut Vec<Finding>) {
        let Fact::Payload {
            bytes,
            source: Source::Line,
            odd,
            class,
        } = fact
        else {
            return;
        };
        let who = match dir {
            Dir::ToClient => "the server's stdout",
            Dir::ToServer => "the server's stdin",
        };
        if odd.not_utf8 {
            out.push(at.finding(
                rules::NOT_UTF8,
                format!("a line on {who} is not UTF-8: {}", quote(bytes)),
            ));
        }
        if odd.bom {
            out.push(at.finding(
                rules::BOM,
                format!("a line on {who} starts with a byte order mark"),
            ));
        }
        match class.shape {
            "blank" => {
                out.push(at.finding(rules::STDIO_BLANK_LINE, format!("an empty line on {who}")))
            }
            "not-json" | "invalid" => out.push(at.finding(
                rules::STDIO_NOT_A_MESSAGE,
                format!(
                    "{who} carried {} ({})",
                    quote(bytes),
                    class.problem.as_deref().unwrap_or("not a JSON-RPC message")
                ),
            )),
            _ => {
                let Ok(value) = serde_json::from_slice::<Value>(bytes) else {
                    return;
                };
                self.scopes
                    .entry(lane)
                    .or_insert_with(|| Scope::new(true))
                    .payload(dir, value, at, out);
            }
        }
    }

    /// What is still wrong when the recording ends.
    pub fn finish(&mut self, out: &mut Vec<Finding>) {
        for scope in self.scopes.values_mut() {
            scope.finish(out);
        }
    }
}
