//! The client's OAuth flags, checked together into the configuration its links
//! authorize with.

use super::usage;
use crate::cli::args::ClientArgs;
use mcp_raw_net::client::auth::assertion::ClientKey;
use mcp_raw_net::client::auth::extension::{Enterprise, Given};
use mcp_raw_net::client::auth::{AuthConfig, Grant};

/// The OAuth flags, checked together: each grant says what it needs (a usage error
/// names the missing flag), a client key is read and parsed now, not at the first 401.
pub fn auth_config(args: &ClientArgs) -> anyhow::Result<AuthConfig> {
    let grant: Grant = args.grant.into();
    let client_key = match &args.client_key {
        Some(path) => {
            let pem = std::fs::read(path)
                .map_err(|e| usage(format!("--client-key {}: {e}", path.display())))?;
            Some(
                ClientKey::from_pem(&pem, Some(&args.client_key_alg))
                    .map_err(|e| usage(format!("--client-key {}: {e:#}", path.display())))?,
            )
        }
        None => None,
    };
    let client_secret = crate::cli::secret(
        args.client_secret.as_ref(),
        "--client-secret-file",
        args.client_secret_file.as_deref(),
    )
    .map_err(|e| usage(format!("{e:#}")))?;
    let idp_client_secret = crate::cli::secret(
        args.idp_client_secret.as_ref(),
        "--idp-client-secret-file",
        args.idp_client_secret_file.as_deref(),
    )
    .map_err(|e| usage(format!("{e:#}")))?;
    let need = |missing: bool, text: &str| if missing { Err(usage(text)) } else { Ok(()) };
    match grant {
        Grant::ClientCredentials => need(
            args.client_id.is_none() || (client_secret.is_none() && client_key.is_none()),
            "--grant client-credentials needs --client-id with --client-secret or --client-key",
        )?,
        Grant::JwtBearer => need(
            args.assertion.is_none(),
            "--grant jwt-bearer needs --assertion FILE (the JWT to present)",
        )?,
        Grant::IdJag => need(
            args.client_id.is_none()
                || args.id_token.is_none()
                || args.idp_token_endpoint.is_none(),
            "--grant id-jag needs --client-id, --id-token FILE and --idp-token-endpoint URL",
        )?,
        Grant::AuthorizationCode => {}
    }
    let enterprise = match (&args.idp_token_endpoint, &args.id_token) {
        (Some(endpoint), Some(id_token)) => Some(Enterprise {
            token_endpoint: endpoint.clone(),
            client_id: args.idp_client_id.clone(),
            client_secret: idp_client_secret,
            id_token: Given::File(id_token.clone()),
        }),
        _ => None,
    };
    Ok(AuthConfig {
        grant,
        client_id: args.client_id.clone(),
        client_secret,
        client_key,
        client_metadata_url: args.client_metadata_url.clone(),
        assertion: args.assertion.clone().map(Given::File),
        enterprise,
        dpop: args.dpop.into(),
        scope: args.scope.clone(),
        wait: args.auth_timeout,
        assertion_lifetime: args.assertion_lifetime,
        max_rounds: args.max_auth_rounds,
    })
}
