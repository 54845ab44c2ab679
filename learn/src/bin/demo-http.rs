//! `demo-http`: drives one Streamable HTTP session, printing every request and
//! response whole.
//!
//! - `demo-http`: spawns the learn HTTP server (this program, `demo-http serve
//!   --port 0`) and drives it;
//! - `demo-http http://127.0.0.1:3100/mcp`: drives a server already running;
//! - `demo-http -- CMD ARG…`: spawns CMD, which must print
//!   `listening on http://…/mcp` on stderr (as `mcp-raw serve --http --port 0` does);
//! - `demo-http serve [--port N] [--max-body-bytes N] [--max-sessions N]
//!   [--idle-secs N] [--max-connections N] [--conformance-tools]`: be the HTTP
//!   server (port 3100 by default); `--conformance-tools` adds the two tools the
//!   official suite calls.

use learn::http::Limits;
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let command = match args.first().map(String::as_str) {
        Some("serve") => return serve(&args[1..]),
        Some(url) if url.starts_with("http://") && args.len() == 1 => return drive(url),
        Some("--") if args.len() > 1 => args[1..].to_vec(),
        None => match std::env::current_exe() {
            Ok(me) => vec![me.display().to_string(), "serve".into(), "--port".into(), "0".into()],
            Err(e) => fail(&format!("cannot find this program to spawn it: {e}")),
        },
        _ => usage(),
    };
    let (program, rest) = command.split_first().unwrap_or_else(|| usage());
    let mut child = Command::new(program)
        .args(rest)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| fail(&format!("cannot start {program}: {e}")));
    // The server says where it listens on stderr; the rest of its stderr passes on.
    let stderr = BufReader::new(child.stderr.take().unwrap_or_else(|| fail("no stderr")));
    let mut lines = stderr.lines();
    let mut url = None;
    for line in lines.by_ref() {
        let Ok(line) = line else { break };
        eprintln!("    [server stderr] {line}");
        if let Some(at) = line.find("listening on http://") {
            url = Some(line[at + "listening on ".len()..].trim().to_owned());
            break;
        }
    }
    let Some(url) = url else { fail("the server never said where it listens") };
    std::thread::spawn(move || {
        lines.map_while(Result::ok).for_each(|l| eprintln!("    [server stderr] {l}"))
    });
    println!(
        "# Spawned `{}`. One endpoint, {url}; every client message is its own POST.\n",
        command.join(" ")
    );
    let result = learn::http_client::run(&url);
    let _ = child.kill();
    let _ = child.wait();
    if let Err(e) = result {
        fail(&e);
    }
}

fn drive(url: &str) {
    if let Err(e) = learn::http_client::run(url) {
        fail(&e);
    }
}

fn serve(flags: &[String]) {
    let (mut port, mut limits) = (3100, Limits::default());
    let mut flags = flags.to_vec();
    if let Some(at) = flags.iter().position(|f| f == "--conformance-tools") {
        flags.remove(at);
        learn::tools::CONFORMANCE_TOOLS.store(true, std::sync::atomic::Ordering::Relaxed);
    }
    for pair in flags.chunks(2) {
        let [flag, value] = pair else { usage() };
        let n: u64 = value.parse().unwrap_or_else(|_| usage());
        match flag.as_str() {
            "--port" => port = u16::try_from(n).unwrap_or_else(|_| usage()),
            "--max-body-bytes" => limits.max_body = n as usize,
            "--max-sessions" => limits.max_sessions = n as usize,
            "--idle-secs" => limits.idle = std::time::Duration::from_secs(n),
            "--max-connections" => limits.max_connections = n as usize,
            _ => usage(),
        }
    }
    if let Err(e) = learn::http_server::run(port, limits) {
        fail(&format!("cannot listen on 127.0.0.1:{port}: {e}"));
    }
}

fn usage() -> ! {
    eprintln!(
        "usage: demo-http [URL | -- SERVER_CMD ARG…] | demo-http serve [--port N] [--max-body-bytes N] [--max-sessions N] [--idle-secs N] [--max-connections N] [--conformance-tools]"
    );
    std::process::exit(2)
}

fn fail(why: &str) -> ! {
    eprintln!("[learn] demo-http failed: {why}");
    std::process::exit(1)
}
