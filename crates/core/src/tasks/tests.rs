//! The task store driven in-process: creation, polling, answers, cancellation,
//! expiry and its bounds, in memory, on tokio's paused clock where time is the subject.

use super::record::inline_result;
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

/// The commands that cross replicas read back as written; anything else is no command.
#[test]
fn commands_survive_the_trip() {
    for c in [
        super::records::Command::Cancel { id: "t".into() },
        super::records::Command::Answers {
            id: "t".into(),
            answers: json!({"k": {}}).as_object().unwrap().clone(),
        },
    ] {
        assert_eq!(super::records::Command::from_json(&c.to_json()), Some(c));
    }
    assert_eq!(
        super::records::Command::from_json(&json!({"command": "x", "taskId": "t"})),
        None
    );
}
