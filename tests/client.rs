//! The dual-era client (`mcp-raw client`) against servers of each era, over stdio and
//! HTTP: the compatibility matrix of MCP 2026-07-28 `basic/versioning`.

mod common;
use common::cli_inproc::cli_here;
use common::client_inproc::{
    CONFORMANCE_TOOLS, DEMO_TOOLS, LEGACY_SPOKEN, MODERN_SPOKEN, captions, conformance_http,
    demo_http, lines_starting, lines_with,
};
use common::{BIN, golden, stamp_before, unstamped};
use mcp_raw_core::Eras;
use mcp_raw_net::client::mcp_client::{EraCache, Link, McpClient, Options, Spoken};
use mcp_raw_net::client::stdio_link::StdioLink;
use mcp_raw_net::client::wire_print::Printer;
use std::process::Command;

/// Runs `mcp-raw client --era ERA TARGET --call ...`; returns (success, stdout+stderr).
fn client(era: &str, target: &str, calls: &[&str]) -> (bool, String) {
    // In-process: the CLI's captions and exit status beside the wire (the stdio
    // cases spawn the server).
    let mut cmd = vec!["client", "--era", era, target];
    for c in calls {
        cmd.extend(["--call", c]);
    }
    let out = cli_here(cmd);
    let text =
        unstamped(&String::from_utf8_lossy(&out.stdout)) + &String::from_utf8_lossy(&out.stderr);
    (out.status.success(), text)
}

fn stdio_target(server_era: &str) -> String {
    format!("{BIN} serve --era {server_era}")
}

const ADD: &str = r#"add={"a":2,"b":40}"#;

// Each case's whole output (the view, then the client's stderr) is compared with
// its golden file under tests/golden/client/era/, named CLIENT-TRANSPORT-SERVER.

#[test]
fn dual_era_client_speaks_modern_to_modern_servers() {
    for server in ["both", "modern"] {
        // Modern: no initialize handshake, the server named modern, 2 + 40 = 42.
        let (ok, out) = client("both", &stdio_target(server), &[ADD]);
        assert!(ok, "{out}");
        golden::check(&format!("client/era/both-stdio-{server}.txt"), &out);

        // Over HTTP: Mcp-Method and Mcp-Name headers on the call, no session id.
        let http = demo_http(server);
        let (ok, out) = client("both", &format!("http://{}/mcp", http.addr), &[ADD]);
        assert!(ok, "{out}");
        golden::check(&format!("client/era/both-http-{server}.txt"), &out);
    }
}

#[test]
fn dual_era_client_falls_back_to_initialize_with_legacy_servers() {
    let (ok, out) = client("both", &stdio_target("legacy"), &[ADD]);
    assert!(ok, "{out}");
    let probe = out
        .find("\"method\": \"server/discover\"")
        .expect("probed first");
    let init = out
        .find("\"method\": \"initialize\"")
        .expect("then initialized");
    assert!(probe < init);
    golden::check("client/era/both-stdio-legacy.txt", &out);

    // Over HTTP: the modern attempt is refused with 400, initialize gets an
    // Mcp-Session-Id, and the session is ended with DELETE.
    let http = demo_http("legacy");
    let (ok, out) = client("both", &format!("http://{}/mcp", http.addr), &[ADD]);
    assert!(ok, "{out}");
    golden::check("client/era/both-http-legacy.txt", &out);
}

#[test]
fn modern_client_against_legacy_server_fails_clearly() {
    // "does not speak 2026-07-28", over both transports.
    let (ok, out) = client("modern", &stdio_target("legacy"), &[]);
    assert!(!ok);
    golden::check("client/era/modern-stdio-legacy.txt", &out);
    let http = demo_http("legacy");
    let (ok, out) = client("modern", &format!("http://{}/mcp", http.addr), &[]);
    assert!(!ok);
    golden::check("client/era/modern-http-legacy.txt", &out);
}

#[test]
fn legacy_client_against_modern_server_fails_with_the_supported_versions() {
    // initialize fails with -32022 naming 2026-07-28 (over HTTP, with HTTP 400).
    let (ok, out) = client("legacy", &stdio_target("modern"), &[]);
    assert!(!ok);
    golden::check("client/era/legacy-stdio-modern.txt", &out);
    let http = demo_http("modern");
    let (ok, out) = client("legacy", &format!("http://{}/mcp", http.addr), &[]);
    assert!(!ok);
    golden::check("client/era/legacy-http-modern.txt", &out);
}

#[test]
fn legacy_client_against_dual_era_server_works() {
    // No server/discover probe; the legacy era.
    let (ok, out) = client("legacy", &stdio_target("both"), &[ADD]);
    assert!(ok, "{out}");
    golden::check("client/era/legacy-stdio-both.txt", &out);
}

#[test]
fn a_failing_tool_makes_the_client_exit_non_zero() {
    // isError: true, and "1 call(s) failed".
    let (ok, out) = client("both", &stdio_target("both"), &[r#"add={"a":"x","b":1}"#]);
    assert!(!ok);
    golden::check("client/era/both-stdio-both-failing-call.txt", &out);
}

const KEY: &str = "mcp-raw serve";

async fn connect(cache: &mut EraCache) -> McpClient {
    let link = Link::Stdio(StdioLink::spawn(BIN.as_ref(), &["serve"], &Printer::quiet()).unwrap());
    let options = Options {
        eras: Eras::Both,
        ..Options::default()
    };
    McpClient::connect(link, KEY, options, cache).await.unwrap()
}

#[tokio::test]
async fn the_era_is_cached_per_server() {
    let mut cache = EraCache::default();
    let first = connect(&mut cache).await;
    assert!(matches!(first.spoken(), Spoken::Modern { .. }));
    assert_eq!(cache.get(KEY), Some(first.spoken()));
    first.close().await.unwrap();

    // A cached "legacy" is used without probing: the dual-era server then speaks
    // legacy, which it can.
    cache.insert(
        KEY,
        Spoken::Legacy {
            version: "2025-11-25".into(),
        },
    );
    let second = connect(&mut cache).await;
    assert_eq!(
        second.spoken(),
        &Spoken::Legacy {
            version: "2025-11-25".into()
        }
    );
    second.close().await.unwrap();
}

/// A legacy server that never answers requests it does not know (some do exactly
/// that before `initialize`): it ignores `server/discover` and serves the handshake.
const SILENT_LEGACY_SERVER: &str = r#"
while IFS= read -r line; do
  id=$(printf '%s' "$line" | sed -nE 's/.*"id":([0-9]+).*/\1/p')
  case "$line" in
    *'"method":"initialize"'*)
      printf '{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"silent","version":"0"}}}\n' "$id" ;;
    *'"method":"tools/list"'*)
      printf '{"jsonrpc":"2.0","id":%s,"result":{"tools":[]}}\n' "$id" ;;
  esac
done
"#;

#[tokio::test]
async fn a_silent_probe_falls_back_to_initialize_after_the_timeout() {
    let link = Link::Stdio(
        StdioLink::spawn(
            "bash".as_ref(),
            &["-c", SILENT_LEGACY_SERVER],
            &Printer::quiet(),
        )
        .unwrap(),
    );
    let options = Options {
        eras: Eras::Both,
        probe_timeout: std::time::Duration::from_millis(300),
        ..Options::default()
    };
    let started = std::time::Instant::now();
    let mut client = McpClient::connect(link, "silent", options, &mut EraCache::default())
        .await
        .unwrap();
    assert!(
        started.elapsed() >= std::time::Duration::from_millis(300),
        "it waited for the probe"
    );
    assert_eq!(
        client.spoken(),
        &Spoken::Legacy {
            version: "2025-06-18".into()
        }
    );
    assert!(client.list_tools().await.unwrap().is_empty());
    client.close().await.unwrap();
}

/// `client --listen`: after its calls the client opens the server's stream (a GET in
/// a legacy session, `subscriptions/listen` in the modern era) and shows each
/// notification the moment it arrives, until Ctrl-C, then ends cleanly.
#[test]
fn listen_shows_notifications_as_they_arrive_until_ctrl_c() {
    use std::io::BufRead;
    for era in ["legacy", "modern"] {
        let http = conformance_http(era);
        let url = format!("http://{}/mcp", http.addr);
        // Stopped by SIGINT (Ctrl-C): the signal is the subject, a process.
        let mut listener = Command::new(BIN)
            .args(["client", &url, "--listen", "--color", "never"])
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        let stdout = listener.stdout.take().unwrap();
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(stdout)
                .lines()
                .map_while(Result::ok)
            {
                let _ = tx.send(line);
            }
        });
        let mut seen = String::new();
        let wait_for = |needle: &str, seen: &mut String| {
            let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
            while !seen.contains(needle) {
                let left = deadline.saturating_duration_since(std::time::Instant::now());
                match rx.recv_timeout(left) {
                    Ok(line) => {
                        seen.push_str(&line);
                        seen.push('\n');
                    }
                    Err(_) => panic!("{era}: no {needle:?} in:\n{seen}"),
                }
            }
        };
        wait_for(
            "# Listening for what the server sends unprompted",
            &mut seen,
        );
        // The stream is open once its head is in.
        wait_for("content-type: text/event-stream", &mut seen);
        let (ok, out) = client(era, &url, &["test_trigger_tool_change"]);
        assert!(ok, "{out}");
        wait_for(
            "\"method\": \"notifications/tools/list_changed\"",
            &mut seen,
        );
        common::interrupt(&listener);
        let status = listener.wait().unwrap();
        wait_for("# Stopped listening: interrupted", &mut seen);
        // The rest of its output (the process has exited: the channel ends).
        for line in rx.iter() {
            seen.push_str(&line);
            seen.push('\n');
        }
        assert!(status.success(), "{era}: {status}\n{seen}");
        // What it said, and every message it sent or got, in order, whole lines.
        let shown = unstamped(&seen);
        assert_eq!(
            captions(&shown),
            format!(
                "# Connecting to {url} (client eras: Both)\n\
                 # {}\n\
                 # {CONFORMANCE_TOOLS}\n\
                 # Listening for what the server sends unprompted, shown as it arrives (Ctrl-C to stop)\n\
                 # Stopped listening: interrupted\n",
                if era == "legacy" {
                    LEGACY_SPOKEN
                } else {
                    MODERN_SPOKEN
                }
            ),
            "{era}"
        );
        let methods = if era == "legacy" {
            concat!(
                ">>>   \"method\": \"server/discover\",\n",
                ">>>   \"method\": \"initialize\",\n",
                ">>> {\"jsonrpc\": \"2.0\", \"method\": \"notifications/initialized\"}\n",
                ">>> {\"jsonrpc\": \"2.0\", \"id\": 3, \"method\": \"tools/list\", \"params\": {}}\n",
                "<<<   \"method\": \"notifications/tools/list_changed\",\n",
            )
        } else {
            concat!(
                ">>>   \"method\": \"server/discover\",\n",
                ">>>   \"method\": \"tools/list\",\n",
                ">>>   \"method\": \"subscriptions/listen\",\n",
                "<<<   \"method\": \"notifications/subscriptions/acknowledged\",\n",
                "<<<   \"method\": \"notifications/tools/list_changed\",\n",
            )
        };
        assert_eq!(lines_with(&shown, "\"method\": \""), methods, "{era}");
        if era == "legacy" {
            // The stream is the session's GET; the session is ended with DELETE, once.
            assert!(shown.contains(">>> GET /mcp HTTP/1.1\n"), "{seen}");
            assert_eq!(
                lines_starting(&shown, ">>> DELETE "),
                ">>> DELETE /mcp HTTP/1.1\n",
                "{seen}"
            );
        }
    }
}

/// A legacy stdio server that sends a notification a while after its last answer,
/// then exits: `client --listen` shows it when it comes and ends when stdout closes.
const LATE_NOTIFIER: &str = r#"
while IFS= read -r line; do
  id=$(printf '%s' "$line" | sed -n 's/.*"id":\([0-9]*\).*/\1/p')
  case "$line" in
    *'"server/discover"'*) printf '{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"Method not found"}}\n' "$id" ;;
    *'"initialize"'*) printf '{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{"listChanged":true}},"serverInfo":{"name":"late","version":"1"}}}\n' "$id" ;;
    *'"tools/list"'*)
      printf '{"jsonrpc":"2.0","id":%s,"result":{"tools":[]}}\n' "$id"
      sleep 0.4
      printf '{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}\n'
      exit 0 ;;
  esac
done
"#;

#[test]
fn listen_over_stdio_shows_late_notifications_until_stdout_closes() {
    let script = std::env::temp_dir().join(format!("mcp-raw-late-{}.sh", std::process::id()));
    std::fs::write(&script, LATE_NOTIFIER).unwrap();
    // The CLI's --listen over stdio (a child server) and its captions until stdout closes.
    let out = cli_here([
        "client",
        &format!("sh {}", script.display()),
        "--listen",
        "--color",
        "never",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    let listening = text.find("# Listening for").expect("listened");
    let note = text
        .find("\"method\": \"notifications/tools/list_changed\"")
        .expect("shown");
    assert!(listening < note, "{text}");
    assert_eq!(
        captions(&text),
        format!(
            "# Connecting to sh {} (client eras: Both)\n\
             # {LEGACY_SPOKEN}\n\
             # 0 tools: \n\
             # Listening for what the server sends unprompted, shown as it arrives (Ctrl-C to stop)\n\
             # Stopped listening: the server closed its stdout\n",
            script.display()
        )
    );
    // It came 0.4 s after the last answer, and its stamp says so.
    let answer = stamp_before(&text, listening);
    assert!(stamp_before(&text, note) - answer >= 0.3, "{text}");
}

/// The exit status says what went wrong (`client --help`): 0 fine, 1 a call failed,
/// 2 usage, 3 the connection or the protocol.
#[test]
fn exit_codes_say_what_went_wrong() {
    let status = |args: &[&str]| {
        // Exit statuses and the CLI's own refusals are the subject.
        let out = cli_here(std::iter::once("client").chain(args.iter().copied()));
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (code, err) = status(&["localhost:3000/mcp"]);
    assert_eq!(code, Some(2), "{err}");
    assert_eq!(
        err,
        "mcp-raw: \"localhost:3000/mcp\" is neither a URL nor a command: did you mean http://localhost:3000/mcp?\n"
    );
    let (code, err) = status(&["sh -c 'unclosed"]);
    assert_eq!(code, Some(2), "{err}");
    assert_eq!(err, "mcp-raw: unclosed ' in TARGET \"sh -c 'unclosed\"\n");
    let (code, err) = status(&["http://127.0.0.1:1/mcp"]);
    assert_eq!(code, Some(3), "{err}");
    assert_eq!(
        err,
        "mcp-raw: cannot connect to 127.0.0.1:1: Connection refused (os error 111)\n"
    );
    let (code, err) = status(&["--", "sh", "-c", "read line; exit 7"]);
    assert_eq!(code, Some(3), "{err}");
    assert_eq!(
        err,
        "mcp-raw: the server exited with exit status: 7 (its stdout closed)\n"
    );
    let (code, err) = status(&["--call", "nope", &stdio_target("both")]);
    assert_eq!(code, Some(1), "{err}");
    assert_eq!(err, "mcp-raw: 1 call(s) failed\n");
    let (code, err) = status(&["--header", "no colon", "http://127.0.0.1:1/mcp"]);
    assert_eq!(code, Some(2), "{err}");
    assert_eq!(
        err,
        "mcp-raw: --header \"no colon\": expected 'Name: value'\n"
    );
    // The help that documents these codes ("Exit status: 0 all went well", ...):
    // the same bytes as tests/golden.rs compares (an empty environment, as there).
    let help = cli_here(["client", "--help"]);
    golden::check("help/client.txt", &String::from_utf8_lossy(&help.stdout));
}

/// `-- CMD ARG…` is taken as it is (no splitting), with `--env` and `--cwd`; TARGET
/// is split like a shell splits it, quotes included.
#[test]
fn stdio_targets_take_a_command_env_and_cwd() {
    let script =
        format!("test \"$MCP_RAW_TEST\" = yes && test \"$(pwd)\" = /tmp && exec {BIN} serve");
    // The CLI's -- CMD, --env and --cwd (a child's environment and directory).
    let out = cli_here([
        "client",
        "--env",
        "MCP_RAW_TEST=yes",
        "--cwd",
        "/tmp",
        "--call",
        ADD,
        "--",
        "sh",
        "-c",
        &script,
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        lines_with(&text, "\"text\": "),
        "<<<     \"content\": [{\"type\": \"text\", \"text\": \"42\"}],\n",
        "{text}"
    );
    let quoted = format!("sh -c 'exec {BIN} serve --era legacy'");
    let (ok, out) = client("both", &quoted, &[ADD]);
    assert!(ok, "{out}");
    assert_eq!(
        captions(&out),
        format!(
            "# Connecting to sh -c exec {BIN} serve --era legacy (client eras: Both)\n# {LEGACY_SPOKEN}\n# {DEMO_TOOLS}\n# add: ok\n"
        )
    );
}

/// A stdio server that takes longer to start than the era probe waits is not taken
/// for a legacy one: after the silent probe `initialize` goes out, and the late
/// answer to the probe, which the server sends first once up, decides.
/// (The client's protocol behaviour: the library's client, in-process, over a stdio
/// link.)
#[tokio::test(flavor = "multi_thread")]
async fn a_slow_starting_server_is_probed_once_it_is_up() {
    let slow = format!("sleep 3.5; exec {BIN} serve");
    let (printer, trace) = common::client_inproc::viewing(None, "stdio");
    let link = Link::Stdio(StdioLink::spawn("sh".as_ref(), &["-c", &slow], &printer).unwrap());
    let options = Options {
        eras: Eras::Both,
        ..Options::default()
    };
    let mut client = common::client_inproc::connect(link, &format!("sh -c {slow}"), options).await;
    assert!(
        matches!(client.spoken(), Spoken::Modern { .. }),
        "{:?}",
        client.spoken()
    );
    let result = client
        .call_tool("add", serde_json::json!({"a": 2, "b": 40}))
        .await
        .unwrap()
        .unwrap();
    client.close().await.unwrap();
    let text = trace.once(std::time::Duration::ZERO, |_| true);
    let init = text
        .find("\"method\": \"initialize\"")
        .expect("initialize after the silence");
    let discover_answer = text
        .find("\"supportedVersions\"")
        .expect("the probe's late answer");
    assert!(init < discover_answer, "{text}");
    assert_eq!(
        result.to_string(),
        r#"{"resultType":"complete","content":[{"type":"text","text":"42"}],"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"mcp-raw","version":"0.1.0"}}}"#
    );
    assert_eq!(
        lines_with(&text, "\"text\": "),
        "<<<     \"content\": [{\"type\": \"text\", \"text\": \"42\"}],\n",
        "{text}"
    );
}

/// `--method NAME --params JSON` reaches any method, in order; `--progress` and
/// `--log-level` bring the notifications in both eras (legacy: setLevel after the
/// handshake; modern: in each request's `_meta`).
#[test]
fn any_method_with_progress_and_logs_in_both_eras() {
    for era in ["legacy", "modern"] {
        // The CLI's --method/--params/--progress/--log-level parsing and captions, a
        // stdio child server.
        let out = cli_here([
            "client",
            "--color",
            "never",
            "--progress",
            "--log-level",
            "debug",
            "--call",
            "test_tool_with_progress",
            "--call",
            "test_tool_with_logging",
            "--method",
            "resources/read",
            "--params",
            r#"{"uri":"test://static-text"}"#,
            "--method",
            "prompts/get",
            "--params",
            r#"{"name":"test_simple_prompt"}"#,
            "--method",
            "bogus/thing",
            "--",
            BIN,
            "serve",
            "--fixture",
            "conformance",
            "--era",
            era,
        ]);
        let text = String::from_utf8_lossy(&out.stdout);
        assert_eq!(
            out.status.code(),
            Some(1),
            "{era}: bogus/thing fails: {text}"
        );
        // Every caption, whole: each call's and each method's outcome.
        assert_eq!(
            captions(&text),
            format!(
                "# Connecting to {BIN} serve --fixture conformance --era {era} (client eras: Both)\n\
                 # {}\n\
                 # {CONFORMANCE_TOOLS}\n\
                 # test_tool_with_progress: ok\n\
                 # test_tool_with_logging: ok\n\
                 # resources/read: ok\n\
                 # prompts/get: ok\n\
                 # bogus/thing: JSON-RPC error -32601 Method not found: bogus/thing\n",
                if era == "legacy" {
                    LEGACY_SPOKEN
                } else {
                    MODERN_SPOKEN
                }
            ),
            "{era}"
        );
        // Every message's method, in order (progress and log notifications among them).
        let methods = if era == "legacy" {
            concat!(
                ">>>   \"method\": \"server/discover\",\n",
                ">>>   \"method\": \"initialize\",\n",
                ">>> {\"jsonrpc\": \"2.0\", \"method\": \"notifications/initialized\"}\n",
                ">>>   \"method\": \"logging/setLevel\",\n",
                ">>> {\"jsonrpc\": \"2.0\", \"id\": 4, \"method\": \"tools/list\", \"params\": {}}\n",
                ">>>   \"method\": \"tools/call\",\n",
                "<<<   \"method\": \"notifications/progress\",\n",
                "<<<   \"method\": \"notifications/progress\",\n",
                "<<<   \"method\": \"notifications/progress\",\n",
                ">>>   \"method\": \"tools/call\",\n",
                "<<<   \"method\": \"notifications/message\",\n",
                "<<<   \"method\": \"notifications/message\",\n",
                "<<<   \"method\": \"notifications/message\",\n",
                ">>>   \"method\": \"resources/read\",\n",
                ">>>   \"method\": \"prompts/get\",\n",
                ">>>   \"method\": \"bogus/thing\",\n",
            )
        } else {
            concat!(
                ">>>   \"method\": \"server/discover\",\n",
                ">>>   \"method\": \"tools/list\",\n",
                ">>>   \"method\": \"tools/call\",\n",
                "<<<   \"method\": \"notifications/progress\",\n",
                "<<<   \"method\": \"notifications/progress\",\n",
                "<<<   \"method\": \"notifications/progress\",\n",
                ">>>   \"method\": \"tools/call\",\n",
                "<<<   \"method\": \"notifications/message\",\n",
                "<<<   \"method\": \"notifications/message\",\n",
                "<<<   \"method\": \"notifications/message\",\n",
                ">>>   \"method\": \"resources/read\",\n",
                ">>>   \"method\": \"prompts/get\",\n",
                ">>>   \"method\": \"bogus/thing\",\n",
            )
        };
        let shown = unstamped(&text);
        assert_eq!(lines_with(&shown, "\"method\": \""), methods, "{era}");
        let read = text.find("\"method\": \"resources/read\"").unwrap();
        let get = text.find("\"method\": \"prompts/get\"").unwrap();
        assert!(read < get, "in the order given");
        // The level: set after the handshake (legacy), in each request's _meta (modern).
        assert_eq!(
            lines_with(&text, "logLevel"),
            if era == "legacy" {
                // Only the probe, sent before the era is known, carries it.
                ">>>       \"io.modelcontextprotocol/logLevel\": \"debug\"\n"
            } else {
                // Every request's _meta: the probe, tools/list, both calls, the three
                // --method requests.
                concat!(
                    ">>>       \"io.modelcontextprotocol/logLevel\": \"debug\"\n",
                    ">>>       \"io.modelcontextprotocol/logLevel\": \"debug\"\n",
                    ">>>       \"io.modelcontextprotocol/logLevel\": \"debug\",\n",
                    ">>>       \"io.modelcontextprotocol/logLevel\": \"debug\",\n",
                    ">>>       \"io.modelcontextprotocol/logLevel\": \"debug\",\n",
                    ">>>       \"io.modelcontextprotocol/logLevel\": \"debug\",\n",
                    ">>>       \"io.modelcontextprotocol/logLevel\": \"debug\",\n",
                )
            },
            "{era}"
        );
    }
}

/// Secrets are masked in the view and the record by default (same length, `*`), and
/// shown as they crossed with --show-secrets. (The library's client and recorder,
/// in-process, with what `--era legacy --header … [--show-secrets]` sets: the link's
/// extra header, the printer's redaction.)
#[test]
fn tokens_are_masked_unless_show_secrets() {
    use common::client_inproc::{drive_http_with, viewing};
    let server = demo_http("both");
    let url = format!("http://{}/mcp", server.addr);
    let dir = common::scratch("client", "secrets");
    let record = dir.join("masked.jsonl");
    let legacy = || Options {
        eras: Eras::Legacy,
        ..Options::default()
    };
    let bearer = |link: &mut mcp_raw_net::client::http_link::HttpLink| {
        link.extra_headers
            .push(("Authorization".into(), "Bearer s3cr3t-t0ken".into()));
    };
    let masked = drive_http_with(&url, legacy(), &[], viewing(Some(&record), "http"), bearer);
    // Each request's header line, whole: the token masked, its length kept.
    assert_eq!(
        lines_starting(&masked.view, ">>> authorization:"),
        ">>> authorization: Bearer ************\n".repeat(5)
    );
    assert!(!masked.view.contains("s3cr3t"));
    let recorded = std::fs::read_to_string(&record).unwrap();
    assert!(recorded.contains("Bearer ************"), "{recorded}");
    assert!(!recorded.contains("s3cr3t"));
    let (printer, trace) = viewing(None, "http");
    printer.recorder().set_redaction(false);
    let shown = drive_http_with(&url, legacy(), &[], (printer, trace), bearer);
    assert_eq!(
        lines_starting(&shown.view, ">>> authorization:"),
        ">>> authorization: Bearer s3cr3t-t0ken\n".repeat(5)
    );
}

/// `--log-level` against a legacy server that did not declare the `logging`
/// capability (the demo fixture declares tools only): no `logging/setLevel` is sent
/// (MCP 2025-11-25 `server/utilities/logging`: a server that logs MUST declare it),
/// and the client says why on stderr; the call still runs.
#[test]
fn log_level_asks_nothing_of_a_server_without_logging() {
    // The binary: the warning comes from the client library through `log`, which
    // the process's logger writes to the real stderr.
    let out = Command::new(BIN)
        .args([
            "client",
            "--era",
            "legacy",
            "--log-level",
            "debug",
            "--call",
        ])
        .args(["add={\"a\":1,\"b\":2}", "--", BIN, "serve"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}{err}");
    assert!(!text.contains("logging/setLevel"), "{text}");
    assert!(text.contains("\"method\": \"tools/call\""), "{text}");
    assert!(
        err.contains(
            "--log-level debug: the server did not declare the logging capability; no logging/setLevel sent"
        ),
        "{err}"
    );
}

/// `--trace-context`: every request the client sends (the handshake too) carries a
/// W3C `traceparent` in `params._meta`, in both eras: the trace named by
/// `TRACEPARENT` (and its `TRACESTATE`) when the environment gives one, else one new
/// trace for the run; each request from a span of its own. The recording shows the
/// bytes as sent. A `TRACEPARENT` that is not one: exit 2, quoted.
#[test]
fn trace_context_goes_in_every_requests_meta() {
    let dir = common::scratch("client", "trace-context");
    let parent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    for (era, env) in [
        ("legacy", Some(parent)),
        ("modern", Some(parent)),
        ("modern", None),
    ] {
        let file = dir.join(format!("{era}-{}.jsonl", env.is_some()));
        // The binary: TRACEPARENT is the environment of this one run.
        let mut cmd = Command::new(BIN);
        cmd.env_remove("TRACEPARENT").env_remove("TRACESTATE");
        if let Some(tp) = env {
            cmd.env("TRACEPARENT", tp).env("TRACESTATE", "vendor=1");
        }
        let out = cmd
            .args([
                "client",
                "--trace-context",
                "--era",
                era,
                "--call",
                "add={\"a\":1,\"b\":2}",
            ])
            .args(["--record", file.to_str().unwrap(), "--", BIN, "serve"])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = std::fs::read_to_string(&file).unwrap();
        let requests: Vec<serde_json::Value> = text
            .lines()
            .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
            .filter(|e| e["dir"] == "c2s")
            .filter_map(|e| {
                serde_json::from_str::<serde_json::Value>(e["text"].as_str()?.trim()).ok()
            })
            .filter(|m| m.get("id").is_some() && m.get("method").is_some())
            .collect();
        assert!(requests.len() >= 3, "{era}: {requests:?}");
        let mut spans = std::collections::HashSet::new();
        let mut traces = std::collections::HashSet::new();
        for r in &requests {
            let tp = r["params"]["_meta"]["traceparent"]
                .as_str()
                .unwrap_or_else(|| panic!("{r}"));
            let parts: Vec<&str> = tp.split('-').collect();
            assert_eq!((parts.len(), parts[0], parts[3]), (4, "00", "01"), "{tp}");
            traces.insert(parts[1].to_owned());
            spans.insert(parts[2].to_owned());
            let state = r["params"]["_meta"].get("tracestate");
            assert_eq!(
                state.and_then(|s| s.as_str()),
                env.map(|_| "vendor=1"),
                "{r}"
            );
        }
        assert_eq!(traces.len(), 1, "{era}: one trace for the run: {traces:?}");
        assert_eq!(spans.len(), requests.len(), "{era}: a span per request");
        if env.is_some() {
            assert!(traces.contains("4bf92f3577b34da6a3ce929d0e0e4736"));
            assert!(
                !spans.contains("00f067aa0ba902b7"),
                "sent from a span of its own"
            );
        }
    }
    let out = Command::new(BIN)
        .env("TRACEPARENT", "00-xyz")
        .args(["client", "--trace-context", "--", BIN, "serve"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "mcp-raw: --trace-context: TRACEPARENT in the environment: traceparent \"00-xyz\": not version-traceid-parentid-flags\n"
    );
}
