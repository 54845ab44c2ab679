//! `mcp-raw pin FILE`: each tool a recording's `tools/list` defined, as SHA-256 hashes
//! of its parts (description, title, input and output schemas, annotations); `check
//! --baseline` compares a recording's tools with such a file (or with another
//! recording read the same way). A part is hashed as canonical JSON: object members
//! sorted by name, no whitespace, so members sent in another order are the same part.
//!
//! ```json
//! {"pin": "mcp-raw", "version": 1, "tools": {"SERVER/TOOL": {"description": "<sha256 hex>", …}}}
//! ```
//!
//! SERVER is the server's own name (`serverInfo.name`), or `-` when the recording
//! does not show it.

use crate::stats::ledger::{Ledger, ToolDef};
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;

/// The parts of a definition hashed.
pub const PARTS: &[&str] = &[
    "description",
    "title",
    "inputSchema",
    "outputSchema",
    "annotations",
];

/// Each tool's hashes, by `SERVER/TOOL`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Pins {
    /// `SERVER/TOOL` → part → hex SHA-256 (absent parts are not listed).
    pub tools: BTreeMap<String, BTreeMap<String, String>>,
}

/// A tool's key: `SERVER/TOOL`.
pub fn key(t: &ToolDef) -> String {
    format!("{}/{}", t.server_name.as_deref().unwrap_or("-"), t.name)
}

/// JSON with object members sorted by name, compact.
fn canonical(v: &Value) -> String {
    fn sort(v: &Value) -> Value {
        match v {
            Value::Object(m) => {
                let mut keys: Vec<&String> = m.keys().collect();
                keys.sort();
                let mut out = Map::new();
                for k in keys {
                    out.insert(k.clone(), sort(&m[k]));
                }
                Value::Object(out)
            }
            Value::Array(a) => Value::Array(a.iter().map(sort).collect()),
            other => other.clone(),
        }
    }
    sort(v).to_string()
}

fn sha256(text: &str) -> String {
    Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

impl Pins {
    /// The hashes of every tool `ledger` saw listed (the last definition of each).
    pub fn of(ledger: &Ledger) -> Pins {
        let mut tools = BTreeMap::new();
        for t in &ledger.tools {
            let mut parts = BTreeMap::new();
            for p in PARTS {
                if let Some(v) = t.value.get(*p) {
                    parts.insert((*p).to_owned(), sha256(&canonical(v)));
                }
            }
            tools.insert(key(t), parts);
        }
        Pins { tools }
    }

    /// The pin file's text.
    pub fn to_json(&self) -> String {
        let doc = json!({ "pin": "mcp-raw", "version": 1, "tools": self.tools });
        serde_json::to_string_pretty(&doc).unwrap_or_default() + "\n"
    }

    /// A pin file read back; `None` when `text` is not one (it may be a recording).
    /// An error says what is wrong with a file that says it is one.
    pub fn from_json(text: &str) -> Option<Result<Pins, String>> {
        let doc: Value = serde_json::from_str(text).ok()?;
        if doc.get("pin").and_then(Value::as_str) != Some("mcp-raw") {
            return None;
        }
        Some(Self::read(&doc))
    }

    fn read(doc: &Value) -> Result<Pins, String> {
        if doc.get("version").and_then(Value::as_u64) != Some(1) {
            return Err(format!(
                "a pin file of version {}, this reads 1",
                doc["version"]
            ));
        }
        let tools = doc
            .get("tools")
            .and_then(Value::as_object)
            .ok_or("a pin file without its \"tools\" object")?;
        let mut out = BTreeMap::new();
        for (k, parts) in tools {
            let parts = parts
                .as_object()
                .ok_or_else(|| format!("tool {k:?}: not an object of hashes"))?;
            let mut hashes = BTreeMap::new();
            for (p, h) in parts {
                let h = h
                    .as_str()
                    .ok_or_else(|| format!("tool {k:?}: {p:?} is not a hash string"))?;
                hashes.insert(p.clone(), h.to_owned());
            }
            out.insert(k.clone(), hashes);
        }
        Ok(Pins { tools: out })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_json_ignores_member_order_only() {
        let a: Value = serde_json::from_str(r#"{"b":1,"a":{"y":2,"x":[1,2]}}"#).unwrap();
        let b: Value = serde_json::from_str(r#"{"a":{"x":[1,2],"y":2},"b":1}"#).unwrap();
        let c: Value = serde_json::from_str(r#"{"a":{"x":[2,1],"y":2},"b":1}"#).unwrap();
        assert_eq!(canonical(&a), canonical(&b));
        assert_ne!(canonical(&a), canonical(&c));
        assert_eq!(
            sha256("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
