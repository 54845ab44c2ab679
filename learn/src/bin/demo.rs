//! `demo`: spawns a stdio MCP server and drives one session, printing the wire.
//!
//! - `demo`: the learn server (this same program, run as `demo serve`);
//! - `demo -- CMD ARG…`: any stdio server, e.g. `demo -- mcp-raw serve`;
//! - `demo serve [--max-line-bytes N]`: be the stdio server.

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let command = match args.first().map(String::as_str) {
        Some("serve") => {
            let max = match args.get(1..) {
                Some([flag, n]) if flag == "--max-line-bytes" => {
                    n.parse().unwrap_or_else(|_| usage())
                }
                Some([]) => learn::server::MAX_LINE_BYTES,
                _ => usage(),
            };
            return learn::server::run(max);
        }
        Some("--") if args.len() > 1 => args[1..].to_vec(),
        None => match std::env::current_exe() {
            Ok(me) => vec![me.display().to_string(), "serve".into()],
            Err(e) => fail(&format!("cannot find this program to spawn it: {e}")),
        },
        _ => usage(),
    };
    if let Err(e) = learn::client::run(&command) {
        fail(&e);
    }
}

fn usage() -> ! {
    eprintln!("usage: demo [-- SERVER_CMD ARG…] | demo serve [--max-line-bytes N]");
    std::process::exit(2)
}

fn fail(why: &str) -> ! {
    eprintln!("[learn] demo failed: {why}");
    std::process::exit(1)
}
