//! `mcp-raw ui` and `--ui` through the real binary: the page's listener on loopback,
//! who it refuses (a wrong token, a foreign Host or Origin) and in what words, the
//! stream of a recording (whole, in order, resumed after `Last-Event-ID`), a file
//! followed as it grows, and a live server's page. The page itself runs in Chromium
//! in `scripts/ui.sh`.

mod common;
use common::BIN;
use common::cli_inproc::cli_here;
use common::http_client::Reader;
use mcp_raw_wire::rows::Rows;
use mcp_raw_wire::transcript;
use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};

/// A program started with a page: killed on drop.
struct Page {
    child: Child,
    /// `127.0.0.1:PORT` of the page.
    addr: String,
    /// The token in its URL.
    token: String,
    /// The rest of its stderr, line by line.
    stderr: std::io::Lines<BufReader<std::process::ChildStderr>>,
}

impl Drop for Page {
    fn drop(&mut self) {
        common::stop(&mut self.child);
    }
}

impl Page {
    fn start(args: &[&str]) -> Page {
        let child = Command::new(BIN)
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let page = Page::of(child);
        assert_eq!(
            page.token.len(),
            43,
            "32 random bytes, base64url: {}",
            page.token
        );
        page
    }

    /// The page `child` (its stderr piped) says it serves on its first stderr line.
    fn of(mut child: std::process::Child) -> Page {
        let mut stderr = BufReader::new(child.stderr.take().unwrap()).lines();
        let line = stderr.next().unwrap().unwrap();
        let url = line
            .strip_prefix("[mcp-raw] ui: http://")
            .unwrap_or_else(|| panic!("no page URL first on stderr: {line:?}"));
        let (addr, token) = url.split_once("?token=").unwrap();
        // `/` for one recording, `/diff.html` for two.
        let addr = addr.split_once('/').map_or(addr, |(a, _)| a);
        Page {
            addr: addr.to_owned(),
            token: token.to_owned(),
            child,
            stderr,
        }
    }

    /// `GET path` with these extra header lines; the whole response.
    fn get(&self, path: &str, extra: &str) -> common::HttpReply {
        let mut sock = TcpStream::connect(&self.addr).unwrap();
        let head = format!(
            "GET {path} HTTP/1.1\r\nHost: {}\r\n{extra}Connection: close\r\n\r\n",
            self.addr
        );
        sock.write_all(head.as_bytes()).unwrap();
        Reader::new(sock).reply()
    }

    /// `METHOD path` with a body; the whole response.
    fn send(&self, method: &str, path: &str, body: &str) -> common::HttpReply {
        let mut sock = TcpStream::connect(&self.addr).unwrap();
        let head = format!(
            "{method} {path} HTTP/1.1\r\nHost: {}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            self.addr,
            body.len()
        );
        sock.write_all(head.as_bytes()).unwrap();
        Reader::new(sock).reply()
    }

    /// The stream's events after `after` until the recording is whole: `(id, data)`.
    fn events(&self, after: Option<usize>) -> Vec<(String, String)> {
        self.events_of("", after)
    }

    /// [`events`](Self::events) of one side (`&side=b`) of two recordings.
    fn events_of(&self, side: &str, after: Option<usize>) -> Vec<(String, String)> {
        let extra = after.map_or(String::new(), |n| format!("Last-Event-ID: {n}\r\n"));
        let reply = self.get(&format!("/events?token={}{side}", self.token), &extra);
        assert_eq!(reply.header("content-type"), Some("text/event-stream"));
        let mut out = Vec::new();
        for e in reply.events() {
            if e.event.as_deref() == Some("end") {
                break;
            }
            if let Some(id) = &e.id {
                out.push((id.clone(), e.data.clone()));
            }
        }
        out
    }
}

/// A page's stream read event by event, as the page's EventSource would.
struct Events {
    reader: Reader,
    sse: mcp_raw_wire::sse::Decoder,
    ready: std::collections::VecDeque<mcp_raw_wire::sse::Event>,
}

impl Events {
    fn open(page: &Page) -> Events {
        let mut sock = TcpStream::connect(&page.addr).unwrap();
        let get = format!(
            "GET /events?token={} HTTP/1.1\r\nHost: {}\r\n\r\n",
            page.token, page.addr
        );
        sock.write_all(get.as_bytes()).unwrap();
        let mut reader = Reader::new(sock);
        assert_eq!(reader.head().status(), Some(200));
        Events {
            reader,
            sse: mcp_raw_wire::sse::Decoder::new(),
            ready: Default::default(),
        }
    }

    /// The next event; panics when none comes within 5 s.
    fn next(&mut self) -> mcp_raw_wire::sse::Event {
        loop {
            if let Some(e) = self.ready.pop_front() {
                return e;
            }
            let deadline = std::time::Instant::now() + common::http_client::WAIT;
            match self.reader.part(deadline) {
                Some(mcp_raw_wire::http1::Part::Body(b)) => self.ready.extend(self.sse.feed(&b)),
                Some(mcp_raw_wire::http1::Part::ChunkSize { .. }) => {}
                other => panic!("the stream gave {other:?} instead of an event"),
            }
        }
    }
}

/// What the stream must carry for `file`: each event's rows, read by the library.
fn expected(file: &std::path::Path) -> Vec<(String, String)> {
    let (_, events) = transcript::read(&std::fs::read_to_string(file).unwrap()).unwrap();
    let mut rows = Rows::with_max(mcp_raw_wire::decode::DEFAULT_MAX_MESSAGE);
    // check's findings go with the event they were found at (the same checker as
    // `mcp-raw check`).
    let mut checker = mcp_raw_tools::check::Checker::new();
    events
        .iter()
        .enumerate()
        .map(|(n, e)| {
            let rows = rows.feed(n, e);
            let found: Vec<_> = checker
                .feed(e)
                .iter()
                .map(mcp_raw_tools::ui::findings::json)
                .collect();
            let data = if found.is_empty() {
                serde_json::json!({"n": n, "rows": rows})
            } else {
                serde_json::json!({"n": n, "rows": rows, "findings": found})
            };
            (n.to_string(), data.to_string())
        })
        .collect()
}

fn demo_recording(dir: &std::path::Path, name: &str, demo: &str) -> std::path::PathBuf {
    let file = dir.join(name);
    let out = Command::new(BIN)
        .args([demo, "--color", "never", "--record"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    file
}

#[test]
fn a_recording_streams_whole_in_order_and_resumes_after_an_id() {
    let dir = common::scratch("ui", "whole");
    let file = demo_recording(&dir, "http.jsonl", "demo-http");
    let page = Page::start(&["ui", file.to_str().unwrap()]);
    let want = expected(&file);
    assert!(want.len() > 20, "{}", want.len());
    assert_eq!(page.events(None), want);
    // A page back after event 9 gets 10 on: nothing lost, nothing twice.
    assert_eq!(page.events(Some(9)), want[10..].to_vec());
    // /info: the recording's header and how many events it holds.
    let info = page.get(&format!("/info?token={}", page.token), "").json();
    let header = std::fs::read_to_string(&file).unwrap();
    let header: serde_json::Value = serde_json::from_str(header.lines().next().unwrap()).unwrap();
    assert_eq!(
        info,
        serde_json::json!({"header": header, "events": want.len(), "resend": false, "resend_rows": null, "intercept": null})
    );
}

#[test]
fn the_page_is_served_from_the_binary_and_the_data_only_with_the_token() {
    let dir = common::scratch("ui", "refusals");
    let file = demo_recording(&dir, "stdio.jsonl", "demo");
    let page = Page::start(&["ui", file.to_str().unwrap()]);
    let index = page.get("/", "");
    assert_eq!(index.status, 200);
    assert_eq!(
        index.text(),
        include_str!("../crates/wire/src/page/index.html")
    );
    // Nothing the page loads may come from elsewhere, nor its URL leave in a Referer
    // (`connection: close` is hyper answering the request's own).
    let head = String::from_utf8_lossy(&index.raw);
    let head = &head[..head.find("\r\n\r\n").unwrap() + 4];
    let date = index.header("date").unwrap();
    assert_eq!(
        head.replace(date, "DATE"),
        format!(
            "HTTP/1.1 200 OK\r\ncontent-type: text/html; charset=utf-8\r\ncontent-security-policy: default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'\r\ncache-control: no-store\r\nreferrer-policy: no-referrer\r\nx-content-type-options: nosniff\r\nconnection: close\r\ncontent-length: {}\r\ndate: DATE\r\n\r\n",
            index.body.len()
        )
    );
    for (path, extra, status, text) in [
        (
            "/events".to_owned(),
            String::new(),
            403,
            "Forbidden: the token is missing or wrong; open the URL printed when the ui started\n"
                .to_owned(),
        ),
        (
            "/info?token=nope".to_owned(),
            String::new(),
            403,
            "Forbidden: the token is missing or wrong; open the URL printed when the ui started\n"
                .to_owned(),
        ),
        (
            format!("/events?token={}", page.token),
            "Origin: http://127.0.0.1:1\r\n".to_owned(),
            403,
            format!(
                "Forbidden: Origin \"http://127.0.0.1:1\" is not this page's own (http://{}); another page may not read the stream\n",
                page.addr
            ),
        ),
        (
            "/nowhere".to_owned(),
            String::new(),
            404,
            "Not Found: /nowhere (the page is at /)\n".to_owned(),
        ),
        (
            format!("/events?token={}", page.token),
            "Last-Event-ID: x\r\n".to_owned(),
            400,
            "Bad Request: Last-Event-ID \"x\" is not an event position this stream gave\n"
                .to_owned(),
        ),
    ] {
        let r = page.get(&path, &extra);
        assert_eq!((r.status, r.text()), (status, text), "{path} {extra:?}");
    }
    // A name re-pointed at 127.0.0.1 (DNS rebinding): refused before anything else.
    let mut sock = TcpStream::connect(&page.addr).unwrap();
    sock.write_all(b"GET / HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n")
        .unwrap();
    let r = Reader::new(sock).reply();
    assert_eq!(
        (r.status, r.text()),
        (403, "Forbidden: Host \"evil.example\" is not a host this server answers to (localhost, 127.0.0.1, [::1], or one given with --allow-host); DNS-rebinding protection\n".to_owned())
    );
    // The page's own origin may read.
    let own = page.get(
        &format!("/info?token={}", page.token),
        &format!("Origin: http://{}\r\n", page.addr),
    );
    assert_eq!(own.status, 200);
}

#[test]
fn a_followed_recording_streams_what_is_appended() {
    let dir = common::scratch("ui", "follow");
    let whole = demo_recording(&dir, "stdio.jsonl", "demo");
    let text = std::fs::read_to_string(&whole).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    // The header and three events first; the rest appended once the page is up.
    let growing = dir.join("growing.jsonl");
    std::fs::write(&growing, lines[..4].join("\n") + "\n").unwrap();
    let page = Page::start(&["ui", "--follow", growing.to_str().unwrap()]);
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&growing)
        .unwrap();
    f.write_all((lines[4..].join("\n") + "\n").as_bytes())
        .unwrap();
    drop(f);
    // A followed file never ends: read the stream until it holds every event.
    let want = expected(&whole);
    let mut stream = Events::open(&page);
    let mut got = Vec::new();
    while got.len() < want.len() {
        let e = stream.next();
        if let Some(id) = e.id.clone() {
            got.push((id, e.data.clone()));
        }
    }
    assert_eq!(got, want);
}

#[test]
fn a_live_server_shows_each_request_as_it_comes() {
    let mut page = Page::start(&["serve", "--http", "--port", "0", "--ui"]);
    let listening = page.stderr.next().unwrap().unwrap();
    let mcp = listening
        .split("listening on ")
        .nth(1)
        .unwrap_or_else(|| panic!("{listening}"))
        .to_owned();
    call_add(&mcp, r#"add={"a":2,"b":3}"#);
    // The server's page holds the call and its answer, as the server saw them.
    let mut stream = Events::open(&page);
    let mut summaries = Vec::new();
    while !summaries
        .iter()
        .any(|s: &String| s.starts_with("response") && s.ends_with("← tools/call (SSE data)"))
    {
        let e = stream.next();
        let data: serde_json::Value = serde_json::from_str(&e.data).unwrap_or_default();
        for row in data["rows"].as_array().into_iter().flatten() {
            if row["kind"] == "msg" {
                summaries.push(row["summary"].as_str().unwrap().to_owned());
            }
        }
    }
    let call = summaries
        .iter()
        .find(|s| s.starts_with("request tools/call"))
        .unwrap_or_else(|| panic!("{summaries:?}"));
    assert!(call.ends_with(" add (body)"), "{call}");
}

#[test]
fn a_file_that_is_no_recording_is_refused_with_status_2() {
    let dir = common::scratch("ui", "bad");
    let not = dir.join("not.jsonl");
    std::fs::write(&not, "{\"hello\": 1}\n").unwrap();
    let empty = dir.join("empty.jsonl");
    std::fs::write(&empty, "").unwrap();
    for (file, want) in [
        (
            empty.clone(),
            format!(
                "mcp-raw: {} is empty: not a transcript (its first line is the header)\n",
                empty.display()
            ),
        ),
        (
            dir.join("missing.jsonl"),
            format!(
                "mcp-raw: cannot read {}: No such file or directory (os error 2)\n",
                dir.join("missing.jsonl").display()
            ),
        ),
        (
            not.clone(),
            format!(
                "mcp-raw: {} is not a transcript mcp-raw can read: line 1: {}\n",
                not.display(),
                transcript::header_of_line("{\"hello\": 1}").unwrap_err()
            ),
        ),
    ] {
        // Refused before anything is served: in-process.
        let out = cli_here(["ui".as_ref(), file.as_os_str()]);
        assert_eq!(out.status.code(), Some(2));
        assert_eq!(String::from_utf8_lossy(&out.stderr), want);
    }
}

#[test]
fn two_recordings_are_compared_as_diff_reads_them_and_each_is_served_whole() {
    let dir = common::scratch("ui", "pair");
    let a = dir.join("legacy.jsonl");
    let b = dir.join("modern.jsonl");
    for (file, era) in [(&a, "legacy"), (&b, "modern")] {
        let out = Command::new(BIN)
            .args(["demo", "--era", era, "--color", "never", "--record"])
            .arg(file)
            .output()
            .unwrap();
        assert!(out.status.success());
    }
    let (a, b) = (a.to_str().unwrap(), b.to_str().unwrap());
    let page = Page::start(&["ui", a, b]);
    let index = page.get("/diff.html", "");
    assert_eq!(
        index.text(),
        include_str!("../crates/wire/src/page/diff.html")
    );
    let doc = page.get(&format!("/diff?token={}", page.token), "").json();
    // The same differences, in the same words, as `mcp-raw diff` prints.
    let out = cli_here(["diff", "--format", "json", a, b]);
    assert_eq!(out.status.code(), Some(1));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut said: Vec<(String, u64, String)> = report["differences"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            let s = |k: &str| d[k].as_str().unwrap().to_owned();
            (s("dir"), d["n"].as_u64().unwrap(), s("detail"))
        })
        .collect();
    let mut shown: Vec<(String, u64, String)> = doc["pairs"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| !p["diff"].is_null())
        .map(|p| {
            (
                p["dir"].as_str().unwrap().to_owned(),
                p["n"].as_u64().unwrap(),
                p["diff"]["detail"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    said.sort();
    shown.sort();
    assert!(said.len() > 5, "{said:?}");
    assert_eq!(shown, said);
    assert_eq!(doc["differences"], said.len());
    // Every message of both, each once: one pair per message of the longer side.
    let count = |side: &str, dir: &str| report[side][dir].as_u64().unwrap();
    let pairs = doc["pairs"].as_array().unwrap().len() as u64;
    assert_eq!(
        pairs,
        count("a", "c2s").max(count("b", "c2s")) + count("a", "s2c").max(count("b", "s2c"))
    );
    // The first difference of the demos is the first request's method: its path.
    let first = doc["pairs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| !p["diff"].is_null())
        .unwrap();
    assert_eq!(first["diff"]["at"], serde_json::json!(["method"]));
    // Each side is its own page: A without side=, B with side=b.
    assert_eq!(page.events(None), expected(std::path::Path::new(a)));
    assert_eq!(
        page.events_of("&side=b", None),
        expected(std::path::Path::new(b))
    );
    let wrong = page.get(&format!("/events?token={}&side=c", page.token), "");
    assert_eq!(wrong.status, 404);
    assert_eq!(
        wrong.text(),
        "Not Found: side=\"c\"; this page has two recordings (side=a or side=b)\n"
    );
    // One recording's page has no /diff.
    let one = Page::start(&["ui", a]);
    let none = one.get(&format!("/diff?token={}", one.token), "");
    assert_eq!(
        (none.status, none.text().as_str()),
        (
            404,
            "Not Found: /diff compares two recordings (mcp-raw ui A B); this page shows one\n"
        )
    );
    // What goes with one recording only, or with two only, is refused with status 2.
    for (args, want) in [
        (
            vec!["ui", "--follow", a, b],
            "mcp-raw: --follow reads one growing recording; two (A B) are compared whole\n",
        ),
        (
            vec!["ui", "--ignore", "id", a],
            "mcp-raw: --ignore goes with two recordings (mcp-raw ui A B): it says what their comparison leaves out\n",
        ),
    ] {
        // Refused before anything is served: in-process.
        let out = cli_here(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert_eq!(String::from_utf8_lossy(&out.stderr), want);
    }
}

#[test]
fn an_export_is_the_recording_or_the_events_a_page_names_and_bad_lists_are_refused() {
    let dir = common::scratch("ui", "export");
    let file = demo_recording(&dir, "stdio.jsonl", "demo");
    let page = Page::start(&["ui", "--ui-max-body-bytes", "64", file.to_str().unwrap()]);
    let path = |p: &str| format!("{p}?token={}", page.token);
    // The page is served while the file is read: its stream's end says it is whole.
    page.events(None);
    // The whole, read back: the file as --record wrote it, byte for byte.
    let whole = page.get(&path("/export.jsonl"), "");
    assert_eq!(whole.status, 200);
    assert_eq!(
        whole.header("content-type"),
        Some("application/jsonl; charset=utf-8")
    );
    let disposition = whole.header("content-disposition").unwrap().to_owned();
    assert!(
        disposition.starts_with("attachment; filename=\"mcp-raw-client-")
            && disposition.ends_with(".jsonl\""),
        "{disposition}"
    );
    let recorded = std::fs::read(&file).unwrap();
    if whole.body != recorded {
        let at = whole
            .body
            .iter()
            .zip(&recorded)
            .take_while(|(a, b)| a == b)
            .count();
        panic!(
            "the export differs from the file at byte {at} (of {} and {}): {:?} vs {:?}",
            whole.body.len(),
            recorded.len(),
            String::from_utf8_lossy(
                &whole.body[at.saturating_sub(80)..(at + 80).min(whole.body.len())]
            ),
            String::from_utf8_lossy(
                &recorded[at.saturating_sub(80)..(at + 80).min(recorded.len())]
            ),
        );
    }
    // Events 2 and 4-5: the header, then exactly those events' lines and their facts.
    let some = page.send("POST", &path("/export.jsonl"), "2,4-5");
    assert_eq!(some.status, 200, "{}", some.text());
    let events: Vec<String> = some
        .text()
        .lines()
        .skip(1)
        .filter(|l| !l.contains("\"fact\""))
        .map(str::to_owned)
        .collect();
    let all: Vec<String> = String::from_utf8(whole.body.clone())
        .unwrap()
        .lines()
        .skip(1)
        .filter(|l| !l.contains("\"fact\""))
        .map(str::to_owned)
        .collect();
    assert_eq!(events, [all[2].clone(), all[4].clone(), all[5].clone()]);
    assert!(
        some.header("content-disposition")
            .unwrap()
            .ends_with("-shown.jsonl\"")
    );
    // The frozen page of the whole: show --html's.
    let html = page.get(&path("/export.html"), "");
    assert!(html.text().starts_with("<!DOCTYPE html>"));
    assert!(
        html.text()
            .contains("<script type=\"application/json\" id=\"recording\">")
    );
    // Bad input: said, quoted, with the status that fits.
    for (method, body, status, want) in [
        (
            "POST",
            "1,x",
            400,
            "Bad Request: the events to export: \"x\" is not an event position or a range of them (0-4,7)\n",
        ),
        (
            "POST",
            "",
            400,
            "Bad Request: the events to export: no event positions: the filters show no row\n",
        ),
        (
            "POST",
            "9999",
            422,
            &format!(
                "Unprocessable Content: event 9999 is not in the recording ({} events so far)\n",
                all.len()
            ),
        ),
        (
            "POST",
            &"1,".repeat(40),
            413,
            "Payload Too Large: the body exceeds the 64-byte limit (--ui-max-body-bytes)\n",
        ),
        (
            "PUT",
            "1",
            405,
            "Method Not Allowed: PUT /export.jsonl; an export is read (GET, the whole recording) or asked for (POST, the events listed)\n",
        ),
    ] {
        let r = page.send(method, &path("/export.jsonl"), body);
        assert_eq!(
            (r.status, r.text().as_str()),
            (status, want),
            "{method} {body}"
        );
    }
    // Without the token, nothing.
    let r = page.send("POST", "/export.jsonl", "1");
    assert_eq!(r.status, 403);
}

#[test]
fn a_tapped_request_edited_on_the_page_is_sent_again_through_the_tap() {
    let dir = common::scratch("ui", "resend");
    // `serve --http`, in-process: the tap and its page are the subject, not the server.
    let server = common::InProcess::demo();
    let target = format!("http://{}/mcp", server.addr);
    let record = dir.join("tap.jsonl");
    let mut page = Page::start(&[
        "tap",
        "--http",
        "--listen",
        "127.0.0.1:0",
        "--target",
        &target,
        "--ui",
        "--record",
        record.to_str().unwrap(),
    ]);
    let line = page.stderr.next().unwrap().unwrap();
    let tap = line
        .split("listening on ")
        .nth(1)
        .and_then(|rest| rest.split(',').next())
        .unwrap_or_else(|| panic!("{line}"))
        .to_owned();
    call_add(&tap, r#"add={"a":1,"b":2}"#);
    let info = page.get(&format!("/info?token={}", page.token), "").json();
    assert_eq!(info["resend"], true);
    // The tools/call request as the page has it: its event and its exact body.
    let mut events = Events::open(&page);
    let (n, call) = row_where(&mut events, |r| {
        r["dir"] == "c2s"
            && r["summary"]
                .as_str()
                .is_some_and(|s| s.starts_with("request tools/call"))
    });
    let body = call["bytes"].as_str().unwrap().to_owned();
    let edited = body.replace(r#""a":1"#, r#""a":40"#);
    assert_ne!(edited, body);
    let ask = serde_json::json!({"event": n, "message": edited}).to_string();
    let sent = page.send("POST", &format!("/resend?token={}", page.token), &ask);
    assert_eq!(sent.status, 202, "{}", sent.text());
    let from = sent.json()["from"].as_str().unwrap().to_owned();
    // Its answer arrives as rows of a new connection: the lane the tap opened for it
    // (accepted from the resend's address), then the result of 40 + 2.
    let mut lane = None;
    let answer = loop {
        let e = events.next();
        let Ok(data) = serde_json::from_str::<serde_json::Value>(&e.data) else {
            continue;
        };
        let rows = data["rows"].as_array().cloned().unwrap_or_default();
        for r in &rows {
            let opened = format!("opened: accepted from {from},");
            if r["summary"]
                .as_str()
                .is_some_and(|s| s.starts_with(&opened))
            {
                lane = Some(r["lane"].clone());
            }
        }
        let answered = rows
            .iter()
            .find(|r| lane.as_ref() == Some(&r["lane"]) && r["dir"] == "s2c" && r["kind"] == "msg");
        if let Some(r) = answered {
            break r["bytes"].as_str().unwrap().to_owned();
        }
    };
    assert!(answer.contains(r#""text":"42""#), "{answer}");
    // What was resent, in the tap's own recording: the edited body after the
    // recorded head, framed by the resend itself.
    let recorded = std::fs::read_to_string(&record).unwrap();
    assert!(
        recorded.contains(r#"\"a\":40"#),
        "the resend is not in the recording"
    );
    assert!(recorded.contains(&format!(
        "Connection: close\\r\\n\\r\\n{}",
        edited.replace('"', "\\\"")
    )));
    // Bad asks: said, with the status that fits.
    for (ask, status, want) in [
        ("{", 400, "Bad Request: resend: the body is not JSON: EOF while parsing an object at line 1 column 1\n".to_owned()),
        (r#"{"event": 1}"#, 400, "Bad Request: resend: \"message\" (the JSON to send, as text) is missing\n".to_owned()),
        (&*format!(r#"{{"event": {n}, "message": "{{nope"}}"#), 422, "Unprocessable Content: resend: the edited message is not JSON: key must be a string at line 1 column 2\n".to_owned()),
        (r#"{"event": 0, "message": "{}"}"#, 422, "Unprocessable Content: resend: event 0 is no bytes a client sent (a connection's opening, close or handshake)\n".to_owned()),
    ] {
        let r = page.send("POST", &format!("/resend?token={}", page.token), ask);
        assert_eq!((r.status, r.text()), (status, want), "{ask}");
    }
    drop(server);
}

#[test]
fn a_held_message_is_forwarded_edited_dropped_or_let_go_at_its_deadline() {
    let dir = common::scratch("ui", "intercept");
    let record = dir.join("tap.jsonl");
    let mut child = Command::new(BIN)
        .args([
            "tap",
            "--ui",
            "--intercept",
            "method:tools/call",
            "--intercept-timeout",
            "1",
            "--record",
        ])
        .arg(&record)
        .args(["--", BIN, "serve"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = BufReader::new(child.stderr.take().unwrap()).lines();
    let mut to_tap = child.stdin.take().unwrap();
    let mut from_tap = BufReader::new(child.stdout.take().unwrap()).lines();
    let url = stderr.next().unwrap().unwrap();
    let url = url
        .strip_prefix("[mcp-raw] ui: http://")
        .unwrap_or_else(|| panic!("{url}"));
    let (addr, token) = url.split_once("/?token=").unwrap();
    let page = Page {
        addr: addr.to_owned(),
        token: token.to_owned(),
        child,
        stderr,
    };
    let mut say = |line: &str| {
        to_tap.write_all(format!("{line}\n").as_bytes()).unwrap();
        to_tap.flush().unwrap();
    };
    say(
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}"#,
    );
    assert!(
        from_tap
            .next()
            .unwrap()
            .unwrap()
            .contains(r#""id":1,"result""#)
    );
    say(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    let info = page.get(&format!("/info?token={}", page.token), "").json();
    assert_eq!(
        info["intercept"],
        serde_json::json!({"filter": "method:tools/call", "timeout": 1.0})
    );
    let mut events = Events::open(&page);
    let mut held = || {
        let (_, r) = row_where(&mut events, |r| r["step"] == "held");
        r["hold"].as_u64().unwrap()
    };
    let decide = |ask: serde_json::Value| {
        page.send(
            "POST",
            &format!("/intercept?token={}", page.token),
            &ask.to_string(),
        )
    };
    // 1: held, then forwarded as edited: the server answers the edited call.
    say(
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}"#,
    );
    let one = held();
    let r = decide(
        serde_json::json!({"hold": one, "action": "change", "message": "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"add\",\"arguments\":{\"a\":40,\"b\":2}}}"}),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let answer = from_tap.next().unwrap().unwrap();
    assert!(answer.contains(r#""text":"42""#), "{answer}");
    // Decided twice: the second is refused, said.
    let again = decide(serde_json::json!({"hold": one, "action": "drop"}));
    assert_eq!(
        (again.status, again.text()),
        (
            409,
            format!(
                "Conflict: hold #{one} is not waiting (already decided, past its deadline, or never held)\n"
            )
        )
    );
    // 2: dropped: the server never sees it; the ping after it passes (nothing else
    // was held behind it).
    say(
        r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"add","arguments":{"a":5,"b":5}}}"#,
    );
    let two = held();
    assert_eq!(
        decide(serde_json::json!({"hold": two, "action": "drop"})).status,
        200
    );
    say(r#"{"jsonrpc":"2.0","id":4,"method":"ping"}"#);
    assert_eq!(
        from_tap.next().unwrap().unwrap(),
        r#"{"jsonrpc":"2.0","id":4,"result":{}}"#
    );
    // 3: no decision: after --intercept-timeout it is forwarded unchanged.
    say(
        r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"add","arguments":{"a":2,"b":3}}}"#,
    );
    let three = held();
    assert!(from_tap.next().unwrap().unwrap().contains(r#""text":"5""#));
    // Bad asks, said.
    let bad = decide(serde_json::json!({"hold": three, "action": "pause"}));
    assert_eq!(
        (bad.status, bad.text()),
        (
            400,
            "Bad Request: /intercept: \"action\" Some(\"pause\") is not forward, change or drop\n"
                .to_owned()
        )
    );
    let filter = page.send(
        "POST",
        &format!("/intercept/filter?token={}", page.token),
        r#"{"filter":"methd:x"}"#,
    );
    assert_eq!(
        (filter.status, filter.text()),
        (400, "Bad Request: the filter: \"methd:x\": \"methd\" is not a key a filter knows (method, tool, dir, id)\n".to_owned())
    );
    // The recording marks each step; the lane's bytes are what the server got.
    let recorded = std::fs::read_to_string(&record).unwrap();
    let steps: Vec<String> = recorded
        .lines()
        .filter_map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).ok()?;
            let i = v.get("intercept")?;
            Some(format!("{} #{}", i["step"].as_str()?, i["hold"]))
        })
        .collect();
    assert_eq!(
        steps,
        [
            format!("held #{one}"),
            format!("changed #{one}"),
            format!("held #{two}"),
            format!("dropped #{two}"),
            format!("held #{three}"),
            format!("expired #{three}"),
        ]
    );
    let (_, events) = transcript::read(&recorded).unwrap();
    let to_server = String::from_utf8(bytes_of(&events, |e| {
        e.dir == mcp_raw_wire::event::Dir::ToServer
    }))
    .unwrap();
    assert!(
        to_server.contains(r#""arguments":{"a":40,"b":2}"#),
        "{to_server}"
    );
    assert!(
        !to_server.contains(r#""a":1,"b":2"#),
        "the original of a changed message crossed: {to_server}"
    );
    assert!(
        !to_server.contains(r#""a":5,"b":5"#),
        "a dropped message crossed: {to_server}"
    );
    assert!(to_server.contains(r#""arguments":{"a":2,"b":3}"#));
}

/// A stdio tap started with its page: the client's pipes, and the page.
struct StdioTap {
    page: Page,
    /// The client's end of the tap's stdin; none once the client closed it.
    to_tap: Option<std::process::ChildStdin>,
    from_tap: std::process::ChildStdout,
}

impl StdioTap {
    fn start(tap: &[&str], server: &[&str]) -> StdioTap {
        let mut child = Command::new(BIN)
            .arg("tap")
            .args(tap)
            .arg("--")
            .args(server)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let to_tap = child.stdin.take().unwrap();
        let from_tap = child.stdout.take().unwrap();
        StdioTap {
            page: Page::of(child),
            to_tap: Some(to_tap),
            from_tap,
        }
    }

    /// The client writes these bytes to the tap.
    fn say(&mut self, bytes: &str) {
        let to = self.to_tap.as_mut().unwrap();
        to.write_all(bytes.as_bytes()).unwrap();
        to.flush().unwrap();
    }

    /// `POST /resend` of `message` (as if edited from event `n`): status and text.
    fn resend(&self, n: u64, message: &str) -> (u16, String) {
        let ask = serde_json::json!({"event": n, "message": message}).to_string();
        let r = self
            .page
            .send("POST", &format!("/resend?token={}", self.page.token), &ask);
        (r.status, r.text())
    }
}

/// The first row on `events` that `pick` keeps, with its event's position.
fn row_where(
    events: &mut Events,
    pick: impl Fn(&serde_json::Value) -> bool,
) -> (u64, serde_json::Value) {
    loop {
        let e = events.next();
        let Ok(data) = serde_json::from_str::<serde_json::Value>(&e.data) else {
            continue;
        };
        if let Some(r) = data["rows"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|r| pick(r))
        {
            return (data["n"].as_u64().unwrap(), r.clone());
        }
    }
}

/// The bytes of a recording's events that `keep` keeps, concatenated.
fn bytes_of(
    events: &[mcp_raw_wire::event::Event],
    keep: impl Fn(&mcp_raw_wire::event::Event) -> bool,
) -> Vec<u8> {
    events
        .iter()
        .filter(|e| keep(e))
        .filter_map(|e| match &e.what {
            mcp_raw_wire::event::What::Bytes(b) => Some(b.to_vec()),
            _ => None,
        })
        .flatten()
        .collect()
}

/// The bytes of one direction of a recording's stdio lane, concatenated.
fn lane_bytes(events: &[mcp_raw_wire::event::Event], dir: mcp_raw_wire::event::Dir) -> String {
    String::from_utf8(bytes_of(events, |e| {
        e.dir == dir && e.lane.kind == mcp_raw_wire::event::LaneKind::Stdio
    }))
    .unwrap()
}

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}"#;

#[test]
fn a_stdio_taps_page_resends_a_request_whose_answer_the_client_never_sees() {
    use mcp_raw_wire::event::{Dir, What};
    let dir = common::scratch("ui", "stdio-resend");
    let record = dir.join("tap.jsonl");
    let mut tap = StdioTap::start(
        &["--ui", "--record", record.to_str().unwrap()],
        &[BIN, "serve"],
    );
    let mut events = Events::open(&tap.page);
    tap.say(&format!("{INITIALIZE}\n"));
    tap.say("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n");
    let call = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}"#;
    tap.say(&format!("{call}\n"));
    // The call as the page has it; then its answer (so id 2 is no longer in flight).
    let (n, row) = row_where(&mut events, |r| {
        r["dir"] == "c2s" && r["kind"] == "msg" && r["method"] == "tools/call"
    });
    assert_eq!(row["bytes"], call);
    row_where(&mut events, |r| r["dir"] == "s2c" && r["id"] == "2");
    let info = tap
        .page
        .get(&format!("/info?token={}", tap.page.token), "")
        .json();
    assert_eq!(
        (&info["resend"], &info["resend_rows"]),
        (&serde_json::json!(true), &serde_json::json!("requests"))
    );
    let edited = call.replace(r#""a":1"#, r#""a":40"#);
    let (status, said) = tap.resend(n, &edited);
    assert_eq!(status, 202, "{said}");
    let said: serde_json::Value = serde_json::from_str(&said).unwrap();
    let number = said["resend"].as_u64().unwrap();
    assert_eq!(
        said,
        serde_json::json!({"resend": number, "id": 2, "sent": format!("{edited}\n")})
    );
    // The page sees the resend marked, then its answer as a new row.
    let (_, resent) = row_where(&mut events, |r| r["step"] == "resent");
    assert_eq!(resent["bytes"], edited);
    let (_, answered) = row_where(&mut events, |r| r["step"] == "answered");
    assert_eq!(answered["hold"], number);
    let answer = answered["bytes"].as_str().unwrap().to_owned();
    assert!(answer.contains(r#""text":"42""#), "{answer}");
    // The client goes on: a ping answered as ever; then it ends the session.
    tap.say("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}\n");
    row_where(&mut events, |r| r["dir"] == "s2c" && r["id"] == "3");
    // Refused, said whole: each with its status.
    let refusals = [
        (
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            422,
            "Unprocessable Content: resend: \"notifications/initialized\" is a notification (no \"id\"): it gets no answer to show; the page resends requests (give it an \"id\")\n",
        ),
        (
            r#"{"jsonrpc":"2.0","id":5,"result":{}}"#,
            422,
            "Unprocessable Content: resend: a response (to id 5): it answers what the server asked the client, once, and only the client may; the page resends requests\n",
        ),
        (
            r#"[{"jsonrpc":"2.0","id":5,"method":"ping"}]"#,
            422,
            "Unprocessable Content: resend: a batch (a JSON array): the page resends one request at a time\n",
        ),
        (
            r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#,
            422,
            "Unprocessable Content: resend: \"id\" null is not a string or an integer (MCP 2025-11-25 basic: a request's id MUST be one)\n",
        ),
        (
            "{nope",
            422,
            "Unprocessable Content: resend: the edited message is not JSON: key must be a string at line 1 column 2\n",
        ),
    ];
    for (message, status, text) in refusals {
        assert_eq!(
            tap.resend(n, message),
            (status, text.to_owned()),
            "{message}"
        );
    }
    assert_eq!(
        tap.resend(0, r#"{"jsonrpc":"2.0","id":9,"method":"ping"}"#),
        (422, "Unprocessable Content: resend: event 0 is no bytes a client sent (a lane's opening, close or mark, or the server's)\n".to_owned())
    );
    let bad = tap
        .page
        .send("POST", &format!("/resend?token={}", tap.page.token), "{");
    assert_eq!(
        (bad.status, bad.text()),
        (400, "Bad Request: resend: the body is not JSON: EOF while parsing an object at line 1 column 1\n".to_owned())
    );
    tap.to_tap = None;
    let mut got = String::new();
    std::io::Read::read_to_string(&mut tap.from_tap, &mut got).unwrap();
    // The tap's work is done (the recording whole); its page stays.
    assert!(
        tap.page
            .stderr
            .by_ref()
            .map_while(Result::ok)
            .any(|l| l.contains("ui: done")),
        "the tap did not finish"
    );
    // The client got exactly the server's answers to its own three requests: what
    // the recording's lane says crossed to it, and not the resend's answer.
    let recorded = std::fs::read_to_string(&record).unwrap();
    let (_, recording) = transcript::read(&recorded).unwrap();
    assert_eq!(got, lane_bytes(&recording, Dir::ToClient));
    assert_eq!(got.lines().count(), 3, "{got}");
    assert!(!got.contains(r#""text":"42""#), "{got}");
    // The server got the client's lines and the resend between them, whole.
    assert_eq!(
        lane_bytes(&recording, Dir::ToServer),
        format!(
            "{INITIALIZE}\n{{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}}\n{call}\n{edited}\n{{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}}\n"
        )
    );
    // The recording marks the resend before its bytes, and keeps its answer.
    let marks: Vec<(String, u64, String)> = recording
        .iter()
        .filter_map(|e| match &e.what {
            What::Intercept(i) => Some((
                i.step.name().to_owned(),
                i.hold,
                String::from_utf8_lossy(&i.bytes).into_owned(),
            )),
            _ => None,
        })
        .collect();
    assert_eq!(
        marks,
        [
            ("resent".to_owned(), number, format!("{edited}\n")),
            ("answered".to_owned(), number, format!("{answer}\n")),
        ]
    );
    let at = |want: &dyn Fn(&What) -> bool| recording.iter().position(|e| want(&e.what)).unwrap();
    let mark = at(&|w| matches!(w, What::Intercept(i) if i.step.name() == "resent"));
    let bytes = at(&|w| matches!(w, What::Bytes(b) if b.starts_with(edited.as_bytes())));
    assert_eq!(bytes, mark + 1, "the resend's bytes follow its mark");
    // check reads the kept answer as the server's: the resend is answered; it did
    // reuse the client's id 2, which the spec forbids, and check says so.
    let checked = cli_here(["check".as_ref(), record.as_os_str()]);
    let said = String::from_utf8_lossy(&checked.stdout);
    assert!(
        said.contains("error jsonrpc/duplicate-id: request tools/call reuses id 2, used before in this session"),
        "{said}"
    );
    assert!(!said.contains("jsonrpc/unanswered"), "{said}");
}

#[test]
fn a_page_with_no_live_session_refuses_to_resend_and_says_which_pages_can() {
    let dir = common::scratch("ui", "no-resend");
    let file = demo_recording(&dir, "demo.jsonl", "demo");
    let page = Page::start(&["ui", file.to_str().unwrap()]);
    let r = page.send(
        "POST",
        &format!("/resend?token={}", page.token),
        r#"{"event": 1, "message": "{}"}"#,
    );
    assert_eq!(
        (r.status, r.text()),
        (409, "Conflict: this page cannot resend: the pages of an HTTP tap (tap --http --ui, plain listener), a stdio tap (tap --ui) and a client (client --ui) send requests again\n".to_owned())
    );
}

#[test]
fn a_resend_is_not_behind_a_message_the_tap_holds() {
    let mut tap = StdioTap::start(
        &["--ui", "--intercept", "method:tools/call"],
        &[BIN, "serve"],
    );
    let mut events = Events::open(&tap.page);
    tap.say(&format!("{INITIALIZE}\n"));
    // The page resends from the initialize request's row.
    let (n, _) = row_where(&mut events, |r| r["kind"] == "msg" && r["dir"] == "c2s");
    tap.say("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n");
    let call = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}"#;
    tap.say(&format!("{call}\n"));
    let (_, held) = row_where(&mut events, |r| r["step"] == "held");
    // The call waits on the page; the page's own request goes to the server now.
    let (status, said) = tap.resend(n, r#"{"jsonrpc":"2.0","id":"p","method":"tools/call","params":{"name":"add","arguments":{"a":20,"b":22}}}"#);
    assert_eq!(status, 202, "{said}");
    let (_, answered) = row_where(&mut events, |r| r["step"] == "answered");
    assert_eq!(answered["id"], "\"p\"");
    assert!(
        answered["bytes"]
            .as_str()
            .unwrap()
            .contains(r#""text":"42""#),
        "{answered}"
    );
    let decided = tap.page.send(
        "POST",
        &format!("/intercept?token={}", tap.page.token),
        &serde_json::json!({"hold": held["hold"], "action": "forward"}).to_string(),
    );
    assert_eq!(decided.status, 200, "{}", decided.text());
    tap.to_tap = None;
    let mut got = String::new();
    std::io::Read::read_to_string(&mut tap.from_tap, &mut got).unwrap();
    // The client got its two answers, and nothing of the page's.
    let ids: Vec<serde_json::Value> = got
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["id"].clone())
        .collect();
    assert_eq!(ids, [serde_json::json!(1), serde_json::json!(2)], "{got}");
    assert!(got.contains(r#""text":"3""#), "{got}");
}

#[test]
fn a_stdio_tap_refuses_a_resend_it_could_not_tell_apart_or_place() {
    // A server that reads nothing and answers nothing: the client's requests stay
    // in flight.
    let mut tap = StdioTap::start(
        &["--ui", "--max-message-bytes", "1024"],
        &["sh", "-c", "sleep 30"],
    );
    let mut events = Events::open(&tap.page);
    tap.say("{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"method\":\"ping\"}\n");
    let (n, _) = row_where(&mut events, |r| r["dir"] == "c2s" && r["kind"] == "msg");
    assert_eq!(
        tap.resend(n, r#"{"jsonrpc":"2.0","id":"a","method":"ping"}"#),
        (409, "Conflict: resend: id \"a\" is in flight from the client (its request is not answered yet): the server's two answers could not be told apart; give the resend another id\n".to_owned())
    );
    let (status, said) = tap.resend(n, r#"{"jsonrpc":"2.0","id":"b","method":"ping"}"#);
    assert_eq!(status, 202, "{said}");
    assert_eq!(
        tap.resend(n, r#"{"jsonrpc":"2.0","id":"b","method":"ping"}"#),
        (409, "Conflict: resend: id \"b\" is an earlier resend's, still waiting for its answer; give this one another id\n".to_owned())
    );
    // A line longer than --max-message-bytes passes as it comes: while it is
    // unfinished, nothing may be written inside it.
    tap.say(&format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":\"c\",\"method\":\"ping\",\"params\":{{\"x\":\"{}",
        "x".repeat(2000)
    ));
    let deadline = std::time::Instant::now() + common::http_client::WAIT;
    let mut attempt = 0;
    let mid = loop {
        // A new id each time: a resend that went in first still waits for its answer.
        attempt += 1;
        let r = tap.resend(
            n,
            &format!(r#"{{"jsonrpc":"2.0","id":"d{attempt}","method":"ping"}}"#),
        );
        if r.0 == 409 || std::time::Instant::now() > deadline {
            break r;
        }
        // Not read by the tap yet: that resend went in before the long line.
        assert_eq!(r.0, 202, "{}", r.1);
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    assert_eq!(
        mid,
        (409, "Conflict: resend: the client is writing a line too long to be passed whole (--max-message-bytes): a resend now would land inside it; try again when it ends\n".to_owned())
    );
    tap.say("\"}}\n");
    tap.to_tap = None;
    let deadline = std::time::Instant::now() + common::http_client::WAIT;
    let closed = loop {
        attempt += 1;
        let r = tap.resend(
            n,
            &format!(r#"{{"jsonrpc":"2.0","id":"e{attempt}","method":"ping"}}"#),
        );
        // Until the tap has read the long line's end and then the close, a resend
        // is refused as inside that line, or goes in.
        if (r.0 == 409 && !r.1.contains("a line too long")) || std::time::Instant::now() > deadline
        {
            break r;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    assert_eq!(
        closed,
        (409, "Conflict: resend: the server's stdin is closed (the client ended the session): nothing more can be sent to it\n".to_owned())
    );
}

/// One request a client sent, read from a recording's fact lines.
#[derive(Debug)]
struct Asked {
    /// The header pairs of the HTTP request head it came in (none on stdio).
    headers: Vec<serde_json::Value>,
    /// Its method.
    method: String,
    /// Its id, as JSON text.
    id: String,
}

/// The requests of a recording, from its fact lines, and each client-side head's
/// start line.
fn requests_of(recorded: &str) -> (Vec<Asked>, Vec<String>) {
    let mut head: std::collections::HashMap<String, Vec<serde_json::Value>> = Default::default();
    let (mut requests, mut starts) = (Vec::new(), Vec::new());
    for line in recorded.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        if v["dir"] != "c2s" {
            continue;
        }
        let lane = v["lane"].as_str().unwrap_or_default().to_owned();
        match v["fact"].as_str() {
            Some("head") => {
                starts.push(v["start"].as_str().unwrap().to_owned());
                head.insert(lane, v["headers"].as_array().unwrap().clone());
            }
            Some("message") if v["shape"] == "request" => requests.push(Asked {
                headers: head.get(&lane).cloned().unwrap_or_default(),
                method: v["method"].as_str().unwrap().to_owned(),
                id: v["id"].to_string(),
            }),
            _ => {}
        }
    }
    (requests, starts)
}

#[test]
fn a_clients_page_resends_on_the_live_session_over_stdio_and_http_in_both_eras() {
    let dir = common::scratch("ui", "client-resend");
    // `serve --http`, in-process: the client and its page are the subject, not the server.
    let server = common::InProcess::demo();
    let url = format!("http://{}/mcp", server.addr);
    for (era, target) in [
        ("legacy", vec!["--", BIN, "serve"]),
        ("modern", vec!["--", BIN, "serve"]),
        ("legacy", vec![url.as_str()]),
        ("modern", vec![url.as_str()]),
    ] {
        let record = dir.join(format!("{era}-{}.jsonl", target.len()));
        let mut args = vec![
            "client",
            "--ui",
            "--color",
            "never",
            "--era",
            era,
            "--record",
            record.to_str().unwrap(),
            "--call",
            r#"add={"a":1,"b":2}"#,
        ];
        args.extend(&target);
        let mut page = Page::start(&args);
        let how = format!("{era} {}", target.join(" "));
        assert!(
            page.stderr
                .by_ref()
                .map_while(Result::ok)
                .any(|l| l.contains("the session open for its resends until Ctrl-C")),
            "{how}: the client did not keep its session"
        );
        let info = page.get(&format!("/info?token={}", page.token), "").json();
        assert_eq!(
            (&info["resend"], &info["resend_rows"]),
            (&serde_json::json!(true), &serde_json::json!("requests")),
            "{how}"
        );
        let mut events = Events::open(&page);
        let (n, call) = row_where(&mut events, |r| {
            r["dir"] == "c2s" && r["kind"] == "msg" && r["method"] == "tools/call"
        });
        let call = call["bytes"].as_str().unwrap().trim_end().to_owned();
        let edited = call.replace(r#""a":1"#, r#""a":40"#);
        assert_ne!(edited, call, "{how}");
        let ask = serde_json::json!({"event": n, "message": edited}).to_string();
        let sent = page.send("POST", &format!("/resend?token={}", page.token), &ask);
        assert_eq!(sent.status, 202, "{how}: {}", sent.text());
        let sent = sent.json();
        let id = sent["id"].as_i64().unwrap();
        assert_eq!(sent["answered"], true, "{how}: {sent}");
        // Its answer, a new row: the result of 40 + 2.
        let id_text = id.to_string();
        let (_, answer) = row_where(&mut events, |r| {
            r["dir"] == "s2c" && r["kind"] == "msg" && r["id"] == id_text.as_str()
        });
        assert!(
            answer["bytes"].as_str().unwrap().contains(r#""text":"42""#),
            "{how}: {answer}"
        );
        // Not a request: refused, said.
        let r = page.send(
            "POST",
            &format!("/resend?token={}", page.token),
            &serde_json::json!({"event": n, "message": r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#}).to_string(),
        );
        assert_eq!((r.status, r.text()), (422, "Unprocessable Content: resend: \"notifications/initialized\" is a notification (no \"id\"): it gets no answer to show; the page resends requests (give it an \"id\")\n".to_owned()), "{how}");
        // Ctrl-C: the session is closed and the client ends.
        common::interrupt(&page.child);
        let status = page.child.wait().unwrap();
        assert!(status.success(), "{how}: {status}");
        let recorded = std::fs::read_to_string(&record).unwrap();
        // Sent as edited, with the session's next id.
        let (_, recording) = transcript::read(&recorded).unwrap();
        let c2s = lane_bytes_any(&recording);
        let want = edited.replacen(
            &format!("\"id\":{}", call_id(&call)),
            &format!("\"id\":{id}"),
            1,
        );
        assert!(c2s.contains(&want), "{how}: {want} not in {c2s}");
        let (requests, starts) = requests_of(&recorded);
        let calls: Vec<_> = requests
            .iter()
            .filter(|r| r.method == "tools/call")
            .collect();
        assert_eq!(calls.len(), 2, "{how}: {requests:?}");
        assert_eq!(calls[1].id, id.to_string(), "{how}");
        if target.len() == 1 {
            // HTTP: the resend's head is the client's own for that call (the session
            // id and version, or the mirrored headers), but for its length.
            let without_length = |h: &Vec<serde_json::Value>| -> Vec<serde_json::Value> {
                h.iter()
                    .filter(|h| h[0] != "content-length")
                    .cloned()
                    .collect()
            };
            assert_eq!(
                without_length(&calls[1].headers),
                without_length(&calls[0].headers),
                "{how}"
            );
            assert!(!calls[1].headers.is_empty(), "{how}");
            if era == "legacy" {
                assert!(
                    calls[1].headers.iter().any(|h| h[0] == "mcp-session-id"),
                    "{how}: {:?}",
                    calls[1].headers
                );
                assert_eq!(
                    starts.last().unwrap().split(' ').next(),
                    Some("DELETE"),
                    "{how}: {starts:?}"
                );
            } else {
                assert!(
                    calls[1].headers.iter().any(|h| h[0]
                        .as_str()
                        .is_some_and(|n| n.eq_ignore_ascii_case("mcp-method"))),
                    "{how}: {:?}",
                    calls[1].headers
                );
            }
        } else {
            // stdio: the server's stdin closed after the resend.
            assert!(
                recording
                    .iter()
                    .any(|e| matches!(&e.what, mcp_raw_wire::event::What::Close(_))
                        && e.dir == mcp_raw_wire::event::Dir::ToServer),
                "{how}"
            );
        }
    }
    drop(server);
}

/// The id of a request as written.
fn call_id(message: &str) -> String {
    serde_json::from_str::<serde_json::Value>(message).unwrap()["id"].to_string()
}

/// Every byte the client sent, on every lane, concatenated.
fn lane_bytes_any(events: &[mcp_raw_wire::event::Event]) -> String {
    String::from_utf8_lossy(&bytes_of(events, |e| {
        e.dir == mcp_raw_wire::event::Dir::ToServer
    }))
    .into_owned()
}

/// `mcp-raw client URL --call ADD`: a session that must succeed.
fn call_add(url: &str, call: &str) {
    let out = cli_here(["client", url, "--color", "never", "--call", call]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
