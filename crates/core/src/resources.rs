//! Resources: what they are (plain values: a URI, a name, a MIME type and the
//! content; templates, RFC 6570 level-1 `{var}` URIs, produce content from the
//! variables they match), and `resources/list`, `resources/templates/list`,
//! `resources/read` and the legacy `resources/subscribe` / `unsubscribe` (MCP
//! `server/resources`).

use super::subscriptions::Filter;
use crate::jsonrpc::ErrorObject;
use crate::lock::Locked;
use serde_json::{Map, Value, json};

/// The content of a resource: text, or bytes as Base64.
pub enum Body {
    /// Sent as `text`.
    Text(&'static str),
    /// Already Base64, sent as `blob`.
    Blob(&'static str),
}

/// One resource, as a plain value.
pub struct Resource {
    /// Its identity: what `resources/read` and `resources/subscribe` name.
    pub uri: &'static str,
    /// A short name for listings.
    pub name: &'static str,
    /// Tells the user or model what it holds.
    pub description: &'static str,
    /// `mimeType` in the listing and in the contents.
    pub mime_type: &'static str,
    /// What `resources/read` returns.
    pub body: Body,
}

/// A family of resources, e.g. `test://template/{id}/data`.
pub struct Template {
    /// The RFC 6570 level-1 template, listed as `uriTemplate`.
    pub uri_template: &'static str,
    /// A short name for listings.
    pub name: &'static str,
    /// Tells the user or model what the family holds.
    pub description: &'static str,
    /// `mimeType` of every resource it makes.
    pub mime_type: &'static str,
    /// The text of the resource at `uri`, given the matched variables.
    pub read: fn(&Map<String, Value>) -> String,
}

/// The resources a server offers, in listing order.
#[derive(Default)]
pub struct ResourceSet {
    /// Fixed resources, in `resources/list` order.
    pub resources: Vec<Resource>,
    /// Families of resources, in `resources/templates/list` order.
    pub templates: Vec<Template>,
}

impl ResourceSet {
    /// Does it offer no resource and no template?
    pub fn is_empty(&self) -> bool {
        self.resources.is_empty() && self.templates.is_empty()
    }

    /// `resources/list`'s `resources` array.
    pub fn listing(&self) -> Value {
        self.resources
            .iter()
            .map(|r| json!({ "uri": r.uri, "name": r.name, "description": r.description, "mimeType": r.mime_type }))
            .collect()
    }

    /// `resources/templates/list`'s `resourceTemplates` array.
    pub fn template_listing(&self) -> Value {
        self.templates
            .iter()
            .map(|t| {
                json!({ "uriTemplate": t.uri_template, "name": t.name, "description": t.description, "mimeType": t.mime_type })
            })
            .collect()
    }

    /// Is `uri` a resource it offers (or one a template matches)?
    pub fn knows(&self, uri: &str) -> bool {
        self.read(uri).is_some()
    }

    /// The `contents` of `resources/read`, or `None` for a URI nobody serves.
    pub fn read(&self, uri: &str) -> Option<Value> {
        if let Some(r) = self.resources.iter().find(|r| r.uri == uri) {
            let mut item = json!({ "uri": r.uri, "mimeType": r.mime_type });
            match r.body {
                Body::Text(t) => item["text"] = json!(t),
                Body::Blob(b) => item["blob"] = json!(b),
            }
            return Some(json!([item]));
        }
        self.templates.iter().find_map(|t| {
            let vars = match_template(t.uri_template, uri)?;
            Some(json!([{ "uri": uri, "mimeType": t.mime_type, "text": (t.read)(&vars) }]))
        })
    }
}

/// Matches `uri` against a level-1 template: literal text must match exactly and
/// each `{var}` takes one non-empty segment without `/`. Returns the variables.
pub fn match_template(template: &str, uri: &str) -> Option<Map<String, Value>> {
    let mut vars = Map::new();
    let mut rest = uri;
    let mut t = template;
    while !t.is_empty() {
        match t.find('{') {
            None => return (rest == t).then_some(vars),
            Some(open) => {
                rest = rest.strip_prefix(&t[..open])?;
                let close = t[open..].find('}')? + open;
                let name = &t[open + 1..close];
                t = &t[close + 1..];
                // The variable runs to the next literal character (or the end).
                let stop = t.chars().next();
                let end = rest
                    .char_indices()
                    .find(|(_, c)| *c == '/' || Some(*c) == stop)
                    .map_or(rest.len(), |(i, _)| i);
                if end == 0 {
                    return None;
                }
                vars.insert(name.to_owned(), json!(&rest[..end]));
                rest = &rest[end..];
            }
        }
    }
    rest.is_empty().then_some(vars)
}

/// 2025-11-25 `server/resources` "Error Handling": resource not found is `-32002`.
/// 2026-07-28 retired that code for `-32602` (with `data.uri` either way).
pub const LEGACY_RESOURCE_NOT_FOUND: i64 = -32002;

/// The `resources/list` result.
pub fn list(set: &ResourceSet) -> Value {
    json!({ "resources": set.listing() })
}

/// The `resources/templates/list` result.
pub fn templates(set: &ResourceSet) -> Value {
    json!({ "resourceTemplates": set.template_listing() })
}

/// `resources/read {uri}` → `{"contents": [{uri, mimeType, text | blob}]}`.
pub fn read(set: &ResourceSet, params: Option<&Value>, modern: bool) -> Result<Value, ErrorObject> {
    let uri = uri_param("resources/read", params)?;
    match set.read(uri) {
        Some(contents) => Ok(json!({ "contents": contents })),
        None => Err(not_found(uri, modern)),
    }
}

/// `resources/subscribe {uri}`: this session now hears `notifications/resources/updated`
/// for `uri`. The result is `{}`.
pub fn subscribe(
    set: &ResourceSet,
    filter: &Filter,
    params: Option<&Value>,
) -> Result<Value, ErrorObject> {
    let uri = uri_param("resources/subscribe", params)?;
    if !set.knows(uri) {
        return Err(not_found(uri, false));
    }
    filter.uris.locked().insert(uri.to_owned());
    Ok(json!({}))
}

/// `resources/unsubscribe {uri}`: no more updates for `uri`. The result is `{}`.
pub fn unsubscribe(filter: &Filter, params: Option<&Value>) -> Result<Value, ErrorObject> {
    let uri = uri_param("resources/unsubscribe", params)?;
    filter.uris.locked().remove(uri);
    Ok(json!({}))
}

fn uri_param<'a>(method: &str, params: Option<&'a Value>) -> Result<&'a str, ErrorObject> {
    super::params::string(method, params, "uri")
}

fn not_found(uri: &str, modern: bool) -> ErrorObject {
    let mut e = ErrorObject::invalid_params(format!("Resource not found: {uri}"));
    if !modern {
        e.code = LEGACY_RESOURCE_NOT_FOUND;
    }
    e.data = Some(json!({ "uri": uri }));
    e
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_match_one_segment_per_variable() {
        let t = "test://template/{id}/data";
        assert_eq!(
            match_template(t, "test://template/123/data").unwrap()["id"],
            "123"
        );
        assert!(match_template(t, "test://template//data").is_none());
        assert!(match_template(t, "test://template/1/2/data").is_none());
        assert!(match_template(t, "test://template/1/datax").is_none());
        assert!(match_template("a://{x}", "a://y").is_some());
        assert!(match_template("a://fixed", "a://fixed").is_some());
    }
}
