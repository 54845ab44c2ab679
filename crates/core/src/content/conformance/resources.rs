//! Fixture resources: text, binary, one to subscribe to, and a template.

use super::payloads::PNG;
use crate::resources::{Body, Resource, ResourceSet, Template};

pub fn resources() -> ResourceSet {
    ResourceSet {
        resources: vec![
            // First: the suite's caching check reads the first listed resource.
            Resource {
                uri: "test://static-text",
                name: "static-text",
                description: "A static text resource",
                mime_type: "text/plain",
                body: Body::Text("This is the content of the static text resource."),
            },
            Resource {
                uri: "test://static-binary",
                name: "static-binary",
                description: "A static binary resource (a 1x1 PNG)",
                mime_type: "image/png",
                body: Body::Blob(PNG),
            },
            Resource {
                uri: "test://watched-resource",
                name: "watched-resource",
                description: "A resource to subscribe to; test_trigger_resource_update announces changes",
                mime_type: "text/plain",
                body: Body::Text("Watched resource content"),
            },
        ],
        templates: vec![Template {
            uri_template: "test://template/{id}/data",
            name: "template-data",
            description: "Data for any id",
            mime_type: "application/json",
            read: |vars| {
                let id = vars.get("id").and_then(|v| v.as_str()).unwrap_or_default();
                serde_json::json!({ "id": id, "templateTest": true, "data": format!("Data for ID: {id}") }).to_string()
            },
        }],
    }
}
