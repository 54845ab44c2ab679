//! The label values a metric may take, bounded: a method name or an error code comes
//! from the wire, and a peer that sent a million different ones must not make a
//! million series. The methods the spec defines keep their names, the rest are
//! `other`; JSON-RPC codes in the reserved range keep theirs, the rest are `other`.

/// The request methods MCP defines (2025-11-25 and 2026-07-28): a method label is one
/// of these or `other`.
pub const METHODS: &[&str] = &[
    "initialize",
    "ping",
    "tools/list",
    "tools/call",
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "resources/subscribe",
    "resources/unsubscribe",
    "prompts/list",
    "prompts/get",
    "completion/complete",
    "logging/setLevel",
    "sampling/createMessage",
    "elicitation/create",
    "roots/list",
    "tasks/get",
    "tasks/result",
    "tasks/list",
    "tasks/cancel",
    "tasks/update",
    "server/discover",
    "subscriptions/listen",
];

/// A request method as a label value: its name when MCP defines it, else `other`.
pub fn method(name: &str) -> &'static str {
    METHODS
        .iter()
        .find(|m| **m == name)
        .copied()
        .unwrap_or("other")
}

/// A JSON-RPC error code as a label value: the code when it lies in the range
/// JSON-RPC 2.0 §5.1 reserves for predefined and implementation-defined errors
/// (-32768 to -32000, where MCP puts its own), else `other`.
pub fn error_code(code: i64) -> String {
    if (-32768..=-32000).contains(&code) {
        code.to_string()
    } else {
        "other".to_owned()
    }
}

/// An HTTP status as a label value: three digits (RFC 9110 §15), else `other`.
pub fn status(code: u16) -> String {
    if (100..=999).contains(&code) {
        code.to_string()
    } else {
        "other".to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_from_the_wire_are_bounded() {
        assert_eq!(method("tools/call"), "tools/call");
        assert_eq!(method("x/made-up-by-a-peer"), "other");
        assert_eq!(error_code(-32601), "-32601");
        assert_eq!(error_code(7), "other");
        assert_eq!(status(413), "413");
        assert_eq!(status(42), "other");
    }
}
