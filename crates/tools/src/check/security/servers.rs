//! What concerns servers and sessions as a whole: session ids issued (MCP 2025-11-25
//! `basic/transports` "Session Management"), a credential sent to two hosts
//! (`basic/security_best_practices` "Token Passthrough"), one tool name on two servers,
//! and tools changed since a baseline.

use super::{
    NAME_COLLISION, PASSTHROUGH, SESSION_GUESSABLE, Scan, Spot, TOOL_ADDED, TOOL_CHANGED, pin,
};
use crate::stats::ledger::Ledger;
use crate::wire::event::Dir;
use std::collections::{BTreeMap, BTreeSet, HashMap};

impl Scan {
    /// Session ids issued, and credentials sent to hosts.
    pub(super) fn heads(&mut self, ledger: &Ledger) {
        let mut issued: Vec<&str> = Vec::new();
        let mut first_host: HashMap<&str, &str> = HashMap::new();
        for h in &ledger.heads {
            let at = Spot {
                lane: h.lane.clone(),
                dir: h.dir,
                t: h.t,
                event: h.event,
            };
            if let Some(id) = h.session.as_deref()
                && !issued.contains(&id)
            {
                if id.chars().count() < 16 {
                    self.push(
                        SESSION_GUESSABLE,
                        id,
                        &at,
                        format!(
                            "Mcp-Session-Id {id:?} is {} characters long",
                            id.chars().count()
                        ),
                    );
                } else if let (Some(prev), Ok(n)) = (
                    issued.last().and_then(|p| p.parse::<u128>().ok()),
                    id.parse::<u128>(),
                ) && n == prev + 1
                {
                    self.push(
                        SESSION_GUESSABLE,
                        id,
                        &at,
                        format!("Mcp-Session-Id {id:?} follows {prev}: sequential"),
                    );
                }
                issued.push(id);
            }
            if let (Some(auth), Some(host)) = (h.authorization.as_deref(), h.host.as_deref()) {
                let credential = auth.split_once(' ').map_or(auth, |(_, c)| c);
                if credential.is_empty() || credential.chars().all(|c| c == '*') {
                    continue; // masked by the recorder: nothing to compare
                }
                let host_name = host.rsplit_once(':').map_or(host, |(h, _)| h);
                match first_host.get(auth) {
                    None => {
                        first_host.insert(auth, host_name);
                    }
                    Some(first) if *first != host_name => {
                        let subject = format!("{first}>{host_name}");
                        let scheme = auth.split_once(' ').map_or("", |(s, _)| s);
                        self.push(PASSTHROUGH, &subject, &at, format!(
                            "the {scheme} credential sent to {first:?} is sent to {host_name:?} too"
                        ));
                    }
                    Some(_) => {}
                }
            }
        }
    }

    /// One tool name listed by two servers (by their own names).
    pub(super) fn collisions(&mut self, ledger: &Ledger) {
        let mut by_name: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
        for t in &ledger.tools {
            let Some(server) = t.server_name.as_deref() else {
                continue;
            };
            let servers = by_name.entry(&t.name).or_default();
            servers.insert(server);
            if servers.len() == 2 {
                let list: Vec<&str> = servers.iter().copied().collect();
                let at = Spot {
                    lane: t.lane.clone(),
                    dir: Dir::ToClient,
                    t: t.t,
                    event: t.event,
                };
                self.push(
                    NAME_COLLISION,
                    &t.name,
                    &at,
                    format!(
                        "tool {:?} is listed by {:?} and {:?}",
                        t.name, list[0], list[1]
                    ),
                );
            }
        }
    }

    /// Tools changed or added since the baseline.
    pub(super) fn rug_pull(&mut self, ledger: &Ledger, base: &pin::Pins) {
        let now = pin::Pins::of(ledger);
        for (key, hashes) in &now.tools {
            let t = ledger.tools.iter().rev().find(|t| pin::key(t) == *key);
            let at = t.map_or_else(
                || Spot {
                    lane: "-".into(),
                    dir: Dir::ToClient,
                    t: Default::default(),
                    event: 0,
                },
                |t| Spot {
                    lane: t.lane.clone(),
                    dir: Dir::ToClient,
                    t: t.t,
                    event: t.event,
                },
            );
            match base.tools.get(key) {
                None => self.push(
                    TOOL_ADDED,
                    key,
                    &at,
                    format!("tool {key:?} is not in the baseline"),
                ),
                Some(old) => {
                    let changed: Vec<&str> = pin::PARTS
                        .iter()
                        .copied()
                        .filter(|p| old.get(*p) != hashes.get(*p))
                        .collect();
                    if !changed.is_empty() {
                        self.push(
                            TOOL_CHANGED,
                            key,
                            &at,
                            format!(
                                "tool {key:?}: its {} changed since the baseline",
                                changed.join(", ")
                            ),
                        );
                    }
                }
            }
        }
    }
}
