//! `mcp-raw conformance-client URL`: the client the official conformance suite drives.
//! The suite names the scenario and revision in the environment
//! (`MCP_CONFORMANCE_SCENARIO`, `MCP_CONFORMANCE_PROTOCOL_VERSION`, and for some
//! scenarios `MCP_CONFORMANCE_CONTEXT`); each scenario is a few ordinary client
//! operations.

use anyhow::{Context, bail};
use mcp_raw_core::Eras;
use mcp_raw_net::client::answers::Answers;
use mcp_raw_net::client::auth::assertion::ClientKey;
use mcp_raw_net::client::auth::extension::{Enterprise, Given};
use mcp_raw_net::client::auth::{AuthConfig, Grant};
use mcp_raw_net::client::http_link::HttpLink;
use mcp_raw_net::client::mcp_client::{EraCache, Link, McpClient, Options};
use mcp_raw_net::client::wire_print::Printer;
use serde_json::{Map, Value, json};

/// `mcp-raw conformance-client URL`: the view's printer, then [`run`].
pub fn main(
    args: super::args::ConformanceClientArgs,
    console: &super::console::Console,
) -> anyhow::Result<()> {
    let printer = args.view.printer("http", console)?;
    super::runtime()?.block_on(run(&args.url, printer))
}

pub async fn run(url: &str, printer: Printer) -> anyhow::Result<()> {
    let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_default();
    let revision =
        std::env::var("MCP_CONFORMANCE_PROTOCOL_VERSION").unwrap_or_else(|_| "2025-11-25".into());
    let context: Value = std::env::var("MCP_CONFORMANCE_CONTEXT")
        .ok()
        .and_then(|c| serde_json::from_str(&c).ok())
        .unwrap_or(Value::Null);
    // The revision decides the lifecycle: up to 2025-11-25 the initialize handshake,
    // from 2026-07-28 per-request _meta.
    let eras = if revision.as_str() >= "2026-07-28" {
        Eras::Modern
    } else {
        Eras::Legacy
    };
    let link = Link::Http(HttpLink::new(url, &printer)?);
    // What a user who just accepts would answer: a form accepted with its defaults,
    // a canned sampling reply.
    let answers = Answers {
        elicitation: Some(json!({ "action": "accept", "content": {} })),
        sampling: Some(json!({
            "role": "assistant",
            "content": { "type": "text", "text": "a canned reply from mcp-raw" },
            "model": "mcp-raw-canned"
        })),
        ..Answers::default()
    };
    let mut client = McpClient::connect(
        link,
        url,
        Options {
            eras,
            answers,
            auth: auth_config(&scenario, &context)?,
            ..Options::default()
        },
        &mut EraCache::default(),
    )
    .await?;
    let tools = client.list_tools().await?;
    match scenario.as_str() {
        "tools_call" => call(&mut client, "add_numbers", json!({ "a": 2, "b": 3 })).await?,
        "http-custom-headers" => {
            let calls = context["toolCalls"]
                .as_array()
                .context("MCP_CONFORMANCE_CONTEXT has no toolCalls")?;
            for c in calls {
                let name = c["name"]
                    .as_str()
                    .context("toolCalls entry without a name")?;
                call(&mut client, name, c["arguments"].clone()).await?;
            }
        }
        // Each tool, in the order listed: the MRTR rounds (SEP-2322) and the
        // elicitation defaults (SEP-1034) are in how the client answers.
        "sep-2322-client-request-state" | "elicitation-sep1034-client-defaults" => {
            for tool in &tools {
                let name = tool["name"].as_str().unwrap_or_default();
                call(&mut client, name, example_arguments(&tool["inputSchema"])).await?;
            }
        }
        // The focal tool's inputSchema goes back verbatim as the echo tool's `schema`
        // argument: the suite checks that no JSON Schema 2020-12 keyword was lost.
        "json-schema-2020-12-preservation" => {
            let focal = tools
                .iter()
                .find(|t| t["name"] == "json_schema_2020_12_tool")
                .context("tools/list has no json_schema_2020_12_tool")?;
            let schema = focal["inputSchema"].clone();
            call(&mut client, "json_schema_echo", json!({ "schema": schema })).await?;
        }
        // The suite's test_reconnection closes the call's stream after a priming
        // event with `retry:`; the response comes on the GET that resumes it with
        // Last-Event-ID (2025-11-25 `basic/transports` "Resumability and
        // Redelivery"), so calling it is what makes the client reconnect.
        "http-invalid-tool-headers" | "sse-retry" => {
            for tool in &tools {
                let name = tool["name"].as_str().unwrap_or_default();
                call(&mut client, name, example_arguments(&tool["inputSchema"])).await?;
            }
        }
        "http-standard-headers" => {
            for tool in &tools {
                let name = tool["name"].as_str().unwrap_or_default();
                call(&mut client, name, example_arguments(&tool["inputSchema"])).await?;
            }
            every(
                &mut client,
                "resources/list",
                "resources",
                "resources/read",
                "uri",
            )
            .await?;
            every(
                &mut client,
                "prompts/list",
                "prompts",
                "prompts/get",
                "name",
            )
            .await?;
        }
        // The protected servers of the auth scenarios: a call after the listing, where
        // a server may ask for more scope (403 insufficient_scope, the step-up).
        auth if auth.starts_with("auth/") => {
            if let Some(name) = tools.first().and_then(|t| t["name"].as_str()) {
                call(&mut client, name, json!({})).await?;
            }
        }
        _ => {}
    }
    client.close().await
}

async fn call(client: &mut McpClient, name: &str, arguments: Value) -> anyhow::Result<()> {
    if let Err(e) = client.call_tool(name, arguments).await? {
        bail!("tools/call {name}: {e}");
    }
    Ok(())
}

/// Lists with `list_method`, then fetches each listed item by its `key`.
async fn every(
    client: &mut McpClient,
    list_method: &str,
    field: &str,
    get_method: &str,
    key: &str,
) -> anyhow::Result<()> {
    let listed = client
        .request(list_method, json!({}))
        .await?
        .map_err(|e| anyhow::anyhow!("{list_method}: {e}"))?;
    for item in listed[field].as_array().cloned().unwrap_or_default() {
        let id = item[key].clone();
        if let Err(e) = client.request(get_method, json!({ key: id })).await? {
            bail!("{get_method} {id}: {e}");
        }
    }
    Ok(())
}

/// Plain example arguments for a tool: a value for every property of a primitive
/// type, so a call is well-formed without knowing the tool.
fn example_arguments(schema: &Value) -> Value {
    let mut args = Map::new();
    if let Some(props) = schema["properties"].as_object() {
        for (name, p) in props {
            let v = match p["type"].as_str() {
                Some("string") => json!("example"),
                Some("integer" | "number") => json!(1),
                Some("boolean") => json!(true),
                _ => continue,
            };
            args.insert(name.clone(), v);
        }
    }
    Value::Object(args)
}

/// The client ID metadata document URL the suite's authorization servers expect
/// (`auth/basic-cimd`): the suite does not fetch it.
const SUITE_CLIENT_METADATA_URL: &str = "https://conformance-test.local/client-metadata.json";

/// What the auth scenarios hand the client in the context, as the flags of `mcp-raw
/// client` would give it: pre-registered credentials (`auth/pre-registration`), a
/// client ID metadata document URL, and for the extension scenarios their grant
/// (`--grant`) and what it needs: a private key (`--client-key`), a workload JWT
/// (`--assertion`), an ID token and the IdP (`--id-token`, `--idp-*`). DPoP needs no
/// setting: the resource challenges with the `DPoP` scheme (`--dpop auto`).
fn auth_config(scenario: &str, context: &Value) -> anyhow::Result<AuthConfig> {
    let text = |key: &str| context[key].as_str().map(str::to_owned);
    let grant = match scenario {
        "auth/client-credentials-basic" | "auth/client-credentials-jwt" => Grant::ClientCredentials,
        "auth/wif-jwt-bearer" => Grant::JwtBearer,
        "auth/enterprise-managed-authorization" => Grant::IdJag,
        _ => Grant::AuthorizationCode,
    };
    let client_key = match text("private_key_pem") {
        Some(pem) => Some(ClientKey::from_pem(
            pem.as_bytes(),
            context["signing_algorithm"].as_str(),
        )?),
        None => None,
    };
    let enterprise = match (text("idp_token_endpoint"), text("idp_id_token")) {
        (Some(token_endpoint), Some(id_token)) => Some(Enterprise {
            token_endpoint,
            client_id: text("idp_client_id"),
            client_secret: text("idp_client_secret"),
            id_token: Given::Value(id_token),
        }),
        _ => None,
    };
    Ok(AuthConfig {
        grant,
        client_id: text("client_id"),
        client_secret: text("client_secret"),
        client_key,
        client_metadata_url: Some(SUITE_CLIENT_METADATA_URL.to_owned()),
        // The scenario's valid workload token; the wrong-audience and expired ones
        // it also hands over are for clients that test their own refusals.
        assertion: text("valid_jwt").map(Given::Value),
        enterprise,
        ..AuthConfig::default()
    })
}
