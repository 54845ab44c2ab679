#![warn(missing_docs)]
//! # mcp-raw — the Model Context Protocol by hand, every byte visible
//!
//! ## Layout
//! ```text
//! jsonrpc/              the four message shapes; bytes → Message; every error code
//!   mod.rs              Request, Notification, Response (and its Dress), the shape rules
//!   read.rs             bytes → a message's six members, checked once and read in place
//!   check.rs            is this frame JSON (exactly as serde_json decides)? and its tape
//!   raw.rs              a checked frame's values, found on its tape, built on demand
//!   params.rs           Params: a request's params as sent, or a Value; Field
//!   spare.rs            the tape and text buffers a frame's read keeps, reused per thread
//!   payload.rs          Payload, Rendered: a result as a value or as bytes written once
//! protocol/             the transport-agnostic core, both eras
//!   mod.rs              Server, Session::handle: the one door into the core
//!   core.rs             Core, Conversation: what a transport serves through (this core,
//!                       or a bridge's forwarding one)
//!   envelope.rs         Envelope: a message, its transport facts, its _meta read once
//!   era.rs              Eras, and choose: the one rule for which era serves a message
//!   future.rs           BoxFuture, now_or_later: answered at once, or after a round trip
//!   context.rs          Reply (now / streamed / later / cancel), Env, Context: progress,
//!                       logs, asking the client
//!   legacy.rs           legacy dispatch, gated by the lifecycle phase; logging/setLevel
//!   lifecycle.rs        initialize, version negotiation, -32002, batches
//!   meta.rs             per-request _meta, read once: version, capabilities, -32022
//!   modern.rs           modern dispatch: server/discover, subscriptions/listen
//!   dress.rs            a modern result's resultType, _meta serverInfo and caching hints,
//!                       written as the response goes out
//!   methods.rs          the method table both eras share; which answers are streams
//!   tasks/              the tasks extension (SEP-2663)
//!     mod.rs            Store (in memory, or shared), tasks/get, tasks/update, tasks/cancel
//!     record.rs         Record: what any replica may read or change, and its transitions
//!     shared.rs         Records (a store replicas share), compare-and-set, leases, commands
//!   tools.rs            Tool, ToolSet as plain values; tools/list, tools/call, isError
//!   capabilities.rs     what the client declared; -32021; may the server ask this?
//!   resources.rs        Resource, Template, ResourceSet; list, read, templates, subscribe
//!   prompts.rs          Prompt, PromptSet; prompts/list, prompts/get
//!   completion.rs       completion/complete
//!   subscriptions.rs    the Hub: list changes and resource updates to whoever listens;
//!                       a Relay carries them between replicas
//!   mrtr.rs             modern server-to-client questions: input_required, sealed requestState
//! content/              what a server offers, built from the core's plain values
//!   demo.rs             `serve` (the default): get_current_time, echo, add
//!   conformance/        `serve --fixture conformance`: what the official suite checks
//! store/                state replicas share (`serve --store`): tasks and hub events in Redis
//!   resp.rs             RESP2 by hand: commands as arrays of bulk strings, replies as frames
//!   redis.rs            the Redis store: its URL, records (Lua compare-and-set, leases), the bus
//! transport/            moving bytes in and out; no protocol logic
//!   stdio.rs            one JSON message per line on stdin/stdout, logs on stderr
//!   log.rs              the stdio log: lines written to stderr by a thread, off the answer path
//!   http/               Streamable HTTP on one endpoint, /mcp
//!     mod.rs            routing by path and method, GET and DELETE
//!     listen.rs         accept loop: TCP_NODELAY, --max-connections, backoff out of fds
//!     conn.rs           one connection: header and idle timeouts, lingering close
//!     limits.rs         every limit and its default
//!     guard.rs          Host/Origin (DNS rebinding), Accept, Content-Type, repeated
//!                       headers, body size and time
//!     post.rs           a POST: parse, then ask the core's era rule
//!     legacy.rs         session path: Mcp-Session-Id and MCP-Protocol-Version checks
//!     sessions.rs       Mcp-Session-Id: minting, lookup, termination, cancellation
//!     resume.rs         resumable legacy streams: event ids, Last-Event-ID
//!     modern.rs         stateless path: header/body validation, -32020, 400/404
//!     reply.rs          building HTTP responses (JSON, SSE streams, 202, errors)
//! wire/                 what both sides speak, below server and client
//!   event.rs            a wire event: lane, direction, time offset, exact bytes
//!   recorder.rs         the one recording layer: stamps, orders, feeds the sinks
//!   redact.rs           secrets masked before the sinks see them, same length
//!   recorded.rs         I/O wrappers that turn every read and write into an event
//!   line.rs             stdio lines as bytes: CR, BOM, not-UTF-8 kept; Incomplete, TooLong
//!   http1.rs            HTTP/1.1 read from bytes: heads as sent, chunks, bodies
//!   sse.rs              Server-Sent Events: encode; decode incrementally, every byte kept
//!   decode.rs           per lane: bytes → heads, chunks, SSE events, payloads
//!   classify.rs         what a payload is: JSON-RPC shape, method, id, era
//!   transcript.rs       the JSONL transcript, version 1: write, read back, pretty JSON
//!   term.rs             a peer's text made safe for a terminal: control bytes escaped
//!   text.rs             the >>> / <<< text view: raw (every byte) or readable
//!   select.rs           show --method/--id/--era: the messages a view keeps
//!   explain.rs          show --explain: each message's shape, era, method and section
//!   html.rs             show --html: one self-contained page, a column per lane
//!   http/               the HTTP binding's vocabulary
//!     mod.rs            the endpoint, Mcp-Session-Id, the status of a modern error
//!     mirror.rs         Mcp-Method / Mcp-Name / Mcp-Param-*, the Base64 sentinel
//!     x_mcp_header.rs   x-mcp-header annotations: checked, mirrored, validated
//! client/               the client side, as a library: links that record what crosses
//!   wire_print.rs       captions and notes; the recorder whose sinks show the wire
//!   stdio_link.rs       a child process's stdio, lines of bytes, stderr on its own lane
//!   http_link.rs        one keep-alive HTTP/1.1 connection, recorded under hyper
//!   mcp_client.rs       era detection, _meta, mirrored headers, retries, MRTR rounds
//!   answers.rs          what the client answers when a server asks
//! tap/                  a real client and a real server, every byte between them
//!   stdio.rs            `tap -- SERVER_CMD`: the client's pipes ⇄ the server's, exit status,
//!                       signals passed on
//!   http.rs             `tap --http`: a TCP-level reverse proxy, a lane per connection, 502
//!   rewrite.rs          `--rewrite-host`: the Host line of each request head, nothing else
//! bridge/               `bridge -- SERVER_CMD`: a stdio server served as Streamable HTTP
//!   mod.rs              Bridge: the forwarding core behind the HTTP transport
//!   child.rs            one child process: its pipes recorded, kill on drop
//!   routes.rs           which waiting request a child's line belongs to; id rewriting
//!   session.rs          a legacy session's own child, modern requests to the shared one
//! check/                `mcp-raw check`: the spec's rules applied to wire events
//!   mod.rs              Checker::feed: one event in, the findings it completes out
//!   rules.rs            every rule: its id, severity and the spec section it quotes
//!   scope.rs            one conversation: ids, lifecycle, capabilities, progress, ping
//!   stdio.rs            stdio lines: not a message, not UTF-8, BOM, blank
//!   http.rs             request/response pairs, sessions, headers, SSE event ids
//!   report.rs           text, JSON and JUnit renderings of the findings
//! replay/               recordings used again
//!   diff.rs             two recordings compared message by message, --ignore applied
//!   script.rs           a recording's client side: each message's bytes, its HTTP head
//!   against.rs          `replay --against`: that side sent to a live server, recorded
//!   mock.rs             `replay FILE`: live requests matched to recorded ones, ids rewritten
//!   serve.rs            the mock on stdio and on Streamable HTTP
//! clock.rs              RFC 3339 UTC time for get_current_time
//! memory.rs             giving freed memory back to the OS (glibc knobs)
//! main.rs, cli/         the command line and its programs (client, demos, show),
//!                       outside the library: they use it like any program would
//! ```
//!
//! ## A server with your own tool, in-process
//!
//! The core takes one message at a time through [`protocol::Session::handle`] and
//! answers with a [`protocol::context::Reply`]; no pipe, no socket, no runtime for a
//! tool that answers at once. A transport is what moves those bytes
//! ([`transport::stdio::serve`], [`transport::http::run`]).
//!
//! ```
//! use mcp_raw::jsonrpc::{self, Parsed};
//! use mcp_raw::protocol::context::Reply;
//! use mcp_raw::protocol::tools::{Handler, Tool, ToolSet};
//! use mcp_raw::protocol::{Eras, Server, Session};
//! use serde_json::{Value, json};
//!
//! let shout = Tool {
//!     name: "shout",
//!     description: "Says it again, louder.",
//!     input_schema: json!({
//!         "type": "object",
//!         "properties": { "text": { "type": "string" } },
//!         "required": ["text"]
//!     }),
//!     // Err(...) becomes a result with isError: true, as MCP wants tool errors.
//!     // `args.get` reads the argument where it lies in the request's bytes.
//!     handler: Handler::Text(|args| match args.get("text").and_then(|t| t.as_str()) {
//!         Some(text) => Ok(text.to_uppercase()),
//!         None => Err("missing the string argument \"text\"".into()),
//!     }),
//!     requires: &[],
//! };
//! let mut session = Session::new(Server::new(ToolSet::new(vec![shout]), Eras::Both));
//!
//! // One line in, one answer out: what a stdio transport does with each line.
//! let mut send = |line: &str| -> Option<Value> {
//!     let Ok(Parsed::One(message)) = jsonrpc::parse(line.as_bytes()) else { return None };
//!     match session.handle(message) {
//!         Reply::Now(r) | Reply::Streamed(r) => serde_json::from_slice(&r.to_bytes()).ok(),
//!         _ => None,
//!     }
//! };
//! let init = send(r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{
//!     "protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"doc","version":"1"}}}"#);
//! assert_eq!(init.unwrap()["result"]["protocolVersion"], "2025-11-25");
//! assert_eq!(send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#), None);
//! let call = send(r#"{"jsonrpc":"2.0","id":2,"method":"tools/call",
//!     "params":{"name":"shout","arguments":{"text":"hello"}}}"#).unwrap();
//! assert_eq!(call["result"]["content"][0]["text"], "HELLO");
//! let bad = send(r#"{"jsonrpc":"2.0","id":3,"method":"tools/call",
//!     "params":{"name":"shout","arguments":{}}}"#).unwrap();
//! assert_eq!(bad["result"]["isError"], true);
//! ```

// Refusals travel as values (`Result<_, Response>`): an error response or an HTTP
// error is what the peer must receive, built once on the cold path, so the size of
// the `Err` variant does not matter.
#![allow(clippy::result_large_err)]

pub mod authserver;
pub mod bridge;
pub mod check;
pub mod client;
pub mod clock;
pub mod content;
pub mod jsonrpc;
pub mod keys;
pub mod memory;
pub mod protocol;
pub mod replay;
pub mod store;
pub mod tap;
pub mod transport;
pub mod wire;
