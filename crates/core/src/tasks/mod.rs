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
//! mod.rs      the wire surface (serve, subscription, advertise) and the Store
//! record.rs   Record: what `tasks/get` shows, and the transitions any replica may make
//! shared.rs   the Store's shared half (`serve --store`): compare-and-set on records in
//!             a store replicas reach, leases, cross-replica commands
//! ```
//!
//! The Store's methods are async: in memory they answer on the first poll (and the
//! modern dispatcher answers at once, as before); a shared store answers after its
//! round trip.

mod record;
pub mod shared;
#[cfg(any(test, feature = "store-suite"))]
pub mod suite;

pub use record::{Record, Taken};

use super::capabilities::{declares, missing_capabilities};
use super::subscriptions::{Event, Hub};
use crate::jsonrpc::{ErrorObject, code, kind};
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
/// ([`shared::Records`], e.g. Redis), each running only the work it created.
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
    /// Replicas: the records in a shared store, this replica's work here.
    Shared(shared::Shared),
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

    /// A store whose records live in `records`, shared with other replicas: at most
    /// `limits.max` tasks run here at once. Call [`Store::keep_leases`] on a runtime
    /// so this replica's running tasks keep their leases.
    pub fn shared(limits: TaskLimits, hub: Arc<Hub>, records: Arc<dyn shared::Records>) -> Store {
        Store {
            backing: Backing::Shared(shared::Shared::new(records)),
            capacity: limits.max,
            ttl: limits.ttl,
            hub,
        }
    }

    fn ttl_ms(&self) -> u64 {
        u64::try_from(self.ttl.as_millis()).unwrap_or(u64::MAX)
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
            Backing::Shared(shared) => shared.create(self, &runtime, &id, work).await?,
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
            Backing::Shared(shared) => {
                shared
                    .change(self, id, "retrieve", |_| Ok(None::<()>))
                    .await?
                    .0
            }
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
            Backing::Shared(shared) => {
                // Progress in words is best effort: a store error leaves the old message.
                let _ = shared
                    .change(self, id, "update", |r| {
                        Ok(r.say(message.clone()).then_some(()))
                    })
                    .await;
            }
        }
    }

    /// `notifications/tasks` with the task as it is now, to whoever listens for it.
    fn announce(&self, id: &str, record: &Record) {
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
fn not_found(verb: &str, id: &str) -> ErrorObject {
    ErrorObject::invalid_params(format!("Failed to {verb} task: Task not found ({id})"))
}

fn too_many(capacity: usize) -> ErrorObject {
    internal(format!(
        "too many tasks running (the limit is {capacity}, serve --max-tasks); try again when some have finished"
    ))
}

/// What a task's work can do besides returning its outcome.
pub struct TaskContext {
    /// The task this work belongs to.
    id: String,
    /// The store that holds its record (and the channel its answers come on).
    store: Arc<Store>,
}

impl TaskContext {
    /// The `taskId`.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// Asks the client mid-flight: the task turns `input_required` and `tasks/get`
    /// shows `requests` (key → `{method, params}`, as MRTR's `inputRequests`) until
    /// `tasks/update` has answered every key; then the task is `working` again and
    /// this returns the answers by key. Keys must be new to this task.
    pub async fn ask(
        &self,
        requests: Map<String, Value>,
    ) -> Result<Map<String, Value>, ErrorObject> {
        if requests.is_empty() {
            return Ok(Map::new());
        }
        let answers = self.store.ask(&self.id, requests).await?;
        answers
            .await
            .map_err(|_| internal("the task stopped waiting for input (cancelled or expired)"))
    }

    /// Sets the `statusMessage` a `working` task shows (progress in words).
    pub async fn say(&self, message: impl Into<String>) {
        self.store.say(&self.id, message.into()).await;
    }
}

/// Serves `tasks/*` for a server that offers the extension. `client_capabilities` are
/// the ones this request declared in its `_meta`. In memory the answer is ready on
/// the first poll; a shared store answers after its round trip.
pub async fn serve(
    store: &Store,
    method: &str,
    params: Option<&Value>,
    client_capabilities: &Value,
) -> Result<Value, ErrorObject> {
    let ack = |()| json!({});
    match method {
        "tasks/get" | "tasks/update" | "tasks/cancel"
            if !declares(client_capabilities, EXTENSION) =>
        {
            Err(missing_capabilities(&[EXTENSION], method))
        }
        "tasks/get" => store.get(task_id(method, params)?).await,
        "tasks/update" => store
            .update(task_id(method, params)?, input_responses(params)?)
            .await
            .map(ack),
        "tasks/cancel" => store.cancel(task_id(method, params)?).await.map(ack),
        "tasks/result" | "tasks/list" => Err(ErrorObject::new(
            code::METHOD_NOT_FOUND,
            format!(
                "Method not found: {method} (removed by SEP-2663: a finished task's result is inlined in tasks/get, and tasks are not listed)"
            ),
        )),
        _ => Err(ErrorObject::new(
            code::METHOD_NOT_FOUND,
            format!(
                "Method not found: {method} (the tasks extension has tasks/get, tasks/update and tasks/cancel)"
            ),
        )),
    }
}

/// `notifications.taskIds` of a `subscriptions/listen`: the ids this stream will hear
/// `notifications/tasks` for (those of tasks kept now). A client that asks for them
/// without declaring the extension gets `-32021` (SEP-2663 "Task Status
/// Notifications"); to a server without the extension the field means nothing.
pub async fn subscription(
    server: &super::Server,
    requested: Option<&Value>,
    client_capabilities: &Value,
) -> Result<Vec<String>, ErrorObject> {
    let Some(requested) = requested.filter(|_| server.features.tasks) else {
        return Ok(Vec::new());
    };
    if !declares(client_capabilities, EXTENSION) {
        return Err(missing_capabilities(
            &[EXTENSION],
            "notifications.taskIds on subscriptions/listen",
        ));
    }
    let ids: Option<Vec<&str>> = requested
        .as_array()
        .and_then(|a| a.iter().map(Value::as_str).collect());
    let ids = ids.ok_or_else(|| {
        let got = if requested.is_array() {
            "an array with a non-string item"
        } else {
            kind(requested)
        };
        ErrorObject::invalid_params(format!(
            "params.notifications.taskIds must be an array of task id strings, got {got}"
        ))
    })?;
    server.tasks.known(&ids).await
}

/// Adds the extension to `server/discover` capabilities: `extensions: {"io.modelcontextprotocol/tasks": {}}`.
pub fn advertise(capabilities: &mut Value) {
    if let Value::Object(caps) = capabilities {
        let extensions = caps.entry("extensions").or_insert_with(|| json!({}));
        if let Value::Object(e) = extensions {
            e.insert(EXTENSION.into(), json!({}));
        }
    }
}

/// `params.taskId`: a non-empty string of sensible length.
fn task_id<'a>(method: &str, params: Option<&'a Value>) -> Result<&'a str, ErrorObject> {
    match params.and_then(|p| p.get("taskId")) {
        Some(Value::String(id)) if !id.is_empty() && id.len() <= MAX_ID_LEN => Ok(id),
        Some(Value::String(_)) => Err(ErrorObject::invalid_params(format!(
            "{method}: params.taskId must be a task id (1 to {MAX_ID_LEN} characters)"
        ))),
        Some(other) => Err(ErrorObject::invalid_params(format!(
            "{method}: params.taskId must be a string, got {}",
            kind(other)
        ))),
        None => Err(ErrorObject::invalid_params(format!(
            "{method}: missing params.taskId"
        ))),
    }
}

/// `params.inputResponses` of `tasks/update`: required, an object keyed like the
/// task's `inputRequests`.
fn input_responses(params: Option<&Value>) -> Result<&Map<String, Value>, ErrorObject> {
    match params.and_then(|p| p.get("inputResponses")) {
        Some(Value::Object(m)) => Ok(m),
        Some(other) => Err(ErrorObject::invalid_params(format!(
            "tasks/update: params.inputResponses must be an object keyed like the task's inputRequests, got {}",
            kind(other)
        ))),
        None => Err(ErrorObject::invalid_params(
            "tasks/update: missing params.inputResponses",
        )),
    }
}

/// A finished task's `result` is what the request would have returned synchronously,
/// so it says `resultType: "complete"` first. A task cannot answer `input_required`:
/// inside a task, input is asked with [`TaskContext::ask`].
fn inline_result(result: Value) -> Result<Value, ErrorObject> {
    let mut out = Map::new();
    match result {
        Value::Object(fields) => {
            match fields.get("resultType").and_then(Value::as_str) {
                None | Some("complete") => {}
                Some(other) => {
                    return Err(internal(format!(
                        "the task's work answered resultType {other:?}; a task's result must be complete"
                    )));
                }
            }
            out.insert("resultType".into(), json!("complete"));
            out.extend(fields.into_iter().filter(|(k, _)| k != "resultType"));
            Ok(Value::Object(out))
        }
        other => Err(internal(format!(
            "the task's work returned {}, not a result object",
            kind(&other)
        ))),
    }
}

fn waiting(n: usize) -> String {
    format!("Waiting for the client to answer {n} input request(s) with tasks/update.")
}

fn internal(message: impl Into<String>) -> ErrorObject {
    ErrorObject::new(code::INTERNAL_ERROR, message)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock;

    fn store() -> Arc<Store> {
        Arc::new(Store::new(Arc::default()))
    }

    fn text(s: &str) -> Value {
        json!({ "content": [{ "type": "text", "text": s }] })
    }

    /// Polls until the task is terminal (or `status`), as a client would. The tests
    /// run on tokio's paused clock: a sleep with nothing else to do returns at once,
    /// in the same order real time would give.
    async fn wait_for(store: &Store, id: &str, status: &str) -> Value {
        for _ in 0..200 {
            let t = store.get(id).await.unwrap();
            if t["status"] == status {
                return t;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        panic!(
            "task {id} never reached {status}: {}",
            store.get(id).await.unwrap()
        );
    }

    fn id_of(created: &Value) -> String {
        created["taskId"].as_str().unwrap().to_owned()
    }

    #[tokio::test(start_paused = true)]
    async fn a_task_is_created_working_and_completes_with_its_result_inlined() {
        let s = store();
        let created = s
            .create(|_| async {
                tokio::time::sleep(Duration::from_millis(20)).await;
                Ok(text("done"))
            })
            .await
            .unwrap();
        assert_eq!(created["resultType"], "task");
        assert_eq!(created["status"], "working");
        assert_eq!(created["ttlMs"], TTL_MS);
        assert_eq!(created["pollIntervalMs"], POLL_INTERVAL_MS);
        assert!(clock::looks_like_rfc3339_utc(
            created["createdAt"].as_str().unwrap()
        ));
        for absent in ["result", "error", "inputRequests", "requestState", "task"] {
            assert!(created.get(absent).is_none(), "{absent} in {created}");
        }
        let id = id_of(&created);
        assert!(uuid::Uuid::parse_str(&id).is_ok());
        // Durable before the response: readable at once.
        assert_eq!(s.get(&id).await.unwrap()["status"], "working");
        let done = wait_for(&s, &id, "completed").await;
        assert_eq!(done["result"]["resultType"], "complete");
        assert_eq!(done["result"]["content"][0]["text"], "done");
        assert!(done.get("error").is_none() && done.get("resultType").is_none());
    }

    #[tokio::test(start_paused = true)]
    async fn a_json_rpc_error_fails_the_task_and_a_tool_error_does_not() {
        let s = store();
        let failed = id_of(
            &s.create(|_| async { Err(ErrorObject::new(-32603, "boom")) })
                .await
                .unwrap(),
        );
        let tool_error = id_of(
            &s.create(|_| async { Ok(json!({"content": [], "isError": true})) })
                .await
                .unwrap(),
        );
        let f = wait_for(&s, &failed, "failed").await;
        assert_eq!(f["error"], json!({"code": -32603, "message": "boom"}));
        assert_eq!(f["statusMessage"], "boom");
        assert!(f.get("result").is_none());
        let t = wait_for(&s, &tool_error, "completed").await;
        assert_eq!(t["result"]["isError"], true);
    }

    #[tokio::test(start_paused = true)]
    async fn a_panicking_task_fails_instead_of_working_for_ever() {
        let s = store();
        let id = id_of(&s.create(|_| async { explode() }).await.unwrap());
        let f = wait_for(&s, &id, "failed").await;
        assert_eq!(f["error"]["code"], -32603);
    }

    fn explode() -> Result<Value, ErrorObject> {
        panic!("deliberate panic in a task's work")
    }

    #[tokio::test(start_paused = true)]
    async fn cancel_stops_the_work_and_is_idempotent() {
        let s = store();
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<()>();
        let id = id_of(
            &s.create(move |_| async move {
                tokio::time::sleep(Duration::from_millis(100)).await;
                let _ = tx.send(());
                Ok(text("too late"))
            })
            .await
            .unwrap(),
        );
        s.cancel(&id).await.unwrap();
        assert_eq!(s.get(&id).await.unwrap()["status"], "cancelled");
        tokio::time::sleep(Duration::from_millis(150)).await;
        assert!(rx.try_recv().is_err(), "the work was aborted");
        assert_eq!(s.get(&id).await.unwrap()["status"], "cancelled");
        // A terminal task: the same ack, no change.
        let done = id_of(&s.create(|_| async { Ok(text("x")) }).await.unwrap());
        wait_for(&s, &done, "completed").await;
        s.cancel(&done).await.unwrap();
        assert_eq!(s.get(&done).await.unwrap()["status"], "completed");
    }

    #[tokio::test(start_paused = true)]
    async fn input_is_asked_answered_in_parts_and_then_resumes() {
        let s = store();
        let id = id_of(
            &s.create(|task| async move {
                let mut asks = Map::new();
                asks.insert(
                    "a".into(),
                    json!({"method": "elicitation/create", "params": {}}),
                );
                asks.insert(
                    "b".into(),
                    json!({"method": "elicitation/create", "params": {}}),
                );
                let got = task.ask(asks).await?;
                Ok(text(&format!("{} {}", got["a"]["v"], got["b"]["v"])))
            })
            .await
            .unwrap(),
        );
        let t = wait_for(&s, &id, "input_required").await;
        assert_eq!(t["inputRequests"]["a"]["method"], "elicitation/create");
        // Unknown keys are ignored; an answer that is not an object is refused.
        s.update(&id, &json!({"zzz": {}}).as_object().unwrap().clone())
            .await
            .unwrap();
        let e = s
            .update(&id, json!({"a": 5}).as_object().unwrap())
            .await
            .unwrap_err();
        assert_eq!(e.code, -32602);
        s.update(&id, json!({"a": {"v": 1}}).as_object().unwrap())
            .await
            .unwrap();
        let t = s.get(&id).await.unwrap();
        assert_eq!(t["status"], "input_required");
        assert_eq!(
            t["inputRequests"],
            json!({"b": {"method": "elicitation/create", "params": {}}})
        );
        // Answering an already answered key again changes nothing.
        s.update(
            &id,
            json!({"a": {"v": 9}, "b": {"v": 2}}).as_object().unwrap(),
        )
        .await
        .unwrap();
        let done = wait_for(&s, &id, "completed").await;
        assert_eq!(done["result"]["content"][0]["text"], "1 2");
        assert!(done.get("inputRequests").is_none());
    }

    #[tokio::test(start_paused = true)]
    async fn a_key_is_never_asked_twice_in_one_task() {
        let s = store();
        let id = id_of(
            &s.create(|task| async move {
                let q = || {
                    let mut m = Map::new();
                    m.insert("k".into(), json!({"method": "roots/list", "params": {}}));
                    m
                };
                task.ask(q()).await?;
                task.ask(q()).await?;
                Ok(text("unreachable"))
            })
            .await
            .unwrap(),
        );
        wait_for(&s, &id, "input_required").await;
        s.update(&id, json!({"k": {}}).as_object().unwrap())
            .await
            .unwrap();
        let f = wait_for(&s, &id, "failed").await;
        assert!(f["error"]["message"].as_str().unwrap().contains("unique"));
    }

    // Expiry reads the std clock (`Instant` in the store), so this one waits for real.
    #[tokio::test]
    async fn unknown_and_expired_ids_are_invalid_params() {
        let s = Arc::new(Store::bounded(8, Duration::from_millis(30), Arc::default()));
        assert_eq!(s.get("nope").await.unwrap_err().code, -32602);
        assert_eq!(s.cancel("nope").await.unwrap_err().code, -32602);
        assert_eq!(
            s.update("nope", &Map::new()).await.unwrap_err().code,
            -32602
        );
        let id = id_of(&s.create(|_| async { Ok(text("x")) }).await.unwrap());
        tokio::time::sleep(Duration::from_millis(40)).await;
        let e = s.get(&id).await.unwrap_err();
        assert!(e.message.contains("expired"), "{}", e.message);
        assert!(s.is_empty());
    }

    #[tokio::test(start_paused = true)]
    async fn the_store_is_bounded() {
        let s = Arc::new(Store::bounded(2, Duration::from_secs(60), Arc::default()));
        let finished = id_of(&s.create(|_| async { Ok(text("x")) }).await.unwrap());
        wait_for(&s, &finished, "completed").await;
        let forever = || std::future::pending::<Result<Value, ErrorObject>>();
        s.create(|_| forever()).await.unwrap();
        // Full: the finished task makes room.
        s.create(|_| forever()).await.unwrap();
        assert_eq!(s.len(), 2);
        assert_eq!(s.get(&finished).await.unwrap_err().code, -32602);
        // Full of running tasks: refused.
        assert_eq!(s.create(|_| forever()).await.unwrap_err().code, -32603);
    }

    #[test]
    fn creating_outside_a_runtime_is_an_error_not_a_panic() {
        let s = store();
        let created =
            crate::future::now_or_later(async move { s.create(|_| async { Ok(json!({})) }).await });
        assert_eq!(created.ok().unwrap().unwrap_err().code, -32603);
    }

    #[tokio::test]
    async fn serve_gates_on_the_extension_and_refuses_removed_methods() {
        let s = Store::new(Arc::default());
        let declared = json!({"extensions": {EXTENSION: {}}});
        let none = json!({});
        let p = json!({"taskId": "t", "inputResponses": {}});
        for m in ["tasks/get", "tasks/update", "tasks/cancel"] {
            let e = serve(&s, m, Some(&p), &none).await.unwrap_err();
            assert_eq!(e.code, -32021, "{m}");
            assert_eq!(
                e.data,
                Some(json!({"requiredCapabilities": {"extensions": {EXTENSION: {}}}}))
            );
            assert_eq!(
                serve(&s, m, Some(&p), &declared).await.unwrap_err().code,
                -32602
            );
        }
        for m in ["tasks/result", "tasks/list", "tasks/other"] {
            assert_eq!(
                serve(&s, m, Some(&p), &declared).await.unwrap_err().code,
                -32601
            );
        }
        for bad in [json!({}), json!({"taskId": 7}), json!({"taskId": ""})] {
            assert_eq!(
                serve(&s, "tasks/get", Some(&bad), &declared)
                    .await
                    .unwrap_err()
                    .code,
                -32602
            );
        }
        let e = serve(&s, "tasks/update", Some(&json!({"taskId": "t"})), &declared)
            .await
            .unwrap_err();
        assert!(e.message.contains("inputResponses"));
    }

    #[tokio::test]
    async fn listening_for_tasks_needs_the_extension_and_hears_only_known_ids() {
        let server = crate::content::conformance::server(super::super::Eras::Both);
        let declared = json!({"extensions": {EXTENSION: {}}});
        let ids = json!(["a", "b"]);
        let e = subscription(&server, Some(&ids), &json!({}))
            .await
            .unwrap_err();
        assert_eq!(e.code, -32021);
        assert_eq!(
            subscription(&server, None, &json!({})).await.unwrap(),
            Vec::<String>::new()
        );
        assert_eq!(
            subscription(&server, Some(&ids), &declared).await.unwrap(),
            Vec::<String>::new()
        );
        for bad in [json!("a"), json!([1])] {
            assert_eq!(
                subscription(&server, Some(&bad), &declared)
                    .await
                    .unwrap_err()
                    .code,
                -32602
            );
        }
        // A server without the extension does not know the field.
        let demo =
            super::super::Server::new(crate::content::demo::tool_set(), super::super::Eras::Both);
        assert!(
            subscription(&demo, Some(&ids), &json!({}))
                .await
                .unwrap()
                .is_empty()
        );
    }

    #[test]
    fn advertise_adds_the_extension() {
        let mut caps = json!({"tools": {}});
        advertise(&mut caps);
        assert_eq!(caps, json!({"tools": {}, "extensions": {EXTENSION: {}}}));
    }

    #[test]
    fn results_are_inlined_complete_and_input_required_is_refused() {
        let r = inline_result(json!({"content": []})).unwrap();
        assert_eq!(r.as_object().unwrap().keys().next().unwrap(), "resultType");
        assert!(inline_result(json!({"resultType": "input_required"})).is_err());
        assert!(inline_result(json!("text")).is_err());
    }
}
