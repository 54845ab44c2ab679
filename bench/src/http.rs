//! A minimal HTTP/1.1 client for the load generator: one keep-alive connection, a
//! request written in one `write`, the response read by its framing (RFC 9112 §6:
//! `Content-Length`, `chunked`, or until close). It is the same code for every peer,
//! so whatever it costs is in every peer's figure and in the floor's.

use crate::messages::Era;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::time::Duration;

/// One response: what the workloads look at.
pub struct Reply {
    /// The status code.
    pub status: u16,
    /// `Mcp-Session-Id`, when the server gave one (2025-11-25 `initialize`).
    pub session: Option<String>,
    /// The body: JSON, or an SSE stream holding the JSON-RPC answer.
    pub body: Vec<u8>,
}

/// One keep-alive connection to `addr`.
pub struct Conn {
    /// Where to reconnect when a server closes the connection.
    addr: String,
    /// The `Host` header: the address connected to.
    host: String,
    /// The socket, buffered for reading the head line by line.
    reader: Option<BufReader<TcpStream>>,
    /// The request being built, reused so a call allocates nothing new.
    out: Vec<u8>,
}

impl Conn {
    /// Opens a connection (`TCP_NODELAY`: a request is one segment, sent at once).
    pub fn open(addr: &str) -> Result<Conn, String> {
        let mut conn = Conn {
            addr: addr.to_owned(),
            host: addr.to_owned(),
            reader: None,
            out: Vec::with_capacity(1024),
        };
        conn.connect()?;
        Ok(conn)
    }

    fn connect(&mut self) -> Result<(), String> {
        let tcp =
            TcpStream::connect(&self.addr).map_err(|e| format!("connect {}: {e}", self.addr))?;
        tcp.set_nodelay(true).map_err(|e| e.to_string())?;
        tcp.set_read_timeout(Some(Duration::from_secs(30)))
            .map_err(|e| e.to_string())?;
        self.reader = Some(BufReader::with_capacity(64 * 1024, tcp));
        Ok(())
    }

    /// POSTs `body` (a `method` message) to `/mcp` with the era's headers, and the
    /// session id when given, and reads the whole response. After `initialize`,
    /// every request names its version in `MCP-Protocol-Version` (2025-11-25
    /// `basic/transports` "Protocol Version Header"); a 2026-07-28 request also
    /// mirrors its method (and tool name) in `Mcp-Method` / `Mcp-Name`.
    pub fn post(
        &mut self,
        era: Era,
        session: Option<&str>,
        method: &str,
        body: &str,
    ) -> Result<Reply, String> {
        if self.reader.is_none() {
            self.connect()?;
        }
        self.out.clear();
        let _ = write!(
            self.out,
            "POST /mcp HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\n",
            self.host,
            body.len()
        );
        if let Some(s) = session {
            let _ = write!(self.out, "Mcp-Session-Id: {s}\r\n");
        }
        if method != "initialize" {
            let _ = write!(self.out, "MCP-Protocol-Version: {}\r\n", era.version());
        }
        if era == Era::Modern {
            let _ = write!(self.out, "Mcp-Method: {method}\r\n");
            if method == "tools/call" {
                let _ = write!(self.out, "Mcp-Name: echo\r\n");
            }
        }
        self.out.extend_from_slice(b"\r\n");
        self.out.extend_from_slice(body.as_bytes());
        let reader = self.reader.as_mut().ok_or("not connected")?;
        reader
            .get_mut()
            .write_all(&self.out)
            .map_err(|e| format!("write: {e}"))?;
        let (reply, keep) = read_response(reader)?;
        if !keep {
            self.reader = None;
        }
        Ok(reply)
    }
}

/// Reads one response; the flag says whether the connection may be used again.
fn read_response(r: &mut BufReader<TcpStream>) -> Result<(Reply, bool), String> {
    let mut line = String::new();
    fn read_line_of(r: &mut BufReader<TcpStream>, line: &mut String) -> Result<(), String> {
        line.clear();
        match r.read_line(line) {
            Ok(0) => Err("connection closed before a response".into()),
            Ok(_) => Ok(()),
            Err(e) => Err(format!("read: {e}")),
        }
    }
    read_line_of(r, &mut line)?;
    let status: u16 = line
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| format!("bad status line {line:?}"))?;
    let (mut length, mut chunked, mut close, mut session) = (None, false, false, None);
    loop {
        read_line_of(r, &mut line)?;
        let l = line.trim_end();
        if l.is_empty() {
            break;
        }
        let Some((name, value)) = l.split_once(':') else {
            return Err(format!("bad header line {l:?}"));
        };
        let value = value.trim();
        match name.to_ascii_lowercase().as_str() {
            "content-length" => length = value.parse::<usize>().ok(),
            "transfer-encoding" => chunked = value.eq_ignore_ascii_case("chunked"),
            "connection" => close = value.eq_ignore_ascii_case("close"),
            "mcp-session-id" => session = Some(value.to_owned()),
            _ => {}
        }
    }
    let mut body = Vec::new();
    if chunked {
        loop {
            read_line_of(r, &mut line)?;
            let size = usize::from_str_radix(line.trim().split(';').next().unwrap_or(""), 16)
                .map_err(|_| format!("bad chunk size {line:?}"))?;
            if size == 0 {
                // Trailers (none expected), then the blank line.
                loop {
                    read_line_of(r, &mut line)?;
                    if line.trim_end().is_empty() {
                        break;
                    }
                }
                break;
            }
            let start = body.len();
            body.resize(start + size, 0);
            r.read_exact(&mut body[start..])
                .map_err(|e| format!("chunk: {e}"))?;
            read_line_of(r, &mut line)?;
        }
    } else if let Some(n) = length {
        body.resize(n, 0);
        r.read_exact(&mut body).map_err(|e| format!("body: {e}"))?;
    } else if !(status == 204 || status == 304 || (100..200).contains(&status)) {
        r.read_to_end(&mut body).map_err(|e| format!("body: {e}"))?;
        close = true;
    }
    Ok((
        Reply {
            status,
            session,
            body,
        },
        !close,
    ))
}
