#![warn(missing_docs)]
//! # mcp-raw-tools — the wire tools: tap, check, replay and diff, bridge, auth-server
//!
//! What mcp-raw builds from its layers below for debugging real MCP servers and
//! clients: each tool is a library here and a subcommand of the `mcp-raw` binary.
//!
//! - [`tap`]: a real client and a real server, every byte between them passed and
//!   recorded (stdio, a reverse proxy, a forward proxy that opens TLS).
//! - [`check`]: the spec's rules applied to wire events, live or from a recording.
//! - [`load`]: a load generator that speaks MCP: N clients, a mix of calls, figures.
//! - [`har`]: a recording's HTTP as HAR 1.2, and a HAR read into a transcript.
//! - [`metrics`]: Prometheus metrics rendered from a recorder's events (`--metrics`).
//! - [`offload`]: a sink that watches the wire from its own thread (bounded, lossy).
//! - [`otlp`]: spans and metrics of the wire, to an OpenTelemetry collector (OTLP/HTTP).
//! - [`stats`]: a recording's numbers: latency, errors, bytes, what tools cost a model.
//! - [`replay`]: recordings used again: diff, sent to a live server, served as a mock.
//! - [`bridge`]: a stdio server served as Streamable HTTP.
//! - [`authserver`]: a small OAuth 2.1 authorization server for demos and tests.
//! - [`ui`]: the recording as a live web page on loopback (`mcp-raw ui`, `--ui`).
//! - [`wrap`]: the clients' MCP configurations edited so each stdio server runs
//!   through the tap, and undone byte for byte (`mcp-raw wrap`).
//! - [`sessions`]: the sessions those taps record, pruned, listed, found by name.
//!
//! It stands on `mcp-raw-wire`, `mcp-raw-core` and `mcp-raw-net`; nothing below
//! imports it.
//!
//! ## Layout
//! ```text
//! lib.rs                the crate: what it stands on, its tools
//! tap/                  a real client and a real server, every byte between them
//!   mod.rs              the tap: a real client and server, every byte passed and recorded
//!   stdio.rs            `tap -- SERVER_CMD`: the client's pipes ⇄ the server's, exit status,
//!                       signals passed on
//!   http/               `tap --http`: a TCP-level reverse proxy, a lane per connection, 502
//!     mod.rs            Config, the accept loop, a connection's target reached (TCP, TLS)
//!     target.rs         --target's URL: http:// or https://, host, port, path
//!     pipe.rs           both directions copied and recorded, the clocks enforced
//!     sides.rs          the lanes one connection is recorded on, and its watch
//!     watch.rs          where each direction is in its HTTP messages, for the clocks
//!     gateway.rs        the 502 the tap writes itself: target unreachable, or not HTTP
//!     cut.rs            --intercept: a direction cut at what may be held, the rest as is
//!     hold.rs           --intercept: a held body or event passed on, framed anew, dropped
//!     sse_edit.rs       --intercept: an event stream's events, their data, one edited
//!   rewrite.rs          `--rewrite-host`: the Host line of each request head, nothing else
//!   trace.rs            `--trace-context`: a traceparent put into each client request's _meta
//!   intercept/          `--intercept`: a message held in flight, forwarded, edited or dropped
//!     mod.rs            the holds: listed for the page, decided, let go at the deadline
//!     filter.rs         the filter: KEY:PATTERN words, all of which must match
//!   resend.rs           the page's resend on a stdio tap: a line between the client's, its
//!                       answer kept from the client
//!   proxy/              `tap --proxy`: a forward proxy (CONNECT), TLS decrypted per host
//!     mod.rs            Config, --decrypt-host patterns, a request served its way; 400/502
//!     ask.rs            the proxy request: its head read, CONNECT or absolute form
//!     decrypt.rs        a host decrypted: both TLS handshakes, the plaintext recorded
//!     tunnel.rs         a host not decrypted: an opaque tunnel, its bytes counted
//!     plain.rs          an absolute-form request: plain HTTP relayed, kept to one host
//!   ca.rs               `mcp-raw ca`: the local CA and the leaf it signs per decrypted host
//!   remote/             `tap --remote URL`: a stdio front for a Streamable HTTP server
//!     mod.rs            each client line POSTed in order, answers and SSE events passed back,
//!                       the session's headers, GET stream and DELETE
//!     lines.rs          the client's side: its lines read and recorded, the answers written
//! check/                `mcp-raw check`: the spec's rules applied to wire events
//!   mod.rs              Checker::feed: one event in, the findings it completes out
//!   rules.rs            every rule: its id, severity and the spec section it quotes
//!   scope/              one conversation: ids, lifecycle, capabilities, progress, ping
//!     mod.rs            its state; a payload read message by message; requests unanswered
//!     request.rs        a request: ids never reused, the lifecycle, capabilities declared
//!     notification.rs   cancellation and progress notifications
//!     response.rs       a response: to nothing or twice, initialize's result, ping, resultType
//!   stdio.rs            stdio lines: not a message, not UTF-8, BOM, blank
//!   http/               request/response pairs, sessions, headers, SSE event ids
//!     mod.rs            exchanges paired on a lane and placed in their conversation
//!     request.rs        a request: Accept, MCP-Protocol-Version, mirrored headers, its body
//!     response.rs       a response: session ids, 202 and Content-Type, SSE event ids
//!   contract.rs         --expect-tool, --max-latency…, --contract FILE: a CI gate's terms
//!   report.rs           text, JSON, JUnit and SARIF renderings of the findings
//!   security/           `check --security`, `--baseline`: what the wire shows of MCP's threats
//!     mod.rs            the rules, and the scan over a recording's ledger: definitions, secrets
//!     asks.rs           sampling's bound, elicitation's fields and URLs
//!     servers.rs        session ids, tokens passed through, name collisions, the baseline
//!     text.rs           imperatives and hidden tags, invisible characters, look-alike letters
//!     secrets.rs        tokens and keys by their shapes, quoted masked
//!     pin.rs            each tool's hashes (`mcp-raw pin`), compared by `--baseline`
//! load/                 `mcp-raw load`: N real clients, a mix of calls, closed or open loop
//!   mod.rs              the plan, the clients' loop, the run's end
//!   mix.rs              --call and --scenario: the calls, weighted round-robin
//!   recorded.rs         --mix-from: the mix a recorded client's requests made
//!   tally.rs            each call counted: latency per method and tool, failures by kind
//!   procfs.rs           a stdio server's CPU time and peak RSS, from /proc
//!   report.rs           the figures, the thresholds broken, text and JSON
//! offload.rs            a sink handing events to a watcher's thread: bounded queue, drops counted
//! otlp/                 `--otlp`, `export otlp`: spans and metrics to an OpenTelemetry collector
//!   mod.rs              the scope every span carries
//!   proto.rs            the OTLP messages, the official field numbers, prost's derive
//!   spans.rs            calls as spans: names, kinds, attributes, retries, trace context
//!   attributes.rs       a call's span attributes, status and name per the conventions
//!   hops.rs             the OAuth exchanges (metadata, register, authorize, token), paired
//!   metrics.rs          the conventions' duration histograms
//!   json.rs             OTLP/JSON: the same messages, ids in hex
//!   post.rs             one POST to a collector over TCP or TLS, its answer read
//!   exporter.rs         batches, bounded queues, timeouts, the counts reported
//!   sender.rs           the sender's thread: each export encoded, POSTed, counted
//!   context.rs          W3C trace context: traceparent read, fresh random ids
//! metrics/              `--metrics ADDR`: Prometheus metrics rendered from the wire's events
//!   mod.rs              the watcher (live reader → tally) and the exposition a scrape gets
//!   tally.rs            the counts: requests, latency, sessions, SSE, refusals, bytes
//!   histogram.rs        a latency histogram: cumulative buckets in seconds, sum, count
//!   exposition.rs       the text format 0.0.4: HELP, TYPE, samples, escaping
//!   names.rs            label values bounded: known methods, reserved codes, statuses
//!   page.rs             the listener's answers: /metrics, 404, 405, 400, 431, 408, 503
//! stats/                `mcp-raw stats`: counts, latency percentiles, bytes, context cost
//!   mod.rs              rows per method, tool, session, lane; percentiles; the token estimate
//!   items.rs            a request with its answer, a notification, a head, a log line, a tool
//!   ledger.rs           a recording read into requests paired with answers, and tools listed
//!   live.rs             the same reader as events arrive (--metrics, --otlp): each call once answered
//!   operations.rs       2026-07-28 retries linked by their exact requestState
//!   render.rs           text, JSON and CSV
//! har/                  `export har`, `import har`: HAR 1.2 both ways
//!   mod.rs              the HAR's errors (a JSON path and why), the size limit, its transcript
//!   lane.rs             an HTTP lane's bytes framed into messages: heads, bodies, chunk lines
//!   export.rs           the lanes as HAR entries: headers as sent, timings, _mcpRaw, _tls
//!   stream.rs           the entries read event by event, and which may be written yet
//!   import.rs           HAR entries as lanes: bytes rebuilt, what is not exact noted
//! replay/               recordings used again
//!   mod.rs              recordings used again: diff, align, script, against, mock, serve
//!   diff.rs             two recordings compared message by message, --ignore applied
//!   align.rs            the two read side by side as streams, pairs held in a window
//!   script.rs           a recording's client side: each message's bytes, its HTTP head
//!   against.rs          `replay --against`: that side sent to a live server, recorded
//!   mock.rs             `replay FILE`: live requests matched to recorded ones, ids rewritten
//!   serve.rs            the mock on stdio and on Streamable HTTP
//! bridge/               `bridge -- SERVER_CMD`: a stdio server served as Streamable HTTP
//!   mod.rs              Bridge: the forwarding core behind the HTTP transport
//!   child.rs            one child process: its pipes recorded, kill on drop
//!   routes.rs           which waiting request a child's line belongs to; id rewriting
//!   session.rs          a legacy session's own child, modern requests to the shared one
//!   probe.rs            at start, one child asked for its tools (inputSchema, x-mcp-header)
//! authserver/           `auth-server`: a small OAuth 2.1 authorization server, for demos
//!                       and tests; approves every request with nobody to ask
//!   mod.rs              Config, routing by path, the signing key and /jwks, the accept loop
//!   metadata.rs         the authorization server metadata (RFC 8414 §2)
//!   register.rs         dynamic client registration (RFC 7591 §3)
//!   authorize.rs        the authorization endpoint: 302 with code, state, iss
//!   token.rs            the token endpoint: code + PKCE, refresh_token, client_credentials
//!   state.rs            what it remembers: clients, codes, refresh tokens
//! ui/                   `mcp-raw ui`, `--ui`: the recording as a live page on loopback
//!   mod.rs              the listener's site: routes, Host/Origin/token checks, responses
//!   feed.rs             the recorder's sink that keeps each event's rows; a page's stream
//!   findings.rs         check's findings, tied to their events, as the page reads them
//!   post.rs             what the page asks with POST, each body within its limit
//!   export.rs           what the page shows, as a transcript or a frozen page
//!   resend.rs           a relayed request, edited, sent again through the HTTP tap
//!   live.rs             a live session the page resends into: a stdio tap's server, a client's
//!   diff.rs             `ui A B`: two recordings paired message by message
//!   page.rs             the page's files, compiled in
//!   page/               index.html, ui.js, ui.css, diff.html, diff.js
//! wrap/                 `mcp-raw wrap`: the clients' configurations, tap in front of each server
//!   mod.rs              install, uninstall, status: per file, per server, what was done
//!   clients.rs          each client's files at their documented places per OS; the state dir
//!   entries.rs          a file's servers and their values' byte spans (JSON(C) or TOML)
//!   jsonc.rs            JSON with comments and trailing commas, each value's span kept
//!   edit.rs             the spliced bytes: an entry wrapped, and unwrapped after a check
//!   store.rs            the originals and the manifest of edits; the atomic write
//! sessions.rs           `mcp-raw sessions`, `tap --record-dir`: the recordings, pruned,
//!                       counted, listed; a short name turned back into its file
//! ```

// Refusals travel as values (`Result<_, Response>`), built once on the cold path, so
// the size of the `Err` variant does not matter.
#![allow(clippy::result_large_err)]

// What this crate stands on, under the names the whole workspace uses.
use mcp_raw_core as protocol;
use mcp_raw_net::store::errors as store_errors;
use mcp_raw_net::{client, keys, transport};
use mcp_raw_wire as wire;
use mcp_raw_wire::{clock, jsonrpc, lock};

pub mod authserver;
pub mod bridge;
pub mod check;
pub mod har;
pub mod load;
pub mod metrics;
pub mod offload;
pub mod otlp;
pub mod replay;
pub mod sessions;
pub mod stats;
pub mod tap;
pub mod ui;
pub mod wrap;
