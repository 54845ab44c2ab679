//! `mcp-raw load` run in-process (`cli_here`: the command line, its printing and exit
//! status are the binary's) against the real binary's servers: `serve --http` (its
//! recording read back by `stats` to count what arrived) and `serve` over stdio, a
//! process per client. Each run is a second or two at most.

mod common;
use common::cli_inproc::{Ran, cli_here};
use common::{BIN, HttpServer, InProcess};
use serde_json::Value;

fn load(args: &[&str]) -> Ran {
    cli_here(std::iter::once("load").chain(args.iter().copied()))
}

fn json(ran: &Ran) -> Value {
    serde_json::from_slice(&ran.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}\n{}", ran.out(), ran.err()))
}

/// A file in a fresh directory of this test's own (removed at the end by the caller).
fn scratch(name: &str) -> std::path::PathBuf {
    common::scratch("load", name).join(name)
}

/// A closed loop of `--requests N` makes exactly N calls over all clients: the
/// report says so, and the server's own recording holds exactly N `tools/call`s.
#[test]
fn requests_n_are_exactly_n_calls_on_the_wire() {
    let record = scratch("exact.jsonl");
    let server = HttpServer::start(&["--record", record.to_str().unwrap()]);
    let url = format!("http://{}/mcp", server.addr);
    for era in ["legacy", "modern"] {
        let ran = load(&[
            "-q",
            "--format",
            "json",
            "--clients",
            "3",
            "--requests",
            "50",
            "--era",
            era,
            "--call",
            r#"echo={"message":"x"}"#,
            &url,
        ]);
        assert!(ran.ok(), "{}", ran.err());
        let doc = json(&ran);
        assert_eq!(doc["calls"], 50, "{doc}");
        assert_eq!(doc["errors"], 0, "{doc}");
        assert_eq!(doc["tools"][0]["name"], "echo");
        assert_eq!(doc["tools"][0]["count"], 50);
        assert!(doc["era"].as_str().unwrap().contains(era), "{doc}");
    }
    drop(server);
    let stats = cli_here(["stats", "--format", "json", record.to_str().unwrap()]);
    let stats: Value = serde_json::from_slice(&stats.stdout).unwrap();
    assert_eq!(stats["methods"]["tools/call"]["count"], 100, "{stats}");
    assert_eq!(
        stats["methods"]["initialize"]["count"], 3,
        "legacy: a session per client"
    );
    let _ = std::fs::remove_dir_all(record.parent().unwrap());
}

/// Failures counted by kind over stdio (the conformance fixture, a server process
/// per client): a tool's isError, a JSON-RPC error code; weights 1:1:1 over 30 calls
/// make exactly ten of each. `--max-errors` below the count exits 1.
#[test]
fn failures_are_counted_by_kind_and_gate_the_exit() {
    let scenario = scratch("mix.json");
    std::fs::write(
        &scenario,
        r#"{"calls":[{"tool":"test_error_handling"},{"tool":"test_simple_text"},{"method":"no/such/method"}]}"#,
    )
    .unwrap();
    let args = |max: &'static str| {
        load(&[
            "-q",
            "--format",
            "json",
            "--clients",
            "2",
            "--requests",
            "30",
            "--era",
            "legacy",
            "--scenario",
            scenario.to_str().unwrap(),
            "--max-errors",
            max,
            "--",
            BIN,
            "serve",
            "--fixture",
            "conformance",
        ])
    };
    let ran = args("19");
    assert_eq!(ran.status.0, 1, "{}", ran.err());
    let doc = json(&ran);
    assert_eq!(doc["errors_by_kind"]["isError"], 10, "{doc}");
    assert_eq!(doc["errors_by_kind"]["jsonrpc -32601"], 10, "{doc}");
    assert_eq!(doc["errors"], 20);
    assert_eq!(
        doc["broken"][0],
        "20 failures are more than --max-errors 19"
    );
    let tools: Vec<(&str, u64)> = doc["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| (t["name"].as_str().unwrap(), t["errors"].as_u64().unwrap()))
        .collect();
    assert_eq!(
        tools,
        [("test_error_handling", 10), ("test_simple_text", 0)]
    );
    assert_eq!(args("20").status.0, 0);
    let _ = std::fs::remove_dir_all(scenario.parent().unwrap());
}

/// `--max-p99 0`: any answered call is slower than 0 ms, so the run exits 1 and says
/// why; a generous one passes. The text report has the tables and the BROKEN line.
#[test]
fn max_p99_gates_the_exit() {
    // The server in-process on port 0: load is the subject, not the server.
    let server = InProcess::demo();
    let url = format!("http://{}/mcp", server.addr);
    let ran = load(&[
        "-q",
        "--requests",
        "20",
        "--max-p99",
        "0",
        "--call",
        "echo",
        &url,
    ]);
    assert_eq!(ran.status.0, 1, "{}", ran.err());
    let out = ran.out();
    assert!(
        out.contains("BROKEN: p99 ") && out.contains("is over --max-p99 0.000 ms"),
        "{out}"
    );
    assert!(
        out.contains("\ntools/call ") && out.contains("\necho "),
        "{out}"
    );
    let ran = load(&[
        "-q",
        "--requests",
        "20",
        "--max-p99",
        "60000",
        "--call",
        "echo",
        &url,
    ]);
    assert_eq!(ran.status.0, 0, "{}", ran.out());
}

/// Open loop: call k is due at k / rate, none after the duration: at 100 calls/s for
/// one second no more than 100 go, and (four clients, each call well under 10 ms)
/// nearly all of them; the run lasts about the duration. Progress lines, a second
/// apart, are on stderr (not a terminal).
#[test]
fn an_open_loop_keeps_its_schedule() {
    // The server in-process on port 0: load is the subject, not the server.
    let server = InProcess::demo();
    let url = format!("http://{}/mcp", server.addr);
    let ran = load(&[
        "--format",
        "json",
        "--clients",
        "4",
        "--rate",
        "100",
        "--duration",
        "1.5",
        &url,
    ]);
    assert!(ran.ok(), "{}", ran.err());
    let doc = json(&ran);
    let calls = doc["calls"].as_u64().unwrap();
    assert!(
        (120..=150).contains(&calls),
        "{calls} calls at 100/s over 1.5 s: {doc}"
    );
    assert_eq!(doc["loop"], "open");
    assert_eq!(doc["methods"][0]["name"], "tools/list", "the default mix");
    let elapsed = doc["elapsed_s"].as_f64().unwrap();
    assert!((1.3..4.0).contains(&elapsed), "{elapsed}");
    assert!(
        ran.err()
            .contains("[mcp-raw load]    1 s: 4 clients connected"),
        "{}",
        ran.err()
    );
}

/// A stdio server's cost: each client's process read from /proc before it closes.
#[test]
#[cfg(target_os = "linux")]
fn a_stdio_servers_cpu_and_rss_are_reported() {
    let ran = load(&[
        "-q",
        "--format",
        "json",
        "--clients",
        "2",
        "--requests",
        "2000",
        "--call",
        r#"add={"a":2,"b":3}"#,
        "--",
        BIN,
        "serve",
    ]);
    assert!(ran.ok(), "{}", ran.err());
    let doc = json(&ran);
    assert_eq!(doc["server"]["processes"], 2, "{doc}");
    assert!(doc["server"]["cpu_ms"].as_f64().unwrap() > 0.0, "{doc}");
    assert!(
        doc["server"]["peak_rss_kib"].as_u64().unwrap() > 1000,
        "{doc}"
    );
    for key in ["p50_ms", "p90_ms", "p99_ms", "max_ms"] {
        assert!(doc["all"][key].as_f64().unwrap() > 0.0, "{key}: {doc}");
    }
    assert!(doc["throughput"].as_f64().unwrap() > 0.0);
}

/// Nobody listening: each client's failure to connect is counted, and the run exits 1.
#[test]
fn no_server_is_a_failure_counted_as_connect() {
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/mcp", port.local_addr().unwrap());
    drop(port);
    let ran = load(&[
        "-q",
        "--format",
        "json",
        "--clients",
        "2",
        "--requests",
        "5",
        &url,
    ]);
    assert_eq!(ran.status.0, 1);
    assert_eq!(json(&ran)["errors_by_kind"]["connect"], 2);
    assert!(
        ran.err().contains("no client could connect"),
        "{}",
        ran.err()
    );
}

/// Bad flags exit 2, the value quoted.
#[test]
fn bad_flags_are_refused_with_the_value() {
    for (args, says) in [
        (&["--rate", "0", "http://127.0.0.1:9/mcp"][..], "got \"0\""),
        (&["--clients", "0", "http://127.0.0.1:9/mcp"], "0"),
        (
            &["--max-p99", "soon", "http://127.0.0.1:9/mcp"],
            "got \"soon\"",
        ),
        (
            &["--call", "x=[1]", "http://127.0.0.1:9/mcp"],
            "--call \"x=[1]\": the arguments must be a JSON object",
        ),
        (
            &["--call", "x={", "http://127.0.0.1:9/mcp"],
            "--call \"x={\": the arguments are not JSON",
        ),
        (
            &["localhost:3000/mcp"],
            "did you mean http://localhost:3000/mcp?",
        ),
        (
            &["--header", "nocolon", "http://127.0.0.1:9/mcp"],
            "--header \"nocolon\"",
        ),
    ] {
        let ran = load(args);
        assert_eq!(ran.status.0, 2, "{args:?}: {}", ran.err());
        assert!(ran.err().contains(says), "{args:?}: {}", ran.err());
    }
    let scenario = scratch("typo.json");
    std::fs::write(&scenario, r#"{"calls":[{"tool":"echo","wieght":2}]}"#).unwrap();
    let ran = load(&[
        "--scenario",
        scenario.to_str().unwrap(),
        "http://127.0.0.1:9/mcp",
    ]);
    assert_eq!(ran.status.0, 2);
    assert!(
        ran.err().contains("calls[0]: unknown key \"wieght\""),
        "{}",
        ran.err()
    );
    let _ = std::fs::remove_dir_all(scenario.parent().unwrap());
}

/// `--record-sample N`: the first N clients' sessions recorded, each a transcript
/// `stats` and `check` read: the calls in the two sampled sessions add up to exactly
/// the run's 14 (which client made which is a race), and a client past N (none here)
/// records nothing. A directory that cannot be written is refused (2) before any load.
#[test]
fn record_sample_writes_the_first_clients_sessions() {
    let dir = common::scratch("load", "sample");
    let ran = load(&[
        "-q",
        "--clients",
        "2",
        "--requests",
        "14",
        "--era",
        "legacy",
        "--record-sample",
        "2",
        "--sample-dir",
        dir.to_str().unwrap(),
        "--call",
        "echo",
        "--",
        BIN,
        "serve",
    ]);
    assert!(ran.ok(), "{}", ran.err());
    assert!(!dir.join("client-2.jsonl").exists());
    let mut calls = 0;
    for i in 0..2 {
        let sample = dir.join(format!("client-{i}.jsonl"));
        let stats = cli_here(["stats", "--format", "json", sample.to_str().unwrap()]);
        let stats: Value = serde_json::from_slice(&stats.stdout).unwrap();
        // A client that lost every race for a ticket made no call at all.
        calls += stats["methods"]["tools/call"]["count"]
            .as_u64()
            .unwrap_or(0);
        assert_eq!(stats["methods"]["initialize"]["count"], 1, "{stats}");
        let check = cli_here(["check", sample.to_str().unwrap()]);
        assert!(check.ok(), "{}", check.out());
    }
    assert_eq!(calls, 14);
    let ran = load(&[
        "--record-sample",
        "1",
        "--sample-dir",
        "/nonexistent/dir",
        "http://127.0.0.1:9/mcp",
    ]);
    assert_eq!(ran.status.0, 2);
    assert!(
        ran.err()
            .contains("--record-sample: cannot write /nonexistent/dir/client-0.jsonl"),
        "{}",
        ran.err()
    );
    let _ = std::fs::remove_dir_all(dir);
}

/// A call slower than `--timeout` counts as a `timeout` (the conformance fixture's
/// progress tool takes 100 ms; the clock is 30 ms), over stdio and HTTP, with the
/// first one said in words.
#[test]
fn a_slow_call_is_a_timeout() {
    let server = InProcess::conformance();
    let url = format!("http://{}/mcp", server.addr);
    let stdio = ["--", BIN, "serve", "--fixture", "conformance"];
    for target in [&[url.as_str()][..], &stdio[..]] {
        let mut args = vec![
            "-q",
            "--format",
            "json",
            "--requests",
            "2",
            "--era",
            "legacy",
            "--timeout",
            "0.03",
            "--call",
            "test_tool_with_progress",
        ];
        args.extend_from_slice(target);
        let ran = load(&args);
        let doc = json(&ran);
        assert_eq!(doc["errors_by_kind"]["timeout"], 2, "{target:?}: {doc}");
        assert!(
            !doc["error_examples"]["timeout"]
                .as_str()
                .unwrap()
                .is_empty()
        );
    }
}

/// `--ramp-up`: client i starts at ramp × i / N; one whose start falls after the
/// duration never connects. Four clients over 2 s, a 1 s run: those at 0 s and
/// 0.5 s connect, those at 1 s and 1.5 s do not.
#[test]
fn the_ramp_spreads_the_clients_starts() {
    // The server in-process on port 0: load is the subject, not the server.
    let server = InProcess::demo();
    let url = format!("http://{}/mcp", server.addr);
    let ran = load(&[
        "-q",
        "--format",
        "json",
        "--clients",
        "4",
        "--ramp-up",
        "2",
        "--duration",
        "1",
        &url,
    ]);
    assert!(ran.ok(), "{}", ran.err());
    let doc = json(&ran);
    assert_eq!(doc["clients"], 4, "{doc}");
    assert_eq!(doc["connected"], 2, "{doc}");
    assert!(doc["calls"].as_u64().unwrap() > 0, "{doc}");
}

/// `--mix-from FILE`: a session `mcp-raw client` recorded against `serve` (legacy:
/// initialize and logging/setLevel, which are left out; `add` twice, `echo` once, and
/// the client's own tools/list) replayed as a mix of weights 2:1:1. Forty calls make
/// exactly 20, 10 and 10, each with the recorded arguments (the server's recording
/// holds the bytes). A file that is not a recording, and a recording with no
/// request to replay, exit 2 naming the file.
#[test]
fn mix_from_replays_a_recorded_clients_requests_by_weight() {
    let dir = common::scratch("load", "mix-from");
    let session = dir.join("session.jsonl");
    let served = dir.join("served.jsonl");
    // A process: the server must outlive two in-process runs and record both.
    let server = HttpServer::start(&["--record", served.to_str().unwrap()]);
    let url = format!("http://{}/mcp", server.addr);
    let recorded = cli_here([
        "client",
        "--era",
        "legacy",
        "--log-level",
        "info",
        "--record",
        session.to_str().unwrap(),
        "--call",
        r#"add={"a":2,"b":40}"#,
        "--call",
        r#"echo={"message":"from the recording"}"#,
        "--call",
        r#"add={"a":2,"b":40}"#,
        &url,
    ]);
    assert!(recorded.ok(), "{}", recorded.err());
    let ran = load(&[
        "-q",
        "--format",
        "json",
        "--clients",
        "2",
        "--requests",
        "40",
        "--mix-from",
        session.to_str().unwrap(),
        &url,
    ]);
    assert!(ran.ok(), "{}", ran.err());
    let doc = json(&ran);
    let counts = |key: &str| -> Vec<(String, u64)> {
        doc[key]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| {
                (
                    m["name"].as_str().unwrap().to_owned(),
                    m["count"].as_u64().unwrap(),
                )
            })
            .collect()
    };
    assert_eq!(
        counts("methods"),
        [("tools/call".to_owned(), 30), ("tools/list".to_owned(), 10)],
        "{doc}"
    );
    assert_eq!(
        counts("tools"),
        [("add".to_owned(), 20), ("echo".to_owned(), 10)],
        "{doc}"
    );
    assert_eq!(doc["errors"], 0, "{doc}");
    drop(server);
    // The recorded arguments went out as they were: once each in the client's own
    // session, then 20 and 10 times from the load.
    let wire = std::fs::read_to_string(&served).unwrap();
    assert_eq!(
        wire.matches(r#"\"arguments\":{\"a\":2,\"b\":40}"#).count(),
        22
    );
    assert_eq!(
        wire.matches(r#"\"arguments\":{\"message\":\"from the recording\"}"#)
            .count(),
        11
    );

    let not_a_recording = dir.join("notes.txt");
    std::fs::write(&not_a_recording, "just some notes\n").unwrap();
    let header_only = dir.join("empty.jsonl");
    let first = std::fs::read_to_string(&session).unwrap();
    std::fs::write(&header_only, first.lines().next().unwrap()).unwrap();
    for (file, says) in [
        (&not_a_recording, "is not a transcript mcp-raw can read"),
        (&header_only, "no request to replay"),
    ] {
        let ran = load(&[
            "--mix-from",
            file.to_str().unwrap(),
            "http://127.0.0.1:9/mcp",
        ]);
        assert_eq!(ran.status.0, 2, "{}", ran.err());
        assert!(ran.err().contains(file.to_str().unwrap()), "{}", ran.err());
        assert!(ran.err().contains(says), "{}", ran.err());
    }
    let _ = std::fs::remove_dir_all(dir);
}

/// `load` against a protected server over TLS: `serve --http --tls-cert … --auth-server
/// ISSUER --required-scope mcp:tools` (in-process, built as the flags build it), the
/// CA trusted with `--cacert`, a token from the project's authorization server
/// (client credentials, for this resource) given with `--header "Authorization: Bearer
/// …"`. Every call gets through, in both eras. Without the header, each client runs
/// the OAuth flow itself, or with `--share-token` one first connection does for all;
/// without `--cacert` the certificate does not verify.
#[test]
fn load_reaches_a_protected_server_over_https_with_a_bearer_header() {
    use common::http_client::exchange;
    use mcp_raw_net::transport::http;
    let pki = common::pki::Pki::new("load", "https");
    pki.good();
    let auth = common::tools_inproc::AuthPeer::start(mcp_raw_tools::authserver::Config {
        scopes: vec!["mcp:tools".into()],
        ..Default::default()
    });
    let mut settings = http::auth::Settings::new(&auth.issuer);
    settings.required_scopes = vec!["mcp:tools".into()];
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let addr = runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap().to_string();
        settings.resource = format!("https://{addr}/mcp");
        settings
            .check()
            .expect("settings serve --http would accept");
        let config = http::Config {
            auth: Some(settings),
            tls: common::client_inproc::tls_flags(
                std::path::Path::new(&pki.path("good.pem")),
                std::path::Path::new(&pki.path("good.key")),
                None,
            ),
            ..http::Config::default()
        };
        let server = mcp_raw_core::Server::new(
            mcp_raw_core::content::demo::tool_set(),
            mcp_raw_core::Eras::Both,
        );
        let app = http::App::new(server, config);
        tokio::spawn(http::serve(listener, app, std::future::pending()));
        addr
    });
    let url = format!("https://{addr}/mcp");

    // A confidential client registered at the authorization server, then a token for
    // this resource by client credentials (RFC 6749 §4.4, RFC 8707's resource).
    let post = |target: &str, kind: &str, body: &str| -> Value {
        let req = format!(
            "POST {target} HTTP/1.1\r\nHost: {a}\r\nConnection: close\r\nContent-Type: {kind}\r\nContent-Length: {n}\r\n\r\n{body}",
            a = auth.addr,
            n = body.len()
        );
        let reply = exchange(&auth.addr, req.as_bytes());
        serde_json::from_slice(&reply.body).unwrap_or_else(|e| panic!("{e}: {}", reply.text()))
    };
    let client = post(
        "/register",
        "application/json",
        r#"{"redirect_uris":["http://127.0.0.1:9/cb"],"token_endpoint_auth_method":"client_secret_post"}"#,
    );
    let enc = mcp_raw_wire::form::escape;
    let token = post(
        "/token",
        "application/x-www-form-urlencoded",
        &format!(
            "grant_type=client_credentials&client_id={}&client_secret={}&scope=mcp:tools&resource={}",
            enc(client["client_id"].as_str().unwrap()),
            enc(client["client_secret"].as_str().unwrap()),
            enc(&url)
        ),
    );
    let bearer = format!(
        "Authorization: Bearer {}",
        token["access_token"].as_str().unwrap()
    );
    let cacert = pki.path("ca.pem");
    let run = |extra: &[&str]| {
        let mut args = vec![
            "-q",
            "--format",
            "json",
            "--clients",
            "2",
            "--requests",
            "20",
        ];
        args.extend_from_slice(extra);
        args.extend_from_slice(&["--call", r#"add={"a":2,"b":40}"#, &url]);
        load(&args)
    };
    for era in ["legacy", "modern"] {
        let ran = run(&["--era", era, "--cacert", &cacert, "--header", &bearer]);
        assert!(ran.ok(), "{}", ran.err());
        let doc = json(&ran);
        assert_eq!(doc["calls"], 20, "{doc}");
        assert_eq!(doc["errors"], 0, "{doc}");
        assert!(doc["era"].as_str().unwrap().contains(era), "{doc}");
    }
    // No token given: each client meets the 401 and runs the OAuth flow itself (the
    // project's authorization server approves at once); with --share-token only a
    // first connection does, and the clients present its token. The two sampled
    // sessions show which: a POST /token in each, or none and no 401.
    let dir = common::scratch("load", "https-samples");
    for (share, tokens) in [(false, 2), (true, 0)] {
        let sample_dir = dir.join(format!("share-{share}"));
        std::fs::create_dir_all(&sample_dir).unwrap();
        let mut extra = vec!["--cacert", &cacert, "--record-sample", "2", "--sample-dir"];
        extra.push(sample_dir.to_str().unwrap());
        if share {
            extra.push("--share-token");
        }
        let ran = run(&extra);
        assert!(ran.ok(), "{}", ran.err());
        assert_eq!(json(&ran)["errors"], 0);
        let mut posts = 0;
        for i in 0..2 {
            let wire =
                std::fs::read_to_string(sample_dir.join(format!("client-{i}.jsonl"))).unwrap();
            posts += wire.matches(r#""start":"POST /token HTTP/1.1""#).count();
            assert_eq!(wire.contains("HTTP/1.1 401"), !share, "{wire}");
        }
        assert_eq!(posts, tokens, "share {share}");
    }
    let ran = run(&["--header", &bearer]);
    assert_eq!(
        ran.status.0, 1,
        "the test CA not trusted: no client connects"
    );
    assert_eq!(json(&ran)["errors_by_kind"]["connect"], 2, "{}", ran.out());
    assert!(ran.out().contains("certificate"), "{}", ran.out());
    let ran = load(&["--cacert", &cacert, "--", BIN, "serve"]);
    assert_eq!(ran.status.0, 2);
    assert!(
        ran.err()
            .contains("--cacert and --share-token apply to http:// and https:// targets only"),
        "{}",
        ran.err()
    );
    drop(runtime);
    let _ = std::fs::remove_dir_all(&pki.dir);
    let _ = std::fs::remove_dir_all(dir);
}
