//! The servers under test ("peers") and how each is started: a command line for
//! stdio, one for HTTP with `{port}` in it. The table of peers lives in
//! `bench/peers.txt`, written by `bench/run`, one peer per line:
//!
//! ```text
//! name <TAB> eras <TAB> stdio command <TAB> http command
//! ```
//!
//! `eras` is `legacy`, `modern` or `legacy,modern`: what the peer claims; the
//! generator checks the claim on the wire before measuring (a 2026-07-28 answer
//! must carry `resultType`). `-` for a command the peer does not have.

use crate::cpu::{self, Placement};
use crate::messages::Era;
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::os::unix::process::CommandExt;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

/// One server to measure.
#[derive(Clone, Debug)]
pub struct Peer {
    /// Its name in the table ("floor", "mcp-raw", "rmcp", ...).
    pub name: String,
    /// Whether this is a floor (answers without MCP; not checked for MCP answers).
    pub floor: bool,
    /// The eras it is measured in.
    pub eras: Vec<Era>,
    /// argv for stdio, or empty.
    pub stdio: Vec<String>,
    /// argv for HTTP with `{port}` to fill in, or empty.
    pub http: Vec<String>,
}

/// Reads the peer table.
pub fn load(path: &str) -> Result<Vec<Peer>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    let mut peers = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let cols: Vec<&str> = line.split('\t').collect();
        let [name, eras, stdio, http] = cols[..] else {
            return Err(format!(
                "{path}:{}: want 4 tab-separated columns, got {line:?}",
                n + 1
            ));
        };
        let argv = |c: &str| -> Vec<String> {
            if c == "-" {
                Vec::new()
            } else {
                c.split(' ').map(str::to_owned).collect()
            }
        };
        let mut parsed = Vec::new();
        for e in eras.split(',') {
            parsed.push(match e {
                "legacy" => Era::Legacy,
                "modern" => Era::Modern,
                other => return Err(format!("{path}:{}: unknown era {other:?}", n + 1)),
            });
        }
        peers.push(Peer {
            name: name.to_owned(),
            floor: name.starts_with("floor"),
            eras: parsed,
            stdio: argv(stdio),
            http: argv(http),
        });
    }
    Ok(peers)
}

/// A running stdio peer: its pipes, line-buffered.
pub struct StdioProc {
    /// The process (killed on drop).
    pub child: Child,
    /// Its stdin: where requests go (`None` once closed, the stdio shutdown).
    stdin: Option<ChildStdin>,
    /// Its stdout: where answers come from.
    pub stdout: BufReader<ChildStdout>,
}

impl StdioProc {
    /// Starts `argv` with piped stdin/stdout (stderr discarded), placed as told.
    pub fn spawn(argv: &[String], placement: Placement) -> Result<StdioProc, String> {
        let mut command = Command::new(&argv[0]);
        cpu::place(&mut command, placement)?;
        let mut child = command
            .args(&argv[1..])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()
            .map_err(|e| format!("spawn {}: {e}", argv[0]))?;
        let stdin = child.stdin.take().ok_or("no stdin")?;
        let stdout = BufReader::with_capacity(256 * 1024, child.stdout.take().ok_or("no stdout")?);
        Ok(StdioProc {
            child,
            stdin: Some(stdin),
            stdout,
        })
    }

    /// The process id, for /proc.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Writes `bytes` to its stdin in one write.
    pub fn send(&mut self, bytes: &[u8]) -> Result<(), String> {
        let stdin = self.stdin.as_mut().ok_or("stdin is closed")?;
        stdin.write_all(bytes).map_err(|e| format!("write: {e}"))
    }

    /// Writes one message and its `\n`.
    pub fn send_line(&mut self, message: &str) -> Result<(), String> {
        self.send(format!("{message}\n").as_bytes())
    }

    /// Closes stdin (the stdio transport's shutdown, 2025-11-25 `basic/lifecycle`) and
    /// waits up to `within` for the process to exit.
    pub fn finish(&mut self, within: Duration) -> Result<(), String> {
        self.stdin = None;
        let deadline = Instant::now() + within;
        while self.child.try_wait().map_err(|e| e.to_string())?.is_none() {
            if Instant::now() > deadline {
                return Err(format!(
                    "the server did not exit within {within:?} of stdin closing"
                ));
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        Ok(())
    }

    /// Reads one line (one message) into `line`.
    pub fn read_line(&mut self, line: &mut Vec<u8>) -> Result<(), String> {
        line.clear();
        match self.stdout.read_until(b'\n', line) {
            Ok(0) => Err("the peer closed stdout".into()),
            Ok(_) => Ok(()),
            Err(e) => Err(format!("read: {e}")),
        }
    }
}

impl Drop for StdioProc {
    fn drop(&mut self) {
        stop(&mut self.child);
    }
}

/// Kills a peer's whole process group (it was started as the group's leader), then
/// reaps the leader.
fn stop(child: &mut Child) {
    let _ = Command::new("kill")
        .args(["-KILL", "--", &format!("-{}", child.id())])
        .stderr(Stdio::null())
        .status();
    let _ = child.kill();
    let _ = child.wait();
}

/// A running HTTP peer.
pub struct HttpProc {
    /// The process (killed on drop).
    pub child: Child,
    /// `127.0.0.1:PORT`.
    pub addr: String,
}

impl HttpProc {
    /// Picks a free port, starts `argv` with it (placed as told), and waits (up to
    /// 20 s) until the port accepts connections.
    pub fn spawn(argv: &[String], placement: Placement) -> Result<HttpProc, String> {
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map_err(|e| format!("free port: {e}"))?
            .port();
        let argv: Vec<String> = argv
            .iter()
            .map(|a| a.replace("{port}", &port.to_string()))
            .collect();
        let mut command = Command::new(&argv[0]);
        cpu::place(&mut command, placement)?;
        let mut child = command
            .args(&argv[1..])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()
            .map_err(|e| format!("spawn {}: {e}", argv[0]))?;
        let addr = format!("127.0.0.1:{port}");
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            if TcpStream::connect(&addr).is_ok() {
                return Ok(HttpProc { child, addr });
            }
            if let Ok(Some(status)) = child.try_wait() {
                return Err(format!("{} exited ({status}) before listening", argv[0]));
            }
            if Instant::now() > deadline {
                stop(&mut child);
                return Err(format!("{} did not listen on {addr} within 20 s", argv[0]));
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// The process id, for /proc.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }
}

impl Drop for HttpProc {
    fn drop(&mut self) {
        stop(&mut self.child);
    }
}
