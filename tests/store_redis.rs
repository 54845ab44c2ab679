//! `serve --store redis://…`: three real replicas sharing one real `redis-server`
//! (started here on a free port, no persistence, killed at the end), spoken to in raw
//! HTTP/1.1. A task created on A is read on B, answered on B, cancelled on C; a
//! listener on C hears a task running on A, and listeners on A (modern) and C (a
//! legacy session's GET stream) hear a list change announced on B; a
//! replica killed with SIGKILL leaves its finished tasks readable and its running
//! ones failed once their lease lapses. Without `redis-server` on PATH they fail
//! under CI (`CI=true`: CI installs Debian's) and are skipped elsewhere, with a
//! `SKIP` line on stderr.

mod common;
use common::cli_inproc::cli_here;
use common::http_client::Stream;
use common::{BIN, Http, HttpReply, HttpServer};
use serde_json::{Value, json};
use std::io::BufRead;
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const V: &str = "2026-07-28";
const TASKS: &str = "io.modelcontextprotocol/tasks";
/// How to get what these tests need.
const INSTALL: &str = "apt-get install redis-server";

/// A `redis-server` of this test's own, killed on drop.
struct Redis {
    child: Child,
    port: u16,
}

impl Drop for Redis {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Redis {
    /// Starts one on a free port, or `None` (with the reason printed) when there is no
    /// `redis-server` to start.
    fn start(name: &str) -> Option<Redis> {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map(|a| a.port())
            .expect("a free port");
        Redis::start_on(name, port)
    }

    /// Starts one on `port` (again, after a stop).
    fn start_on(name: &str, port: u16) -> Option<Redis> {
        Redis::start_with(name, port, &[])
    }

    /// Starts one on `port` with more `redis-server` arguments (TLS, passwords).
    fn start_with(name: &str, port: u16, extra: &[&str]) -> Option<Redis> {
        let found = Command::new("redis-server")
            .arg("--version")
            .stdout(Stdio::null())
            .status()
            .is_ok();
        if !found {
            common::missing_program(&format!("store_redis ({name})"), "redis-server", INSTALL);
            return None;
        }
        let dir = common::scratch("store", name);
        let mut child = Command::new("redis-server")
            .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
            .args(["--save", "", "--appendonly", "no"])
            .arg("--dir")
            .arg(&dir)
            .args(extra)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn redis-server");
        // Redis logs `Ready to accept connections` on stdout once every listener (TCP
        // and TLS) is bound: awaited, not polled. The rest of its log is drained.
        let mut log = std::io::BufReader::new(child.stdout.take().unwrap()).lines();
        let mut said = String::new();
        loop {
            let line = log
                .next()
                .unwrap_or_else(|| panic!("redis-server exited before listening on {port}: {said}"))
                .unwrap();
            said.push_str(&line);
            said.push('\n');
            if line.contains("Ready to accept connections") {
                break;
            }
        }
        std::thread::spawn(move || log.for_each(drop));
        assert!(TcpStream::connect(("127.0.0.1", port)).is_ok(), "{said}");
        Some(Redis { child, port })
    }

    fn url(&self) -> String {
        format!("redis://127.0.0.1:{}", self.port)
    }
}

/// A replica: `serve --http --port 0 --fixture conformance --store URL --task-lease 1`.
fn replica(redis: &Redis) -> HttpServer {
    // Replicas killed with SIGKILL, each with its own log on stderr: processes.
    HttpServer::start(&[
        "--fixture",
        "conformance",
        "--store",
        &redis.url(),
        "--task-lease",
        "1",
    ])
}

fn body(method: &str, mut params: Value) -> String {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": V,
        "io.modelcontextprotocol/clientCapabilities": {"extensions": {TASKS: {}}, "elicitation": {}},
    });
    json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).to_string()
}

fn headers<'a>(method: &'a str, name: Option<&'a str>) -> Vec<(&'a str, &'a str)> {
    let mut h = vec![("MCP-Protocol-Version", V), ("Mcp-Method", method)];
    if let Some(n) = name {
        h.push(("Mcp-Name", n));
    }
    h
}

/// A modern request; its JSON-RPC response (JSON or SSE alike).
fn rpc(s: &HttpServer, method: &str, name: Option<&str>, params: Value) -> Value {
    let r: HttpReply = s.post(&headers(method, name), &body(method, params));
    r.response()
        .unwrap_or_else(|| panic!("no response to {method}: {}", r.text()))
}

fn call(s: &HttpServer, tool: &str, arguments: Value) -> Value {
    rpc(
        s,
        "tools/call",
        Some(tool),
        json!({"name": tool, "arguments": arguments}),
    )
}

fn create(s: &HttpServer, tool: &str, arguments: Value) -> String {
    let r = call(s, tool, arguments);
    assert_eq!(r["result"]["resultType"], "task", "{r}");
    r["result"]["taskId"].as_str().unwrap().to_owned()
}

fn task(s: &HttpServer, method: &str, id: &str, extra: Value) -> Value {
    let mut params = json!({ "taskId": id });
    if let (Value::Object(p), Value::Object(e)) = (&mut params, extra) {
        p.extend(e);
    }
    rpc(s, method, Some(id), params)
}

/// Polls `tasks/get` on `s` until the task shows `status` (at most 15 s).
fn poll(s: &HttpServer, id: &str, status: &str) -> Value {
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        let r = task(s, "tasks/get", id, json!({}));
        if r["result"]["status"] == status {
            return r["result"].clone();
        }
        assert!(
            Instant::now() < deadline,
            "task {id} never reached {status}: {r}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A `subscriptions/listen` stream on `s`, its acknowledgment read.
fn listen(s: &HttpServer, notifications: Value) -> Stream {
    let b = body(
        "subscriptions/listen",
        json!({ "notifications": notifications }),
    );
    let mut h = vec![
        ("Accept", "application/json, text/event-stream"),
        ("Content-Type", "application/json"),
    ];
    h.extend(headers("subscriptions/listen", None));
    let mut stream = Stream::open(&s.addr, "POST", &h, &b);
    assert_eq!(stream.status, 200);
    let ack = stream.message();
    assert_eq!(
        ack["method"], "notifications/subscriptions/acknowledged",
        "{ack}"
    );
    stream
}

/// Waits until `s` has logged `needle` (at most 10 s; each line read wakes the wait).
fn logged(s: &HttpServer, needle: &str) -> bool {
    s.wait_logged(needle, Duration::from_secs(10))
}

#[test]
fn replicas_share_tasks_and_events_through_redis() {
    let Some(redis) = Redis::start("share") else {
        return;
    };
    let (a, b, c) = (replica(&redis), replica(&redis), replica(&redis));

    // Created on A, read on B: durable before the response, visible everywhere,
    // progress in words included (set by the work on A once it starts).
    let slow = create(&a, "slow_compute", json!({"seconds": 30}));
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let t = poll(&b, &slow, "working");
        if t["statusMessage"] == "Computing for 30 s." {
            break;
        }
        assert!(Instant::now() < deadline, "{t}");
        std::thread::sleep(Duration::from_millis(20));
    }

    // A listener on C names the task; cancelling it on C stops the work on A (C
    // publishes the command, A aborts), and the listener hears the change.
    let mut heard = listen(&c, json!({ "taskIds": [slow] }));
    let r = task(&c, "tasks/cancel", &slow, json!({}));
    assert_eq!(r["result"]["resultType"], "complete", "{r}");
    assert_eq!(poll(&b, &slow, "cancelled")["status"], "cancelled");
    assert!(
        logged(
            &a,
            &format!("task {slow}: cancelled on another replica; its work here stopped")
        ),
        "A did not stop the work: {}",
        a.logged()
    );
    // The work's last `working` change (its statusMessage) travels the bus too, and
    // may reach C after the listener was opened: skip it; `cancelled` must follow.
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let n = heard.message();
        assert_eq!(n["method"], "notifications/tasks", "{n}");
        assert_eq!(n["params"]["taskId"].as_str(), Some(&*slow), "{n}");
        if n["params"]["status"] == "cancelled" {
            break;
        }
        assert_eq!(n["params"]["status"], "working", "{n}");
        assert!(Instant::now() < deadline, "no cancelled notification");
    }

    // A question asked by work on A, answered on B: the answer reaches A's work.
    let asking = create(&a, "confirm_delete", json!({"filename": "x"}));
    let mut heard = listen(&c, json!({ "taskIds": [asking] }));
    let waiting = poll(&b, &asking, "input_required");
    let key = waiting["inputRequests"]
        .as_object()
        .unwrap()
        .keys()
        .next()
        .unwrap()
        .clone();
    let answer = json!({"action": "accept", "content": {"confirm": true}});
    task(
        &b,
        "tasks/update",
        &asking,
        json!({"inputResponses": { key: answer }}),
    );
    let done = poll(&c, &asking, "completed");
    assert_eq!(
        done["result"]["content"][0]["text"], "Deleted x. (A fixture: nothing was deleted.)",
        "{done}"
    );
    assert!(
        logged(&a, &format!("task {asking}: answered on another replica")),
        "{}",
        a.logged()
    );
    // C's listener heard the task, run on A, move: working → completed at the end.
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let n = heard.message();
        assert_eq!(n["method"], "notifications/tasks", "{n}");
        if n["params"]["status"] == "completed" {
            break;
        }
        assert!(Instant::now() < deadline);
    }

    // A list change announced on B reaches a modern listener on A, and only once,
    // and a legacy session's GET stream on C.
    let mut tools = listen(&a, json!({ "toolsListChanged": true }));
    let session = c.open_session("2025-11-25");
    let get = [
        ("Accept", "text/event-stream"),
        ("Mcp-Session-Id", session.as_str()),
        ("MCP-Protocol-Version", "2025-11-25"),
    ];
    let mut legacy = Stream::open(&c.addr, "GET", &get, "");
    assert_eq!(legacy.status, 200);
    call(&b, "test_trigger_tool_change", json!({}));
    let n = tools.message();
    assert_eq!(n["method"], "notifications/tools/list_changed", "{n}");
    let n = legacy.message();
    assert_eq!(n["method"], "notifications/tools/list_changed", "{n}");
    assert!(matches!(
        tools.next_within(Duration::from_millis(500)),
        common::http_client::Next::Quiet
    ));

    // A replica dies (SIGKILL: no goodbye): its finished task stays readable on the
    // others, its running one turns failed once the lease (1 s) has lapsed.
    let finished = create(&a, "slow_compute", json!({"seconds": 0.1}));
    poll(&b, &finished, "completed");
    let running = create(&a, "slow_compute", json!({"seconds": 60}));
    poll(&c, &running, "working");
    let killed = Command::new("kill")
        .args(["-9", &a.pid().to_string()])
        .status();
    assert!(killed.is_ok_and(|s| s.success()));
    assert_eq!(poll(&b, &finished, "completed")["status"], "completed");
    let failed = poll(&c, &running, "failed");
    let message = failed["statusMessage"].as_str().unwrap();
    // A's replica id, from its log line `… (keys mcp-raw:*, replica ID, task lease …`.
    let log = a.logged();
    let replica_a = log
        .split("replica ")
        .nth(1)
        .and_then(|r| r.split(',').next())
        .unwrap_or_else(|| panic!("no replica id in {log}"));
    assert_eq!(
        message,
        format!(
            "The replica running this task ({replica_a}) stopped: its lease of 1000 ms lapsed without renewal (serve --task-lease)."
        )
    );
    assert_eq!(failed["error"]["code"], -32603);
    drop(a);
}

#[test]
fn a_bad_or_unreachable_store_stops_the_server_before_it_listens() {
    let free = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let dead = format!("redis://127.0.0.1:{}", free.local_addr().unwrap().port());
    drop(free);
    let dead_port = dead.rsplit(':').next().unwrap();
    for (value, says) in [
        (
            "http://127.0.0.1:6379",
            "mcp-raw: --store \"http://127.0.0.1:6379\": only redis://HOST:PORT[/DB] or rediss://HOST:PORT[/DB] (TLS) is supported\n".to_owned(),
        ),
        (
            "redis://127.0.0.1",
            "mcp-raw: --store \"redis://127.0.0.1\": the port is missing (redis://HOST:PORT)\n".to_owned(),
        ),
        (
            dead.as_str(),
            format!(
                "mcp-raw: --store {dead}: Redis at 127.0.0.1:{dead_port}: cannot connect to 127.0.0.1:{dead_port}: Connection refused (os error 111)\n"
            ),
        ),
    ] {
        // A bad store stops the CLI before it listens (stderr, exit status).
        let out = cli_here([
            "serve",
            "--http",
            "--port",
            "0",
            "--fixture",
            "conformance",
            "--store",
            value,
        ]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{value}: {err}");
        // The whole of stderr: the one error line, quoting the value, and no
        // "listening" line before it.
        assert_eq!(err, says, "{value}");
    }
    // A bad lease stops the CLI before it listens (stderr, exit status).
    let out = cli_here([
        "serve",
        "--http",
        "--fixture",
        "conformance",
        "--store",
        "redis://127.0.0.1:1",
        "--task-lease",
        "0",
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert_eq!(
        err,
        "mcp-raw: --task-lease 0: a lease must last at least 0.1 s\n"
    );
    // A bad store stops the CLI before it listens (stderr, exit status).
    let out = cli_here(["serve", "--http", "--store", "redis://u:hunter2@h:1"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    // The whole of stderr: the URL's secret is not in it.
    assert_eq!(
        err,
        "mcp-raw: --store redis://…@…: a user or password in the URL is not supported (the value is not printed); put them in a file given to --store-auth-file\n"
    );
}

#[test]
fn without_redis_a_request_gets_an_error_quoting_it_and_the_server_recovers() {
    let Some(redis) = Redis::start("outage") else {
        return;
    };
    let port = redis.port;
    let url = redis.url();
    // The server survives Redis going away, its own store trace on stderr: a process.
    let s = HttpServer::start(&[
        "--fixture",
        "conformance",
        "--store",
        &url,
        "--store-trace",
        "--metrics",
        "127.0.0.1:0",
    ]);
    let before = create(&s, "slow_compute", json!({"seconds": 0.1}));
    poll(&s, &before, "completed");
    // --metrics counts the store's failures: none yet.
    assert!(
        s.wait_logged("Prometheus metrics at http://", Duration::from_secs(5)),
        "{}",
        s.logged()
    );
    let log = s.logged();
    let metrics = log.split("Prometheus metrics at http://").nth(1).unwrap();
    let metrics = metrics.split('/').next().unwrap().to_owned();
    let store_errors = || -> f64 {
        use std::io::{Read, Write};
        let mut c = TcpStream::connect(&metrics).unwrap();
        c.write_all(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
            .unwrap();
        let mut text = String::new();
        c.read_to_string(&mut text).unwrap();
        text.lines()
            .find_map(|l| l.strip_prefix("mcp_raw_store_errors_total ")?.parse().ok())
            .unwrap_or_else(|| panic!("no mcp_raw_store_errors_total in {text}"))
    };
    assert_eq!(store_errors(), 0.0);
    // --store-trace: Redis's bytes as they crossed, CR and LF escaped.
    let trace = s.logged();
    assert!(trace.contains(r"[redis cmd] < +OK\r\n"), "{trace}");
    assert!(
        trace.contains(r#"\r\n{"status":"working","createdAt":"#),
        "{trace}"
    );
    assert!(
        trace.contains(&format!(r"$4\r\nMGET\r\n$49\r\nmcp-raw:task:{before}")),
        "{trace}"
    );
    // Redis goes away: the request gets -32603 quoting the store, nothing crashes.
    drop(redis);
    let r = task(&s, "tasks/get", &before, json!({}));
    assert_eq!(r["error"]["code"], -32603, "{r}");
    let message = r["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("shared task store failed")
            && message.contains(&format!("127.0.0.1:{port}")),
        "{message}"
    );
    let r = call(&s, "slow_compute", json!({"seconds": 1}));
    assert_eq!(r["error"]["code"], -32603, "{r}");
    // Both refused requests counted (and the bus's subscription going down, maybe).
    assert!(store_errors() >= 2.0);
    // Back (empty: no persistence): the next command reconnects; the bus too.
    let _again = Redis::start_on("outage-again", port).unwrap();
    let after = create(&s, "slow_compute", json!({"seconds": 0.1}));
    poll(&s, &after, "completed");
    assert!(logged(&s, "reconnecting"), "{}", s.logged());
    let mut heard = listen(&s, json!({ "toolsListChanged": true }));
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        // The bus reconnects on its own backoff: announce until it hears.
        call(&s, "test_trigger_tool_change", json!({}));
        if let common::http_client::Next::Event(e) = heard.next_within(Duration::from_millis(500)) {
            assert_eq!(
                common::http_client::json_of(&e)["method"],
                "notifications/tools/list_changed"
            );
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the bus never came back: {}",
            s.logged()
        );
    }
}

/// Without `redis-server`, the tests above must not pass silently: this runs one of
/// them again (this test binary, that test only) with a `PATH` that holds nothing.
/// Under `CI=true` it fails, saying why; without `CI` it passes with a `SKIP` line.
#[test]
fn without_redis_server_ci_fails_and_elsewhere_the_skip_is_said() {
    let empty = common::scratch("store", "no-path");
    let run = |ci: bool| {
        let mut command = Command::new(std::env::current_exe().expect("this test binary"));
        command
            .args([
                "--exact",
                "replicas_share_tasks_and_events_through_redis",
                "--nocapture",
                "--test-threads=1",
            ])
            .env("PATH", &empty);
        if ci {
            command.env("CI", "true");
        } else {
            command.env_remove("CI");
        }
        let out = command.output().expect("run this test binary again");
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        (out.status.success(), text)
    };
    let (passed, text) = run(true);
    assert!(
        !passed && text.contains("redis-server is not on PATH and CI is set"),
        "{text}"
    );
    let (passed, text) = run(false);
    assert!(
        passed && text.contains("SKIP store_redis (share): redis-server is not on PATH"),
        "{text}"
    );
    assert!(text.contains("1 passed"), "{text}");
}

/// A free TCP port on loopback.
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

/// A `redis-server` with a TLS port beside its plaintext one, its certificate made
/// here by a CA of the test's own (rcgen), a client certificate asked for or not
/// (`tls-auth-clients`); the default user's password is `default-s3cret`, and the
/// ACL user `app` has `app-s3cret`. Its files: `ca.pem`, `app.auth`
/// (`app:app-s3cret`), and a client certificate `me.pem` with its key `me.key`.
struct TlsRedis {
    redis: Redis,
    tls_port: u16,
    dir: std::path::PathBuf,
    /// `tls-auth-clients`: `no`, or `yes` (a client certificate is required).
    clients: &'static str,
}

impl TlsRedis {
    fn start(name: &str) -> Option<TlsRedis> {
        TlsRedis::asking(name, "no")
    }

    /// With `tls-auth-clients` set to `clients` (`yes`: a certificate is required).
    fn asking(name: &str, clients: &'static str) -> Option<TlsRedis> {
        use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, Issuer, KeyPair};
        let dir = common::scratch("store-tls", name);
        let mut ca = CertificateParams::new(Vec::<String>::new()).unwrap();
        ca.distinguished_name
            .push(DnType::CommonName, "mcp-raw store test CA");
        ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        let ca_key = KeyPair::generate().unwrap();
        std::fs::write(dir.join("ca.pem"), ca.self_signed(&ca_key).unwrap().pem()).unwrap();
        let issuer = Issuer::new(ca, ca_key);
        let mut leaf =
            CertificateParams::new(vec!["localhost".to_owned(), "127.0.0.1".to_owned()]).unwrap();
        leaf.distinguished_name
            .push(DnType::CommonName, "redis.test");
        let key = KeyPair::generate().unwrap();
        std::fs::write(
            dir.join("redis.pem"),
            leaf.signed_by(&key, &issuer).unwrap().pem(),
        )
        .unwrap();
        std::fs::write(dir.join("redis.key"), key.serialize_pem()).unwrap();
        let mut me = CertificateParams::new(Vec::<String>::new()).unwrap();
        me.distinguished_name.push(DnType::CommonName, "replica");
        me.extended_key_usages = vec![rcgen::ExtendedKeyUsagePurpose::ClientAuth];
        let key = KeyPair::generate().unwrap();
        std::fs::write(
            dir.join("me.pem"),
            me.signed_by(&key, &issuer).unwrap().pem(),
        )
        .unwrap();
        std::fs::write(dir.join("me.key"), key.serialize_pem()).unwrap();
        std::fs::write(dir.join("app.auth"), "app:app-s3cret\n").unwrap();
        TlsRedis::launch(name, dir, free_port(), free_port(), clients)
    }

    /// The same server again, on the same ports with the same files (after a stop).
    fn restart(self) -> TlsRedis {
        let (dir, port, tls_port) = (self.dir.clone(), self.redis.port, self.tls_port);
        let clients = self.clients;
        drop(self);
        TlsRedis::launch("again", dir, port, tls_port, clients).expect("redis-server again")
    }

    fn launch(
        name: &str,
        dir: std::path::PathBuf,
        port: u16,
        tls_port: u16,
        clients: &'static str,
    ) -> Option<TlsRedis> {
        let path = |f: &str| dir.join(f).to_str().unwrap().to_owned();
        let redis = Redis::start_with(
            name,
            port,
            &[
                "--tls-port",
                &tls_port.to_string(),
                "--tls-cert-file",
                &path("redis.pem"),
                "--tls-key-file",
                &path("redis.key"),
                "--tls-ca-cert-file",
                &path("ca.pem"),
                "--tls-auth-clients",
                clients,
                "--requirepass",
                "default-s3cret",
                // An ACL user (Redis 6+): any key, any channel, every command.
                "--user",
                "app",
                "on",
                ">app-s3cret",
                "~*",
                "&*",
                "+@all",
            ],
        )?;
        // Ready (above) means its TLS port listens too.
        assert!(
            TcpStream::connect(("127.0.0.1", tls_port)).is_ok(),
            "redis-server does not listen on its TLS port {tls_port}"
        );
        Some(TlsRedis {
            redis,
            tls_port,
            dir,
            clients,
        })
    }

    fn url(&self) -> String {
        format!("rediss://127.0.0.1:{}", self.tls_port)
    }

    fn path(&self, file: &str) -> String {
        self.dir.join(file).to_str().unwrap().to_owned()
    }

    /// `serve --http --fixture conformance --store rediss://… --store-cacert ca.pem`
    /// and `extra`, run to its end (it is expected to refuse to start).
    fn serve_fails(&self, url: &str, extra: &[&str]) -> (Option<i32>, String) {
        let out = Command::new("timeout")
            .args(["30", BIN, "serve", "--http", "--port", "0"])
            .args(["--fixture", "conformance", "--store", url])
            .args(["--store-timeout", "2"])
            .args(extra)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(!err.contains("listening"), "{err}");
        (out.status.code(), err)
    }
}

#[test]
fn replicas_share_tasks_over_tls_as_an_acl_user() {
    let Some(redis) = TlsRedis::start("share") else {
        return;
    };
    let args = |trace: bool| {
        let mut a = vec![
            "--fixture".to_owned(),
            "conformance".to_owned(),
            "--store".to_owned(),
            redis.url(),
            "--store-cacert".to_owned(),
            redis.path("ca.pem"),
            "--store-auth-file".to_owned(),
            redis.path("app.auth"),
            "--task-lease".to_owned(),
            "1".to_owned(),
        ];
        if trace {
            a.push("--store-trace".to_owned());
        }
        a
    };
    let start = |trace: bool| {
        let a = args(trace);
        // The CLI's --store-* flags and its 'shared through … AUTH as' line, each replica's own trace: processes.
        HttpServer::start(&a.iter().map(String::as_str).collect::<Vec<_>>())
    };
    let (a, b) = (start(true), start(false));
    assert!(
        logged(&a, &format!("shared through {}", redis.url())) && logged(&a, "AUTH as \"app\""),
        "{}",
        a.logged()
    );
    // Created on A, finished and read on B: the records crossed Redis over TLS.
    let id = create(&a, "slow_compute", json!({"seconds": 0.2}));
    let done = poll(&b, &id, "completed");
    assert!(done.get("result").is_some(), "{done}");
    // A listener on B hears a change announced on A: the bus is TLS too.
    let mut heard = listen(&b, json!({ "toolsListChanged": true }));
    call(&a, "test_trigger_tool_change", json!({}));
    match heard.next_within(Duration::from_secs(10)) {
        common::http_client::Next::Event(e) => assert_eq!(
            common::http_client::json_of(&e)["method"],
            "notifications/tools/list_changed"
        ),
        _ => panic!("B never heard A's change over the TLS bus"),
    }
    // The trace: the handshake's facts, then the plaintext RESP as before; AUTH's
    // password is never shown.
    let trace = a.logged();
    assert!(
        trace.contains("[redis cmd] TLS TLSv1.3") && trace.contains("[redis bus] TLS TLSv1.3"),
        "{trace}"
    );
    assert!(trace.contains("CN=redis.test"), "{trace}");
    assert!(
        trace.contains(
            r"[redis cmd] > *3\r\n$4\r\nAUTH\r\n$3\r\napp\r\n(the password is not shown)"
        ),
        "{trace}"
    );
    assert!(trace.contains(r"[redis cmd] < +OK\r\n"), "{trace}");
    assert!(!trace.contains("app-s3cret") && !b.logged().contains("app-s3cret"));

    // Redis restarts (empty): the first command meets the dropped connection (-32603
    // quoting it); the next reconnects, over TLS, and sends AUTH again.
    let redis = redis.restart();
    let r = task(&a, "tasks/get", &id, json!({}));
    assert_eq!(r["error"]["code"], -32603, "{r}");
    let again = create(&a, "slow_compute", json!({"seconds": 0.1}));
    assert_eq!(poll(&b, &again, "completed")["status"], "completed");
    let trace = a.logged();
    assert_eq!(
        trace.matches("[redis cmd] TLS TLSv1.3").count(),
        2,
        "one handshake at start, one after the restart: {trace}"
    );
    assert_eq!(
        trace
            .matches(r"[redis cmd] > *3\r\n$4\r\nAUTH\r\n$3\r\napp\r\n(the password is not shown)")
            .count(),
        2,
        "{trace}"
    );
    drop(redis);
}

#[test]
fn a_wrong_password_a_missing_one_and_the_wrong_port_are_clear_errors() {
    let Some(redis) = TlsRedis::start("errors") else {
        return;
    };
    let url = redis.url();
    let ca = redis.path("ca.pem");

    // A wrong password: Redis's own refusal, the user and the file named; exit 1.
    let wrong = redis.dir.join("wrong.auth");
    std::fs::write(&wrong, "app:not-it\n").unwrap();
    let (code, err) = redis.serve_fails(
        &url,
        &[
            "--store-cacert",
            &ca,
            "--store-auth-file",
            wrong.to_str().unwrap(),
        ],
    );
    assert_eq!(code, Some(1), "{err}");
    // The whole of stderr (the password itself is not in it).
    let at = url.trim_start_matches("rediss://");
    assert_eq!(
        err,
        format!(
            "mcp-raw: --store {url}: Redis at {at} refused AUTH as user \"app\" with the password in --store-auth-file {}: \"-WRONGPASS invalid username-password pair or user is disabled.\"\n",
            wrong.display()
        )
    );

    // No password where Redis wants one: NOAUTH, and the flag to give.
    let (code, err) = redis.serve_fails(&url, &["--store-cacert", &ca]);
    assert_eq!(code, Some(1), "{err}");
    assert_eq!(
        err,
        format!(
            "mcp-raw: --store {url}: Redis at {at} answered \"-NOAUTH Authentication required.\": Redis requires a password; put user:password (or password) in a file and give it to --store-auth-file\n"
        )
    );

    // The default user's password alone (no `user:`) is AUTH's one-argument form.
    let default = redis.dir.join("default.auth");
    std::fs::write(&default, "default-s3cret").unwrap();
    // The CLI's 'AUTH as the default user' line on stderr: a process.
    let ok = HttpServer::start(&[
        "--fixture",
        "conformance",
        "--store",
        &url,
        "--store-cacert",
        &ca,
        "--store-auth-file",
        default.to_str().unwrap(),
    ]);
    assert!(logged(&ok, "AUTH as the default user"), "{}", ok.logged());
    drop(ok);

    // Plaintext to the TLS port: said, with the scheme to use.
    let auth = redis.path("app.auth");
    let plain_to_tls = format!("redis://127.0.0.1:{}", redis.tls_port);
    let (code, err) = redis.serve_fails(&plain_to_tls, &["--store-auth-file", &auth]);
    assert_eq!(code, Some(1), "{err}");
    assert_eq!(
        err,
        format!(
            "mcp-raw: --store {plain_to_tls}: Redis at {at}: Redis reset the connection before its first reply: is it a TLS port? Then use rediss://\n"
        )
    );

    // TLS to the plaintext port: said, with the scheme to use.
    let tls_to_plain = format!("rediss://127.0.0.1:{}", redis.redis.port);
    let (code, err) = redis.serve_fails(
        &tls_to_plain,
        &["--store-cacert", &ca, "--store-auth-file", &auth],
    );
    assert_eq!(code, Some(1), "{err}");
    let plain_at = tls_to_plain.trim_start_matches("rediss://");
    assert_eq!(
        err,
        format!(
            "mcp-raw: --store {tls_to_plain}: Redis at {plain_at}: no TLS handshake with {plain_at} within 2s: is it a plaintext port? Then use redis://\n"
        )
    );

    // Without the CA: the certificate is refused, named, and the flag suggested.
    let (code, err) = redis.serve_fails(&url, &["--store-auth-file", &auth]);
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains("was refused")
            && err.contains("CN=redis.test")
            && err.contains("--store-cacert FILE"),
        "{err}"
    );

    // Unreadable files are usage errors (exit 2), named.
    let missing = redis.dir.join("missing.auth");
    let (code, err) = redis.serve_fails(&url, &["--store-auth-file", missing.to_str().unwrap()]);
    assert_eq!(code, Some(2), "{err}");
    assert_eq!(
        err,
        format!(
            "mcp-raw: --store-auth-file {}: cannot read it: No such file or directory (os error 2)\n",
            missing.display()
        )
    );
    let (code, err) = redis.serve_fails(&url, &["--store-cacert", &auth]);
    assert_eq!(code, Some(2), "{err}");
    assert_eq!(
        err,
        format!("mcp-raw: --store-cacert {auth}: no \"-----BEGIN CERTIFICATE-----\" in it\n")
    );
    let (code, err) = redis.serve_fails(&plain_to_tls, &["--store-cacert", &ca]);
    assert_eq!(code, Some(2), "{err}");
    assert_eq!(
        err,
        format!("mcp-raw: --store-cacert is for rediss:// (TLS); {plain_to_tls} is plaintext\n")
    );
}

#[test]
fn a_redis_that_asks_for_a_client_certificate_gets_store_cert() {
    let Some(redis) = TlsRedis::asking("mtls", "yes") else {
        return;
    };
    let (url, ca, auth) = (redis.url(), redis.path("ca.pem"), redis.path("app.auth"));
    let base = [
        "--store-cacert",
        ca.as_str(),
        "--store-auth-file",
        auth.as_str(),
    ];
    // Without one: Redis's refusal (a TLS alert, after a TLS 1.3 handshake), and the
    // flags that present one.
    let (code, err) = redis.serve_fails(&url, &base);
    assert_eq!(code, Some(1), "{err}");
    let at = url.trim_start_matches("rediss://");
    assert_eq!(
        err,
        format!(
            "mcp-raw: --store {url}: Redis at {at}: TLS: Redis ended the connection with the alert CertificateRequired: it requires a client certificate (--store-cert FILE --store-key FILE)\n"
        )
    );
    // Half of it is a usage error.
    let me = redis.path("me.pem");
    let mut half = base.to_vec();
    half.extend(["--store-cert", me.as_str()]);
    let (code, err) = redis.serve_fails(&url, &half);
    assert_eq!(code, Some(2), "{err}");
    assert_eq!(
        err,
        "mcp-raw: --store-cert needs --store-key (the certificate's private key)\n"
    );
    // With it: served, and a task goes through Redis.
    let key = redis.path("me.key");
    let mut args = vec!["--fixture", "conformance", "--store", url.as_str()];
    args.extend(base);
    args.extend(["--store-cert", me.as_str(), "--store-key", key.as_str()]);
    // The CLI's --store-cert/--store-key read from files: a process.
    let s = HttpServer::start(&args);
    let id = create(&s, "slow_compute", json!({"seconds": 0.1}));
    assert_eq!(poll(&s, &id, "completed")["status"], "completed");
}
