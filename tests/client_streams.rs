//! `mcp-raw client` against servers that stretch the rules around it, through the
//! real binary: a response that comes on a resumed stream the server keeps open, an
//! era probe answered with a result that is no discover result, a tool the listing
//! excluded, a scope the authorization server never grants.

mod common;
use common::client_inproc::{LEGACY_SPOKEN, MODERN_SPOKEN, captions, lines_with, output_within};
use common::{BIN, unstamped};
use std::process::{Child, Command, Output, Stdio};
use std::time::Duration;

/// A Python test server from tests/servers, killed on drop.
struct Python {
    child: Child,
    port: String,
}

impl Drop for Python {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts tests/servers/`script` with `args`; it prints its port first.
fn python(script: &str, args: &[&str]) -> Python {
    let path = format!("{}/tests/servers/{script}", env!("CARGO_MANIFEST_DIR"));
    let mut child = Command::new("python3")
        .arg(path)
        .args(args)
        .stdout(Stdio::piped())
        .spawn()
        .expect("python3");
    let mut port = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(child.stdout.take().unwrap()),
        &mut port,
    )
    .unwrap();
    Python {
        child,
        port: port.trim().to_owned(),
    }
}

/// Runs `mcp-raw ARGS`, killed if it takes longer than `limit`: its output, and how
/// long it took.
fn run_within(args: &[&str], limit: Duration) -> (Output, Duration) {
    // The client's --timeout kill and exit status against Python servers: a process.
    output_within(Command::new(BIN).args(args), limit)
}

#[test]
fn a_response_on_a_resumed_stream_that_stays_open_ends_the_wait() {
    // The tools/call stream closes after its priming event (retry: 300); the GET
    // with Last-Event-ID carries the response and then stays open.
    let server = python("resuming_http.py", &[]);
    let url = format!("http://127.0.0.1:{}/mcp", server.port);
    let (out, took) = run_within(
        &[
            "client",
            "--color",
            "never",
            "--timeout",
            "4",
            &url,
            "--call",
            "test_reconnection",
        ],
        Duration::from_secs(30),
    );
    let view = unstamped(&String::from_utf8_lossy(&out.stdout));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{took:?}\n{view}\n{err}");
    let resumed = view.find(">>> last-event-id: e1").expect("resumed");
    let delivered = view.find("delivered on the resumed stream").unwrap();
    assert!(resumed < delivered, "{view}");
    assert_eq!(
        captions(&view),
        format!(
            "# Connecting to {url} (client eras: Both)\n# {LEGACY_SPOKEN}\n# 1 tools: test_reconnection\n# test_reconnection: ok\n"
        )
    );
    // The answer ended the wait: no --timeout (4 s) ran out on the open stream.
    assert!(took < Duration::from_secs(4), "took {took:?}");
}

#[test]
fn an_empty_result_to_the_era_probe_is_not_modern() {
    // A legacy server that answers server/discover with `{}`.
    let server = python("resuming_http.py", &["--empty-discover"]);
    let url = format!("http://127.0.0.1:{}/mcp", server.port);
    for view_flag in ["--color=never", "--raw"] {
        let (out, _) = run_within(
            &["client", view_flag, "--timeout", "4", &url],
            Duration::from_secs(30),
        );
        let view = String::from_utf8_lossy(&out.stdout);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{view_flag}\n{view}\n{err}");
        let compact: String = view.split_whitespace().collect();
        assert!(compact.contains("\"method\":\"initialize\""), "{view}");
        assert_eq!(
            captions(&view),
            format!(
                "# Connecting to {url} (client eras: Both)\n\
                 # server/discover was answered, but not with a discover result (it has no supportedVersions): taken for a legacy server, so initialize follows\n\
                 # {LEGACY_SPOKEN}\n\
                 # 1 tools: test_reconnection\n"
            ),
            "{view_flag}"
        );
    }
    // Told to speak only the modern era, the client says why it will not.
    let (out, _) = run_within(
        &["client", "--era", "modern", "--timeout", "4", &url],
        Duration::from_secs(30),
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert_eq!(
        err,
        "mcp-raw: the server does not speak 2026-07-28 (server/discover was answered, but not with a discover result (it has no supportedVersions): taken for a legacy server, so initialize follows); this client was told to speak only the modern era\n"
    );
}

#[test]
fn a_tool_the_listing_excluded_is_not_called() {
    // bad_header's x-mcp-header is not a token: tools/list drops it.
    let server = python("modern_quirks.py", &[]);
    let url = format!("http://127.0.0.1:{}/mcp", server.port);
    let (out, _) = run_within(
        &[
            "client",
            "--color",
            "never",
            &url,
            "--call",
            "add",
            "--call",
            "bad_header",
        ],
        Duration::from_secs(30),
    );
    let view = String::from_utf8_lossy(&out.stdout);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{view}\n{err}");
    assert_eq!(
        err,
        concat!(
            "[mcp-raw client] warning: dropping tool \"bad_header\": x-mcp-header \"not a token\" contains ' ', not allowed in a header name\n",
            "mcp-raw: --call bad_header: tools/list excluded this tool, so it is not called: x-mcp-header \"not a token\" contains ' ', not allowed in a header name\n"
        )
    );
    // Refused before any call: neither tool was called.
    assert!(!view.contains("\"tools/call\""), "{view}");
    assert_eq!(
        captions(&view),
        format!(
            "# Connecting to {url} (client eras: Both)\n# {MODERN_SPOKEN}\n# 2 tools: add, ask_user\n"
        )
    );
}

#[test]
fn a_modern_call_that_wanted_a_back_channel_says_legacy_would_have_one() {
    let server = python("modern_quirks.py", &[]);
    let url = format!("http://127.0.0.1:{}/mcp", server.port);
    let args = ["client", "--color", "never", &url, "--call", "ask_user"];
    let (out, _) = run_within(&args, Duration::from_secs(30));
    let view = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{view}");
    assert_eq!(
        captions(&view),
        format!(
            "# Connecting to {url} (client eras: Both)\n# {MODERN_SPOKEN}\n# 2 tools: add, ask_user\n\
             # ask_user: the tool failed (isError: true)\n\
             # ask_user: the server wanted to ask this client something (elicitation, sampling or roots) while the tool ran, and a 2026-07-28 request has no back-channel for that unless the server uses input_required; this client chose the modern era (--era both). With --era legacy the server can ask on the session's streams, and this client answers (--answer, --ask, --root)\n"
        )
    );
    // Only a failure that says so gets the hint; a modern client was told its era.
    let (out, _) = run_within(
        &[
            "client", "--color", "never", "--era", "modern", &url, "--call", "ask_user",
        ],
        Duration::from_secs(30),
    );
    let view = String::from_utf8_lossy(&out.stdout);
    // No hint: that client was told its era.
    assert_eq!(
        captions(&view),
        format!(
            "# Connecting to {url} (client eras: Modern)\n# {MODERN_SPOKEN}\n# 2 tools: add, ask_user\n\
             # ask_user: the tool failed (isError: true)\n"
        )
    );
}

#[test]
fn a_scope_the_authorization_server_never_grants_is_said_so() {
    // Every tools/call is refused with 403 insufficient_scope, whatever the token.
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/servers/oauth_refresh.py"
    );
    let mut child = Command::new("python3")
        .args([
            script,
            "--token-uses",
            "100",
            "--scope-refused",
            "tools/call",
        ])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let url = common::listening_url(child.stdout.take().unwrap());
    let (out, _) = run_within(
        &[
            "client",
            "--color",
            "never",
            "--era",
            "legacy",
            &url,
            "--grant",
            "client-credentials",
            "--client-id",
            "test-client",
            "--client-secret",
            "test-secret",
            "--max-auth-rounds",
            "2",
            "--call",
            "whoami",
        ],
        Duration::from_secs(30),
    );
    let _ = child.kill();
    let _ = child.wait();
    let view = unstamped(&String::from_utf8_lossy(&out.stdout));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{view}\n{err}");
    assert_eq!(
        err,
        "mcp-raw: the server still refuses with HTTP 403 insufficient_scope after 2 authorization tries (--max-auth-rounds): the authorization server kept issuing tokens without scope \"tools:admin\"\n"
    );
    // Two token requests for the refused call, one for the first 401: three.
    assert_eq!(
        view.matches(">>> POST /token HTTP/1.1").count(),
        3,
        "{view}"
    );
}

#[test]
fn conformance_client_reconnects_in_the_sse_retry_scenario() {
    // tests/servers/resuming_http.py is shaped like the suite's sse-retry scenario:
    // its test_reconnection answers only on the GET that resumes the call's stream.
    let server = python("resuming_http.py", &[]);
    let url = format!("http://127.0.0.1:{}/mcp", server.port);
    let (out, _) = output_within(
        // `conformance-client` reads its scenario from the environment (MCP_CONFORMANCE_*): a process.
        Command::new(BIN)
            .args(["conformance-client", "--color", "never", &url])
            .env("MCP_CONFORMANCE_SCENARIO", "sse-retry")
            .env("MCP_CONFORMANCE_PROTOCOL_VERSION", "2025-11-25"),
        Duration::from_secs(30),
    );
    let view = unstamped(&String::from_utf8_lossy(&out.stdout));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{view}\n{err}");
    assert_eq!(
        lines_with(&view, "\"name\": \"test_reconnection\""),
        concat!(
            "<<<     \"tools\": [{\"name\": \"test_reconnection\", \"inputSchema\": {\"type\": \"object\"}}]\n",
            ">>>   \"params\": {\"name\": \"test_reconnection\", \"arguments\": {}}\n"
        ),
        "{view}"
    );
    let resumed = view.find(">>> last-event-id: e1").expect("reconnected");
    assert!(
        view[resumed..].contains("delivered on the resumed stream"),
        "{view}"
    );
}

#[test]
fn a_response_body_over_its_limit_is_refused() {
    for (flag, seen) in [
        ("--huge-list", "its Content-Length says 4194425"),
        ("--huge-stream", "more than that came"),
    ] {
        let server = python("resuming_http.py", &[flag]);
        let url = format!("http://127.0.0.1:{}/mcp", server.port);
        let (out, _) = run_within(
            &[
                "client",
                "--era",
                "legacy",
                "--max-response-bytes",
                "1000000",
                &url,
            ],
            Duration::from_secs(30),
        );
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(3), "{flag}: {err}");
        assert_eq!(
            err,
            format!(
                "mcp-raw: the HTTP 200 OK response body from 127.0.0.1:{} is larger than 1000000 bytes ({seen}): not read further (--max-response-bytes, --max-oauth-bytes for OAuth documents)\n",
                server.port
            ),
            "{flag}"
        );
    }
    // The default (16 MiB) reads the same 4 MB whole.
    let server = python("resuming_http.py", &["--huge-list"]);
    let url = format!("http://127.0.0.1:{}/mcp", server.port);
    let (out, _) = run_within(
        &["client", "--era", "legacy", "--json", &url],
        Duration::from_secs(30),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn an_oauth_document_over_its_limit_is_refused() {
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/servers/oauth_refresh.py"
    );
    let mut child = Command::new("python3")
        .arg(script)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let url = common::listening_url(child.stdout.take().unwrap());
    let (out, _) = run_within(
        &[
            "client",
            "--era",
            "legacy",
            &url,
            "--grant",
            "client-credentials",
            "--client-id",
            "test-client",
            "--client-secret",
            "test-secret",
            "--max-oauth-bytes",
            "40",
        ],
        Duration::from_secs(30),
    );
    let _ = child.kill();
    let _ = child.wait();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{err}");
    let origin = url.trim_end_matches("/mcp");
    let addr = origin.trim_start_matches("http://");
    assert_eq!(
        err,
        format!(
            "mcp-raw: authorizing after HTTP 401 Unauthorized: GET {origin}/.well-known/oauth-protected-resource/mcp: the HTTP 200 OK response body from {addr} is larger than 40 bytes (its Content-Length says 95): not read further (--max-response-bytes, --max-oauth-bytes for OAuth documents)\n"
        )
    );
}

#[test]
fn keep_alive_comments_do_not_hold_a_wait_open() {
    // The call's stream carries a keep-alive comment every second, and nothing else.
    let server = python("side_question.py", &["--never"]);
    let url = format!("http://127.0.0.1:{}/mcp", server.port);
    let (out, took) = run_within(
        &[
            "client",
            "--color",
            "never",
            "--timeout",
            "3",
            &url,
            "--call",
            "ask",
        ],
        Duration::from_secs(30),
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{took:?} {err}");
    assert_eq!(
        err,
        "mcp-raw: the response body stalled: nothing but keep-alive comments for 3s (--timeout): deadline has elapsed\n"
    );
    assert!(took < Duration::from_secs(10), "{took:?}");
}

#[test]
fn replay_follows_the_get_stream_where_the_server_asks() {
    let dir = common::scratch("client_streams", "side");
    let (orig, again) = (dir.join("orig.jsonl"), dir.join("again.jsonl"));
    // Recorded once: the question came on the GET stream, the client answered it.
    let first = python("side_question.py", &[]);
    let url = format!("http://127.0.0.1:{}/mcp", first.port);
    let orig_arg = orig.to_string_lossy().into_owned();
    let (out, _) = run_within(
        &[
            "client",
            "--era",
            "legacy",
            "--answer",
            r#"elicitation={"action":"accept","content":{"name":"Ada"}}"#,
            "--call",
            "ask",
            "--record",
            &orig_arg,
            &url,
        ],
        Duration::from_secs(30),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    drop(first);
    // Replayed against a fresh server: the GET stream is followed, the question
    // answered from the recording, the call's answer comes.
    let second = python("side_question.py", &[]);
    let url = format!("http://127.0.0.1:{}/mcp", second.port);
    let again_arg = again.to_string_lossy().into_owned();
    let (out, took) = run_within(
        &[
            "replay",
            &orig_arg,
            "--color",
            "never",
            "--timeout",
            "5",
            "--record",
            &again_arg,
            "--against",
            &url,
        ],
        Duration::from_secs(30),
    );
    let view = String::from_utf8_lossy(&out.stdout);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{took:?}\n{view}\n{err}");
    assert_eq!(
        err,
        "[mcp-raw replay] 5 client message(s) sent again, 1 GET stream(s) followed\n"
    );
    assert_eq!(
        lines_with(&view, "elicitation/create") + &lines_with(&view, "hello Ada"),
        concat!(
            "<<<   \"method\": \"elicitation/create\",\n",
            "<<<   \"result\": {\"content\": [{\"type\": \"text\", \"text\": \"hello Ada\"}]}\n"
        ),
        "{view}"
    );
    assert!(took < Duration::from_secs(5), "{took:?}");
}

#[test]
fn an_http_answer_without_a_response_is_said_as_such() {
    let server = python("modern_quirks.py", &[]);
    let url = format!("http://127.0.0.1:{}/mcp", server.port);
    let (out, took) = run_within(
        &["client", &url, "--method", "broken/method"],
        Duration::from_secs(30),
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert_eq!(
        err,
        concat!(
            "[mcp-raw client] warning: dropping tool \"bad_header\": x-mcp-header \"not a token\" contains ' ', not allowed in a header name\n",
            "mcp-raw: broken/method: the server answered HTTP 500 Internal Server Error with no JSON-RPC response in its body\n"
        ),
        "{took:?}"
    );
}

#[test]
fn a_response_on_the_session_stream_ends_the_wait_too() {
    // The call's stream ends with nothing to resume; the response comes on the
    // session's GET stream 0.3 s later.
    let server = python("resuming_http.py", &["--on-session-stream"]);
    let url = format!("http://127.0.0.1:{}/mcp", server.port);
    let (out, took) = run_within(
        &[
            "client",
            "--color",
            "never",
            "--timeout",
            "5",
            &url,
            "--call",
            "test_reconnection",
        ],
        Duration::from_secs(30),
    );
    let view = unstamped(&String::from_utf8_lossy(&out.stdout));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{took:?}\n{view}\n{err}");
    assert_eq!(
        lines_with(&view, "delivered on the session stream"),
        "<<<     \"content\": [{\"type\": \"text\", \"text\": \"delivered on the session stream\"}]\n",
        "{view}"
    );
    assert_eq!(
        captions(&view),
        format!(
            "# Connecting to {url} (client eras: Both)\n# {LEGACY_SPOKEN}\n# 1 tools: test_reconnection\n# test_reconnection: ok\n"
        )
    );
    assert!(took < Duration::from_secs(5), "took {took:?}");
}
