//! The JSON-RPC messages the load generator sends, written out by hand (no JSON
//! library between the generator and the wire), for both eras:
//!
//! - 2025-11-25: `initialize`, `notifications/initialized`, then `tools/call`; over
//!   HTTP the session id and `MCP-Protocol-Version` ride on every later request
//!   (`basic/transports` "Session Management", "Protocol Version Header").
//! - 2026-07-28: no handshake; every `tools/call` carries its protocol version and
//!   client capabilities in `params._meta` (`basic/index` "`_meta`"), and over HTTP
//!   the `Mcp-Method` / `Mcp-Name` headers mirror the body.

/// The protocol era a workload speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Era {
    /// 2025-11-25: `initialize` first, sessions over HTTP.
    Legacy,
    /// 2026-07-28: stateless, `_meta` on every request.
    Modern,
}

impl Era {
    /// The revision string, as the wire spells it.
    pub fn version(self) -> &'static str {
        match self {
            Era::Legacy => "2025-11-25",
            Era::Modern => "2026-07-28",
        }
    }
}

/// The text every `echo` call sends and every answer must carry back.
pub const ECHO_TEXT: &str = "hello";

/// `initialize` (2025-11-25).
pub fn initialize(id: u64) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"initialize","params":{{"protocolVersion":"2025-11-25","capabilities":{{}},"clientInfo":{{"name":"mcp-bench","version":"0"}}}}}}"#
    )
}

/// `notifications/initialized` (2025-11-25).
pub const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

/// `tools/call echo {message}` in `era`.
pub fn echo(era: Era, id: u64) -> String {
    match era {
        Era::Legacy => format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"echo","arguments":{{"message":"{ECHO_TEXT}"}}}}}}"#
        ),
        Era::Modern => format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"echo","arguments":{{"message":"{ECHO_TEXT}"}},"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{}},"io.modelcontextprotocol/clientInfo":{{"name":"mcp-bench","version":"0"}}}}}}}}"#
        ),
    }
}

/// The id of a JSON-RPC response, found without parsing: the digits after the
/// first `"id":`. `None` for a response without a numeric id (the floors answer a
/// fixed id; the generator then matches answers to requests in order).
pub fn response_id(line: &[u8]) -> Option<u64> {
    let key = b"\"id\":";
    let at = line.windows(key.len()).position(|w| w == key)? + key.len();
    let digits: &[u8] = &line[at..];
    let digits = &digits[..digits.iter().take_while(|b| b.is_ascii_digit()).count()];
    std::str::from_utf8(digits).ok()?.parse().ok()
}

/// Whether an answer is an echo result: it has a `result` and the echoed text.
/// (A JSON-RPC error, or a result without the text, is a failed call.)
pub fn is_echo_result(body: &[u8]) -> bool {
    contains(body, b"\"result\"") && contains(body, ECHO_TEXT.as_bytes())
}

/// Whether a reply to a 2026-07-28 request is a modern result: modern results name
/// their kind in `resultType` (`basic/index` "Result Responses"); a server that only
/// speaks 2025-11-25 answers without it (or with an error).
pub fn is_modern_result(body: &[u8]) -> bool {
    is_echo_result(body) && contains(body, b"\"resultType\"")
}

/// Byte-substring search.
pub fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_found_without_parsing() {
        assert_eq!(
            response_id(br#"{"jsonrpc":"2.0","id":42,"result":{}}"#),
            Some(42)
        );
        assert_eq!(response_id(br#"{"result":{},"id":7}"#), Some(7));
        assert_eq!(response_id(br#"{"id":"x"}"#), None);
    }

    #[test]
    fn modern_results_are_told_apart() {
        let legacy = br#"{"id":1,"result":{"content":[{"type":"text","text":"hello"}]}}"#;
        let modern = br#"{"id":1,"result":{"resultType":"complete","content":[{"type":"text","text":"hello"}]}}"#;
        assert!(is_echo_result(legacy) && !is_modern_result(legacy));
        assert!(is_modern_result(modern));
        assert!(!is_echo_result(
            br#"{"id":1,"error":{"code":-32601,"message":"hello"}}"#
        ));
    }
}
