//! `floor-std`: the least a program on this machine can be, for the cold start and
//! idle memory rows: the standard library alone (no runtime, no dependency), so its
//! start is `exec`, the loader and `main`, and its memory the process's own.
//!
//! - `floor-std pipe`: for every `\n` read on stdin, one fixed line on stdout (all
//!   the lines one `read` brought answered in one `write`), as `mcp-bench floor-pipe`.
//! - `floor-std http PORT`: HTTP/1.1 on 127.0.0.1:PORT, a thread per connection,
//!   keep-alive and `TCP_NODELAY`: each request's head read to its blank line and its
//!   body by `Content-Length`, answered with the fixed body and a fixed
//!   `Mcp-Session-Id`, as `mcp-bench floor-http` (hyper) answers.
//! - `floor-std relay CMD ARG…`: the least a stdio relay can be (the tap's floor, as
//!   nginx is the HTTP tap's): CMD's stdin and stdout piped, and a thread each way
//!   copying whatever one `read` brings with one `write`, recording nothing.

use std::io::{BufRead, BufReader, Read, Write};

/// The fixed answer: shaped like an echo result, as long as a real one.
const ANSWER: &str =
    r#"{"jsonrpc":"2.0","id":0,"result":{"content":[{"type":"text","text":"hello"}]}}"#;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let done = match (args.get(1).map(String::as_str), args.get(2)) {
        (Some("pipe"), None) => pipe(),
        (Some("relay"), Some(_)) => relay(&args[2..]),
        (Some("http"), Some(port)) => match port.parse() {
            Ok(port) => http(port),
            Err(_) => Err(std::io::Error::other(format!("not a port: {port:?}"))),
        },
        _ => Err(std::io::Error::other(
            "usage: floor-std pipe | floor-std http PORT | floor-std relay CMD ARG…",
        )),
    };
    if let Err(e) = done {
        eprintln!("floor-std: {e}");
        std::process::exit(2);
    }
}

fn pipe() -> std::io::Result<()> {
    let mut stdin = std::io::stdin().lock();
    let mut stdout = std::io::stdout().lock();
    let line = format!("{ANSWER}\n");
    let (mut buf, mut out) = (vec![0u8; 64 * 1024], Vec::new());
    loop {
        let n = stdin.read(&mut buf)?;
        if n == 0 {
            return Ok(());
        }
        let lines = buf[..n].iter().filter(|&&b| b == b'\n').count();
        if lines > 0 {
            out.clear();
            for _ in 0..lines {
                out.extend_from_slice(line.as_bytes());
            }
            stdout.write_all(&out)?;
            stdout.flush()?;
        }
    }
}

fn relay(command: &[String]) -> std::io::Result<()> {
    let mut child = std::process::Command::new(&command[0])
        .args(&command[1..])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()?;
    let (mut to_server, mut from_server) = match (child.stdin.take(), child.stdout.take()) {
        (Some(i), Some(o)) => (i, o),
        _ => return Err(std::io::Error::other("no pipes to the server")),
    };
    let up = std::thread::spawn(move || copy(&mut std::io::stdin().lock(), &mut to_server));
    copy(&mut from_server, &mut std::io::stdout().lock())?;
    let _ = up.join();
    child.wait()?;
    Ok(())
}

/// Bytes from `from` to `to`, each read written and flushed whole, until EOF.
fn copy(from: &mut impl Read, to: &mut impl Write) -> std::io::Result<()> {
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = from.read(&mut buf)?;
        if n == 0 {
            return Ok(());
        }
        to.write_all(&buf[..n])?;
        to.flush()?;
    }
}

fn http(port: u16) -> std::io::Result<()> {
    let listener = std::net::TcpListener::bind(("127.0.0.1", port))?;
    eprintln!(
        "floor-std listening on http://{}/mcp",
        listener.local_addr()?
    );
    for tcp in listener.incoming() {
        let tcp = tcp?;
        std::thread::spawn(move || {
            let _ = tcp.set_nodelay(true);
            let _ = serve(tcp);
        });
    }
    Ok(())
}

/// One connection's requests, one after another, until it closes.
fn serve(tcp: std::net::TcpStream) -> std::io::Result<()> {
    let mut writer = tcp.try_clone()?;
    let mut reader = BufReader::new(tcp);
    let response = format!(
        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nmcp-session-id: floor\r\ncontent-length: {}\r\n\r\n{ANSWER}",
        ANSWER.len()
    );
    let (mut line, mut body) = (String::new(), Vec::new());
    loop {
        let mut length = 0usize;
        loop {
            line.clear();
            if reader.read_line(&mut line)? == 0 {
                return Ok(());
            }
            let header = line.trim_end();
            if header.is_empty() {
                break;
            }
            if let Some((name, value)) = header.split_once(':')
                && name.eq_ignore_ascii_case("content-length")
            {
                length = value.trim().parse().unwrap_or(0);
            }
        }
        body.resize(length, 0);
        reader.read_exact(&mut body)?;
        writer.write_all(response.as_bytes())?;
    }
}
