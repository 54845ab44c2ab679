//! `mcp-raw demo-http --auth`: authorization on the wire, hop by hop. It spawns
//! `mcp-raw auth-server` (the loopback authorization server) and `mcp-raw serve
//! --http --auth-server …` (the MCP server as a protected resource), then walks the
//! MCP 2025-11-25 `basic/authorization` flow by hand, one captioned exchange at a
//! time, reading each next URL from the answer before: the 401 and its challenge,
//! the two metadata documents, registration, the authorization request and its
//! redirect, the token exchange, the MCP session with the token, a refresh, and the
//! refusals (a token without the scope, a forged one). Every exchange is checked;
//! a wrong answer ends the demo with an error.

use super::listening::listening_address;
use super::script;
use anyhow::{Context, bail};
use hyper::Method;
use mcp_raw_net::client::auth::challenge::Challenge;
use mcp_raw_net::client::auth::credential::Credential;
use mcp_raw_net::client::http_link::{HttpLink, HttpReply};
use mcp_raw_net::client::wire_print::Printer;
use mcp_raw_wire::form;
use mcp_raw_wire::http::{SESSION_ID, mirror};
use serde_json::{Value, json};
use std::time::Duration;
use tokio::process::{Child, Command};

const START_TIMEOUT: Duration = Duration::from_secs(10);
const REDIRECT: &str = "http://127.0.0.1:8976/callback";

/// Spawns `mcp-raw ARGS…`, waits for its "listening on" line; returns it and its
/// address.
async fn spawn(args: &[&str], printer: &Printer) -> anyhow::Result<(Child, String)> {
    let exe = std::env::current_exe().context("cannot find the mcp-raw binary")?;
    let mut child = Command::new(exe)
        .args(args)
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .with_context(|| format!("cannot spawn `mcp-raw {}`", args.join(" ")))?;
    let addr = tokio::time::timeout(
        START_TIMEOUT,
        listening_address(&mut child, printer.clone()),
    )
    .await
    .context("it did not start listening in time")??;
    Ok((child, addr))
}

pub async fn run(port: u16, printer: Printer) -> anyhow::Result<()> {
    let (_auth, as_addr) = spawn(
        &[
            "auth-server",
            "--port",
            "0",
            "--scope",
            "mcp:tools",
            "--scope",
            "mcp:read",
        ],
        &printer,
    )
    .await?;
    let issuer = format!("http://{as_addr}");
    let port = port.to_string();
    let (_server, addr) = spawn(
        &[
            "serve",
            "--http",
            "--port",
            &port,
            "--auth-server",
            &issuer,
            "--required-scope",
            "mcp:tools",
        ],
        &printer,
    )
    .await?;
    let url = format!("http://{addr}{}", mcp_raw_wire::http::ENDPOINT);
    printer.caption(&format!(
        "Spawned `mcp-raw auth-server` at {issuer} (an authorization server that approves every request, for demos) and `mcp-raw serve --http --auth-server {issuer} --required-scope mcp:tools` at {url}: an MCP server that wants a token from it."
    ));
    let mut mcp = HttpLink::new(&url, &printer)?;
    let init = serde_json::to_vec(&script::initialize().to_message(1))?;

    printer.caption("1. The client knows nothing yet and sends initialize as usual. The server answers 401; its WWW-Authenticate header says where to learn more (resource_metadata) and what to ask for (scope).");
    let reply = mcp
        .exchange(Method::POST, &mirror::post_headers(), init.clone())
        .await?;
    status(&reply, 401)?;
    let challenge = header(&reply, "www-authenticate")?;
    let metadata_url = Challenge::bearer([challenge.as_str()])
        .and_then(|c| c.param("resource_metadata").map(str::to_owned))
        .context("the challenge names no resource_metadata")?;

    printer.caption("2. The protected resource metadata (RFC 9728), read without a token: which resource this is, and which authorization server issues its tokens.");
    let prm = get_json(&mcp, &metadata_url, 200).await?;
    let auth_server = prm["authorization_servers"][0]
        .as_str()
        .context("the metadata lists no authorization server")?
        .to_owned();

    printer.caption("3. The authorization server's metadata (RFC 8414): its endpoints, and code_challenge_methods_supported, which must list S256 or an MCP client refuses to go on.");
    let meta = get_json(
        &mcp,
        &format!("{auth_server}/.well-known/oauth-authorization-server"),
        200,
    )
    .await?;
    let endpoint = |name: &str| {
        meta[name]
            .as_str()
            .map(str::to_owned)
            .with_context(|| format!("the metadata has no {name}"))
    };

    printer.caption("4. Dynamic client registration (RFC 7591): the client says who it is and where its redirect goes; it gets a client_id, and a client_secret since it asked for client_secret_basic.");
    let mut register = mcp.elsewhere(&endpoint("registration_endpoint")?)?;
    let reply = register
        .exchange(
            Method::POST,
            &[("content-type".into(), "application/json".into())],
            serde_json::to_vec(&json!({
                "client_name": "mcp-raw demo",
                "redirect_uris": [REDIRECT],
                "grant_types": ["authorization_code", "refresh_token", "client_credentials"],
                "token_endpoint_auth_method": "client_secret_basic",
            }))?,
        )
        .await?;
    status(&reply, 201)?;
    let client = body_json(&reply)?;
    let client_id = client["client_id"]
        .as_str()
        .context("no client_id")?
        .to_owned();
    let secret = client["client_secret"]
        .as_str()
        .context("no client_secret")?
        .to_owned();
    let basic = basic_auth(&client_id, &secret);

    printer.caption("5. The authorization request. A real client opens this URL in the browser, where a person signs in and consents; this server approves at once, so its answer is the 302 the browser would follow. PKCE: the request carries the SHA-256 of a secret verifier, and resource names the MCP server the token is for (RFC 8707).");
    let verifier = mcp_raw_net::keys::random_token()?;
    let state = mcp_raw_net::keys::random_token()?;
    let query = form::encode(&[
        ("response_type", "code"),
        ("client_id", &client_id),
        ("redirect_uri", REDIRECT),
        ("code_challenge", &mcp_raw_net::keys::s256(&verifier)),
        ("code_challenge_method", "S256"),
        ("state", &state),
        ("resource", &url),
        ("scope", "mcp:tools"),
    ]);
    let mut authorize =
        mcp.elsewhere(&format!("{}?{query}", endpoint("authorization_endpoint")?))?;
    let reply = authorize.exchange(Method::GET, &[], Vec::new()).await?;
    status(&reply, 302)?;
    let location = header(&reply, "location")?;
    let back = form::decode(location.split_once('?').map_or("", |(_, q)| q));
    let get = |k: &str| back.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone());
    if get("state").as_deref() != Some(state.as_str()) {
        bail!("the redirect's state is not ours: {location}");
    }
    if get("iss").as_deref() != Some(auth_server.as_str()) {
        bail!("the redirect's iss is not the authorization server (RFC 9207): {location}");
    }
    let code = get("code").context("the redirect has no code")?;
    printer.note("the client checks the redirect: its state is the one it sent, its iss the server it asked (RFC 9207)");

    printer.caption("6. The token request: the code, and now the verifier itself, which only this client knows. The client authenticates with HTTP Basic. The answer's access_token is a JWT whose aud is the MCP server; this view masks tokens and secrets (--show-secrets shows them).");
    let token_endpoint = endpoint("token_endpoint")?;
    let tokens = token_request(
        &mcp,
        &token_endpoint,
        &basic,
        &[
            ("grant_type", "authorization_code"),
            ("code", &code),
            ("redirect_uri", REDIRECT),
            ("code_verifier", &verifier),
            ("resource", &url),
        ],
        200,
    )
    .await?;
    let access = tokens["access_token"]
        .as_str()
        .context("no access_token")?
        .to_owned();
    let refresh = tokens["refresh_token"]
        .as_str()
        .context("no refresh_token")?
        .to_owned();

    printer.caption("7. initialize again, with Authorization: Bearer. The server checks the token against the authorization server's key set (with `serve --trace` you would see it fetch /.well-known/oauth-authorization-server and /jwks on lanes of its own): signature, iss, aud = this server, exp, scope. 200, and the session begins.");
    mcp.credential = Some(Credential::bearer(access.clone()));
    let reply = mcp
        .exchange(Method::POST, &mirror::post_headers(), init.clone())
        .await?;
    status(&reply, 200)?;
    let session = header(&reply, SESSION_ID)?;
    let mut in_session = mirror::post_headers();
    in_session.push((SESSION_ID.into(), session));
    in_session.push((
        mirror::PROTOCOL_VERSION.into(),
        mcp_raw_core::LATEST_VERSION.into(),
    ));
    let note = serde_json::to_vec(&script::initialized().to_message(0))?;
    status(&mcp.exchange(Method::POST, &in_session, note).await?, 202)?;
    printer.caption("Every request carries the token, not only the first.");
    let list = serde_json::to_vec(&json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}))?;
    status(&mcp.exchange(Method::POST, &in_session, list).await?, 200)?;

    printer.caption("8. Tokens expire (this one in an hour). The refresh token gets a new one without the browser; the server rotates it, so the old refresh token is now spent.");
    token_request(
        &mcp,
        &token_endpoint,
        &basic,
        &[
            ("grant_type", "refresh_token"),
            ("refresh_token", &refresh),
            ("resource", &url),
        ],
        200,
    )
    .await?;

    printer.caption("9. A token without the scope the server requires: 403 with error=\"insufficient_scope\" and the scope to ask for, so a client can step up (ask again with more). This one comes from client_credentials, the grant with no user, scoped mcp:read.");
    let narrow = token_request(
        &mcp,
        &token_endpoint,
        &basic,
        &[
            ("grant_type", "client_credentials"),
            ("scope", "mcp:read"),
            ("resource", &url),
        ],
        200,
    )
    .await?;
    let narrow = narrow["access_token"].as_str().context("no access_token")?;
    mcp.credential = Some(Credential::bearer(narrow.to_owned()));
    status(
        &mcp.exchange(Method::POST, &mirror::post_headers(), init.clone())
            .await?,
        403,
    )?;

    printer.caption("10. A token that is not what it claims (here, not a JWT at all): 401 with error=\"invalid_token\" and a description of what was wrong.");
    mcp.credential = Some(Credential::bearer("forged.token.value".into()));
    status(
        &mcp.exchange(Method::POST, &mirror::post_headers(), init)
            .await?,
        401,
    )?;

    printer.caption("That is the whole flow of MCP basic/authorization. `mcp-raw client URL` does steps 1-7 by itself (and steps up on 403); run `mcp-raw serve --http --auth-server URL` to protect your own server, `mcp-raw auth-server` for a local authorization server.");
    Ok(())
}

/// `GET url` → its JSON body, checked for `want`.
async fn get_json(link: &HttpLink, url: &str, want: u16) -> anyhow::Result<Value> {
    let mut l = link.elsewhere(url)?;
    let reply = l.exchange(Method::GET, &[], Vec::new()).await?;
    status(&reply, want)?;
    body_json(&reply)
}

/// A form POST to the token endpoint with Basic client authentication.
async fn token_request(
    link: &HttpLink,
    url: &str,
    basic: &str,
    pairs: &[(&str, &str)],
    want: u16,
) -> anyhow::Result<Value> {
    let mut l = link.elsewhere(url)?;
    let headers = [
        (
            "content-type".to_owned(),
            "application/x-www-form-urlencoded".to_owned(),
        ),
        ("authorization".to_owned(), basic.to_owned()),
    ];
    let reply = l
        .exchange(Method::POST, &headers, form::encode(pairs).into_bytes())
        .await?;
    status(&reply, want)?;
    body_json(&reply)
}

/// RFC 6749 §2.3.1: `Basic base64(urlencode(id):urlencode(secret))`.
fn basic_auth(id: &str, secret: &str) -> String {
    use base64::Engine;
    let pair = format!("{}:{}", form::escape(id), form::escape(secret));
    format!(
        "Basic {}",
        base64::engine::general_purpose::STANDARD.encode(pair)
    )
}

fn status(reply: &HttpReply, want: u16) -> anyhow::Result<()> {
    if reply.status.as_u16() != want {
        bail!(
            "expected HTTP {want}, got {}: {}",
            reply.status,
            String::from_utf8_lossy(&reply.body)
        );
    }
    Ok(())
}

fn header(reply: &HttpReply, name: &str) -> anyhow::Result<String> {
    reply
        .headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned)
        .with_context(|| format!("the answer has no {name} header"))
}

fn body_json(reply: &HttpReply) -> anyhow::Result<Value> {
    serde_json::from_slice(&reply.body).context("the body is not JSON")
}
