//! `mcp-raw conformance-client URL`: the client the official conformance suite drives.
//! The suite names the scenario and revision in the environment
//! (`MCP_CONFORMANCE_SCENARIO`, `MCP_CONFORMANCE_PROTOCOL_VERSION`, and for some
//! scenarios `MCP_CONFORMANCE_CONTEXT`); each scenario is a few ordinary client
//! operations.

use anyhow::{Context, bail};
use mcp_raw::client::answers::Answers;
use mcp_raw::client::auth::AuthConfig;
use mcp_raw::client::http_link::HttpLink;
use mcp_raw::client::mcp_client::{EraCache, Link, McpClient, Options};
use mcp_raw::client::wire_print::Printer;
use mcp_raw::protocol::Eras;
use serde_json::{Map, Value, json};

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
            auth: auth_config(&context),
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
        "http-invalid-tool-headers" => {
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

/// What the auth scenarios hand the client: pre-registered credentials
/// (`auth/pre-registration`) in the context, and a client ID metadata document URL.
fn auth_config(context: &Value) -> AuthConfig {
    AuthConfig {
        client_id: context["client_id"].as_str().map(str::to_owned),
        client_secret: context["client_secret"].as_str().map(str::to_owned),
        client_metadata_url: Some(SUITE_CLIENT_METADATA_URL.to_owned()),
        ..AuthConfig::default()
    }
}
