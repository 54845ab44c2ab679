//! Change notifications, server-wide: when the tool or prompt list changes or a
//! resource is updated, the [`Hub`] tells every listener that asked for it.
//! Modern listeners are `subscriptions/listen` streams (2026-07-28
//! `basic/patterns/subscriptions`), each notification tagged with the listen
//! request's id; a legacy session listens through its push channel (the HTTP GET
//! stream, or stdout) for list changes and the URIs it `resources/subscribe`d.
//!
//! One process delivers an event to its listeners at once. Replicas that share a store
//! (`serve --store redis://…`) give the hub a [`Relay`]: an event is then only handed
//! to the relay, which carries it to every replica (this one included), and each
//! replica fans it out to its own listeners with [`Hub::deliver`] on receipt, so no
//! listener hears an event twice.

use crate::lock::Locked;
use serde_json::{Value, json};
use std::collections::HashSet;
use std::sync::{Arc, Mutex, OnceLock};

/// Delivers one message to a listener; `false` once the listener is gone.
pub type Sink = Arc<dyn Fn(Value) -> bool + Send + Sync>;

/// Something that changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    /// `notifications/tools/list_changed`.
    ToolsChanged,
    /// `notifications/prompts/list_changed`.
    PromptsChanged,
    /// `notifications/resources/list_changed`.
    ResourcesChanged,
    /// `notifications/resources/updated` for this URI.
    ResourceUpdated(String),
    /// A task changed (tasks extension): its id and its `DetailedTask`, as `tasks/get`
    /// would show it now.
    Task {
        /// The task's id.
        id: String,
        /// Its `DetailedTask`.
        task: Value,
    },
}

impl Event {
    /// The event as the relay carries it between replicas: `{"kind": …}` plus its data.
    pub fn to_json(&self) -> Value {
        match self {
            Event::ToolsChanged => json!({"kind": "tools"}),
            Event::PromptsChanged => json!({"kind": "prompts"}),
            Event::ResourcesChanged => json!({"kind": "resources"}),
            Event::ResourceUpdated(uri) => json!({"kind": "resource", "uri": uri}),
            Event::Task { id, task } => json!({"kind": "task", "id": id, "task": task}),
        }
    }

    /// The event [`Event::to_json`] wrote; `None` for anything else.
    pub fn from_json(v: &Value) -> Option<Event> {
        let text = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_owned);
        Some(match v.get("kind")?.as_str()? {
            "tools" => Event::ToolsChanged,
            "prompts" => Event::PromptsChanged,
            "resources" => Event::ResourcesChanged,
            "resource" => Event::ResourceUpdated(text("uri")?),
            "task" => Event::Task {
                id: text("id")?,
                task: v.get("task")?.clone(),
            },
            _ => return None,
        })
    }
}

/// Carries events to every replica of a shared deployment (the Redis bus,
/// `mcp_raw_net::store`). It must deliver to this replica too, by calling [`Hub::deliver`]
/// when the event comes back.
pub trait Relay: Send + Sync {
    /// Sends the event on its way; it must not block (events leave in order).
    fn relay(&self, event: &Event);
}

/// What a listener wants to hear.
#[derive(Debug, Default)]
pub struct Filter {
    /// Tool list changes.
    pub tools: bool,
    /// Prompt list changes.
    pub prompts: bool,
    /// Resource list changes.
    pub resources: bool,
    /// Resource URIs (`resourceSubscriptions`, or legacy `resources/subscribe`).
    pub uris: Mutex<HashSet<String>>,
    /// Task ids (`taskIds`, tasks extension).
    pub task_ids: HashSet<String>,
}

impl Filter {
    fn wants(&self, event: &Event) -> bool {
        match event {
            Event::ToolsChanged => self.tools,
            Event::PromptsChanged => self.prompts,
            Event::ResourcesChanged => self.resources,
            Event::ResourceUpdated(uri) => self.uris.locked().contains(uri),
            Event::Task { id, .. } => self.task_ids.contains(id),
        }
    }
}

struct Listener {
    filter: Arc<Filter>,
    sink: Sink,
    /// Modern: the `subscriptions/listen` request id, put in every notification's
    /// `_meta` so a client can tell its subscriptions apart.
    subscription_id: Option<Value>,
}

/// The listeners of one server.
#[derive(Default)]
pub struct Hub {
    /// This process's listeners: modern streams and legacy sessions.
    listeners: Mutex<Vec<Listener>>,
    /// Set when replicas share events: then [`Hub::publish`] goes through it.
    relay: OnceLock<Arc<dyn Relay>>,
}

impl Hub {
    /// Starts sending `sink` what `filter` wants; `subscription_id` tags the
    /// messages of a modern `subscriptions/listen` stream.
    pub fn listen(&self, filter: Arc<Filter>, sink: Sink, subscription_id: Option<Value>) {
        self.lock().push(Listener {
            filter,
            sink,
            subscription_id,
        });
    }

    /// Routes every later [`Hub::publish`] through `relay` (once; a second relay is
    /// refused and returned).
    pub fn set_relay(&self, relay: Arc<dyn Relay>) -> Result<(), Arc<dyn Relay>> {
        self.relay.set(relay)
    }

    /// Announces an event. Alone: delivered here at once, and the count is how many
    /// listeners heard it. With a relay: handed to it (every replica delivers it on
    /// receipt), and the count is how many listeners of this replica will hear it.
    pub fn publish(&self, event: &Event) -> usize {
        match self.relay.get() {
            None => self.deliver(event),
            Some(relay) => {
                relay.relay(event);
                self.lock().iter().filter(|l| l.filter.wants(event)).count()
            }
        }
    }

    /// Sends the event to every listener of this process that asked for it; forgets
    /// listeners that are gone. Returns how many heard it.
    pub fn deliver(&self, event: &Event) -> usize {
        let mut heard = 0;
        self.lock().retain(|l| {
            if !l.filter.wants(event) {
                return true;
            }
            let alive = (l.sink)(notification(event, l.subscription_id.as_ref()));
            heard += usize::from(alive);
            alive
        });
        heard
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Listener>> {
        self.listeners.locked()
    }
}

/// The notification for an event, tagged for a modern subscription.
fn notification(event: &Event, subscription_id: Option<&Value>) -> Value {
    let (method, mut params) = match event {
        Event::ToolsChanged => ("notifications/tools/list_changed", json!({})),
        Event::PromptsChanged => ("notifications/prompts/list_changed", json!({})),
        Event::ResourcesChanged => ("notifications/resources/list_changed", json!({})),
        Event::ResourceUpdated(uri) => ("notifications/resources/updated", json!({ "uri": uri })),
        // The whole task, so the client need not call tasks/get (SEP-2663 "Task Status
        // Notifications").
        Event::Task { task, .. } => ("notifications/tasks", task.clone()),
    };
    if let Some(id) = subscription_id {
        params["_meta"] = json!({ SUBSCRIPTION_ID: id });
    }
    crate::jsonrpc::Notification::new(method, Some(params)).to_value()
}

/// The `_meta` key tying a notification to its `subscriptions/listen` request.
pub const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";

#[cfg(test)]
mod tests {
    use super::*;

    fn collector() -> (Sink, Arc<Mutex<Vec<Value>>>) {
        let got = Arc::new(Mutex::new(Vec::new()));
        let g = got.clone();
        (
            Arc::new(move |v| {
                g.lock().unwrap().push(v);
                true
            }),
            got,
        )
    }

    #[test]
    fn events_reach_only_the_listeners_that_asked() {
        let hub = Hub::default();
        let (tools_sink, tools_got) = collector();
        let (uri_sink, uri_got) = collector();
        hub.listen(
            Arc::new(Filter {
                tools: true,
                ..Filter::default()
            }),
            tools_sink,
            Some(json!(7)),
        );
        let uris = Arc::new(Filter::default());
        uris.uris.lock().unwrap().insert("test://a".into());
        hub.listen(uris, uri_sink, None);

        assert_eq!(hub.publish(&Event::ToolsChanged), 1);
        assert_eq!(hub.publish(&Event::PromptsChanged), 0);
        assert_eq!(hub.publish(&Event::ResourceUpdated("test://a".into())), 1);
        assert_eq!(hub.publish(&Event::ResourceUpdated("test://b".into())), 0);
        let tools = tools_got.lock().unwrap();
        assert_eq!(tools[0]["method"], "notifications/tools/list_changed");
        assert_eq!(tools[0]["params"]["_meta"][SUBSCRIPTION_ID], 7);
        assert_eq!(
            uri_got.lock().unwrap()[0]["params"],
            json!({"uri": "test://a"})
        );
    }

    #[test]
    fn task_notifications_reach_the_listeners_of_that_task() {
        let hub = Hub::default();
        let (sink, got) = collector();
        let filter = Filter {
            task_ids: ["t1".to_owned()].into(),
            ..Filter::default()
        };
        hub.listen(Arc::new(filter), sink, Some(json!("L")));
        let event = |id: &str| Event::Task {
            id: id.into(),
            task: json!({"taskId": id, "status": "completed"}),
        };
        assert_eq!(hub.publish(&event("t2")), 0);
        assert_eq!(hub.publish(&event("t1")), 1);
        let n = &got.lock().unwrap()[0];
        assert_eq!(n["method"], "notifications/tasks");
        assert_eq!(n["params"]["status"], "completed");
        assert_eq!(n["params"]["_meta"][SUBSCRIPTION_ID], "L");
    }

    #[test]
    fn events_survive_the_trip_between_replicas() {
        for e in [
            Event::ToolsChanged,
            Event::PromptsChanged,
            Event::ResourcesChanged,
            Event::ResourceUpdated("test://a".into()),
            Event::Task {
                id: "t".into(),
                task: json!({"status": "working"}),
            },
        ] {
            assert_eq!(Event::from_json(&e.to_json()), Some(e));
        }
        assert_eq!(Event::from_json(&json!({"kind": "other"})), None);
    }

    #[test]
    fn with_a_relay_publish_delivers_only_on_receipt() {
        struct Loop(Arc<Mutex<Vec<Event>>>);
        impl Relay for Loop {
            fn relay(&self, event: &Event) {
                self.0.lock().unwrap().push(event.clone());
            }
        }
        let hub = Hub::default();
        let sent = Arc::new(Mutex::new(Vec::new()));
        assert!(hub.set_relay(Arc::new(Loop(sent.clone()))).is_ok());
        let (sink, got) = collector();
        let filter = Filter {
            tools: true,
            ..Filter::default()
        };
        hub.listen(Arc::new(filter), sink, None);
        assert_eq!(hub.publish(&Event::ToolsChanged), 1);
        assert!(got.lock().unwrap().is_empty(), "not before it comes back");
        assert_eq!(sent.lock().unwrap().as_slice(), &[Event::ToolsChanged]);
        assert_eq!(hub.deliver(&Event::ToolsChanged), 1);
        assert_eq!(got.lock().unwrap().len(), 1);
    }

    #[test]
    fn gone_listeners_are_forgotten() {
        let hub = Hub::default();
        hub.listen(
            Arc::new(Filter {
                tools: true,
                ..Filter::default()
            }),
            Arc::new(|_| false),
            None,
        );
        assert_eq!(hub.publish(&Event::ToolsChanged), 0);
        assert!(hub.lock().is_empty());
    }
}
