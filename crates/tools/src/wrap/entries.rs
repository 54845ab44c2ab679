//! The servers a configuration file lists, read from JSON(C) or TOML with the byte
//! span of each value `wrap` may change (`command`, `args`), and what each one is:
//! a stdio server, one already wrapped, a remote (URL) server, or one it cannot wrap.

use super::jsonc::{self, Kind, Node};
use std::ops::Range;

/// The file formats client configurations are written in.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Format {
    /// JSON, comments and trailing commas accepted (VS Code's files hold them; the
    /// others' readers would refuse them, and `wrap` adds none).
    Json,
    /// TOML (Codex).
    Toml,
}

/// A string value and the bytes it was written as.
pub struct Str {
    /// The decoded value.
    pub value: String,
    /// Where its literal is in the file (quotes included).
    pub span: Range<usize>,
}

/// One server entry.
pub struct Entry {
    /// Its name: the key under the servers table.
    pub name: String,
    /// The member a `*` step of the table's path went through, when it has one:
    /// Claude Code's project path in `projects.PATH.mcpServers`.
    pub scope: Option<String>,
    /// What it is.
    pub shape: Shape,
    /// The entry's whole value (JSON), where a remote entry's replacement starts.
    pub span: Option<Range<usize>>,
}

/// What an entry is, as far as `wrap` is concerned.
pub enum Shape {
    /// A stdio server: a command and maybe arguments, each a string.
    Stdio {
        /// `command`.
        command: Str,
        /// `args`: its span and elements, or `None` when the entry has no `args`.
        args: Option<(Range<usize>, Vec<Str>)>,
        /// What goes between the command's literal and an `args` member inserted
        /// after it, when there is none: `, ` in JSON and TOML inline tables, a line
        /// break in a TOML table.
        insert_sep: String,
    },
    /// A remote server the client connects to by URL itself: what a stdio entry in
    /// its place needs (JSON), or `None` where `wrap` leaves it (TOML).
    Remote(Option<Remote>),
    /// An entry `wrap` does not understand; why.
    Unusable(String),
}

/// A JSON remote entry, read for the stdio entry that replaces it (`tap --remote`).
pub struct Remote {
    /// The whole entry's object, braces included: what the replacement takes the
    /// place of.
    pub span: Range<usize>,
    /// The member that names the URL (`url`, `httpUrl`, `serverUrl`).
    pub key: &'static str,
    /// The URL literal as written.
    pub url: Str,
    /// `type`'s value when the entry has one (`http`, `streamable-http`, `sse`).
    pub kind: Option<String>,
    /// `headers`, each `NAME: VALUE`, as the client would send them.
    pub headers: Vec<String>,
    /// Every other member: its key and its value's bytes, kept in the new entry.
    pub others: Vec<(String, Range<usize>)>,
}

/// The servers table of a document, or why there is none / it cannot be read.
pub enum Found {
    /// The entries, in file order.
    Entries(Vec<Entry>),
    /// The file has no servers table at that key (nothing to wrap).
    NoTable,
}

/// A parse failure: line, column (1-based) and message.
pub struct Unparsable {
    /// Line from 1.
    pub line: usize,
    /// Column from 1, in characters.
    pub column: usize,
    /// Why.
    pub message: String,
}

impl Entry {
    /// What the manifest and the output call it: the name, and its scope if any.
    pub fn key(&self) -> String {
        match &self.scope {
            Some(scope) => format!("{} (project {scope})", self.name),
            None => self.name.clone(),
        }
    }
}

/// Reads the entries under each of `tables` (key paths such as `["mcp", "servers"]`;
/// a `*` step goes through every member, JSON only). A name given twice in one table
/// (JSON allows it; the clients' readers keep the last) leaves every entry of that
/// name unwrappable: which one the client runs is not ours to guess.
pub fn read(format: Format, text: &str, tables: &[&[&str]]) -> Result<Found, Unparsable> {
    let mut entries = Vec::new();
    let mut any = false;
    for path in tables {
        let found = match format {
            Format::Json => read_json(text, path),
            Format::Toml => read_toml(text, path),
        }?;
        if let Found::Entries(e) = found {
            any = true;
            entries.extend(e);
        }
    }
    if !any {
        return Ok(Found::NoTable);
    }
    let keys: Vec<String> = entries.iter().map(Entry::key).collect();
    for e in &mut entries {
        if keys.iter().filter(|k| **k == e.key()).count() > 1 {
            e.shape = Shape::Unusable("its name is given twice in the file".into());
        }
    }
    Ok(Found::Entries(entries))
}

fn read_json(text: &str, path: &[&str]) -> Result<Found, Unparsable> {
    let doc = jsonc::parse(text).map_err(|e| Unparsable {
        line: e.line,
        column: e.column,
        message: e.message,
    })?;
    let mut tables = Vec::new();
    walk(&doc, path, None, &mut tables);
    if tables.is_empty() {
        return Ok(Found::NoTable);
    }
    let mut entries = Vec::new();
    for (scope, members) in tables {
        entries.extend(members.iter().map(|(name, node)| Entry {
            name: name.clone(),
            scope: scope.clone(),
            shape: json_shape(node),
            span: Some(node.span.clone()),
        }));
    }
    Ok(Found::Entries(entries))
}

/// A servers table found: the `*` step's member name, if any, and its members.
type Table<'a> = (Option<String>, &'a [(String, Node)]);

/// The objects at the end of `path` from `node`, each with the member name its
/// `*` step went through.
fn walk<'a>(node: &'a Node, path: &[&str], scope: Option<String>, out: &mut Vec<Table<'a>>) {
    match path.split_first() {
        None => {
            if let Kind::Object(members) = &node.kind {
                out.push((scope, members));
            }
        }
        Some((&"*", rest)) => {
            if let Kind::Object(members) = &node.kind {
                for (name, child) in members {
                    walk(child, rest, Some(name.clone()), out);
                }
            }
        }
        Some((key, rest)) => {
            if let Some(child) = node.get(key) {
                walk(child, rest, scope, out);
            }
        }
    }
}

fn json_str(n: &Node) -> Option<Str> {
    n.as_str().map(|s| Str {
        value: s.to_owned(),
        span: n.span.clone(),
    })
}

fn json_shape(node: &Node) -> Shape {
    if !matches!(node.kind, Kind::Object(_)) {
        return Shape::Unusable("the entry is not an object".into());
    }
    if let Some(command) = node.get("command") {
        let Some(command) = json_str(command) else {
            return Shape::Unusable("its command is not a string".into());
        };
        let args = match node.get("args") {
            None => None,
            Some(a) => match &a.kind {
                Kind::Array(items) => {
                    match items.iter().map(json_str).collect::<Option<Vec<_>>>() {
                        Some(items) => Some((a.span.clone(), items)),
                        None => {
                            return Shape::Unusable(
                                "an element of its args is not a string".into(),
                            );
                        }
                    }
                }
                _ => return Shape::Unusable("its args is not an array".into()),
            },
        };
        return Shape::Stdio {
            command,
            args,
            insert_sep: ", ".into(),
        };
    }
    // Claude Code and VS Code: `url`; Gemini CLI: `url` (SSE) or `httpUrl`;
    // Windsurf: `serverUrl`.
    for key in ["httpUrl", "serverUrl", "url"] {
        if let Some(url) = node.get(key) {
            return match remote_json(node, key, url) {
                Ok(remote) => Shape::Remote(Some(remote)),
                Err(why) => Shape::Unusable(why),
            };
        }
    }
    Shape::Unusable("it has neither a command nor a URL".into())
}

/// A JSON remote entry read whole: its URL, `type`, `headers` and the rest.
fn remote_json(node: &Node, key: &'static str, url: &Node) -> Result<Remote, String> {
    let url = json_str(url).ok_or_else(|| format!("its {key} is not a string"))?;
    let kind = match node.get("type") {
        None => None,
        Some(t) => Some(t.as_str().ok_or("its type is not a string")?.to_owned()),
    };
    let mut headers = Vec::new();
    if let Some(h) = node.get("headers") {
        let Kind::Object(members) = &h.kind else {
            return Err("its headers is not an object".into());
        };
        for (name, value) in members {
            let value = value
                .as_str()
                .ok_or_else(|| format!("its header {name:?} is not a string"))?;
            headers.push(format!("{name}: {value}"));
        }
    }
    let Kind::Object(members) = &node.kind else {
        return Err("the entry is not an object".into());
    };
    let others = members
        .iter()
        .filter(|(k, _)| !["type", "headers", "url", "httpUrl", "serverUrl"].contains(&k.as_str()))
        .map(|(k, v)| (k.clone(), v.span.clone()))
        .collect();
    Ok(Remote {
        span: node.span.clone(),
        key,
        url,
        kind,
        headers,
        others,
    })
}

fn read_toml(text: &str, path: &[&str]) -> Result<Found, Unparsable> {
    let doc = toml_edit::Document::parse(text).map_err(|e| {
        let at = e.span().map_or(0, |s| s.start);
        let (line, column) = jsonc::line_col(text, at);
        Unparsable {
            line,
            column,
            message: e.message().trim().to_owned(),
        }
    })?;
    let mut item = doc.as_item();
    for key in path {
        match item.get(key) {
            Some(i) => item = i,
            None => return Ok(Found::NoTable),
        }
    }
    let Some(table) = item.as_table_like() else {
        return Ok(Found::NoTable);
    };
    let crlf = text.contains("\r\n");
    Ok(Found::Entries(
        table
            .iter()
            .map(|(name, item)| Entry {
                name: name.to_owned(),
                scope: None,
                shape: toml_shape(item, crlf),
                span: None,
            })
            .collect(),
    ))
}

fn toml_str(v: &toml_edit::Value) -> Option<Str> {
    Some(Str {
        value: v.as_str()?.to_owned(),
        span: v.span()?,
    })
}

fn toml_shape(item: &toml_edit::Item, crlf: bool) -> Shape {
    let Some(entry) = item.as_table_like() else {
        return Shape::Unusable("the entry is not a table".into());
    };
    if let Some(command) = entry.get("command") {
        let Some(command) = command.as_value().and_then(toml_str) else {
            return Shape::Unusable("its command is not a string".into());
        };
        let args = match entry.get("args") {
            None => None,
            Some(a) => match a.as_array() {
                Some(arr) => {
                    match (
                        arr.span(),
                        arr.iter().map(toml_str).collect::<Option<Vec<_>>>(),
                    ) {
                        (Some(span), Some(items)) => Some((span, items)),
                        _ => {
                            return Shape::Unusable(
                                "an element of its args is not a string".into(),
                            );
                        }
                    }
                }
                None => return Shape::Unusable("its args is not an array".into()),
            },
        };
        // In a `[mcp_servers.NAME]` table a new key goes on a line of its own (with
        // the file's line ending); in an inline table, after a comma.
        let insert_sep = if item.is_inline_table() || item.as_value().is_some() {
            ", ".to_owned()
        } else if crlf {
            "\r\n".to_owned()
        } else {
            "\n".to_owned()
        };
        return Shape::Stdio {
            command,
            args,
            insert_sep,
        };
    }
    if entry.get("url").is_some() {
        return Shape::Remote(None);
    }
    Shape::Unusable("it has neither a command nor a url".into())
}
