//! `mcp-raw bridge -- SERVER_CMD ARG…`: a stdio MCP server served as Streamable
//! HTTP. The HTTP transport (`mcp_raw_net::transport::http`) does every HTTP rule as it
//! does for `serve --http`; behind it, instead of the protocol core, sits the
//! forwarding core here ([`Bridge`]), which hands each message to a child process
//! running SERVER_CMD and each of the child's lines back.
//!
//! ```text
//! child.rs    one child process: spawn, stdin writer, stdout lines, stderr log, kill on drop
//! probe.rs    at start: one child asked for its tools' schemas (for Mcp-Param-* checks)
//! routes.rs   which waiting request a child's line belongs to; ids rewritten on the shared child
//! session.rs  the Conversation: a legacy session's own child, modern requests to the shared one
//! ```
//!
//! Legacy (2025-11-25) sessions: one child each, spawned at `initialize` and killed
//! when the session ends (DELETE, expiry, the bridge's exit): a stdio process is one
//! session (`basic/lifecycle`), so a child per `Mcp-Session-Id` keeps each client's
//! state its own.
//!
//! Modern (2026-07-28) requests carry everything in `_meta` and need no session, so
//! they share one child, spawned at the first and spawned again if it dies. Why one
//! shared child and not a child per request: state the server keeps between
//! stateless requests lives in the process (a task created by one `tools/call` is
//! read by a later `tasks/get`; a `subscriptions/listen` hears the list change
//! another request caused), and a spawn per POST would cost a process start each.
//! The price is that requests of different clients meet in one id space: the bridge
//! gives each a unique id on the way in and restores the client's on the way out
//! ([`routes`]).

pub mod child;
pub mod probe;
pub mod routes;
pub mod session;

use crate::lock::Locked;
use crate::protocol::{Conversation, Core, Eras};
use child::{Child, Spawn};
use routes::Routes;
use serde_json::Value;
use std::sync::{Arc, Mutex};

/// The forwarding core: what every session of one bridge shares.
pub struct Bridge {
    /// How to start a child.
    spawn: Spawn,
    /// The child modern requests share, once one came (and while it lives).
    modern: Mutex<Option<Arc<Linked>>>,
    /// The tools' input schemas, when the bridge learned them at start: the HTTP
    /// transport checks modern `Mcp-Param-*` headers against them.
    schemas: Vec<(String, Value)>,
}

/// A child and the table of what it is answering.
pub struct Linked {
    /// The process (killed when this is dropped).
    pub child: Child,
    /// Its waiting requests; shared with the task reading its stdout.
    pub routes: Arc<Mutex<Routes>>,
    /// How long a request to it waits for its answer (`--request-timeout`).
    pub request_timeout: std::time::Duration,
    /// Its place among the `--max-children`, given back when this is dropped.
    _place: child::Place,
}

impl Linked {
    /// Spawns a child whose stdout feeds a new routing table.
    pub fn spawn(spawn: &Spawn, rewrite: bool, why: &str) -> Result<Arc<Linked>, String> {
        let place = child::Place::take(spawn)?;
        let routes = Arc::new(Mutex::new(Routes::new(rewrite, "child ?".into())));
        let feed = routes.clone();
        let child = Child::spawn(spawn, why, move |what| lock(&feed).from_child(what))?;
        lock(&routes).rename(format!("child {}", child.number));
        Ok(Arc::new(Linked {
            child,
            routes,
            request_timeout: spawn.request_timeout,
            _place: place,
        }))
    }

    /// Which child serves which request and session, locked.
    pub fn routes(&self) -> std::sync::MutexGuard<'_, Routes> {
        lock(&self.routes)
    }
}

/// A lock that a panic elsewhere does not poison for good: each operation on a
/// routing table is one call, so it is never left half done.
fn lock(routes: &Mutex<Routes>) -> std::sync::MutexGuard<'_, Routes> {
    routes.locked()
}

impl Bridge {
    /// A bridge that spawns children with `spawn`, offering the tools `schemas`
    /// the probe read (for the HTTP side's `Mcp-Param-*` checks).
    pub fn new(spawn: Spawn, schemas: Vec<(String, Value)>) -> Arc<Bridge> {
        Arc::new(Bridge {
            spawn,
            modern: Mutex::default(),
            schemas,
        })
    }

    /// The shared child of modern requests: the living one, or a new one.
    fn modern_child(&self) -> Result<Arc<Linked>, String> {
        let mut shared = self.modern.locked();
        if let Some(linked) = shared.as_ref()
            && linked.routes().gone().is_none()
        {
            return Ok(linked.clone());
        }
        // The dead child's place among --max-children goes back before a new one
        // takes one.
        *shared = None;
        let linked = Linked::spawn(&self.spawn, true, "modern (2026-07-28) requests")?;
        *shared = Some(linked.clone());
        Ok(linked)
    }
}

impl Core for Bridge {
    fn open(self: Arc<Self>) -> Box<dyn Conversation> {
        Box::new(session::Forwarding::new(self))
    }
    /// Both: the era rule picks per message, the child answers in that era (or says
    /// it cannot).
    fn eras(&self) -> Eras {
        Eras::Both
    }
    /// The child may push at any time; the bridge cannot know it never will.
    fn pushes(&self) -> bool {
        true
    }
    fn tool_schemas(&self) -> Vec<(String, Value)> {
        self.schemas.clone()
    }
    /// Every request goes on to the child with its `_meta` (progress tokens, the
    /// modern fields) as the client sent it.
    fn keeps_meta(&self) -> bool {
        true
    }
}
