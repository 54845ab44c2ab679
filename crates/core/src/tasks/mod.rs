// Over 500 lines: the Store's methods, each with its in-memory arm and the call to its shared half side by side.
//! The tasks extension, `io.modelcontextprotocol/tasks` (SEP-2663, spec docs
//! `extensions/tasks`), in the 2026-07-28 era. A server that knows a `tools/call` will
//! take long may answer it with a *task handle* instead of the result; the client then
//! polls for the outcome. The whole surface:
//!
//! ```text
//! tools/call {...}                      → {"resultType":"task","taskId":"…","status":"working",
//!                                          "createdAt":"…","lastUpdatedAt":"…","ttlMs":…,"pollIntervalMs":…}
//! tasks/get {taskId}                    → {"resultType":"complete", the same Task fields, plus
//!                                          "result" (completed) | "error" (failed) | "inputRequests"}
//! tasks/update {taskId, inputResponses} → {"resultType":"complete"}   answers; an ack only
//! tasks/cancel {taskId}                 → {"resultType":"complete"}   a wish to stop; an ack only
//! notifications/tasks {the Task}        on a subscriptions/listen stream whose
//!                                         notifications.taskIds named the task, at each change
//! ```
//!
//! What the wire shows: the server alone decides to create a task, and only for a
//! request whose `_meta` client capabilities carry `extensions["io.modelcontextprotocol/tasks"]`
//! (there is no `task` parameter any more). `tasks/*` from a client that did not declare
//! the extension get `-32021`; an unknown or expired `taskId` gets `-32602`; `tasks/result`
//! and `tasks/list` of the 2025-11-25 experimental tasks are gone (`-32601`). A tool that
//! ran and reported `isError` is `completed`: `failed` is only for a JSON-RPC error.
//!
//! There is no session and no `tasks/list`: the task id is the only name of a task, so it
//! is a UUID v4 from the OS CSPRNG and whoever holds it may poll it (SEP-2663 "Security
//! Implications"). The store is bounded: tasks live `ttlMs` from creation, and at most
//! [`MAX_TASKS`] at a time.
//!
//! ```text
//! mod.rs      the Store: create, get, update, cancel, bounded, in memory or shared
//! methods.rs  the methods on the wire: tasks/get, tasks/update, tasks/cancel, taskIds
//! context.rs  TaskContext: what a task's work can do (ask the client, say how it goes)
//! record.rs   Record: what `tasks/get` shows, and the transitions any replica may make
//! records.rs  Records: the contract of a store replicas share; Command across replicas
//! replicated.rs  Replicated: the Store's shared half as a contract (its implementation,
//!             compare-and-set and leases, is `mcp-raw-net`'s `store::shared`)
//! ```
//!
//! The Store's methods are async: in memory they answer on the first poll (and the
//! modern dispatcher answers at once, as before); a shared store answers after its
//! round trip.

mod context;
mod methods;
mod record;
pub mod records;
pub mod replicated;
#[cfg(any(test, feature = "store-suite"))]
pub mod suite;

pub use context::TaskContext;
pub use methods::{advertise, serve, subscription};
pub use record::{Record, Taken};

use super::subscriptions::{Event, Hub};
use crate::jsonrpc::{ErrorObject, code};
use crate::lock::Locked;
use serde_json::{Map, Value, json};
use std::collections::HashMap;
use std::future::Future;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};
use tokio::sync::oneshot;

/// The extension identifier, in `capabilities.extensions` of both sides.
pub const EXTENSION: &str = "io.modelcontextprotocol/tasks";

/// How long a task stays readable after its creation: ten minutes (`ttlMs`).
pub const TTL_MS: u64 = 10 * 60 * 1000;

/// The polling interval suggested to clients (`pollIntervalMs`).
pub const POLL_INTERVAL_MS: u64 = 250;

/// The most tasks kept at once. When full, the oldest finished task makes room; when
/// every one is still running, creation is refused.
pub const MAX_TASKS: usize = 1024;

/// The longest `taskId` looked up (ours are 36 characters).
const MAX_ID_LEN: usize = 128;

/// `Task.status`. `completed`, `failed` and `cancelled` are terminal: once there, a task
/// does not change.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Running.
    Working,
    /// Waiting for the client to answer a question.
    InputRequired,
    /// Done, with a result.
    Completed,
    /// Done, with an error.
    Failed,
    /// Stopped by `tasks/cancel`.
    Cancelled,
}

impl Status {
    /// The wire's name (`working`, `input_required`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Working => "working",
            Status::InputRequired => "input_required",
            Status::Completed => "completed",
            Status::Failed => "failed",
            Status::Cancelled => "cancelled",
        }
    }

    /// Is it over (completed, failed or cancelled)? Then it never changes again.
    pub fn is_terminal(self) -> bool {
        matches!(self, Status::Completed | Status::Failed | Status::Cancelled)
    }
}

/// One task of the in-memory store: its record, and what runs it in this process.
struct Task {
    /// What `tasks/get` shows.
    record: Record,
    /// When it was made: its TTL counts from here, and the oldest finished task is the
    /// first to make room.
    created: Instant,
    /// Where the answers go once `tasks/update` has brought every one of a round.
    waiter: Option<oneshot::Sender<Map<String, Value>>>,
    /// Stops the running work (cancellation, expiry).
    work: Option<tokio::task::AbortHandle>,
}

impl Task {
    /// Stops the work and forgets what it was waiting for.
    fn stop(&mut self) {
        if let Some(work) = self.work.take() {
            work.abort();
        }
        self.waiter = None;
        self.record.input_requests.clear();
    }
}

/// The tasks of one server, shared by every request (there is no session to scope
/// them to). In one process they live in a map; replicas share them through a store
/// ([`records::Records`], e.g. Redis), each running only the work it created.
pub struct Store {
    /// Where the records live.
    backing: Backing,
    /// The most tasks kept at once (in memory), or running at once on this replica
    /// (shared: finished ones live in the store until their TTL).
    capacity: usize,
    /// How long a task stays readable after its creation (`ttlMs`).
    ttl: Duration,
    /// Where every change of a task is announced (`notifications/tasks` to the
    /// `subscriptions/listen` streams that named it).
    hub: Arc<Hub>,
}

/// Where a store keeps its records.
enum Backing {
    /// One process: every task, record and work, in one map.
    Memory(Mutex<HashMap<String, Task>>),
    /// Replicas: the records in a shared store, this replica's work here
    /// (implemented outside the core: `mcp_raw_net::store::shared`).
    Shared(Box<dyn replicated::Replicated>),
}

/// The bounds of the task store (`serve --max-tasks`, `--task-ttl`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TaskLimits {
    /// The most tasks kept at once (per replica, and only running ones, with a shared
    /// store).
    pub max: usize,
    /// How long a task stays readable after its creation.
    pub ttl: Duration,
}

impl Default for TaskLimits {
    fn default() -> Self {
        TaskLimits {
            max: MAX_TASKS,
            ttl: Duration::from_millis(TTL_MS),
        }
    }
}

impl Store {
    /// A store with the default TTL and bound, announcing changes on `hub`.
    pub fn new(hub: Arc<Hub>) -> Store {
        Store::with_limits(TaskLimits::default(), hub)
    }

    /// A store within `limits`, telling `hub` of each change.
    pub fn with_limits(limits: TaskLimits, hub: Arc<Hub>) -> Store {
        Store::bounded(limits.max, limits.ttl, hub)
    }

    /// A store of at most `capacity` tasks that live `ttl`.
    pub fn bounded(capacity: usize, ttl: Duration, hub: Arc<Hub>) -> Store {
        Store {
            backing: Backing::Memory(Mutex::default()),
            capacity,
            ttl,
            hub,
        }
    }

    /// A store whose records `half` keeps, shared with other replicas: at most
    /// `limits.max` tasks run here at once. Call [`Store::keep_leases`] on a runtime
    /// so this replica's running tasks keep their leases.
    pub fn shared(
        limits: TaskLimits,
        hub: Arc<Hub>,
        half: Box<dyn replicated::Replicated>,
    ) -> Store {
        Store {
            backing: Backing::Shared(half),
            capacity: limits.max,
            ttl: limits.ttl,
            hub,
        }
    }

    /// `ttlMs` of a new task.
    pub fn ttl_ms(&self) -> u64 {
        u64::try_from(self.ttl.as_millis()).unwrap_or(u64::MAX)
    }

    /// How long a task stays readable after its creation.
    pub fn ttl(&self) -> Duration {
        self.ttl
    }

    /// The most tasks kept at once (in memory), or running at once here (shared).
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Creates a task running `work` and returns its `CreateTaskResult`
    /// (`resultType: "task"`, the Task fields flat beside it). The task is in the store
    /// before this returns, so a `tasks/get` right after the response finds it, on any
    /// replica (SEP-2663 "Task Creation": durable before the response). `work` gets a
    /// [`TaskContext`] to ask the client for input; its `Ok` is the result a `completed`
    /// task shows, its `Err` the error of a `failed` one. Must be called on a Tokio
    /// runtime (any tool future is).
    pub async fn create<F, Fut>(self: &Arc<Self>, work: F) -> Result<Value, ErrorObject>
    where
        F: FnOnce(TaskContext) -> Fut,
        Fut: Future<Output = Result<Value, ErrorObject>> + Send + 'static,
    {
        let runtime = tokio::runtime::Handle::try_current().map_err(|_| {
            internal("a task needs an async runtime to run on, and none is running")
        })?;
        let id = uuid::Uuid::new_v4().to_string();
        let work = work(TaskContext {
            id: id.clone(),
            store: self.clone(),
        });
        let (record, running) = match &self.backing {
            Backing::Memory(tasks) => {
                let mut tasks = lock(tasks);
                self.make_room(&mut tasks)?;
                let running = runtime.spawn(work);
                let record = Record::new(self.ttl_ms(), None);
                tasks.insert(
                    id.clone(),
                    Task {
                        record: record.clone(),
                        created: Instant::now(),
                        waiter: None,
                        work: Some(running.abort_handle()),
                    },
                );
                (record, running)
            }
            Backing::Shared(shared) => shared.create(self, &runtime, &id, Box::pin(work)).await?,
        };
        let mut created = Map::new();
        created.insert("resultType".into(), json!("task"));
        created.extend(record.detailed(&id));
        // Records the outcome. A panicking tool becomes a failed task, not one that
        // stays "working" for ever; aborted work (cancelled, expired) records nothing.
        let store = self.clone();
        runtime.spawn(async move {
            let outcome = match running.await {
                Ok(outcome) => outcome,
                Err(e) if e.is_panic() => Err(internal("the task's work panicked")),
                Err(_) => return,
            };
            store.finish(&id, outcome).await;
        });
        Ok(Value::Object(created))
    }

    /// `tasks/get`: the task as it is now.
    pub async fn get(&self, id: &str) -> Result<Value, ErrorObject> {
        let record = match &self.backing {
            Backing::Memory(tasks) => {
                let mut tasks = lock(tasks);
                self.find(&mut tasks, id, "retrieve")?.record.clone()
            }
            Backing::Shared(shared) => shared.get(self, id).await?,
        };
        Ok(Value::Object(record.detailed(id)))
    }

    /// `tasks/update`: answers to outstanding input requests ([`Record::take_answers`]).
    /// A subset is accepted and the task stays `input_required` until every key of the
    /// round has its answer, then goes back to `working` and the answers go to the
    /// work, wherever it runs.
    pub async fn update(
        &self,
        id: &str,
        responses: &Map<String, Value>,
    ) -> Result<(), ErrorObject> {
        match &self.backing {
            Backing::Memory(tasks) => {
                let mut tasks = lock(tasks);
                let task = self.find(&mut tasks, id, "update")?;
                match task.record.take_answers(responses)? {
                    Taken::Nothing => return Ok(()),
                    Taken::Some => {}
                    Taken::All(answers) => {
                        task.record.answers.clear();
                        if let Some(waiter) = task.waiter.take() {
                            let _ = waiter.send(answers);
                        }
                    }
                }
                self.announce(id, &task.record);
                Ok(())
            }
            Backing::Shared(shared) => shared.update(self, id, responses).await,
        }
    }

    /// `tasks/cancel`: stops the work of a task still running and marks it
    /// `cancelled`. A finished task stays as it is; the ack is the same either way.
    pub async fn cancel(&self, id: &str) -> Result<(), ErrorObject> {
        match &self.backing {
            Backing::Memory(tasks) => {
                let mut tasks = lock(tasks);
                let task = self.find(&mut tasks, id, "cancel")?;
                if task.record.cancel() {
                    task.stop();
                    self.announce(id, &task.record);
                }
                Ok(())
            }
            Backing::Shared(shared) => shared.cancel(self, id).await,
        }
    }

    /// How many tasks are kept now (finished ones included); with a shared store, how
    /// many run on this replica.
    pub fn len(&self) -> usize {
        match &self.backing {
            Backing::Memory(tasks) => lock(tasks).len(),
            Backing::Shared(shared) => shared.running(),
        }
    }

    /// Does it hold no task?
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The work ended: `completed` with its result, or `failed` with its error, unless
    /// the task reached a terminal state first (cancelled) or is gone (expired).
    async fn finish(&self, id: &str, outcome: Result<Value, ErrorObject>) {
        match &self.backing {
            Backing::Memory(tasks) => {
                let mut tasks = lock(tasks);
                let Some(task) = tasks.get_mut(id) else {
                    return;
                };
                if task.record.finish(outcome) {
                    task.work = None;
                    task.waiter = None;
                    self.announce(id, &task.record);
                }
            }
            Backing::Shared(shared) => shared.finish(self, id, outcome).await,
        }
    }

    /// Parks the task in `input_required` with `requests`; the receiver yields the
    /// answers once `tasks/update` has brought all of them.
    async fn ask(
        &self,
        id: &str,
        requests: Map<String, Value>,
    ) -> Result<oneshot::Receiver<Map<String, Value>>, ErrorObject> {
        match &self.backing {
            Backing::Memory(tasks) => {
                let mut tasks = lock(tasks);
                let task = tasks
                    .get_mut(id)
                    .filter(|t| !t.record.status.is_terminal())
                    .ok_or_else(|| internal("the task ended before it could ask the client"))?;
                task.record.begin_ask(requests)?;
                let (tx, rx) = oneshot::channel();
                task.waiter = Some(tx);
                self.announce(id, &task.record);
                Ok(rx)
            }
            Backing::Shared(shared) => shared.ask(self, id, requests).await,
        }
    }

    /// Sets `statusMessage` of a task that is still `working`.
    async fn say(&self, id: &str, message: String) {
        match &self.backing {
            Backing::Memory(tasks) => {
                let mut tasks = lock(tasks);
                if let Some(task) = tasks.get_mut(id)
                    && task.record.say(message)
                {
                    self.announce(id, &task.record);
                }
            }
            Backing::Shared(shared) => shared.say(self, id, message).await,
        }
    }

    /// `notifications/tasks` with the task as it is now, to whoever listens for it.
    pub fn announce(&self, id: &str, record: &Record) {
        self.hub.publish(&Event::Task {
            id: id.to_owned(),
            task: Value::Object(record.detailed(id)),
        });
    }

    /// Of `ids`, those that name a task kept now (for a `subscriptions/listen` ack).
    pub async fn known(&self, ids: &[&str]) -> Result<Vec<String>, ErrorObject> {
        match &self.backing {
            Backing::Memory(tasks) => {
                let tasks = lock(tasks);
                Ok(ids
                    .iter()
                    .filter(|id| {
                        tasks
                            .get(**id)
                            .is_some_and(|t| t.created.elapsed() < self.ttl)
                    })
                    .map(|id| (*id).to_owned())
                    .collect())
            }
            Backing::Shared(shared) => shared.known(ids).await,
        }
    }

    /// The task `id`, unless it is unknown or has outlived its TTL (then it is deleted
    /// now). Both are `-32602`, worded as SEP-2663's examples.
    fn find<'a>(
        &self,
        tasks: &'a mut HashMap<String, Task>,
        id: &str,
        verb: &str,
    ) -> Result<&'a mut Task, ErrorObject> {
        let expired = tasks
            .get(id)
            .is_some_and(|t| t.created.elapsed() >= self.ttl);
        if expired {
            if let Some(mut task) = tasks.remove(id) {
                task.stop();
            }
            return Err(ErrorObject::invalid_params(format!(
                "Failed to {verb} task: Task has expired ({id})"
            )));
        }
        tasks.get_mut(id).ok_or_else(|| not_found(verb, id))
    }

    /// Keeps the leases of the tasks running here alive, for as long as the store
    /// lives (a no-op for the in-memory store).
    pub async fn keep_leases(self: Arc<Self>) {
        if let Backing::Shared(shared) = &self.backing {
            shared.keep_leases().await;
        }
    }

    /// A command from another replica (through the store's bus): acted on when the
    /// task runs here, ignored otherwise (and by the in-memory store).
    pub fn on_command(&self, command: records::Command) {
        if let Backing::Shared(shared) = &self.backing {
            shared.on_command(command);
        }
    }

    /// Before a creation: drops expired tasks, then, if still full, the oldest finished
    /// one. Refuses when every task kept is still running.
    fn make_room(&self, tasks: &mut HashMap<String, Task>) -> Result<(), ErrorObject> {
        tasks.retain(|_, t| {
            let live = t.created.elapsed() < self.ttl;
            if !live {
                t.stop();
            }
            live
        });
        if tasks.len() < self.capacity {
            return Ok(());
        }
        let oldest_finished = tasks
            .iter()
            .filter(|(_, t)| t.record.status.is_terminal())
            .min_by_key(|(_, t)| t.created)
            .map(|(id, _)| id.clone());
        match oldest_finished {
            Some(id) => {
                tasks.remove(&id);
                Ok(())
            }
            None => Err(too_many(self.capacity)),
        }
    }
}

fn lock(tasks: &Mutex<HashMap<String, Task>>) -> MutexGuard<'_, HashMap<String, Task>> {
    // Every change is made in one critical section, so a poisoned lock still holds
    // a consistent map.
    tasks.locked()
}

/// `-32602` for an id no store holds (never made, or expired and gone).
pub fn not_found(verb: &str, id: &str) -> ErrorObject {
    ErrorObject::invalid_params(format!("Failed to {verb} task: Task not found ({id})"))
}

/// `-32603` when `capacity` tasks already run (`--max-tasks`).
pub fn too_many(capacity: usize) -> ErrorObject {
    internal(format!(
        "too many tasks running (the limit is {capacity}, serve --max-tasks); try again when some have finished"
    ))
}

fn waiting(n: usize) -> String {
    format!("Waiting for the client to answer {n} input request(s) with tasks/update.")
}

/// `-32603` with `message`.
pub fn internal(message: impl Into<String>) -> ErrorObject {
    ErrorObject::new(code::INTERNAL_ERROR, message)
}

#[cfg(test)]
mod tests;
