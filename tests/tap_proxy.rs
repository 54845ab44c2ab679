//! `mcp-raw ca` (through the real binary) and `mcp-raw tap --proxy` (in-process): a CA made in a
//! scratch directory, an HTTPS MCP server mcp-raw did not terminate TLS for (Python's
//! `ssl` in front of `mcp-raw serve --http`, tests/servers/tls_relay.py, with a leaf
//! from a test CA), and a client mcp-raw did not write: Python's urllib, through the
//! proxy in `https_proxy` (tests/servers/proxy_client.py). What the proxy recorded in
//! plaintext is compared with the server's own recording, lane by lane.

mod common;
use common::client_inproc::{demo_http, recording};
use common::client_inproc::{lines_starting, lines_with};
use common::golden::normalize;
use common::tools_inproc::ProxyPeer;
use common::{BIN, scratch};

/// What `mcp-raw ca` prints after its first line: where the key is and how each
/// program is told to trust the certificate `cert`.
fn how_to_trust(cert: &Path) -> String {
    let cert = cert.display();
    let key = cert.to_string().replace("ca.pem", "ca.key");
    format!(
        "key (0600, keep it private): {key}\n\
         to trust it:\n\
         \x20 Node.js:        NODE_EXTRA_CA_CERTS={cert}\n\
         \x20 Python (ssl, httpx): SSL_CERT_FILE={cert}\n\
         \x20 Python requests: REQUESTS_CA_BUNDLE={cert}\n\
         \x20 curl:           curl --cacert {cert} …\n\
         \x20 mcp-raw client: mcp-raw client --cacert {cert} …\n\
         \x20 Debian system store: sudo cp {cert} /usr/local/share/ca-certificates/mcp-raw.crt && sudo update-ca-certificates\n\
         whoever holds the key can impersonate any site to a program that trusts this CA: `mcp-raw ca delete` when done\n"
    )
}

/// A refusal of the proxy's own, as it crosses: `STATUS`, then `mcp-raw tap --proxy: WHY`.
fn refusal(status: &str, why: &str) -> String {
    let body = format!("mcp-raw tap --proxy: {why}\n");
    format!(
        "HTTP/1.1 {status}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: {}\r\n\
         Connection: close\r\n\r\n{body}",
        body.len()
    )
}
use mcp_raw_wire::event::{Dir, Event, What};
use mcp_raw_wire::recorder::concat;
use mcp_raw_wire::transcript;
use rcgen::{
    BasicConstraints, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, Issuer, KeyPair,
};
use serde_json::Value;
use std::collections::BTreeSet;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

fn ca(dir: &Path, action: &[&str]) -> Output {
    // The ca subcommand (files, modes, what it prints) is the subject: a process.
    Command::new(BIN)
        .arg("ca")
        .args(action)
        .arg("--dir")
        .arg(dir)
        .output()
        .unwrap()
}

/// A test CA and a leaf for localhost and 127.0.0.1 (the real server's), as PEM files.
fn server_pki(dir: &Path) {
    let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
    params
        .distinguished_name
        .push(DnType::CommonName, "tap_proxy test server CA");
    params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    let key = KeyPair::generate().unwrap();
    let cert = params.self_signed(&key).unwrap();
    std::fs::write(dir.join("server-ca.pem"), cert.pem()).unwrap();
    let issuer = Issuer::new(params, key);
    let mut leaf =
        CertificateParams::new(vec!["localhost".to_owned(), "127.0.0.1".to_owned()]).unwrap();
    leaf.distinguished_name
        .push(DnType::CommonName, "localhost");
    leaf.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
    leaf.use_authority_key_identifier_extension = true;
    let key = KeyPair::generate().unwrap();
    let cert = leaf.signed_by(&key, &issuer).unwrap();
    std::fs::write(dir.join("server.pem"), cert.pem()).unwrap();
    std::fs::write(dir.join("server.key"), key.serialize_pem()).unwrap();
}

/// tests/servers/tls_relay.py in front of `target`; killed on drop.
struct Front {
    child: Child,
    port: String,
}

impl Drop for Front {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn front(dir: &Path, target: &str) -> Front {
    let mut child = Command::new("python3")
        .arg(format!(
            "{}/tests/servers/tls_relay.py",
            env!("CARGO_MANIFEST_DIR")
        ))
        .arg("--cert")
        .arg(dir.join("server.pem"))
        .arg("--key")
        .arg(dir.join("server.key"))
        .args(["--target", target])
        .stdout(Stdio::piped())
        .stderr(std::fs::File::create(dir.join("relay.log")).unwrap())
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
    }
}

/// `mcp-raw tap --proxy --listen 127.0.0.1:0 --ca-dir DIR/ca --cacert
/// DIR/server-ca.pem --record DIR/proxy.jsonl [--decrypt-host HOST…]`, in-process
/// (common::tools_inproc::ProxyPeer: the library's proxy as the CLI sets it up): what
/// it relays and records is the subject; `mcp-raw ca`, which makes the CA it loads,
/// stays the binary.
fn proxy(dir: &Path, decrypt: &[&str]) -> ProxyPeer {
    ProxyPeer::start(
        &dir.join("ca"),
        &dir.join("server-ca.pem"),
        &dir.join("proxy.jsonl"),
        decrypt,
    )
}

/// The Python client through the proxy at `proxy`, trusting `cafiles`.
fn python(url: &str, proxy: &str, cafiles: &[PathBuf]) -> Output {
    Command::new("timeout")
        .arg("60")
        .arg("python3")
        .arg(format!(
            "{}/tests/servers/proxy_client.py",
            env!("CARGO_MANIFEST_DIR")
        ))
        .arg(url)
        .args(cafiles)
        .env("https_proxy", format!("http://{proxy}"))
        .env_remove("HTTPS_PROXY")
        .env_remove("no_proxy")
        .env_remove("NO_PROXY")
        .output()
        .unwrap()
}

fn read(path: &Path) -> Vec<Event> {
    let text = std::fs::read_to_string(path).expect("the recording exists");
    transcript::read(&text)
        .expect("a transcript mcp-raw reads")
        .1
}

/// Each lane's bytes one way, concatenated, hashed: the set of them.
fn per_lane(events: &[Event], dir: Dir) -> BTreeSet<String> {
    use sha2::Digest;
    let lanes: BTreeSet<String> = events.iter().map(|e| e.lane.label()).collect();
    lanes
        .iter()
        .map(|l| concat(events, |e| &e.lane.label() == l && e.dir == dir))
        .filter(|b| !b.is_empty())
        .map(|b| {
            sha2::Sha256::digest(&b)
                .iter()
                .map(|x| format!("{x:02x}"))
                .collect()
        })
        .collect()
}

/// The notes (opens and closes) of a recording, one string.
fn notes(events: &[Event]) -> String {
    events
        .iter()
        .filter_map(|e| match &e.what {
            What::Open(s) | What::Close(s) => Some(format!("[{}] {s}\n", e.lane.label())),
            _ => None,
        })
        .collect()
}

/// The whole path: `mcp-raw ca` makes the CA; urllib, trusting it, talks MCP over
/// HTTPS through the proxy to localhost (decrypted: the recording holds the
/// plaintext, the same bytes each way as the server's own recording, lane by lane,
/// and both sides' TLS facts), and to 127.0.0.1 (not matched by --decrypt-host: an
/// opaque tunnel, its bytes counted and not recorded).
#[test]
fn a_python_client_through_the_proxy_is_recorded_in_plaintext() {
    let dir = scratch("tap-proxy", "python");
    let made = ca(&dir.join("ca"), &[]);
    assert!(made.status.success(), "{made:?}");
    let said = String::from_utf8_lossy(&made.stdout);
    let cert = dir.join("ca").canonicalize().unwrap().join("ca.pem");
    // Whole: where the CA is, and how each program is told to trust it.
    assert_eq!(
        said,
        format!("created a CA: {}\n", cert.display()) + &how_to_trust(&cert)
    );
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = |f: &str| {
            std::fs::metadata(dir.join("ca").join(f))
                .unwrap()
                .permissions()
                .mode()
                & 0o777
        };
        assert_eq!(mode("ca.key"), 0o600);
        assert_eq!(mode("ca.pem"), 0o644);
    }
    server_pki(&dir);
    let server_record = dir.join("server.jsonl");
    let server = recording(&server_record);
    let front = front(&dir, &server.addr);
    let proxy = proxy(&dir, &["localhost"]);
    let trust = [cert.clone(), dir.join("server-ca.pem")];

    // Decrypted: localhost.
    let out = python(
        &format!("https://localhost:{}/mcp", front.port),
        &proxy.addr,
        &trust,
    );
    assert!(out.status.success(), "{out:?}");
    let answers: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(answers["initialize"][0], 200, "{answers}");
    assert_eq!(answers["initialized"][0], 202, "{answers}");
    assert_eq!(
        answers["call"][1],
        "data: {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"42\"}]}}\n\n",
        "{answers}"
    );
    let decrypted = read(&dir.join("proxy.jsonl"));
    let seen = read(&server_record);
    for d in [Dir::ToServer, Dir::ToClient] {
        let mine = per_lane(&decrypted, d);
        assert_eq!(
            mine.len(),
            3,
            "three connections {d:?}: {}",
            notes(&decrypted)
        );
        assert_eq!(mine, per_lane(&seen, d), "{d:?}: the plaintext differs");
    }
    let tls: Vec<_> = decrypted
        .iter()
        .filter_map(|e| match &e.what {
            What::Tls(f) => Some(f),
            _ => None,
        })
        .collect();
    // Two handshakes per connection: the client's with the proxy, the proxy's with
    // the server (whose chain is the test CA's leaf).
    assert_eq!(tls.len(), 6);
    assert!(
        tls.iter()
            .any(|f| f.sni.as_deref() == Some("localhost") && f.chain.is_empty())
    );
    assert!(tls.iter().any(|f| {
        f.chain
            .first()
            .is_some_and(|c| c.issuer.contains("tap_proxy test server CA"))
    }));
    assert!(notes(&decrypted).contains("decrypted"));

    // Not decrypted: 127.0.0.1 is not "localhost".
    let out = python(
        &format!("https://127.0.0.1:{}/mcp", front.port),
        &proxy.addr,
        &trust,
    );
    assert!(out.status.success(), "{out:?}");
    let after = read(&dir.join("proxy.jsonl"));
    let tunnel = notes(&after[decrypted.len()..]);
    assert!(
        tunnel.contains("opaque tunnel, CONNECT 127.0.0.1:")
            && tunnel.contains("bytes client → 127.0.0.1:")
            && !tunnel.contains(" 0 bytes"),
        "{tunnel}"
    );
    assert!(
        !after[decrypted.len()..]
            .iter()
            .any(|e| matches!(e.what, What::Bytes(_) | What::Tls(_))),
        "an opaque tunnel's payload is not recorded"
    );
    // The tunnel's connections reached the server all the same.
    assert_eq!(per_lane(&read(&server_record), Dir::ToServer).len(), 6);
}

/// The official Python SDK client (`mcp`, in interop/.venv, made by interop/run.sh;
/// or the interpreter in MCP_RAW_SDK_PYTHON) through the proxy: httpx honours
/// HTTPS_PROXY and SSL_CERT_FILE, so only the environment changes. The recording's
/// plaintext equals the server's own recording, lane by lane. Without the venv the
/// test says so and passes, unless MCP_RAW_REQUIRE_SDK=1 (.ci/run sets it after
/// interop/run.sh made the venv).
#[test]
fn the_python_sdk_client_through_the_proxy_is_recorded_in_plaintext() {
    let python = std::env::var_os("MCP_RAW_SDK_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("interop/.venv/bin/python"));
    if !python.exists() {
        assert!(
            std::env::var("MCP_RAW_REQUIRE_SDK").as_deref() != Ok("1"),
            "MCP_RAW_REQUIRE_SDK=1 but there is no {}",
            python.display()
        );
        eprintln!(
            "skipped: no {} (interop/run.sh py-http makes it)",
            python.display()
        );
        return;
    }
    let dir = scratch("tap-proxy", "sdk");
    assert!(ca(&dir.join("ca"), &[]).status.success());
    server_pki(&dir);
    let server_record = dir.join("server.jsonl");
    let server = recording(&server_record);
    let front = front(&dir, &server.addr);
    let proxy = proxy(&dir, &[]);
    // SSL_CERT_FILE is one file: mcp-raw's CA is all the client needs (the proxy
    // checks the server's chain).
    let out = Command::new("timeout")
        .arg("60")
        .arg(&python)
        .arg(format!(
            "{}/tests/servers/proxy_sdk_client.py",
            env!("CARGO_MANIFEST_DIR")
        ))
        .arg(format!("https://localhost:{}/mcp", front.port))
        .env("HTTPS_PROXY", format!("http://{}", proxy.addr))
        .env("SSL_CERT_FILE", dir.join("ca").join("ca.pem"))
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .env_remove("https_proxy")
        .env_remove("no_proxy")
        .env_remove("NO_PROXY")
        .env_remove("SSL_CERT_DIR")
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{out:?}");
    assert!(said.contains("add,echo,get_current_time 42"), "{said}");
    drop(proxy);
    let tapped = read(&dir.join("proxy.jsonl"));
    assert!(
        tapped
            .iter()
            .any(|e| matches!(&e.what, What::Tls(f) if f.sni.as_deref() == Some("localhost"))),
        "{}",
        notes(&tapped)
    );
    let seen = read(&server_record);
    for d in [Dir::ToServer, Dir::ToClient] {
        let mine = per_lane(&tapped, d);
        assert!(
            !mine.is_empty(),
            "nothing recorded {d:?}: {}",
            notes(&tapped)
        );
        assert_eq!(mine, per_lane(&seen, d), "{d:?}: the plaintext differs");
    }
}

/// Raw bytes to the proxy; what it answered.
fn ask(proxy: &str, request: &[u8]) -> String {
    let mut sock = std::net::TcpStream::connect(proxy).unwrap();
    sock.set_read_timeout(Some(std::time::Duration::from_secs(20)))
        .unwrap();
    sock.write_all(request).unwrap();
    let mut answer = Vec::new();
    let _ = sock.read_to_end(&mut answer);
    String::from_utf8_lossy(&answer).into_owned()
}

/// Bad input: a malformed CONNECT gets 400 with the reason; a target that is down,
/// or does not speak TLS, gets 502 with the reason; a client that does not trust the
/// CA fails its handshake, recorded with a note; the proxy serves the next client;
/// its own listener is loopback-only without --allow-remote.
#[test]
fn bad_requests_and_failed_handshakes_are_answered_and_recorded() {
    let dir = scratch("tap-proxy", "bad");
    assert!(ca(&dir.join("ca"), &[]).status.success());
    server_pki(&dir);
    let server = demo_http("both");
    let front = front(&dir, &server.addr);
    let proxy = proxy(&dir, &[]);

    let no_port = ask(
        &proxy.addr,
        b"CONNECT localhost HTTP/1.1\r\nHost: localhost\r\n\r\n",
    );
    assert_eq!(
        no_port,
        refusal(
            "400 Bad Request",
            "CONNECT \"localhost\": no port (RFC 9110 §9.3.6 requires one, e.g. localhost:443)"
        )
    );
    let relative = ask(&proxy.addr, b"GET /mcp HTTP/1.1\r\nHost: x\r\n\r\n");
    assert_eq!(
        relative,
        refusal(
            "400 Bad Request",
            "GET \"/mcp\": a proxy takes CONNECT HOST:PORT or an absolute http:// URL (RFC 9112 §3.2.2)"
        )
    );
    let long = format!(
        "CONNECT localhost:1 HTTP/1.1\r\nX-Long: {}\r\n\r\n",
        "a".repeat(17 * 1024)
    );
    let long = ask(&proxy.addr, long.as_bytes());
    assert_eq!(
        long,
        refusal(
            "400 Bad Request",
            "the request head passed 16384 bytes without ending (tap --max-head-bytes)"
        )
    );
    let free = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    // An absolute-form request is relayed in plain HTTP to its host: the server's
    // own answer comes back (405: GET without a session).
    let relayed = ask(
        &proxy.addr,
        format!(
            "GET http://{0}/mcp HTTP/1.1\r\nHost: {0}\r\nAccept: text/event-stream\r\nConnection: close\r\n\r\n",
            server.addr
        )
        .as_bytes(),
    );
    // The server's own answer, whole (its date normalized): nothing of the proxy's.
    assert_eq!(
        normalize(&relayed),
        "HTTP/1.1 405 Method Not Allowed\r\ncontent-type: application/json\r\nallow: POST, DELETE\r\n\
         connection: close\r\ncontent-length: 214\r\ndate: <date>\r\n\r\n\
         {\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32600,\"message\":\"Method Not Allowed: \
         this server offers no GET stream because it never pushes messages unprompted; every response arrives \
         on the POST that asked for it\"}}"
    );
    // A second request on that connection, for another host, is not sent to the
    // first: the connection ends instead.
    let two = ask(
        &proxy.addr,
        format!(
            "GET http://{0}/mcp HTTP/1.1\r\nHost: {0}\r\nAccept: text/event-stream\r\n\r\nGET http://127.0.0.1:{free}/x HTTP/1.1\r\nHost: 127.0.0.1:{free}\r\n\r\n",
            server.addr
        )
        .as_bytes(),
    );
    assert_eq!(two.matches("HTTP/1.1 ").count(), 1, "{two}");
    let down = ask(
        &proxy.addr,
        format!("CONNECT 127.0.0.1:{free} HTTP/1.1\r\n\r\n").as_bytes(),
    );
    assert_eq!(
        down,
        refusal(
            "502 Bad Gateway",
            &format!("connecting to 127.0.0.1:{free} failed: Connection refused (os error 111)")
        )
    );
    // The plain HTTP server behind the relay does not speak TLS.
    let plain = ask(
        &proxy.addr,
        format!("CONNECT {} HTTP/1.1\r\n\r\n", server.addr).as_bytes(),
    );
    assert_eq!(
        plain,
        refusal(
            "502 Bad Gateway",
            &format!(
                "TLS: {} did not answer in TLS (received corrupt message of type InvalidContentType): \
                 is it a plain http:// server? Then use http://",
                server.addr
            )
        )
    );

    // urllib trusting only the server's CA, not mcp-raw's: its handshake fails.
    let url = format!("https://localhost:{}/mcp", front.port);
    let refused = python(&url, &proxy.addr, &[dir.join("server-ca.pem")]);
    assert!(!refused.status.success());
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains("CERTIFICATE_VERIFY_FAILED"),
        "{refused:?}"
    );
    // And the next client, trusting it, is served.
    let cert = dir.join("ca").join("ca.pem");
    let served = python(&url, &proxy.addr, &[cert, dir.join("server-ca.pem")]);
    assert!(served.status.success(), "{served:?}");
    let said = notes(&read(&dir.join("proxy.jsonl")));
    // What the proxy said of each connection, whole lines (ports normalized), sorted:
    // connections end concurrently, so the order of their notes across connections
    // is a race, as is the order of the two EOFs at a relay's end (left out). So is
    // whether c5's target, left when the client's side ended, is told 502 before it
    // closes: that line is left out too.
    let said = normalize(&said);
    let selected = lines_with(&said, " sent: ")
        + &lines_with(&said, "relayed in plain HTTP")
        + &lines_with(&said, "the client must open another")
        + &lines_with(&said, "TLS handshake failed");
    let mut selected: Vec<&str> = selected
        .lines()
        .filter(|l| *l != "[c5] 502 sent: it closed the connection without answering")
        .collect();
    selected.sort_unstable();
    assert_eq!(
        selected.join("\n") + "\n",
        concat!(
            "[c1] 400 Bad Request sent: CONNECT \"localhost\": no port (RFC 9110 §9.3.6 requires one, e.g. localhost:<port>)\n",
            "[c2] 400 Bad Request sent: GET \"/mcp\": a proxy takes CONNECT HOST:PORT or an absolute http:// URL (RFC 9112 §3.2.2)\n",
            "[c3] 400 Bad Request sent: the request head passed 16384 bytes without ending (tap --max-head-bytes)\n",
            "[c4] proxy: accepted from 127.0.0.1:<port>, relayed in plain HTTP as 127.0.0.1:<port> → 127.0.0.1:<port> (the connection stays with this host)\n",
            "[c5] a request for \"http://127.0.0.1:<port>/x\" on a connection relayed to 127.0.0.1:<port>: not passed on, the client's side ends here (the proxy relays a connection to one host; the client must open another)\n",
            "[c5] proxy: accepted from 127.0.0.1:<port>, relayed in plain HTTP as 127.0.0.1:<port> → 127.0.0.1:<port> (the connection stays with this host)\n",
            "[c6] 502 Bad Gateway sent: connecting to 127.0.0.1:<port> failed: Connection refused (os error 111)\n",
            "[c7] 502 Bad Gateway sent: TLS: 127.0.0.1:<port> did not answer in TLS (received corrupt message of type InvalidContentType): is it a plain http:// server? Then use http://\n",
            "[c8] the client's TLS handshake failed: received fatal alert: UnknownCA; a client that does not trust the mcp-raw CA refuses the proxy's leaf for localhost (`mcp-raw ca` prints how to trust it)\n",
        )
    );

    // The CLI's own refusal of a non-loopback --listen (its exit status): a process.
    let remote = Command::new(BIN)
        .args(["tap", "--proxy", "--listen", "0.0.0.0:0", "--ca-dir"])
        .arg(dir.join("ca"))
        .output()
        .unwrap();
    assert_eq!(remote.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&remote.stderr),
        "mcp-raw tap: --listen 0.0.0.0:0: not a loopback address; add --allow-remote to listen there anyway\n"
    );
}

/// `ca show` prints the fingerprint of the certificate on disk; `rotate` makes a new
/// one; a key others can read, or a symbolic link in its place, is refused by the
/// proxy; `delete` removes a link, never what it points to.
#[test]
fn the_ca_shows_rotates_refuses_a_loose_key_and_deletes() {
    use sha2::Digest;
    use std::os::unix::fs::PermissionsExt;
    let dir = scratch("tap-proxy", "ca");
    let ca_dir = dir.join("ca");
    assert!(ca(&ca_dir, &[]).status.success());
    let fingerprint = || {
        let pem = std::fs::read_to_string(ca_dir.join("ca.pem")).unwrap();
        let b64: String = pem.lines().filter(|l| !l.starts_with("-----")).collect();
        use base64::Engine;
        let der = base64::engine::general_purpose::STANDARD
            .decode(b64)
            .unwrap();
        sha2::Sha256::digest(&der)
            .iter()
            .map(|b| format!("{b:02X}"))
            .collect::<Vec<_>>()
            .join(":")
    };
    let first = fingerprint();
    let shown = String::from_utf8_lossy(&ca(&ca_dir, &["show"]).stdout).into_owned();
    let pem = ca_dir.join("ca.pem");
    let key_path = ca_dir.join("ca.key");
    assert_eq!(
        lines_starting(&shown, "certificate:")
            + &lines_starting(&shown, "key:")
            + &lines_starting(&shown, "SHA-256:"),
        format!(
            "certificate: {}\nkey:         {}\nSHA-256:     {first}\n",
            pem.display(),
            key_path.display()
        )
    );
    // The subject names the user and host it was made by.
    let subject = lines_starting(&shown, "subject:");
    assert!(
        subject.starts_with("subject:     CN=mcp-raw local CA (")
            && subject.ends_with("), O=mcp-raw tap --proxy\n"),
        "{shown}"
    );
    let again = ca(&ca_dir, &[]);
    assert_eq!(
        String::from_utf8_lossy(&again.stdout),
        format!("a CA already exists: {}\n", pem.display()) + &how_to_trust(&pem)
    );
    assert_eq!(fingerprint(), first, "a second `ca` keeps the CA");
    assert!(ca(&ca_dir, &["rotate"]).status.success());
    assert_ne!(fingerprint(), first, "rotate makes a new certificate");

    let start = |ca_dir: &Path| {
        Command::new("timeout")
            .args([
                "10",
                BIN,
                "tap",
                "--proxy",
                "--listen",
                "127.0.0.1:0",
                "--ca-dir",
            ])
            .arg(ca_dir)
            .output()
            .unwrap()
    };
    let key = ca_dir.join("ca.key");
    std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o644)).unwrap();
    let loose = start(&ca_dir);
    assert_eq!(
        String::from_utf8_lossy(&loose.stderr),
        format!(
            "mcp-raw tap: {} has mode 0644: others can read the CA's key (chmod 600 it, or `mcp-raw ca rotate`)\n",
            key.display()
        )
    );
    std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o600)).unwrap();
    let elsewhere = dir.join("elsewhere.key");
    std::fs::rename(&key, &elsewhere).unwrap();
    std::os::unix::fs::symlink(&elsewhere, &key).unwrap();
    let linked = start(&ca_dir);
    assert_eq!(
        String::from_utf8_lossy(&linked.stderr),
        format!(
            "mcp-raw tap: {} is a symbolic link: the CA's key is read only from a regular file\n",
            key.display()
        )
    );
    assert!(ca(&ca_dir, &["delete"]).status.success());
    assert!(!ca_dir.join("ca.pem").exists() && key.symlink_metadata().is_err());
    assert!(
        elsewhere.exists(),
        "delete removed the link, not its target"
    );
}

/// The CLI's flags reach the proxy: the tests above run the library's proxy
/// in-process, so this one runs `mcp-raw tap --proxy … --decrypt-host localhost
/// --record FILE` as the binary (how the CLI turns its flags into the proxy's settings
/// is the subject: a process). urllib to localhost is decrypted (its plaintext
/// recorded, the same bytes as the server's own recording), to 127.0.0.1 an opaque
/// tunnel (no payload recorded).
#[test]
fn the_binary_hands_its_flags_to_the_proxy() {
    let dir = scratch("tap-proxy", "binary-flags");
    let made = ca(&dir.join("ca"), &[]);
    assert!(made.status.success(), "{made:?}");
    let cert = dir.join("ca").canonicalize().unwrap().join("ca.pem");
    server_pki(&dir);
    let server_record = dir.join("server.jsonl");
    let server = recording(&server_record);
    let front = front(&dir, &server.addr);
    let mut command = Command::new(BIN);
    command
        .args(["tap", "--proxy", "--listen", "127.0.0.1:0", "--ca-dir"])
        .arg(dir.join("ca"))
        .arg("--cacert")
        .arg(dir.join("server-ca.pem"))
        .arg("--record")
        .arg(dir.join("proxy.jsonl"))
        .args(["--decrypt-host", "localhost"]);
    let proxy = common::HttpServer::spawn(command);
    let trust = [cert, dir.join("server-ca.pem")];
    // The python client through the proxy to the server as `host`: it succeeds.
    let through = |host: &str| {
        let out = python(
            &format!("https://{host}:{}/mcp", front.port),
            &proxy.addr,
            &trust,
        );
        assert!(out.status.success(), "{out:?}\n{}", proxy.logged());
    };
    through("localhost");
    let decrypted = read(&dir.join("proxy.jsonl"));
    for d in [Dir::ToServer, Dir::ToClient] {
        assert_eq!(
            per_lane(&decrypted, d),
            per_lane(&read(&server_record), d),
            "{d:?}: the plaintext differs"
        );
    }
    through("127.0.0.1");
    let after = read(&dir.join("proxy.jsonl"));
    assert!(
        notes(&after[decrypted.len()..]).contains("opaque tunnel, CONNECT 127.0.0.1:"),
        "{}",
        notes(&after)
    );
    assert!(
        !after[decrypted.len()..]
            .iter()
            .any(|e| matches!(e.what, What::Bytes(_) | What::Tls(_))),
        "an opaque tunnel's payload is not recorded"
    );
}

/// `tap --proxy --ui --intercept tool:add`, decrypting localhost: the Python client's
/// add call, inside the TLS tunnel, is held; the page's edit (1000 + 234) is what the
/// server gets, framed anew, and the client reads the edited call's answer. The
/// recording marks held then changed on the decrypted lane, after its TLS facts.
#[test]
fn a_call_held_inside_a_decrypted_tunnel_is_edited_on_the_page() {
    use std::io::BufRead;
    let dir = scratch("tap-proxy", "intercept");
    assert!(ca(&dir.join("ca"), &[]).status.success());
    let cert = dir.join("ca").join("ca.pem");
    server_pki(&dir);
    let server_record = dir.join("server.jsonl");
    let server = recording(&server_record);
    let front = front(&dir, &server.addr);
    let record = dir.join("proxy.jsonl");
    let mut child = Command::new(BIN)
        .args(["tap", "--proxy", "--listen", "127.0.0.1:0", "--ca-dir"])
        .arg(dir.join("ca"))
        .arg("--cacert")
        .arg(dir.join("server-ca.pem"))
        .args([
            "--decrypt-host",
            "localhost",
            "--ui",
            "--intercept",
            "tool:add",
        ])
        .args(["--intercept-timeout", "20", "--record"])
        .arg(&record)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = std::io::BufReader::new(child.stderr.take().unwrap()).lines();
    let page = lines.next().unwrap().unwrap();
    let (page, token) = page
        .strip_prefix("[mcp-raw] ui: http://")
        .and_then(|u| u.split_once("/?token="))
        .map(|(a, t)| (a.to_owned(), t.to_owned()))
        .unwrap_or_else(|| panic!("no page URL first: {page:?}"));
    let said = lines.next().unwrap().unwrap();
    let proxy = said
        .split("http://")
        .nth(1)
        .and_then(|r| r.split(' ').next())
        .unwrap_or_else(|| panic!("no address in {said:?}"))
        .to_owned();
    std::thread::spawn(move || for _ in lines {});
    let url = format!("https://localhost:{}/mcp", front.port);
    let trust = [cert, dir.join("server-ca.pem")];
    let client = std::thread::spawn(move || python(&url, &proxy, &trust));
    let steps = || -> Vec<String> {
        std::fs::read_to_string(&record)
            .unwrap_or_default()
            .lines()
            .filter_map(|l| {
                let v: Value = serde_json::from_str(l).ok()?;
                Some(v.get("intercept")?["step"].as_str()?.to_owned())
            })
            .collect()
    };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while steps().is_empty() && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert_eq!(steps(), ["held"]);
    let edited = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"add","arguments":{"a":1000,"b":234}}}"#;
    let ask = serde_json::json!({"hold": 1, "action": "change", "message": edited}).to_string();
    let mut sock = std::net::TcpStream::connect(&page).unwrap();
    write!(
        sock,
        "POST /intercept?token={token} HTTP/1.1\r\nHost: {page}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{ask}",
        ask.len()
    )
    .unwrap();
    let mut decided = String::new();
    sock.read_to_string(&mut decided).unwrap();
    assert!(decided.starts_with("HTTP/1.1 200 OK\r\n"), "{decided}");
    let out = client.join().unwrap();
    common::stop(&mut child);
    assert!(out.status.success(), "{out:?}");
    let answers: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        answers["call"][1],
        "data: {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"1234\"}]}}\n\n",
        "{answers}"
    );
    assert_eq!(steps(), ["held", "changed"]);
    // What the server got is the edited call, its Content-Length the edited body's.
    let seen = read(&server_record);
    let to_server = String::from_utf8(concat(&seen, |e| e.dir == Dir::ToServer)).unwrap();
    let call = to_server.rsplit("POST /mcp ").next().unwrap_or_default();
    assert!(
        call.contains(&format!("\r\nContent-Length: {}\r\n", edited.len()))
            && call.ends_with(&format!("\r\n\r\n{edited}")),
        "{to_server}"
    );
    assert!(!to_server.contains(r#""a":2,"b":40"#), "{to_server}");
    let tapped = read(&record);
    assert_eq!(
        per_lane(&tapped, Dir::ToServer),
        per_lane(&seen, Dir::ToServer),
        "the decrypted lanes' bytes are what the server got"
    );
}
