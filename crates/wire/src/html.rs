//! `show FILE --html OUT.html`: one self-contained page (no network access: the
//! style and the few lines of script are inline) showing a recording as a sequence
//! diagram. A column per lane (each HTTP connection, the stdio pipe, stderr); a row
//! per thing that crossed: a head, an SSE event, a message, a stderr line, a lane
//! opening or closing, with its direction and time. Each row opens to the exact bytes
//! (invisible ones marked, as `--raw` marks them) and to `--explain`'s captions.

use super::decode::{Decoder, Fact, Source};
use super::event::{Dir, Event, What};
use super::transcript::Header;
use serde_json::Value;

/// The page for these events.
pub fn page(header: &Header, events: &[Event], max: usize) -> String {
    let mut lanes: Vec<String> = Vec::new();
    for e in events {
        let l = e.lane.label();
        if !lanes.contains(&l) {
            lanes.push(l);
        }
    }
    let mut rows = String::new();
    let mut decoder = Decoder::with_max(max);
    let mut asked = super::explain::Asked::default();
    let mut messages = 0usize;
    for e in events {
        let col = lanes.iter().position(|l| *l == e.lane.label()).unwrap_or(0) + 2;
        match &e.what {
            What::Open(peer) => rows.push_str(&row(
                e,
                col,
                "lane",
                &format!("{} opened: {peer}", e.lane.label()),
                "",
                &[],
            )),
            What::Close(why) => rows.push_str(&row(
                e,
                col,
                "lane",
                &format!("{} {} closed: {why}", e.lane.label(), e.dir.name()),
                "",
                &[],
            )),
            What::Tls(facts) => rows.push_str(&row(
                e,
                col,
                "lane",
                &format!("{} {}", e.lane.label(), facts.summary()),
                "",
                &[facts.chain_lines(), facts.explain()].concat(),
            )),
            What::Bytes(_) => {}
        }
        for fact in decoder.feed(e) {
            match fact {
                Fact::Head(h) => {
                    let notes = super::explain::head(&h);
                    rows.push_str(&row(e, col, "head", &h.start_line, &marked(&h.raw), &notes));
                }
                Fact::Sse(ev) if ev.data.is_empty() => {
                    rows.push_str(&row(
                        e,
                        col,
                        "sse",
                        "SSE event without data (priming)",
                        &marked(&ev.raw),
                        &[],
                    ));
                }
                Fact::Payload {
                    bytes,
                    source,
                    class,
                    ..
                } => {
                    messages += 1;
                    let answers = asked.answers(&class);
                    let value = serde_json::from_slice::<Value>(&bytes).ok();
                    let notes = super::explain::message(&class, value.as_ref(), answers.as_deref());
                    let kind = if class.is_message() { "msg" } else { "msg odd" };
                    let from = match source {
                        Source::SseData => " (SSE data)",
                        Source::Body => " (body)",
                        Source::Line => "",
                    };
                    let summary = match (answers, class.shape) {
                        (Some(m), "response" | "error") => {
                            format!("{} ← {m}{from}", class.summary())
                        }
                        _ => format!("{}{from}", class.summary()),
                    };
                    rows.push_str(&row(e, col, kind, &summary, &marked(&bytes), &notes));
                }
                Fact::Stderr(line) => {
                    rows.push_str(&row(
                        e,
                        col,
                        "stderr",
                        &String::from_utf8_lossy(&line),
                        &marked(&line),
                        &[],
                    ));
                }
                Fact::TooLong { len } => {
                    rows.push_str(&row(
                        e,
                        col,
                        "odd",
                        &format!(
                            "{len} bytes: longer than the page holds whole (--max-message-bytes)"
                        ),
                        "",
                        &[],
                    ));
                }
                Fact::Invalid(why) => rows.push_str(&row(
                    e,
                    col,
                    "odd",
                    &format!("not HTTP/1.1: {why}"),
                    "",
                    &[],
                )),
                Fact::Sse(_) | Fact::Chunk { .. } | Fact::End => {}
            }
        }
    }
    let heads: String = lanes
        .iter()
        .enumerate()
        .map(|(i, l)| {
            format!(
                "<div class=\"lanehead\" style=\"grid-column:{}\">{}</div>",
                i + 2,
                super::markup::html(l)
            )
        })
        .collect();
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>mcp-raw: {role} over {transport}, {started}</title>\n<style>{CSS}</style></head>\n<body>\n<h1>mcp-raw recording: {role} over {transport}</h1>\n<p class=\"meta\">started {started} · {n} events · <span id=\"count\">{messages}</span> payloads · lanes: {lanelist} · <button id=\"open\">open all</button> <button id=\"close\">close all</button></p>\n<p class=\"meta\">→ client to server (c2s) · ← server to client (s2c) · each row opens to its exact bytes (␍ a CR, ⟨xx⟩ a byte that is not printable UTF-8) and what the spec says about it</p>\n<div class=\"grid\" style=\"grid-template-columns: 7em repeat({cols}, minmax(14em, 1fr))\">\n<div class=\"lanehead\" style=\"grid-column:1\">time</div>{heads}\n{rows}</div>\n<script>{JS}</script>\n</body></html>\n",
        role = super::markup::html(&header.role),
        transport = super::markup::html(&header.transport),
        started = super::markup::html(&header.started),
        n = events.len(),
        lanelist = super::markup::html(&lanes.join(", ")),
        cols = lanes.len().max(1),
    )
}

/// One row: the time, then the thing in its lane's column.
fn row(e: &Event, col: usize, kind: &str, summary: &str, bytes: &str, notes: &[String]) -> String {
    let arrow = match e.dir {
        Dir::ToServer => "→",
        Dir::ToClient => "←",
    };
    let mut body = String::new();
    if !bytes.is_empty() {
        body.push_str(&format!("<pre class=\"bytes\">{bytes}</pre>"));
    }
    for n in notes {
        body.push_str(&format!(
            "<p class=\"note\">▸ {}</p>",
            super::markup::html(n)
        ));
    }
    let item = if body.is_empty() {
        format!(
            "<div class=\"{kind} {dir}\">{arrow} {}</div>",
            super::markup::html(summary),
            dir = e.dir.name()
        )
    } else {
        format!(
            "<details class=\"{kind} {dir}\"><summary>{arrow} {}</summary>{body}</details>",
            super::markup::html(summary),
            dir = e.dir.name()
        )
    };
    format!(
        "<div class=\"t\" style=\"grid-column:1\">+{:.6}s</div><div class=\"cell\" style=\"grid-column:{col}\" data-lane=\"{}\">{item}</div>\n",
        e.t.as_secs_f64(),
        super::markup::html(&e.lane.label())
    )
}

/// Bytes as `--raw` shows them, made safe for HTML.
fn marked(bytes: &[u8]) -> String {
    super::markup::html(&super::text::mark(bytes, &super::text::PLAIN))
}

const CSS: &str = "body{font:14px/1.4 system-ui,sans-serif;margin:1em;color:#222}h1{font-size:1.2em}\
.meta{color:#555}.grid{display:grid;gap:2px 8px;align-items:start}\
.lanehead{position:sticky;top:0;background:#eee;font-weight:bold;padding:2px 6px}\
.t{color:#888;font:12px monospace;padding-top:3px}.cell{min-width:0}\
details,.cell>div{border-left:3px solid #999;padding:1px 6px;background:#fafafa}\
.c2s{border-color:#2a6fdb}.s2c{border-color:#2a9d4b}.odd{background:#fff3f0;border-color:#d9534f}\
.lane{color:#888;font-style:italic}.stderr{color:#a33}\
summary{cursor:pointer;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}\
pre.bytes{white-space:pre-wrap;word-break:break-all;font:12px monospace;background:#fff;border:1px solid #ddd;padding:4px;margin:4px 0}\
.note{margin:2px 0;color:#7a5b00;font-size:13px}";

const JS: &str = "(function(){var d=document.querySelectorAll('details');\
document.getElementById('open').onclick=function(){d.forEach(function(x){x.open=true})};\
document.getElementById('close').onclick=function(){d.forEach(function(x){x.open=false})};\
console.log('mcp-raw page: '+document.querySelectorAll('.msg').length+' payloads');})();";
