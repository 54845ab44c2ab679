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

use crate::jsonrpc::ErrorObject;
use crate::lock::Locked;
use crate::protocol::future::Later;
use crate::protocol::tasks::records::{Command, Records};
use crate::protocol::tasks::replicated::{Replicated, Running as Started, Work};
use crate::protocol::tasks::{Record, Status, Store, Taken, internal, not_found, too_many};
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use tokio::sync::oneshot;

/// How many times a change is retried when another replica changed the record
/// between the read and the write.
const ATTEMPTS: usize = 16;

/// The shared half of a [`Store`]: where records live, and the work running here.
/// `Store::shared(limits, hub, Box::new(Shared::new(records)))` makes the store.
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
    /// The shared half over `records`, running nothing yet.
    pub fn new(records: Arc<dyn Records>) -> Shared {
        Shared {
            records,
            running: Mutex::default(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<String, Running>> {
        self.running.locked()
    }

    /// How many tasks run here.
    fn running(&self) -> usize {
        self.lock().len()
    }

    /// Writes the record (durable before the response), then starts the work here.
    async fn create(
        &self,
        store: &Store,
        runtime: &tokio::runtime::Handle,
        id: &str,
        work: Work,
    ) -> Result<(Record, Started), ErrorObject> {
        // `--max-tasks` with a shared store: the tasks running on this replica.
        if self.running() >= store.capacity() {
            return Err(too_many(store.capacity()));
        }
        let record = Record::new(store.ttl_ms(), Some(self.records.replica().to_owned()));
        let text = serde_json::to_string(&record).map_err(|e| internal(e.to_string()))?;
        self.records
            .insert(id.to_owned(), text, store.ttl())
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
    async fn change<T>(
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

    async fn update(
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

    async fn cancel(&self, store: &Store, id: &str) -> Result<(), ErrorObject> {
        let (_, cancelled) = self
            .change(store, id, "cancel", |r| Ok(r.cancel().then_some(())))
            .await?;
        if cancelled.is_some() && !self.stop(id) {
            self.records.send(&Command::Cancel { id: id.to_owned() });
        }
        Ok(())
    }

    async fn finish(&self, store: &Store, id: &str, outcome: Result<Value, ErrorObject>) {
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

    async fn ask(
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

    async fn known(&self, ids: &[&str]) -> Result<Vec<String>, ErrorObject> {
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

impl Shared {
    /// Keeps the leases of the tasks running here alive: every third of the lease,
    /// so one slow renewal does not lose it.
    async fn keep_leases(&self) {
        let every = self.records.lease() / 3;
        loop {
            tokio::time::sleep(every).await;
            self.renew_all().await;
        }
    }

    /// A command from another replica (through the store's bus): acts on it when the
    /// task runs here, ignores it otherwise.
    fn on_command(&self, command: Command) {
        // Said on stderr, so a reader of the replicas' logs sees where work stopped.
        match command {
            Command::Cancel { id } => {
                if self.stop(&id) {
                    log::warn!(
                        "[mcp-raw] task {id}: cancelled on another replica; its work here stopped"
                    );
                }
            }
            Command::Answers { id, answers } => {
                if self.wake(&id, answers) {
                    log::warn!(
                        "[mcp-raw] task {id}: answered on another replica; its work here resumed"
                    );
                }
            }
        }
    }
}

/// The core's task store calls its shared half through this contract; each method
/// is the inherent one above, boxed.
impl Replicated for Shared {
    fn running(&self) -> usize {
        Shared::running(self)
    }

    fn create<'a>(
        &'a self,
        store: &'a Store,
        runtime: &'a tokio::runtime::Handle,
        id: &'a str,
        work: Work,
    ) -> Later<'a, Result<(Record, Started), ErrorObject>> {
        Box::pin(Shared::create(self, store, runtime, id, work))
    }

    fn get<'a>(&'a self, store: &'a Store, id: &'a str) -> Later<'a, Result<Record, ErrorObject>> {
        Box::pin(async move {
            Ok(self
                .change(store, id, "retrieve", |_| Ok(None::<()>))
                .await?
                .0)
        })
    }

    fn update<'a>(
        &'a self,
        store: &'a Store,
        id: &'a str,
        responses: &'a Map<String, Value>,
    ) -> Later<'a, Result<(), ErrorObject>> {
        Box::pin(Shared::update(self, store, id, responses))
    }

    fn cancel<'a>(&'a self, store: &'a Store, id: &'a str) -> Later<'a, Result<(), ErrorObject>> {
        Box::pin(Shared::cancel(self, store, id))
    }

    fn finish<'a>(
        &'a self,
        store: &'a Store,
        id: &'a str,
        outcome: Result<Value, ErrorObject>,
    ) -> Later<'a, ()> {
        Box::pin(Shared::finish(self, store, id, outcome))
    }

    fn ask<'a>(
        &'a self,
        store: &'a Store,
        id: &'a str,
        requests: Map<String, Value>,
    ) -> Later<'a, Result<oneshot::Receiver<Map<String, Value>>, ErrorObject>> {
        Box::pin(Shared::ask(self, store, id, requests))
    }

    fn say<'a>(&'a self, store: &'a Store, id: &'a str, message: String) -> Later<'a, ()> {
        Box::pin(async move {
            // Progress in words is best effort: a store error leaves the old message.
            let _ = self
                .change(store, id, "update", |r| {
                    Ok(r.say(message.clone()).then_some(()))
                })
                .await;
        })
    }

    fn known<'a>(&'a self, ids: &'a [&'a str]) -> Later<'a, Result<Vec<String>, ErrorObject>> {
        Box::pin(Shared::known(self, ids))
    }

    fn keep_leases(&self) -> Later<'_, ()> {
        Box::pin(Shared::keep_leases(self))
    }

    fn on_command(&self, command: Command) {
        Shared::on_command(self, command)
    }
}

#[cfg(test)]
mod tests;
