//! `--otlp` and `export otlp` against a collector that decodes with the OFFICIAL
//! definitions: tests/scripts/otlp_receiver.py parses each POST with PyPI's
//! opentelemetry-proto (and OTLP/JSON with google.protobuf.json_format) and writes it
//! as JSON; these tests read that. Every attribute and metric name sent is checked
//! against PyPI's opentelemetry-semantic-conventions (tests/scripts/otlp_semconv.py),
//! and a trace started by the official Python SDK (tests/scripts/otel_client.py)
//! continues through the server's span.
//!
//! The Python packages live in .otlp-check/venv (scripts/otlp-check.sh makes it,
//! pinned), or the interpreter in MCP_RAW_OTLP_PYTHON. Without it the tests say so and
//! pass, unless MCP_RAW_REQUIRE_OTLP=1 (.ci/run sets it after making the venv).

mod common;

use common::cli_inproc::cli_here;
use common::made::Made;
use common::{BIN, HttpServer};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The venv's interpreter, or `None` (said) when the test cannot run here.
fn python(test: &str) -> Option<PathBuf> {
    let python = std::env::var_os("MCP_RAW_OTLP_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            Path::new(env!("CARGO_MANIFEST_DIR")).join(".otlp-check/venv/bin/python")
        });
    if python.exists() {
        return Some(python);
    }
    assert!(
        std::env::var("MCP_RAW_REQUIRE_OTLP").as_deref() != Ok("1"),
        "MCP_RAW_REQUIRE_OTLP=1 but there is no {}",
        python.display()
    );
    eprintln!(
        "SKIP {test}: no {} (scripts/otlp-check.sh makes it); nothing was checked",
        python.display()
    );
    None
}

fn script(name: &str) -> String {
    format!("{}/tests/scripts/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// The receiver: a collector process of its own (Python, the official package).
struct Receiver {
    child: Child,
    url: String,
    out: PathBuf,
}

impl Drop for Receiver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Receiver {
    fn start(python: &Path, dir: &Path, mode: &str) -> Receiver {
        Receiver::start_with(python, dir, mode, &[])
    }

    /// With more arguments (`--tls CERT KEY`: an `https://` URL).
    fn start_with(python: &Path, dir: &Path, mode: &str, extra: &[&str]) -> Receiver {
        let out = dir.join(format!("received-{mode}.jsonl"));
        let _ = std::fs::remove_file(&out);
        let mut child = Command::new(python)
            .arg(script("otlp_receiver.py"))
            .args(["--out", out.to_str().unwrap(), "--mode", mode])
            .args(extra)
            .stdout(Stdio::piped())
            .spawn()
            .expect("tests/scripts/otlp_receiver.py");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let port = line
            .strip_prefix("listening ")
            .unwrap_or_else(|| panic!("the receiver said {line:?}"))
            .trim()
            .to_owned();
        let scheme = if extra.contains(&"--tls") {
            "https"
        } else {
            "http"
        };
        Receiver {
            child,
            url: format!("{scheme}://127.0.0.1:{port}"),
            out,
        }
    }

    /// Every POST received so far, decoded.
    fn records(&self) -> Vec<Value> {
        std::fs::read_to_string(&self.out)
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    /// Waits (10 s at most) until `done` says the records suffice.
    fn wait(&self, done: impl Fn(&[Value]) -> bool) -> Vec<Value> {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let r = self.records();
            if done(&r) || Instant::now() > deadline {
                return r;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

/// Every span in the records, in order.
fn spans(records: &[Value]) -> Vec<Value> {
    let mut out = Vec::new();
    for r in records {
        assert!(r.get("error").is_none(), "the receiver refused a body: {r}");
        if r["path"] != "/v1/traces" {
            continue;
        }
        for rs in r["body"]["resourceSpans"].as_array().unwrap() {
            for ss in rs["scopeSpans"].as_array().unwrap() {
                assert_eq!(ss["scope"]["name"], "mcp-raw");
                out.extend(ss["spans"].as_array().unwrap().iter().cloned());
            }
        }
    }
    out
}

/// Every metric in the records (the last export's totals are what counts).
fn metrics(records: &[Value]) -> Vec<Value> {
    let mut out = Vec::new();
    for r in records.iter().filter(|r| r["path"] == "/v1/metrics") {
        for rm in r["body"]["resourceMetrics"].as_array().unwrap() {
            for sm in rm["scopeMetrics"].as_array().unwrap() {
                out.extend(sm["metrics"].as_array().unwrap().iter().cloned());
            }
        }
    }
    out
}

/// A span's attribute as text (json_format writes int64 as a string).
fn attr(span: &Value, key: &str) -> Option<String> {
    span["attributes"]
        .as_array()?
        .iter()
        .find(|a| a["key"] == key)
        .map(|a| {
            let v = &a["value"];
            v.get("stringValue")
                .or_else(|| v.get("intValue"))
                .map(|x| x.as_str().map_or(x.to_string(), str::to_owned))
                .unwrap_or_default()
        })
}

fn named<'a>(spans: &'a [Value], name: &str) -> Vec<&'a Value> {
    spans.iter().filter(|s| s["name"] == name).collect()
}

fn nanos(v: &Value) -> u64 {
    v.as_str().unwrap().parse().unwrap()
}

/// Every attribute and metric name in `records` checked against PyPI's
/// opentelemetry-semantic-conventions; the names checked are returned.
fn semconv_check(python: &Path, records: &[Value]) -> usize {
    let mut attributes = std::collections::BTreeSet::new();
    let mut metric_names = std::collections::BTreeSet::new();
    fn keys(v: &Value, into: &mut std::collections::BTreeSet<String>) {
        match v {
            Value::Object(o) => {
                if let Some(Value::Array(a)) = o.get("attributes") {
                    for kv in a {
                        into.insert(kv["key"].as_str().unwrap().to_owned());
                    }
                }
                for v in o.values() {
                    keys(v, into);
                }
            }
            Value::Array(a) => a.iter().for_each(|v| keys(v, into)),
            _ => {}
        }
    }
    for r in records {
        keys(&r["body"], &mut attributes);
    }
    for m in metrics(records) {
        metric_names.insert(m["name"].as_str().unwrap().to_owned());
    }
    let mut child = Command::new(python)
        .arg(script("otlp_semconv.py"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let names = json!({"attributes": attributes, "metrics": metric_names});
    serde_json::to_writer(child.stdin.take().unwrap(), &names).unwrap();
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "names the conventions do not define:\n{text}\n{names}"
    );
    attributes.len() + metric_names.len()
}

/// The number just before the first `words` in `text`.
fn count_before(text: &str, words: &str) -> u64 {
    let at = text
        .find(words)
        .unwrap_or_else(|| panic!("no {words:?} in {text:?}"));
    let digits: String = text[..at]
        .chars()
        .rev()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.chars().rev().collect::<String>().parse().unwrap()
}

fn interrupt_and_wait(server: &mut HttpServer, limit: Duration) -> Duration {
    let started = Instant::now();
    assert!(
        Command::new("kill")
            .args(["-INT", &server.pid().to_string()])
            .status()
            .unwrap()
            .success()
    );
    while server.alive() {
        assert!(
            started.elapsed() < limit,
            "the server did not exit within {limit:?}:\n{}",
            server.logged()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    started.elapsed()
}

/// `serve --http --otlp`: a span per MCP operation from both eras' clients, named,
/// kinded and attributed per the MCP conventions; a 2026-07-28 operation retried with
/// requestState is one span with its three attempts as children; a tool error and a
/// JSON-RPC error are ERROR; the duration histograms with the conventions' buckets;
/// every name the conventions define; the counts on stderr at the end.
#[test]
fn serve_sends_a_span_per_operation_from_both_eras() {
    let Some(python) = python("serve_sends_a_span_per_operation_from_both_eras") else {
        return;
    };
    let dir = common::scratch("otlp", "serve");
    let rx = Receiver::start(&python, &dir, "ok");
    // The server a process of its own: its exit (Ctrl-C) flushes and reports.
    let mut server = HttpServer::start(&[
        "--fixture",
        "conformance",
        "--otlp",
        &rx.url,
        "--otlp-interval",
        "0.1",
    ]);
    let url = format!("http://{}/mcp", server.addr);
    let modern = cli_here([
        "client",
        "--era",
        "modern",
        "--call",
        "test_input_required_result_multi_round",
        "--answer",
        r#"elicitation={"action":"accept","content":{"name":"Ada","color":"blue"}}"#,
        &url,
    ]);
    assert!(modern.ok(), "{}", modern.err());
    let legacy = cli_here([
        "client",
        "--era",
        "legacy",
        "--call",
        "test_error_handling",
        "--call",
        "nosuch",
        "--method",
        "resources/read",
        "--params",
        r#"{"uri":"test://static-text"}"#,
        "--method",
        "prompts/get",
        "--params",
        r#"{"name":"test_simple_prompt"}"#,
        &url,
    ]);
    assert!(!legacy.ok(), "the unknown tool is a failed call");
    interrupt_and_wait(&mut server, Duration::from_secs(15));
    let log = server.logged();
    let records = rx.records();
    let spans = spans(&records);
    let report = log
        .lines()
        .find(|l| l.starts_with("[mcp-raw] otlp: "))
        .unwrap_or_else(|| panic!("no report:\n{log}"));
    assert!(
        report.starts_with(&format!(
            "[mcp-raw] otlp: {} spans sent to {}/v1/traces, 0 failed, 0 dropped",
            spans.len(),
            rx.url
        )),
        "{report}"
    );
    assert!(
        spans.iter().all(|s| s["kind"] == "SPAN_KIND_SERVER"),
        "{spans:#?}"
    );
    // A notification has a span too (the conventions' spans are "the request or
    // notification"): the legacy client's one notifications/initialized, in its
    // session, lasting no time.
    let initialized = named(&spans, "notifications/initialized");
    assert_eq!(initialized.len(), 1, "{initialized:#?}");
    let n = initialized[0];
    assert_eq!(
        attr(n, "mcp.method.name").as_deref(),
        Some("notifications/initialized")
    );
    assert!(attr(n, "mcp.session.id").is_some(), "{n:#}");
    assert_eq!(attr(n, "network.transport").as_deref(), Some("tcp"));
    assert_eq!(n["startTimeUnixNano"], n["endTimeUnixNano"]);
    // The retried operation: one parent, three attempts under it, one trace.
    let multi = named(&spans, "tools/call test_input_required_result_multi_round");
    assert_eq!(multi.len(), 4, "{multi:#?}");
    let (ops, attempts): (Vec<&&Value>, Vec<&&Value>) =
        multi.iter().partition(|s| s.get("parentSpanId").is_none());
    assert_eq!(ops.len(), 1);
    let op = ops[0];
    for a in &attempts {
        assert_eq!(a["parentSpanId"], op["spanId"]);
        assert_eq!(a["traceId"], op["traceId"]);
    }
    let ids: Vec<String> = attempts
        .iter()
        .map(|a| attr(a, "jsonrpc.request.id").unwrap())
        .collect();
    assert_eq!(ids.len(), 3);
    let first = attempts
        .iter()
        .map(|a| nanos(&a["startTimeUnixNano"]))
        .min()
        .unwrap();
    let last = attempts
        .iter()
        .map(|a| nanos(&a["endTimeUnixNano"]))
        .max()
        .unwrap();
    assert_eq!(nanos(&op["startTimeUnixNano"]), first);
    assert_eq!(nanos(&op["endTimeUnixNano"]), last);
    assert_eq!(
        attr(op, "gen_ai.tool.name").as_deref(),
        Some("test_input_required_result_multi_round")
    );
    assert_eq!(
        attr(op, "gen_ai.operation.name").as_deref(),
        Some("execute_tool")
    );
    assert_eq!(
        attr(op, "mcp.protocol.version").as_deref(),
        Some("2026-07-28")
    );
    assert!(op.get("status").is_none(), "{op}");
    // A tool error and a JSON-RPC error.
    let tool_error = named(&spans, "tools/call test_error_handling")[0];
    assert_eq!(tool_error["status"]["code"], "STATUS_CODE_ERROR");
    assert_eq!(
        attr(tool_error, "error.type").as_deref(),
        Some("tool_error")
    );
    let unknown = named(&spans, "tools/call nosuch")[0];
    assert_eq!(unknown["status"]["code"], "STATUS_CODE_ERROR");
    assert!(
        unknown["status"]["message"]
            .as_str()
            .unwrap()
            .contains("nosuch"),
        "{unknown}"
    );
    assert_eq!(
        attr(unknown, "rpc.response.status_code").as_deref(),
        Some("-32602")
    );
    assert_eq!(attr(unknown, "error.type").as_deref(), Some("-32602"));
    // The legacy session's attributes; a resource's URI as an attribute, not in the
    // name (the conventions: not by default, it is high-cardinality); a prompt's name.
    let init = named(&spans, "initialize")[0];
    let session = attr(init, "mcp.session.id").expect("a session id");
    assert_eq!(
        attr(init, "mcp.protocol.version").as_deref(),
        Some("2025-11-25")
    );
    assert_eq!(attr(unknown, "mcp.session.id"), Some(session));
    assert_eq!(attr(init, "client.address").as_deref(), Some("127.0.0.1"));
    assert!(attr(init, "client.port").is_some());
    assert_eq!(attr(init, "network.transport").as_deref(), Some("tcp"));
    assert_eq!(
        attr(init, "http.response.status_code").as_deref(),
        Some("200")
    );
    let read = named(&spans, "resources/read")[0];
    assert_eq!(
        attr(read, "mcp.resource.uri").as_deref(),
        Some("test://static-text")
    );
    let prompt = named(&spans, "prompts/get test_simple_prompt")[0];
    assert_eq!(
        attr(prompt, "gen_ai.prompt.name").as_deref(),
        Some("test_simple_prompt")
    );
    // The histograms: the conventions' buckets, a count per operation.
    let metrics = metrics(&records);
    let last_op = metrics
        .iter()
        .rev()
        .find(|m| m["name"] == "mcp.server.operation.duration")
        .expect("mcp.server.operation.duration");
    assert_eq!(last_op["unit"], "s");
    let points = last_op["histogram"]["dataPoints"].as_array().unwrap();
    assert_eq!(
        points[0]["explicitBounds"],
        json!([
            0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0
        ])
    );
    let counted: u64 = points.iter().map(|p| nanos(&p["count"])).sum();
    // Operations: every span but the three attempts and the notification's (it
    // lasts no time: no duration is recorded for it).
    assert_eq!(counted as usize, spans.len() - 3 - initialized.len());
    assert!(
        metrics
            .iter()
            .any(|m| m["name"] == "mcp.server.session.duration")
    );
    assert!(semconv_check(&python, &records) >= 20);
}

/// A collector that answers 500, and one that never answers: the calls take no
/// longer than without a collector (the wire never waits), the server exits within
/// the export timeout plus a margin, and every span is counted as failed or dropped.
#[test]
fn a_failing_or_hanging_collector_never_slows_the_wire() {
    let Some(python) = python("a_failing_or_hanging_collector_never_slows_the_wire") else {
        return;
    };
    let dir = common::scratch("otlp", "faults");
    let calls: Vec<String> = (0..30)
        .flat_map(|_| ["--call".to_owned(), r#"add={"a":1,"b":2}"#.to_owned()])
        .collect();
    let run = |extra: &[&str]| -> (Duration, HttpServer) {
        let server = HttpServer::start(extra);
        let url = format!("http://{}/mcp", server.addr);
        let mut args = vec!["client".to_owned(), "--era".into(), "legacy".into(), url];
        args.extend(calls.iter().cloned());
        let started = Instant::now();
        let out = cli_here(&args);
        assert!(out.ok(), "{}", out.err());
        (started.elapsed(), server)
    };
    let (baseline, mut plain) = run(&[]);
    interrupt_and_wait(&mut plain, Duration::from_secs(10));
    for mode in ["fail", "hang"] {
        let rx = Receiver::start(&python, &dir, mode);
        let (took, mut server) = run(&[
            "--otlp",
            &rx.url,
            "--otlp-batch",
            "1",
            "--otlp-queue",
            "2",
            "--otlp-interval",
            "0.05",
            "--otlp-timeout",
            "1",
        ]);
        // Without the offload, 32 spans in batches of 1 against a 1 s timeout
        // would hold the wire for half a minute.
        assert!(
            took < baseline + Duration::from_secs(2),
            "{mode}: the calls took {took:?}, {baseline:?} without a collector"
        );
        let exit = interrupt_and_wait(&mut server, Duration::from_secs(10));
        assert!(
            exit < Duration::from_secs(4),
            "{mode}: the exit took {exit:?}"
        );
        let log = server.logged();
        let report = log
            .lines()
            .find(|l| l.starts_with("[mcp-raw] otlp: "))
            .unwrap_or_else(|| panic!("{log}"));
        // "N spans sent to http://127.0.0.1:PORT/v1/traces, F failed, D dropped …"
        let (sent, failed, dropped) = (
            count_before(report, " spans sent"),
            count_before(report, " failed"),
            count_before(report, " dropped"),
        );
        assert_eq!(sent, 0, "{report}");
        // initialize, its notifications/initialized, tools/list and the 30 calls.
        assert_eq!(failed + dropped, 33, "{report}");
        assert!(failed >= 1, "{report}");
        let why = log
            .lines()
            .find(|l| l.contains("first failure"))
            .unwrap_or_else(|| panic!("{log}"));
        match mode {
            "fail" => assert!(
                why.contains("500") && why.contains("collector down"),
                "{why}"
            ),
            _ => assert!(why.contains("no answer within"), "{why}"),
        }
        let posts = rx.records().len();
        assert!(posts >= 1, "{mode}: the collector got nothing");
        eprintln!("{mode}: calls {took:?} (baseline {baseline:?}), exit {exit:?}, {report}");
    }
}

/// `export otlp`: spans timed exactly by the recording's stamps from its header's
/// start; a 2026-07-28 operation retried over stdio, linked by its requestState; a
/// request carrying a W3C traceparent continues that trace under the remote span
/// (its tracestate passed on); protobuf and OTLP/JSON both decoded by the official
/// definitions; a failing collector is exit status 1 and no endpoint 2.
#[test]
fn export_times_spans_by_the_recordings_stamps() {
    let Some(python) = python("export_times_spans_by_the_recordings_stamps") else {
        return;
    };
    let dir = common::scratch("otlp", "export");
    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28"});
    let mut made = Made::new("stdio");
    made.line(1500, "c2s", json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"confirm","arguments":{},"_meta":meta}}))
        .line(1750, "s2c", json!({"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{},"requestState":"st-1"}}))
        .line(2000, "c2s", json!({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"confirm","arguments":{},"requestState":"st-1","inputResponses":{},"_meta":meta}}))
        .line(2250, "s2c", json!({"jsonrpc":"2.0","id":2,"result":{"content":[]}}))
        .line(3000, "c2s", json!({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"traced","arguments":{},"_meta":{
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "tracestate": "rojo=00f067aa0ba902b7"}}}))
        .line(3125, "s2c", json!({"jsonrpc":"2.0","id":3,"result":{"content":[]}}));
    let file = dir.join("made.jsonl");
    made.write(&file);
    // 2026-01-01T00:00:00Z, the header's start.
    const START: u64 = 1_767_225_600_000_000_000;
    for protocol in ["http/protobuf", "http/json"] {
        let rx = Receiver::start(&python, &dir, "ok");
        let out = cli_here([
            "export",
            "otlp",
            file.to_str().unwrap(),
            "--endpoint",
            &rx.url,
            "--protocol",
            protocol,
        ]);
        assert_eq!(out.status.code(), Some(0), "{}", out.err());
        assert!(out.err().contains("4 spans sent"), "{}", out.err());
        let records = rx.records();
        let want = if protocol == "http/json" {
            "application/json"
        } else {
            "application/x-protobuf"
        };
        assert!(records.iter().all(|r| r["content_type"] == want));
        let spans = spans(&records);
        let confirm = named(&spans, "tools/call confirm");
        assert_eq!(confirm.len(), 3);
        let op = confirm
            .iter()
            .find(|s| s.get("parentSpanId").is_none())
            .unwrap();
        let times = |s: &Value| {
            (
                nanos(&s["startTimeUnixNano"]) - START,
                nanos(&s["endTimeUnixNano"]) - START,
            )
        };
        assert_eq!(times(op), (1_500_000_000, 2_250_000_000));
        let mut attempts: Vec<(u64, u64)> = confirm
            .iter()
            .filter(|s| s.get("parentSpanId") == Some(&op["spanId"]))
            .map(|s| times(s))
            .collect();
        attempts.sort();
        assert_eq!(
            attempts,
            [
                (1_500_000_000, 1_750_000_000),
                (2_000_000_000, 2_250_000_000)
            ]
        );
        assert!(confirm.iter().all(|s| s["kind"] == "SPAN_KIND_CLIENT"));
        let traced = named(&spans, "tools/call traced")[0];
        assert_eq!(traced["traceId"], "4bf92f3577b34da6a3ce929d0e0e4736");
        assert_eq!(traced["parentSpanId"], "00f067aa0ba902b7");
        assert_eq!(traced["traceState"], "rojo=00f067aa0ba902b7");
        assert_eq!(times(traced), (3_000_000_000, 3_125_000_000));
        assert_eq!(attr(traced, "network.transport").as_deref(), Some("pipe"));
        let metrics = metrics(&records);
        let op_metric = metrics
            .iter()
            .find(|m| m["name"] == "mcp.client.operation.duration")
            .unwrap();
        let points = op_metric["histogram"]["dataPoints"].as_array().unwrap();
        let sum: f64 = points.iter().map(|p| p["sum"].as_f64().unwrap()).sum();
        // Two operations: 0.75 s (first attempt to final answer) and 0.125 s.
        assert!((sum - 0.875).abs() < 1e-9, "{sum}");
        semconv_check(&python, &records);
    }
    let failing = Receiver::start(&python, &dir, "fail");
    let out = cli_here([
        "export",
        "otlp",
        file.to_str().unwrap(),
        "--endpoint",
        &failing.url,
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", out.err());
    assert!(
        out.err().contains("0 spans sent") && out.err().contains("4 failed"),
        "{}",
        out.err()
    );
    assert!(out.err().contains("500"), "{}", out.err());
    let out = cli_here(["export", "otlp", file.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.err().contains("--endpoint"), "{}", out.err());
    let out = cli_here([
        "export",
        "otlp",
        file.to_str().unwrap(),
        "--endpoint",
        "ftp://x",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.err().contains("\"ftp://x\""), "{}", out.err());
}

/// The OAuth hops of `demo-http --auth`'s recording (the client's view): the
/// metadata, registration, authorization and token requests as spans of their own,
/// named `{method} {path}`; the first initialize, answered 401, is ERROR `401`.
#[test]
fn oauth_hops_are_spans_of_their_own() {
    let Some(python) = python("oauth_hops_are_spans_of_their_own") else {
        return;
    };
    let dir = common::scratch("otlp", "oauth");
    let file = dir.join("auth.jsonl");
    // demo-http spawns `mcp-raw serve` and `auth-server` as its own current
    // executable: a process, so that it is mcp-raw's.
    let out = Command::new(BIN)
        .args([
            "demo-http",
            "--auth",
            "--port",
            "0",
            "--record",
            file.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rx = Receiver::start(&python, &dir, "ok");
    let out = cli_here([
        "export",
        "otlp",
        file.to_str().unwrap(),
        "--endpoint",
        &rx.url,
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", out.err());
    let spans = spans(&rx.records());
    for hop in [
        "GET /.well-known/oauth-protected-resource/mcp",
        "GET /.well-known/oauth-authorization-server",
        "POST /register",
        "GET /authorize",
        "POST /token",
    ] {
        let s = named(&spans, hop);
        assert!(
            !s.is_empty(),
            "no {hop} span among {:#?}",
            spans.iter().map(|s| &s["name"]).collect::<Vec<_>>()
        );
        assert_eq!(s[0]["kind"], "SPAN_KIND_CLIENT");
        assert!(attr(s[0], "http.response.status_code").is_some());
        assert_eq!(attr(s[0], "server.address").as_deref(), Some("127.0.0.1"));
    }
    assert_eq!(
        attr(
            named(&spans, "POST /register")[0],
            "http.response.status_code"
        )
        .as_deref(),
        Some("201")
    );
    let refused = named(&spans, "initialize")
        .into_iter()
        .find(|s| attr(s, "error.type").as_deref() == Some("401"))
        .expect("the initialize answered 401");
    assert_eq!(refused["status"]["code"], "STATUS_CODE_ERROR");
    semconv_check(&python, &rx.records());
}

/// A trace started by the official OpenTelemetry SDK for Python, its context
/// injected into `params._meta` by the SDK's propagator: the server's span has the
/// client's trace id and the client's span as its parent.
#[test]
fn a_trace_from_an_instrumented_client_continues_through_the_server() {
    let Some(python) = python("a_trace_from_an_instrumented_client_continues_through_the_server")
    else {
        return;
    };
    let dir = common::scratch("otlp", "continue");
    let rx = Receiver::start(&python, &dir, "ok");
    let mut server = HttpServer::start(&["--otlp", &rx.url, "--otlp-interval", "0.1"]);
    let out = Command::new(&python)
        .arg(script("otel_client.py"))
        .arg(format!("http://{}/mcp", server.addr))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let client: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(client["answer"]["result"]["content"][0]["text"], "5");
    let records = rx.wait(|r| spans(r).iter().any(|s| s["name"] == "tools/call add"));
    interrupt_and_wait(&mut server, Duration::from_secs(10));
    let spans = spans(&records);
    let call = named(&spans, "tools/call add")[0];
    assert_eq!(call["kind"], "SPAN_KIND_SERVER");
    assert_eq!(call["traceId"], client["trace_id"]);
    assert_eq!(call["parentSpanId"], client["span_id"]);
    // The initialize carried no context: a trace of its own.
    assert_ne!(
        named(&spans, "initialize")[0]["traceId"],
        client["trace_id"]
    );
}

/// `client --otlp` (CLIENT spans), `tap --http --otlp` (CLIENT: the tap waits on the
/// server it fronts as a client would) and `bridge --otlp` (SERVER), each through the
/// standard variables instead of the flag where the flag is absent: the endpoint,
/// the headers and the service name.
#[test]
fn client_tap_and_bridge_send_their_spans_too() {
    let Some(python) = python("client_tap_and_bridge_send_their_spans_too") else {
        return;
    };
    let dir = common::scratch("otlp", "programs");
    let server = HttpServer::start(&[]);
    let url = format!("http://{}/mcp", server.addr);
    // client: the flag.
    let rx = Receiver::start(&python, &dir, "ok");
    let out = cli_here([
        "client",
        "--era",
        "modern",
        "--call",
        r#"add={"a":1,"b":2}"#,
        "--otlp",
        &rx.url,
        &url,
    ]);
    assert!(out.ok(), "{}", out.err());
    assert!(
        out.err().contains("[mcp-raw] otlp: 3 spans sent"),
        "{}",
        out.err()
    );
    let spans_c = spans(&rx.records());
    assert_eq!(
        named(&spans_c, "tools/call add")[0]["kind"],
        "SPAN_KIND_CLIENT"
    );
    assert_eq!(
        attr(named(&spans_c, "tools/call add")[0], "server.address").as_deref(),
        Some("127.0.0.1")
    );
    // tap: the variables, in a process of its own (its own environment).
    let rx = Receiver::start(&python, &dir, "ok");
    let mut tap = Command::new(BIN)
        .args(["tap", "--http", "--listen", "0", "--target", &url])
        .env("OTEL_EXPORTER_OTLP_ENDPOINT", &rx.url)
        .env("OTEL_EXPORTER_OTLP_HEADERS", "x-team=wire%20ops")
        .env("OTEL_SERVICE_NAME", "front-tap")
        .env("OTEL_EXPORTER_OTLP_PROTOCOL", "http/json")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let tap_url = common::listening_url(tap.stderr.take().unwrap());
    let out = cli_here([
        "client",
        "--era",
        "legacy",
        "--call",
        r#"add={"a":1,"b":2}"#,
        &tap_url,
    ]);
    assert!(out.ok(), "{}", out.err());
    common::interrupt(&tap);
    let _ = tap.wait();
    let records = rx.records();
    let spans_t = spans(&records);
    let relayed = named(&spans_t, "tools/call add");
    assert_eq!(
        relayed.len(),
        1,
        "one lane per relayed connection: {relayed:#?}"
    );
    assert_eq!(relayed[0]["kind"], "SPAN_KIND_CLIENT");
    // The server the tap relays to, from its lane's open note.
    let target_port = server.addr.rsplit(':').next().unwrap().to_owned();
    assert_eq!(attr(relayed[0], "server.port"), Some(target_port));
    assert!(
        records.iter().all(
            |r| r["headers"]["x-team"] == "wire ops" && r["content_type"] == "application/json"
        ),
        "{records:#?}"
    );
    let service = &records[0]["body"]["resourceSpans"][0]["resource"]["attributes"][0];
    assert_eq!(service["key"], "service.name");
    assert_eq!(service["value"]["stringValue"], "front-tap");
    // bridge: a stdio server behind it; SERVER spans.
    let rx = Receiver::start(&python, &dir, "ok");
    let mut bridge = HttpServer::spawn({
        let mut c = Command::new(BIN);
        c.args([
            "bridge",
            "--port",
            "0",
            "--otlp",
            &rx.url,
            "--otlp-interval",
            "0.1",
            "--",
            BIN,
            "serve",
        ]);
        c
    });
    let out = cli_here([
        "client",
        "--era",
        "legacy",
        "--call",
        r#"add={"a":1,"b":2}"#,
        &format!("http://{}/mcp", bridge.addr),
    ]);
    assert!(out.ok(), "{}", out.err());
    interrupt_and_wait(&mut bridge, Duration::from_secs(10));
    let spans_b = spans(&rx.records());
    let call = named(&spans_b, "tools/call add");
    assert!(
        !call.is_empty(),
        "{:#?}",
        spans_b.iter().map(|s| &s["name"]).collect::<Vec<_>>()
    );
    // Served on HTTP, then asked of the child over its stdin: one of each kind.
    let mut kinds: Vec<&str> = call.iter().map(|s| s["kind"].as_str().unwrap()).collect();
    kinds.sort();
    assert_eq!(kinds, ["SPAN_KIND_CLIENT", "SPAN_KIND_SERVER"], "{call:#?}");
    let pipe = call
        .iter()
        .find(|s| s["kind"] == "SPAN_KIND_CLIENT")
        .unwrap();
    assert_eq!(attr(pipe, "network.transport").as_deref(), Some("pipe"));
}

/// An `https://` collector through the project's TLS (rustls): its root named by
/// `OTEL_EXPORTER_OTLP_CERTIFICATE`, and refused (the export failed, the reason said)
/// without it.
#[test]
fn an_https_collector_is_reached_through_the_projects_tls() {
    let Some(python) = python("an_https_collector_is_reached_through_the_projects_tls") else {
        return;
    };
    let pki = common::pki::Pki::new("otlp", "tls");
    pki.good();
    let rx = Receiver::start_with(
        &python,
        &pki.dir,
        "ok",
        &["--tls", &pki.path("good.pem"), &pki.path("good.key")],
    );
    let dir = common::scratch("otlp", "tls-rec");
    let file = dir.join("made.jsonl");
    let mut made = Made::new("stdio");
    made.line(10, "c2s", json!({"jsonrpc":"2.0","id":1,"method":"ping"}))
        .line(20, "s2c", json!({"jsonrpc":"2.0","id":1,"result":{}}));
    made.write(&file);
    // The variable is read by the program: a process of its own environment.
    let export = |with_root: bool| {
        let mut c = Command::new(BIN);
        c.args([
            "export",
            "otlp",
            file.to_str().unwrap(),
            "--endpoint",
            &rx.url,
        ]);
        if with_root {
            c.env("OTEL_EXPORTER_OTLP_CERTIFICATE", pki.path("ca.pem"));
        }
        c.output().unwrap()
    };
    let out = export(true);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(err.contains("1 span sent to https://127.0.0.1:"), "{err}");
    assert_eq!(named(&spans(&rx.records()), "ping").len(), 1);
    let out = export(false);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("1 failed") && err.contains("first failure"),
        "{err}"
    );
}

/// Bad values stop the program before it starts, exit status 2, the value quoted:
/// a URL that is not OTLP/HTTP, gRPC asked for through the variable, a header with
/// no `=`, a root file that is no certificate.
#[test]
fn bad_otlp_values_are_refused_before_anything_starts() {
    let out = cli_here(["serve", "--otlp", "ftp://collector"]);
    assert_eq!(out.status.code(), Some(2), "{}", out.err());
    assert!(out.err().contains("\"ftp://collector\""), "{}", out.err());
    let out = cli_here([
        "serve",
        "--otlp",
        "http://127.0.0.1:9",
        "--otlp-header",
        "no-equals",
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", out.err());
    assert!(out.err().contains("\"no-equals\""), "{}", out.err());
    let out = cli_here([
        "client",
        "--otlp",
        "http://127.0.0.1:9",
        "--otlp-protocol",
        "grpc",
        "http://127.0.0.1:9/mcp",
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", out.err());
    assert!(out.err().contains("grpc"), "{}", out.err());
    let dir = common::scratch("otlp", "bad");
    let not_pem = dir.join("not.pem");
    std::fs::write(&not_pem, "not a certificate").unwrap();
    // The variables are read by the program: a process of its own environment.
    for (var, value, quoted) in [
        ("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc", "grpc"),
        ("OTEL_EXPORTER_OTLP_TIMEOUT", "soon", "\"soon\""),
        (
            "OTEL_EXPORTER_OTLP_CERTIFICATE",
            not_pem.to_str().unwrap(),
            "not.pem",
        ),
    ] {
        let out = Command::new(BIN)
            .args([
                "serve",
                "--http",
                "--port",
                "0",
                "--otlp",
                "http://127.0.0.1:9",
            ])
            .env(var, value)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{var}: {err}");
        assert!(err.contains(var) || err.contains(quoted), "{var}: {err}");
        assert!(err.contains(quoted), "{var}: {err}");
        assert!(!err.contains("listening"), "{var}: {err}");
    }
}

/// `client --trace-context --otlp` against `serve --http --otlp`, both to one
/// collector: the client puts its own span's context in each request's `_meta`, so
/// its CLIENT span is the one the `traceparent` names and the server's SERVER span is
/// its child: one trace across both programs, as the backend shows it.
#[test]
fn client_and_server_spans_join_into_one_trace() {
    let Some(python) = python("client_and_server_spans_join_into_one_trace") else {
        return;
    };
    let dir = common::scratch("otlp", "join");
    let rx = Receiver::start(&python, &dir, "ok");
    let mut server = HttpServer::start(&["--otlp", &rx.url, "--otlp-interval", "0.1"]);
    let url = format!("http://{}/mcp", server.addr);
    let out = cli_here([
        "client",
        "--era",
        "modern",
        "--trace-context",
        "--call",
        r#"add={"a":1,"b":2}"#,
        "--otlp",
        &rx.url,
        &url,
    ]);
    assert!(out.ok(), "{}", out.err());
    let records = rx.wait(|r| {
        spans(r)
            .iter()
            .filter(|s| s["name"] == "tools/call add")
            .count()
            == 2
    });
    interrupt_and_wait(&mut server, Duration::from_secs(10));
    let spans = spans(&records);
    let calls = named(&spans, "tools/call add");
    let client = calls
        .iter()
        .find(|s| s["kind"] == "SPAN_KIND_CLIENT")
        .expect("the client's span");
    let server_span = calls
        .iter()
        .find(|s| s["kind"] == "SPAN_KIND_SERVER")
        .expect("the server's span");
    assert!(client.get("parentSpanId").is_none(), "{client}");
    assert_eq!(server_span["traceId"], client["traceId"]);
    assert_eq!(server_span["parentSpanId"], client["spanId"]);
    // Every request of the run in the one trace the client started.
    let lists = named(&spans, "tools/list");
    assert_eq!(lists.len(), 2);
    assert!(lists.iter().all(|s| s["traceId"] == client["traceId"]));
}

/// `export otlp` reads the recording as a stream: a line that is not an event
/// halfway through ends the export there — what came before it is exported, as for
/// the file cut at that line (the report's figures are the cut file's) — and the
/// error names the line (exit 2). The collector is a closed port: every export
/// fails, and counts.
#[test]
fn a_bad_line_midway_ends_export_otlp_with_its_line_number() {
    let dir = common::scratch("otlp", "midway");
    let mut made = Made::new("stdio");
    for i in 0..6u64 {
        made.line(1000 + 100 * i, "c2s", json!({"jsonrpc":"2.0","id":i,"method":"tools/call","params":{"name":"echo","arguments":{}}}))
            .line(1050 + 100 * i, "s2c", json!({"jsonrpc":"2.0","id":i,"result":{"content":[]}}));
    }
    let file = dir.join("good.jsonl");
    made.write(&file);
    let text = std::fs::read_to_string(&file).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let cut = lines.len() / 2;
    let head_only = dir.join("head.jsonl");
    std::fs::write(&head_only, lines[..cut].join("\n") + "\n").unwrap();
    let broken = dir.join("broken.jsonl");
    std::fs::write(&broken, common::with_line_at(&text, cut, "not an event")).unwrap();
    // A port nobody listens on.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let endpoint = format!("http://127.0.0.1:{port}");
    let export = |f: &Path| {
        cli_here([
            "export",
            "otlp",
            f.to_str().unwrap(),
            "--endpoint",
            &endpoint,
        ])
    };
    let whole = export(&head_only);
    assert_eq!(whole.status.code(), Some(1), "{}", whole.err());
    let ran = export(&broken);
    assert_eq!(ran.status.code(), Some(2), "{}", ran.err());
    let err = ran.err();
    // The cut file's report: its spans, each failed against the closed port.
    let first = whole.err().lines().next().unwrap().to_owned();
    assert!(
        first.contains(" spans sent to ") && !first.contains(" 0 failed"),
        "{first}"
    );
    assert!(err.starts_with(&first), "{err}");
    assert!(
        err.contains(&format!(
            "mcp-raw export otlp: {} is not a transcript mcp-raw can read: line {}: ",
            broken.display(),
            cut + 1
        )),
        "{err}"
    );
}
