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
//!   params.rs           reading params fields: -32602 naming the method and the field
//!   state_key.rs        the key that seals requestState: random, or --state-key-file
//!   tests.rs            the core driven message by message, no I/O (unit tests)
//! content/              what a server offers, built from the core's plain values
//!   mod.rs              the demo and the fixture side by side; --fixture picks one
//!   demo.rs             `serve` (the default): get_current_time, echo, add
//!   conformance/        `serve --fixture conformance`: what the official suite checks
//!     mod.rs            the fixture as a whole: its tools, resources and prompts
//!     tools.rs          both eras: every content type, isError, progress, logs, triggers
//!     ask.rs            asking the client, either era: a legacy request or MRTR input_required
//!     input_required.rs MRTR tools: one question, several, rounds, sealed state
//!     tasks.rs          the tasks extension's tools (SEP-2663), as tasks-* scenarios expect
//!     resources.rs      text, binary, subscribable resources and a template
//!     prompts.rs        plain, with arguments, embedded resource, image, one that asks
//!     payloads.rs       small payloads: a 1x1 PNG, a short WAV, content items
//! store/                state replicas share (`serve --store`): tasks and hub events in Redis
//!   mod.rs              shared state for replicas: tasks and hub events in Redis
//!   resp.rs             RESP2 by hand: commands as arrays of bulk strings, replies as frames
//!   redis.rs            the Redis store: its URL, records (Lua compare-and-set, leases), the bus
//! transport/            moving bytes in and out; no protocol logic
//!   mod.rs              describe: a message in a few words, for the server's log
//!   stdio.rs            one JSON message per line on stdin/stdout, logs on stderr
//!   log.rs              the stdio log: lines written to stderr by a thread, off the answer path
//!   tls.rs              a listener's TLS (--tls-cert/--tls-key): accept, deadline, the facts
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
//!     names.rs          the MCP header names the server looks up, typed once
//!     auth/             the server as an OAuth 2.1 protected resource (--auth-server)
//!       mod.rs          every /mcp request needs a Bearer token it can check; 401/403
//!       challenge.rs    refusals: a status, WWW-Authenticate: Bearer, a JSON-RPC body
//!       metadata.rs     the protected resource metadata (RFC 9728), at its well-known URLs
//!       issuer.rs       the authorization server's metadata and key set, cached, refreshed
//!       jwt.rs          a JWT access token checked as RFC 9068 §4 lays out
//!       introspect.rs   an opaque token checked by introspection (RFC 7662)
//!       fetch.rs        the resource's own HTTP client, each request on a recorded lane
//! wire/                 what both sides speak, below server and client
//!   mod.rs              the recording spine and the views, named in order
//!   event.rs            a wire event: lane, direction, time offset, exact bytes
//!   recorder.rs         the one recording layer: stamps, orders, feeds the sinks
//!   redact.rs           secrets masked before the sinks see them, same length
//!   recorded.rs         I/O wrappers that turn every read and write into an event
//!   line.rs             stdio lines as bytes: CR, BOM, not-UTF-8 kept; Incomplete, TooLong
//!   http1.rs            HTTP/1.1 read from bytes: heads as sent, chunks, bodies
//!   sse.rs              Server-Sent Events: encode; decode incrementally, every byte kept
//!   decode.rs           per lane: bytes → heads, chunks, SSE events, payloads
//!   classify.rs         what a payload is: JSON-RPC shape, method, id, era
//!   tls.rs              a TLS handshake's facts: version, cipher, ALPN, SNI, the peer's chain
//!   transcript.rs       the JSONL transcript, version 2: write, read back, pretty JSON
//!   term.rs             a peer's text made safe for a terminal: control bytes escaped
//!   text.rs             the >>> / <<< text view: raw (every byte) or readable
//!   oneline.rs          --oneline: a line per message (shape, method, tool, id, status, size)
//!   select.rs           show --method/--id/--era: the messages a view keeps
//!   asked.rs            the requests a view saw unanswered, by id, bounded
//!   explain.rs          show --explain: each message's shape, era, method and section
//!   html.rs             show --html: one self-contained page, a column per lane
//!   form.rs             application/x-www-form-urlencoded both ways (OAuth bodies, queries)
//!   oauth.rs            OAuth's well-known URLs, one way for whoever looks or serves
//!   http/               the HTTP binding's vocabulary
//!     mod.rs            the endpoint, Mcp-Session-Id, the status of a modern error
//!     endpoint.rs       which exchanges are MCP's (not OAuth's): one rule for views and check
//!     mirror.rs         Mcp-Method / Mcp-Name / Mcp-Param-*, the Base64 sentinel
//!     x_mcp_header.rs   x-mcp-header annotations: checked, mirrored, validated
//! client/               the client side, as a library: links that record what crosses
//!   mod.rs              the links and the dual-era client; the programs live in src/cli/
//!   wire_print.rs       captions and notes; the recorder whose sinks show the wire
//!   stdio_link.rs       a child process's stdio, lines of bytes, stderr on its own lane
//!   http_link.rs        one keep-alive HTTP/1.1 connection, recorded under hyper
//!   tls.rs              https://: rustls, trust roots, --insecure, mTLS, key log, the facts
//!   mcp_client.rs       era detection, _meta, mirrored headers, retries, MRTR rounds
//!   answers.rs          what the client answers when a server asks
//!   ask_user.rs         --ask: sampling and elicitation answered at a terminal
//!   tasks.rs            following a task a server runs for tools/call, polled on the wire
//!   task_handle.rs      what a task looks like in either era, and when to ask for one
//!   task_store.rs       the tasks this client runs for a server (client-side tasks)
//!   auth/               authorization on the wire: a 401 (or 403 insufficient_scope), hop by hop
//!     mod.rs            the whole dance: discover, register, authorize, token, retry
//!     challenge.rs      WWW-Authenticate read: resource_metadata, scope, error
//!     discovery.rs      protected resource metadata, then the authorization server's
//!     grant.rs          the authorization code grant with PKCE, hop by hop
//!     extension.rs      grants with no browser: client credentials, enterprise-managed
//!     token.rs          the token endpoint for every grant: form POST, client auth, JSON back
//!     pkce.rs           PKCE S256 (RFC 7636): a verifier kept, its hash sent
//!     assertion.rs      signed JWTs the client makes (RFC 7523): private_key_jwt
//!     dpop.rs           DPoP (RFC 9449): an ephemeral P-256 key, a proof per request
//!     credential.rs     what each request carries: Bearer, or DPoP and a fresh proof
//! tap/                  a real client and a real server, every byte between them
//!   mod.rs              the tap: a real client and server, every byte passed and recorded
//!   stdio.rs            `tap -- SERVER_CMD`: the client's pipes ⇄ the server's, exit status,
//!                       signals passed on
//!   http.rs             `tap --http`: a TCP-level reverse proxy, a lane per connection, 502
//!   rewrite.rs          `--rewrite-host`: the Host line of each request head, nothing else
//!   proxy.rs            `tap --proxy`: a forward proxy (CONNECT), TLS decrypted per host
//!   ca.rs               `mcp-raw ca`: the local CA and the leaf it signs per decrypted host
//! bridge/               `bridge -- SERVER_CMD`: a stdio server served as Streamable HTTP
//!   mod.rs              Bridge: the forwarding core behind the HTTP transport
//!   child.rs            one child process: its pipes recorded, kill on drop
//!   routes.rs           which waiting request a child's line belongs to; id rewriting
//!   session.rs          a legacy session's own child, modern requests to the shared one
//!   probe.rs            at start, one child asked for its tools (inputSchema, x-mcp-header)
//! check/                `mcp-raw check`: the spec's rules applied to wire events
//!   mod.rs              Checker::feed: one event in, the findings it completes out
//!   rules.rs            every rule: its id, severity and the spec section it quotes
//!   scope.rs            one conversation: ids, lifecycle, capabilities, progress, ping
//!   stdio.rs            stdio lines: not a message, not UTF-8, BOM, blank
//!   http.rs             request/response pairs, sessions, headers, SSE event ids
//!   report.rs           text, JSON and JUnit renderings of the findings
//! replay/               recordings used again
//!   mod.rs              recordings used again: diff, script, against, mock, serve
//!   diff.rs             two recordings compared message by message, --ignore applied
//!   script.rs           a recording's client side: each message's bytes, its HTTP head
//!   against.rs          `replay --against`: that side sent to a live server, recorded
//!   mock.rs             `replay FILE`: live requests matched to recorded ones, ids rewritten
//!   serve.rs            the mock on stdio and on Streamable HTTP
//! authserver/           `auth-server`: a small OAuth 2.1 authorization server, for demos
//!                          and tests; approves every request with nobody to ask
//!   mod.rs              Config, routing by path, the signing key and /jwks, the accept loop
//!   metadata.rs         the authorization server metadata (RFC 8414 §2)
//!   register.rs         dynamic client registration (RFC 7591 §3)
//!   authorize.rs        the authorization endpoint: 302 with code, state, iss
//!   token.rs            the token endpoint: code + PKCE, refresh_token, client_credentials
//!   state.rs            what it remembers: clients, codes, refresh tokens
//! clock.rs              RFC 3339 UTC time for get_current_time
//! keys.rs               secrets made on the spot: random tokens, PKCE S256, ES256 keys
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
