//! Resources as plain values: a URI, a name, a MIME type and the content; templates
//! (RFC 6570 level-1 `{var}` URIs) produce content from the variables they match.

use serde_json::{Map, Value, json};

/// The content of a resource: text, or bytes as Base64.
pub enum Body {
    Text(&'static str),
    Blob(&'static str),
}

pub struct Resource {
    pub uri: &'static str,
    pub name: &'static str,
    pub description: &'static str,
    pub mime_type: &'static str,
    pub body: Body,
}

/// A family of resources, e.g. `test://template/{id}/data`.
pub struct Template {
    pub uri_template: &'static str,
    pub name: &'static str,
    pub description: &'static str,
    pub mime_type: &'static str,
    /// The text of the resource at `uri`, given the matched variables.
    pub read: fn(&Map<String, Value>) -> String,
}

/// The resources a server offers, in listing order.
#[derive(Default)]
pub struct ResourceSet {
    pub resources: Vec<Resource>,
    pub templates: Vec<Template>,
}

impl ResourceSet {
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
