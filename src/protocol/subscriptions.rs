//! Change notifications, server-wide: when the tool or prompt list changes or a
//! resource is updated, the [`Hub`] tells every listener that asked for it.
//! Modern listeners are `subscriptions/listen` streams (2026-07-28
//! `basic/patterns/subscriptions`), each notification tagged with the listen
//! request's id; a legacy session listens through its push channel (the HTTP GET
//! stream, or stdout) for list changes and the URIs it `resources/subscribe`d.

use serde_json::{Value, json};
use std::collections::HashSet;
use std::sync::{Arc, Mutex};

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
            Event::ResourceUpdated(uri) => self
                .uris
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .contains(uri),
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
    listeners: Mutex<Vec<Listener>>,
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

    /// Sends the event to every listener that asked for it; forgets listeners that
    /// are gone. Returns how many heard it.
    pub fn publish(&self, event: &Event) -> usize {
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
        self.listeners.lock().unwrap_or_else(|p| p.into_inner())
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
