//! The filter of `tap --intercept FILTER`: words, each `KEY:PATTERN`, all of which must
//! match for a message to be held (`*` matches any run of characters). The words are
//! listed at the top of `mod.rs`; a word this cannot read is refused, quoted.

use crate::wire::event::Dir;
use serde_json::Value;

/// What must hold for a message to be held.
#[derive(Debug, Clone, PartialEq)]
pub struct Filter {
    /// The filter as written (said back to the page).
    text: String,
    /// Every word, each of which must match.
    terms: Vec<Term>,
}

/// One word of a filter.
#[derive(Debug, Clone, PartialEq)]
enum Term {
    /// `method:PATTERN`.
    Method(String),
    /// `tool:PATTERN`: `params.name` of a `tools/call`.
    Tool(String),
    /// `dir:c2s` or `dir:s2c`.
    Dir(Dir),
    /// `id:JSON`: the id as its JSON text.
    Id(String),
}

impl Filter {
    /// Reads `method:tools/call tool:delete_*`; a word it cannot read is refused,
    /// quoted.
    pub fn parse(text: &str) -> Result<Filter, String> {
        let mut terms = Vec::new();
        for word in text.split_whitespace() {
            let Some((key, pattern)) = word.split_once(':') else {
                return Err(format!(
                    "{word:?} is not KEY:PATTERN (method:, tool:, dir:, id:)"
                ));
            };
            if pattern.is_empty() {
                return Err(format!("{word:?} has no pattern after the colon"));
            }
            terms.push(match key {
                "method" => Term::Method(pattern.to_owned()),
                "tool" => Term::Tool(pattern.to_owned()),
                "dir" => Term::Dir(Dir::from_name(pattern).ok_or_else(|| {
                    format!("{word:?}: the direction is c2s (to the server) or s2c (to the client)")
                })?),
                "id" => Term::Id(pattern.to_owned()),
                _ => {
                    return Err(format!(
                        "{word:?}: {key:?} is not a key a filter knows (method, tool, dir, id)"
                    ));
                }
            });
        }
        if terms.is_empty() {
            return Err("an empty filter would hold nothing: give at least one KEY:PATTERN".into());
        }
        Ok(Filter {
            text: text.split_whitespace().collect::<Vec<_>>().join(" "),
            terms,
        })
    }

    /// The filter as written.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Does the message `m`, going `dir`, match every word?
    pub fn matches(&self, dir: Dir, m: &Value) -> bool {
        self.terms.iter().all(|t| match t {
            Term::Method(p) => m["method"].as_str().is_some_and(|s| glob(p, s)),
            Term::Tool(p) => {
                m["method"] == "tools/call"
                    && m["params"]["name"].as_str().is_some_and(|s| glob(p, s))
            }
            Term::Dir(d) => *d == dir,
            Term::Id(id) => m.get("id").is_some_and(|v| {
                v.as_str() == Some(id.as_str())
                    || serde_json::from_str::<Value>(id).is_ok_and(|want| *v == want)
            }),
        })
    }
}

/// `*` matches any run of characters; everything else itself.
fn glob(pattern: &str, s: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    if parts.len() == 1 {
        return pattern == s;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !s.starts_with(first) || s.len() < first.len() + last.len() || !s.ends_with(last) {
        return false;
    }
    let mut at = first.len();
    let end = s.len() - last.len();
    for part in &parts[1..parts.len() - 1] {
        match s[at..end].find(part) {
            Some(i) => at += i + part.len(),
            None => return false,
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_filter_reads_its_words_and_matches_all_of_them() {
        let f = Filter::parse("method:tools/call  tool:delete_*").unwrap();
        assert_eq!(f.text(), "method:tools/call tool:delete_*");
        let call = |name: &str| json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":name}});
        assert!(f.matches(Dir::ToServer, &call("delete_all")));
        assert!(!f.matches(Dir::ToServer, &call("add")));
        let d = Filter::parse("dir:s2c id:\"x\"").unwrap();
        assert!(d.matches(Dir::ToClient, &json!({"id":"x","result":{}})));
        assert!(!d.matches(Dir::ToServer, &json!({"id":"x","result":{}})));
        assert!(glob("a*b*c", "aXXbYc") && !glob("a*b*c", "aXXc") && glob("*", ""));
        assert_eq!(
            Filter::parse("methd:x"),
            Err(
                "\"methd:x\": \"methd\" is not a key a filter knows (method, tool, dir, id)".into()
            )
        );
        assert_eq!(
            Filter::parse("tools/call"),
            Err("\"tools/call\" is not KEY:PATTERN (method:, tool:, dir:, id:)".into())
        );
        assert!(Filter::parse("  ").is_err());
    }
}
