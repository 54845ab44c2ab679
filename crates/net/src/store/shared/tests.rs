//! The store suite: each scenario runs on the in-memory store (one store, used
//! twice) and on two replicas sharing [`Fake`] records (created on A, driven
//! from B). The Redis backend runs the same flows through the real binary in
//! `tests/store_redis.rs`, and these same scenarios in-process against a real
//! `redis-server` (`mcp_raw_net::store::redis`'s tests).

use super::*;
use crate::protocol::future::BoxFuture;
use crate::protocol::subscriptions::Hub;
use crate::protocol::tasks::TaskLimits;
use crate::protocol::tasks::records::Stored;
use crate::protocol::tasks::suite::*;
use serde_json::json;
use std::sync::Weak;
use std::time::Duration;
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
    fn insert(&self, id: String, record: String, _ttl: Duration) -> BoxFuture<Result<(), String>> {
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
        Box::new(Shared::new(records)),
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
