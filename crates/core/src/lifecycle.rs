//! The legacy-era lifecycle: `initialize` → `notifications/initialized` → operation
//! (MCP 2025-11-25 `basic/lifecycle`), and version negotiation.

use super::{Phase, Server};
use crate::jsonrpc::{ErrorObject, Response, code, kind};
use serde_json::{Value, json};

/// The revisions this server speaks, newest first. `initialize` echoes a requested
/// one that is listed here and otherwise answers the first (lifecycle
/// "Version Negotiation": the server SHOULD answer its latest).
pub const SUPPORTED_VERSIONS: [&str; 4] = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

/// The newest supported revision.
pub const LATEST_VERSION: &str = SUPPORTED_VERSIONS[0];

/// JSON-RPC batches exist in 2024-11-05 and 2025-03-26 only; 2025-06-18 removed them
/// ("Changelog": "Remove support for JSON-RPC batching").
pub fn supports_batches(version: &str) -> bool {
    matches!(version, "2024-11-05" | "2025-03-26")
}

/// Answers `initialize`: agrees a version, declares capabilities, names the server.
/// A session is initialized once; a second `initialize` is refused.
pub fn initialize(
    server: &Server,
    phase: &mut Phase,
    params: Option<&Value>,
) -> Result<Value, ErrorObject> {
    if *phase != Phase::AwaitingInitialize {
        return Err(ErrorObject::new(
            code::INVALID_REQUEST,
            "Invalid Request: initialize was already received in this session; a session is initialized once",
        ));
    }
    let params = params
        .and_then(Value::as_object)
        .ok_or_else(|| ErrorObject::invalid_params("initialize: params must be an object with protocolVersion, capabilities and clientInfo"))?;
    let requested = match params.get("protocolVersion") {
        Some(Value::String(v)) => v.as_str(),
        Some(other) => {
            return Err(ErrorObject::invalid_params(format!(
                "initialize: params.protocolVersion must be a string, got {}",
                kind(other)
            )));
        }
        None => {
            return Err(ErrorObject::invalid_params(
                "initialize: missing params.protocolVersion",
            ));
        }
    };
    for field in ["capabilities", "clientInfo"] {
        if let Some(v) = params.get(field)
            && !v.is_object()
        {
            return Err(ErrorObject::invalid_params(format!(
                "initialize: params.{field} must be an object, got {}",
                kind(v)
            )));
        }
    }
    let version = SUPPORTED_VERSIONS
        .into_iter()
        .find(|v| *v == requested)
        .unwrap_or(LATEST_VERSION);
    *phase = Phase::Initializing { version };
    Ok(json!({
        "protocolVersion": version,
        "capabilities": server.capabilities(),
        "serverInfo": server.info(),
    }))
}

/// `notifications/initialized`: the client accepted the handshake. Arriving in any
/// other phase it changes nothing (a notification cannot be refused).
pub fn initialized(phase: &mut Phase) {
    if let Phase::Initializing { version } = *phase {
        *phase = Phase::Ready { version };
    }
}

/// The `-32002` error for a request that arrives before the handshake is done.
pub fn not_initialized(method: &str, phase: Phase) -> ErrorObject {
    let why = match phase {
        Phase::AwaitingInitialize => {
            format!("{method} is served only after initialize and notifications/initialized")
        }
        _ => format!("initialize was answered, but {method} waits for notifications/initialized"),
    };
    ErrorObject::new(
        code::SERVER_NOT_INITIALIZED,
        format!("Server not initialized: {why}"),
    )
}

/// A batch is served only in a session that negotiated a batching revision, and never
/// holds `initialize` (2025-03-26 `basic/lifecycle`: it MUST NOT be part of a batch).
pub fn check_batch(version: Option<&str>, items: &[Value]) -> Result<(), Response> {
    let refuse = |why: String| {
        Err(Response::error(
            None,
            ErrorObject::new(code::INVALID_REQUEST, format!("Invalid Request: {why}")),
        ))
    };
    match version {
        Some(v) if supports_batches(v) => {}
        Some(v) => {
            return refuse(format!(
                "JSON-RPC batches are not supported in protocol version {v} (removed in 2025-06-18); send one message at a time"
            ));
        }
        None => {
            return refuse(
                "a JSON-RPC batch cannot open a session; send initialize on its own".into(),
            );
        }
    }
    if items.is_empty() {
        return refuse("empty batch".into());
    }
    if items
        .iter()
        .any(|i| i.get("method") == Some(&json!("initialize")))
    {
        return refuse("initialize must not be part of a JSON-RPC batch".into());
    }
    Ok(())
}
