//! `mcp-raw wrap install|uninstall|status`: the flags mapped to
//! [`mcp_raw_tools::wrap::Options`], its report printed (the text on stdout, each
//! file left alone also on stderr), and the exit status.

use super::args::{WrapAction, WrapArgs};
use super::console::Console;
use mcp_raw_tools::wrap::{self, Action, Files, Options};
use mcp_raw_wire::term::escape;

/// Runs `wrap`; returns the exit status: 0 done, 1 a file was left alone because
/// it could not be changed (said on stderr), 2 usage.
pub fn main(args: WrapArgs, console: &Console) -> anyhow::Result<u8> {
    let dry_run = args.dry_run;
    let target = &args.target;
    let action = match args.action {
        WrapAction::Install => Action::Install { dry_run },
        WrapAction::Uninstall => Action::Uninstall { dry_run },
        WrapAction::Status => Action::Status,
    };
    // The shim is the stdio tap, which runs on Unix only: wrapped servers could not
    // start elsewhere, so nothing is wrapped there (status and uninstall still work).
    if cfg!(not(unix)) && matches!(action, Action::Install { .. }) {
        anyhow::bail!(
            "the stdio tap runs on Unix only, so a wrapped server could not start here; nothing changed"
        );
    }
    let state = match &target.state_dir {
        Some(d) => wrap::absolute(d)?,
        None => wrap::clients::state_dir()?,
    };
    let clients = target.clients.iter().map(|&c| c.into()).collect();
    let files = match &target.config {
        Some(path) => {
            let [client] = target.clients.as_slice() else {
                return Err(super::exit::usage(
                    "--config PATH needs one --client NAME: the kind of file it is",
                ));
            };
            Files::Config {
                client: (*client).into(),
                path: wrap::absolute(path)?,
            }
        }
        None => Files::Clients(clients),
    };
    let report = wrap::run(&Options {
        action,
        files,
        servers: target.servers.clone(),
        state,
        program: None,
        color: args.color.enabled(console),
    })?;
    for e in &report.left_alone {
        console.say(format_args!("mcp-raw wrap: {}", escape(&format!("{e:#}"))));
    }
    console.print(&report.text);
    Ok(u8::from(!report.left_alone.is_empty()))
}
