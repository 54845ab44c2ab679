//! Which HTTP exchanges of a recording are MCP's. A client's recording also holds its
//! OAuth exchanges (metadata documents, `/register`, `/token`), a protected server's
//! its own key-set fetch: HTTP too, on the same recorder, but governed by their own
//! RFCs, not by MCP's rules. The rule, in one place for every view and the checker:
//! a `/.well-known/…` request is never MCP; the MCP endpoint is the path of the first
//! POST that accepts `text/event-stream` (as every MCP POST must, `basic/transports`
//! "Sending Messages to the Server"), and once it is known, a request to any other
//! path is not MCP. Before it is known, a request counts as MCP.

use crate::http1::Head;

/// The endpoint learned so far.
#[derive(Debug, Default, Clone)]
pub struct Endpoint {
    /// The MCP endpoint's path, once a POST named it.
    path: Option<String>,
}

impl Endpoint {
    /// Is the request `head` outside MCP? Learns the endpoint from the first MCP POST.
    pub fn outside(&mut self, head: &Head) -> bool {
        let target = head.start_line.split(' ').nth(1).unwrap_or("");
        let path = target.split('?').next().unwrap_or("");
        if path.starts_with("/.well-known/") {
            return true;
        }
        if let Some(endpoint) = &self.path {
            return path != endpoint;
        }
        let streams = head
            .header("accept")
            .is_some_and(|a| a.contains("text/event-stream"));
        if head.method() == Some("POST") && streams {
            self.path = Some(path.to_owned());
        }
        false
    }
}
