// Over 500 lines: the layout map and the crate's docs are about 110 of them.
#![warn(missing_docs)]
//! # mcp-raw-core — the MCP protocol core, sans I/O, both eras
//!
//! The protocol core: one [`Session`] per MCP session, fed [`Envelope`]s (a message and
//! the transport facts around it), answering with [`Reply`]s. It never sees bytes,
//! sockets or pipes; stdio and HTTP both call [`Session::handle`], the one door (the
//! original project's `rpc.js` `handleMessage()`), and [`era::choose`] says which era
//! serves each message.
//!
//! Two eras share it. Legacy (2024-11-05 … 2025-11-25): an `initialize` handshake
//! opens a session whose state lives in [`Session`]. Modern (2026-07-28): no
//! handshake; every request carries its version and capabilities in `_meta` and is
//! served statelessly by [`modern`]. A stdio process is one session; an HTTP server
//! keeps one per `Mcp-Session-Id` and serves modern requests without any.
//!
//! What a server offers lives beside the core, built from its plain values:
//! [`content`] (the demo's tools and the conformance fixture).
//!
//! It stands on `mcp-raw-wire` only (the message layer, [`jsonrpc`]); transports,
//! the client and the tools live in the crates above (`mcp-raw-net`, `mcp-raw-tools`).
//!
//! ## A server with your own tool, in-process
//!
//! The core takes one message at a time through [`Session::handle`] and
//! answers with a [`context::Reply`]; no pipe, no socket, no runtime for a
//! tool that answers at once. A transport is what moves those bytes
//! (`mcp_raw_net::transport::stdio::serve`, `mcp_raw_net::transport::http::run`).
//!
//! ```
//! use mcp_raw_wire::jsonrpc::{self, Parsed};
//! use mcp_raw_core::context::Reply;
//! use mcp_raw_core::tools::{Handler, Tool, ToolSet};
//! use mcp_raw_core::{Eras, Server, Session};
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
//!
//! ## Layout
//! ```text
//! lib.rs                Server, Session::handle: the one door into the core
//! core.rs               Core, Conversation: what a transport serves through (this core,
//!                       or a bridge's forwarding one)
//! envelope.rs           Envelope: a message, its transport facts, its _meta read once
//! era.rs                Eras, and choose: the one rule for which era serves a message
//! future.rs             BoxFuture, now_or_later: answered at once, or after a round trip
//! context.rs            Reply (now / streamed / later / cancel), Env, Context: progress,
//!                       logs, asking the client
//! legacy.rs             legacy dispatch, gated by the lifecycle phase; logging/setLevel
//! lifecycle.rs          initialize, version negotiation, -32002, batches
//! meta.rs               per-request _meta, read once: version, capabilities, -32022
//! modern.rs             modern dispatch and server/discover; a modern result's
//!                       resultType, _meta serverInfo and caching hints, written as the
//!                       response goes out
//! listen.rs             subscriptions/listen: the filter checked, acknowledged, registered
//! methods.rs            the method table both eras share; which answers are streams
//! tasks/                the tasks extension (SEP-2663)
//!   mod.rs              Store (in memory, or its shared half): create, get, update, cancel, bounds
//!   methods.rs          on the wire: tasks/get, tasks/update, tasks/cancel, taskIds, discover
//!   context.rs          TaskContext: what a task's work can do (ask, say how it goes)
//!   record.rs           Record: what any replica may read or change, and its transitions
//!   records.rs          Records: the contract of a store replicas share; Command
//!   replicated.rs       Replicated: the Store's shared half as a contract (built in mcp-raw-net)
//!   suite.rs            the scenarios any Records implementation runs (feature store-suite)
//!   tests.rs            the store driven in-process (unit tests)
//! tools.rs              Tool, ToolSet as plain values; tools/list, tools/call, isError
//! arguments.rs          Arguments: what every kind of tool handler reads its arguments from
//! capabilities.rs       what the client declared; -32021; may the server ask this?
//! resources.rs          Resource, Template, ResourceSet; list, read, templates, subscribe
//! prompts.rs            Prompt, PromptSet; prompts/list, prompts/get
//! completion.rs         completion/complete
//! subscriptions.rs      the Hub: list changes and resource updates to whoever listens;
//!                       a Relay carries them between replicas
//! mrtr.rs               modern server-to-client questions: input_required, sealed requestState
//! params.rs             reading params fields: -32602 naming the method and the field
//! state_key.rs          the key that seals requestState: random, or --state-key-file
//! trace_context.rs      W3C traceparent/tracestate in `_meta`: read, checked, made
//! tests.rs              the core driven message by message, no I/O (unit tests)
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
//! ```

// Refusals travel as values (`Result<_, Response>`): an error response is what the
// peer must receive, built once on the cold path, so the size of the `Err` variant
// does not matter.
#![allow(clippy::result_large_err)]

// What this crate stands on, under the names the whole workspace uses.
use crate::lock::Locked;
use mcp_raw_wire::{clock, jsonrpc, lock};

pub mod arguments;
pub mod capabilities;
mod completion;
pub mod content;
pub mod context;
pub mod core;
pub mod envelope;
pub mod era;
pub mod future;
mod legacy;
mod lifecycle;
mod listen;
pub mod meta;
mod methods;
pub mod modern;
pub mod mrtr;
mod params;
pub mod prompts;
pub mod resources;
pub mod state_key;
pub mod subscriptions;
pub mod tasks;
pub mod tools;
pub mod trace_context;

pub use self::core::{Conversation, Core};
pub use envelope::{Door, Envelope, Facts, Incoming};
pub use era::{Era, Eras};
pub use lifecycle::{LATEST_VERSION, SUPPORTED_VERSIONS, supports_batches};
pub use methods::streams;

use crate::jsonrpc::{Message, Response};
use context::{Peer, Reply};
use prompts::PromptSet;
use resources::ResourceSet;
use serde_json::Value;
use std::sync::Arc;
use subscriptions::{Filter, Hub, Sink};
use tools::ToolSet;

/// Optional server features, declared in the capabilities.
#[derive(Debug, Clone, Copy, Default)]
pub struct Features {
    /// The task store's bounds (used when `tasks`).
    pub task_limits: tasks::TaskLimits,
    /// `logging/setLevel` (legacy) and per-request `logLevel` (modern).
    pub logging: bool,
    /// The tool, prompt and resource lists may change: `listChanged` notifications
    /// (legacy: on the push channel; modern: on `subscriptions/listen`).
    pub list_changed: bool,
    /// Some tools may answer with a task (the `io.modelcontextprotocol/tasks`
    /// extension, 2026-07-28 only): advertise it and serve `tasks/*`.
    pub tasks: bool,
}

/// `serverInfo.name` of every result and `initialize`.
const NAME: &str = "mcp-raw";
/// `serverInfo.version`: the crate version.
const VERSION: &str = env!("CARGO_PKG_VERSION");

/// What every session of one server shares: what it offers, the eras, the identity.
pub struct Server {
    /// The tools offered.
    pub tools: ToolSet,
    /// The resources and templates offered.
    pub resources: ResourceSet,
    /// The prompts offered.
    pub prompts: PromptSet,
    /// The eras served (`serve --era`).
    pub eras: Eras,
    /// What else it does (list changes, subscriptions, logging, completion, tasks).
    pub features: Features,
    /// Change notifications, to whoever listens.
    pub hub: Arc<Hub>,
    /// The tasks created by tool calls (used when `features.tasks`).
    pub tasks: Arc<tasks::Store>,
    /// `serverInfo.name` in the `initialize` result.
    pub name: &'static str,
    /// `serverInfo.version`: the crate version.
    pub version: &'static str,
    /// How this server's 2026-07-28 results are dressed (`resultType`, serverInfo,
    /// caching hints), built once.
    pub dressings: modern::Dressings,
}

impl Server {
    /// A server with these tools only (no resources, prompts or extras), in `eras`.
    pub fn new(tools: ToolSet, eras: Eras) -> Arc<Server> {
        Server::full(
            tools,
            ResourceSet::default(),
            PromptSet::default(),
            eras,
            Features::default(),
        )
    }

    /// A server with resources, prompts and optional features too.
    pub fn full(
        tools: ToolSet,
        resources: ResourceSet,
        prompts: PromptSet,
        eras: Eras,
        features: Features,
    ) -> Arc<Server> {
        let hub = Arc::<Hub>::default();
        let tasks = Arc::new(tasks::Store::with_limits(features.task_limits, hub.clone()));
        Server::full_on(tools, resources, prompts, eras, features, hub, tasks)
    }

    /// A server whose hub and task store are given: the ones replicas share
    /// (`serve --store`, `mcp_raw_net::store`), whose bounds replace `features.task_limits`.
    pub fn full_on(
        tools: ToolSet,
        resources: ResourceSet,
        prompts: PromptSet,
        eras: Eras,
        features: Features,
        hub: Arc<Hub>,
        tasks: Arc<tasks::Store>,
    ) -> Arc<Server> {
        Arc::new(Server {
            tools,
            resources,
            prompts,
            eras,
            features,
            tasks,
            hub,
            name: NAME,
            version: VERSION,
            dressings: modern::Dressings::new(NAME, VERSION),
        })
    }

    /// `{name, version}`: `serverInfo` (legacy) or `_meta` serverInfo (modern).
    pub fn info(&self) -> Value {
        let mut info = serde_json::Map::with_capacity(2);
        info.insert("name".into(), self.name.into());
        info.insert("version".into(), self.version.into());
        Value::Object(info)
    }

    /// The capabilities declared by `initialize` and `server/discover`.
    pub fn capabilities(&self) -> Value {
        use serde_json::json;
        let changes = self.features.list_changed;
        let mut caps = json!({ "tools": {} });
        if changes {
            caps["tools"] = json!({ "listChanged": true });
        }
        if !self.resources.is_empty() {
            caps["resources"] = if changes {
                json!({ "subscribe": true, "listChanged": true })
            } else {
                json!({})
            };
        }
        if !self.prompts.is_empty() {
            caps["prompts"] = if changes {
                json!({ "listChanged": true })
            } else {
                json!({})
            };
        }
        if !self.prompts.is_empty() || !self.resources.is_empty() {
            caps["completions"] = json!({});
        }
        if self.features.logging {
            caps["logging"] = json!({});
        }
        caps
    }
}

/// Where a session is in the lifecycle (MCP 2025-11-25 `basic/lifecycle`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Nothing yet: only `initialize` and `ping` are served.
    AwaitingInitialize,
    /// `initialize` answered; waiting for `notifications/initialized`.
    Initializing {
        /// The version agreed.
        version: &'static str,
    },
    /// Handshake done: normal operation under the negotiated version.
    Ready {
        /// The version agreed.
        version: &'static str,
    },
}

/// The state of one session. Small on purpose: the phase, what the client declared,
/// and the table of questions the server has asked the client.
pub struct Session {
    server: Arc<Server>,
    phase: Phase,
    /// `capabilities` from `initialize`, shared with each request's [`context::Env`].
    client_capabilities: Arc<Value>,
    /// Set by `logging/setLevel`; `None` until then: no log messages.
    log_level: Option<usize>,
    /// What only a 2025-11-25 session uses, made at its first use: a 2026-07-28
    /// request is served by a session that lives as long as it does and never
    /// needs them, so it does not pay for their three allocations.
    legacy: Option<LegacyParts>,
    /// Registered with the hub already: a session listens once, however many
    /// channels it is given.
    listening: bool,
}

/// The shared parts of a legacy session ([`Session::legacy_parts`]).
struct LegacyParts {
    /// Server-to-client requests waiting for the client's response.
    peer: Arc<Peer>,
    /// What this session hears from the [`Hub`]: every list change, and the
    /// resources it subscribed to.
    filter: Arc<Filter>,
    /// Where those go now. One channel at a time (the newest GET stream), so a
    /// message is never sent twice (2025-11-25 `basic/transports` "Multiple
    /// Connections").
    push: Arc<std::sync::Mutex<Option<Sink>>>,
}

impl Default for LegacyParts {
    fn default() -> Self {
        LegacyParts {
            peer: Arc::default(),
            filter: Arc::new(Filter {
                tools: true,
                prompts: true,
                resources: true,
                uris: Default::default(),
                task_ids: Default::default(),
            }),
            push: Arc::default(),
        }
    }
}

/// `{}`: what a session holds before `initialize` declares anything. One shared
/// value, so a session (a 2026-07-28 HTTP request gets one) allocates none for it.
pub(crate) fn no_capabilities() -> Arc<Value> {
    static NONE: std::sync::OnceLock<Arc<Value>> = std::sync::OnceLock::new();
    NONE.get_or_init(|| Arc::new(Value::Object(Default::default())))
        .clone()
}

impl Session {
    /// A new legacy session of `server`, awaiting `initialize`.
    pub fn new(server: Arc<Server>) -> Self {
        Session {
            server,
            phase: Phase::AwaitingInitialize,
            client_capabilities: no_capabilities(),
            log_level: None,
            legacy: None,
            listening: false,
        }
    }

    /// The legacy parts, made now if this is their first use.
    fn legacy_parts(&mut self) -> &LegacyParts {
        self.legacy.get_or_insert_with(LegacyParts::default)
    }

    /// Gives this session a channel for messages nobody asked for (legacy: the HTTP
    /// GET stream, or stdout): list changes and updates of subscribed resources. They
    /// flow once the handshake is done: before `notifications/initialized` there is
    /// no session to notify (2025-11-25 `basic/lifecycle`).
    pub fn set_push(&mut self, sink: Sink) {
        if !self.server.features.list_changed {
            return;
        }
        *self.legacy_parts().push.locked() = Some(sink);
        self.listen_when_ready();
    }

    /// Registers this session with the hub, once: when it is ready and has a channel.
    fn listen_when_ready(&mut self) {
        // No parts yet: no channel was ever given.
        let Some(parts) = &self.legacy else {
            return;
        };
        let has_channel = parts.push.locked().is_some();
        if self.listening || !has_channel || !matches!(self.phase, Phase::Ready { .. }) {
            return;
        }
        self.listening = true;
        // The hub holds only a weak pointer: when the session ends, it forgets it.
        let push = Arc::downgrade(&parts.push);
        self.server.hub.listen(
            parts.filter.clone(),
            Arc::new(move |message| match push.upgrade() {
                None => false,
                Some(push) => {
                    let current = push.locked().clone();
                    // No channel open right now: the message is dropped, the session
                    // still listens.
                    if let Some(sink) = current {
                        sink(message);
                    }
                    true
                }
            }),
            None,
        );
    }

    /// Where the lifecycle stands.
    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// The protocol version agreed in `initialize`, once it has been answered.
    pub fn protocol_version(&self) -> Option<&'static str> {
        match self.phase {
            Phase::AwaitingInitialize => None,
            Phase::Initializing { version } | Phase::Ready { version } => Some(version),
        }
    }

    /// The one door into the core: handles one message, in the era [`era::choose`]
    /// picks from its `_meta` and transport facts. A modern request is served
    /// statelessly ([`modern`]): this session's state is not touched, so an HTTP
    /// server serves one with a fresh session that ends with the request. Anything
    /// else is this legacy session's.
    pub fn handle<'a>(&mut self, envelope: impl Into<Envelope<'a>>) -> Reply {
        self.handle_envelope(envelope.into())
    }

    /// [`Session::handle`]'s body, kept out of line (and not generic) so that a
    /// profile shows the whole core as one function (`bench/`'s callgrind table).
    #[inline(never)]
    fn handle_envelope(&mut self, envelope: Envelope<'_>) -> Reply {
        let Envelope {
            message,
            facts,
            meta,
        } = envelope;
        match (era::choose(self.server.eras, &facts, Some(&meta)), message) {
            (Era::Modern, Message::Request(request)) => {
                modern::handle(&self.server, request, &meta)
            }
            (_, other) => self.handle_legacy(other, &meta),
        }
    }

    /// Handles one message in this legacy session. A request is always answered
    /// (now or later); a notification never is (JSON-RPC 2.0 §4.1, not even when its
    /// method is unknown); a response from the client goes to the server request
    /// that waits for it.
    fn handle_legacy(&mut self, message: Message, meta: &meta::Meta) -> Reply {
        match message {
            Message::Request(request) => self.legacy_request(request, meta),
            Message::Notification(n) => match n.method.as_str() {
                "notifications/initialized" => {
                    lifecycle::initialized(&mut self.phase);
                    self.listen_when_ready();
                    Reply::None
                }
                "notifications/cancelled" => cancelled(n.params.as_deref()),
                _ => Reply::None,
            },
            Message::Response(response) => {
                // No parts: the server never asked this client anything.
                if let Some(parts) = &self.legacy {
                    parts.peer.resolve(response);
                }
                Reply::None
            }
        }
    }

    /// One item of a batch: its own `_meta`, no transport facts, always legacy.
    fn handle_legacy_envelope(&mut self, envelope: Envelope) -> Reply {
        self.handle_legacy(envelope.message, &envelope.meta)
    }

    /// Handles a JSON-RPC batch (a JSON array), allowed only by the revisions before
    /// 2025-06-18, which removed batching. Returns the responses to send back as one
    /// array (empty when the batch held only notifications), or the single error
    /// response that refuses the whole batch.
    pub fn handle_batch(&mut self, items: Vec<Value>) -> Result<Vec<Response>, Response> {
        lifecycle::check_batch(self.protocol_version(), &items)?;
        Ok(items
            .into_iter()
            .filter_map(|item| match crate::jsonrpc::classify(item) {
                Ok(message) => match self.handle_legacy_envelope(Envelope::from(message)) {
                    Reply::Now(r) | Reply::Streamed(r) => Some(r),
                    // A batch is answered by one JSON array, so nothing in it can
                    // stream: a tool that takes time is refused here.
                    Reply::Later(p) => Some(Response::error(
                        Some(p.id),
                        crate::jsonrpc::ErrorObject::new(
                            crate::jsonrpc::code::INVALID_REQUEST,
                            "Invalid Request: this tool streams its answer; call it outside a batch",
                        ),
                    )),
                    Reply::None | Reply::Cancel(_) => None,
                },
                Err(error) => Some(error),
            })
            .collect())
    }
}

/// `notifications/cancelled {requestId, reason?}` → stop that request. A malformed
/// one changes nothing: a notification cannot be refused.
pub fn cancelled(params: Option<&Value>) -> Reply {
    match params
        .and_then(|p| p.get("requestId"))
        .and_then(crate::jsonrpc::RequestId::from_value)
    {
        Some(id) => Reply::Cancel(id),
        None => Reply::None,
    }
}

#[cfg(test)]
mod tests;
