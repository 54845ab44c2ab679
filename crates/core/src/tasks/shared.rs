//! Tasks shared by replicas (`serve --store redis://…`): a task created on replica A
//! is read on B and cancelled on C, so its [`Record`] lives in a store all of them
//! reach ([`Records`]), and every change is a compare-and-set on that record. What
//! cannot travel stays with the replica that runs the work: its abort handle, and the
//! channel its answers arrive on. Two commands cross replicas for them ([`Command`]):
//! `cancel` aborts the owner's work, `answers` wakes the owner's waiting work.
//!
//! A replica can die with its tasks still `working`. So the owner holds a *lease* per
//! running task, renewed every third of its length; a reader that finds a task still
//! running whose lease has lapsed turns it `failed`, saying the replica running it
//! stopped. Without it a client would poll a `working` task until its `ttlMs` ran out,
//! for work no process is doing any more (the in-memory store has the same rule for
//! work that panics).

use super::{Record, Status, Store, Taken, internal, not_found, too_many};
use crate::future::BoxFuture;
use crate::jsonrpc::ErrorObject;
use crate::lock::Locked;
use serde_json::{Map, Value, json};
use std::collections::HashMap;
use std::future::Future;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;
use tokio::sync::oneshot;

/// How many times a change is retried when another replica changed the record
/// between the read and the write.
const ATTEMPTS: usize = 16;

/// A store of task records reachable by every replica: the Redis backend
/// (`mcp_raw_net::store::redis`) is one. Records travel as JSON text; an error is the
/// store's own words, which become a `-32603` quoting them.
pub trait Records: Send + Sync + 'static {
    /// This replica's name, recorded as the owner of the tasks it runs.
    fn replica(&self) -> &str;
    /// How long a lease lasts without renewal.
    fn lease(&self) -> Duration;
    /// Stores a new record that expires after `ttl`, with this replica's lease on it.
    fn insert(&self, id: String, record: String, ttl: Duration) -> BoxFuture<Result<(), String>>;
    /// The record, and whether its owner's lease is still alive; `None`: no such task.
    fn read(&self, id: String) -> BoxFuture<Result<Option<Stored>, String>>;
    /// Replaces the record if it still is `old` (compare-and-set), keeping its expiry;
    /// `false` when it changed meanwhile (or is gone).
    fn swap(&self, id: String, old: String, new: String) -> BoxFuture<Result<bool, String>>;
    /// Renews this replica's lease on a task and returns its record (`None`: gone).
    fn renew(&self, id: String) -> BoxFuture<Result<Option<String>, String>>;
    /// Drops the lease of a task that finished here.
    fn release(&self, id: String) -> BoxFuture<Result<(), String>>;
    /// Sends a command to every replica (the owner acts on it); must not block.
    fn send(&self, command: &Command);
}

/// A record as read from the store.
pub struct Stored {
    /// The record's JSON text, compared on the next swap.
    pub text: String,
    /// Does the owner's lease still stand?
    pub lease_alive: bool,
}

/// What one replica asks the replica running a task.
#[derive(Debug, Clone, PartialEq)]
pub enum Command {
    /// `tasks/cancel` came elsewhere: abort the work.
    Cancel {
        /// The task.
        id: String,
    },
    /// `tasks/update` completed a round elsewhere: hand the answers to the work.
    Answers {
        /// The task.
        id: String,
        /// The answers by key.
        answers: Map<String, Value>,
    },
}

impl Command {
    /// The command as it travels: `{"command": "cancel"|"answers", "taskId", …}`.
    pub fn to_json(&self) -> Value {
        match self {
            Command::Cancel { id } => json!({"command": "cancel", "taskId": id}),
            Command::Answers { id, answers } => {
                json!({"command": "answers", "taskId": id, "answers": answers})
            }
        }
    }

    /// The command [`Command::to_json`] wrote; `None` for anything else.
    pub fn from_json(v: &Value) -> Option<Command> {
        let id = v.get("taskId")?.as_str()?.to_owned();
        match v.get("command")?.as_str()? {
            "cancel" => Some(Command::Cancel { id }),
            "answers" => Some(Command::Answers {
                id,
                answers: v.get("answers")?.as_object()?.clone(),
            }),
            _ => None,
        }
    }
}

/// The shared half of a [`Store`]: where records live, and the work running here.
pub struct Shared {
    /// The store every replica reaches.
    records: Arc<dyn Records>,
    /// The tasks this replica runs, by id.
    running: Mutex<HashMap<String, Running>>,
}

/// One task running in this process.
#[derive(Default)]
struct Running {
    /// Stops the work (a cancel from any replica, or the record's expiry).
    work: Option<tokio::task::AbortHandle>,
    /// Where the answers go when a round is complete.
    waiter: Option<oneshot::Sender<Map<String, Value>>>,
    /// The record shows this round's questions: the lease loop may hand over answers
    /// it finds there (a lost `answers` command), never before.
    armed: bool,
}

/// A store failure as the client sees it: `-32603` quoting the store.
fn store_error(e: String) -> ErrorObject {
    internal(format!("the shared task store failed: {e}"))
}

fn parse(id: &str, text: &str) -> Result<Record, ErrorObject> {
    serde_json::from_str(text).map_err(|e| {
        internal(format!(
            "the shared task store holds a record for {id} this server cannot read: {e}"
        ))
    })
}

impl Shared {
    pub(super) fn new(records: Arc<dyn Records>) -> Shared {
        Shared {
            records,
            running: Mutex::default(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<String, Running>> {
        self.running.locked()
    }

    /// How many tasks run here.
    pub(super) fn running(&self) -> usize {
        self.lock().len()
    }

    /// Writes the record (durable before the response), then starts the work here.
    pub(super) async fn create<Fut>(
        &self,
        store: &Store,
        runtime: &tokio::runtime::Handle,
        id: &str,
        work: Fut,
    ) -> Result<(Record, tokio::task::JoinHandle<Result<Value, ErrorObject>>), ErrorObject>
    where
        Fut: Future<Output = Result<Value, ErrorObject>> + Send + 'static,
    {
        // `--max-tasks` with a shared store: the tasks running on this replica.
        if self.running() >= store.capacity {
            return Err(too_many(store.capacity));
        }
        let record = Record::new(store.ttl_ms(), Some(self.records.replica().to_owned()));
        let text = serde_json::to_string(&record).map_err(|e| internal(e.to_string()))?;
        self.records
            .insert(id.to_owned(), text, store.ttl)
            .await
            .map_err(store_error)?;
        // The entry exists before the work starts, so its first question finds it.
        let mut running = self.lock();
        let handle = runtime.spawn(work);
        running.insert(
            id.to_owned(),
            Running {
                work: Some(handle.abort_handle()),
                ..Running::default()
            },
        );
        Ok((record, handle))
    }

    /// Reads the record and applies `f` with a compare-and-set, retried when another
    /// replica won the race. `f` answers `Some` when it changed the record. A task
    /// still running whose lease lapsed is failed first (then `f` sees it terminal).
    /// Announces the change, and returns the record as it now is.
    pub(super) async fn change<T>(
        &self,
        store: &Store,
        id: &str,
        verb: &str,
        mut f: impl FnMut(&mut Record) -> Result<Option<T>, ErrorObject>,
    ) -> Result<(Record, Option<T>), ErrorObject> {
        for _ in 0..ATTEMPTS {
            let Some(stored) = self
                .records
                .read(id.to_owned())
                .await
                .map_err(store_error)?
            else {
                return Err(not_found(verb, id));
            };
            let mut record = parse(id, &stored.text)?;
            let lapsed = !record.status.is_terminal() && !stored.lease_alive;
            if lapsed {
                let owner = record.owner.clone().unwrap_or_else(|| "?".into());
                record.fail(internal(format!(
                    "The replica running this task ({owner}) stopped: its lease of {} ms lapsed without renewal (serve --task-lease).",
                    self.records.lease().as_millis()
                )));
            }
            let out = f(&mut record)?;
            if out.is_none() && !lapsed {
                return Ok((record, None));
            }
            let text = serde_json::to_string(&record).map_err(|e| internal(e.to_string()))?;
            if self
                .records
                .swap(id.to_owned(), stored.text, text)
                .await
                .map_err(store_error)?
            {
                store.announce(id, &record);
                return Ok((record, out));
            }
        }
        Err(internal(format!(
            "task {id} changed {ATTEMPTS} times while this request tried to change it; try again"
        )))
    }

    pub(super) async fn update(
        &self,
        store: &Store,
        id: &str,
        responses: &Map<String, Value>,
    ) -> Result<(), ErrorObject> {
        let (record, taken) = self
            .change(store, id, "update", |r| {
                Ok(match r.take_answers(responses)? {
                    Taken::Nothing => None,
                    taken => Some(taken),
                })
            })
            .await?;
        if let Some(Taken::All(answers)) = taken {
            // Here, or on the owner (which may be this replica too).
            if !self.wake(id, answers.clone())
                && record.owner.as_deref() != Some(self.records.replica())
            {
                self.records.send(&Command::Answers {
                    id: id.to_owned(),
                    answers,
                });
            }
        }
        Ok(())
    }

    pub(super) async fn cancel(&self, store: &Store, id: &str) -> Result<(), ErrorObject> {
        let (_, cancelled) = self
            .change(store, id, "cancel", |r| Ok(r.cancel().then_some(())))
            .await?;
        if cancelled.is_some() && !self.stop(id) {
            self.records.send(&Command::Cancel { id: id.to_owned() });
        }
        Ok(())
    }

    pub(super) async fn finish(
        &self,
        store: &Store,
        id: &str,
        outcome: Result<Value, ErrorObject>,
    ) {
        self.lock().remove(id);
        // Cloned per attempt: a lost race reads the record again and applies it again.
        let done = self
            .change(store, id, "finish", |r| {
                Ok(r.finish(outcome.clone()).then_some(()))
            })
            .await;
        if let Err(e) = done {
            log::warn!(
                "[mcp-raw] task {id}: its outcome could not be recorded: {}",
                e.message
            );
        }
        let _ = self.records.release(id.to_owned()).await;
    }

    pub(super) async fn ask(
        &self,
        store: &Store,
        id: &str,
        requests: Map<String, Value>,
    ) -> Result<oneshot::Receiver<Map<String, Value>>, ErrorObject> {
        // The waiter is in place before the record shows the questions, so an answer
        // from any replica finds it.
        let (tx, rx) = oneshot::channel();
        match self.lock().get_mut(id) {
            Some(running) => {
                running.waiter = Some(tx);
                running.armed = false;
            }
            None => return Err(internal("the task ended before it could ask the client")),
        }
        let asked = self
            .change(store, id, "update", |r| {
                r.begin_ask(requests.clone()).map(Some)
            })
            .await;
        let mut running = self.lock();
        match asked {
            Ok(_) => {
                if let Some(r) = running.get_mut(id) {
                    r.armed = true;
                }
                Ok(rx)
            }
            Err(e) => {
                if let Some(r) = running.get_mut(id) {
                    r.waiter = None;
                }
                Err(e)
            }
        }
    }

    pub(super) async fn known(&self, ids: &[&str]) -> Result<Vec<String>, ErrorObject> {
        let mut known = Vec::new();
        for id in ids {
            if self
                .records
                .read((*id).to_owned())
                .await
                .map_err(store_error)?
                .is_some()
            {
                known.push((*id).to_owned());
            }
        }
        Ok(known)
    }

    /// Hands the answers to the work waiting here; `false` when none waits here.
    fn wake(&self, id: &str, answers: Map<String, Value>) -> bool {
        let waiter = self.lock().get_mut(id).and_then(|r| {
            r.armed = false;
            r.waiter.take()
        });
        waiter.is_some_and(|w| w.send(answers).is_ok())
    }

    /// Aborts the work running here; `false` when it does not run here.
    fn stop(&self, id: &str) -> bool {
        match self.lock().remove(id) {
            Some(running) => {
                if let Some(work) = running.work {
                    work.abort();
                }
                true
            }
            None => false,
        }
    }

    /// One turn of the lease loop: renews the lease of each task running here, and
    /// catches up with what the commands may have missed (the record cancelled or
    /// gone: stop the work; a round answered: hand the answers over).
    async fn renew_all(&self) {
        let ids: Vec<String> = self.lock().keys().cloned().collect();
        for id in ids {
            match self.records.renew(id.clone()).await {
                Ok(None) => {
                    self.stop(&id);
                }
                Ok(Some(text)) => {
                    let Ok(record) = serde_json::from_str::<Record>(&text) else {
                        continue;
                    };
                    let armed = self.lock().get(&id).is_some_and(|r| r.armed);
                    if record.status.is_terminal() {
                        self.stop(&id);
                    } else if armed
                        && record.status == Status::Working
                        && record.input_requests.is_empty()
                    {
                        self.wake(&id, record.answers);
                    }
                }
                Err(e) => log::warn!("[mcp-raw] renewing the lease of task {id}: {e}"),
            }
        }
    }
}

impl Store {
    /// Keeps the leases of the tasks running here alive, for as long as the store
    /// lives: every third of the lease, so one slow renewal does not lose it. A
    /// no-op for the in-memory store.
    pub async fn keep_leases(self: Arc<Self>) {
        let super::Backing::Shared(shared) = &self.backing else {
            return;
        };
        let every = shared.records.lease() / 3;
        loop {
            tokio::time::sleep(every).await;
            shared.renew_all().await;
        }
    }

    /// A command from another replica (through the store's bus): acts on it when the
    /// task runs here, ignores it otherwise.
    pub fn on_command(&self, command: Command) {
        let super::Backing::Shared(shared) = &self.backing else {
            return;
        };
        // Said on stderr, so a reader of the replicas' logs sees where work stopped.
        match command {
            Command::Cancel { id } => {
                if shared.stop(&id) {
                    log::warn!(
                        "[mcp-raw] task {id}: cancelled on another replica; its work here stopped"
                    );
                }
            }
            Command::Answers { id, answers } => {
                if shared.wake(&id, answers) {
                    log::warn!(
                        "[mcp-raw] task {id}: answered on another replica; its work here resumed"
                    );
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    //! The store suite: each scenario runs on the in-memory store (one store, used
    //! twice) and on two replicas sharing [`Fake`] records (created on A, driven
    //! from B). The Redis backend runs the same flows through the real binary in
    //! `tests/store_redis.rs`, and these same scenarios in-process against a real
    //! `redis-server` (`mcp_raw_net::store::redis`'s tests).
    use super::*;
    use crate::subscriptions::Hub;
    use crate::tasks::TaskLimits;
    use crate::tasks::suite::*;
    use std::sync::Weak;
    use std::time::Instant;

    /// Records in this process, shared by the stores of several "replicas"; a lease
    /// is an expiry instant, and commands reach every store at once.
    struct Fake {
        replica: String,
        lease: Duration,
        world: Arc<World>,
    }

    #[derive(Default)]
    struct World {
        records: Mutex<HashMap<String, (String, Option<Instant>)>>,
        stores: Mutex<Vec<Weak<Store>>>,
        /// The next this many swaps lose, as if another replica had written first.
        conflicts: std::sync::atomic::AtomicUsize,
    }

    impl Records for Fake {
        fn replica(&self) -> &str {
            &self.replica
        }
        fn lease(&self) -> Duration {
            self.lease
        }
        fn insert(
            &self,
            id: String,
            record: String,
            _ttl: Duration,
        ) -> BoxFuture<Result<(), String>> {
            let until = Instant::now() + self.lease;
            self.world
                .records
                .lock()
                .unwrap()
                .insert(id, (record, Some(until)));
            Box::pin(async { Ok(()) })
        }
        fn read(&self, id: String) -> BoxFuture<Result<Option<Stored>, String>> {
            let got = self
                .world
                .records
                .lock()
                .unwrap()
                .get(&id)
                .map(|(text, until)| Stored {
                    text: text.clone(),
                    lease_alive: until.is_some_and(|u| Instant::now() < u),
                });
            Box::pin(async { Ok(got) })
        }
        fn swap(&self, id: String, old: String, new: String) -> BoxFuture<Result<bool, String>> {
            use std::sync::atomic::Ordering::SeqCst;
            let lose = self
                .world
                .conflicts
                .fetch_update(SeqCst, SeqCst, |n| n.checked_sub(1))
                .is_ok();
            let mut records = self.world.records.lock().unwrap();
            let swapped = match records.get_mut(&id) {
                _ if lose => false,
                Some((text, _)) if *text == old => {
                    *text = new;
                    true
                }
                _ => false,
            };
            Box::pin(async move { Ok(swapped) })
        }
        fn renew(&self, id: String) -> BoxFuture<Result<Option<String>, String>> {
            let until = Instant::now() + self.lease;
            let got = self
                .world
                .records
                .lock()
                .unwrap()
                .get_mut(&id)
                .map(|(text, lease)| {
                    *lease = Some(until);
                    text.clone()
                });
            Box::pin(async { Ok(got) })
        }
        fn release(&self, id: String) -> BoxFuture<Result<(), String>> {
            if let Some((_, lease)) = self.world.records.lock().unwrap().get_mut(&id) {
                *lease = None;
            }
            Box::pin(async { Ok(()) })
        }
        fn send(&self, command: &Command) {
            let stores: Vec<_> = self
                .world
                .stores
                .lock()
                .unwrap()
                .iter()
                .filter_map(Weak::upgrade)
                .collect();
            for store in stores {
                store.on_command(command.clone());
            }
        }
    }

    fn replica(world: &Arc<World>, name: &str, lease: Duration) -> Arc<Store> {
        let records = Arc::new(Fake {
            replica: name.into(),
            lease,
            world: world.clone(),
        });
        let store = Arc::new(Store::shared(
            TaskLimits::default(),
            Arc::new(Hub::default()),
            records,
        ));
        world.stores.lock().unwrap().push(Arc::downgrade(&store));
        store
    }

    /// (where tasks are created, where they are driven from), for each backend.
    fn backends() -> Vec<(&'static str, Arc<Store>, Arc<Store>)> {
        let memory = Arc::new(Store::new(Arc::default()));
        let world = Arc::new(World::default());
        let lease = Duration::from_secs(60);
        vec![
            ("memory", memory.clone(), memory),
            (
                "shared",
                replica(&world, "A", lease),
                replica(&world, "B", lease),
            ),
        ]
    }

    #[tokio::test]
    async fn created_here_read_there_and_completed_on_each_backend() {
        for (backend, a, b) in backends() {
            created_here_read_there_and_completed(backend, a, b).await;
        }
    }

    #[tokio::test]
    async fn cancelled_there_stops_the_work_here_on_each_backend() {
        for (backend, a, b) in backends() {
            cancelled_there_stops_the_work_here(backend, a, b).await;
        }
    }

    #[tokio::test]
    async fn answered_there_resumes_the_work_here_on_each_backend() {
        for (backend, a, b) in backends() {
            answered_there_resumes_the_work_here(backend, a, b).await;
        }
    }

    #[tokio::test]
    async fn a_lapsed_lease_fails_the_task_and_says_why() {
        let world = Arc::new(World::default());
        let lease = Duration::from_millis(50);
        let (a, b) = (replica(&world, "A", lease), replica(&world, "B", lease));
        let forever = || std::future::pending::<Result<Value, ErrorObject>>();
        let id = id_of(&a.create(|_| forever()).await.unwrap());
        // A renews: the task stays working past its lease.
        let keeper = tokio::spawn(a.clone().keep_leases());
        tokio::time::sleep(lease * 3).await;
        assert_eq!(b.get(&id).await.unwrap()["status"], "working");
        // A "dies": nobody renews, and the next reader fails the task.
        keeper.abort();
        tokio::time::sleep(lease * 2).await;
        let t = b.get(&id).await.unwrap();
        assert_eq!(t["status"], "failed");
        let message = t["statusMessage"].as_str().unwrap();
        assert!(
            message.contains("(A) stopped") && message.contains("50 ms"),
            "{message}"
        );
        assert_eq!(t["error"]["code"], -32603);
    }

    #[tokio::test]
    async fn a_lost_race_is_retried_with_the_same_change() {
        use std::sync::atomic::Ordering::SeqCst;
        let world = Arc::new(World::default());
        let lease = Duration::from_secs(60);
        let (a, b) = (replica(&world, "A", lease), replica(&world, "B", lease));
        let created = a
            .create(|task| async move {
                let mut q = Map::new();
                q.insert("k".into(), json!({"method": "roots/list", "params": {}}));
                let got = task.ask(q).await?;
                tokio::time::sleep(Duration::from_millis(20)).await;
                Ok(json!({"content": [], "got": got}))
            })
            .await
            .unwrap();
        let id = id_of(&created);
        wait_for(&b, &id, "input_required").await;
        world.conflicts.store(2, SeqCst);
        b.update(&id, json!({"k": {"roots": []}}).as_object().unwrap())
            .await
            .unwrap();
        // The outcome too loses two races before it is written.
        world.conflicts.store(2, SeqCst);
        let done = wait_for(&b, &id, "completed").await;
        assert_eq!(done["result"]["got"]["k"], json!({"roots": []}));
    }

    #[test]
    fn commands_survive_the_trip() {
        for c in [
            Command::Cancel { id: "t".into() },
            Command::Answers {
                id: "t".into(),
                answers: json!({"k": {}}).as_object().unwrap().clone(),
            },
        ] {
            assert_eq!(Command::from_json(&c.to_json()), Some(c));
        }
        assert_eq!(
            Command::from_json(&json!({"command": "x", "taskId": "t"})),
            None
        );
    }
}
