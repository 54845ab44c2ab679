//! The flags every HTTP listener shares: TLS (`--tls-cert`), OAuth protection
//! (`--auth-server`) and the HTTP limits (serve's and the bridge's).

use super::{off_if_zero, secs};
use mcp_raw_net::transport::http;
use std::path::PathBuf;
use std::time::Duration;

// `--tls-cert FILE --tls-key FILE`: the listener speaks https:// (every listener that
// serves HTTP takes them).
#[derive(clap::Args, Debug, Clone, Default)]
pub struct TlsListen {
    /// Listen with TLS (https://): this PEM certificate chain, leaf first, is presented
    /// to clients; needs --tls-key. The handshake must end within --header-timeout.
    /// Default: plain http://.
    #[arg(long, value_name = "FILE", requires = "tls_key")]
    pub tls_cert: Option<PathBuf>,
    /// The private key of --tls-cert, PEM (PKCS#8, PKCS#1 or SEC1); needs --tls-cert.
    #[arg(long, value_name = "FILE", requires = "tls_cert")]
    pub tls_key: Option<PathBuf>,
    /// With --tls-cert: require a client certificate signed by a CA in this PEM FILE
    /// (mTLS); each lane's tls event then holds the client's chain. Default: none
    /// asked for.
    #[arg(long, value_name = "FILE", requires = "tls_cert")]
    pub tls_client_ca: Option<PathBuf>,
}

// `serve --http --auth-server URL`: the server as an OAuth protected resource
// (`http::auth::Settings` says what each one is for).
#[derive(clap::Args)]
pub struct ProtectArgs {
    /// With --http: protect /mcp with OAuth 2.1 bearer tokens issued by this
    /// authorization server (its issuer URL); serve the protected resource metadata
    /// at /.well-known/oauth-protected-resource/mcp naming it; answer 401 with
    /// WWW-Authenticate to a request without a valid token.
    #[arg(long, value_name = "URL", requires = "http")]
    pub auth_server: Option<String>,
    /// With --auth-server: this server's canonical URI, the audience tokens must name
    /// [default: http://ADDR/mcp, from the address bound].
    #[arg(long, value_name = "URL", requires = "auth_server")]
    pub resource: Option<String>,
    /// With --auth-server: a scope every request needs (repeatable); a token without
    /// it gets 403 insufficient_scope.
    #[arg(
        long = "required-scope",
        value_name = "SCOPE",
        requires = "auth_server"
    )]
    pub required_scopes: Vec<String>,
    /// With --auth-server: check tokens by RFC 7662 introspection at the
    /// authorization server, as this client, instead of verifying them as JWTs
    /// against its key set.
    #[arg(long, value_name = "ID", requires_all = ["auth_server", "introspection_secret"])]
    pub introspection_client_id: Option<String>,
    /// With --introspection-client-id: its secret.
    #[arg(
        long,
        value_name = "SECRET",
        requires = "introspection_client_id",
        group = "introspection_secret"
    )]
    pub introspection_client_secret: Option<String>,
    /// With --introspection-client-id: its secret, read from FILE (kept out of `ps`;
    /// one trailing newline is dropped).
    #[arg(
        long,
        value_name = "FILE",
        requires = "introspection_client_id",
        group = "introspection_secret"
    )]
    pub introspection_client_secret_file: Option<PathBuf>,
    /// With --auth-server: seconds each request to the authorization server may take
    /// (metadata, key set, introspection) [default: 10]
    #[arg(long, value_name = "SECS", value_parser = secs)]
    pub auth_fetch_timeout: Option<Duration>,
    /// With --auth-server: largest answer read from the authorization server, in bytes
    /// [default: 1048576]
    #[arg(long, value_name = "N")]
    pub auth_fetch_max_bytes: Option<usize>,
    /// With --auth-server: fewest seconds between two fetches of the key set (a token
    /// naming an unknown key refetches it, at most this often) [default: 60]
    #[arg(long, value_name = "SECS", value_parser = secs)]
    pub jwks_refresh: Option<Duration>,
    /// With --auth-server: seconds a failed request to the authorization server is
    /// remembered; meanwhile requests that need it get 503 at once, without waiting
    /// out a fetch of their own [default: 5]
    #[arg(long, value_name = "SECS", value_parser = secs)]
    pub auth_retry: Option<Duration>,
    /// With --auth-server: seconds of clock skew allowed on a token's exp and nbf [default: 30]
    #[arg(long, value_name = "SECS")]
    pub token_leeway: Option<u64>,
    /// With an https:// --auth-server: also trust the CA certificates in this PEM
    /// FILE (repeatable), besides the system's store [default: the system's only]
    #[arg(long, value_name = "FILE", requires = "auth_server")]
    pub auth_cacert: Vec<PathBuf>,
}

impl ProtectArgs {
    /// The settings, when the server is to be protected (the resource is filled in
    /// once the address is bound, unless --resource gave it). A flag not given keeps
    /// the default of [`http::auth::Settings::new`]. An unreadable secret file is
    /// an error.
    pub fn into_settings(self) -> anyhow::Result<Option<http::auth::Settings>> {
        let Some(issuer) = self.auth_server else {
            return Ok(None);
        };
        let mut settings = http::auth::Settings::new(&issuer);
        settings.resource = self.resource.unwrap_or_default();
        settings.required_scopes = self.required_scopes;
        let secret = crate::cli::secret(
            self.introspection_client_secret.as_ref(),
            "--introspection-client-secret-file",
            self.introspection_client_secret_file.as_deref(),
        )?;
        settings.introspection =
            self.introspection_client_id
                .zip(secret)
                .map(
                    |(client_id, client_secret)| http::auth::introspect::Credentials {
                        client_id,
                        client_secret,
                    },
                );
        let given = |flag: Option<Duration>, default: Duration| flag.unwrap_or(default);
        settings.fetch_timeout = given(self.auth_fetch_timeout, settings.fetch_timeout);
        settings.fetch_max_bytes = self
            .auth_fetch_max_bytes
            .unwrap_or(settings.fetch_max_bytes);
        settings.jwks_refresh = given(self.jwks_refresh, settings.jwks_refresh);
        settings.retry = given(self.auth_retry, settings.retry);
        settings.leeway = self.token_leeway.unwrap_or(settings.leeway);
        if !self.auth_cacert.is_empty() {
            // Read now, so an unreadable file stops the server at start (exit 2).
            let tls = mcp_raw_net::client::tls::Tls::new(mcp_raw_net::client::tls::TlsOptions {
                cacert: self.auth_cacert,
                ..Default::default()
            })
            .map_err(|e| {
                crate::cli::exit::Usage(format!("{e:#}").replacen("--cacert", "--auth-cacert", 1))
            })?;
            settings.tls = std::sync::Arc::new(tls);
        }
        Ok(Some(settings))
    }
}

// The connection clocks of the small listeners (`auth-server`, `replay --http`): the
// same clocks as `serve --http`'s, with the same defaults (`http::Limits`).
#[derive(clap::Args)]
pub struct ListenerClocks {
    /// Seconds a keep-alive connection may sit idle between requests; then it is
    /// closed [default: 60]
    #[arg(long, value_name = "SECS", value_parser = secs)]
    pub idle_timeout: Option<Duration>,
    /// Seconds a response write may wait on a client that reads nothing; then the
    /// connection is closed [default: 60]
    #[arg(long, value_name = "SECS", value_parser = secs)]
    pub write_timeout: Option<Duration>,
}

impl ListenerClocks {
    /// `limits` with each clock given here (0 turns it off).
    pub fn apply(&self, mut limits: http::Limits) -> http::Limits {
        if let Some(t) = self.idle_timeout {
            limits.idle_timeout = off_if_zero(t);
        }
        if let Some(t) = self.write_timeout {
            limits.write_timeout = off_if_zero(t);
        }
        limits
    }
}

// The limits of `serve --http`. Each one's default is in `http::Limits`, and its
// `--help` line says it: a flag with a clap default costs every start (stdio too)
// the parse of that default (about 4,000 instructions each, callgrind).
#[derive(clap::Args)]
pub struct HttpLimits {
    /// With --http: seconds a request head may take once begun (and a new connection
    /// before its first byte, or its TLS handshake with --tls-cert); then the
    /// connection is closed [default: 30]
    #[arg(long, value_name = "SECS", value_parser = secs, requires = "http")]
    header_timeout: Option<Duration>,
    /// With --http: largest request head (request line and headers) in bytes; larger
    /// gets 431 [default: 65536]
    #[arg(long, value_name = "N", requires = "http")]
    max_header_bytes: Option<usize>,
    /// With --http: most header fields in one request; more gets 431 [default: 100]
    #[arg(long, value_name = "N", requires = "http")]
    max_headers: Option<usize>,
    /// With --http: seconds a keep-alive connection may sit idle between requests [default: 60]
    #[arg(long, value_name = "SECS", value_parser = secs, requires = "http")]
    idle_timeout: Option<Duration>,
    /// With --http: seconds a POST body may take to arrive in full; then 408 [default: 60]
    #[arg(long, value_name = "SECS", value_parser = secs, requires = "http")]
    body_timeout: Option<Duration>,
    /// With --http: seconds a response write may wait on a client that reads nothing;
    /// then the connection is closed (long streams included) [default: 60]
    #[arg(long, value_name = "SECS", value_parser = secs, requires = "http")]
    write_timeout: Option<Duration>,
    /// With --http: seconds a legacy session may live without
    /// notifications/initialized; then it ends (its id gets 404) [default: 60]
    #[arg(long, value_name = "SECS", value_parser = secs, requires = "http")]
    init_timeout: Option<Duration>,
    /// With --http: seconds an initialized legacy session may go unused; then it ends
    /// [default: 3600]
    #[arg(long, value_name = "SECS", value_parser = secs, requires = "http")]
    session_timeout: Option<Duration>,
    /// With --http: most legacy sessions alive at once; initialize beyond gets 503 [default: 10000]
    #[arg(long, value_name = "N", requires = "http")]
    max_sessions: Option<usize>,
    /// With --http: connections the kernel may queue, completed but not yet accepted
    /// (the listen backlog; the kernel caps it at net.core.somaxconn) [default: 1024]
    #[arg(long, value_name = "N", requires = "http")]
    backlog: Option<u32>,
    /// With --http: most connections open at once; one more gets 503 and is closed
    /// [default: half of the open-file limit (ulimit -n), at most 10000].
    #[arg(long, value_name = "N", requires = "http")]
    max_connections: Option<usize>,
    /// With --http: seconds the server keeps reading (and discarding) from a client
    /// still sending when it closes the connection, so the client sees the response
    /// (an early 413, say) instead of a reset; 0 closes at once [default: 5]
    #[arg(long, value_name = "SECS", value_parser = secs, requires = "http")]
    linger_timeout: Option<Duration>,
    /// With --http: most bytes discarded while lingering [default: 67108864]
    #[arg(long, value_name = "N", requires = "http")]
    linger_bytes: Option<u64>,
    /// With --http: events a legacy request's stream keeps for a client resuming with
    /// Last-Event-ID (older ones cannot be replayed) [default: 1024]
    #[arg(long, value_name = "N", requires = "http")]
    resume_events: Option<usize>,
    /// With --http: finished streams a legacy session keeps for late resumers [default: 16]
    #[arg(long, value_name = "N", requires = "http")]
    resume_streams: Option<usize>,
}

impl HttpLimits {
    /// The limits: each flag given, else the default of [`http::Limits`] (a timeout
    /// of 0 turns that clock off).
    pub fn into_limits(self, max_body: usize) -> http::Limits {
        let d = http::Limits::default();
        let timeout = |flag: Option<Duration>, default: Duration| flag.map_or(default, off_if_zero);
        http::Limits {
            max_body,
            max_header_bytes: self.max_header_bytes.unwrap_or(d.max_header_bytes),
            max_headers: self.max_headers.unwrap_or(d.max_headers),
            header_timeout: timeout(self.header_timeout, d.header_timeout),
            idle_timeout: timeout(self.idle_timeout, d.idle_timeout),
            body_timeout: timeout(self.body_timeout, d.body_timeout),
            write_timeout: timeout(self.write_timeout, d.write_timeout),
            init_timeout: timeout(self.init_timeout, d.init_timeout),
            session_timeout: timeout(self.session_timeout, d.session_timeout),
            max_sessions: self.max_sessions.unwrap_or(d.max_sessions),
            backlog: self.backlog.unwrap_or(d.backlog),
            max_connections: self.max_connections.unwrap_or(d.max_connections),
            linger_timeout: self.linger_timeout.unwrap_or(d.linger_timeout),
            linger_bytes: self.linger_bytes.unwrap_or(d.linger_bytes),
            resume_events: self.resume_events.unwrap_or(d.resume_events),
            resume_streams: self.resume_streams.unwrap_or(d.resume_streams),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::args::{Cli, Command, ServeArgs};
    use clap::{CommandFactory, Parser};

    /// A flag's paragraph of `serve --help`, its lines joined.
    fn help_of(help: &str, flag: &str) -> String {
        let at = help
            .find(&format!("--{flag} <"))
            .unwrap_or_else(|| panic!("--{flag} is not in serve --help"));
        let rest = &help[at..];
        let end = rest.find("\n\n").unwrap_or(rest.len());
        rest[..end].split_whitespace().collect::<Vec<_>>().join(" ")
    }

    /// The HTTP-only flags carry no clap default (each would be parsed at every
    /// start, stdio too); their `--help` says the default in words. That default is
    /// the one the server uses: `http::Limits` and `http::auth::Settings`.
    #[test]
    fn serve_help_states_the_defaults_the_server_uses() {
        let limits = http::Limits::default();
        let auth = http::auth::Settings::new("https://issuer.example");
        let secs = |d: Duration| d.as_secs().to_string();
        let want = [
            ("header-timeout", secs(limits.header_timeout)),
            ("max-header-bytes", limits.max_header_bytes.to_string()),
            ("max-headers", limits.max_headers.to_string()),
            ("idle-timeout", secs(limits.idle_timeout)),
            ("body-timeout", secs(limits.body_timeout)),
            ("write-timeout", secs(limits.write_timeout)),
            ("init-timeout", secs(limits.init_timeout)),
            ("session-timeout", secs(limits.session_timeout)),
            ("max-sessions", limits.max_sessions.to_string()),
            ("backlog", limits.backlog.to_string()),
            ("linger-timeout", secs(limits.linger_timeout)),
            ("linger-bytes", limits.linger_bytes.to_string()),
            ("resume-events", limits.resume_events.to_string()),
            ("resume-streams", limits.resume_streams.to_string()),
            ("auth-fetch-timeout", secs(auth.fetch_timeout)),
            ("auth-fetch-max-bytes", auth.fetch_max_bytes.to_string()),
            ("jwks-refresh", secs(auth.jwks_refresh)),
            ("auth-retry", secs(auth.retry)),
            ("token-leeway", auth.leeway.to_string()),
        ];
        let mut cli = Cli::command();
        let help = cli
            .find_subcommand_mut("serve")
            .expect("serve")
            .render_long_help()
            .to_string();
        for (flag, value) in want {
            let text = help_of(&help, flag);
            assert!(
                text.contains(&format!("[default: {value}]")),
                "--{flag} should say [default: {value}]: {text}"
            );
        }
    }

    /// Left out, the flags give those defaults; given, they win (a timeout of 0
    /// turns its clock off).
    #[test]
    fn http_flags_left_out_keep_the_defaults_and_given_ones_win() {
        let serve = |args: &[&str]| {
            let mut argv = vec!["mcp-raw", "serve", "--http"];
            argv.extend_from_slice(args);
            match Cli::try_parse_from(argv).map(|c| c.command) {
                Ok(Command::Serve(ServeArgs {
                    limits, protect, ..
                })) => (limits, protect),
                Ok(_) => panic!("not serve"),
                Err(e) => panic!("{e}"),
            }
        };
        let (limits, protect) = serve(&[]);
        let want = http::Limits {
            max_body: 7,
            ..http::Limits::default()
        };
        assert_eq!(format!("{:?}", limits.into_limits(7)), format!("{want:?}"));
        assert!(protect.into_settings().unwrap().is_none());

        let (limits, protect) = serve(&[
            "--idle-timeout",
            "2.5",
            "--header-timeout",
            "0",
            "--max-sessions",
            "3",
            "--auth-server",
            "https://issuer.example",
            "--token-leeway",
            "4",
        ]);
        let limits = limits.into_limits(7);
        assert_eq!(limits.idle_timeout, Duration::from_millis(2500));
        assert_eq!(limits.header_timeout, off_if_zero(Duration::ZERO));
        assert_eq!(limits.max_sessions, 3);
        assert_eq!(limits.body_timeout, http::Limits::default().body_timeout);
        let settings = protect.into_settings().unwrap().expect("protected");
        let mut want = http::auth::Settings::new("https://issuer.example");
        want.leeway = 4;
        assert_eq!(format!("{settings:?}"), format!("{want:?}"));
    }
}
