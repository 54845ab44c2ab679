#![warn(missing_docs)]
//! # mcp-raw-net — MCP over real connections: transports, the client, OAuth, the shared store
//!
//! The layer where bytes meet sockets and pipes, standing on `mcp-raw-wire` (the
//! recording every byte passes through) and `mcp-raw-core` (the protocol, which never
//! knows where a message came from):
//!
//! - [`transport`]: stdio and Streamable HTTP for the server, moving bytes in and out
//!   of the core's one door; the server's OAuth 2.1 protected-resource checks; TLS
//!   listeners.
//! - [`client`]: links to a server (a child's stdio, an HTTP/1.1 connection, over TLS
//!   or not), each recording what crosses, a dual-era MCP client on top of them, and
//!   its OAuth.
//! - [`store`]: what replicas share behind a load balancer (Redis), the core's
//!   `Records` and `Relay` traits implemented over RESP.
//! - [`keys`], [`memory`]: random secrets, and giving freed memory back to the OS.
//!
//! The tools built from these (tap, check, replay, bridge, auth-server) are the crate
//! above, `mcp-raw-tools`; the programs are the `mcp-raw` binary.
//!
//! ## Layout
//! ```text
//! lib.rs                the crate: what it stands on, its modules
//! client/               the client side, as a library: links that record what crosses
//!   mod.rs              the links and the dual-era client; the programs live in src/cli/
//!   wire_print.rs       captions and notes; the recorder whose sinks show the wire
//!   stdio_link.rs       a child process's stdio, lines of bytes, stderr on its own lane
//!   http_link/          one keep-alive HTTP/1.1 connection, recorded under hyper
//!     mod.rs            the link: its URL, every request's headers, exchanges and streams
//!     conn.rs           its connections: lazy, reused, TLS below the recording, the aside
//!     read.rs           one exchange: the request out, the response read within its limits
//!     reply.rs          what a response holds: JSON, SSE events, id and retry, messages
//!     delivered.rs      responses handed between a session's streams
//!   tls/                https://: rustls, trust roots, --insecure, mTLS, key log, the facts
//!     mod.rs            the setup, built once, and the handshake; the key log
//!     verify.rs         the chain check that keeps why it refused (--insecure lets it by)
//!     refusal.rs        a TLS failure, and a certificate, in words
//!   mcp_client/         the dual-era client, one job a file
//!     mod.rs            McpClient: connect, send, MRTR rounds, -32022 retry
//!     build.rs          a request built: its id, its _meta (era, log level, progress, traceparent)
//!     options.rs        its settings and their defaults
//!     era.rs            era detection: server/discover or initialize, the fallback's caption
//!     stdio.rs          the stdio path: a line out, lines in until the response
//!     http.rs           the HTTP path: mirrored headers, OAuth retries, session, resumes
//!     tools.rs          tools/list and tools/call: x-mcp-header, task support
//!     resend.rs         a request edited on the page (client --ui), sent again on the session
//!   answers.rs          what the client answers when a server asks
//!   ask_user.rs         --ask: sampling and elicitation answered at a terminal
//!   tasks.rs            following a task a server runs for tools/call, polled on the wire
//!   task_handle.rs      what a task looks like in either era, and when to ask for one
//!   task_store.rs       the tasks this client runs for a server (client-side tasks)
//!   auth/               authorization on the wire: a 401 (or 403 insufficient_scope), hop by hop
//!     mod.rs            the whole dance: discover, register, authorize, token, retry
//!     config.rs         what the flags say: the grant, the client's identity, DPoP, limits
//!     challenge.rs      WWW-Authenticate read: resource_metadata, scope, error
//!     discovery.rs      protected resource metadata, then the authorization server's
//!     grant.rs          the authorization code grant with PKCE, hop by hop
//!     extension.rs      grants with no browser: client credentials, enterprise-managed
//!     token.rs          the token endpoint for every grant: form POST, client auth, JSON back
//!     pkce.rs           PKCE S256 (RFC 7636): a verifier kept, its hash sent
//!     assertion.rs      signed JWTs the client makes (RFC 7523): private_key_jwt
//!     dpop.rs           DPoP (RFC 9449): an ephemeral P-256 key, a proof per request
//!     credential.rs     what each request carries: Bearer, or DPoP and a fresh proof
//! transport/            moving bytes in and out; no protocol logic
//!   mod.rs              describe: a message in a few words, for the server's log
//!   stdio.rs            one JSON message per line on stdin/stdout, logs on stderr
//!   log.rs              the stdio log: lines written to stderr by a thread, off the answer path
//!   tls.rs              a listener's TLS (--tls-cert/--tls-key): accept, deadline, the facts
//!   http/               Streamable HTTP on one endpoint, /mcp
//!     mod.rs            routing by path and method; a POST read, then the core's era
//!                       rule; GET and DELETE
//!     listen.rs         accept loop: TCP_NODELAY, --max-connections, backoff out of fds
//!     conn.rs           one connection: header and idle timeouts, lingering close
//!     limits.rs         every limit and its default
//!     guard.rs          Host/Origin (DNS rebinding), Accept, Content-Type, repeated
//!                       headers, body size and time
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
//! store/                state replicas share (`serve --store`): tasks and hub events in Redis
//!   mod.rs              shared state for replicas: tasks and hub events in Redis
//!   resp.rs             RESP2 by hand: commands as arrays of bulk strings, replies as frames
//!   shared.rs           the task store's shared half over any Records: compare-and-set,
//!                       leases, commands from other replicas
//!   shared/             its unit tests
//!     tests.rs          the store suite on in-process fake records (two replicas)
//!   redis/              the Redis store: its URL, records (Lua compare-and-set, leases), the bus
//!     mod.rs            connect: a replica's hub and task store, started with its tasks
//!     settings.rs       --store's URL, --store-auth-file, the settings, the TLS setup
//!     conn.rs           a connection opened (TLS, AUTH, SELECT); commands one at a time
//!     records.rs        the task records: compare-and-set and leases in Lua
//!     bus.rs            the pub/sub bus: hub events and task commands, both ways
//!     tests.rs          the store suite on a real redis-server; URL and auth-file readers
//! keys.rs               secrets made on the spot: random tokens, PKCE S256, ES256 keys
//! memory.rs             giving freed memory back to the OS (glibc knobs)
//! ```

// Refusals travel as values (`Result<_, Response>`): an error response or an HTTP
// error is what the peer must receive, built once on the cold path, so the size of
// the `Err` variant does not matter.
#![allow(clippy::result_large_err)]

// What this crate stands on, under the names the whole workspace uses.
use mcp_raw_core as protocol;
use mcp_raw_wire as wire;
use mcp_raw_wire::{clock, jsonrpc, lock};

pub mod client;
pub mod keys;
pub mod memory;
pub mod store;
pub mod transport;
