// Over 500 lines: about 185 of them are its unit tests (a recorded OAuth flow among them).
//! The live page's rows (`mcp-raw ui`, `--ui`): each event of a recording becomes
//! the things a reader sees it carry — a lane opening or closing, a TLS handshake, an
//! HTTP head, an SSE event, a message, a stderr line — as JSON objects the page draws.
//! They are read from the events by the same per-lane [`Decoder`] every view uses,
//! never re-rendered from parsed data: `bytes` is what crossed, its invisible bytes
//! marked as `--raw` marks them (`␍`, `⟨BOM⟩`, `⟨xx⟩`), `pretty` the same payload laid
//! out, `notes` what `--explain` says of it.
//!
//! A row's fields: `n` (the event's position in the recording, counted from 0: the
//! live stream's event id), `t` (seconds since the recording began), `lane`, `dir`
//! (`c2s`, `s2c`), `kind` (`lane`, `tls`, `head`, `sse`, `msg`, `odd`, `stderr`),
//! `summary`, `bytes`, `notes`; a message adds `shape`, `method`, `tool` (a
//! `tools/call`'s tool), `id` (as sent), `era`, `answers` (the method a response
//! answers), `error` (an error response or a payload that is no message) and `pretty`.
//! A row on an HTTP connection adds `session`: the `Mcp-Session-Id` of the exchange it
//! belongs to (2025-11-25 basic/transports "Session Management": the request's head
//! carries it once the session is open; the initialize response's head assigns it),
//! so a session spread over many connections reads as one. A response's head adds
//! `status`. A row of an OAuth exchange adds `oauth`, its step, and `flow`, which flow
//! it belongs to (1, 2…), so the page can fold a flow into one line of steps (the
//! private `Oauth` below tells the steps apart). A modern response that carries
//! `result.requestState` adds `gives_state`, and a request that sends one back
//! (`params.requestState`) adds `state`, both the exact string: the page links a
//! retried call to its earlier attempts by them.

use super::classify::Class;
use super::decode::{Decoder, Fact, Source};
use super::event::{Dir, Event, What};
use super::explain::Asked;
use super::text::PLAIN;
use serde_json::{Map, Value, json};
use std::collections::HashMap;

/// Turns events into rows, in order; it keeps each lane's framing state and the
/// methods asked (so a response names what it answers).
pub struct Rows {
    /// Each lane's framer: heads, chunks, SSE events, payloads as they complete.
    decoder: Decoder,
    /// The method of each request seen, by id.
    asked: Asked,
    /// Each HTTP lane's session, by label: the `Mcp-Session-Id` of its exchange now
    /// under way, as the heads carry it.
    sessions: HashMap<String, String>,
    /// The OAuth flows seen so far, and each lane's exchange's step in them.
    oauth: Oauth,
}

/// MCP's authorization flow as it crosses (2025-11-25 basic/authorization,
/// "Authorization Flow Steps"): an MCP request answered 401 (or 403) with
/// `WWW-Authenticate` (RFC 6750 §3) — the `challenge`; the `resource metadata` (RFC
/// 9728) and the authorization `server metadata` (RFC 8414, or OpenID Connect
/// Discovery); dynamic client `registration` (RFC 7591); the `authorize` request
/// (OAuth 2.1 §4.1.1); the `token` request (§3.2.2); then the MCP request again with
/// `Authorization: Bearer` — the `retry`. Which exchanges are MCP's is
/// [`Endpoint`](super::http::endpoint::Endpoint)'s rule; the registration, authorize
/// and token endpoints are the ones the server metadata names (or, before one was
/// read, paths ending `/register`, `/authorize`, `/token`). A flow begins at a
/// challenge, or at an OAuth exchange once the last flow was retried (a refresh); it is
/// retried by the first MCP request with `Authorization` after its token step.
#[derive(Default)]
struct Oauth {
    /// Which requests are MCP's.
    endpoint: super::http::endpoint::Endpoint,
    /// The current flow's number (0: none yet).
    flow: usize,
    /// Has the current flow had its token step?
    token: bool,
    /// Has the current flow been retried (it is over)?
    retried: bool,
    /// The endpoints the server metadata named, by step: (path, step).
    named: Vec<(String, &'static str)>,
    /// Each lane's exchange under way: its step and flow, if it is one.
    lanes: HashMap<String, (&'static str, usize)>,
}

impl Oauth {
    /// A request's head: the step its exchange is, if any.
    fn request(&mut self, lane: &str, h: &super::http1::Head) {
        let target = h.start_line.split(' ').nth(1).unwrap_or("");
        let path = target.split('?').next().unwrap_or("");
        let outside = self.endpoint.outside(h);
        let step = if !outside {
            let bearer = h.header("authorization").is_some();
            (bearer && self.token && !self.retried).then_some("retry")
        } else if path.starts_with("/.well-known/oauth-protected-resource") {
            Some("resource metadata")
        } else if path.starts_with("/.well-known/oauth-authorization-server")
            || path.starts_with("/.well-known/openid-configuration")
        {
            Some("server metadata")
        } else if let Some((_, step)) = self.named.iter().find(|(p, _)| p == path) {
            Some(*step)
        } else if self.named.is_empty() {
            ["register", "authorize", "token"]
                .iter()
                .zip(["registration", "authorize", "token"])
                .find(|(end, _)| path.ends_with(&format!("/{end}")))
                .map(|(_, step)| step)
        } else {
            None
        };
        match step {
            Some("retry") => self.retried = true,
            Some(step) => {
                if self.flow == 0 || self.retried {
                    self.begin();
                }
                if step == "token" {
                    self.token = true;
                }
            }
            None => {}
        }
        match step {
            Some(step) => self.lanes.insert(lane.to_owned(), (step, self.flow)),
            None => self.lanes.remove(lane),
        };
    }

    /// A response's head: an MCP exchange that is no step yet becomes the challenge
    /// of a new flow when it is refused with `WWW-Authenticate` (RFC 6750 §3: 401 no
    /// or a bad token, 403 not enough scope).
    fn response(&mut self, lane: &str, h: &super::http1::Head) {
        let refused = matches!(h.status(), Some(401 | 403));
        if refused && h.header("www-authenticate").is_some() && !self.lanes.contains_key(lane) {
            self.begin();
            self.lanes.insert(lane.to_owned(), ("challenge", self.flow));
        }
    }

    fn begin(&mut self) {
        self.flow += 1;
        self.token = false;
        self.retried = false;
    }

    /// A body on `lane`: the server metadata's endpoints are learned from it.
    fn body(&mut self, lane: &str, value: Option<&Value>) {
        if self.lanes.get(lane).map(|s| s.0) != Some("server metadata") {
            return;
        }
        for (field, step) in [
            ("registration_endpoint", "registration"),
            ("authorization_endpoint", "authorize"),
            ("token_endpoint", "token"),
        ] {
            let url = value.and_then(|v| v.get(field)).and_then(Value::as_str);
            // The path of an absolute URL: after `scheme://host`.
            let path = url
                .and_then(|u| u.split_once("://"))
                .map(|(_, rest)| rest.find('/').map_or("/", |i| &rest[i..]));
            if let Some(path) = path {
                let path = path.split('?').next().unwrap_or(path).to_owned();
                self.named.retain(|(_, s)| *s != step);
                self.named.push((path, step));
            }
        }
    }
}

impl Rows {
    /// Rows for payloads of at most `max` bytes (`--max-message-bytes`): a longer one
    /// is a row that says so.
    pub fn with_max(max: usize) -> Rows {
        Rows {
            decoder: Decoder::with_max(max),
            asked: Asked::default(),
            sessions: HashMap::new(),
            oauth: Oauth::default(),
        }
    }

    /// The rows event `n` (its position in the recording) brings.
    pub fn feed(&mut self, n: usize, e: &Event) -> Vec<Value> {
        let mut rows = Vec::new();
        match &e.what {
            What::Open(peer) => {
                rows.push(self.in_session(e, row(n, e, "lane", format!("opened: {peer}"))))
            }
            What::Close(why) => {
                rows.push(self.in_session(e, row(n, e, "lane", format!("closed: {why}"))))
            }
            What::Tls(facts) => {
                let mut r = row(n, e, "tls", facts.summary());
                r.insert(
                    "notes".into(),
                    json!([facts.chain_lines(), facts.explain()].concat()),
                );
                rows.push(self.in_session(e, r));
            }
            What::Intercept(i) => {
                let mut r = row(n, e, "intercept", i.summary());
                r.insert("hold".into(), json!(i.hold));
                r.insert("step".into(), json!(i.step.name()));
                if !i.bytes.is_empty() {
                    r.insert("bytes".into(), json!(marked(i.bytes.trim_ascii_end())));
                }
                if i.step == super::event::HoldStep::Answered {
                    // The answer to the page's resend: never on the lane, still the
                    // response to the resent request (paired by its id, as any).
                    let bytes = i.bytes.trim_ascii_end();
                    let class = super::classify::classify(bytes);
                    r.insert("answers".into(), json!(self.asked.answers(&class)));
                    r.insert("shape".into(), json!(class.shape));
                    r.insert(
                        "id".into(),
                        json!(class.id.as_ref().map(|id| id.to_string())),
                    );
                    r.insert(
                        "pretty".into(),
                        json!(super::pretty::json_text(bytes, &PLAIN)),
                    );
                }
                rows.push(self.in_session(e, r));
            }
            What::Bytes(_) => {}
        }
        for fact in self.decoder.feed(e) {
            let r = match fact {
                Fact::Head(h) => {
                    self.session_of(e, &h);
                    let lane = e.lane.label();
                    match e.dir {
                        Dir::ToServer => self.oauth.request(&lane, &h),
                        Dir::ToClient => self.oauth.response(&lane, &h),
                    }
                    let mut r = row(n, e, "head", h.start_line.clone());
                    if let (Dir::ToClient, Some(status)) = (e.dir, h.status()) {
                        r.insert("status".into(), json!(status));
                    }
                    r.insert("bytes".into(), json!(marked(&h.raw)));
                    r.insert("notes".into(), json!(super::explain::head(&h)));
                    r
                }
                Fact::Sse(ev) if ev.data.is_empty() => {
                    let mut r = row(n, e, "sse", "SSE event without data (priming)".into());
                    r.insert("bytes".into(), json!(marked(&ev.raw)));
                    r
                }
                Fact::Payload {
                    bytes,
                    source,
                    class,
                    ..
                } => self.message(n, e, &bytes, source, class),
                Fact::Stderr(line) => {
                    let mut r = row(n, e, "stderr", String::from_utf8_lossy(&line).into_owned());
                    r.insert("bytes".into(), json!(marked(&line)));
                    r
                }
                Fact::TooLong { len } => row(
                    n,
                    e,
                    "odd",
                    format!("{len} bytes: longer than the view holds whole (--max-message-bytes)"),
                ),
                Fact::Invalid(why) => row(n, e, "odd", format!("not HTTP/1.1: {why}")),
                Fact::Sse(_) | Fact::Chunk { .. } | Fact::End => continue,
            };
            rows.push(self.in_session(e, r));
        }
        rows.into_iter().map(Value::Object).collect()
    }

    /// A row with its lane's session and OAuth step, when it has them now.
    fn in_session(&self, e: &Event, mut r: Map<String, Value>) -> Map<String, Value> {
        let lane = e.lane.label();
        if let Some(session) = self.sessions.get(&lane) {
            r.insert("session".into(), json!(session));
        }
        if let Some((step, flow)) = self.oauth.lanes.get(&lane) {
            r.insert("oauth".into(), json!(step));
            r.insert("flow".into(), json!(flow));
            // An OAuth document or form is no JSON-RPC message, and no error for it:
            // it is named by its step ("token form (body)", "server metadata (body)").
            if r.get("kind") == Some(&json!("odd")) && r.get("shape").is_some() {
                r.insert("error".into(), json!(r["shape"] == "error"));
                let summary = r["summary"].as_str().unwrap_or("");
                let named = match summary.strip_prefix("other") {
                    Some(rest) => format!("{step}{rest}"),
                    None => format!("{step} {summary}"),
                };
                r.insert("summary".into(), json!(named));
            }
        }
        r
    }

    /// The session a head puts its lane's exchange in. A request's head starts an
    /// exchange: its `Mcp-Session-Id`, or none (initialize, the modern era, or no MCP
    /// at all). A response's head keeps the request's, or names the session it assigns
    /// (the initialize response, 2025-11-25 basic/transports "Session Management").
    fn session_of(&mut self, e: &Event, h: &super::http1::Head) {
        let id = h.header(super::http::SESSION_ID);
        match (e.dir, id) {
            (_, Some(id)) => {
                self.sessions.insert(e.lane.label(), id.to_owned());
            }
            (Dir::ToServer, None) => {
                self.sessions.remove(&e.lane.label());
            }
            (Dir::ToClient, None) => {}
        }
    }

    /// A payload's row: what it is, what it answers, its bytes and its reading.
    fn message(
        &mut self,
        n: usize,
        e: &Event,
        bytes: &[u8],
        source: Source,
        class: Class,
    ) -> Map<String, Value> {
        let answers = self.asked.answers(&class);
        let value = serde_json::from_slice::<Value>(bytes).ok();
        if e.dir == Dir::ToClient {
            self.oauth.body(&e.lane.label(), value.as_ref());
        }
        let from = match source {
            Source::SseData => " (SSE data)",
            Source::Body => " (body)",
            Source::Line => "",
        };
        let tool = match (&class.method, &value) {
            (Some(m), Some(v)) if m == "tools/call" => v
                .pointer("/params/name")
                .and_then(Value::as_str)
                .map(str::to_owned),
            _ => None,
        };
        let summary = match (&answers, class.shape, &tool) {
            (Some(m), "response" | "error", _) => format!("{} ← {m}{from}", class.summary()),
            (_, _, Some(tool)) => format!("{} {tool}{from}", class.summary()),
            _ => format!("{}{from}", class.summary()),
        };
        let kind = if class.is_message() { "msg" } else { "odd" };
        let mut r = row(n, e, kind, summary);
        r.insert("bytes".into(), json!(marked(bytes)));
        r.insert(
            "notes".into(),
            json!(super::explain::message(
                &class,
                value.as_ref(),
                answers.as_deref()
            )),
        );
        if value.is_some() {
            r.insert(
                "pretty".into(),
                json!(super::pretty::json_text(bytes, &PLAIN)),
            );
        }
        r.insert("shape".into(), json!(class.shape));
        r.insert("method".into(), json!(class.method));
        r.insert("tool".into(), json!(tool));
        r.insert(
            "id".into(),
            json!(class.id.as_ref().map(|id| id.to_string())),
        );
        r.insert("era".into(), json!(class.era));
        r.insert("answers".into(), json!(answers));
        r.insert(
            "error".into(),
            json!(class.shape == "error" || !class.is_message()),
        );
        // 2026-07-28 basic/patterns/mrtr: an `input_required` result may carry an
        // opaque `requestState`, and the retry MUST send it back unchanged; the page
        // links the attempts of one operation by that exact string, never by id.
        let state = |at: &str| {
            value
                .as_ref()
                .and_then(|v| v.pointer(at))
                .and_then(Value::as_str)
                .map(str::to_owned)
        };
        match class.shape {
            "response" => {
                if let Some(s) = state("/result/requestState") {
                    r.insert("gives_state".into(), json!(s));
                }
            }
            "request" => {
                if let Some(s) = state("/params/requestState") {
                    r.insert("state".into(), json!(s));
                }
            }
            _ => {}
        }
        r
    }
}

/// The fields every row has.
fn row(n: usize, e: &Event, kind: &str, summary: String) -> Map<String, Value> {
    let mut r = Map::new();
    r.insert("n".into(), json!(n));
    r.insert("t".into(), json!(e.t.as_secs_f64()));
    r.insert("lane".into(), json!(e.lane.label()));
    r.insert(
        "dir".into(),
        json!(match e.dir {
            Dir::ToServer => "c2s",
            Dir::ToClient => "s2c",
        }),
    );
    r.insert("kind".into(), json!(kind));
    r.insert("summary".into(), json!(summary));
    r
}

/// Bytes as `--raw` shows them, without colour; a `\n` stays a line break (after
/// the `␍` of a CRLF), so a head reads as lines.
fn marked(bytes: &[u8]) -> String {
    let lines: Vec<String> = bytes
        .split(|&b| b == b'\n')
        .map(|line| super::text::mark(line, &PLAIN))
        .collect();
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::{Lane, LaneKind};
    use std::time::Duration;

    fn bytes(dir: Dir, text: &[u8]) -> Event {
        Event {
            t: Duration::from_millis(1),
            lane: Lane {
                id: 0,
                kind: LaneKind::Stdio,
            },
            dir,
            what: What::Bytes(bytes::Bytes::copy_from_slice(text)),
        }
    }

    fn on(lane: u32, dir: Dir, text: &[u8]) -> Event {
        Event {
            lane: Lane {
                id: lane,
                kind: LaneKind::Http,
            },
            ..bytes(dir, text)
        }
    }

    #[test]
    fn a_session_over_several_connections_is_named_on_each() {
        let mut rows = Rows::with_max(1 << 20);
        let init = br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}"#;
        let post = |session: &str| {
            let mut head = format!(
                "POST /mcp HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: {}\r\n",
                init.len()
            );
            if !session.is_empty() {
                head += &format!("MCP-Session-Id: {session}\r\n");
            }
            [head.as_bytes(), b"\r\n", init].concat()
        };
        let answer = |session: &str| {
            format!("HTTP/1.1 200 OK\r\nmcp-session-id: {session}\r\nContent-Length: 2\r\n\r\n{{}}")
        };
        let sessions =
            |got: Vec<Value>| -> Vec<Value> { got.iter().map(|r| r["session"].clone()).collect() };
        // The initialize request is in no session yet; its answer assigns one.
        assert_eq!(
            sessions(rows.feed(0, &on(1, Dir::ToServer, &post("")))),
            [Value::Null, Value::Null]
        );
        assert_eq!(
            sessions(rows.feed(1, &on(1, Dir::ToClient, answer("s-1").as_bytes()))),
            [json!("s-1"), json!("s-1")]
        );
        // A second connection carries it (the header's case as sent, matched without).
        assert_eq!(
            sessions(rows.feed(2, &on(2, Dir::ToServer, &post("s-1")))),
            [json!("s-1"), json!("s-1")]
        );
        // A third carries another; the first's next request none.
        assert_eq!(
            sessions(rows.feed(3, &on(3, Dir::ToServer, &post("s-2")))),
            [json!("s-2"), json!("s-2")]
        );
        assert_eq!(
            sessions(rows.feed(4, &on(1, Dir::ToServer, &post("")))),
            [Value::Null, Value::Null]
        );
    }

    /// `mcp-raw demo-http --auth --record` (its secrets masked as every recording
    /// masks them): the steps of each flow, in order, with their statuses.
    #[test]
    fn the_oauth_flow_of_the_auth_demo_is_grouped_in_order_with_its_statuses() {
        let (_, events) =
            crate::transcript::read(include_str!("testdata/oauth-flow.jsonl")).unwrap();
        let mut rows = Rows::with_max(1 << 20);
        let all: Vec<Value> = events
            .iter()
            .enumerate()
            .flat_map(|(n, e)| rows.feed(n, e))
            .collect();
        // Each flow's exchanges: a request's head opens one, a response's head gives
        // its status (a challenge is only a response).
        let mut flows: Vec<Vec<(String, String, u64)>> = Vec::new();
        for r in all.iter().filter(|r| r["kind"] == "head") {
            let Some(flow) = r["flow"].as_u64() else {
                continue;
            };
            let (lane, step) = (r["lane"].as_str().unwrap(), r["oauth"].as_str().unwrap());
            while flows.len() < flow as usize {
                flows.push(Vec::new());
            }
            let steps = &mut flows[flow as usize - 1];
            match r["status"].as_u64() {
                None => steps.push((lane.into(), step.into(), 0)),
                Some(status) => match steps.iter_mut().rev().find(|s| s.0 == lane && s.2 == 0) {
                    Some(s) => s.2 = status,
                    None => steps.push((lane.into(), step.into(), status)),
                },
            }
        }
        let got: Vec<Vec<String>> = flows
            .iter()
            .map(|f| f.iter().map(|(l, s, st)| format!("{l} {s} {st}")).collect())
            .collect();
        assert_eq!(
            got,
            [
                vec![
                    "c1 challenge 401",
                    "c2 resource metadata 200",
                    "c3 server metadata 200",
                    "c4 registration 201",
                    "c5 authorize 302",
                    "c6 token 200",
                    "c7 retry 200"
                ],
                // A refresh, then a client_credentials token without the scope: the
                // retry is refused (403 insufficient_scope), and that flow is over.
                vec!["c8 token 200", "c9 token 200", "c7 retry 403"],
                // A token that is no JWT: a new challenge, not followed.
                vec!["c10 challenge 401"],
            ]
        );
        // The MCP exchanges after the first retry are no step of any flow.
        let later = all
            .iter()
            .find(|r| r["method"] == "tools/list" && r["shape"] == "request")
            .unwrap();
        assert_eq!(later.get("oauth"), None);
        // The token request's secrets are masked in its bytes, as in the recording;
        // an OAuth body is no error.
        let form = all
            .iter()
            .find(|r| r["oauth"] == "token" && r["kind"] == "odd" && r["dir"] == "c2s")
            .unwrap();
        assert!(
            form["bytes"]
                .as_str()
                .unwrap()
                .starts_with("grant_type=authorization_code&code=****")
        );
        assert_eq!(form["error"], false);
    }

    #[test]
    fn a_head_keeps_its_line_breaks_and_marks_its_crs() {
        assert_eq!(
            marked(b"POST /mcp HTTP/1.1\r\nHost: a\r\n\r\n"),
            "POST /mcp HTTP/1.1␍\nHost: a␍\n␍\n"
        );
        assert_eq!(marked(b"\xEF\xBB\xBFx\x01\xff"), "⟨BOM⟩x⟨01⟩⟨ff⟩");
    }

    #[test]
    fn a_tools_call_names_its_tool_and_its_answer_names_the_call() {
        let mut rows = Rows::with_max(1 << 20);
        let call = br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{}}}
"#;
        let got = rows.feed(0, &bytes(Dir::ToServer, call));
        assert_eq!(got.len(), 1);
        assert_eq!(got[0]["summary"], "request tools/call #7 echo");
        assert_eq!(got[0]["tool"], "echo");
        assert_eq!(got[0]["id"], "7");
        // A line's payload is the line without its `\n`.
        assert_eq!(
            got[0]["bytes"],
            String::from_utf8_lossy(&call[..call.len() - 1]).as_ref()
        );
        let answer = b"{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{}}\r\n";
        let got = rows.feed(1, &bytes(Dir::ToClient, answer));
        assert_eq!(got[0]["summary"], "response #7 ← tools/call");
        assert_eq!(got[0]["answers"], "tools/call");
        assert_eq!(
            got[0]["bytes"],
            "{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{}}␍"
        );
        assert_eq!(got[0]["error"], false);
        assert_eq!(got[0]["n"], 1);
        assert_eq!(got[0]["dir"], "s2c");
    }
}
