//! `mcp-raw client https://…` through the real binary, against a TLS server mcp-raw
//! did not write: Python's `ssl` (OpenSSL) terminating TLS in front of `mcp-raw serve
//! --http` (tests/servers/tls_relay.py). The certificates are made here with rcgen: a
//! CA, a leaf for localhost and 127.0.0.1, an expired leaf, a leaf for another host,
//! a self-signed one, and a client certificate for mTLS.

mod common;
use common::client_inproc::{
    check_text, conformance_http, demo_http, lines_starting, lines_with, show_text, tls_notes,
};
use common::golden::normalize;
use common::pki::{Pki, openssl_fingerprint, tls_events};
use common::{BIN, InProcess, scratch, unstamped};
use serde_json::Value;
use std::path::PathBuf;
use std::process::{Child, Command, Output, Stdio};

const ADD: &str = r#"add={"a":2,"b":40}"#;

/// tests/servers/tls_relay.py in front of a plain HTTP server (mcp-raw's, in-process);
/// both stopped on drop.
struct Front {
    child: Child,
    port: String,
    /// The plain server behind it, when it is `mcp-raw serve --http`.
    _server: Option<InProcess>,
    /// What the relay logged (each handshake), read once it is gone.
    log: PathBuf,
}

impl Drop for Front {
    fn drop(&mut self) {
        common::stop(&mut self.child);
    }
}

impl Front {
    /// The relay in front of `mcp-raw serve --http` (the demo tools), in-process.
    fn start(pki: &Pki, leaf: &str, client_ca: bool) -> Front {
        Front::serving(pki, leaf, client_ca, demo_http("both"))
    }

    /// The relay in front of the plain HTTP server `server`, in-process.
    fn serving(pki: &Pki, leaf: &str, client_ca: bool, server: InProcess) -> Front {
        let target = server.addr.clone();
        let mut front = Front::before(pki, leaf, client_ca, &target);
        front._server = Some(server);
        front
    }

    /// The relay in front of the plain HTTP server at `target`.
    fn before(pki: &Pki, leaf: &str, client_ca: bool, target: &str) -> Front {
        let log = pki.dir.join(format!("relay-{leaf}.log"));
        let mut cmd = Command::new("python3");
        cmd.arg(format!(
            "{}/tests/servers/tls_relay.py",
            env!("CARGO_MANIFEST_DIR")
        ))
        .args(["--cert", &pki.path(&format!("{leaf}.pem"))])
        .args(["--key", &pki.path(&format!("{leaf}.key"))])
        .args(["--target", target]);
        if client_ca {
            cmd.args(["--client-ca", &pki.path("ca.pem")]);
        }
        let mut child = cmd
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(&log).unwrap())
            .spawn()
            .expect("python3");
        let mut port = String::new();
        std::io::BufRead::read_line(
            &mut std::io::BufReader::new(child.stdout.take().unwrap()),
            &mut port,
        )
        .unwrap();
        Front {
            child,
            port: port.trim().to_owned(),
            _server: None,
            log,
        }
    }

    fn url(&self, host: &str) -> String {
        format!("https://{host}:{}/mcp", self.port)
    }

    fn logged(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

/// `mcp-raw client ARGS` with a time limit, the environment's key log unset.
fn client(args: &[&str]) -> Output {
    Command::new("timeout")
        .args(["60", BIN, "client", "--color", "never"])
        .args(args)
        .env_remove("SSLKEYLOGFILE")
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

/// Stdout and stderr as they came, lane notes and stamps kept.
fn raw(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr)
}

fn text(out: &Output) -> String {
    unstamped(&String::from_utf8_lossy(&out.stdout)) + &String::from_utf8_lossy(&out.stderr)
}

#[test]
fn a_session_over_tls_works_and_its_transcript_has_the_tls_facts() {
    let pki = Pki::new("tls", "session");
    pki.good();
    let front = Front::start(&pki, "good", false);
    let record = pki.dir.join("t.jsonl");
    let out = client(&[
        &front.url("localhost"),
        "--cacert",
        &pki.path("ca.pem"),
        "--call",
        ADD,
        "--record",
        record.to_str().unwrap(),
    ]);
    let view = text(&out);
    assert!(out.status.success(), "{view}\nrelay: {}", front.logged());
    assert_eq!(
        lines_with(&view, "\"text\": "),
        "<<<     \"content\": [{\"type\": \"text\", \"text\": \"42\"}],\n"
    );
    // The live view's note when each connection opens, whole lines (times and
    // ports normalized).
    assert_eq!(
        tls_notes(&raw(&out)),
        "··· [c1 +<t>s] TLS: TLSv1.3 TLS13_AES_256_GCM_SHA384, ALPN http/1.1, SNI localhost, full handshake in <ms> ms\n"
    );
    // The plaintext is shown as over http://.
    assert_eq!(
        lines_starting(&view, ">>> POST "),
        ">>> POST /mcp HTTP/1.1\n".repeat(3)
    );

    let facts = tls_events(&record);
    assert!(!facts.is_empty(), "no tls event in the transcript");
    let first = &facts[0];
    assert_eq!(first["version"], "TLSv1.3", "{first}");
    assert_eq!(first["sni"], "localhost", "{first}");
    assert_eq!(first["alpn"], "http/1.1", "{first}");
    assert_eq!(first["insecure"], false, "{first}");
    assert_eq!(first["cipher"], "TLS13_AES_256_GCM_SHA384", "{first}");
    let leaf = &first["chain"][0];
    assert_eq!(leaf["subject"], "CN=localhost", "{leaf}");
    assert_eq!(leaf["issuer"], "CN=mcp-raw test CA", "{leaf}");
    assert_eq!(
        leaf["sha256"].as_str().unwrap(),
        openssl_fingerprint(&pki.path("good.pem")),
        "{leaf}"
    );
    assert_eq!(leaf["not_after"], "2090-01-01T00:00:00.000Z", "{leaf}");
    // The relay saw TLS 1.3 too: the facts are the handshake's, not made up.
    assert_eq!(
        lines_with(&front.logged(), "handshake: "),
        "handshake: TLSv1.3 TLS_AES_256_GCM_SHA384 client=None\n"
    );

    // A verified chain over TLS 1.3 breaks no TLS rule (`check`'s checker and text
    // report, in-process).
    let (errors, report) = check_text(&record);
    assert!(!errors, "{report}");
    assert_eq!(
        report,
        "0 errors, 0 warnings in 6 messages (10 events, 45 rules checked)\n"
    );

    // `show` renders them; `--explain` says what they mean (its text view, in-process).
    let shown = show_text(&record, false);
    let sha256 = leaf["sha256"].as_str().unwrap();
    assert_eq!(
        tls_notes(&shown) + &lines_with(&shown, sha256),
        format!(
            "··· [c1 +<t>s] TLS: TLSv1.3 TLS13_AES_256_GCM_SHA384, ALPN http/1.1, SNI localhost, full handshake in <ms> ms\n\
             \x20   (cert 0: CN=localhost (issuer CN=mcp-raw test CA), valid 2020-01-01T00:00:00.000Z to 2090-01-01T00:00:00.000Z, SHA-256 {sha256})\n"
        )
    );
    let explained = show_text(&record, true);
    assert_eq!(
        lines_with(&explained, "RFC 8446") + &lines_with(&explained, "RFC 6066"),
        concat!(
            "    ▸ TLSv1.3: the record layer's protocol (RFC 8446); what is shown above and below is the plaintext inside it\n",
            "    ▸ SNI localhost: the host name sent in the clear in ClientHello (RFC 6066 §3)\n",
        )
    );
}

#[test]
fn an_ip_address_gets_no_sni_and_the_facts_say_so() {
    let pki = Pki::new("tls", "ip");
    pki.good();
    let front = Front::start(&pki, "good", false);
    let record = pki.dir.join("t.jsonl");
    let out = client(&[
        &front.url("127.0.0.1"),
        "--cacert",
        &pki.path("ca.pem"),
        "--record",
        record.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out));
    let facts = tls_events(&record);
    assert_eq!(facts[0]["sni"], Value::Null, "{}", facts[0]);
    assert_eq!(facts[0]["server_name"], "127.0.0.1");
    assert_eq!(
        tls_notes(&raw(&out)),
        "··· [c1 +<t>s] TLS: TLSv1.3 TLS13_AES_256_GCM_SHA384, ALPN http/1.1, no SNI (IP address), full handshake in <ms> ms\n"
    );
}

#[test]
fn bad_certificates_are_refused_with_the_reason_and_the_subject() {
    let pki = Pki::new("tls", "bad");
    pki.leaf(
        "expired",
        "expired.test",
        &["localhost"],
        (2019, 2020),
        false,
    );
    pki.leaf(
        "elsewhere",
        "other.test",
        &["other.test"],
        (2020, 2090),
        false,
    );
    pki.leaf(
        "selfsigned",
        "self.test",
        &["localhost"],
        (2020, 2090),
        true,
    );
    // Leaves for the right host, signed by a CA the client does not trust: one of
    // another name, and an impostor with the trusted CA's name.
    for (leaf, ca) in [("wrongca", "another CA"), ("impostor", "mcp-raw test CA")] {
        let other = Pki::named("tls", &format!("bad-{leaf}"), ca);
        other.leaf(leaf, "localhost", &["localhost"], (2020, 2090), false);
        for ext in ["pem", "key"] {
            std::fs::copy(
                other.dir.join(format!("{leaf}.{ext}")),
                pki.dir.join(format!("{leaf}.{ext}")),
            )
            .unwrap();
        }
    }
    // The hint after the certificate: how to trust another root, or skip the check.
    const SKIP: &str = "--insecure skips the check";
    const ROOT_OR_SKIP: &str = "--cacert FILE trusts another root; --insecure skips the check";
    for (leaf, reason, cert, hint) in [
        (
            "expired",
            "it has expired (notAfter <time>, now <time>)",
            "subject CN=expired.test, issuer CN=mcp-raw test CA",
            SKIP,
        ),
        (
            "wrongca",
            "it is not signed by a trusted CA (self-signed, or an unknown issuer)",
            "subject CN=localhost, issuer CN=another CA",
            ROOT_OR_SKIP,
        ),
        (
            "impostor",
            "its signature does not verify",
            "subject CN=localhost, issuer CN=mcp-raw test CA",
            SKIP,
        ),
        (
            "elsewhere",
            "it is not valid for localhost (it names other.test)",
            "subject CN=other.test, issuer CN=mcp-raw test CA",
            SKIP,
        ),
        (
            "selfsigned",
            "it is not signed by a trusted CA (self-signed, or an unknown issuer)",
            "subject CN=self.test, issuer CN=self.test",
            ROOT_OR_SKIP,
        ),
    ] {
        let front = Front::start(&pki, leaf, false);
        // What went wrong, whole (times and the port normalized): the reason, the
        // certificate's subject, issuer and fingerprint, what to do.
        let fingerprint = openssl_fingerprint(&pki.path(&format!("{leaf}.pem")));
        let why = format!(
            "TLS: the certificate of localhost:<port> was refused: {reason} \
             (certificate {cert}, valid <time> to <time>, SHA-256 {fingerprint}) ({hint})"
        );
        if leaf == "expired" {
            // The CLI: exit status 3 (the connection), the reason on stderr.
            let out = client(&[&front.url("localhost"), "--cacert", &pki.path("ca.pem")]);
            let said = text(&out);
            assert_eq!(out.status.code(), Some(3), "{leaf}: {said}");
            assert_eq!(
                normalize(&String::from_utf8_lossy(&out.stderr)),
                format!("mcp-raw: {why}\n"),
                "{leaf}"
            );
        } else {
            // The verification itself: the library's client, in-process.
            assert_eq!(
                normalize(&refusal(&front.url("localhost"), Some(&pki.path("ca.pem")))),
                why,
                "{leaf}"
            );
        }
    }
}

/// Why the library's client (what `mcp-raw client URL [--cacert CA]` runs),
/// in-process, could not connect to `url`, as the CLI words it after `mcp-raw: `.
fn refusal(url: &str, ca: Option<&str>) -> String {
    use mcp_raw_net::client::http_link::HttpLink;
    use mcp_raw_net::client::mcp_client::{EraCache, Link, McpClient, Options};
    use mcp_raw_net::client::tls::{Tls, TlsOptions};
    let (printer, _view) = common::client_inproc::viewing(None, "http");
    let mut http = HttpLink::new(url, &printer).unwrap();
    http.tls = std::sync::Arc::new(
        Tls::new(TlsOptions {
            cacert: ca.into_iter().map(Into::into).collect(),
            insecure: false,
            cert: None,
            key: None,
            keylog: None,
        })
        .unwrap(),
    );
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let connected = runtime.block_on(McpClient::connect(
        Link::Http(http),
        url,
        Options::default(),
        &mut EraCache::default(),
    ));
    match connected {
        Ok(_) => panic!("{url}: connected"),
        Err(e) => format!("{e:#}"),
    }
}

#[test]
fn insecure_lets_a_self_signed_server_through_warns_and_is_recorded() {
    let pki = Pki::new("tls", "insecure");
    pki.leaf(
        "selfsigned",
        "self.test",
        &["localhost"],
        (2020, 2090),
        true,
    );
    let front = Front::start(&pki, "selfsigned", false);
    let record = pki.dir.join("t.jsonl");
    let out = client(&[
        &front.url("localhost"),
        "--insecure",
        "--call",
        ADD,
        "--record",
        record.to_str().unwrap(),
    ]);
    let said = text(&out);
    assert!(out.status.success(), "{said}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        stderr,
        "mcp-raw: WARNING: --insecure: https server certificates are NOT verified; whoever answers is trusted (the transcript records \"insecure\":true)\n"
    );
    assert_eq!(
        tls_notes(&raw(&out)),
        "··· [c1 +<t>s] TLS: TLSv1.3 TLS13_AES_256_GCM_SHA384, ALPN http/1.1, SNI localhost, full handshake in <ms> ms, NOT VERIFIED (--insecure): it is not signed by a trusted CA (self-signed, or an unknown issuer)\n"
    );
    let facts = tls_events(&record);
    assert_eq!(facts[0]["insecure"], true, "{}", facts[0]);
    // `check` flags the chain that went through unverified (an error: exit status 1).
    let (errors, report) = check_text(&record);
    assert!(errors, "{report}");
    assert_eq!(
        normalize(&report),
        format!(
            "event 2 c1 s2c <t>s: error tls/not-verified: the certificate of localhost was not verified: \
             it is not signed by a trusted CA (self-signed, or an unknown issuer) (certificate CN=self.test, \
             SHA-256 {}); the connection went on (--insecure)  [RFC 9110 §4.3.4]\n\
             1 error, 0 warnings in 6 messages (10 events, 45 rules checked)\n",
            openssl_fingerprint(&pki.path("selfsigned.pem"))
        )
    );
    assert_eq!(
        facts[0]["unverified"],
        "it is not signed by a trusted CA (self-signed, or an unknown issuer)",
        "{}",
        facts[0]
    );
}

#[test]
fn keylog_writes_nss_lines_to_a_private_file() {
    let pki = Pki::new("tls", "keylog");
    pki.good();
    let front = Front::start(&pki, "good", false);
    let flag = pki.dir.join("flag.keys");
    let out = client(&[
        &front.url("localhost"),
        "--cacert",
        &pki.path("ca.pem"),
        "--keylog",
        flag.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out));
    // And from the environment variable browsers and curl read.
    let env = pki.dir.join("env.keys");
    // SSLKEYLOGFILE is read from the process's environment: a process.
    let out = Command::new(BIN)
        .args([
            "client",
            &front.url("localhost"),
            "--cacert",
            &pki.path("ca.pem"),
        ])
        .env("SSLKEYLOGFILE", &env)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    for file in [&flag, &env] {
        let log = std::fs::read_to_string(file).unwrap();
        let line = log
            .lines()
            .find(|l| l.starts_with("CLIENT_HANDSHAKE_TRAFFIC_SECRET "))
            .unwrap_or_else(|| panic!("{}: {log}", file.display()));
        let fields: Vec<&str> = line.split(' ').collect();
        assert_eq!(fields.len(), 3, "{line}");
        assert_eq!(
            fields[1].len(),
            64,
            "the client random, 32 bytes hex: {line}"
        );
        assert!(fields[2].bytes().all(|b| b.is_ascii_hexdigit()), "{line}");
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(file).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600, "{}", file.display());
    }
}

#[test]
fn mtls_sends_the_client_certificate_and_its_absence_is_explained() {
    let pki = Pki::new("tls", "mtls");
    pki.good();
    pki.leaf(
        "me",
        "mcp-raw test client",
        &["client.test"],
        (2020, 2090),
        false,
    );
    let front = Front::start(&pki, "good", true);
    let record = pki.dir.join("t.jsonl");
    let out = client(&[
        &front.url("localhost"),
        "--cacert",
        &pki.path("ca.pem"),
        "--cert",
        &pki.path("me.pem"),
        "--key",
        &pki.path("me.key"),
        "--call",
        ADD,
        "--record",
        record.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}\n{}", text(&out), front.logged());
    // The relay saw our certificate.
    assert_eq!(
        lines_with(&front.logged(), "handshake: "),
        "handshake: TLSv1.3 TLS_AES_256_GCM_SHA384 client={'commonName': 'mcp-raw test client'}\n",
        "{}",
        front.logged()
    );
    assert_eq!(tls_events(&record)[0]["client_cert"], true);

    let out = client(&[&front.url("localhost"), "--cacert", &pki.path("ca.pem")]);
    let said = text(&out);
    assert_eq!(out.status.code(), Some(3), "{said}");
    assert_eq!(
        normalize(&String::from_utf8_lossy(&out.stderr)),
        "mcp-raw: TLS: localhost:<port> ended the connection with the alert CertificateRequired: it requires a client certificate (--cert FILE --key FILE)\n"
    );
}

#[test]
fn https_to_a_plaintext_server_says_it_is_not_tls() {
    // Both in-process: the plain server, and the library's client told https://.
    // (The CLI's exit status and wording for it: tests/tls_serve.rs.)
    let server = demo_http("both");
    assert_eq!(
        normalize(&refusal(&format!("https://{}/mcp", server.addr), None)),
        "TLS: 127.0.0.1:<port> did not answer in TLS (received corrupt message of type InvalidContentType): is it a plain http:// server? Then use http://"
    );
}

#[test]
fn a_version_1_transcript_is_still_read() {
    let dir = scratch("tls", "v1");
    let file = dir.join("old.jsonl");
    std::fs::write(
        &file,
        concat!(
            "{\"transcript\":\"mcp-raw\",\"version\":1,\"role\":\"client\",\"transport\":\"stdio\",\"started\":\"2026-12-01T00:00:00.000Z\"}\n",
            "{\"t\":0.001,\"lane\":\"stdio\",\"dir\":\"c2s\",\"text\":\"{\\\"jsonrpc\\\":\\\"2.0\\\",\\\"id\\\":1,\\\"method\\\":\\\"ping\\\"}\\n\"}\n",
        ),
    )
    .unwrap();
    // Read back as `show` reads it (in-process).
    assert_eq!(
        unstamped(&show_text(&file, false)),
        ">>> {\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \"ping\"}\n"
    );
}

#[test]
fn oauth_documents_and_tokens_are_fetched_over_tls_too() {
    let pki = Pki::new("tls", "oauth");
    pki.good();
    // The protected server and its authorization server, every URL they hand out
    // https://, behind the TLS front.
    let mut python = Command::new("python3")
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/servers/oauth_refresh.py"
        ))
        .arg("--https")
        .stdout(Stdio::piped())
        .spawn()
        .expect("python3");
    let url = common::listening_url(python.stdout.take().unwrap());
    let addr = url
        .trim_start_matches("http://")
        .trim_end_matches("/mcp")
        .to_owned();
    let front = Front::before(&pki, "good", false, &addr);
    let record = pki.dir.join("t.jsonl");
    let out = client(&[
        "--era",
        "legacy",
        &front.url("localhost"),
        "--cacert",
        &pki.path("ca.pem"),
        "--client-id",
        "test-client",
        "--client-secret",
        "test-secret",
        "--call",
        "whoami",
        "--record",
        record.to_str().unwrap(),
    ]);
    let _ = python.kill();
    let _ = python.wait();
    let said = text(&out);
    assert!(out.status.success(), "{said}");
    // Every request, in order: the documents and the token fetched over TLS too.
    // (The authorization request's query holds a fresh PKCE challenge and state: its
    // line is left out.)
    assert_eq!(
        lines_starting(&said, ">>> GET /.well-known/")
            + &lines_starting(&said, ">>> POST ")
            + &lines_starting(&said, "<<< HTTP/1.1 "),
        concat!(
            ">>> GET /.well-known/oauth-protected-resource/mcp HTTP/1.1\n",
            ">>> GET /.well-known/oauth-authorization-server HTTP/1.1\n",
            ">>> POST /mcp HTTP/1.1\n",
            ">>> POST /token HTTP/1.1\n",
            ">>> POST /mcp HTTP/1.1\n",
            ">>> POST /mcp HTTP/1.1\n",
            ">>> POST /mcp HTTP/1.1\n",
            ">>> POST /token HTTP/1.1\n",
            ">>> POST /mcp HTTP/1.1\n",
            ">>> POST /mcp HTTP/1.1\n",
            "<<< HTTP/1.1 401 Unauthorized\n",
            "<<< HTTP/1.1 200 OK\n",
            "<<< HTTP/1.1 200 OK\n",
            "<<< HTTP/1.1 302 Found\n",
            "<<< HTTP/1.1 200 OK\n",
            "<<< HTTP/1.1 200 OK\n",
            "<<< HTTP/1.1 202 Accepted\n",
            "<<< HTTP/1.1 401 Unauthorized\n",
            "<<< HTTP/1.1 200 OK\n",
            "<<< HTTP/1.1 200 OK\n",
            "<<< HTTP/1.1 200 OK\n",
        )
    );
    // Every connection of the recording is a TLS lane: each opened lane has its facts.
    let text = std::fs::read_to_string(&record).unwrap();
    let lines: Vec<Value> = text
        .lines()
        .skip(1)
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let opened: Vec<&Value> = lines
        .iter()
        .filter(|v| v.get("open").is_some())
        .map(|v| &v["lane"])
        .collect();
    assert!(opened.len() >= 3, "{opened:?}");
    for lane in opened {
        assert!(
            lines
                .iter()
                .any(|v| &v["lane"] == lane && v.get("tls").is_some()),
            "lane {lane} has no TLS facts"
        );
    }
}

#[test]
fn http_to_a_tls_server_says_to_use_https() {
    let pki = Pki::new("tls", "plain");
    pki.good();
    let front = Front::start(&pki, "good", false);
    // The library's client, in-process, told http://.
    assert_eq!(
        normalize(&refusal(
            &format!("http://127.0.0.1:{}/mcp", front.port),
            None
        )),
        "connection error: no HTTP response from 127.0.0.1:<port>; if it is a TLS server, use https://127.0.0.1:<port>/mcp"
    );
}

/// `--follow` and `--raw` over TLS: the listening client's GET stream (a lane of its
/// own, a TLS connection of its own) shows the notification another client's call
/// causes, bytes as they crossed.
#[test]
fn follow_and_raw_work_over_tls() {
    use std::io::BufRead;
    let pki = Pki::new("tls", "follow");
    pki.good();
    let front = Front::serving(&pki, "good", false, conformance_http("legacy"));
    let url = front.url("localhost");
    let ca = pki.path("ca.pem");
    // --follow stopped by a signal: a process.
    let mut listener = Command::new(BIN)
        .args([
            "client", &url, "--cacert", &ca, "--follow", "--raw", "--color", "never",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
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
    // Waits until `needle` shows after `after` (the GET's own head, not the POSTs').
    let mut wait_for = |after: &str, needle: &str| {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
        while !seen
            .find(after)
            .is_some_and(|at| seen[at..].contains(needle))
        {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            match rx.recv_timeout(left) {
                Ok(line) => {
                    seen.push_str(&line);
                    seen.push('\n');
                }
                Err(_) => panic!("no {needle:?} in:\n{seen}"),
            }
        }
        seen.clone()
    };
    wait_for("GET /mcp HTTP/1.1", "content-type: text/event-stream");
    let out = client(&[&url, "--cacert", &ca, "--call", "test_trigger_tool_change"]);
    assert!(out.status.success(), "{}", text(&out));
    let seen = wait_for("GET /mcp HTTP/1.1", "notifications/tools/list_changed");
    let _ = listener.kill();
    let _ = listener.wait();
    // Raw: the head as sent, its CRLF shown; every lane a TLS one.
    assert!(seen.contains("GET /mcp HTTP/1.1"), "{seen}");
    let lanes = seen.matches("connected to localhost").count();
    assert!(lanes >= 2, "{seen}");
    assert_eq!(seen.matches("TLS: TLSv1.3").count(), lanes, "{seen}");
}

/// `check` on a recording whose TLS lane spoke TLS 1.1: RFC 8996 forbids it.
#[test]
fn check_flags_a_tls_version_below_1_2() {
    let dir = scratch("tls", "old");
    let file = dir.join("old-tls.jsonl");
    std::fs::write(
        &file,
        concat!(
            "{\"transcript\":\"mcp-raw\",\"version\":2,\"role\":\"client\",\"transport\":\"http\",\"started\":\"2026-12-01T00:00:00.000Z\"}\n",
            "{\"t\":0.001,\"lane\":\"c1\",\"dir\":\"s2c\",\"open\":\"connected to old.test:443 (TLS)\"}\n",
            "{\"t\":0.001,\"lane\":\"c1\",\"dir\":\"s2c\",\"tls\":{\"version\":\"TLSv1.1\",\"cipher\":\"TLS_RSA_WITH_AES_128_CBC_SHA\",\"server_name\":\"old.test\",\"sni\":\"old.test\",\"chain\":[]}}\n",
        ),
    )
    .unwrap();
    let (errors, report) = check_text(&file);
    assert!(errors, "{report}");
    assert_eq!(
        report,
        concat!(
            "event 2 c1 s2c 0.001000s: error tls/old-version: the connection to old.test used TLSv1.1: TLS 1.2 at least  [RFC 8996 §2, §3]\n",
            "1 error, 0 warnings in 0 messages (2 events, 45 rules checked)\n"
        )
    );
}

/// A `tshark` run on a capture: its stdout, or a panic with its stderr.
fn tshark(args: &[&str]) -> String {
    let out = Command::new("tshark").args(args).output().expect("tshark");
    assert!(
        out.status.success(),
        "tshark {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// `tshark -z follow,tls,raw,STREAM` read back: the decrypted bytes the client sent
/// and those the server (on `server_port`) sent, each a run of hex. Node 0's lines
/// are flush left, node 1's indented by a tab; which node is the server is read from
/// the `Node 0: ADDR:PORT` line (tshark 4.0 names the first sender of application
/// data, here the server).
fn followed(report: &str, server_port: &str) -> (Vec<u8>, Vec<u8>) {
    let (mut client, mut server) = (Vec::new(), Vec::new());
    let mut inside = false;
    let mut node0_is_server = false;
    for line in report.lines() {
        if let Some(addr) = line.strip_prefix("Node 0: ") {
            node0_is_server = addr.ends_with(&format!(":{server_port}"));
            continue;
        }
        if line.starts_with("Node 1:") {
            inside = true;
            continue;
        }
        if !inside || line.starts_with("====") || line.trim().is_empty() {
            continue;
        }
        let (node0, hex) = match line.strip_prefix('\t') {
            Some(hex) => (false, hex),
            None => (true, line),
        };
        let to = if node0 == node0_is_server {
            &mut server
        } else {
            &mut client
        };
        let hex = hex.trim();
        assert!(hex.len() % 2 == 0, "not hex: {line}");
        for at in (0..hex.len()).step_by(2) {
            to.push(u8::from_str_radix(&hex[at..at + 2], 16).expect("hex"));
        }
    }
    (client, server)
}

/// `--keylog` proven the way a user would use it: `tcpdump` captures one session on
/// loopback, `tshark -o tls.keylog_file:FILE` decrypts the capture, and each TCP
/// connection's decrypted bytes, both ways, are exactly the bytes the transcript
/// recorded for its lane (every request, head and body, and every response). Without
/// the key log, the same capture decrypts to nothing. Without `tcpdump` or `tshark`
/// it fails under CI and is skipped elsewhere; `tcpdump` needs root (CI runs as root).
#[test]
fn a_capture_of_a_session_decrypts_with_the_keylog_to_the_recorded_bytes() {
    for program in ["tcpdump", "tshark"] {
        let found = Command::new(program)
            .arg("--version")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok();
        if !found {
            common::missing_program(
                "tls (keylog capture)",
                program,
                "apt-get install tcpdump tshark",
            );
            return;
        }
    }
    let pki = Pki::new("tls", "capture");
    pki.good();
    let front = Front::start(&pki, "good", false);
    let (cap, keys, record) = (
        pki.dir.join("session.pcap"),
        pki.dir.join("session.keys"),
        pki.dir.join("session.jsonl"),
    );
    // --immediate-mode: each packet handed over as it comes (not in blocks that a
    // SIGINT would leave unread); -U: written at once; -s 0: whole packets.
    let mut dump = Command::new("tcpdump")
        .args(["-i", "lo", "--immediate-mode", "-U", "-s", "0", "-w"])
        .arg(&cap)
        .arg(format!("tcp port {}", front.port))
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("tcpdump");
    let mut said = std::io::BufReader::new(dump.stderr.take().unwrap());
    let mut line = String::new();
    std::io::BufRead::read_line(&mut said, &mut line).unwrap();
    assert!(
        line.contains("listening on lo"),
        "tcpdump did not start (it needs root): {line}"
    );
    let out = client(&[
        &front.url("localhost"),
        "--cacert",
        &pki.path("ca.pem"),
        "--call",
        ADD,
        "--keylog",
        keys.to_str().unwrap(),
        "--record",
        record.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out));
    // The last segments reach the capture, then SIGINT makes tcpdump close the file.
    std::thread::sleep(std::time::Duration::from_millis(500));
    let _ = Command::new("kill")
        .args(["-INT", &dump.id().to_string()])
        .status();
    let _ = dump.wait();
    let mut stats = String::new();
    let _ = std::io::Read::read_to_string(&mut said, &mut stats);
    // A pcap file is a 24-byte header, then the packets.
    let size = std::fs::metadata(&cap).map(|m| m.len()).unwrap_or(0);
    assert!(size > 24, "tcpdump captured nothing: {stats}");

    // What the transcript recorded, per lane and direction, in order.
    let mut lanes: std::collections::BTreeMap<String, (Vec<u8>, Vec<u8>)> = Default::default();
    for line in std::fs::read_to_string(&record).unwrap().lines().skip(1) {
        let v: Value = serde_json::from_str(line).unwrap();
        assert!(v.get("base64").is_none(), "binary bytes in {line}");
        let (Some(lane), Some(bytes)) = (v["lane"].as_str(), v["text"].as_str()) else {
            continue;
        };
        let entry = lanes.entry(lane.to_owned()).or_default();
        match v["dir"].as_str() {
            Some("c2s") => entry.0.extend_from_slice(bytes.as_bytes()),
            Some("s2c") => entry.1.extend_from_slice(bytes.as_bytes()),
            other => panic!("dir {other:?} in {line}"),
        }
    }
    assert!(!lanes.is_empty(), "nothing recorded");

    // The capture's TCP connections, each decrypted with the key log.
    let cap = cap.to_str().unwrap();
    let keylog = format!("tls.keylog_file:{}", keys.display());
    let mut streams: Vec<String> = tshark(&["-r", cap, "-T", "fields", "-e", "tcp.stream"])
        .lines()
        .map(str::to_owned)
        .collect();
    streams.sort();
    streams.dedup();
    let decrypted: Vec<(Vec<u8>, Vec<u8>)> = streams
        .iter()
        .map(|n| {
            followed(
                &tshark(&[
                    "-r",
                    cap,
                    "-o",
                    &keylog,
                    "-q",
                    "-z",
                    &format!("follow,tls,raw,{n}"),
                ]),
                &front.port,
            )
        })
        .collect();
    for (lane, (sent, received)) in &lanes {
        let show = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
        let stream = decrypted
            .iter()
            .find(|(client, _)| client == sent)
            .unwrap_or_else(|| {
                panic!(
                    "lane {lane}: no decrypted connection carries the recorded request bytes\nrecorded:\n{}\ndecrypted:\n{}",
                    show(sent),
                    decrypted
                        .iter()
                        .map(|(c, _)| show(c))
                        .collect::<Vec<_>>()
                        .join("\n----\n")
                )
            });
        assert_eq!(
            show(&stream.1),
            show(received),
            "lane {lane}: the decrypted responses differ from the recorded ones"
        );
    }
    // The tool call's request body is among them, byte for byte.
    assert!(
        decrypted
            .iter()
            .any(|(c, _)| show_has(c, r#""arguments":{"a":2,"b":40}"#)),
        "no decrypted tools/call"
    );
    // Without the key log, the same capture yields no plaintext.
    for n in &streams {
        let (c, s) = followed(
            &tshark(&["-r", cap, "-q", "-z", &format!("follow,tls,raw,{n}")]),
            &front.port,
        );
        assert!(
            c.is_empty() && s.is_empty(),
            "stream {n} decrypted without keys"
        );
    }
}

fn show_has(bytes: &[u8], needle: &str) -> bool {
    String::from_utf8_lossy(bytes).contains(needle)
}
