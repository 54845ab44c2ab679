//! Members put into a request's `params._meta` in place: the bytes the sender wrote
//! stay as they were (order, spacing, escapes, numbers), and the new members are
//! inserted right after the `{` that opens `_meta` (creating `_meta`, or `params`,
//! when the request has none). What a tap does when it adds trace context to a
//! client's requests (`tap --trace-context`): the recording shows exactly what changed.

use super::Doc;

/// `line` (one JSON-RPC message, perhaps ending in a newline) with `members` (each a
/// name and its value's JSON text) first in its `params._meta`; `None` when it is
/// left as it is: not JSON, not a request (no `method` and `id`, or a batch),
/// `params` or `_meta` there but not an object, or `_meta` already holding a member
/// named like the first one (the sender's own says what it meant).
pub fn meta_insert(line: &str, members: &[(&str, String)]) -> Option<String> {
    let first = members.first()?;
    let body = line.trim_end_matches(['\n', '\r']);
    let doc = Doc::parse(body)?;
    let root = doc.root();
    if !root.is_object() || root.get("method").is_none() || root.get("id").is_none() {
        return None;
    }
    let list = members
        .iter()
        .map(|(k, v)| format!("{}:{v}", serde_json::Value::from(*k)))
        .collect::<Vec<_>>()
        .join(",");
    // Where a value's text starts in the line: its distance from the root's text
    // (the parsed copy's), plus the blanks before the root in the line.
    let lead = body.len() - body.trim_start().len();
    let base = root.text().as_ptr() as usize;
    let offset = |text: &str| lead + (text.as_ptr() as usize - base);
    let (at, insert) = match root.get("params") {
        None => {
            // Before the request's closing brace (it has members: method, id).
            let end = offset(root.text()) + root.text().len() - 1;
            (end, format!(",\"params\":{{\"_meta\":{{{list}}}}}"))
        }
        Some(params) if params.is_object() => match params.get("_meta") {
            None => {
                let comma = if params.members().next().is_some() {
                    ","
                } else {
                    ""
                };
                (
                    offset(params.text()) + 1,
                    format!("\"_meta\":{{{list}}}{comma}"),
                )
            }
            Some(meta) if meta.is_object() => {
                if meta.get(first.0).is_some() {
                    return None;
                }
                let comma = if meta.members().next().is_some() {
                    ","
                } else {
                    ""
                };
                (offset(meta.text()) + 1, format!("{list}{comma}"))
            }
            Some(_) => return None,
        },
        Some(_) => return None,
    };
    let mut out = String::with_capacity(line.len() + insert.len());
    out.push_str(&line[..at]);
    out.push_str(&insert);
    out.push_str(&line[at..]);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tp() -> Vec<(&'static str, String)> {
        vec![
            ("traceparent", "\"00-ab-cd-01\"".into()),
            ("tracestate", "\"v=1\"".into()),
        ]
    }

    #[test]
    fn the_senders_bytes_stay_and_the_members_go_first_in_meta() {
        for (line, want) in [
            (
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n",
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"_meta\":{\"traceparent\":\"00-ab-cd-01\",\"tracestate\":\"v=1\"}}}\n",
            ),
            (
                "{ \"id\" : 7, \"method\":\"tools/list\", \"params\": { } }",
                "{ \"id\" : 7, \"method\":\"tools/list\", \"params\": {\"_meta\":{\"traceparent\":\"00-ab-cd-01\",\"tracestate\":\"v=1\"} } }",
            ),
            (
                "{\"id\":\"a\",\"method\":\"tools/call\",\"params\":{\"name\":\"x\",\"arguments\":{\"n\":1.50}}}\r\n",
                "{\"id\":\"a\",\"method\":\"tools/call\",\"params\":{\"_meta\":{\"traceparent\":\"00-ab-cd-01\",\"tracestate\":\"v=1\"},\"name\":\"x\",\"arguments\":{\"n\":1.50}}}\r\n",
            ),
            (
                "{\"id\":2,\"method\":\"m\",\"params\":{\"_meta\":{\"progressToken\":\"p\\u0041\"}}}",
                "{\"id\":2,\"method\":\"m\",\"params\":{\"_meta\":{\"traceparent\":\"00-ab-cd-01\",\"tracestate\":\"v=1\",\"progressToken\":\"p\\u0041\"}}}",
            ),
            (
                "{\"id\":3,\"method\":\"m\",\"params\":{\"_meta\":{}}}",
                "{\"id\":3,\"method\":\"m\",\"params\":{\"_meta\":{\"traceparent\":\"00-ab-cd-01\",\"tracestate\":\"v=1\"}}}",
            ),
        ] {
            let got = meta_insert(line, &tp()).unwrap();
            assert_eq!(got, want);
            assert!(serde_json::from_str::<serde_json::Value>(got.trim_end()).is_ok());
        }
    }

    #[test]
    fn what_is_not_a_request_with_room_is_left_alone() {
        for line in [
            "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}",
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}",
            "[{\"id\":1,\"method\":\"ping\"}]",
            "{\"id\":1,\"method\":\"m\",\"params\":[1]}",
            "{\"id\":1,\"method\":\"m\",\"params\":{\"_meta\":null}}",
            "{\"id\":1,\"method\":\"m\",\"params\":{\"_meta\":{\"traceparent\":\"00-mine\"}}}",
            "not json",
        ] {
            assert_eq!(meta_insert(line, &tp()), None, "{line}");
        }
    }
}
