//! The task store's half that replicas share, as a contract: what a [`Store`] built
//! with [`Store::shared`] hands to it for each method. The core holds no
//! implementation of it: scale-out (records in a store every replica reaches,
//! compare-and-set, leases, commands across replicas) lives in `mcp-raw-net`
//! (`store::shared`, over any [`Records`](super::records::Records)), so a learner
//! reading the core reads one process's tasks and nothing else.
//!
//! Each method gets the [`Store`] back, for what stays the core's: its bounds
//! ([`Store::capacity`], [`Store::ttl_ms`]), the record's transitions ([`Record`]),
//! and the announcement of a change on the hub ([`Store::announce`]).

use super::{Record, Store, records::Command};
use crate::future::{BoxFuture, Later};
use crate::jsonrpc::ErrorObject;
use serde_json::{Map, Value};
use tokio::sync::oneshot;

/// A task's work, started by [`Replicated::create`]: its result or its error.
pub type Work = BoxFuture<Result<Value, ErrorObject>>;

/// The handle of a task's work once started: the store awaits it to record the outcome.
pub type Running = tokio::task::JoinHandle<Result<Value, ErrorObject>>;

/// The shared half of a task store. Each method is the shared arm of the [`Store`]
/// method of the same name; the in-memory arm sits beside the call in `tasks/mod.rs`.
pub trait Replicated: Send + Sync + 'static {
    /// How many tasks run on this replica (`--max-tasks` bounds these).
    fn running(&self) -> usize;

    /// Stores the new task's record (durable before the response, SEP-2663 "Task
    /// Creation"), then starts `work` on `runtime`, here.
    fn create<'a>(
        &'a self,
        store: &'a Store,
        runtime: &'a tokio::runtime::Handle,
        id: &'a str,
        work: Work,
    ) -> Later<'a, Result<(Record, Running), ErrorObject>>;

    /// `tasks/get`: the record as it is now (a lapsed lease fails it first).
    fn get<'a>(&'a self, store: &'a Store, id: &'a str) -> Later<'a, Result<Record, ErrorObject>>;

    /// `tasks/update`: records the answers; a complete round goes to the work,
    /// wherever it runs.
    fn update<'a>(
        &'a self,
        store: &'a Store,
        id: &'a str,
        responses: &'a Map<String, Value>,
    ) -> Later<'a, Result<(), ErrorObject>>;

    /// `tasks/cancel`: marks the task cancelled and stops its work, wherever it runs.
    fn cancel<'a>(&'a self, store: &'a Store, id: &'a str) -> Later<'a, Result<(), ErrorObject>>;

    /// The work ended here: records its outcome, unless the task ended first.
    fn finish<'a>(
        &'a self,
        store: &'a Store,
        id: &'a str,
        outcome: Result<Value, ErrorObject>,
    ) -> Later<'a, ()>;

    /// The work asks the client: the record shows `requests`; the receiver yields the
    /// answers once a round is complete.
    fn ask<'a>(
        &'a self,
        store: &'a Store,
        id: &'a str,
        requests: Map<String, Value>,
    ) -> Later<'a, Result<oneshot::Receiver<Map<String, Value>>, ErrorObject>>;

    /// Sets `statusMessage` of a task still `working` (best effort).
    fn say<'a>(&'a self, store: &'a Store, id: &'a str, message: String) -> Later<'a, ()>;

    /// Of `ids`, those the shared store holds.
    fn known<'a>(&'a self, ids: &'a [&'a str]) -> Later<'a, Result<Vec<String>, ErrorObject>>;

    /// Keeps the leases of the tasks running here alive; never returns.
    fn keep_leases(&self) -> Later<'_, ()>;

    /// A command from another replica: acted on when the task runs here.
    fn on_command(&self, command: Command);
}
