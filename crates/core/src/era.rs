//! Which era serves a message: the one rule every transport asks ([`choose`]).
//!
//! Legacy is MCP 2024-11-05 … 2025-11-25: an `initialize` handshake opens a session,
//! and over HTTP every later message names it in `Mcp-Session-Id`. Modern is
//! 2026-07-28: no handshake, no session; each request names its version in
//! `params._meta` and, over HTTP, in the `MCP-Protocol-Version` header. A dual-era
//! server tells them apart per message (2026-07-28 `basic/versioning` "Backward
//! Compatibility"), from the body's `_meta` and the transport's facts ([`Facts`]).

use super::envelope::{Door, Facts};
use super::lifecycle::SUPPORTED_VERSIONS;
use super::meta::{MODERN_VERSIONS, Meta};

/// Which protocol eras a server serves (`mcp-raw serve --era`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Eras {
    /// Only the `initialize` handshake revisions; `_meta` fields are not looked at.
    Legacy,
    /// Only 2026-07-28; `initialize` is refused with the supported versions.
    Modern,
    /// Both, chosen per request: a "dual-era" server (2026-07-28 `basic/versioning`).
    Both,
}

/// The era one message (or one bodiless HTTP request) is served in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Era {
    /// 2025-11-25 and before: a session, found by `Mcp-Session-Id` over HTTP.
    Legacy,
    /// 2026-07-28: stateless, validated on its own `_meta` and headers.
    Modern,
}

/// The era that serves what came through `facts.door`. `meta` is the message's
/// `_meta` (absent for a batch and for bodiless doors). The rules, in order:
///
/// - **A single-era server** serves its era. Two exceptions on a legacy-only server,
///   both refusals that speak the modern client's language: a GET naming a modern
///   `MCP-Protocol-Version` gets the modern `405` (2026-07-28 removed the GET
///   stream), and a repeated header on a request that looks modern gets `-32020`.
/// - **[`Door::Message`]** (a stdio line, an HTTP POST body) on a dual-era server:
///   1. `MCP-Protocol-Version` names a modern revision → modern (a stray
///      `Mcp-Session-Id` is then ignored, as 2026-07-28 `basic/transports` says);
///   2. `Mcp-Session-Id` present → legacy session traffic;
///   3. `MCP-Protocol-Version` present and not a legacy revision (`v999.0.0`) →
///      modern, so a modern client hears `-32022` rather than "no session";
///   4. the body's `_meta` carries a per-request field → modern (a modern request
///      that forgot its header still gets a modern error; on stdio, with no headers,
///      this is the whole rule);
///   5. anything else (`initialize` above all) → legacy.
/// - **[`Door::Delete`]**: ending a session is legacy whenever one is named; else
///   modern when the version header names a modern revision (`405`: 2026-07-28 has
///   no sessions).
/// - **[`Door::Get`]**: modern when the version header names a modern revision,
///   session or not; else legacy (the push stream, 2025-11-25 `basic/transports`
///   "Listening for Messages from the Server").
/// - **[`Door::Headers`]** (a refusal before the body is read): modern when a
///   version header names a modern revision or `Mcp-Method` is mirrored, which only
///   a 2026-07-28 client does.
pub fn choose(eras: Eras, facts: &Facts, meta: Option<&Meta>) -> Era {
    let names_modern = facts.names_version(&MODERN_VERSIONS);
    let modern = |yes: bool| if yes { Era::Modern } else { Era::Legacy };
    match (eras, facts.door) {
        (Eras::Modern, _) => Era::Modern,
        (_, Door::Headers) => modern(names_modern || facts.method_header),
        (_, Door::Get) => modern(names_modern),
        (Eras::Legacy, _) => Era::Legacy,
        (Eras::Both, Door::Delete) => modern(!facts.session_id && names_modern),
        (Eras::Both, Door::Message) => {
            if names_modern {
                Era::Modern
            } else if facts.session_id {
                Era::Legacy
            } else if !facts.protocol_versions.is_empty()
                && !facts.names_version(&SUPPORTED_VERSIONS)
            {
                Era::Modern
            } else {
                modern(meta.is_some_and(|m| m.modern))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn facts(door: Door, versions: &[&'static str], session_id: bool) -> Facts<'static> {
        Facts {
            door,
            protocol_versions: versions.iter().map(|v| v.as_bytes()).collect(),
            session_id,
            method_header: false,
        }
    }

    #[test]
    fn a_message_follows_the_five_rules_in_order() {
        let modern_meta = Meta::read(Some(&json!({"_meta": {
            "io.modelcontextprotocol/clientCapabilities": {}}})));
        let message = |versions: &[&'static str], session, meta| {
            choose(
                Eras::Both,
                &facts(Door::Message, versions, session),
                Some(meta),
            )
        };
        let none = Meta::default();
        assert_eq!(message(&["2026-07-28"], true, &none), Era::Modern);
        assert_eq!(message(&["v999.0.0"], true, &none), Era::Legacy);
        assert_eq!(message(&["v999.0.0"], false, &none), Era::Modern);
        assert_eq!(message(&["2025-11-25"], false, &modern_meta), Era::Modern);
        assert_eq!(message(&["2025-11-25"], false, &none), Era::Legacy);
        assert_eq!(message(&[], false, &modern_meta), Era::Modern);
        assert_eq!(message(&[], false, &none), Era::Legacy);
    }

    #[test]
    fn stdio_has_no_facts_only_meta() {
        let bare = Facts::default();
        let plain = Meta::read(Some(&json!({"_meta": {"progressToken": 1}})));
        assert_eq!(choose(Eras::Both, &bare, Some(&plain)), Era::Legacy);
        assert_eq!(choose(Eras::Modern, &bare, Some(&plain)), Era::Modern);
    }

    #[test]
    fn bodiless_doors() {
        let modern = ["2026-07-28"];
        assert_eq!(
            choose(Eras::Both, &facts(Door::Delete, &modern, true), None),
            Era::Legacy
        );
        assert_eq!(
            choose(Eras::Both, &facts(Door::Delete, &modern, false), None),
            Era::Modern
        );
        assert_eq!(
            choose(Eras::Legacy, &facts(Door::Get, &modern, true), None),
            Era::Modern
        );
        let mut mirrored = facts(Door::Headers, &[], false);
        mirrored.method_header = true;
        assert_eq!(choose(Eras::Legacy, &mirrored, None), Era::Modern);
    }
}
