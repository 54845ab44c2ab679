//! The task store's scenarios, for any [`Records`](super::records::Records)
//! implementation to run against itself: each takes two stores, `a` where a task is
//! made and `b` that reads or drives it (the same store twice, or two replicas).
//! This crate's own tests run them on the in-memory store and on in-process fake
//! records (`mcp-raw-net`'s `store::shared`); `mcp-raw-net` runs them on Redis with the `store-suite`
//! feature.
//!
//! They assert, so they belong to tests: a failure panics with the backend's name.

use super::Store;
use serde_json::{Map, Value, json};
use std::sync::Arc;
use std::time::Duration;

/// Polls `id` on `store` until its status is `status` (2 s at most), and returns it.
pub async fn wait_for(store: &Store, id: &str, status: &str) -> Value {
    for _ in 0..400 {
        let t = store.get(id).await.unwrap();
        if t["status"] == status {
            return t;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    panic!("task {id} never reached {status}");
}

/// The `taskId` of a `CreateTaskResult`.
pub fn id_of(created: &Value) -> String {
    created["taskId"].as_str().unwrap().to_owned()
}

/// A scenario of the suite, on `a` (where the task is made) and `b`.
pub async fn created_here_read_there_and_completed(backend: &str, a: Arc<Store>, b: Arc<Store>) {
    let id = id_of(
        &a.create(|_| async { Ok(json!({"content": []})) })
            .await
            .unwrap(),
    );
    let done = wait_for(&b, &id, "completed").await;
    assert_eq!(done["result"]["resultType"], "complete", "{backend}");
    assert_eq!(b.get("nope").await.unwrap_err().code, -32602, "{backend}");
}

/// A scenario of the suite, on `a` (where the task is made) and `b`.
pub async fn cancelled_there_stops_the_work_here(backend: &str, a: Arc<Store>, b: Arc<Store>) {
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<()>();
    let created = a
        .create(move |_| async move {
            tokio::time::sleep(Duration::from_millis(100)).await;
            let _ = tx.send(());
            Ok(json!({}))
        })
        .await
        .unwrap();
    let id = id_of(&created);
    b.cancel(&id).await.unwrap();
    assert_eq!(
        a.get(&id).await.unwrap()["status"],
        "cancelled",
        "{backend}"
    );
    tokio::time::sleep(Duration::from_millis(150)).await;
    assert!(
        rx.try_recv().is_err(),
        "{backend}: the work was not aborted"
    );
    assert_eq!(a.len(), usize::from(backend == "memory"), "{backend}");
}

/// A scenario of the suite, on `a` (where the task is made) and `b`.
pub async fn answered_there_resumes_the_work_here(backend: &str, a: Arc<Store>, b: Arc<Store>) {
    let created = a
        .create(|task| async move {
            let mut q = Map::new();
            q.insert(
                "k".into(),
                json!({"method": "elicitation/create", "params": {}}),
            );
            let got = task.ask(q).await?;
            Ok(json!({"content": [{"type": "text", "text": got["k"]["v"]}]}))
        })
        .await
        .unwrap();
    let id = id_of(&created);
    wait_for(&b, &id, "input_required").await;
    let e = b
        .update(&id, json!({"k": 1}).as_object().unwrap())
        .await
        .unwrap_err();
    assert_eq!(e.code, -32602, "{backend}");
    b.update(&id, json!({"k": {"v": "yes"}}).as_object().unwrap())
        .await
        .unwrap();
    let done = wait_for(&b, &id, "completed").await;
    assert_eq!(done["result"]["content"][0]["text"], "yes", "{backend}");
}
