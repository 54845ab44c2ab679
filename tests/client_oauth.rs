//! `mcp-raw client`'s OAuth grants through the real binary, against
//! tests/servers/oauth_refresh.py (a protected MCP server and its authorization server
//! on one port, tokens that expire after a few requests). Each test reads the client's
//! view of the wire: the token requests' form fields, in the order they crossed,
//! secrets masked unless `--show-secrets`.

mod common;
use base64::Engine;
use common::client_inproc::{lines_starting, lines_with, text_lines};
use common::golden::normalize;
use common::{BIN, unstamped};

/// The view's result line of `whoami`: the token the server saw.
fn whoami(token: &str) -> String {
    format!(
        "<<<   \"result\": {{\"content\": [{{\"type\": \"text\", \"text\": \"token {token}\"}}]}}\n"
    )
}

/// RFC 6749 §2.3.1: `Basic` base64("test-client:test-secret").
const BASIC: &str = ">>> authorization: Basic dGVzdC1jbGllbnQ6dGVzdC1zZWNyZXQ=\n";
use serde_json::Value;
use std::process::{Child, Command, Stdio};

/// The Python server, killed on drop.
struct Server {
    child: Child,
    url: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn server(args: &[&str]) -> Server {
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/servers/oauth_refresh.py"
    );
    let mut child = Command::new("python3")
        .arg(script)
        .args(args)
        .stdout(Stdio::piped())
        .spawn()
        .expect("python3 tests/servers/oauth_refresh.py");
    let url = common::listening_url(child.stdout.take().unwrap());
    Server { child, url }
}

/// `mcp-raw client --era legacy --color never URL --call whoami ARGS…`: (exit code,
/// the view without its time stamps, stderr).
fn client(url: &str, args: &[&str]) -> (i32, String, String) {
    // The CLI's OAuth flags (--grant, --client-key, --assertion files…) are read by the program: a process.
    let out = Command::new(BIN)
        .args(["client", "--era", "legacy", "--color", "never", url])
        .args(["--call", "whoami"])
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        unstamped(&String::from_utf8_lossy(&out.stdout)),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The form bodies POSTed to `path`, in order, as shown.
fn forms<'a>(view: &'a str, path: &str) -> Vec<&'a str> {
    let head = format!(">>> POST {path} HTTP/1.1");
    view.match_indices(&head)
        .filter_map(|(at, _)| {
            view[at..]
                .lines()
                .skip_while(|l| *l != ">>>")
                .nth(1)
                .and_then(|l| l.strip_prefix(">>> "))
        })
        .collect()
}

/// One field of a form body as shown (still percent-encoded).
fn field<'a>(form: &'a str, name: &str) -> Option<&'a str> {
    form.split('&')
        .find_map(|p| p.strip_prefix(name)?.strip_prefix('='))
}

/// The claims of a JWT (its middle part), unverified.
fn claims(jwt: &str) -> Value {
    let part = jwt.split('.').nth(1).expect("a JWT");
    serde_json::from_slice(
        &base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(part)
            .unwrap(),
    )
    .unwrap()
}

const CLIENT: [&str; 4] = [
    "--client-id",
    "test-client",
    "--client-secret",
    "test-secret",
];

#[test]
fn an_expired_token_is_refreshed_before_the_flow_runs_again() {
    let s = server(&["--token-uses", "2"]);
    let (code, view, err) = client(&s.url, &CLIENT);
    assert_eq!(code, 0, "{view}{err}");
    // initialize and notifications/initialized spend the first token; tools/list is
    // refused (401 invalid_token) and the refresh grant answers it.
    let tokens = forms(&view, "/token");
    assert_eq!(tokens.len(), 2, "{view}");
    assert_eq!(field(tokens[0], "grant_type"), Some("authorization_code"));
    let refresh = tokens[1];
    assert_eq!(field(refresh, "grant_type"), Some("refresh_token"));
    // The refresh token is masked, same length as rt-1; the resource is there again.
    assert_eq!(field(refresh, "refresh_token"), Some("****"));
    assert_eq!(
        field(refresh, "resource").map(|r| r.ends_with("%2Fmcp")),
        Some(true)
    );
    let refused = view.find("error=\"invalid_token\"").expect("the 401");
    assert!(refused < view.find("grant_type=refresh_token").unwrap());
    // No second trip to the authorization endpoint: the refresh was enough.
    assert_eq!(view.matches(">>> GET /authorize?").count(), 1, "{view}");
    assert_eq!(text_lines(&view), whoami("at-2"));
    assert!(
        !view.contains("rt-1") && !view.contains("\"at-1\""),
        "{view}"
    );
}

#[test]
fn a_refused_refresh_runs_the_whole_flow_again() {
    let s = server(&["--token-uses", "2", "--refuse-refresh"]);
    let (code, view, err) = client(&s.url, &CLIENT);
    assert_eq!(code, 0, "{view}{err}");
    let grants: Vec<_> = forms(&view, "/token")
        .into_iter()
        .filter_map(|f| field(f, "grant_type"))
        .collect();
    assert_eq!(
        grants,
        ["authorization_code", "refresh_token", "authorization_code"]
    );
    // The 401s (the first request, the spent token), then the refused refresh.
    assert_eq!(
        lines_with(&view, "\"error\": "),
        concat!(
            "<<< {\"error\": \"unauthorized\"}\n",
            "<<< {\"error\": \"invalid_token\"}\n",
            "<<<   \"error\": \"invalid_grant\",\n",
        )
    );
    assert_eq!(view.matches(">>> GET /authorize?").count(), 2, "{view}");
    assert_eq!(
        err,
        "[mcp-raw client] the refresh grant did not work (the refresh token request was refused: \
         HTTP 400 Bad Request invalid_grant refresh token not known); authorizing anew\n"
    );
    assert_eq!(text_lines(&view), whoami("at-2"));
}

#[test]
fn a_refreshed_token_refused_again_runs_the_whole_flow_not_another_refresh() {
    let s = server(&["--token-uses", "2", "--refreshed-tokens-refused"]);
    let (code, view, err) = client(&s.url, &CLIENT);
    assert_eq!(code, 0, "{view}{err}");
    let grants: Vec<_> = forms(&view, "/token")
        .into_iter()
        .filter_map(|f| field(f, "grant_type"))
        .collect();
    assert_eq!(
        grants,
        ["authorization_code", "refresh_token", "authorization_code"],
        "{view}"
    );
    assert_eq!(text_lines(&view), whoami("at-3"));
}

#[test]
fn client_credentials_with_a_secret_use_basic_and_no_browser() {
    let s = server(&["--token-uses", "10"]);
    let mut args = CLIENT.to_vec();
    args.extend(["--grant", "client-credentials", "--show-secrets"]);
    let (code, view, err) = client(&s.url, &args);
    assert_eq!(code, 0, "{view}{err}");
    let tokens = forms(&view, "/token");
    assert_eq!(tokens.len(), 1, "{view}");
    assert_eq!(field(tokens[0], "grant_type"), Some("client_credentials"));
    assert!(field(tokens[0], "client_secret").is_none());
    // RFC 6749 §2.3.1: base64("test-client:test-secret").
    // The token request's client authentication, then the token on each MCP request.
    assert_eq!(
        lines_starting(&view, ">>> authorization: "),
        BASIC.to_owned() + &">>> authorization: Bearer at-1\n".repeat(4)
    );
    assert!(!view.contains(">>> GET /authorize"), "{view}");
}

#[test]
fn a_client_key_signs_a_client_assertion_for_the_issuer() {
    let s = server(&["--token-uses", "10"]);
    let key = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/keys/client-es256.pem");
    let (code, view, err) = client(
        &s.url,
        &[
            "--grant",
            "client-credentials",
            "--client-id",
            "test-client",
            "--client-key",
            key,
            "--show-secrets",
        ],
    );
    assert_eq!(code, 0, "{view}{err}");
    let form = forms(&view, "/token")[0];
    assert_eq!(
        field(form, "client_assertion_type"),
        Some("urn%3Aietf%3Aparams%3Aoauth%3Aclient-assertion-type%3Ajwt-bearer")
    );
    let jwt = field(form, "client_assertion").expect("a client assertion");
    let pem = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/keys/client-es256.pub.pem"
    ))
    .unwrap();
    let issuer = s.url.trim_end_matches("/mcp");
    let mut v = jsonwebtoken::Validation::new(jsonwebtoken::Algorithm::ES256);
    v.set_audience(&[issuer]);
    let verified = jsonwebtoken::decode::<Value>(
        jwt,
        &jsonwebtoken::DecodingKey::from_ec_pem(&pem).unwrap(),
        &v,
    )
    .expect("signed by the client key, for the issuer");
    assert_eq!(verified.claims["iss"], "test-client");
    assert_eq!(verified.claims["sub"], "test-client");
    assert!(!view.contains(">>> authorization: Basic"), "{view}");
    // Masked without --show-secrets.
    let (_, masked, _) = client(
        &s.url,
        &[
            "--grant",
            "client-credentials",
            "--client-id",
            "test-client",
            "--client-key",
            key,
        ],
    );
    let shown = field(forms(&masked, "/token")[0], "client_assertion").unwrap();
    assert!(shown.chars().all(|c| c == '*'), "{shown}");
}

#[test]
fn a_jwt_bearer_assertion_is_read_from_its_file() {
    let s = server(&["--token-uses", "10"]);
    let dir = common::scratch("oauth", "jwt-bearer");
    let file = dir.join("workload.jwt");
    std::fs::write(&file, "eyJhbGciOiJub25lIn0.eyJzdWIiOiJ3b3JrbG9hZCJ9.\n").unwrap();
    let (code, view, err) = client(
        &s.url,
        &[
            "--grant",
            "jwt-bearer",
            "--client-id",
            "test-client",
            "--assertion",
            file.to_str().unwrap(),
            "--show-secrets",
        ],
    );
    assert_eq!(code, 0, "{view}{err}");
    let form = forms(&view, "/token")[0];
    assert_eq!(
        field(form, "grant_type"),
        Some("urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer")
    );
    assert_eq!(
        field(form, "assertion"),
        Some("eyJhbGciOiJub25lIn0.eyJzdWIiOiJ3b3JrbG9hZCJ9.")
    );
    assert_eq!(field(form, "client_id"), Some("test-client"));
}

#[test]
fn id_jag_exchanges_the_id_token_at_the_idp_then_presents_the_grant() {
    let s = server(&["--token-uses", "10"]);
    let dir = common::scratch("oauth", "id-jag");
    let file = dir.join("id.jwt");
    std::fs::write(&file, "eyJhbGciOiJub25lIn0.eyJzdWIiOiJ1c2VyIn0.").unwrap();
    let idp = s.url.replace("/mcp", "/idp/token");
    let mut args = CLIENT.to_vec();
    args.extend([
        "--grant",
        "id-jag",
        "--id-token",
        file.to_str().unwrap(),
        "--idp-token-endpoint",
        &idp,
        "--idp-client-id",
        "idp-client",
    ]);
    let (code, view, err) = client(&s.url, &args);
    assert_eq!(code, 0, "{view}{err}");
    let exchange = forms(&view, "/idp/token");
    assert_eq!(exchange.len(), 1, "{view}");
    let x = exchange[0];
    assert_eq!(
        field(x, "grant_type"),
        Some("urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Atoken-exchange")
    );
    assert_eq!(
        field(x, "requested_token_type"),
        Some("urn%3Aietf%3Aparams%3Aoauth%3Atoken-type%3Aid-jag")
    );
    assert_eq!(field(x, "client_id"), Some("idp-client"));
    assert!(field(x, "subject_token").unwrap().starts_with("****"));
    let grant = forms(&view, "/token")[0];
    assert_eq!(
        field(grant, "grant_type"),
        Some("urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer")
    );
    assert!(view.find("POST /idp/token").unwrap() < view.find("POST /token").unwrap());
}

#[test]
fn dpop_proofs_carry_the_nonces_the_servers_ask_for() {
    let s = server(&["--token-uses", "10", "--dpop-nonce"]);
    let (code, view, err) = client(&s.url, &[&CLIENT[..], &["--show-secrets"]].concat());
    assert_eq!(code, 0, "{view}{err}");
    // The token endpoint's 400 use_dpop_nonce, then the same request with the nonce.
    assert_eq!(forms(&view, "/token").len(), 2, "{view}");
    assert_eq!(
        lines_with(&view, "\"error\": "),
        concat!(
            "<<< {\"error\": \"unauthorized\"}\n",
            "<<< {\"error\": \"use_dpop_nonce\"}\n",
            "<<< {\"error\": \"use_dpop_nonce\"}\n",
        )
    );
    let proofs: Vec<Value> = view
        .lines()
        .filter_map(|l| l.strip_prefix(">>> dpop: "))
        .map(claims)
        .collect();
    assert!(proofs.len() >= 4, "{view}");
    assert!(
        proofs[0].get("nonce").is_none() && proofs[0]["htu"].as_str().unwrap().ends_with("/token")
    );
    assert_eq!(proofs[1]["nonce"], "server-nonce-1");
    // At the MCP server: the DPoP scheme, `ath`, and again a retry with its nonce.
    assert_eq!(
        lines_starting(&view, ">>> authorization: "),
        BASIC.repeat(2) + &">>> authorization: DPoP at-1\n".repeat(5)
    );
    let at_mcp: Vec<&Value> = proofs.iter().filter(|p| p["htu"] == s.url).collect();
    assert!(at_mcp.iter().all(|p| p["ath"].is_string()));
    let metadata = format!(
        "resource_metadata=\"{}/.well-known/oauth-protected-resource/mcp\"",
        s.url.trim_end_matches("/mcp")
    );
    assert_eq!(
        lines_with(&view, "www-authenticate: "),
        format!(
            "<<< www-authenticate: DPoP {metadata}\n\
             <<< www-authenticate: DPoP {metadata}, error=\"use_dpop_nonce\"\n"
        )
    );
    let jtis: std::collections::HashSet<_> = proofs.iter().map(|p| p["jti"].clone()).collect();
    assert_eq!(jtis.len(), proofs.len(), "a fresh proof each time");
    assert_eq!(text_lines(&view), whoami("at-1"));
}

#[test]
fn each_grant_names_the_flag_it_lacks() {
    for (args, needle) in [
        (
            vec!["--grant", "client-credentials", "--client-id", "c"],
            "--grant client-credentials needs --client-id with --client-secret or --client-key",
        ),
        (
            vec!["--grant", "jwt-bearer"],
            "--grant jwt-bearer needs --assertion FILE (the JWT to present)",
        ),
        (
            vec!["--grant", "id-jag", "--client-id", "c"],
            "--grant id-jag needs --client-id, --id-token FILE and --idp-token-endpoint URL",
        ),
        (
            vec!["--client-id", "c", "--client-key", "/nonexistent.pem"],
            "--client-key /nonexistent.pem: No such file or directory (os error 2)",
        ),
        (
            vec![
                "--client-id",
                "c",
                "--client-key",
                concat!(env!("CARGO_MANIFEST_DIR"), "/tests/keys/client-es256.pem"),
                "--client-key-alg",
                "RS256",
            ],
            concat!(
                "--client-key ",
                env!("CARGO_MANIFEST_DIR"),
                "/tests/keys/client-es256.pem: the client key is not a PEM private key for RS256: InvalidKeyFormat"
            ),
        ),
    ] {
        let (code, _, err) = client("http://127.0.0.1:9/mcp", &args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert_eq!(err, format!("mcp-raw: {needle}\n"), "{args:?}");
    }
}

#[test]
fn a_dpop_refresh_carries_the_authorization_servers_nonce_at_once() {
    let s = server(&["--token-uses", "2", "--dpop-nonce"]);
    let (code, view, err) = client(&s.url, &[&CLIENT[..], &["--show-secrets"]].concat());
    assert_eq!(code, 0, "{view}{err}");
    let grants: Vec<_> = forms(&view, "/token")
        .into_iter()
        .filter_map(|f| field(f, "grant_type"))
        .collect();
    // The nonce learnt on the code grant's refusal goes with the refresh: one
    // use_dpop_nonce at the token endpoint, not two.
    assert_eq!(
        grants,
        ["authorization_code", "authorization_code", "refresh_token"],
        "{view}"
    );
    let at_token: Vec<Value> = view
        .lines()
        .filter_map(|l| l.strip_prefix(">>> dpop: "))
        .map(claims)
        .filter(|p| p["htu"].as_str().is_some_and(|u| u.ends_with("/token")))
        .collect();
    assert_eq!(at_token.len(), 3, "{view}");
    assert_eq!(at_token[2]["nonce"], "server-nonce-1");
    assert_eq!(
        lines_starting(&view, ">>> authorization: "),
        BASIC.repeat(2)
            + &">>> authorization: DPoP at-1\n".repeat(4)
            + BASIC
            + &">>> authorization: DPoP at-2\n".repeat(2)
    );
}

#[test]
fn a_token_in_hand_replaces_a_header_authorization() {
    let s = server(&["--token-uses", "10"]);
    let mut args = CLIENT.to_vec();
    args.extend(["--header", "Authorization: Bearer stale", "--show-secrets"]);
    let (code, view, err) = client(&s.url, &args);
    assert_eq!(code, 0, "{view}{err}");
    // The refused first request carried --header's; every later one only the token's.
    assert_eq!(
        view.matches(">>> authorization: Bearer stale\n").count(),
        1,
        "{view}"
    );
    let after = &view[view.find("POST /token").unwrap()..];
    for head in after.split(">>> POST /mcp HTTP/1.1").skip(1) {
        let head = &head[..head.find("\n>>>\n").unwrap()];
        assert_eq!(head.matches("authorization:").count(), 1, "{head}");
    }
    assert_eq!(text_lines(&view), whoami("at-1"));
}

#[test]
fn a_token_endpoint_written_upper_case_http_elsewhere_gets_no_secret() {
    // Issue 30 §6: `HTTP://` is `http://` (RFC 3986 §3.1, the scheme is
    // case-insensitive); a host that is not loopback gets nothing, whatever its case.
    for endpoint in ["HTTP://0.0.0.0:1/token", "Http://Example.INVALID/token"] {
        let s = server(&["--token-endpoint", endpoint]);
        let mut args = CLIENT.to_vec();
        args.extend(["--grant", "client-credentials"]);
        let (code, view, err) = client(&s.url, &args);
        assert_ne!(code, 0, "{view}{err}");
        assert_eq!(
            err,
            format!(
                "mcp-raw: authorizing after HTTP 401 Unauthorized: token_endpoint is \"{endpoint}\": \
                 authorization endpoints MUST be served over HTTPS (MCP basic/authorization \"Communication Security\"); \
                 plain http:// is accepted on a loopback address only\n"
            )
        );
        assert!(!view.contains("POST /token"), "{view}");
    }
}

#[test]
fn a_resource_that_is_not_a_url_or_not_this_server_is_refused() {
    // Issue 30 §15: the metadata's resource is compared parsed (RFC 9728 §3.3).
    for (resource, why) in [
        (
            "http://",
            "the protected resource metadata's resource is not a URL: \"http://\" is not a URL (empty string) (RFC 9728 §2)",
        ),
        (
            "http://127.0.0.1:1/mcp",
            "the protected resource metadata names resource \"http://127.0.0.1:<port>/mcp\", not this server \
             (http://127.0.0.1:<port>/mcp): refusing to authorize for it (RFC 9728 §3.3)",
        ),
    ] {
        let s = server(&["--resource", resource]);
        let (code, view, err) = client(&s.url, &CLIENT);
        assert_ne!(code, 0, "{view}{err}");
        assert_eq!(
            normalize(&err),
            format!("mcp-raw: authorizing after HTTP 401 Unauthorized: {why}\n"),
            "{resource}"
        );
        assert!(!view.contains("POST /token"), "{view}");
    }
}

#[test]
fn a_client_secret_can_come_from_a_file_and_never_from_both() {
    // Issue 30 §12: --client-secret-file, one trailing newline dropped.
    let dir = common::scratch("client_oauth", "secret-file");
    let file = dir.join("secret");
    std::fs::write(&file, "test-secret\n").unwrap();
    let s = server(&["--token-uses", "10"]);
    let path = file.to_str().unwrap();
    let args = [
        "--client-id",
        "test-client",
        "--client-secret-file",
        path,
        "--grant",
        "client-credentials",
        "--show-secrets",
    ];
    let (code, view, err) = client(&s.url, &args);
    assert_eq!(code, 0, "{view}{err}");
    // RFC 6749 §2.3.1: base64("test-client:test-secret"), the same as inline.
    // The same as inline: base64("test-client:test-secret").
    assert_eq!(
        lines_starting(&view, ">>> authorization: "),
        BASIC.to_owned() + &">>> authorization: Bearer at-1\n".repeat(4)
    );
    // Both forms at once, an empty file, a missing one: usage errors (exit 2).
    let both = [
        "--client-id",
        "test-client",
        "--client-secret",
        "x",
        "--client-secret-file",
        path,
    ];
    let (code, _, err) = client(&s.url, &both);
    assert_eq!(code, 2, "{err}");
    assert_eq!(
        err,
        "error: the argument '--client-secret <SECRET>' cannot be used with '--client-secret-file <FILE>'\n\n\
         Usage: mcp-raw client --era <ERA> --color <COLOR> --call <NAME[=JSON]> --client-id <ID> \
         --client-secret <SECRET> <TARGET> [-- <CMD>...]\n\n\
         For more information, try '--help'.\n"
    );
    let empty = dir.join("empty");
    std::fs::write(&empty, "").unwrap();
    let missing = dir.join("missing");
    for (file, says) in [
        (&empty, "the file is empty; it should hold the secret"),
        (
            &missing,
            "cannot read it: No such file or directory (os error 2)",
        ),
    ] {
        let args = [
            "--client-id",
            "test-client",
            "--client-secret-file",
            file.to_str().unwrap(),
        ];
        let (code, _, err) = client(&s.url, &args);
        assert_eq!(code, 2, "{err}");
        assert_eq!(
            err,
            format!("mcp-raw: --client-secret-file {}: {says}\n", file.display())
        );
    }
}
