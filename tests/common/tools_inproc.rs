//! The wire tools run in-process, for tests where a tool is a peer or an inspector,
//! or where what it relays and records is the subject and its process is not: the
//! authorization server a protected server asks ([`AuthPeer`]), a protected
//! `serve --http` a client or tap talks to ([`protected`]), the mock a client talks
//! to ([`MockPeer`], its own recording too), the HTTP tap ([`TapPeer`], the flags a
//! test sets as [`TapFlags`]) and the forward proxy ([`ProxyPeer`]), each on
//! 127.0.0.1, port 0, on its own runtime and stopped on drop; and `check`'s text
//! report of a recording ([`check`]). Each is built from the same library calls as
//! the binary's subcommand (src/cli/auth_server.rs, src/cli/serve.rs,
//! src/cli/replay.rs, src/cli/tap.rs, src/cli/check.rs), so the in-process peer is
//! the same thing as the process; what stays the binary's alone is turning flags
//! into those calls.

use super::InProcess;
use mcp_raw_core::Server;
use mcp_raw_net::transport::http;
use mcp_raw_tools::authserver;
use std::sync::Arc;

/// `mcp-raw auth-server --port 0` with `config`, in-process.
pub struct AuthPeer {
    /// `127.0.0.1:PORT`.
    pub addr: String,
    /// `http://127.0.0.1:PORT`, its issuer identifier.
    pub issuer: String,
    _runtime: tokio::runtime::Runtime,
}

impl AuthPeer {
    pub fn start(config: authserver::Config) -> AuthPeer {
        let runtime = tokio::runtime::Runtime::new().unwrap();
        let (addr, issuer) = runtime.block_on(async {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            let addr = listener.local_addr().unwrap().to_string();
            let issuer = format!("http://{addr}");
            let server = Arc::new(authserver::AuthServer::new(issuer.clone(), config).unwrap());
            tokio::spawn(authserver::serve(listener, server, None, None));
            (addr, issuer)
        });
        AuthPeer {
            addr,
            issuer,
            _runtime: runtime,
        }
    }
}

/// `serve --http --port 0 --auth-server ISSUER` (the demo tools) with `settings`, its
/// resource, unless given, `http://ADDR/mcp` from the address bound: what
/// `serve_http` does with `protect_at`, in-process.
pub fn protected(mut settings: http::auth::Settings) -> InProcess {
    settings
        .check()
        .expect("an issuer serve --http would accept");
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let (addr, app) = runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap().to_string();
        if settings.resource.is_empty() {
            settings.resource = format!("http://{addr}{}", mcp_raw_wire::http::ENDPOINT);
        }
        let config = http::Config {
            auth: Some(settings),
            ..http::Config::default()
        };
        let server = Server::new(
            mcp_raw_core::content::demo::tool_set(),
            mcp_raw_core::Eras::Both,
        );
        let app = http::App::new(server, config);
        tokio::spawn(http::serve(listener, app.clone(), std::future::pending()));
        (addr, app)
    });
    InProcess {
        addr,
        app,
        _runtime: runtime,
    }
}

/// `mcp-raw replay FILE --port 0` (with `--http` when `http`): the recording's
/// server side served over Streamable HTTP, in-process.
pub struct MockPeer {
    /// `http://127.0.0.1:PORT/mcp`.
    pub url: String,
    /// `127.0.0.1:PORT`.
    pub addr: String,
    _runtime: tokio::runtime::Runtime,
}

impl MockPeer {
    pub fn http(file: &std::path::Path) -> MockPeer {
        MockPeer::http_recording(file, None)
    }

    /// `mcp-raw replay FILE --http --port 0 --record RECORD`: the mock's own
    /// transcript (role `replay` over `http`, secrets masked) written to `record`.
    pub fn http_recording(file: &std::path::Path, record: Option<&std::path::Path>) -> MockPeer {
        use mcp_raw_tools::replay::{diff::Ignore, mock::Mock, serve};
        let bytes = std::fs::read(file).unwrap();
        let (_, events) = mcp_raw_wire::transcript::read_bytes(&bytes).unwrap();
        let mock = Mock::from_events(&events, Ignore::defaults());
        let recorder = http_recorder(record, "replay", false, &[]);
        let (runtime, addr) = spawn_on_port_0(|listener| {
            serve::http(
                mock,
                listener,
                recorder,
                mcp_raw_wire::decode::DEFAULT_MAX_MESSAGE,
                None,
                http::Limits::default(),
            )
        });
        MockPeer {
            url: format!("http://{addr}{}", mcp_raw_wire::http::ENDPOINT),
            addr,
            _runtime: runtime,
        }
    }
}

/// `mcp-raw check FILE` (the text report, no colour), in-process: its exit status
/// (0, or 1 when an error was found) and its report, as the subcommand makes them
/// (src/cli/check.rs).
pub fn check(file: &std::path::Path) -> (i32, String) {
    use mcp_raw_tools::check::{Checker, report};
    let bytes = std::fs::read(file).unwrap();
    let (_, events) = mcp_raw_wire::transcript::read_bytes(&bytes).unwrap();
    let mut checker = Checker::with_max(mcp_raw_wire::decode::DEFAULT_MAX_MESSAGE);
    let mut findings = Vec::new();
    for e in &events {
        findings.extend(checker.feed(e));
    }
    findings.extend(checker.finish());
    let totals = report::Totals {
        events: checker.events(),
        messages: checker.messages(),
        ..Default::default()
    };
    let status = i32::from(report::count(&findings).0 > 0);
    (status, report::text(&findings, totals))
}

/// The HTTP tap's flags a test sets; the rest are the defaults.
pub struct TapFlags<'a> {
    /// `--record FILE`.
    pub record: Option<&'a std::path::Path>,
    /// `--show-secrets`.
    pub show_secrets: bool,
    /// `--redact-header NAME`, each.
    pub redact_headers: Vec<String>,
    /// `--header-timeout`.
    pub header_timeout: std::time::Duration,
    /// `--idle-timeout`.
    pub idle_timeout: std::time::Duration,
}

impl Default for TapFlags<'_> {
    fn default() -> Self {
        use mcp_raw_tools::tap::http::limits;
        TapFlags {
            record: None,
            show_secrets: false,
            redact_headers: Vec::new(),
            header_timeout: limits::HEADER_TIMEOUT,
            idle_timeout: limits::IDLE_TIMEOUT,
        }
    }
}

/// `mcp-raw tap --http --listen 127.0.0.1:0 --target TARGET` with `flags`,
/// in-process: the library's HTTP relay configured as src/cli/tap.rs configures it,
/// its transcript (role `tap` over `http`) written to `flags.record`; stopped on drop.
pub struct TapPeer {
    /// `http://127.0.0.1:PORT` and the target's path.
    pub url: String,
    /// `127.0.0.1:PORT`.
    pub addr: String,
    _runtime: tokio::runtime::Runtime,
}

impl TapPeer {
    pub fn http(target: &str, flags: TapFlags) -> TapPeer {
        use mcp_raw_tools::tap::http::{self as tap, limits};
        let target = tap::Target::parse(target).expect("a target the tap accepts");
        let recorder = http_recorder(
            flags.record,
            "tap",
            flags.show_secrets,
            &flags.redact_headers,
        );
        let config = tap::Config {
            target: target.clone(),
            recorder,
            rewrite_host: false,
            connect_timeout: limits::CONNECT_TIMEOUT,
            max_connections: limits::MAX_CONNECTIONS,
            header_timeout: flags.header_timeout,
            idle_timeout: flags.idle_timeout,
            target_tls: Arc::new(Default::default()),
            listen_tls: None,
            // No --intercept: nothing is held.
            intercept: None,
            intercept_max: mcp_raw_tools::tap::http::hold::DEFAULT_MAX_BYTES,
        };
        let (runtime, addr) =
            spawn_on_port_0(|listener| tap::run(listener, config, std::future::pending()));
        TapPeer {
            url: format!("http://{addr}{}", target.path),
            addr,
            _runtime: runtime,
        }
    }
}

/// `mcp-raw tap --proxy --listen 127.0.0.1:0 --ca-dir CA_DIR --cacert CACERT
/// --record RECORD [--decrypt-host HOST…]`, in-process: the library's proxy
/// configured as src/cli/tap.rs configures it (the flags' defaults for its clocks
/// and bounds), the CA loaded from `ca_dir` as the binary loads it; stopped on drop.
pub struct ProxyPeer {
    /// `127.0.0.1:PORT` (`HTTPS_PROXY=http://ADDR`).
    pub addr: String,
    _runtime: tokio::runtime::Runtime,
}

impl ProxyPeer {
    pub fn start(
        ca_dir: &std::path::Path,
        cacert: &std::path::Path,
        record: &std::path::Path,
        decrypt: &[&str],
    ) -> ProxyPeer {
        use mcp_raw_tools::tap::{ca::Ca, http::limits as http_limits, proxy};
        let recorder = http_recorder(Some(record), "tap", false, &[]);
        let tls = mcp_raw_net::client::tls::Tls::new(mcp_raw_net::client::tls::TlsOptions {
            cacert: vec![cacert.to_owned()],
            ..Default::default()
        })
        .expect("--cacert read");
        let config = proxy::Config {
            recorder,
            ca: Ca::load(ca_dir).expect("the CA `mcp-raw ca` made"),
            decrypt: decrypt.iter().map(|h| h.to_string()).collect(),
            tls,
            connect_timeout: http_limits::CONNECT_TIMEOUT,
            max_connections: http_limits::MAX_CONNECTIONS,
            header_timeout: http_limits::HEADER_TIMEOUT,
            max_head_bytes: proxy::limits::MAX_HEAD_BYTES,
            idle_timeout: http_limits::IDLE_TIMEOUT,
            // No --intercept: nothing is held.
            intercept: None,
            intercept_max: mcp_raw_tools::tap::http::hold::DEFAULT_MAX_BYTES,
        };
        let (runtime, addr) =
            spawn_on_port_0(|listener| proxy::run(listener, config, std::future::pending()));
        ProxyPeer {
            addr,
            _runtime: runtime,
        }
    }
}

/// The recorder a peer writes its transcript with (role `role` over `http`) to
/// `path`, secrets masked unless `show_secrets`, the headers `redact_headers` masked
/// too (`--redact-header`); one that records nothing without a path.
fn http_recorder(
    path: Option<&std::path::Path>,
    role: &str,
    show_secrets: bool,
    redact_headers: &[String],
) -> mcp_raw_wire::recorder::Recorder {
    let Some(path) = path else {
        return mcp_raw_wire::recorder::Recorder::none();
    };
    let sink = mcp_raw_wire::transcript_write::create(
        path,
        &mcp_raw_wire::transcript::Header::new(role, "http"),
        mcp_raw_wire::decode::DEFAULT_MAX_MESSAGE,
    )
    .unwrap_or_else(|e| panic!("the {role}'s transcript at {}: {e}", path.display()));
    let recorder = mcp_raw_wire::recorder::Recorder::new(vec![sink]);
    recorder.set_redaction(!show_secrets);
    recorder.redact_headers(redact_headers);
    recorder
}

/// A runtime of its own with `serve(listener)` spawned on it, the listener on
/// 127.0.0.1, port 0: the runtime (dropping it stops the peer) and `127.0.0.1:PORT`.
fn spawn_on_port_0<F>(
    serve: impl FnOnce(tokio::net::TcpListener) -> F,
) -> (tokio::runtime::Runtime, String)
where
    F: std::future::Future + Send + 'static,
    F::Output: Send + 'static,
{
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let addr = runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap().to_string();
        tokio::spawn(serve(listener));
        addr
    });
    (runtime, addr)
}
