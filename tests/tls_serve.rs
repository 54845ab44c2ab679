//! mcp-raw's own listeners over TLS (`--tls-cert FILE --tls-key FILE`), through the
//! real binary: `serve --http`, `bridge`, `replay` and `auth-server` terminate TLS,
//! everything above them sees the plaintext as before, and each side's recording
//! has the handshake's facts. The certificates are made here with rcgen.

mod common;
use common::cli_inproc::{Ran, cli_here};
use common::client_inproc::{
    ADDED_LEGACY, ADDED_MODERN, demo, lines_starting, lines_with, opened, server_recorder,
    show_text, text_lines, tls_flags, without_durations,
};
use common::golden::normalize;
use common::pki::{Pki, openssl_fingerprint as fingerprint, tls_events};
use common::{BIN, InProcess, missing_program};
use mcp_raw_net::transport::http;
use serde_json::Value;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

const ADD: &str = r#"add={"a":2,"b":40}"#;

/// A CA and one leaf it signed (localhost and 127.0.0.1): ca.pem, good.pem, good.key;
/// a client certificate it signed, me.pem and me.key; and a key that fits nothing,
/// other.key.
fn serving_pki(name: &str) -> Pki {
    let pki = Pki::new("tls-serve", name);
    pki.good();
    pki.client();
    pki.other_key();
    pki
}

/// An mcp-raw listener (any subcommand), killed on drop; its stderr kept.
struct Listener {
    child: Child,
    /// `https://ADDR…` as its first log line says.
    url: String,
    /// `ADDR` (host:port) of that URL.
    addr: String,
    /// Its stderr after the listening line, and a signal at each line added.
    log: Arc<(Mutex<String>, Condvar)>,
}

impl Drop for Listener {
    fn drop(&mut self) {
        common::stop(&mut self.child);
    }
}

impl Listener {
    fn start(args: &[String]) -> Listener {
        // Each listener's own log line (https://…) and flags are the subject: a process.
        let mut child = Command::new(BIN)
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
        let mut seen = String::new();
        let url = loop {
            let line = lines
                .next()
                .unwrap_or_else(|| panic!("exited before listening: {seen}"))
                .unwrap();
            seen.push_str(&line);
            if let Some(rest) = line.split("listening on ").nth(1) {
                break rest.split([',', ' ']).next().unwrap().to_owned();
            }
        };
        let addr = url
            .trim_start_matches("https://")
            .trim_start_matches("http://")
            .split('/')
            .next()
            .unwrap()
            .to_owned();
        let log = Arc::new((Mutex::new(String::new()), Condvar::new()));
        let keep = log.clone();
        std::thread::spawn(move || {
            for line in lines.map_while(Result::ok) {
                let (text, added) = &*keep;
                let mut log = text.lock().unwrap();
                log.push_str(&line);
                log.push('\n');
                added.notify_all();
            }
        });
        Listener {
            child,
            url,
            addr,
            log,
        }
    }

    fn port(&self) -> &str {
        self.addr.rsplit(':').next().unwrap()
    }

    /// The log, once it holds `what` (or after five seconds): each line added wakes
    /// the wait.
    fn logged(&self, what: &str) -> String {
        let (text, added) = &*self.log;
        let log = text.lock().unwrap();
        let (log, _) = added
            .wait_timeout_while(log, Duration::from_secs(5), |log| !log.contains(what))
            .unwrap();
        log.clone()
    }
}

/// `serve --http --port 0 --tls-cert good.pem --tls-key good.key` (the demo tools),
/// in-process, with `config`'s other settings.
fn serve_tls(pki: &Pki, config: http::Config) -> InProcess {
    let tls = tls_flags(
        Path::new(&pki.path("good.pem")),
        Path::new(&pki.path("good.key")),
        None,
    );
    InProcess::with(demo("both"), http::Config { tls, ..config })
}

/// The port of an in-process server.
fn port_of(server: &InProcess) -> &str {
    server.addr.rsplit(':').next().unwrap()
}

fn strings(args: &[&str]) -> Vec<String> {
    args.iter().map(|s| s.to_string()).collect()
}

/// `mcp-raw client ARGS` with a time limit.
fn client(args: &[&str]) -> Output {
    Command::new("timeout")
        .args(["60", BIN, "client", "--color", "never"])
        .args(args)
        .env_remove("SSLKEYLOGFILE")
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

/// `client URL --cacert CA --call add {a: 2, b: 40} EXTRA…`: the client over
/// https:// (or plain http://), trusting the test CA.
fn add_trusting(pki: &Pki, url: &str, extra: &[&str]) -> Output {
    let ca = pki.path("ca.pem");
    let mut args = vec![url, "--cacert", &ca, "--call", ADD];
    args.extend_from_slice(extra);
    client(&args)
}

fn said(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr)
}

/// [`said`] of a command line run in-process.
fn said_here(out: &Ran) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned() + &out.err()
}

#[test]
fn serve_over_tls_answers_both_eras_and_both_recordings_have_the_facts() {
    let pki = serving_pki("serve");
    let server_record = pki.dir.join("server.jsonl");
    let server = serve_tls(
        &pki,
        http::Config {
            recorder: Some(server_recorder(&server_record)),
            ..Default::default()
        },
    );
    let url = format!("https://localhost:{}/mcp", port_of(&server));
    for era in ["legacy", "modern"] {
        let record = pki.dir.join(format!("client-{era}.jsonl"));
        let out = add_trusting(
            &pki,
            &url,
            &["--era", era, "--record", record.to_str().unwrap()],
        );
        let text = said(&out);
        assert_eq!(out.status.code(), Some(0), "{era}: {text}");
        assert_eq!(
            text_lines(&text),
            if era == "legacy" {
                ADDED_LEGACY
            } else {
                ADDED_MODERN
            },
            "{era}"
        );
        // The client's side: the server's certificate, checked against the CA.
        let facts = tls_events(&record);
        assert!(!facts.is_empty(), "{era}");
        assert_eq!(facts[0]["alpn"], "http/1.1", "{era}: {}", facts[0]);
        assert_eq!(
            facts[0]["chain"][0]["sha256"],
            fingerprint(&pki.path("good.pem")),
            "{era}"
        );
    }
    // The server's side: one event per accepted connection, what the client asked
    // for (SNI localhost) and what was agreed.
    let facts = tls_events(&server_record);
    assert!(facts.len() >= 2, "{facts:?}");
    for f in &facts {
        assert_eq!(f["accepted"], true, "{f}");
        assert_eq!(f["sni"], "localhost", "{f}");
        assert_eq!(f["version"], "TLSv1.3", "{f}");
        assert_eq!(f["alpn"], "http/1.1", "{f}");
        assert_eq!(f["client_cert"], false, "{f}");
        assert_eq!(f["cipher"], "TLS13_AES_256_GCM_SHA384", "{f}");
    }
    // Above TLS the recording is the plaintext HTTP, as on a plain listener.
    let text = std::fs::read_to_string(&server_record).unwrap();
    assert!(text.contains("POST /mcp HTTP/1.1"), "{text}");
    // Each connection the server accepted, over TLS: two for the legacy session, one
    // for the modern client.
    assert_eq!(
        normalize(&opened(&text)),
        "accepted from 127.0.0.1:<port> (TLS)\n".repeat(3)
    );
    // `show` renders the server side's facts (its text view, in-process).
    let shown = show_text(&server_record, false);
    // Whole lines (times, ports and durations normalized): the legacy client's
    // second connection resumed the first one's session.
    assert_eq!(
        without_durations(&normalize(&lines_with(&shown, "TLS (accepted): "))),
        concat!(
            "··· [c1 +<t>s] TLS (accepted): TLSv1.3 TLS13_AES_256_GCM_SHA384, ALPN http/1.1, SNI localhost, full handshake in <ms> ms\n",
            "··· [c2 +<t>s] TLS (accepted): TLSv1.3 TLS13_AES_256_GCM_SHA384, ALPN http/1.1, SNI localhost, resumed session in <ms> ms\n",
            "··· [c3 +<t>s] TLS (accepted): TLSv1.3 TLS13_AES_256_GCM_SHA384, ALPN http/1.1, SNI localhost, full handshake in <ms> ms\n",
        )
    );
}

#[test]
fn curl_speaks_to_serve_over_https() {
    if Command::new("curl").arg("--version").output().is_err() {
        return missing_program(
            "curl_speaks_to_serve_over_https",
            "curl",
            "apt-get install curl",
        );
    }
    let pki = serving_pki("curl");
    let server = serve_tls(&pki, http::Config::default());
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"curl","version":"1"}}}"#;
    let out = Command::new("curl")
        .args([
            "-sS",
            "-i",
            "--max-time",
            "20",
            "--cacert",
            &pki.path("ca.pem"),
        ])
        .args(["-H", "content-type: application/json"])
        .args(["-H", "accept: application/json, text/event-stream"])
        .args(["--data", body])
        .arg(format!("https://localhost:{}/mcp", port_of(&server)))
        .output()
        .unwrap();
    let text = said(&out);
    assert!(out.status.success(), "{text}");
    // The whole response (its session id and date normalized).
    assert_eq!(
        normalize(&text),
        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nmcp-session-id: <uuid>\r\n\
         content-length: 144\r\ndate: <date>\r\n\r\n\
         {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"protocolVersion\":\"2025-11-25\",\
         \"capabilities\":{\"tools\":{}},\"serverInfo\":{\"name\":\"mcp-raw\",\"version\":\"0.1.0\"}}}"
    );
}

#[test]
fn a_plaintext_client_on_the_tls_port_is_told_and_the_server_goes_on() {
    let pki = serving_pki("plain-on-tls");
    let mut args = strings(&["serve", "--http", "--port", "0"]);
    args.extend(pki.flags());
    let server = Listener::start(&args);
    // The binary names its listener https:// (the address it bound, /mcp).
    assert_eq!(server.url, format!("https://{}/mcp", server.addr));
    // Plain HTTP on the TLS port: a 400 it can read, saying to use https://.
    let mut tcp = std::net::TcpStream::connect(&server.addr).unwrap();
    tcp.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    tcp.write_all(b"POST /mcp HTTP/1.1\r\nhost: localhost\r\ncontent-length: 2\r\n\r\n{}")
        .unwrap();
    let mut answer = String::new();
    let _ = tcp.read_to_string(&mut answer);
    assert_eq!(
        answer,
        "HTTP/1.1 400 Bad Request\r\ncontent-type: text/plain\r\nconnection: close\r\n\
         content-length: 72\r\n\r\n\
         This port speaks TLS: use https:// (the request was sent in plain HTTP)\n"
    );
    let log = server.logged("plain HTTP");
    assert_eq!(
        normalize(&lines_with(&log, "plain HTTP")),
        "[mcp-raw] TLS connection from 127.0.0.1:<port> refused: the client spoke plain HTTP to the TLS port (answered 400: use https://)\n"
    );
    // mcp-raw's client, told http://, says what to do.
    let out = client(&[&format!("http://127.0.0.1:{}/mcp", server.port())]);
    let text = said(&out);
    assert_ne!(out.status.code(), Some(0), "{text}");
    // The 400's body, whole, shown as it came; then what the client made of it.
    assert_eq!(
        normalize(&lines_with(&text, "This port speaks TLS")) + &lines_starting(&text, "mcp-raw: "),
        "<<< [c1 +<t>s] This port speaks TLS: use https:// (the request was sent in plain HTTP)⟨0a⟩\n\
         mcp-raw: only a stdio probe can be silent\n"
    );
    // And a TLS client after them is served.
    let out = add_trusting(
        &pki,
        &format!("https://127.0.0.1:{}/mcp", server.port()),
        &[],
    );
    assert_eq!(out.status.code(), Some(0), "{}", said(&out));
}

#[test]
fn a_tls_client_on_a_plain_port_is_told_and_the_server_goes_on() {
    let server = InProcess::start(demo("both"));
    let out = client(&[&format!("https://{}/mcp", server.addr)]);
    let text = said(&out);
    assert_eq!(out.status.code(), Some(3), "{text}");
    assert_eq!(
        normalize(&text),
        "\n# Connecting to https://127.0.0.1:<port>/mcp (client eras: Both)\n\
         mcp-raw: TLS: 127.0.0.1:<port> did not answer in TLS (received corrupt message of type InvalidContentType): is it a plain http:// server? Then use http://\n"
    );
    let out = client(&[&format!("http://{}/mcp", server.addr), "--call", ADD]);
    assert_eq!(out.status.code(), Some(0), "{}", said(&out));
}

#[test]
fn a_handshake_that_never_finishes_is_closed_at_the_header_timeout() {
    let pki = serving_pki("slow-handshake");
    let mut args = strings(&[
        "serve",
        "--http",
        "--port",
        "0",
        "--header-timeout",
        "1",
        "--max-connections",
        "1",
    ]);
    args.extend(pki.flags());
    let server = Listener::start(&args);
    // The first byte of a handshake record, then nothing: it holds the only slot.
    let mut tcp = std::net::TcpStream::connect(&server.addr).unwrap();
    tcp.write_all(&[22]).unwrap();
    tcp.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let started = Instant::now();
    let mut rest = Vec::new();
    let _ = tcp.read_to_end(&mut rest);
    let waited = started.elapsed();
    assert!(waited < Duration::from_secs(5), "held {waited:?}");
    let log = server.logged("no complete TLS handshake");
    assert_eq!(
        normalize(&lines_with(&log, "TLS handshake")),
        "[mcp-raw] TLS connection from 127.0.0.1:<port> refused: no complete TLS handshake within 1 s (--header-timeout)\n"
    );
    // The slot is free again.
    let out = add_trusting(
        &pki,
        &format!("https://127.0.0.1:{}/mcp", server.port()),
        &[],
    );
    assert_eq!(out.status.code(), Some(0), "{}", said(&out));
}

#[test]
fn bad_tls_flags_are_usage_errors_that_name_the_file() {
    let pki = serving_pki("bad");
    std::fs::write(pki.dir.join("empty.pem"), "nothing here\n").unwrap();
    let run = |args: &[&str]| {
        // The CLI's refusals of bad TLS flags (stderr, exit status 2), before
        // anything listens.
        let out = cli_here(args);
        (out.status.code(), said_here(&out))
    };
    let (cert, key, other) = (
        pki.path("good.pem"),
        pki.path("good.key"),
        pki.path("other.key"),
    );
    let missing = pki.path("missing.pem");
    let empty = pki.path("empty.pem");
    // Each needs the other.
    let (code, text) = run(&["serve", "--http", "--port", "0", "--tls-cert", &cert]);
    assert_eq!(code, Some(2), "{text}");
    assert_eq!(
        text,
        "error: the following required arguments were not provided:\n  --tls-key <FILE>\n\n\
         Usage: mcp-raw serve --http --tls-cert <FILE> --tls-key <FILE> --port <PORT>\n\n\
         For more information, try '--help'.\n"
    );
    let (code, text) = run(&["bridge", "--port", "0", "--tls-key", &key, "--", "true"]);
    assert_eq!(code, Some(2), "{text}");
    assert_eq!(
        text,
        "mcp-raw: --tls-key needs --tls-cert (the certificate it belongs to)\n"
    );
    // An unreadable certificate, one with no certificate in it, a key of another.
    for (subcommand, cert, key, says) in [
        (
            "serve",
            missing.as_str(),
            key.as_str(),
            format!("--tls-cert {missing}: cannot read it: No such file or directory (os error 2)"),
        ),
        (
            "serve",
            empty.as_str(),
            key.as_str(),
            format!("--tls-cert {empty}: no \"-----BEGIN CERTIFICATE-----\" in it"),
        ),
        (
            "serve",
            cert.as_str(),
            empty.as_str(),
            format!("--tls-key {empty}: no private key read: no items found"),
        ),
        (
            "serve",
            cert.as_str(),
            other.as_str(),
            format!(
                "--tls-key {other} does not fit --tls-cert {cert}: keys may not be consistent: KeyMismatch"
            ),
        ),
        (
            "auth-server",
            missing.as_str(),
            key.as_str(),
            format!("--tls-cert {missing}: cannot read it: No such file or directory (os error 2)"),
        ),
        (
            "bridge",
            cert.as_str(),
            other.as_str(),
            format!(
                "--tls-key {other} does not fit --tls-cert {cert}: keys may not be consistent: KeyMismatch"
            ),
        ),
    ] {
        let mut args = vec![
            subcommand,
            "--port",
            "0",
            "--tls-cert",
            cert,
            "--tls-key",
            key,
        ];
        if subcommand == "serve" {
            args.insert(1, "--http");
        }
        if subcommand == "bridge" {
            args.extend(["--", "true"]);
        }
        let (code, text) = run(&args);
        assert_eq!(code, Some(2), "{args:?}: {text}");
        assert_eq!(text, format!("mcp-raw: {says}\n"), "{args:?}");
    }
    // stdio has no TLS.
    let (code, text) = run(&["serve", "--tls-cert", &cert, "--tls-key", &key]);
    assert_eq!(code, Some(2), "{text}");
    assert_eq!(
        text,
        "mcp-raw: --tls-cert and --tls-key need --http (stdio has no TLS)\n"
    );
}

#[test]
fn bridge_and_replay_listen_over_tls() {
    let pki = serving_pki("bridge-replay");
    let mut args = strings(&["bridge", "--port", "0"]);
    args.extend(pki.flags());
    args.extend(strings(&["--", BIN, "serve"]));
    let bridge = Listener::start(&args);
    assert_eq!(bridge.url, format!("https://{}/mcp", bridge.addr));
    let record = pki.dir.join("orig.jsonl");
    let out = add_trusting(
        &pki,
        &format!("https://localhost:{}/mcp", bridge.port()),
        &["--era", "legacy", "--record", record.to_str().unwrap()],
    );
    let text = said(&out);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert_eq!(text_lines(&text), ADDED_LEGACY);
    drop(bridge);
    // The recording replayed by a mock that listens with TLS too.
    let mut args = strings(&["replay", record.to_str().unwrap(), "--port", "0"]);
    args.extend(pki.flags());
    let mock = Listener::start(&args);
    assert_eq!(mock.url, format!("https://{}/mcp", mock.addr));
    let again = pki.dir.join("again.jsonl");
    let out = add_trusting(
        &pki,
        &format!("https://localhost:{}/mcp", mock.port()),
        &["--era", "legacy", "--record", again.to_str().unwrap()],
    );
    let text = said(&out);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert_eq!(text_lines(&text), ADDED_LEGACY);
    assert!(!tls_events(&again).is_empty());
}

#[test]
fn auth_server_listens_over_tls_and_names_itself_https() {
    if Command::new("curl").arg("--version").output().is_err() {
        return missing_program(
            "auth_server_listens_over_tls_and_names_itself_https",
            "curl",
            "apt-get install curl",
        );
    }
    let pki = serving_pki("auth-server");
    let mut args = strings(&["auth-server", "--port", "0"]);
    args.extend(pki.flags());
    let auth = Listener::start(&args);
    assert_eq!(auth.url, format!("https://{}", auth.addr));
    assert!(auth.addr.starts_with("127.0.0.1:"), "{}", auth.addr);
    let out = Command::new("curl")
        .args(["-sS", "--max-time", "20", "--cacert", &pki.path("ca.pem")])
        .arg(format!(
            "https://127.0.0.1:{}/.well-known/oauth-authorization-server",
            auth.port()
        ))
        .output()
        .unwrap();
    let text = said(&out);
    assert!(out.status.success(), "{text}");
    let metadata: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        metadata["issuer"],
        format!("https://127.0.0.1:{}", auth.port()),
        "{metadata}"
    );
    // The whole document: every endpoint it names is https://.
    let issuer = format!("https://127.0.0.1:{}", auth.port());
    assert_eq!(
        text,
        format!(
            "{{\"issuer\":\"{issuer}\",\"authorization_endpoint\":\"{issuer}/authorize\",\
             \"token_endpoint\":\"{issuer}/token\",\"registration_endpoint\":\"{issuer}/register\",\
             \"jwks_uri\":\"{issuer}/jwks\",\"scopes_supported\":[\"mcp:tools\"],\
             \"response_types_supported\":[\"code\"],\
             \"grant_types_supported\":[\"authorization_code\",\"refresh_token\",\"client_credentials\"],\
             \"code_challenge_methods_supported\":[\"S256\"],\
             \"token_endpoint_auth_methods_supported\":[\"client_secret_basic\",\"client_secret_post\",\"none\"],\
             \"authorization_response_iss_parameter_supported\":true}}"
        )
    );
}

/// The OAuth flow with both hops over TLS: `serve --http --tls-cert` protected by an
/// `auth-server --tls-cert` it reaches at `https://` (trusting the test CA by
/// `--auth-cacert`), and the client fetching everything over `https://`.
#[test]
fn a_protected_server_fetches_from_an_https_authorization_server() {
    let pki = serving_pki("oauth");
    let mut args = strings(&["auth-server", "--port", "0"]);
    args.extend(pki.flags());
    let auth = Listener::start(&args);
    let issuer = format!("https://127.0.0.1:{}", auth.port());
    let server_record = pki.dir.join("server.jsonl");
    let mut args = strings(&["serve", "--http", "--port", "0", "--auth-server", &issuer]);
    args.extend(strings(&["--required-scope", "mcp:tools", "--auth-cacert"]));
    args.push(pki.path("ca.pem"));
    args.push("--record".into());
    args.push(server_record.to_str().unwrap().into());
    args.extend(pki.flags());
    let server = Listener::start(&args);
    assert_eq!(server.url, format!("https://{}/mcp", server.addr));
    let record = pki.dir.join("client.jsonl");
    let out = add_trusting(
        &pki,
        &format!("https://127.0.0.1:{}/mcp", server.port()),
        &["--record", record.to_str().unwrap()],
    );
    let text = said(&out);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert_eq!(text_lines(&text), ADDED_MODERN);
    assert_eq!(
        lines_starting(&common::unstamped(&text), ">>> POST /token"),
        ">>> POST /token HTTP/1.1\n"
    );
    // The client crossed TLS to both: the MCP server and the authorization server.
    // The 401 came before the body was read, so it closed its connection (Connection:
    // close): the retry with the token opens one more.
    let opened_text = std::fs::read_to_string(&record).unwrap();
    assert_eq!(
        opened(&opened_text),
        format!("connected to 127.0.0.1:{} (TLS)\n", server.port()).repeat(2)
            + &format!("connected to 127.0.0.1:{} (TLS)\n", auth.port()).repeat(4)
            + &format!("connected to 127.0.0.1:{} (TLS)\n", server.port())
    );
    // The server's own fetches (metadata, key set) went over TLS, each lane with its
    // facts: the authorization server's certificate, checked against --auth-cacert.
    let facts = tls_events(&server_record);
    let fetched: Vec<&Value> = facts.iter().filter(|f| f["accepted"] == false).collect();
    assert!(!fetched.is_empty(), "{facts:?}");
    assert_eq!(
        fetched[0]["chain"][0]["sha256"],
        fingerprint(&pki.path("good.pem")),
        "{}",
        fetched[0]
    );
    assert!(facts.iter().any(|f| f["accepted"] == true), "{facts:?}");
    let shown = show_text(&server_record, false);
    assert_eq!(
        normalize(&lines_with(&shown, "GET /jwks")),
        ">>> [c5 +<t>s] GET /jwks HTTP/1.1\n"
    );
    assert_eq!(
        normalize(&lines_with(&shown, "(the authorization server, TLS)")),
        "··· [c4 +<t>s] connected to 127.0.0.1:<port> (the authorization server, TLS)\n\
         ··· [c5 +<t>s] connected to 127.0.0.1:<port> (the authorization server, TLS)\n"
    );
}

/// Without `--auth-cacert` the private CA is not trusted: the request that needs the
/// authorization server gets 503 and the log says why, naming the certificate.
#[test]
fn an_https_authorization_server_outside_the_trust_store_is_503_and_logged() {
    let pki = serving_pki("oauth-untrusted");
    let mut args = strings(&["auth-server", "--port", "0"]);
    args.extend(pki.flags());
    let auth = Listener::start(&args);
    let issuer = format!("https://127.0.0.1:{}", auth.port());
    let server = Listener::start(&strings(&[
        "serve",
        "--http",
        "--port",
        "0",
        "--auth-server",
        &issuer,
    ]));
    // The client trusts the CA and gets a token; the server cannot check it.
    let out = add_trusting(
        &pki,
        &format!("http://127.0.0.1:{}/mcp", server.port()),
        &[],
    );
    let text = said(&out);
    assert_ne!(out.status.code(), Some(0), "{text}");
    // Both requests (the probe, then initialize) get 503, each before its body was
    // read, so each ends its connection; the client says why.
    let unreachable = "mcp-raw: initialize failed: -32603 Service Unavailable: the token cannot be checked now, \
         the authorization server https://127.0.0.1:<port> is out of reach or its answer unusable \
         (the reason is in this server's log) (HTTP 503 Service Unavailable)\n";
    assert_eq!(
        normalize(&(lines_with(&text, "503") + &lines_starting(&text, "mcp-raw: "))),
        "<<< [c7 +<t>s] HTTP/1.1 503 Service Unavailable\n<<< [c8 +<t>s] HTTP/1.1 503 Service Unavailable\n"
            .to_owned()
            + &unreachable.repeat(2)
    );
    let log = server.logged("not signed by a trusted CA");
    // The first time it said so, whole: both documents it tried, each refused with the
    // reason and the certificate.
    let refused = format!(
        "TLS: the certificate of 127.0.0.1:<port> was refused: it is not signed by a trusted CA \
         (self-signed, or an unknown issuer) (certificate subject CN=localhost, issuer CN=mcp-raw test CA, \
         valid <time> to <time>, SHA-256 {}) (--cacert FILE trusts another root; --insecure skips the check)",
        fingerprint(&pki.path("good.pem"))
    );
    assert_eq!(
        normalize(
            lines_with(&log, "not signed by a trusted CA")
                .lines()
                .next()
                .unwrap()
        ),
        format!(
            "[mcp-raw] cannot check a token: no authorization server metadata for https://127.0.0.1:<port>: \
             GET https://127.0.0.1:<port>/.well-known/oauth-authorization-server: {refused}; \
             GET https://127.0.0.1:<port>/.well-known/openid-configuration: {refused}"
        )
    );
    // An unreadable --auth-cacert stops the server at start, naming it.
    // An unreadable --auth-cacert stops the CLI at start (stderr, exit status).
    let out = cli_here([
        "serve",
        "--http",
        "--port",
        "0",
        "--auth-server",
        &issuer,
        "--auth-cacert",
        "/nonexistent/ca.pem",
    ]);
    let text = said_here(&out);
    assert_eq!(out.status.code(), Some(2), "{text}");
    assert_eq!(
        text,
        "mcp-raw: --auth-cacert /nonexistent/ca.pem: cannot read /nonexistent/ca.pem: No such file or directory (os error 2)\n"
    );
}

/// `tap --http --target https://…`: a plaintext client on one side, a TLS server on
/// the other; the tap's recording is the plaintext both ways and the target lane's
/// TLS facts. With `--tls-cert` the tap's own listener speaks TLS too.
#[test]
fn the_tap_relays_to_an_https_target_and_listens_with_tls_too() {
    let pki = serving_pki("tap");
    let server = serve_tls(&pki, http::Config::default());
    let target = format!("https://localhost:{}/mcp", port_of(&server));
    // Plain on the client's side.
    let record = pki.dir.join("tap.jsonl");
    let tap = Listener::start(&strings(&[
        "tap",
        "--http",
        "--listen",
        "127.0.0.1:0",
        "--target",
        &target,
        "--cacert",
        &pki.path("ca.pem"),
        "--record",
        record.to_str().unwrap(),
    ]));
    assert_eq!(tap.url, format!("http://{}/mcp", tap.addr));
    let out = client(&[&format!("http://{}/mcp", tap.addr), "--call", ADD]);
    let text = said(&out);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert_eq!(text_lines(&text), ADDED_MODERN);
    let facts = tls_events(&record);
    assert!(!facts.is_empty(), "no tls event in the tap's record");
    for f in &facts {
        assert_eq!(f["accepted"], false, "{f}");
        assert_eq!(f["sni"], "localhost", "{f}");
        assert_eq!(
            f["chain"][0]["sha256"],
            fingerprint(&pki.path("good.pem")),
            "{f}"
        );
    }
    let recorded = std::fs::read_to_string(&record).unwrap();
    assert!(recorded.contains("POST /mcp HTTP/1.1"), "{recorded}");
    assert!(recorded.contains("\\\"result\\\""), "{recorded}");
    drop(tap);
    // TLS on both sides.
    let record = pki.dir.join("tap-both.jsonl");
    let mut args = strings(&[
        "tap",
        "--http",
        "--listen",
        "127.0.0.1:0",
        "--target",
        &target,
        "--cacert",
        &pki.path("ca.pem"),
        "--record",
        record.to_str().unwrap(),
    ]);
    args.extend(pki.flags());
    let tap = Listener::start(&args);
    assert_eq!(tap.url, format!("https://{}/mcp", tap.addr));
    let out = add_trusting(&pki, &format!("https://localhost:{}/mcp", tap.port()), &[]);
    let text = said(&out);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert_eq!(text_lines(&text), ADDED_MODERN);
    let facts = tls_events(&record);
    assert!(facts.iter().any(|f| f["accepted"] == true), "{facts:?}");
    assert!(facts.iter().any(|f| f["accepted"] == false), "{facts:?}");
    drop(tap);
    // A target whose certificate does not verify: 502, the reason and the
    // certificate named.
    let tap = Listener::start(&strings(&[
        "tap",
        "--http",
        "--listen",
        "127.0.0.1:0",
        "--target",
        &target,
    ]));
    let out = client(&[&format!("http://{}/mcp", tap.addr), "--call", ADD]);
    let text = said(&out);
    assert_ne!(out.status.code(), Some(0), "{text}");
    // The tap's 502, and its body whole: the reason and the certificate named.
    assert_eq!(
        normalize(
            &(lines_with(&text, "HTTP/1.1 502") + &lines_with(&text, "cannot reach the target"))
        ),
        format!(
            "<<< [c1 +<t>s] HTTP/1.1 502 Bad Gateway\n\
             <<< [c1 +<t>s] mcp-raw tap: cannot reach the target https://localhost:<port>/mcp: TLS: the certificate of \
             localhost:<port> was refused: it is not signed by a trusted CA (self-signed, or an unknown issuer) \
             (certificate subject CN=localhost, issuer CN=mcp-raw test CA, valid <time> to <time>, SHA-256 {}) \
             (--cacert FILE trusts another root; --insecure skips the check)⟨0a⟩\n",
            fingerprint(&pki.path("good.pem"))
        )
    );
    // --insecure and --cacert are for an https:// target.
    // The CLI's refusal of --insecure/--cacert for an http:// target.
    let out = cli_here([
        "tap",
        "--http",
        "--listen",
        "127.0.0.1:0",
        "--insecure",
        "--target",
        "http://127.0.0.1:1/mcp",
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", said_here(&out));
    assert_eq!(
        said_here(&out),
        "mcp-raw tap: --cacert and --insecure are for an https:// --target\n"
    );
}

/// Where nginx is: on PATH, or Debian's /usr/sbin (not on a user's PATH).
fn nginx() -> Option<String> {
    if Command::new("nginx").arg("-v").output().is_ok() {
        return Some("nginx".into());
    }
    Path::new("/usr/sbin/nginx")
        .exists()
        .then(|| "/usr/sbin/nginx".into())
}

/// nginx, stopped on drop: SIGTERM to the master, which stops its workers and exits
/// (a SIGKILL would leave the workers running, orphaned); SIGKILL only if it is
/// still there after 5 s. A thread waits for its exit, and says so.
struct Nginx {
    pid: String,
    exited: std::sync::mpsc::Receiver<()>,
}

impl Nginx {
    fn new(mut child: Child) -> Nginx {
        let pid = child.id().to_string();
        let (tx, exited) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let _ = child.wait();
            let _ = tx.send(());
        });
        Nginx { pid, exited }
    }
}

impl Drop for Nginx {
    fn drop(&mut self) {
        let _ = Command::new("kill").args(["-TERM", &self.pid]).status();
        if self.exited.recv_timeout(Duration::from_secs(5)).is_err() {
            let _ = Command::new("kill").args(["-KILL", &self.pid]).status();
            let _ = self.exited.recv();
        }
    }
}

/// deploy/nginx rendered with `--tls`: Debian's nginx terminates TLS in front of two
/// plain replicas, and `mcp-raw client https://` goes through it in both eras (the
/// legacy session stays on its replica, by its id's prefix).
#[test]
fn nginx_terminates_tls_in_front_of_the_replicas() {
    let Some(nginx) = nginx() else {
        return missing_program(
            "nginx_terminates_tls_in_front_of_the_replicas",
            "nginx",
            "apt-get install -y nginx",
        );
    };
    let pki = serving_pki("nginx");
    // `serve --http --session-id-prefix rI.`, in-process.
    let replicas: Vec<InProcess> = (1..=2)
        .map(|i| {
            InProcess::with(
                demo("both"),
                http::Config {
                    session_id_prefix: http::sessions::IdPrefix::new(&format!("r{i}.")).unwrap(),
                    ..Default::default()
                },
            )
        })
        .collect();
    let port = {
        let probe = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        probe.local_addr().unwrap().port().to_string()
    };
    let prefix = pki.dir.join("lb");
    std::fs::create_dir_all(prefix.join("logs")).unwrap();
    std::fs::create_dir_all(prefix.join("tmp")).unwrap();
    let mut render = Command::new(format!(
        "{}/deploy/nginx/render.sh",
        env!("CARGO_MANIFEST_DIR")
    ));
    render
        .args(["--tls", &pki.path("good.pem"), &pki.path("good.key")])
        .args(["sticky", &port]);
    for r in &replicas {
        render.arg(port_of(r));
    }
    let rendered = render.output().unwrap();
    assert!(rendered.status.success(), "{}", said(&rendered));
    let conf = prefix.join("nginx.conf");
    std::fs::write(&conf, &rendered.stdout).unwrap();
    let _nginx = Nginx::new(
        Command::new(&nginx)
            .arg("-p")
            .arg(&prefix)
            .arg("-c")
            .arg(&conf)
            .args(["-e", "logs/error.log", "-g", "daemon off;"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let until = Instant::now() + Duration::from_secs(10);
    while std::net::TcpStream::connect(format!("127.0.0.1:{port}")).is_err() {
        assert!(
            Instant::now() < until,
            "nginx did not listen: {}",
            std::fs::read_to_string(prefix.join("logs/error.log")).unwrap_or_default()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    for era in ["legacy", "modern"] {
        let record = pki.dir.join(format!("through-nginx-{era}.jsonl"));
        let out = add_trusting(
            &pki,
            &format!("https://localhost:{port}/mcp"),
            &["--era", era, "--record", record.to_str().unwrap()],
        );
        let text = said(&out);
        assert_eq!(out.status.code(), Some(0), "{era}: {text}");
        assert_eq!(
            text_lines(&text),
            if era == "legacy" {
                ADDED_LEGACY
            } else {
                ADDED_MODERN
            },
            "{era}"
        );
        let facts = tls_events(&record);
        assert!(!facts.is_empty(), "{era}");
        let version = facts[0]["version"].as_str().unwrap();
        assert!(version == "TLSv1.3" || version == "TLSv1.2", "{}", facts[0]);
        assert_eq!(
            facts[0]["chain"][0]["sha256"],
            fingerprint(&pki.path("good.pem")),
            "{era}"
        );
    }
}

/// `--tls-client-ca`: the listener asks for a client certificate and requires one
/// from that CA; the server's recording holds the client's chain.
#[test]
fn a_listener_with_a_client_ca_requires_and_records_the_clients_certificate() {
    let pki = serving_pki("mtls");
    let record = pki.dir.join("server.jsonl");
    let mut args = strings(&["serve", "--http", "--port", "0", "--record"]);
    args.push(record.to_str().unwrap().into());
    args.extend(pki.flags());
    args.extend(["--tls-client-ca".into(), pki.path("ca.pem")]);
    let server = Listener::start(&args);
    let url = format!("https://localhost:{}/mcp", server.port());
    let out = add_trusting(
        &pki,
        &url,
        &["--cert", &pki.path("me.pem"), "--key", &pki.path("me.key")],
    );
    let text = said(&out);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert_eq!(text_lines(&text), ADDED_MODERN);
    let facts = tls_events(&record);
    assert!(!facts.is_empty());
    for f in &facts {
        assert_eq!(f["accepted"], true, "{f}");
        assert_eq!(f["client_cert"], true, "{f}");
        assert_eq!(
            f["chain"][0]["sha256"],
            fingerprint(&pki.path("me.pem")),
            "{f}"
        );
        assert_eq!(f["chain"][0]["subject"], "CN=mcp-raw test client", "{f}");
    }
    // Without a certificate: refused, said on both sides.
    let out = client(&[&url, "--cacert", &pki.path("ca.pem"), "--call", ADD]);
    let text = said(&out);
    assert_eq!(out.status.code(), Some(3), "{text}");
    assert_eq!(
        normalize(&lines_starting(&text, "mcp-raw: ")),
        "mcp-raw: TLS: localhost:<port> ended the connection with the alert CertificateRequired: it requires a client certificate (--cert FILE --key FILE)\n"
    );
    let log = server.logged("refused");
    assert_eq!(
        normalize(&lines_with(&log, "TLS connection from")),
        "[mcp-raw] TLS connection from 127.0.0.1:<port> refused: TLS handshake failed: peer sent no certificates\n"
    );
    // The flag needs a listener with TLS.
    // The CLI's refusal of --tls-client-ca without a TLS listener (clap's).
    let ca = pki.path("ca.pem");
    let out = cli_here(["serve", "--http", "--port", "0", "--tls-client-ca", &ca]);
    assert_eq!(out.status.code(), Some(2), "{}", said_here(&out));
    assert_eq!(
        said_here(&out),
        "error: the following required arguments were not provided:\n  --tls-key <FILE>\n  --tls-cert <FILE>\n\n\
         Usage: mcp-raw serve --http --tls-key <FILE> --tls-cert <FILE> --port <PORT> --tls-client-ca <FILE>\n\n\
         For more information, try '--help'.\n"
    );
}
