//! `mcp-raw ui A B`: two recordings side by side, as `diff` reads them. Each
//! direction's messages are paired in order (the first request A's client sent with
//! the first B's client sent, and so on), compared after `--ignore`, and laid out
//! in A's time order; each pair carries where its first difference is, so the page
//! marks that field in both messages.

use crate::replay::diff::{self, Ignore, Message, Step};
use crate::wire::event::{Dir, Event};
use serde_json::{Value, json};

/// One recording of the two.
pub struct Side<'a> {
    /// Its file, as given: the page's column heading.
    pub name: String,
    /// Its header line (role, transport, when it began).
    pub header: Value,
    /// Its events, in order.
    pub events: &'a [Event],
}

/// The side-by-side document the page reads at `/diff`:
///
/// ```text
/// {"a": {name, header, c2s, s2c}, "b": {…}, "ignore": ["id", …], "differences": N,
///  "pairs": [{"dir": "c2s", "n": 1, "what": "request initialize",
///             "a": {"event": 1, "lane": "stdio", "message": {…}} | null,
///             "b": {…} | null,
///             "diff": null | {"at": ["result", "content", 0, "text"],
///                             "length": false, "detail": "result.content[0].text: …"}}]}
/// ```
///
/// `at` is the path of the first differing field (keys as strings, indexes as
/// numbers; `length` when it is that array's length that differs); empty when one
/// side lacks the message.
pub fn document(a: &Side, b: &Side, ignore: &[Ignore], ignore_given: &[String]) -> Value {
    let (ac, as_) = diff::messages(a.events);
    let (bc, bs) = diff::messages(b.events);
    let mut pairs = Vec::new();
    let mut differences = 0;
    for (dir, x, y) in [(Dir::ToServer, &ac, &bc), (Dir::ToClient, &as_, &bs)] {
        for i in 0..x.len().max(y.len()) {
            let (mx, my) = (x.get(i), y.get(i));
            let d = diff::differ(dir, i + 1, mx, my, ignore);
            differences += usize::from(d.is_some());
            // Where it goes in the page: A's event when A has it, B's otherwise.
            let order = mx.or(my).map(|m| m.event).unwrap_or(0);
            let what = d.as_ref().map(|d| d.what.clone()).unwrap_or_else(|| {
                // The same on both sides: A's reading names it.
                mx.map(diff::what).unwrap_or_default()
            });
            pairs.push((
                order,
                json!({
                    "dir": dir.name(),
                    "n": i + 1,
                    "what": what,
                    "a": mx.map(one),
                    "b": my.map(one),
                    "diff": d.map(|d| {
                        let length = d.at.last() == Some(&Step::Length);
                        json!({
                            "at": d.at.iter().filter_map(|s| match s {
                                Step::Key(k) => Some(Value::from(k.as_str())),
                                Step::Index(i) => Some(Value::from(*i)),
                                Step::Length => None,
                            }).collect::<Vec<_>>(),
                            "length": length,
                            "detail": d.detail,
                        })
                    }),
                }),
            ));
        }
    }
    // A stable sort: within one event, c2s before s2c, each in its own order.
    pairs.sort_by_key(|(order, _)| *order);
    let side = |s: &Side, c: usize, sc: usize| json!({"name": s.name, "header": s.header, "events": s.events.len(), "c2s": c, "s2c": sc});
    json!({
        "a": side(a, ac.len(), as_.len()),
        "b": side(b, bc.len(), bs.len()),
        "ignore": if ignore_given.is_empty() { vec!["id".to_owned(), "time".to_owned(), "uuid".to_owned()] } else { ignore_given.to_vec() },
        "differences": differences,
        "pairs": pairs.into_iter().map(|(_, p)| p).collect::<Vec<_>>(),
    })
}

/// One side of a pair: where the message was, and the message (as parsed: the
/// comparison is of values; its exact bytes are at that event of the recording).
fn one(m: &Message) -> Value {
    json!({"event": m.event, "lane": m.lane, "message": m.value})
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::event::{Lane, LaneKind, What};
    use std::time::Duration;

    fn stdio(lines: &[(Dir, &str)]) -> Vec<Event> {
        lines
            .iter()
            .enumerate()
            .map(|(i, (dir, line))| Event {
                t: Duration::from_millis(i as u64),
                lane: Lane {
                    id: 0,
                    kind: LaneKind::Stdio,
                },
                dir: *dir,
                what: What::Bytes(bytes::Bytes::from(format!("{line}\n"))),
            })
            .collect()
    }

    #[test]
    fn pairs_in_time_order_with_the_first_differing_field() {
        let a = stdio(&[
            (
                Dir::ToServer,
                r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add"}}"#,
            ),
            (
                Dir::ToClient,
                r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"5"}]}}"#,
            ),
        ]);
        let b = stdio(&[
            (
                Dir::ToServer,
                r#"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"add"}}"#,
            ),
            (
                Dir::ToClient,
                r#"{"jsonrpc":"2.0","id":9,"result":{"content":[{"type":"text","text":"6"}]}}"#,
            ),
            (
                Dir::ToClient,
                r#"{"jsonrpc":"2.0","method":"notifications/message","params":{}}"#,
            ),
        ]);
        let side = |name: &str, events| Side {
            name: name.into(),
            header: json!({}),
            events,
        };
        let doc = document(&side("a", &a), &side("b", &b), &Ignore::defaults(), &[]);
        assert_eq!(doc["differences"], 2);
        let pairs = doc["pairs"].as_array().unwrap();
        assert_eq!(pairs.len(), 3);
        // The request: the same but for its id, which is ignored.
        assert_eq!(pairs[0]["what"], "request tools/call");
        assert_eq!(pairs[0]["diff"], Value::Null);
        assert_eq!(pairs[1]["what"], "response to tools/call");
        assert_eq!(
            pairs[1]["diff"]["at"],
            json!(["result", "content", 0, "text"])
        );
        assert_eq!(pairs[1]["a"]["event"], 2);
        // Only in B: placed by B's event, A's side empty.
        assert_eq!(pairs[2]["a"], Value::Null);
        assert_eq!(pairs[2]["b"]["event"], 3);
        assert!(
            pairs[2]["diff"]["detail"]
                .as_str()
                .unwrap()
                .starts_with("only in B")
        );
    }
}
