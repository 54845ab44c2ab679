//! The stdio lane: every line of the server's stdout and of its stdin must be one
//! MCP message (MCP 2025-11-25 `basic/transports` "stdio"); the whole pipe is one
//! conversation.

use super::rules;
use super::scope::Scope;
use super::{Finding, Spot, quote};
use crate::wire::decode::{Fact, Source};
use crate::wire::event::Dir;
use serde_json::Value;

/// The stdio lane's checks.
pub struct State {
    /// The conversation on the pipe: a stdio server is spawned for its client, so the
    /// recording sees it from its first line.
    scope: Scope,
}

impl Default for State {
    fn default() -> Self {
        State {
            scope: Scope::new(true),
        }
    }
}

impl State {
    pub fn fact(&mut self, dir: Dir, fact: &Fact, at: &Spot, out: &mut Vec<Finding>) {
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
                self.scope.payload(dir, value, at, out);
            }
        }
    }

    pub fn finish(&mut self, out: &mut Vec<Finding>) {
        self.scope.finish(out);
    }
}
