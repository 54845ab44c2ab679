//! `mcp-raw serve`: the server the flags ask for, on stdio or HTTP, with its
//! recorder when `--trace` or `--record` wants one.

use super::args::{EraArg, FixtureArg, ServeArgs, off_if_zero};
use super::console::Console;
use mcp_raw_core::tasks::TaskLimits;
use mcp_raw_core::{Server, state_key};
use mcp_raw_net::store::redis;
use mcp_raw_net::transport::{http, stdio};
use mcp_raw_wire::recorder::Recorder;
use std::time::Duration;

/// `mcp-raw serve`: over stdio, or with `--http` on a listener (its TLS read first:
/// stdio has none), the state key installed and the recorder made before either.
pub fn main(args: ServeArgs, console: &Console) -> anyhow::Result<()> {
    let tls = if args.http {
        tls_listen(&args.tls)?
    } else if args.tls.tls_cert.is_some() {
        return Err(super::exit::usage(
            "--tls-cert and --tls-key need --http (stdio has no TLS)",
        ));
    } else {
        None
    };
    install_state_key(args.state_key_file.as_deref(), console)?;
    let wanted = super::record::Wanted {
        trace: args.trace,
        color: args.color,
        record: args.record.as_deref(),
        queue: args.record_queue.policy(),
        max_message: args.max_message_bytes,
        show_secrets: args.show_secrets,
        redact_headers: &args.redact_headers,
    };
    let transport = if args.http { "http" } else { "stdio" };
    let header = mcp_raw_wire::transcript::Header::new("server", transport);
    let mut page = super::ui::sinks(
        args.ui,
        &args.ui_page,
        &header,
        args.max_message_bytes,
        console,
    )?;
    // Reports what it sent when dropped, at the end of whichever way `main` returns.
    let _otlp = super::otlp::start(
        &args.otlp,
        false,
        &header,
        args.max_message_bytes,
        &mut page,
        console,
    )?;
    let metrics = super::metrics::add(&mut page, &args.metrics, args.max_message_bytes, console)?;
    let recorder = super::record::recorder(&header, wanted, page, console)?;
    if !args.http {
        let server = server(args.era, args.fixture, args.max_tasks, args.task_ttl);
        return serve_stdio(
            server,
            args.max_body_bytes,
            args.max_log_backlog,
            recorder,
            console,
        );
    }
    let spec = Spec {
        era: args.era,
        fixture: args.fixture,
        max_tasks: args.max_tasks,
        task_ttl: args.task_ttl,
        store: args.store.map(|url| StoreSpec {
            url,
            prefix: args.store_prefix,
            timeout: args.store_timeout,
            max_reply: args.store_max_reply_bytes,
            lease: args.task_lease,
            trace: args.store_trace,
            cacert: args.store_cacert,
            auth_file: args.store_auth_file,
            cert: args.store_cert,
            key: args.store_key,
        }),
    };
    let config = http::Config {
        limits: args.limits.into_limits(args.max_body_bytes),
        allowed_hosts: http::guard::AllowedHosts::new(&args.allow_hosts),
        recorder,
        auth: args.protect.into_settings()?,
        session_id_prefix: args.session_id_prefix,
        tls,
    };
    super::metrics::expire(metrics.as_ref(), &config.limits);
    serve_http(
        spec,
        &args.host,
        args.port,
        args.allow_remote,
        config,
        console,
    )
}

/// `--state-key-file` (or `MCP_RAW_STATE_KEY_FILE`): the shared requestState key,
/// installed before anything is sealed; without it each process draws its own.
pub fn install_state_key(path: Option<&std::path::Path>, console: &Console) -> anyhow::Result<()> {
    let Some(path) = path else { return Ok(()) };
    // An unreadable or malformed key file is the caller's mistake: exit status 2.
    let key =
        state_key::StateKey::from_file(path).map_err(|e| super::exit::usage(format!("{e:#}")))?;
    state_key::install(key)?;
    console.say(format_args!(
        "[mcp-raw] requestState sealed with the key in {} (replicas given the same file open each other's)",
        path.display()
    ));
    Ok(())
}

/// The server the command line asks for.
pub fn server(
    era: EraArg,
    fixture: FixtureArg,
    max_tasks: usize,
    task_ttl: Duration,
) -> std::sync::Arc<Server> {
    match fixture {
        FixtureArg::Demo => Server::new(mcp_raw_core::content::demo::tool_set(), era.into()),
        FixtureArg::Conformance => {
            mcp_raw_core::content::conformance::server_with(era.into(), limits(max_tasks, task_ttl))
        }
    }
}

fn limits(max_tasks: usize, task_ttl: Duration) -> TaskLimits {
    TaskLimits {
        max: max_tasks.max(1),
        ttl: off_if_zero(task_ttl),
    }
}

/// What `serve --http` serves: the server flags, and the shared store if any.
pub struct Spec {
    /// `--era`: which eras the server answers.
    pub era: EraArg,
    /// `--fixture`: what it offers (the demo tools, or the conformance fixture).
    pub fixture: FixtureArg,
    /// `--max-tasks`: tasks kept at once (per replica with `--store`).
    pub max_tasks: usize,
    /// `--task-ttl`: how long a task stays readable.
    pub task_ttl: Duration,
    /// `--store` and its companions.
    pub store: Option<StoreSpec>,
}

/// `--store URL` as given, and its companion flags.
pub struct StoreSpec {
    /// `--store`, as typed: parsed (and refused, quoted) before anything connects.
    pub url: String,
    /// `--store-prefix`: the namespace of every key and of the bus channel.
    pub prefix: String,
    /// `--store-timeout`: the longest a connection or a command may take.
    pub timeout: Duration,
    /// `--store-max-reply-bytes`: the largest Redis reply read.
    pub max_reply: usize,
    /// `--task-lease`: how long a dead replica's running task stays `working`.
    pub lease: Duration,
    /// `--store-trace`: every byte to and from Redis on stderr.
    pub trace: bool,
    /// `--store-cacert`: roots trusted for `rediss://`, besides the system's.
    pub cacert: Vec<std::path::PathBuf>,
    /// `--store-auth-file`: the file holding Redis AUTH's user and password.
    pub auth_file: Option<std::path::PathBuf>,
    /// `--store-cert`: the client certificate presented to Redis over TLS.
    pub cert: Option<std::path::PathBuf>,
    /// `--store-key`: `--store-cert`'s private key.
    pub key: Option<std::path::PathBuf>,
}

impl Spec {
    /// The server, its tasks and hub in Redis when `--store` says so (connected now,
    /// so a bad or unreachable store stops the server before it listens).
    async fn build(self, console: &Console) -> anyhow::Result<std::sync::Arc<Server>> {
        let Some(store) = self.store else {
            return Ok(server(
                self.era,
                self.fixture,
                self.max_tasks,
                self.task_ttl,
            ));
        };
        // A lease renewed every third of nothing would spin; a zero timeout fails all.
        if store.lease < Duration::from_millis(100) {
            anyhow::bail!(
                "--task-lease {}: a lease must last at least 0.1 s",
                store.lease.as_secs_f64()
            );
        }
        if store.timeout.is_zero() {
            anyhow::bail!("--store-timeout 0: every command would time out");
        }
        let target = redis::Target::parse(&store.url).map_err(anyhow::Error::msg)?;
        if !target.tls {
            let given = [
                (!store.cacert.is_empty(), "--store-cacert"),
                (store.cert.is_some(), "--store-cert"),
                (store.key.is_some(), "--store-key"),
            ];
            if let Some((_, flag)) = given.iter().find(|(given, _)| *given) {
                return Err(super::exit::usage(format!(
                    "{flag} is for rediss:// (TLS); {} is plaintext",
                    target.url()
                )));
            }
        }
        // An unreadable auth file or CA file is the caller's mistake: exit status 2.
        let auth = match &store.auth_file {
            Some(path) => Some(redis::Auth::from_file(path).map_err(super::exit::usage)?),
            None => None,
        };
        let tls = if target.tls {
            Some(std::sync::Arc::new(
                redis::tls(store.cacert, store.cert, store.key).map_err(super::exit::usage)?,
            ))
        } else {
            None
        };
        let settings = redis::Settings {
            target,
            prefix: store.prefix,
            timeout: store.timeout,
            max_reply: store.max_reply,
            lease: store.lease,
            trace: store.trace,
            tls,
            auth,
        };
        if !matches!(self.fixture, FixtureArg::Conformance) {
            anyhow::bail!(
                "--store shares task records and subscription events, which only --fixture conformance has"
            );
        }
        let url = settings.target.url();
        let auth = match &settings.auth {
            Some(redis::Auth {
                user: Some(user), ..
            }) => format!(", AUTH as {user:?}"),
            Some(_) => ", AUTH as the default user".to_owned(),
            None => String::new(),
        };
        let (prefix, lease) = (settings.prefix.clone(), settings.lease);
        let shared = redis::connect(settings, limits(self.max_tasks, self.task_ttl))
            .await
            .map_err(|e| anyhow::anyhow!("--store {url}: {e}"))?;
        console.say(format_args!(
            "[mcp-raw] tasks and subscriptions shared through {url} (keys {prefix}:*, replica {}, task lease {lease:?}{auth})",
            shared.replica
        ));
        Ok(mcp_raw_core::content::conformance::server_on(
            self.era.into(),
            shared.hub,
            shared.tasks,
        ))
    }
}

/// Is stderr read as it is written (a pipe, a socket, a terminal)? Then each log
/// line goes out next to the message it is about; to a file or `/dev/null`, lines
/// are written by the log's thread ([`mcp_raw_net::transport::log`]).
fn stderr_is_read_live(console: &Console) -> bool {
    if !console.is_process() || console.err_is_terminal() {
        return true;
    }
    #[cfg(unix)]
    {
        use std::os::fd::AsFd;
        use std::os::unix::fs::FileTypeExt;
        let kind = std::io::stderr()
            .as_fd()
            .try_clone_to_owned()
            .map(std::fs::File::from)
            .and_then(|f| f.metadata())
            .map(|m| m.file_type());
        match kind {
            Ok(kind) => kind.is_fifo() || kind.is_socket(),
            // Unknown: written at once, as a reader would want it.
            Err(_) => true,
        }
    }
    #[cfg(not(unix))]
    true
}

pub fn serve_stdio(
    server: std::sync::Arc<Server>,
    max_line: usize,
    max_log_backlog: usize,
    recorder: Option<Recorder>,
    console: &Console,
) -> anyhow::Result<()> {
    // stdin and stdout as the files they are, not std's `Stdin` and `Stdout`: the
    // server reads into its own buffer and writes whole lines it has gathered, one
    // write each, so the buffers and locks std puts in front of them only cost.
    // stdout's line buffer and re-entrant lock took ~400 instructions a call
    // (callgrind); stdin's 8 KiB buffer would copy every read into the server's
    // smaller first one. Nothing else in this process reads stdin or writes stdout:
    // they carry protocol messages only.
    #[cfg(unix)]
    let (stdin, stdout): (Box<dyn std::io::Read>, Box<dyn std::io::Write + Send>) = {
        use std::os::fd::AsFd;
        (
            Box::new(std::fs::File::from(
                std::io::stdin().as_fd().try_clone_to_owned()?,
            )),
            Box::new(std::fs::File::from(
                std::io::stdout().as_fd().try_clone_to_owned()?,
            )),
        )
    };
    #[cfg(not(unix))]
    let (stdin, stdout): (Box<dyn std::io::Read>, Box<dyn std::io::Write + Send>) = (
        Box::new(std::io::stdin().lock()),
        Box::new(std::io::stdout()),
    );
    let log = mcp_raw_net::transport::log::Log::new(
        console.err(),
        max_log_backlog,
        stderr_is_read_live(console),
    );
    stdio::serve(server, stdin, stdout, log, max_line, recorder)?;
    Ok(())
}

/// `allow_remote`: `--allow-remote`, listening beyond loopback without a token check.
pub fn serve_http(
    spec: Spec,
    host: &str,
    port: u16,
    allow_remote: bool,
    mut config: http::Config,
    console: &Console,
) -> anyhow::Result<()> {
    check_protection(&config)?;
    super::runtime()?.block_on(async {
        let server = spec.build(console).await?;
        let listener = http::listen::bind(host, port, config.limits.backlog)
            .await
            .map_err(|e| anyhow::anyhow!("cannot listen on {host}:{port}: {e}"))?;
        let addr = listener.local_addr()?;
        check_remote(addr, allow_remote, &config)?;
        protect_at(&mut config, addr, console);
        console.say(format_args!(
            "[mcp-raw] Streamable HTTP server listening on {}://{addr}{}",
            scheme(&config),
            mcp_raw_wire::http::ENDPOINT
        ));
        let shutdown = async {
            let how = super::stop::signalled().await;
            console.say(format_args!("[mcp-raw] {how}: shutting down"));
        };
        http::run(listener, server, config, shutdown).await?;
        Ok(())
    })
}

/// A server bound beyond loopback is open to anyone who can reach the address: it
/// needs `--allow-remote` (as `tap` does), unless `--auth-server` protects it. Checked
/// on the address bound, so a host name that resolves to one counts as what it is.
pub fn check_remote(
    addr: std::net::SocketAddr,
    allow_remote: bool,
    config: &http::Config,
) -> anyhow::Result<()> {
    if addr.ip().is_loopback() || allow_remote || config.auth.is_some() {
        return Ok(());
    }
    anyhow::bail!(
        "--host {}: not a loopback address, and no --auth-server protects it (anyone who can reach it could use it); add --allow-remote to listen there anyway",
        addr.ip()
    )
}

/// `--auth-server`'s URL, refused before anything listens when the server must not
/// talk to it ([`http::auth::Settings::check`]).
pub fn check_protection(config: &http::Config) -> anyhow::Result<()> {
    match &config.auth {
        Some(auth) => auth.check().map_err(anyhow::Error::msg),
        None => Ok(()),
    }
}

/// `https` on a TLS listener, else `http`: what the log line and the resource URL say.
pub fn scheme(config: &http::Config) -> &'static str {
    if config.tls.is_some() {
        "https"
    } else {
        "http"
    }
}

/// `--tls-cert`/`--tls-key` read into the listener's TLS (none without them); a file
/// that cannot be used is the caller's mistake, exit status 2.
pub fn tls_listen(
    tls: &super::args::TlsListen,
) -> anyhow::Result<Option<std::sync::Arc<mcp_raw_net::transport::tls::Acceptor>>> {
    mcp_raw_net::transport::tls::Acceptor::from_flags(
        tls.tls_cert.as_deref(),
        tls.tls_key.as_deref(),
        tls.tls_client_ca.as_deref(),
    )
    .map(|a| a.map(std::sync::Arc::new))
    .map_err(|e| super::exit::usage(format!("{e:#}")))
}

/// Fills in a protected server's resource URI from the address bound, unless
/// `--resource` gave it, and says on stderr where its metadata is.
pub fn protect_at(config: &mut http::Config, addr: std::net::SocketAddr, console: &Console) {
    let scheme = scheme(config);
    if let Some(auth) = config.auth.as_mut() {
        if auth.resource.is_empty() {
            auth.resource = format!("{scheme}://{addr}{}", mcp_raw_wire::http::ENDPOINT);
        }
        console.say(format_args!(
            "[mcp-raw] protected resource {}: tokens from {} ({}), metadata at {}",
            auth.resource,
            auth.issuer,
            if auth.introspection.is_some() {
                "checked by introspection"
            } else {
                "verified as JWTs against its key set"
            },
            http::auth::metadata::url(&auth.resource)
        ));
    }
}
