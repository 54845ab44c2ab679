//! `mcp-raw client` answers what servers ask, in both eras and over both transports:
//! a legacy server's requests (on stdout, or on the POST's event stream, answered by
//! a POST of their own), a modern server's `input_required` rounds (MRTR), and a
//! refusal that names the missing flag when there is no answer.

mod common;
use common::client_inproc::drive_http;
use common::client_inproc::{
    CONFORMANCE_TOOLS, LEGACY_SPOKEN, MODERN_SPOKEN, captions, conformance_http, lines_starting,
    lines_with,
};
use common::{BIN, stamp_before, unstamped};
use mcp_raw_net::client::answers::Answers;
use mcp_raw_net::client::mcp_client::{Options, Spoken};
use std::process::Command;

const SAMPLED: &str =
    r#"sampling={"role":"assistant","content":{"type":"text","text":"sampled!"},"model":"m"}"#;
const ELICITED: &str =
    r#"elicitation={"action":"accept","content":{"username":"ada","email":"ada@example.com"}}"#;

fn run(args: &[&str]) -> (Option<i32>, String) {
    // Stdio targets (the server a child of the client) and the CLI's --answer flags: a process.
    let out = Command::new(BIN)
        .args(["client", "--color", "never"])
        .args(args)
        .output()
        .unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    (out.status.code(), unstamped(&text))
}

#[test]
fn sampling_is_answered_in_every_era_over_both_transports() {
    for era in ["legacy", "modern"] {
        let (code, out) = run(&[
            "--answer",
            SAMPLED,
            "--call",
            r#"test_sampling={"prompt":"hi"}"#,
            "--",
            BIN,
            "serve",
            "--fixture",
            "conformance",
            "--era",
            era,
        ]);
        assert_eq!(code, Some(0), "stdio {era}: {out}");
        let spoken = if era == "legacy" {
            LEGACY_SPOKEN
        } else {
            MODERN_SPOKEN
        };
        // The tool's result line: the answer given, in the LLM's words.
        let sampled = if era == "legacy" {
            "<<<   \"result\": {\"content\": [{\"type\": \"text\", \"text\": \"LLM response: sampled!\"}]}\n"
        } else {
            "<<<     \"content\": [{\"type\": \"text\", \"text\": \"LLM response: sampled!\"}],\n"
        };
        assert_eq!(
            captions(&out),
            format!(
                "# Connecting to {BIN} serve --fixture conformance --era {era} (client eras: Both)\n\
                 # {spoken}\n# {CONFORMANCE_TOOLS}\n# test_sampling: ok\n"
            )
        );
        assert_eq!(lines_with(&out, "LLM response"), sampled, "stdio {era}");
        // The capability is declared.
        let declared = if era == "legacy" {
            concat!(
                ">>>       \"io.modelcontextprotocol/clientCapabilities\": {\"sampling\": {}},\n",
                ">>>     \"capabilities\": {\"sampling\": {}},\n"
            )
        } else {
            // In every request's _meta: the probe, tools/list, the call and its retry;
            // and the input request (`<<<`) and its answer (`>>>`) keyed "sampling".
            concat!(
                ">>>       \"io.modelcontextprotocol/clientCapabilities\": {\"sampling\": {}},\n",
                ">>>       \"io.modelcontextprotocol/clientCapabilities\": {\"sampling\": {}},\n",
                ">>>       \"io.modelcontextprotocol/clientCapabilities\": {\"sampling\": {}},\n",
                "<<<       \"sampling\": {\n",
                ">>>       \"sampling\": {\n",
                ">>>       \"io.modelcontextprotocol/clientCapabilities\": {\"sampling\": {}},\n",
            )
        };
        assert_eq!(lines_with(&out, "\"sampling\""), declared, "stdio {era}");

        // Over HTTP, the client's protocol behaviour: the library's client,
        // in-process, answering with what --answer gives.
        let http = conformance_http(era);
        let url = format!("http://{}/mcp", http.addr);
        let options = Options {
            eras: mcp_raw_core::Eras::Both,
            answers: Answers {
                sampling: Some(serde_json::from_str(SAMPLED.split_once('=').unwrap().1).unwrap()),
                ..Answers::default()
            },
            ..Options::default()
        };
        let driven = drive_http(
            &url,
            options,
            &[("test_sampling", serde_json::json!({"prompt": "hi"}))],
        );
        let out = driven.view;
        assert_eq!(
            matches!(driven.spoken, Spoken::Legacy { .. }),
            era == "legacy",
            "{out}"
        );
        let result = if era == "legacy" {
            r#"{"content":[{"type":"text","text":"LLM response: sampled!"}]}"#
        } else {
            r#"{"resultType":"complete","content":[{"type":"text","text":"LLM response: sampled!"}],"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"mcp-raw","version":"0.1.0"}}}"#
        };
        assert_eq!(driven.results, [Ok(result.to_owned())], "http {era}");
        assert_eq!(lines_with(&out, "LLM response"), sampled, "http {era}");
        // Every message's method, every HTTP status, and the answer's model, whole
        // lines in order. Legacy: the server's request came on the POST's stream; the
        // answer went on a second connection (POSTed, acknowledged with 202) while that
        // stream stayed open. Modern: an input_required result, and the retry carries
        // the answer in inputResponses.
        assert_eq!(
            lines_with(&out, "\"method\": \"")
                + &lines_with(&out, "<<< HTTP/1.1 202 ")
                + &lines_with(&out, "\"model\": ")
                + &lines_with(&out, "\"resultType\": ")
                + &lines_with(&out, "\"inputResponses\""),
            if era == "legacy" {
                concat!(
                    ">>>   \"method\": \"server/discover\",\n",
                    ">>>   \"method\": \"initialize\",\n",
                    ">>> {\"jsonrpc\": \"2.0\", \"method\": \"notifications/initialized\"}\n",
                    ">>> {\"jsonrpc\": \"2.0\", \"id\": 3, \"method\": \"tools/list\", \"params\": {}}\n",
                    ">>>   \"method\": \"tools/call\",\n",
                    "<<<   \"method\": \"sampling/createMessage\",\n",
                    // notifications/initialized's, and the answer's.
                    "<<< HTTP/1.1 202 Accepted\n",
                    "<<< HTTP/1.1 202 Accepted\n",
                    ">>>     \"model\": \"m\"\n",
                )
            } else {
                concat!(
                    ">>>   \"method\": \"server/discover\",\n",
                    ">>>   \"method\": \"tools/list\",\n",
                    ">>>   \"method\": \"tools/call\",\n",
                    "<<<         \"method\": \"sampling/createMessage\",\n",
                    ">>>   \"method\": \"tools/call\",\n",
                    ">>>         \"model\": \"m\"\n",
                    "<<<     \"resultType\": \"complete\",\n",
                    "<<<     \"resultType\": \"complete\",\n",
                    "<<<     \"resultType\": \"input_required\",\n",
                    "<<<     \"resultType\": \"complete\",\n",
                    ">>>     \"inputResponses\": {\n",
                )
            },
            "http {era}"
        );
    }
}

#[test]
fn elicitation_roots_and_request_state_follow_the_rounds() {
    // The client's protocol behaviour (2026-07-28 input_required rounds): the
    // library's client, in-process, with the answers --answer and --root give.
    let http = conformance_http("both");
    let url = format!("http://{}/mcp", http.addr);
    let answer = |flag: &str| -> serde_json::Value {
        serde_json::from_str(flag.split_once('=').unwrap().1).unwrap()
    };
    let options = Options {
        eras: mcp_raw_core::Eras::Both,
        answers: Answers {
            elicitation: Some(answer(ELICITED)),
            sampling: Some(answer(SAMPLED)),
            roots: vec![serde_json::json!({"uri": "file:///tmp", "name": "tmp"})],
            ..Answers::default()
        },
        ..Options::default()
    };
    let none = serde_json::json!({});
    let driven = drive_http(
        &url,
        options,
        &[
            ("test_input_required_result_list_roots", none.clone()),
            ("test_input_required_result_multi_round", none.clone()),
            ("test_input_required_result_request_state", none),
        ],
    );
    let out = driven.view;
    assert!(matches!(driven.spoken, Spoken::Modern { .. }), "{out}");
    assert_eq!(
        driven.results,
        ["Found 1 root(s)", "Multi-round complete for someone who likes no colour", "Confirmed: state-ok"]
            .map(|text| Ok(format!(
                r#"{{"resultType":"complete","content":[{{"type":"text","text":"{text}"}}],"_meta":{{"io.modelcontextprotocol/serverInfo":{{"name":"mcp-raw","version":"0.1.0"}}}}}}"#
            ))),
        "{out}"
    );
    // The root given, and the state echoed.
    assert_eq!(
        lines_with(&out, "\"uri\": \"file://"),
        ">>>     \"inputResponses\": {\"client_roots\": {\"roots\": [{\"uri\": \"file:///tmp\", \"name\": \"tmp\"}]}},\n"
    );
    // Each requestState the server sent (sealed with this server's key, so not a
    // fixed text) is echoed back whole by the next request: three rounds.
    let states = lines_with(&out, "\"requestState\"");
    let states: Vec<&str> = states.lines().collect();
    assert_eq!(states.len(), 6, "{out}");
    for pair in states.chunks(2) {
        assert!(pair[0].starts_with("<<<     \"requestState\": \""), "{out}");
        assert_eq!(pair[1], pair[0].replacen("<<<", ">>>", 1), "{out}");
    }
}

#[test]
fn without_an_answer_the_capability_is_not_declared_and_the_call_fails() {
    // The server respects the capabilities: it refuses (-32021) rather than asks.
    let (code, out) = run(&[
        "--call",
        r#"test_sampling={"prompt":"hi"}"#,
        "--",
        BIN,
        "serve",
        "--fixture",
        "conformance",
        "--era",
        "legacy",
    ]);
    assert_eq!(code, Some(1), "{out}");
    assert_eq!(
        captions(&out),
        format!(
            "# Connecting to {BIN} serve --fixture conformance --era legacy (client eras: Both)\n\
             # {LEGACY_SPOKEN}\n# {CONFORMANCE_TOOLS}\n\
             # test_sampling: JSON-RPC error -32021 Missing required client capability: sampling (asking the client sampling/createMessage needs it; declare it in params._meta[\"io.modelcontextprotocol/clientCapabilities\"] in 2026-07-28, in initialize's capabilities in 2025-11-25)\n"
        )
    );
    let (code, out) = run(&["--answer", "sampling=[]", "--", BIN, "serve"]);
    assert_eq!(code, Some(2), "{out}");
    assert_eq!(
        out,
        "mcp-raw: the sampling answer must be a JSON object (the result), got []\n"
    );
}

/// A legacy stdio server that asks before it answers: `ping`, then `roots/list`
/// with no roots configured, then it answers `tools/list` with what it heard.
const ASKING_SERVER: &str = r#"
while IFS= read -r line; do
  id=$(printf '%s' "$line" | sed -n 's/.*"id":\([0-9]*\).*/\1/p')
  case "$line" in
    *'"server/discover"'*) printf '{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"Method not found"}}\n' "$id" ;;
    *'"initialize"'*) printf '{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"asker","version":"1"}}}\n' "$id" ;;
    *'"tools/list"'*)
      printf '{"jsonrpc":"2.0","id":"s1","method":"ping"}\n'
      IFS= read -r pong
      printf '{"jsonrpc":"2.0","id":"s2","method":"roots/list"}\n'
      IFS= read -r roots
      case "$pong$roots" in
        *'"id":"s1","result":{}'*'"id":"s2","error":{"code":-32601'*) name=answered ;;
        *) name=wrong ;;
      esac
      printf '{"jsonrpc":"2.0","id":%s,"result":{"tools":[{"name":"%s","inputSchema":{"type":"object"}}]}}\n' "$id" "$name" ;;
  esac
done
"#;

#[test]
fn a_servers_ping_and_an_unanswerable_request_get_responses_over_stdio() {
    let script = std::env::temp_dir().join(format!("mcp-raw-asker-{}.sh", std::process::id()));
    std::fs::write(&script, ASKING_SERVER).unwrap();
    let (code, out) = run(&["--", "sh", script.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{out}");
    assert_eq!(
        captions(&out),
        format!(
            "# Connecting to sh {} (client eras: Both)\n# {LEGACY_SPOKEN}\n# 1 tools: answered\n",
            script.display()
        )
    );
    assert_eq!(
        lines_with(&out, "Method not found: roots/list"),
        ">>>     \"message\": \"Method not found: roots/list (this client offers no roots; give it --root PATH)\"\n"
    );
}

/// A legacy stdio server that floods: on `tools/call` it writes 300 messages in a
/// pseudo-random mix (notifications, its own `ping` requests, responses to ids the
/// client never used) before the call's response. `tee` keeps what it read and wrote.
const FLOODER: &str = r#"
while IFS= read -r line; do
  id=$(printf '%s' "$line" | sed -n 's/^{"jsonrpc":"2.0","id":\([0-9]*\),.*/\1/p')
  case "$line" in
    *'"server/discover"'*) printf '{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"Method not found"}}\n' "$id" ;;
    *'"initialize"'*) printf '{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"flooder","version":"1"}}}\n' "$id" ;;
    *'"tools/list"'*) printf '{"jsonrpc":"2.0","id":%s,"result":{"tools":[{"name":"flood","inputSchema":{"type":"object"}}]}}\n' "$id" ;;
    *'"tools/call"'*) awk -v id="$id" 'BEGIN {
        srand(7);
        for (i = 1; i <= 300; i++) {
          r = rand();
          if (r < 0.5) printf "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"n%d\"}}\n", i;
          else if (r < 0.8) printf "{\"jsonrpc\":\"2.0\",\"id\":\"s%d\",\"method\":\"ping\"}\n", i;
          else printf "{\"jsonrpc\":\"2.0\",\"id\":\"r%d\",\"result\":{}}\n", i;
        }
        printf "{\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"flooded\"}]}}\n", id;
      }' ;;
  esac
done
"#;

/// The client's protocol behaviour under a flood: the library's client, in-process,
/// over a stdio link to the flooder.
#[tokio::test(flavor = "multi_thread")]
async fn a_flood_of_interleaved_messages_loses_and_reorders_nothing() {
    use mcp_raw_net::client::mcp_client::Link;
    use mcp_raw_net::client::stdio_link::StdioLink;
    let dir = std::env::temp_dir().join(format!("mcp-raw-flood-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("inner.sh"), FLOODER).unwrap();
    // The server as the client sees it: its stdin and stdout copied on the way.
    let wrapper = format!(
        "tee {d}/read.log | sh {d}/inner.sh | tee {d}/wrote.log",
        d = dir.display()
    );
    let record = dir.join("client.jsonl");
    let (printer, trace) = common::client_inproc::viewing(Some(&record), "stdio");
    let link = Link::Stdio(StdioLink::spawn("sh".as_ref(), &["-c", &wrapper], &printer).unwrap());
    let mut client = common::client_inproc::connect(
        link,
        &format!("sh -c {wrapper}"),
        mcp_raw_net::client::mcp_client::Options::default(),
    )
    .await;
    assert_eq!(
        client.spoken(),
        &mcp_raw_net::client::mcp_client::Spoken::Legacy {
            version: "2025-11-25".into()
        }
    );
    let result = client
        .call_tool("flood", serde_json::json!({}))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        result.to_string(),
        r#"{"content":[{"type":"text","text":"flooded"}]}"#
    );
    client.close().await.unwrap();
    // The transcript is whole once the last holder of its recorder is gone.
    drop(printer);
    let view = trace.once(std::time::Duration::ZERO, |_| true);

    let text = std::fs::read_to_string(&record).unwrap();
    let (_, events) = mcp_raw_wire::transcript::read(&text).unwrap();
    let lane = |e: &mcp_raw_wire::event::Event| e.lane.kind == mcp_raw_wire::event::LaneKind::Stdio;
    use mcp_raw_wire::event::Dir;
    use mcp_raw_wire::recorder::concat;
    let received = concat(&events, |e| lane(e) && e.dir == Dir::ToClient);
    let sent = concat(&events, |e| lane(e) && e.dir == Dir::ToServer);
    // The client's record and the server's own copies agree, byte for byte.
    assert_eq!(received, std::fs::read(dir.join("wrote.log")).unwrap());
    assert_eq!(sent, std::fs::read(dir.join("read.log")).unwrap());

    // Every ping was answered, once, in the order asked.
    let wrote = String::from_utf8(received).unwrap();
    let read = String::from_utf8(sent).unwrap();
    let pings: Vec<&str> = wrote
        .lines()
        .filter(|l| l.contains("\"method\":\"ping\""))
        .map(|l| l.split('"').nth(7).unwrap())
        .collect();
    let answers: Vec<&str> = read
        .lines()
        .filter(|l| l.contains("\"result\":{}") && l.contains("\"id\":\"s"))
        .map(|l| {
            l.split("\"id\":\"")
                .nth(1)
                .unwrap()
                .split('"')
                .next()
                .unwrap()
        })
        .collect();
    assert!(pings.len() > 50, "{}", pings.len());
    assert_eq!(answers, pings);
    // And the view showed every notification once, in order.
    // (A short message sits on one line of the view, a long one spans several:
    // either way its `"data": "nN"` appears once.)
    let shown: Vec<&str> = view
        .lines()
        .filter(|l| l.starts_with("<<<"))
        .filter_map(|l| l.split("\"data\": \"n").nth(1))
        .collect();
    let sent_notes = wrote.matches("notifications/message").count();
    assert_eq!(shown.len(), sent_notes, "every notification shown once");
    let numbers: Vec<u32> = shown
        .iter()
        .map(|s| s.split('"').next().unwrap().parse().unwrap())
        .collect();
    assert!(numbers.windows(2).all(|w| w[0] < w[1]), "in order");
}

/// A legacy stream that closes before its response (`test_reconnection`, with ids
/// and a `retry:`): the client waits the retry, resumes with `GET` and
/// `Last-Event-ID`, and gets the response there. The client's protocol behaviour is
/// the subject: the library's client, in-process, against the fixture in-process.
#[tokio::test(flavor = "multi_thread")]
async fn a_closed_legacy_stream_is_resumed_with_last_event_id() {
    use mcp_raw_net::client::mcp_client::{Options, Spoken};
    let (addr, _app) = common::serve_here(
        common::client_inproc::conformance("legacy"),
        Default::default(),
    )
    .await;
    let url = format!("http://{addr}/mcp");
    let (mut client, trace) = common::client_inproc::http_client(
        &url,
        Options {
            eras: mcp_raw_core::Eras::Both,
            ..Options::default()
        },
    )
    .await;
    assert_eq!(
        client.spoken(),
        &Spoken::Legacy {
            version: "2025-11-25".into()
        }
    );
    let result = client
        .call_tool("test_reconnection", serde_json::json!({}))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        result.to_string(),
        r#"{"content":[{"type":"text","text":"Reconnection test completed: the result came on the resumed stream."}]}"#
    );
    client.close().await.unwrap();
    let view = trace.once(std::time::Duration::ZERO, |_| true);
    let shown = unstamped(&view);
    // The one resuming request's Last-Event-ID, whole: the id of the last event the
    // closed stream carried.
    let before_retry = &shown[..shown.find("<<< retry: ").expect("a retry")];
    let last_id = before_retry
        .lines()
        .filter_map(|l| l.strip_prefix("<<< id: "))
        .next_back()
        .expect("an event id before the retry");
    assert_eq!(
        lines_starting(&shown, ">>> last-event-id: "),
        format!(">>> last-event-id: {last_id}\n"),
        "{shown}"
    );
    let resumed = shown
        .find(">>> last-event-id: ")
        .expect("resumed with Last-Event-ID");
    assert!(
        shown[..resumed].contains("<<< retry: "),
        "after the retry it asked for: {shown}"
    );
    // The GET went out after the retry's wait (the stamps say so).
    let closed_at = stamp_before(&view, view.find("<<< retry: ").unwrap());
    let get_at = stamp_before(&view, view.find(">>> last-event-id: ").unwrap());
    assert!(get_at - closed_at >= 0.4, "{closed_at} → {get_at}");
}

/// The client's protocol behaviour when a stream's connection drops: the library's
/// client, in-process.
#[tokio::test(flavor = "multi_thread")]
async fn a_stream_whose_connection_drops_is_resumed_too() {
    // tests/servers/dropping_http.py resets the connection in the middle of the
    // tools/call event stream, after one event with an id.
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/servers/dropping_http.py"
    );
    let mut server = std::process::Command::new("python3")
        .arg(script)
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut port = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(server.stdout.take().unwrap()),
        &mut port,
    )
    .unwrap();
    let url = format!("http://127.0.0.1:{}/mcp", port.trim());
    let (mut client, trace) = common::client_inproc::http_client(
        &url,
        mcp_raw_net::client::mcp_client::Options::default(),
    )
    .await;
    let result = client.call_tool("cut", serde_json::json!({})).await;
    let _ = client.close().await;
    let _ = server.kill();
    let _ = server.wait();
    let view = unstamped(&trace.once(std::time::Duration::ZERO, |_| true));
    assert_eq!(
        result.unwrap().unwrap().to_string(),
        r#"{"content":[{"type":"text","text":"delivered after the drop"}]}"#,
        "{view}"
    );
    let dropped = view
        .find("the connection closed before the body's end")
        .unwrap_or_else(|| panic!("the cut is shown: {view}"));
    let resumed = view.find(">>> last-event-id: e1").expect("resumed");
    let delivered = view.find("delivered after the drop").unwrap();
    assert!(dropped < resumed && resumed < delivered, "{view}");
    assert_eq!(
        lines_starting(&view, ">>> last-event-id: "),
        ">>> last-event-id: e1\n"
    );
}
