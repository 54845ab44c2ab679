//! `mcp-raw load TARGET`: N clients, each a real [`McpClient`] (the era detected or
//! chosen, `initialize` and the session in 2025-11-25, `_meta` on every request in
//! 2026-07-28), making a mix of calls in a closed loop (each client's next call when
//! its last is answered) or an open one (call k due at k / rate seconds, over all
//! clients), for a duration or a number of calls. Over stdio each client spawns a
//! server process of its own (a stdio server serves one client), whose CPU time and
//! peak RSS are read from `/proc` before it is closed.
//!
//! The run returns a [`report::Report`]; nothing here prints. `mix.rs` the calls,
//! `tally.rs` the counts, `procfs.rs` a server's cost, `report.rs` the figures and
//! their text and JSON, `recorded.rs` a mix read from a recording.

pub mod mix;
pub mod procfs;
pub mod recorded;
pub mod report;
pub mod tally;

use mcp_raw_core::Eras;
use mcp_raw_net::client::auth::credential::Credential;
use mcp_raw_net::client::http_link::HttpLink;
use mcp_raw_net::client::mcp_client::{EraCache, Link, McpClient, Options};
use mcp_raw_net::client::stdio_link::{Spawn, StdioLink};
use mcp_raw_net::client::wire_print::Printer;
use mix::Mix;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};
use tally::Tally;

/// What the clients connect to.
#[derive(Debug, Clone)]
pub enum Target {
    /// A Streamable HTTP endpoint, and headers sent with every request.
    Http {
        /// The endpoint's URL.
        url: String,
        /// `--header`: extra headers (a bearer token).
        headers: Vec<(String, String)>,
        /// The TLS setup of an `https://` URL (`--cacert`), one for every client, so
        /// the certificates are read once and a client's TLS session can be resumed
        /// by the next connection.
        tls: Arc<mcp_raw_net::client::tls::Tls>,
    },
    /// A stdio server's command line: one process per client.
    Stdio(Spawn),
}

/// A load run, as asked.
pub struct Plan {
    /// Where the clients go.
    pub target: Target,
    /// The eras the clients may speak (`Both`: each detects the server's).
    pub eras: Eras,
    /// How many clients, each with one call in flight at most.
    pub clients: usize,
    /// The calls, in weighted round-robin.
    pub mix: Mix,
    /// Open loop: calls per second over all clients; `None` is a closed loop.
    pub rate: Option<f64>,
    /// The clients' starts spread over this long (client i at ramp_up × i / N).
    pub ramp_up: Duration,
    /// No call starts after this long from the run's start.
    pub duration: Option<Duration>,
    /// Exactly this many calls over all clients.
    pub requests: Option<u64>,
    /// How long one call may take before it counts as a `timeout`.
    pub timeout: Duration,
    /// How long a server may take to answer its first request (its start).
    pub startup_timeout: Duration,
    /// A transcript recorder for client i's session (`--record-sample`), if any.
    pub recorder: Arc<dyn Fn(usize) -> Option<Printer> + Send + Sync>,
    /// HTTP (`--share-token`): one connection first, whose OAuth flow (on the
    /// server's 401) gets a token every client then presents, instead of a flow per
    /// client. The first connection is not counted, as connecting is not.
    pub share_token: bool,
}

/// Counters that move while the run goes, for a progress line.
#[derive(Debug, Default)]
pub struct Live {
    /// Calls sent.
    pub sent: AtomicU64,
    /// Calls that came back (answered or failed).
    pub done: AtomicU64,
    /// Calls that failed.
    pub failed: AtomicU64,
    /// Clients connected and calling.
    pub connected: AtomicU64,
}

/// What the clients share.
struct Shared {
    plan: Plan,
    /// The next call's ticket: its place in the mix and, open loop, its time.
    next: AtomicU64,
    /// Open loop: calls that went out later than due (every client was busy).
    behind: AtomicU64,
    start: Instant,
    live: Arc<Live>,
    /// `--share-token`: the token the first connection's OAuth flow got (`None`: it
    /// needed none, or failed), made once for every client.
    credential: tokio::sync::OnceCell<Option<Credential>>,
}

/// What one client brings back.
struct ClientEnd {
    tally: Tally,
    /// The era it spoke (`Spoken`'s text), once connected.
    spoken: Option<String>,
    /// Its stdio server's usage, read before closing.
    server: Option<procfs::Usage>,
    /// When its first call went out and its last came back: the calling window.
    window: Option<(Instant, Instant)>,
}

/// Runs the plan to its end; `live` counts as it goes.
pub async fn run(plan: Plan, live: Arc<Live>) -> report::Report {
    let clients = plan.clients.max(1);
    let shared = Arc::new(Shared {
        plan,
        next: AtomicU64::new(0),
        behind: AtomicU64::new(0),
        start: Instant::now(),
        live,
        credential: tokio::sync::OnceCell::new(),
    });
    let tasks: Vec<_> = (0..clients)
        .map(|i| tokio::spawn(client(i, clients, shared.clone())))
        .collect();
    let mut tally = Tally::default();
    let (mut spoken, mut servers) = (None, Vec::new());
    let mut window: Option<(Instant, Instant)> = None;
    let mut connected = 0;
    for task in tasks {
        match task.await {
            Ok(end) => {
                tally.add(end.tally);
                connected += usize::from(end.spoken.is_some());
                spoken = spoken.or(end.spoken);
                servers.extend(end.server);
                window = match (window, end.window) {
                    (Some((a, b)), Some((c, d))) => Some((a.min(c), b.max(d))),
                    (w, None) | (None, w) => w,
                };
            }
            Err(e) => tally.failed("client panicked", e.to_string()),
        }
    }
    let elapsed = shared.start.elapsed();
    let calling = window.map_or(Duration::ZERO, |(first, last)| last - first);
    let plan = &shared.plan;
    report::Report::new(report::Setup {
        target: match &plan.target {
            Target::Http { url, .. } => url.clone(),
            Target::Stdio(s) => std::iter::once(s.program.display().to_string())
                .chain(s.args.iter().cloned())
                .collect::<Vec<_>>()
                .join(" "),
        },
        spoken,
        clients,
        connected,
        rate: plan.rate,
        elapsed,
        calling,
        behind: shared.behind.load(Ordering::Relaxed),
        servers,
        stdio: matches!(plan.target, Target::Stdio(_)),
        tally,
    })
}

/// `--share-token`: a connection of its own, whose OAuth flow runs when the server
/// answers 401 (MCP 2025-11-25 `basic/authorization`); its token, if one was needed
/// and got. Its failure is logged: each client then meets the 401 itself.
async fn first_token(plan: &Plan) -> Option<Credential> {
    let got = async {
        let link = open(&plan.target, plan.timeout, &Printer::quiet())?;
        let c = McpClient::connect(link, "load", options(plan), &mut EraCache::default()).await?;
        let credential = c.credential().cloned();
        c.close().await?;
        anyhow::Ok(credential)
    };
    match got.await {
        Ok(credential) => credential,
        Err(e) => {
            log::warn!("[mcp-raw load] --share-token: the first connection failed: {e:#}");
            None
        }
    }
}

/// A client's options: the plan's eras and clocks, the rest as `client`'s defaults
/// (an OAuth flow on a 401 among them).
fn options(plan: &Plan) -> Options {
    Options {
        eras: plan.eras,
        timeout: plan.timeout,
        startup_timeout: plan.startup_timeout,
        ..Options::default()
    }
}

/// Opens client i's link.
fn open(target: &Target, timeout: Duration, printer: &Printer) -> anyhow::Result<Link> {
    Ok(match target {
        Target::Http { url, headers, tls } => {
            let mut http = HttpLink::new(url, printer)?;
            http.tls = tls.clone();
            http.timeout = timeout;
            http.extra_headers = headers.clone();
            Link::Http(http)
        }
        Target::Stdio(spawn) => Link::Stdio(StdioLink::spawn_with(spawn, printer)?),
    })
}

/// One client: its start in the ramp, its connection, its calls, its close.
async fn client(i: usize, n: usize, shared: Arc<Shared>) -> ClientEnd {
    let plan = &shared.plan;
    let mut end = ClientEnd {
        tally: Tally::default(),
        spoken: None,
        server: None,
        window: None,
    };
    let deadline = plan.duration.map(|d| shared.start + d);
    let ramp = plan.ramp_up.mul_f64(i as f64 / n as f64);
    tokio::time::sleep_until((shared.start + ramp).into()).await;
    if deadline.is_some_and(|d| Instant::now() >= d) {
        return end;
    }
    let printer = (plan.recorder)(i).unwrap_or_else(Printer::quiet);
    let options = options(plan);
    let connected = async {
        let mut link = open(&plan.target, plan.timeout, &printer)?;
        if plan.share_token
            && let Link::Http(http) = &mut link
        {
            http.credential = shared
                .credential
                .get_or_init(|| first_token(plan))
                .await
                .clone();
        }
        let mut c = McpClient::connect(link, "load", options, &mut EraCache::default()).await?;
        if plan.mix.has_tools() {
            c.list_tools().await?;
        }
        anyhow::Ok(c)
    };
    let mut c = match connected.await {
        Ok(c) => c,
        Err(e) => {
            log::warn!("[mcp-raw load] client {i} could not connect: {e:#}");
            end.tally.failed("connect", format!("{e:#}"));
            return end;
        }
    };
    end.spoken = Some(c.spoken().to_string());
    shared.live.connected.fetch_add(1, Ordering::Relaxed);
    let mut broken = 0;
    loop {
        let ticket = shared.next.fetch_add(1, Ordering::Relaxed);
        if plan.requests.is_some_and(|r| ticket >= r) {
            break;
        }
        if let Some(rate) = plan.rate {
            let due = shared.start + Duration::from_secs_f64(ticket as f64 / rate);
            if deadline.is_some_and(|d| due >= d) {
                break;
            }
            if Instant::now() > due + Duration::from_millis(1) {
                shared.behind.fetch_add(1, Ordering::Relaxed);
            }
            tokio::time::sleep_until(due.into()).await;
        }
        if deadline.is_some_and(|d| Instant::now() >= d) {
            break;
        }
        let call = plan.mix.pick(ticket);
        shared.live.sent.fetch_add(1, Ordering::Relaxed);
        let t = Instant::now();
        let answered = match &call.tool {
            Some(tool) => c.call_tool(tool, call.params.clone()).await,
            None => c.request(&call.method, call.params.clone()).await,
        };
        let kind = end.tally.record(call, &answered, t.elapsed());
        let first = end.window.map_or(t, |(first, _)| first);
        end.window = Some((first, Instant::now()));
        shared.live.done.fetch_add(1, Ordering::Relaxed);
        if kind.is_some() {
            shared.live.failed.fetch_add(1, Ordering::Relaxed);
        }
        // A link that fails three times running is gone (a dead server): this
        // client stops rather than spin on it.
        broken = if answered.is_err() { broken + 1 } else { 0 };
        if broken == 3 {
            log::warn!("[mcp-raw load] client {i} stops: three calls in a row got no answer");
            break;
        }
    }
    end.server = c.server_pid().and_then(procfs::usage);
    if let Err(e) = c.close().await {
        log::warn!("[mcp-raw load] client {i}: closing: {e:#}");
    }
    end
}
