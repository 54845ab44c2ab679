//! The server as an OAuth protected resource (`serve --http --auth-server`), the
//! loopback authorization server (`auth-server`), and the client between them. Where
//! a command line, an exit status or a server's log is the subject, through the real
//! binary; where the authorization server or the protected server is only the other
//! side of the exchange, in-process (`common::tools_inproc`, built by the same library
//! calls as the subcommands). The same server against a third-party authorization
//! server (oidc-provider) is interop/oauth_check.py.

mod common;

use common::http_client::exchange;
use common::tools_inproc::{self, AuthPeer, TapFlags, TapPeer};
use common::{BIN, Http, HttpReply, HttpServer, golden, scratch};
use mcp_raw_net::transport::http::auth::Settings;
use mcp_raw_tools::authserver::Config as AuthConfig;
use serde_json::Value;
use std::io::BufRead;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// `auth-server --port 0` with `config`, in-process: the authorization server as a
/// peer of the protected server under test.
fn auth_server(config: AuthConfig) -> AuthPeer {
    AuthPeer::start(config)
}

/// `serve --http --auth-server ISSUER --required-scope mcp:tools`, in-process, with
/// `tune` applied to the settings the flags would make.
fn protected(issuer: &str, tune: impl FnOnce(&mut Settings)) -> common::InProcess {
    let mut settings = Settings::new(issuer);
    settings.required_scopes = vec!["mcp:tools".into()];
    tune(&mut settings);
    tools_inproc::protected(settings)
}

/// `mcp-raw serve --http --port 0 --auth-server ISSUER --required-scope mcp:tools
/// EXTRA…` as a process, for the tests whose subject is its log or its flags: its
/// stderr read line by line by a thread of its own, handed over on a channel.
struct Logged {
    child: std::process::Child,
    addr: String,
    lines: mpsc::Receiver<String>,
    log: String,
}

impl Drop for Logged {
    fn drop(&mut self) {
        common::stop(&mut self.child);
    }
}

fn protected_process(issuer: &str, extra: &[&str]) -> Logged {
    // The server's own log lines on stderr and its flags are the subject: a process.
    let mut child = Command::new(BIN)
        .args(["serve", "--http", "--port", "0", "--auth-server", issuer])
        .args(["--required-scope", "mcp:tools"])
        .args(extra)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn mcp-raw serve --http");
    let stderr = std::io::BufReader::new(child.stderr.take().unwrap());
    let (tx, lines) = mpsc::channel();
    std::thread::spawn(move || {
        for line in stderr.lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let mut server = Logged {
        child,
        addr: String::new(),
        lines,
        log: String::new(),
    };
    let log = server.logged("Streamable HTTP server listening on http://");
    let line = log.lines().last().unwrap();
    server.addr = line
        .split("listening on http://")
        .nth(1)
        .and_then(|rest| rest.split('/').next())
        .unwrap()
        .to_owned();
    server
}

impl Logged {
    /// The server's stderr up to the first line holding `text` (waited for, line by
    /// line, at most 5 s).
    fn logged(&mut self, text: &str) -> String {
        let deadline = Instant::now() + Duration::from_secs(5);
        while !self.log.contains(text) {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    self.log.push_str(&line);
                    self.log.push('\n');
                }
                Err(_) => panic!("no {text:?} in:\n{}", self.log),
            }
        }
        self.log.clone()
    }
}

/// `mcp-raw ARGS…`, run to its end.
/// The line of `text` that holds a JWT in clear (`eyJ…` base64url, a dot, more, a
/// dot: a header and claims), if any. A bare `eyJ` is not enough: a random client
/// id, code or PKCE verifier in base64url holds one now and then.
fn jwt_in(text: &str) -> Option<&str> {
    let b64 = |c: u8| c.is_ascii_alphanumeric() || c == b'-' || c == b'_';
    let bytes = text.as_bytes();
    let mut from = 0;
    while let Some(i) = text[from..].find("eyJ") {
        let start = from + i;
        let mut at = start;
        let mut parts = 0;
        while parts < 2 {
            let run = bytes[at..].iter().take_while(|&&c| b64(c)).count();
            if run < 2 || bytes.get(at + run) != Some(&b'.') {
                break;
            }
            at += run + 1;
            parts += 1;
        }
        if parts == 2 {
            let line_start = text[..start].rfind('\n').map_or(0, |n| n + 1);
            let line_end = text[start..].find('\n').map_or(text.len(), |n| start + n);
            return Some(&text[line_start..line_end]);
        }
        from = start + 3;
    }
    None
}

#[test]
fn a_jwt_is_told_from_a_random_string_that_holds_eyj() {
    let jwt = "eyJhbGciOiJFUzI1NiIsInR5cCI6ImF0K2p3dCJ9.e30.c2ln";
    assert_eq!(
        jwt_in(&format!("a\nBearer {jwt}\nb")),
        Some(&*format!("Bearer {jwt}"))
    );
    assert_eq!(jwt_in("code=Qx7eyJk2_abc-9&state=eyJ"), None);
    assert_eq!(jwt_in("eyJ.x."), None);
}

fn mcp_raw(args: &[&str]) -> std::process::Output {
    // The CLI's refusals of auth flags (stderr, exit status): a process.
    Command::new(BIN).args(args).output().unwrap()
}

/// One raw request to `addr` at `target`.
fn call(addr: &str, method: &str, target: &str, headers: &[(&str, &str)], body: &str) -> HttpReply {
    let mut req = format!("{method} {target} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n");
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str(&format!("Content-Length: {}\r\n\r\n{body}", body.len()));
    exchange(addr, req.as_bytes())
}

fn json(r: &HttpReply) -> Value {
    serde_json::from_slice(&r.body).unwrap_or_else(|e| panic!("{e}: {}", r.text()))
}

const FORM: (&str, &str) = ("Content-Type", "application/x-www-form-urlencoded");
const INIT: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;

fn post_mcp(addr: &str, bearer: Option<&str>) -> HttpReply {
    let auth = bearer.map(|t| format!("Bearer {t}"));
    let mut headers = vec![
        ("Content-Type", "application/json"),
        ("Accept", "application/json, text/event-stream"),
    ];
    if let Some(a) = &auth {
        headers.push(("Authorization", a));
    }
    call(addr, "POST", "/mcp", &headers, INIT)
}

/// A confidential client, registered dynamically.
fn register(issuer_addr: &str) -> (String, String) {
    let r = call(
        issuer_addr,
        "POST",
        "/register",
        &[("Content-Type", "application/json")],
        r#"{"redirect_uris":["http://127.0.0.1:9/cb"],"token_endpoint_auth_method":"client_secret_post"}"#,
    );
    assert_eq!(r.status, 201, "{}", r.text());
    let c = json(&r);
    (
        c["client_id"].as_str().unwrap().to_owned(),
        c["client_secret"].as_str().unwrap().to_owned(),
    )
}

fn token(issuer_addr: &str, form: &str) -> HttpReply {
    call(issuer_addr, "POST", "/token", &[FORM], form)
}

fn enc(s: &str) -> String {
    mcp_raw_wire::form::escape(s)
}

#[test]
fn the_client_gets_through_a_protected_server_and_the_record_shows_every_hop() {
    let dir = scratch("protected", "flow");
    let auth = auth_server(AuthConfig::default());
    let issuer = auth.issuer.clone();
    let server_record = dir.join("server.jsonl");
    let server = protected_process(&issuer, &["--record", server_record.to_str().unwrap()]);
    let record = dir.join("client.jsonl");
    let out = mcp_raw(&[
        "client",
        &format!("http://{}/mcp", server.addr),
        "--color",
        "never",
        "--record",
        record.to_str().unwrap(),
    ]);
    let view =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{view}");
    // Each hop, in order, in the client's view.
    let mut at = 0;
    for hop in [
        "HTTP/1.1 401 Unauthorized",
        "GET /.well-known/oauth-protected-resource/mcp",
        "GET /.well-known/oauth-authorization-server",
        "POST /register",
        "GET /authorize?response_type=code",
        "HTTP/1.1 302 Found",
        "POST /token",
        "authorization: Bearer ****",
        "HTTP/1.1 200 OK",
    ] {
        let found = view[at..]
            .find(hop)
            .unwrap_or_else(|| panic!("no {hop:?} after byte {at} in:\n{view}"));
        at += found + hop.len();
    }
    // The record masks the token too, and `check` finds nothing wrong in the MCP
    // exchanges (the OAuth ones are not MCP's to judge).
    let recorded = std::fs::read_to_string(&record).unwrap();
    assert_eq!(
        jwt_in(&recorded),
        None,
        "a JWT in clear in the client's record"
    );
    let (status, report) = tools_inproc::check(&record);
    assert_eq!(status, 0, "{report}");
    assert_eq!(
        report.split(" in ").next(),
        Some("0 errors, 0 warnings"),
        "{report}"
    );
    // The server's record has its own fetch of the key set, on a lane of its own.
    drop(server);
    let server_side = mcp_raw(&["show", server_record.to_str().unwrap(), "--color", "never"]);
    let shown = String::from_utf8_lossy(&server_side.stdout);
    assert!(shown.contains("GET /jwks HTTP/1.1"), "{shown}");
    assert_eq!(
        jwt_in(&shown),
        None,
        "a JWT in clear in the server's record"
    );
}

#[test]
fn tokens_are_checked_for_scope_audience_signature_and_expiry() {
    let auth = auth_server(AuthConfig {
        scopes: vec!["mcp:tools".into(), "mcp:read".into()],
        token_ttl: Duration::from_secs(1),
        ..AuthConfig::default()
    });
    let issuer = auth.issuer.clone();
    let server = protected(&issuer, |s| s.leeway = 0);
    let resource = format!("http://{}/mcp", server.addr);
    let metadata = format!(
        "http://{}/.well-known/oauth-protected-resource/mcp",
        server.addr
    );
    let (id, secret) = register(&auth.addr);
    let cc = |scope: &str, resource: &str| {
        let r = token(
            &auth.addr,
            &format!(
                "grant_type=client_credentials&client_id={}&client_secret={}&scope={}&resource={}",
                enc(&id),
                enc(&secret),
                enc(scope),
                enc(resource)
            ),
        );
        assert_eq!(r.status, 200, "{}", r.text());
        json(&r)["access_token"].as_str().unwrap().to_owned()
    };
    let good = cc("mcp:tools", &resource);
    let r = post_mcp(&server.addr, Some(&good));
    assert_eq!(r.status, 200, "{}", r.text());
    // --token-ttl 1: the token's life is one second, by its own claims (RFC 9068
    // §2.2: exp and iat, in seconds); a token past its exp is refused below, in
    // a_key_verifies_only_tokens_of_its_alg_and_use_and_no_bound_token_passes.
    let claims = claims_of(&good);
    assert_eq!(
        claims["exp"].as_u64().unwrap() - claims["iat"].as_u64().unwrap(),
        1,
        "{claims}"
    );

    // RFC 6750 §3: the challenge names the error; the body says it in words, as a
    // JSON-RPC error with no id.
    let refused = |bearer: &str, status: u16, challenge: &str| {
        let r = post_mcp(&server.addr, Some(bearer));
        let got = r.header("www-authenticate").unwrap_or("").to_owned();
        assert_eq!(r.status, status, "{got} {}", r.text());
        assert_eq!(got, challenge);
        assert!(
            json(&r)["error"]["message"]
                .as_str()
                .is_some_and(|m| !m.is_empty())
        );
    };
    refused(
        &cc("mcp:read", &resource),
        403,
        &format!(
            r#"Bearer error="insufficient_scope", error_description="the token lacks the scope mcp:tools (it has 'mcp:read')", resource_metadata="{metadata}", scope="mcp:tools""#
        ),
    );
    let invalid = |why: &str| {
        format!(
            r#"Bearer error="invalid_token", error_description="{why}", resource_metadata="{metadata}", scope="mcp:tools""#
        )
    };
    refused(
        &cc("mcp:tools", "http://127.0.0.1:1/mcp"),
        401,
        &invalid(&format!(
            "the token is not for this resource: its aud does not name {resource} (RFC 8707, MCP basic/authorization 'Token Audience Binding')"
        )),
    );
    let (h, rest) = good.split_once('.').unwrap();
    refused(
        &format!("{h}.e30.{}", rest.split('.').nth(1).unwrap()),
        401,
        &invalid("the signature does not verify"),
    );

    // No token at all: the plain challenge, pointing at the metadata (RFC 9728 §5.1).
    let r = post_mcp(&server.addr, None);
    assert_eq!(r.status, 401);
    assert_eq!(
        r.header("www-authenticate").unwrap(),
        format!(r#"Bearer resource_metadata="{metadata}", scope="mcp:tools""#)
    );
    let doc = json(&call(
        &server.addr,
        "GET",
        "/.well-known/oauth-protected-resource/mcp",
        &[],
        "",
    ));
    assert_eq!(doc["resource"], resource.as_str());
    assert_eq!(doc["authorization_servers"][0], issuer.as_str());
    let r = call(
        &server.addr,
        "POST",
        "/.well-known/oauth-protected-resource",
        &[],
        "",
    );
    assert_eq!((r.status, r.header("allow")), (405, Some("GET")));
    // Two Authorization headers: 400 invalid_request.
    let r = call(
        &server.addr,
        "POST",
        "/mcp",
        &[("Authorization", "Bearer a"), ("Authorization", "Bearer b")],
        INIT,
    );
    assert_eq!(r.status, 400);
    assert_eq!(
        r.header("www-authenticate").unwrap(),
        format!(
            r#"Bearer error="invalid_request", error_description="the Authorization header appears more than once; send one", resource_metadata="{metadata}", scope="mcp:tools""#
        )
    );
}

/// The claims of a JWT, its payload read without checking anything.
fn claims_of(jwt: &str) -> Value {
    use base64::Engine;
    let payload = jwt.split('.').nth(1).expect("a JWT");
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(payload)
        .unwrap();
    serde_json::from_slice(&bytes).unwrap()
}

#[test]
fn an_authorization_server_out_of_reach_is_503_not_a_verdict_on_the_token() {
    // Port 1 on loopback: nothing listens, the connection is refused at once.
    // The subject is the server's log too: a process.
    let mut server = protected_process("http://127.0.0.1:1", &["--auth-fetch-timeout", "2"]);
    // A token-shaped JWT (header {"alg":"ES256","typ":"at+jwt","kid":"k"}): only
    // the key set could say whether it is good.
    let jwt = "eyJhbGciOiJFUzI1NiIsInR5cCI6ImF0K2p3dCIsImtpZCI6ImsifQ.e30.c2ln";
    let r = post_mcp(&server.addr, Some(jwt));
    assert_eq!(r.status, 503, "{}", r.text());
    let unavailable = "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32603,\"message\":\"Service Unavailable: the token cannot be checked now, the authorization server http://127.0.0.1:1 is out of reach or its answer unusable (the reason is in this server's log)\"}}";
    assert_eq!(r.text(), unavailable);
    // The failure is remembered (--auth-retry): the next request gets it at once,
    // without a fetch of its own.
    let r = post_mcp(&server.addr, Some(jwt));
    assert_eq!(r.status, 503, "{}", r.text());
    server.logged("tried again after --auth-retry");
    // Issue 30 §14: the reason (the fetch's error, the flag) goes to stderr, not to
    // the caller: the same words as the first time, byte for byte.
    assert_eq!(r.text(), unavailable);
    // And the server goes on: no token is still a 401.
    assert_eq!(post_mcp(&server.addr, None).status, 401);
}

#[test]
fn the_authorization_server_enforces_pkce_one_use_codes_and_registered_redirects() {
    let auth = auth_server(AuthConfig::default());
    let (id, secret) = register(&auth.addr);
    let verifier = "a-verifier-of-at-least-43-characters-xxxxxxxxxxxxxxxx";
    let challenge = mcp_raw_net::keys::s256(verifier);
    let authorize = |redirect: &str, extra: &str| {
        call(
            &auth.addr,
            "GET",
            &format!(
                "/authorize?response_type=code&client_id={}&redirect_uri={}&code_challenge={challenge}&code_challenge_method=S256&state=s1{extra}",
                enc(&id),
                enc(redirect)
            ),
            &[],
            "",
        )
    };
    // An unregistered redirect is answered here, never followed.
    let r = authorize(
        "http://127.0.0.1:9/elsewhere",
        "&resource=http%3A%2F%2Fr%2Fmcp",
    );
    assert_eq!(r.status, 400, "{}", r.text());
    assert!(r.header("location").is_none());
    // No resource: back on the redirect with invalid_target (RFC 8707).
    let r = authorize("http://127.0.0.1:9/cb", "");
    assert_eq!(r.status, 302, "{}", r.text());
    assert_eq!(
        r.header("location").unwrap(),
        format!(
            "http://127.0.0.1:9/cb?error=invalid_target&error_description=resource%20is%20required%3A%20the%20MCP%20server%20the%20token%20is%20for%20%28RFC%208707%29&state=s1&iss={}",
            enc(&auth.issuer)
        )
    );
    // A good request: a code, our state, the issuer (RFC 9207).
    let r = authorize("http://127.0.0.1:9/cb", "&resource=http%3A%2F%2Fr%2Fmcp");
    assert_eq!(r.status, 302);
    let location = r.header("location").unwrap().to_owned();
    let query = mcp_raw_wire::form::decode(location.split_once('?').unwrap().1);
    let get = |k: &str| query.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone());
    assert_eq!(get("state").as_deref(), Some("s1"));
    assert_eq!(get("iss"), Some(auth.issuer.clone()));
    let code = get("code").unwrap();
    let exchange_with = |verifier: &str| {
        token(
            &auth.addr,
            &format!(
                "grant_type=authorization_code&code={}&redirect_uri={}&code_verifier={verifier}&client_id={}&client_secret={}",
                enc(&code),
                enc("http://127.0.0.1:9/cb"),
                enc(&id),
                enc(&secret)
            ),
        )
    };
    // The wrong verifier: refused (and the code is spent: one try only).
    let r = exchange_with("not-the-verifier-not-the-verifier-not-the-verifier");
    assert_eq!(
        (r.status, json(&r)["error"].as_str()),
        (400, Some("invalid_grant"))
    );
    let r = exchange_with(verifier);
    assert_eq!(r.status, 400, "a code is good for one try: {}", r.text());
    // A wrong secret: 401 invalid_client.
    let r = token(
        &auth.addr,
        &format!(
            "grant_type=client_credentials&client_id={}&client_secret=wrong&resource=x",
            enc(&id)
        ),
    );
    assert_eq!(
        (r.status, json(&r)["error"].as_str()),
        (401, Some("invalid_client"))
    );
}

#[test]
fn demo_http_auth_walks_the_flow_and_checks_every_answer() {
    let out = mcp_raw(&["demo-http", "--auth", "--port", "0", "--color", "never"]);
    let view =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{view}");
    // Its outline, whole: every caption (steps 1 to 10), every status line and every
    // challenge (error="insufficient_scope" at step 9), in order (the rest carries a
    // fresh client id, code and PKCE pair on each run).
    let outline: String = view
        .lines()
        .filter(|l| {
            l.starts_with("# ")
                || l.starts_with("<<< www-authenticate: ")
                || (l.starts_with("<<< [") && l.contains("] HTTP/1.1 "))
        })
        .map(|l| format!("{l}\n"))
        .collect();
    golden::check("demo/demo-http-auth-outline.txt", &outline);
    assert_eq!(jwt_in(&view), None, "a token in clear in the demo's view");
}

/// `mcp-raw bridge --port 0 --auth-server ISSUER -- mcp-raw serve`: the bridge's own
/// flags under test, so a process.
fn bridge(issuer: &str) -> HttpServer {
    // The bridge's own --auth-server flags are under test: a process.
    let mut command = Command::new(BIN);
    command
        .args(["bridge", "--port", "0", "--auth-server", issuer, "--"])
        .args([BIN, "serve"]);
    HttpServer::spawn(command)
}

#[test]
fn the_bridge_is_protected_by_the_same_flags() {
    let auth = auth_server(AuthConfig::default());
    let issuer = auth.issuer.clone();
    let bridge = bridge(&issuer);
    let r = post_mcp(&bridge.addr, None);
    assert_eq!(r.status, 401, "{}", r.text());
    assert_eq!(
        r.header("www-authenticate").unwrap(),
        format!(
            r#"Bearer resource_metadata="http://{}/.well-known/oauth-protected-resource/mcp""#,
            bridge.addr
        )
    );
    let doc = json(&call(
        &bridge.addr,
        "GET",
        "/.well-known/oauth-protected-resource",
        &[],
        "",
    ));
    assert_eq!(doc["authorization_servers"][0], issuer.as_str());
}

#[test]
fn auth_flags_need_their_context() {
    for (args, code, stderr) in [
        (
            &["serve", "--http", "--resource", "http://x/mcp"][..],
            2,
            "error: the following required arguments were not provided:\n  --auth-server <URL>\n\nUsage: mcp-raw serve --http --auth-server <URL> --resource <URL>\n\nFor more information, try '--help'.\n",
        ),
        (
            &["auth-server", "--host", "0.0.0.0", "--port", "0"][..],
            1,
            "mcp-raw: auth-server approves every request without asking anyone, so it binds loopback only, not \"0.0.0.0\"\n",
        ),
    ] {
        let out = mcp_raw(args);
        assert_eq!(out.status.code(), Some(code), "{args:?}");
        assert_eq!(String::from_utf8_lossy(&out.stderr), stderr, "{args:?}");
    }
}

/// The tap records someone else's tokens: masked unless `--show-secrets`, and passed on
/// unchanged either way (the server still sees the real token and says why it is bad).
#[test]
fn the_tap_masks_the_tokens_it_passes_on() {
    let dir = scratch("protected", "tap");
    let server = protected("http://127.0.0.1:1", |_| {});
    let token = "eyJhbGciOiJFUzI1NiIsInR5cCI6ImF0K2p3dCJ9.e30.c2ln-a-token-to-keep-secret";
    for show in [false, true] {
        let record = dir.join(format!("tap-{show}.jsonl"));
        // The tap in-process (the library's relay, as `tap --http --target URL
        // --record FILE [--show-secrets]` sets it up): what it passes on and
        // records is the subject.
        let tap = TapPeer::http(
            &format!("http://{}/mcp", server.addr),
            TapFlags {
                record: Some(&record),
                show_secrets: show,
                ..TapFlags::default()
            },
        );
        let r = post_mcp(&tap.addr, Some(token));
        // The real token reached the server: it could not check it (no AS), so 503,
        // not the 401 a masked token ("****…", not a JWT) would get.
        assert_eq!(r.status, 503, "{}", r.text());
        drop(tap);
        let recorded = std::fs::read_to_string(&record).unwrap();
        assert_eq!(recorded.contains(token), show, "{recorded}");
        if !show {
            assert!(recorded.contains("Bearer ****"), "{recorded}");
        }
    }
}

#[test]
fn auth_server_closes_a_connection_that_sends_no_head() {
    use std::io::Read;
    let auth = auth_server(AuthConfig {
        listener: mcp_raw_net::transport::http::Limits {
            header_timeout: Duration::from_millis(500),
            ..Default::default()
        },
        ..AuthConfig::default()
    });
    let mut sock = std::net::TcpStream::connect(&auth.addr).unwrap();
    sock.set_read_timeout(Some(std::time::Duration::from_secs(5)))
        .unwrap();
    let started = std::time::Instant::now();
    let mut buf = [0u8; 64];
    // Nothing sent: the server closes (a read of 0 bytes, or a reset), well before
    // the 5 s this read would otherwise wait.
    let _ = sock.read(&mut buf);
    let waited = started.elapsed();
    assert!(
        waited < std::time::Duration::from_secs(4),
        "closed after {waited:?}"
    );
}

#[test]
fn serve_and_bridge_refuse_an_authorization_server_in_clear_elsewhere() {
    // Issue 30 §7: the client's rule (HTTPS or loopback), by the same function,
    // before anything listens; the scheme's case changes nothing.
    for issuer in ["http://auth.example.com", "HTTP://10.0.0.1:9000"] {
        for sub in [&["serve", "--http"][..], &["bridge"][..]] {
            let mut args = sub.to_vec();
            args.extend(["--port", "0", "--auth-server", issuer]);
            if sub[0] == "bridge" {
                args.extend(["--", BIN, "serve"]);
            }
            let out = mcp_raw(&args);
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(1), "{sub:?} {issuer}: {err}");
            // The whole of stderr: the refusal, and nothing listening before it.
            assert_eq!(
                err,
                format!(
                    "mcp-raw: --auth-server is {issuer:?}: authorization endpoints MUST be served over HTTPS (MCP basic/authorization \"Communication Security\"); plain http:// is accepted on a loopback address only\n"
                ),
                "{sub:?}"
            );
        }
    }
}

/// An authorization server of canned answers on a loopback port: each request gets
/// `answer(issuer, request head)`, a status and its JSON; it keeps the heads it saw.
struct Canned {
    issuer: String,
    seen: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
}

fn canned(answer: impl Fn(&str, &str) -> (u16, String) + Send + 'static) -> Canned {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let issuer = format!("http://{}", listener.local_addr().unwrap());
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let (me, log) = (issuer.clone(), seen.clone());
    std::thread::spawn(move || {
        for mut stream in listener.incoming().map_while(Result::ok) {
            let mut head = Vec::new();
            let mut byte = [0u8; 1];
            while !head.ends_with(b"\r\n\r\n") && stream.read(&mut byte).unwrap_or(0) == 1 {
                head.push(byte[0]);
            }
            let head = String::from_utf8_lossy(&head).into_owned();
            let (status, body) = answer(&me, &head);
            log.lock().unwrap().push(head);
            let _ = write!(
                stream,
                "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    Canned { issuer, seen }
}

#[test]
fn the_key_set_and_introspection_must_be_on_the_issuers_origin() {
    // Issue 30 §7: a metadata document naming another origin (here another loopback
    // address, so only the origin rule can refuse it) sends the server nowhere.
    let elsewhere = canned(|_, _| (200, r#"{"keys":[],"active":true}"#.to_owned()));
    let port = elsewhere.issuer.rsplit(':').next().unwrap().to_owned();
    // The canned metadata names 127.0.0.2:PORT (the other server's port) for both.
    let named = port.clone();
    let issuer = canned(move |me, _| {
        let port = &named;
        (
            200,
            format!(
                r#"{{"issuer":"{me}","jwks_uri":"http://127.0.0.2:{port}/jwks","introspection_endpoint":"http://127.0.0.2:{port}/introspect"}}"#
            ),
        )
    });
    let jwt = "eyJhbGciOiJFUzI1NiIsInR5cCI6ImF0K2p3dCIsImtpZCI6ImsifQ.e30.c2ln";
    for extra in [
        &[][..],
        &[
            "--introspection-client-id",
            "rs",
            "--introspection-client-secret",
            "rs-secret",
        ][..],
    ] {
        // The subject is the server's log: a process.
        let mut server = protected_process(&issuer.issuer, extra);
        let r = post_mcp(&server.addr, Some(jwt));
        assert_eq!(r.status, 503, "{}", r.text());
        let log = server.logged("not on the issuer's origin");
        let (member, path) = if extra.is_empty() {
            ("jwks_uri", "jwks")
        } else {
            ("introspection_endpoint", "introspect")
        };
        assert_eq!(
            log.lines().last().unwrap(),
            format!(
                "[mcp-raw] cannot check a token: the metadata of {} puts its {member} at \"http://127.0.0.2:{port}/{path}\", not on the issuer's origin: refused (mcp-raw fetches keys and introspects only on the issuer's own scheme, host and port)",
                issuer.issuer
            ),
            "{log}"
        );
    }
    assert!(elsewhere.seen.lock().unwrap().is_empty());
    assert!(!issuer.seen.lock().unwrap().is_empty());
}

#[test]
fn a_503_never_echoes_the_authorization_servers_error_body() {
    // Issue 30 §14: what the authorization server said goes to stderr only.
    let issuer = canned(|me, head| {
        if head.starts_with("POST /introspect") {
            (
                500,
                r#"{"error":"database at 10.9.8.7 is down"}"#.to_owned(),
            )
        } else {
            (
                200,
                format!(r#"{{"issuer":"{me}","introspection_endpoint":"{me}/introspect"}}"#),
            )
        }
    });
    // The subject is the server's log too: a process.
    let mut server = protected_process(
        &issuer.issuer,
        &[
            "--introspection-client-id",
            "rs",
            "--introspection-client-secret",
            "s",
        ],
    );
    let r = post_mcp(&server.addr, Some("opaque-token"));
    assert_eq!(r.status, 503, "{}", r.text());
    assert_eq!(
        golden::normalize(&r.text()),
        "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32603,\"message\":\"Service Unavailable: the token cannot be checked now, the authorization server http://127.0.0.1:<port> is out of reach or its answer unusable (the reason is in this server's log)\"}}"
    );
    let log = server.logged("database at 10.9.8.7 is down");
    assert_eq!(
        golden::normalize(log.lines().last().unwrap()),
        r#"[mcp-raw] cannot check a token: http://127.0.0.1:<port>/introspect answered 500 Internal Server Error to the introspection: {"error":"database at 10.9.8.7 is down"}"#,
        "{log}"
    );
}

#[test]
fn a_session_belongs_to_the_principal_whose_token_made_it() {
    // Issue 30 §9 (MCP 2025-11-25 Security Best Practices, Session Hijacking): a
    // session made with alice's token does not exist for bob's, not even to DELETE.
    let auth = auth_server(AuthConfig {
        clients: vec!["alice:sa".into(), "bob:sb".into()],
        ..AuthConfig::default()
    });
    let issuer = auth.issuer.clone();
    for sub in ["serve", "bridge"] {
        // The bridge is a process: its own flags are under test.
        let server: Box<dyn Http> = if sub == "serve" {
            Box::new(protected(&issuer, |_| {}))
        } else {
            Box::new(bridge(&issuer))
        };
        let addr = server.addr().to_owned();
        let resource = format!("http://{}/mcp", addr);
        let token_of = |id: &str, secret: &str| {
            let r = token(
                &auth.addr,
                &format!(
                    "grant_type=client_credentials&client_id={id}&client_secret={secret}&resource={}",
                    enc(&resource)
                ),
            );
            assert_eq!(r.status, 200, "{}", r.text());
            format!("Bearer {}", json(&r)["access_token"].as_str().unwrap())
        };
        let (alice, bob) = (token_of("alice", "sa"), token_of("bob", "sb"));
        let r = call(
            &addr,
            "POST",
            "/mcp",
            &[
                ("Content-Type", "application/json"),
                ("Accept", "application/json, text/event-stream"),
                ("Authorization", &alice),
            ],
            INIT,
        );
        assert_eq!(r.status, 200, "{sub}: {}", r.text());
        let sid = r.header("mcp-session-id").expect("a session").to_owned();
        let list = r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#;
        let post_as = |who: &str| {
            call(
                &addr,
                "POST",
                "/mcp",
                &[
                    ("Content-Type", "application/json"),
                    ("Accept", "application/json, text/event-stream"),
                    ("Authorization", who),
                    ("Mcp-Session-Id", &sid),
                    ("MCP-Protocol-Version", "2025-11-25"),
                ],
                list,
            )
        };
        let delete_as = |who: &str| {
            call(
                &addr,
                "DELETE",
                "/mcp",
                &[("Authorization", who), ("Mcp-Session-Id", &sid)],
                "",
            )
        };
        let r = post_as(&bob);
        assert_eq!(r.status, 404, "{sub}: {}", r.text());
        assert_eq!(delete_as(&bob).status, 404, "{sub}");
        if sub == "bridge" {
            // The bridge pushes, so it serves a GET stream: not alice's to bob.
            let r = call(
                &addr,
                "GET",
                "/mcp",
                &[
                    ("Accept", "text/event-stream"),
                    ("Authorization", &bob),
                    ("Mcp-Session-Id", &sid),
                ],
                "",
            );
            assert_eq!(r.status, 404, "{}", r.text());
        }
        // Still alice's, untouched by bob's attempts.
        let r = post_as(&alice);
        assert_eq!(r.status, 200, "{sub}: {}", r.text());
        assert_eq!(delete_as(&alice).status, 204, "{sub}");
        assert_eq!(post_as(&alice).status, 404, "{sub}");
    }
}

#[test]
fn auth_server_guards_host_and_origin_and_registers_json_only() {
    // Issue 30 §10: the guard of `serve --http` (DNS rebinding), and RFC 7591 §3.1's
    // application/json for /register (415 otherwise).
    let auth = auth_server(AuthConfig::default());
    let meta = "/.well-known/oauth-authorization-server";
    let r = call(&auth.addr, "GET", meta, &[], "");
    assert_eq!(r.status, 200, "{}", r.text());
    let req = format!("GET {meta} HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n");
    let r = exchange(&auth.addr, req.as_bytes());
    assert_eq!(r.status, 403, "{}", r.text());
    assert_eq!(
        r.text(),
        "{\"error\":\"invalid_request\",\"error_description\":\"Forbidden: Host \\\"evil.example\\\" is not a host this server answers to (localhost, 127.0.0.1, [::1], or one given with --allow-host); DNS-rebinding protection\"}"
    );
    let r = call(
        &auth.addr,
        "GET",
        meta,
        &[("Origin", "http://evil.example")],
        "",
    );
    assert_eq!(r.status, 403, "{}", r.text());
    let body = r#"{"redirect_uris":["http://127.0.0.1:9/cb"]}"#;
    for ct in ["text/plain", "application/x-www-form-urlencoded"] {
        let r = call(
            &auth.addr,
            "POST",
            "/register",
            &[("Content-Type", ct)],
            body,
        );
        assert_eq!(r.status, 415, "{ct}: {}", r.text());
        // RFC 7591 §3.1: the body is JSON; any other type named back in the refusal.
        assert_eq!(
            r.text(),
            format!(
                r#"{{"error":"invalid_request","error_description":"Content-Type must be application/json (RFC 7591 §3.1), got \"{ct}\""}}"#
            )
        );
    }
    let r = call(&auth.addr, "POST", "/register", &[], body);
    assert_eq!(r.status, 415, "{}", r.text());
    let r = call(
        &auth.addr,
        "POST",
        "/register",
        &[("Content-Type", "application/json; charset=utf-8")],
        body,
    );
    assert_eq!(r.status, 201, "{}", r.text());
}

/// A JWT access token for `resource` from `issuer`, signed ES256 with `key`, its
/// header naming `kid`, with `extra` claims.
fn signed(
    key: &mcp_raw_net::keys::Es256Key,
    kid: &str,
    issuer: &str,
    resource: &str,
    extra: Value,
) -> String {
    let mut header = jsonwebtoken::Header::new(jsonwebtoken::Algorithm::ES256);
    header.typ = Some("at+jwt".into());
    header.kid = Some(kid.into());
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let mut claims = serde_json::json!({
        "iss": issuer, "aud": resource, "sub": "alice", "client_id": "c",
        "scope": "mcp:tools", "iat": now, "exp": now + 600,
    });
    if let (Some(c), Some(e)) = (claims.as_object_mut(), extra.as_object()) {
        c.extend(e.clone());
    }
    jsonwebtoken::encode(&header, &claims, &key.encoding).unwrap()
}

#[test]
fn a_key_verifies_only_tokens_of_its_alg_and_use_and_no_bound_token_passes() {
    // Issue 30 §17: one public key published three ways: for ES256 signatures, for
    // ES384 only, for encryption. Only the first verifies an ES256 token.
    let key = mcp_raw_net::keys::Es256Key::generate().unwrap();
    let jwk = key.public_jwk.clone();
    // The fourth fetch of the key set (the unknown kid's, below) says it started,
    // then waits for the test's word (at most 10 s) before it answers.
    let (started_tx, fourth_started) = mpsc::channel::<()>();
    let (release, gate) = mpsc::channel::<()>();
    let gate = std::sync::Mutex::new(gate);
    let fetches = std::sync::atomic::AtomicUsize::new(0);
    let issuer = canned(move |me, head| {
        if head.starts_with("GET /jwks") {
            if fetches.fetch_add(1, std::sync::atomic::Ordering::SeqCst) == 3 {
                started_tx.send(()).unwrap();
                let _ = gate.lock().unwrap().recv_timeout(Duration::from_secs(10));
            }
            let variant = |kid: &str, alg: &str, use_: &str| {
                let mut k = jwk.clone();
                k["kid"] = kid.into();
                k["alg"] = alg.into();
                k["use"] = use_.into();
                k
            };
            let keys = serde_json::json!({"keys": [
                variant("good", "ES256", "sig"),
                variant("es384", "ES384", "sig"),
                variant("enc", "ES256", "enc"),
            ]});
            (200, keys.to_string())
        } else {
            (
                200,
                format!(r#"{{"issuer":"{me}","jwks_uri":"{me}/jwks"}}"#),
            )
        }
    });
    let server = protected(&issuer.issuer, |s| s.jwks_refresh = Duration::ZERO);
    let resource = format!("http://{}/mcp", server.addr);
    let metadata = format!(
        "http://{}/.well-known/oauth-protected-resource/mcp",
        server.addr
    );
    let token = |kid: &str, extra: Value| signed(&key, kid, &issuer.issuer, &resource, extra);
    let good = token("good", serde_json::json!({}));
    assert_eq!(post_mcp(&server.addr, Some(&good)).status, 200);
    for kid in ["es384", "enc"] {
        let r = post_mcp(&server.addr, Some(&token(kid, serde_json::json!({}))));
        assert_eq!(r.status, 401, "{kid}: {}", r.text());
        assert_eq!(
            r.header("www-authenticate").unwrap_or(""),
            format!(
                r#"Bearer error="invalid_token", error_description="no key '{kid}' for ES256 signatures in the authorization server's key set (a key's alg, when given, must be the token's, and its use sig or absent: RFC 7517 section 4.2, section 4.4)", resource_metadata="{metadata}", scope="mcp:tools""#
            ),
            "{kid}"
        );
    }
    // A DPoP-bound token (cnf.jkt) is refused even with a good signature.
    let bound = token("good", serde_json::json!({"cnf": {"jkt": "abc"}}));
    let r = post_mcp(&server.addr, Some(&bound));
    assert_eq!(r.status, 401, "{}", r.text());
    let invalid = |why: &str| {
        format!(
            r#"Bearer error="invalid_token", error_description="{why}", resource_metadata="{metadata}", scope="mcp:tools""#
        )
    };
    assert_eq!(
        r.header("www-authenticate").unwrap_or(""),
        invalid(
            "the token is bound to a key (cnf {'jkt':'abc'}); this server does not verify DPoP proofs, so it accepts no sender-constrained token (RFC 9449 section 7.1)"
        )
    );
    // A token past its exp (and the default 30 s of leeway, --token-leeway) is
    // refused, whatever its signature (RFC 7519 §4.1.4); one 10 s past it, within
    // the leeway, still passes.
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let late = token(
        "good",
        serde_json::json!({"iat": now - 120, "exp": now - 10}),
    );
    assert_eq!(post_mcp(&server.addr, Some(&late)).status, 200);
    let expired = token(
        "good",
        serde_json::json!({"iat": now - 120, "exp": now - 60}),
    );
    let r = post_mcp(&server.addr, Some(&expired));
    assert_eq!(r.status, 401, "{}", r.text());
    assert_eq!(
        r.header("www-authenticate").unwrap_or(""),
        invalid("the token has expired (exp is past)")
    );
    // The key set is fetched outside the lock token checks take: while a token
    // naming an unknown key waits 3 s on a fetch, one with a known key passes at once.
    let addr = server.addr.clone();
    let unknown = token("unknown", serde_json::json!({}));
    let slow = std::thread::spawn(move || post_mcp(&addr, Some(&unknown)).status);
    fourth_started
        .recv_timeout(Duration::from_secs(10))
        .expect("the unknown kid's fetch of the key set");
    // That fetch is held until the known key's token has its answer: a lock held
    // across the fetch would hold this request until the gate's 10 s ran out.
    let started = Instant::now();
    assert_eq!(post_mcp(&server.addr, Some(&good)).status, 200);
    let took = started.elapsed();
    release.send(()).unwrap();
    assert!(took < Duration::from_secs(1), "{took:?}");
    assert_eq!(slow.join().unwrap(), 401);
}

/// One code from `auth` for the client `id` (registered with the redirect
/// http://127.0.0.1:9/cb), for the PKCE `verifier`: the `/authorize` reply.
fn authorize_for(auth: &AuthPeer, id: &str, verifier: &str) -> HttpReply {
    call(
        &auth.addr,
        "GET",
        &format!(
            "/authorize?response_type=code&client_id={}&redirect_uri={}&code_challenge={}&code_challenge_method=S256&resource=http%3A%2F%2Fr%2Fmcp",
            enc(id),
            enc("http://127.0.0.1:9/cb"),
            mcp_raw_net::keys::s256(verifier)
        ),
        &[],
        "",
    )
}

/// The `code` of a redirect's Location.
fn code_of(r: &HttpReply) -> String {
    let location = r.header("location").expect("a redirect");
    let query = mcp_raw_wire::form::decode(location.split_once('?').unwrap().1);
    query
        .into_iter()
        .find(|(n, _)| n == "code")
        .unwrap_or_else(|| panic!("no code in {location}"))
        .1
}

#[test]
fn auth_server_bounds_codes_checks_verifiers_and_revokes_a_replayed_family() {
    // Issue 30 §18.
    let auth = auth_server(AuthConfig {
        max_codes: 2,
        ..AuthConfig::default()
    });
    let (id, secret) = register(&auth.addr);
    let verifier = "a-verifier-of-at-least-43-characters-xxxxxxxxxxxxxxxx";
    let first = code_of(&authorize_for(&auth, &id, verifier));
    let _second = code_of(&authorize_for(&auth, &id, verifier));
    // A third waiting code is one too many: back on the redirect, RFC 6749 §4.1.2.1.
    let r = authorize_for(&auth, &id, verifier);
    assert_eq!(r.status, 302, "{}", r.text());
    assert_eq!(
        r.header("location").unwrap_or(""),
        format!(
            "http://127.0.0.1:9/cb?error=temporarily_unavailable&error_description=2%20authorization%20codes%20are%20waiting%20for%20their%20exchange%2C%20the%20most%20this%20server%20keeps%20%28auth-server%20--max-codes%29%3B%20retry%20once%20some%20are%20exchanged%20or%20expired&iss={}",
            enc(&auth.issuer)
        )
    );
    let form = |grant: &str| {
        format!(
            "{grant}&client_id={}&client_secret={}",
            enc(&id),
            enc(&secret)
        )
    };
    let exchange_with = |v: &str| {
        token(
            &auth.addr,
            &form(&format!(
                "grant_type=authorization_code&code={}&redirect_uri={}&code_verifier={}",
                enc(&first),
                enc("http://127.0.0.1:9/cb"),
                enc(v)
            )),
        )
    };
    // RFC 7636 §4.1: 43 to 128 characters of [A-Za-z0-9-._~]; a malformed verifier
    // is a bad request, and does not spend the code.
    for (bad, says) in [
        (
            "short",
            "the code_verifier has 5 characters; RFC 7636 section 4.1 wants 43 to 128",
        ),
        (
            &*"x".repeat(129),
            "the code_verifier has 129 characters; RFC 7636 section 4.1 wants 43 to 128",
        ),
        (
            "a-verifier-of-at-least-43-characters-xxxxxxxxxxxxxxx!",
            "the code_verifier holds '!'; RFC 7636 section 4.1 allows only A-Z a-z 0-9 - . _ ~",
        ),
    ] {
        let r = exchange_with(bad);
        assert_eq!(r.status, 400, "{}", r.text());
        let j = json(&r);
        assert_eq!(j["error"], "invalid_request", "{j}");
        assert_eq!(j["error_description"], says, "{j}");
    }
    let r = exchange_with(verifier);
    assert_eq!(r.status, 200, "{}", r.text());
    let rt1 = json(&r)["refresh_token"].as_str().unwrap().to_owned();
    let refresh = |rt: &str| {
        token(
            &auth.addr,
            &form(&format!(
                "grant_type=refresh_token&refresh_token={}",
                enc(rt)
            )),
        )
    };
    let r = refresh(&rt1);
    assert_eq!(r.status, 200, "{}", r.text());
    let rt2 = json(&r)["refresh_token"].as_str().unwrap().to_owned();
    // rt1 again: a replay. The whole family goes, rt2 included.
    let r = refresh(&rt1);
    assert_eq!(r.status, 400, "{}", r.text());
    assert_eq!(
        r.text(),
        "{\"error\":\"invalid_grant\",\"error_description\":\"the refresh token was used already: its family (2 refresh token(s), the one issued in its place included) is revoked (OAuth 2.1 section 4.3.1)\"}"
    );
    let r = refresh(&rt2);
    assert_eq!(
        (r.status, json(&r)["error"].as_str()),
        (400, Some("invalid_grant")),
        "{}",
        r.text()
    );
}

#[test]
fn auth_server_refresh_tokens_expire_and_are_bounded() {
    // Issue 30 §18. Two servers: one that keeps one refresh token at most, one whose
    // refresh tokens are past their time as soon as they are issued (a TTL of 0, which
    // only the library takes: the flag's smallest useful value is a wait).
    for (config, expiring) in [
        (
            AuthConfig {
                max_refresh: 1,
                ..AuthConfig::default()
            },
            false,
        ),
        (
            AuthConfig {
                refresh_ttl: Duration::ZERO,
                ..AuthConfig::default()
            },
            true,
        ),
    ] {
        let auth = auth_server(config);
        let (id, secret) = register(&auth.addr);
        let verifier = "a-verifier-of-at-least-43-characters-xxxxxxxxxxxxxxxx";
        let exchange = || {
            let code = code_of(&authorize_for(&auth, &id, verifier));
            token(
                &auth.addr,
                &format!(
                    "grant_type=authorization_code&code={}&redirect_uri={}&code_verifier={verifier}&client_id={}&client_secret={}",
                    enc(&code),
                    enc("http://127.0.0.1:9/cb"),
                    enc(&id),
                    enc(&secret)
                ),
            )
        };
        let r = exchange();
        assert_eq!(r.status, 200, "{}", r.text());
        let rt = json(&r)["refresh_token"].as_str().unwrap().to_owned();
        if !expiring {
            let r = exchange();
            assert_eq!(r.status, 503, "{}", r.text());
            assert_eq!(
                r.text(),
                "{\"error\":\"temporarily_unavailable\",\"error_description\":\"1 refresh tokens are alive, the most this server keeps (auth-server --max-refresh-tokens); retry once some expire\"}"
            );
            continue;
        }
        let r = token(
            &auth.addr,
            &format!(
                "grant_type=refresh_token&refresh_token={}&client_id={}&client_secret={}",
                enc(&rt),
                enc(&id),
                enc(&secret)
            ),
        );
        assert_eq!(r.status, 400, "{}", r.text());
        assert_eq!(
            r.text(),
            "{\"error\":\"invalid_grant\",\"error_description\":\"the refresh token has expired (auth-server --refresh-ttl)\"}"
        );
    }
}

#[test]
fn secrets_of_serve_and_auth_server_can_come_from_files() {
    // Issue 30 §12: --introspection-client-secret-file and auth-server --clients-file.
    let dir = scratch("protected", "secret-files");
    let secret = dir.join("introspection");
    std::fs::write(&secret, "rs-secret\r\n").unwrap();
    let issuer = canned(|me, head| {
        if head.starts_with("POST /introspect") {
            (200, r#"{"active":false}"#.to_owned())
        } else {
            (
                200,
                format!(r#"{{"issuer":"{me}","introspection_endpoint":"{me}/introspect"}}"#),
            )
        }
    });
    // The flag that reads the file is under test: a process.
    let server = protected_process(
        &issuer.issuer,
        &[
            "--introspection-client-id",
            "rs",
            "--introspection-client-secret-file",
            secret.to_str().unwrap(),
        ],
    );
    assert_eq!(post_mcp(&server.addr, Some("opaque")).status, 401);
    let seen = issuer.seen.lock().unwrap().clone();
    let introspection = seen
        .iter()
        .find(|h| h.starts_with("POST /introspect"))
        .expect("an introspection");
    // base64("rs:rs-secret"): the file's secret, its CRLF dropped.
    let authorization: Vec<&str> = introspection
        .lines()
        .filter(|l| l.to_ascii_lowercase().starts_with("authorization:"))
        .collect();
    assert_eq!(
        authorization,
        ["authorization: Basic cnM6cnMtc2VjcmV0"],
        "{introspection}"
    );

    let clients = dir.join("clients");
    std::fs::write(&clients, "# who may ask\nalice:sa\n\nbob\n").unwrap();
    // The flag is under test: a process.
    let mut command = Command::new(BIN);
    command
        .args(["auth-server", "--port", "0", "--clients-file"])
        .arg(&clients);
    let auth = HttpServer::spawn(command);
    let r = token(
        &auth.addr,
        "grant_type=client_credentials&client_id=alice&client_secret=sa&resource=http%3A%2F%2Fr%2Fmcp",
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let missing = dir.join("nothing-here");
    let out = mcp_raw(&[
        "auth-server",
        "--port",
        "0",
        "--clients-file",
        missing.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!(
            "mcp-raw: --clients-file {}: cannot read it: No such file or directory (os error 2)\n",
            dir.join("nothing-here").display()
        )
    );
}
