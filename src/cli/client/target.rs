//! TARGET: an `http://` or `https://` URL, or a stdio server's command line split as
//! a shell would; and the link the client opens to it, from the link's flags.

use super::usage;
use crate::cli::args::ClientArgs;
use crate::cli::console::Console;
use mcp_raw_net::client::http_link::HttpLink;
use mcp_raw_net::client::mcp_client::Link;
use mcp_raw_net::client::stdio_link::{Spawn, StdioLink};
use mcp_raw_net::client::tls::{Tls, TlsOptions};
use mcp_raw_net::client::wire_print::Printer;

/// What TARGET names.
pub enum Target {
    Http(String),
    /// The program and its arguments.
    Stdio(Vec<String>),
}

impl Target {
    /// `http://…` or `https://…` is Streamable HTTP; anything else is a command line, split as a
    /// shell splits words (no variables, no globbing). What looks like a URL without
    /// its scheme is refused with the likely fix.
    pub fn parse(target: &str) -> anyhow::Result<Target> {
        if target.starts_with("http://") || target.starts_with("https://") {
            return Ok(Target::Http(target.to_owned()));
        }
        let words = split_words(target).map_err(usage)?;
        if words.is_empty() {
            return Err(usage("empty TARGET: give an http:// URL or a command"));
        }
        if words.len() == 1 && looks_like_address(&words[0]) {
            return Err(usage(format!(
                "{target:?} is neither a URL nor a command: did you mean http://{target}?"
            )));
        }
        Ok(Target::Stdio(words))
    }
}

/// `localhost:3000/mcp`, `127.0.0.1:8080`: a host and a port, no scheme.
fn looks_like_address(word: &str) -> bool {
    let authority = word.split('/').next().unwrap_or("");
    match authority.rsplit_once(':') {
        Some((host, port)) => {
            !host.is_empty() && !port.is_empty() && port.bytes().all(|b| b.is_ascii_digit())
        }
        None => false,
    }
}

/// Splits a command line into words as POSIX `sh` would for quoting: `'…'` keeps
/// everything, `"…"` keeps everything but `\\"` and `\\\\`, a backslash outside quotes
/// escapes the next character.
pub fn split_words(line: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => word.push(c),
                        None => return Err(format!("unclosed ' in TARGET {line:?}")),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(c @ ('"' | '\\')) => word.push(c),
                            Some(c) => {
                                word.push('\\');
                                word.push(c);
                            }
                            None => return Err(format!("unclosed \" in TARGET {line:?}")),
                        },
                        Some(c) => word.push(c),
                        None => return Err(format!("unclosed \" in TARGET {line:?}")),
                    }
                }
            }
            '\\' => {
                in_word = true;
                match chars.next() {
                    Some(c) => word.push(c),
                    None => return Err(format!("TARGET {line:?} ends in a lone backslash")),
                }
            }
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    Ok(words)
}

/// Opens the link a target names.
pub fn open_link(
    target: &Target,
    args: &ClientArgs,
    printer: &Printer,
    console: &Console,
) -> anyhow::Result<Link> {
    match target {
        Target::Http(url) => {
            let mut http = HttpLink::new(url, printer).map_err(|e| usage(format!("{e:#}")))?;
            http.tls = std::sync::Arc::new(
                Tls::new(TlsOptions {
                    cacert: args.cacert.clone(),
                    insecure: args.insecure,
                    cert: args.cert.clone(),
                    key: args.key.clone(),
                    keylog: args.keylog.clone(),
                })
                .map_err(|e| usage(format!("{e:#}")))?,
            );
            if args.insecure {
                // Said on every run, whatever the view: an unverified server may be anyone.
                console.say(
                    "mcp-raw: WARNING: --insecure: https server certificates are NOT verified; whoever answers is trusted (the transcript records \"insecure\":true)",
                );
            }
            http.timeout = args.timeout;
            http.max_body = args.max_response_bytes;
            http.max_document = args.max_oauth_bytes;
            for header in &args.headers {
                http.extra_headers.push(crate::cli::header(header)?);
            }
            Ok(Link::Http(http))
        }
        Target::Stdio(words) => {
            if !args.headers.is_empty() {
                return Err(usage("--header applies to http:// targets only"));
            }
            if !args.cacert.is_empty() || args.insecure || args.cert.is_some() {
                return Err(usage(
                    "--cacert, --insecure, --cert and --key apply to http(s):// targets only",
                ));
            }
            let mut env = Vec::new();
            for pair in &args.env {
                let (k, v) = pair
                    .split_once('=')
                    .filter(|(k, _)| !k.is_empty())
                    .ok_or_else(|| usage(format!("--env {pair:?}: expected NAME=VALUE")))?;
                env.push((k.to_owned(), v.to_owned()));
            }
            let spawn = Spawn {
                program: words[0].clone().into(),
                args: words[1..].to_vec(),
                env,
                cwd: args.cwd.clone(),
            };
            Ok(Link::Stdio(StdioLink::spawn_with(&spawn, printer)?))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_split_like_a_shell() {
        assert_eq!(
            split_words(r#"sh -c 'echo hi' "a \"b\"" c\ d"#).unwrap(),
            vec!["sh", "-c", "echo hi", "a \"b\"", "c d"]
        );
        assert_eq!(split_words("  x  ''  ").unwrap(), vec!["x", ""]);
        assert!(split_words("sh 'open").unwrap_err().contains("unclosed '"));
    }

    #[test]
    fn an_address_without_a_scheme_gets_the_fix() {
        let Err(e) = Target::parse("localhost:3000/mcp") else {
            panic!("accepted")
        };
        assert_eq!(crate::cli::exit::code(&e), 2);
        assert!(
            e.to_string()
                .contains("did you mean http://localhost:3000/mcp?")
        );
        assert!(matches!(Target::parse("mcp-raw serve"), Ok(Target::Stdio(w)) if w.len() == 2));
    }
}
