//! `show --method / --id / --era`: which messages a view keeps. A request or
//! notification is kept when it matches every filter given; a response is kept when
//! the request it answers was (so `--method tools/call` shows the calls and their
//! results), or, with `--id` alone, when its id matches.

use super::classify::Class;
use serde_json::Value;
use std::collections::HashSet;

/// The filters, and the requests kept so far whose responses are still to come.
#[derive(Debug, Clone, Default)]
pub struct Select {
    /// Methods to keep (`tools/call`); empty keeps any.
    pub methods: Vec<String>,
    /// Ids to keep, as typed: `3`, `abc` or `"abc"`; empty keeps any.
    pub ids: Vec<String>,
    /// `modern` (the message declares 2026-07-28 in `_meta`) or `legacy` (it does
    /// not); none keeps both.
    pub era: Option<String>,
    /// Ids (JSON text) of kept requests not yet answered.
    pending: HashSet<String>,
}

impl Select {
    /// Keeps messages with one of `methods`, one of `ids`, and of `era` (an empty
    /// list or `None`: no condition).
    pub fn new(methods: Vec<String>, ids: Vec<String>, era: Option<String>) -> Select {
        Select {
            methods,
            ids,
            era,
            pending: HashSet::new(),
        }
    }

    /// No filter at all: every event is shown, framing included.
    pub fn is_empty(&self) -> bool {
        self.methods.is_empty() && self.ids.is_empty() && self.era.is_none()
    }

    fn id_matches(&self, id: &Value) -> bool {
        let text = id.to_string();
        self.ids.is_empty()
            || self
                .ids
                .iter()
                .any(|want| *want == text || id.as_str() == Some(want.as_str()))
    }

    fn era_matches(&self, class: &Class) -> bool {
        match self.era.as_deref() {
            None => true,
            Some("modern") => class.era == Some("modern"),
            Some(_) => class.era != Some("modern"),
        }
    }

    /// Is this payload kept? (Remembers kept requests, to keep their responses.)
    pub fn keep(&mut self, class: &Class) -> bool {
        let id = class.id.as_ref();
        match class.shape {
            "request" | "notification" => {
                let method = class.method.as_deref().unwrap_or("");
                let kept = (self.methods.is_empty() || self.methods.iter().any(|m| m == method))
                    && self.era_matches(class)
                    && id.is_none_or(|id| self.id_matches(id))
                    && (self.ids.is_empty() || id.is_some());
                if kept && let Some(id) = id {
                    self.pending.insert(id.to_string());
                }
                kept
            }
            "response" | "error" => {
                let Some(id) = id else { return false };
                if self.pending.remove(&id.to_string()) {
                    return true;
                }
                self.methods.is_empty()
                    && self.era.as_deref().is_none_or(|_| self.era_matches(class))
                    && !self.ids.is_empty()
                    && self.id_matches(id)
            }
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::classify::classify;

    #[test]
    fn a_method_keeps_its_requests_and_their_responses() {
        let mut s = Select::new(vec!["tools/call".into()], vec![], None);
        assert!(!s.keep(&classify(
            br#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#
        )));
        assert!(!s.keep(&classify(br#"{"jsonrpc":"2.0","id":1,"result":{}}"#)));
        assert!(s.keep(&classify(
            br#"{"jsonrpc":"2.0","id":2,"method":"tools/call"}"#
        )));
        assert!(s.keep(&classify(br#"{"jsonrpc":"2.0","id":2,"result":{}}"#)));
        let mut s = Select::new(vec![], vec!["abc".into()], None);
        assert!(s.keep(&classify(br#"{"jsonrpc":"2.0","id":"abc","result":{}}"#)));
        assert!(!s.keep(&classify(br#"{"jsonrpc":"2.0","method":"x"}"#)));
    }
}
