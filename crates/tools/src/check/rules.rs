//! Every rule `mcp-raw check` knows, one line each: its name, how bad breaking it is,
//! and the sentence of the spec it comes from. The checks that apply them live in
//! [`super::scope`] (messages), [`super::http`] (heads, sessions, streams) and
//! [`super::stdio`] (lines); a finding points back here.

/// How bad a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    /// A SHOULD broken, or something a recording cannot decide (it may have started
    /// late or stopped early): reported, but `check` still exits 0.
    Warning,
    /// A MUST broken: `check` exits 1.
    Error,
}

impl Severity {
    /// `error` or `warning`, as reports print it.
    pub fn name(self) -> &'static str {
        match self {
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

/// One rule.
#[derive(Debug, PartialEq, Eq)]
pub struct Rule {
    /// Stable name, `area/what`: what `--format json` and JUnit report.
    pub id: &'static str,
    /// How bad breaking it is.
    pub severity: Severity,
    /// Where the rule is written: revision, page, section.
    pub spec: &'static str,
    /// The rule, in a line (the spec's words where they are short).
    pub text: &'static str,
}

/// A table of rules: each a `pub const NAME: &Rule` documented by its id and text,
/// then `LIST`, all of them in order (the spec's here; the contract's and the security
/// rules in their modules use it too).
macro_rules! rule_table {
    ($(#[$list_doc:meta])* $list:ident; $($name:ident = $id:literal, $sev:ident, $spec:expr, $text:literal;)*) => {
        // The text goes in a code span: rule texts quote the spec, `<angles>` and all.
        $(#[doc = concat!("`", $id, "`: `", $text, "`")]
        pub const $name: &$crate::check::rules::Rule = &$crate::check::rules::Rule {
            id: $id,
            severity: $crate::check::rules::Severity::$sev,
            spec: $spec,
            text: $text,
        };)*
        $(#[$list_doc])*
        pub const $list: &[&$crate::check::rules::Rule] = &[$($name),*];
    };
}
pub(crate) use rule_table;

rule_table! {
    /// Every rule, in the order `check --rules` and the book's reference list them.
    ALL;
    STDIO_NOT_A_MESSAGE = "stdio/not-a-message", Error,
        "MCP 2025-11-25 basic/transports \"stdio\"",
        "the server MUST NOT write anything to its stdout that is not a valid MCP message (nor the client to its stdin)";
    STDIO_BLANK_LINE = "stdio/blank-line", Warning,
        "MCP 2025-11-25 basic/transports \"stdio\"",
        "every line is a message; an empty line is none (most readers skip it)";
    NOT_UTF8 = "transport/not-utf8", Error,
        "MCP 2025-11-25 basic/transports",
        "JSON-RPC messages MUST be UTF-8 encoded";
    BOM = "transport/bom", Error,
        "RFC 8259 §8.1",
        "implementations MUST NOT add a byte order mark to the beginning of a JSON text";
    NOT_JSON = "jsonrpc/not-json", Error,
        "JSON-RPC 2.0 §4, MCP 2025-11-25 basic \"Messages\"",
        "all messages MUST follow JSON-RPC 2.0: a body or SSE data that is not JSON is none";
    INVALID_MESSAGE = "jsonrpc/invalid-message", Error,
        "JSON-RPC 2.0 §4-5, MCP 2025-11-25 basic \"Messages\"",
        "JSON, but not a JSON-RPC request, notification or response (jsonrpc MUST be exactly \"2.0\")";
    DUPLICATE_ID = "jsonrpc/duplicate-id", Error,
        "MCP 2025-11-25 basic \"Requests\"; 2026-07-28 basic \"Requests\"",
        "the request ID MUST NOT have been previously used by the requestor within the same session (2026-07-28: nor match a request still awaiting its response)";
    RESPONSE_TO_NOTHING = "jsonrpc/response-to-nothing", Error,
        "JSON-RPC 2.0 §5, MCP 2025-11-25 basic \"Responses\"",
        "responses MUST include the same ID as the request they correspond to: this id names no request of the peer";
    ANSWERED_TWICE = "jsonrpc/answered-twice", Error,
        "JSON-RPC 2.0 §5",
        "a request gets one response; this id was answered already";
    UNANSWERED = "jsonrpc/unanswered", Warning,
        "JSON-RPC 2.0 §5",
        "a request the recording never shows answered (nor cancelled)";
    BATCH_REMOVED = "jsonrpc/batch-removed", Error,
        "MCP 2025-06-18 changelog; 2026-07-28 basic/transports/streamable-http \"Sending Messages\"",
        "JSON-RPC batching was removed in 2025-06-18: a body MUST be a single message";
    FIRST_NOT_INITIALIZE = "lifecycle/first-not-initialize", Error,
        "MCP 2025-11-25 basic/lifecycle \"Initialization\"",
        "the initialization phase MUST be the first interaction between client and server";
    BEFORE_INITIALIZE_RESULT = "lifecycle/request-before-initialize-result", Warning,
        "MCP 2025-11-25 basic/lifecycle \"Initialization\"",
        "the client SHOULD NOT send requests other than pings before the server has responded to initialize";
    INITIALIZED_MISSING = "lifecycle/initialized-missing", Error,
        "MCP 2025-11-25 basic/lifecycle \"Initialization\"",
        "after successful initialization, the client MUST send an initialized notification";
    SERVER_REQUEST_BEFORE_INITIALIZED = "lifecycle/server-request-before-initialized", Warning,
        "MCP 2025-11-25 basic/lifecycle \"Initialization\"",
        "the server SHOULD NOT send requests other than pings and logging before receiving the initialized notification";
    CLIENT_CAPABILITY = "capability/client-undeclared", Error,
        "MCP 2025-11-25 basic/lifecycle \"Operation\"; client/sampling, client/elicitation, client/roots",
        "both parties MUST only use capabilities that were successfully negotiated: the server asked for one the client did not declare";
    SERVER_CAPABILITY = "capability/server-undeclared", Error,
        "MCP 2025-11-25 basic/lifecycle \"Operation\"",
        "both parties MUST only use capabilities that were successfully negotiated: the client used one the server did not declare";
    CANCEL_INITIALIZE = "cancel/initialize", Error,
        "MCP 2025-11-25 basic/utilities/cancellation \"Behavior Requirements\"",
        "the initialize request MUST NOT be cancelled by clients";
    CANCEL_UNKNOWN = "cancel/unknown-request", Error,
        "MCP 2025-11-25 basic/utilities/cancellation \"Behavior Requirements\"",
        "cancellation notifications MUST only reference requests previously issued in the same direction";
    PROGRESS_UNKNOWN_TOKEN = "progress/unknown-token", Error,
        "MCP 2025-11-25 basic/utilities/progress \"Behavior Requirements\"",
        "progress notifications MUST only reference tokens provided in an active request";
    PROGRESS_NOT_INCREASING = "progress/not-increasing", Error,
        "MCP 2025-11-25 basic/utilities/progress \"Progress Flow\"",
        "the progress value MUST increase with each notification";
    PING_RESULT = "ping/non-empty-result", Error,
        "MCP 2025-11-25 basic/utilities/ping \"Behavior Requirements\"",
        "the receiver MUST respond promptly with an empty response";
    MODERN_RESULT_TYPE = "modern/result-type", Error,
        "MCP 2026-07-28 basic \"Result Responses\"",
        "the result MUST include a resultType field";
    MODERN_CLIENT_RESPONSE = "modern/client-response", Error,
        "MCP 2026-07-28 basic/transports/stdio \"Sending Messages\", streamable-http \"Sending Messages\"",
        "the client MUST NOT send JSON-RPC responses: server-to-client requests are embedded in results";
    MODERN_SERVER_REQUEST = "modern/server-request", Error,
        "MCP 2026-07-28 basic/transports/stdio \"Receiving Messages\", streamable-http \"Receiving Messages\"",
        "the server MUST NOT send JSON-RPC requests: it asks with an InputRequiredResult";
    HTTP_ACCEPT = "http/accept", Error,
        "MCP 2025-11-25 basic/transports \"Sending Messages to the Server\" 2, \"Listening for Messages from the Server\" 2",
        "a POST MUST list both application/json and text/event-stream in Accept; a GET MUST list text/event-stream";
    HTTP_ACCEPTED_WITH_BODY = "http/notification-answered", Error,
        "MCP 2025-11-25 basic/transports \"Sending Messages to the Server\" 4; JSON-RPC 2.0 §4.1",
        "for a notification or response it accepts, the server MUST return 202 Accepted with no body";
    HTTP_CONTENT_TYPE = "http/content-type", Error,
        "MCP 2025-11-25 basic/transports \"Sending Messages to the Server\" 5",
        "for a request, the server MUST return Content-Type text/event-stream or application/json";
    HTTP_JSON_NOT_THE_RESPONSE = "http/json-not-the-response", Error,
        "MCP 2025-11-25 basic/transports \"Sending Messages to the Server\" 5, \"Multiple Connections\"",
        "an application/json answer to a POST of requests is the response to them: a message the server sends before its response (a request of its own, a notification) needs an event stream, or the client waits forever";
    HTTP_RESPONSE_ON_GET = "http/response-on-get-stream", Error,
        "MCP 2025-11-25 basic/transports \"Listening for Messages from the Server\" 4",
        "the server MUST NOT send a JSON-RPC response on a GET stream unless resuming a request's stream";
    HTTP_PROTOCOL_VERSION = "http/protocol-version-header", Error,
        "MCP 2025-11-25 basic/transports \"Protocol Version Header\"",
        "after initialization the client MUST send MCP-Protocol-Version: <negotiated version> on every request";
    SESSION_ID_DROPPED = "http/session-id-dropped", Error,
        "MCP 2025-11-25 basic/transports \"Session Management\" 2",
        "when the server returned an Mcp-Session-Id at initialization, the client MUST include it on all subsequent requests";
    SESSION_ID_UNKNOWN = "http/session-id-unknown", Warning,
        "MCP 2025-11-25 basic/transports \"Session Management\"",
        "the client sent an Mcp-Session-Id this recording never saw the server issue";
    SESSION_ID_CHANGED = "http/session-id-changed", Error,
        "MCP 2025-11-25 basic/transports \"Session Management\" 1",
        "the server assigns a session id at initialization; a later response carried a different one";
    ENDED_SESSION_NOT_404 = "http/ended-session-not-404", Error,
        "MCP 2025-11-25 basic/transports \"Session Management\" 3",
        "once a session is terminated the server MUST answer requests carrying its id with 404 Not Found; this request came after the session's DELETE was accepted and got another status";
    UNKNOWN_SESSION_400 = "http/unknown-session-400", Warning,
        "MCP 2025-11-25 basic/transports \"Session Management\" 3 and 4",
        "a session id the server does not know is answered 404 Not Found, which tells the client to initialize anew; 400 leaves a client that follows the spec stuck (can misfire: a recording that starts after the session began)";
    SESSION_NOT_DELETED = "http/session-not-deleted", Warning,
        "MCP 2025-11-25 basic/transports \"Session Management\" 5",
        "a client that no longer needs a session SHOULD end it with DELETE; the recording ends without one (can misfire: it may stop before the client is done)";
    SESSION_ID_CHARSET = "http/session-id-charset", Error,
        "MCP 2025-11-25 basic/transports \"Session Management\" 1",
        "the session ID MUST only contain visible ASCII characters (0x21 to 0x7E)";
    HEADER_MISMATCH = "http/header-mismatch", Error,
        "MCP 2026-07-28 basic/transports/streamable-http \"Request Metadata\"",
        "MCP-Protocol-Version, Mcp-Method and Mcp-Name MUST be present and match the body";
    HEADER_MISMATCH_ACCEPTED = "http/header-mismatch-accepted", Error,
        "MCP 2026-07-28 basic/transports/streamable-http \"Protocol Version Header\"",
        "if the header and the body do not match, the server MUST reject the request; this one was answered with a result";
    SSE_MISSING_ID = "sse/missing-event-id", Warning,
        "MCP 2025-11-25 basic/transports \"Resumability and Redelivery\"",
        "the stream promised resumption (a priming event id or retry:), yet this message came without an id: a client cannot resume past it";
    SSE_RETRY_IGNORED = "sse/retry-ignored", Warning,
        "MCP 2025-11-25 basic/transports \"Resumability and Redelivery\"; WHATWG HTML \"Server-sent events\" (reconnection time)",
        "the stream set a reconnection time with retry:, and the client resumed it (Last-Event-ID) sooner: it SHOULD wait that long";
    SSE_DUPLICATE_ID = "sse/duplicate-event-id", Error,
        "MCP 2025-11-25 basic/transports \"Resumability and Redelivery\" 1",
        "an event ID MUST be globally unique across all streams within that session";
    TLS_NOT_VERIFIED = "tls/not-verified", Error,
        "RFC 9110 §4.3.4",
        "for an https resource the client MUST verify that the service's identity is an acceptable match for the URI's origin server; this chain did not verify and the exchange went on";
    TLS_OLD_VERSION = "tls/old-version", Error,
        "RFC 8996 §2, §3",
        "TLS 1.0 and TLS 1.1 MUST NOT be used";
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_unique_and_every_rule_cites_a_spec() {
        let mut ids: Vec<&str> = ALL.iter().map(|r| r.id).collect();
        ids.sort();
        ids.dedup();
        assert_eq!(ids.len(), ALL.len());
        assert!(ALL.iter().all(|r| !r.spec.is_empty() && r.id.contains('/')));
    }
}
