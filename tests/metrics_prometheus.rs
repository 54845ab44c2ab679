//! The real Prometheus (Debian's `prometheus` package) scrapes `serve --http
//! --metrics` every second while `mcp-raw load` runs against the server; its HTTP API
//! (`/api/v1/query`) then gives back the counts the load made, exactly, and shows a
//! scrape taken mid-load. Skipped with a message when `prometheus` is not installed,
//! a failure under CI (`.ci/run` installs it).

mod common;

use common::cli_inproc::cli_here;
use common::{HttpServer, missing_program};
use serde_json::Value;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Clients, and the calls they make in all, paced so the run spans several scrapes.
const CLIENTS: usize = 4;
const CALLS: usize = 300;
const RATE: &str = "100";

/// Prometheus, killed on drop.
struct Prometheus(Child);

impl Drop for Prometheus {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A port free a moment ago: Prometheus takes no port 0 (`--web.listen-address`).
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A GET on `addr`; status and body.
fn get(addr: &str, target: &str) -> Option<(u16, String)> {
    let mut s = TcpStream::connect(addr).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(10))).ok()?;
    write!(
        s,
        "GET {target} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    )
    .ok()?;
    let mut out = Vec::new();
    s.read_to_end(&mut out).ok()?;
    let text = String::from_utf8_lossy(&out).into_owned();
    let status = text.split(' ').nth(1)?.parse().ok()?;
    let (head, body) = text.split_once("\r\n\r\n")?;
    // Prometheus answers its API with chunked bodies: de-chunked here.
    let body = if head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        let mut rest = body;
        let mut whole = String::new();
        while let Some((size, after)) = rest.split_once("\r\n") {
            let n = usize::from_str_radix(size.trim(), 16).ok()?;
            if n == 0 {
                break;
            }
            whole.push_str(after.get(..n)?);
            rest = after.get(n + 2..)?;
        }
        whole
    } else {
        body.to_owned()
    };
    Some((status, body))
}

/// RFC 3986 percent-encoding of a query's value (all but unreserved characters).
fn encode(q: &str) -> String {
    q.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// `/api/v1/query?query=Q`: the result array.
fn query(prom: &str, q: &str) -> Vec<Value> {
    let (status, body) = get(prom, &format!("/api/v1/query?query={}", encode(q)))
        .unwrap_or_else(|| panic!("no answer from Prometheus to {q}"));
    assert_eq!(status, 200, "{q}: {body}");
    let v: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(v["status"], "success", "{body}");
    v["data"]["result"].as_array().unwrap().clone()
}

/// An instant vector query's one value, if it has one sample.
fn scalar(prom: &str, q: &str) -> Option<f64> {
    let r = query(prom, q);
    match r.as_slice() {
        [one] => one["value"][1].as_str()?.parse().ok(),
        _ => None,
    }
}

/// Waits until `q` reads `want` (Prometheus has scraped since), within 20 s.
fn wait_for(prom: &str, q: &str, want: f64) {
    let end = Instant::now() + Duration::from_secs(20);
    while scalar(prom, q) != Some(want) {
        assert!(
            Instant::now() < end,
            "{q}: {:?} after 20 s, expected {want}",
            query(prom, q)
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

#[test]
fn prometheus_scrapes_a_load_and_its_api_gives_the_counts() {
    let test = "prometheus_scrapes_a_load_and_its_api_gives_the_counts";
    if Command::new("prometheus")
        .arg("--version")
        .output()
        .is_err()
    {
        return missing_program(test, "prometheus", "apt-get install prometheus");
    }
    let server = HttpServer::start(&["--metrics", "127.0.0.1:0", "--max-body-bytes", "2000"]);
    let log = server.logged();
    let metrics = log
        .split("Prometheus metrics at http://")
        .nth(1)
        .and_then(|r| r.split('/').next())
        .unwrap_or_else(|| panic!("no metrics address in {log}"))
        .to_owned();
    let dir = std::env::temp_dir().join(format!("mcp-raw-prometheus-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let config = dir.join("prometheus.yml");
    std::fs::write(
        &config,
        format!(
            "global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\nscrape_configs:\n  - job_name: mcp-raw\n    static_configs:\n      - targets: ['{metrics}']\n"
        ),
    )
    .unwrap();
    let prom = format!("127.0.0.1:{}", free_port());
    // Prometheus is a program of its own: a process.
    let _prometheus = Prometheus(
        Command::new("prometheus")
            .arg(format!("--config.file={}", config.display()))
            .arg(format!(
                "--storage.tsdb.path={}",
                dir.join("tsdb").display()
            ))
            .arg(format!("--web.listen-address={prom}"))
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(dir.join("prometheus.log")).unwrap())
            .spawn()
            .unwrap(),
    );
    let end = Instant::now() + Duration::from_secs(30);
    while get(&prom, "/-/ready").map(|r| r.0) != Some(200) {
        assert!(
            Instant::now() < end,
            "Prometheus not ready in 30 s: {}",
            std::fs::read_to_string(dir.join("prometheus.log")).unwrap_or_default()
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    wait_for(&prom, "up{job=\"mcp-raw\"}", 1.0);

    // One body over --max-body-bytes: a 413 to count.
    let big = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"ping","params":{{"pad":"{}"}}}}"#,
        "x".repeat(3000)
    );
    let r = common::http_client::exchange(
        &server.addr,
        &common::http_client::request_bytes(
            &server.addr,
            "POST",
            &[
                ("Accept", "application/json, text/event-stream"),
                ("Content-Type", "application/json"),
            ],
            &big,
        ),
    );
    assert_eq!(r.status, 413);

    let url = format!("http://{}/mcp", server.addr);
    let run = cli_here([
        "load",
        "--clients",
        &CLIENTS.to_string(),
        "--requests",
        &CALLS.to_string(),
        "--rate",
        RATE,
        "--era",
        "legacy",
        "--call",
        r#"echo={"message":"hi"}"#,
        "--quiet",
        &url,
    ]);
    assert!(run.ok(), "{}", String::from_utf8_lossy(&run.stderr));

    let calls = "mcp_raw_requests_total{method=\"tools/call\",outcome=\"ok\"}";
    wait_for(&prom, calls, CALLS as f64);
    assert_eq!(
        scalar(
            &prom,
            "mcp_raw_requests_total{method=\"initialize\",outcome=\"ok\"}"
        ),
        Some(CLIENTS as f64)
    );
    assert_eq!(
        scalar(
            &prom,
            "mcp_raw_request_duration_seconds_count{method=\"tools/call\"}"
        ),
        Some(CALLS as f64)
    );
    assert_eq!(
        scalar(
            &prom,
            "mcp_raw_request_duration_seconds_bucket{method=\"tools/call\",le=\"+Inf\"}"
        ),
        Some(CALLS as f64)
    );
    assert_eq!(
        scalar(&prom, "mcp_raw_limit_refusals_total{status=\"413\"}"),
        Some(1.0)
    );
    assert_eq!(
        scalar(&prom, "mcp_raw_sessions_issued_total"),
        Some(CLIENTS as f64)
    );
    assert_eq!(scalar(&prom, "mcp_raw_dropped_events_total"), Some(0.0));
    // A scrape taken while the load ran: a sample strictly between none and all.
    let samples = query(&prom, &format!("{calls}[5m]"));
    let values: Vec<f64> = samples[0]["values"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v[1].as_str().unwrap().parse().unwrap())
        .collect();
    assert!(
        values.iter().any(|v| *v > 0.0 && *v < CALLS as f64),
        "no scrape during the load: {values:?}"
    );
    eprintln!("Prometheus's samples of {calls}: {values:?}");
    let _ = std::fs::remove_dir_all(&dir);
}
