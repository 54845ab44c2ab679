//! One exit-status rule for every subcommand, said in each `--help` (`after_help`):
//! 0 it did what was asked; 1 it ran and found or met a failure (a rule broken,
//! recordings that differ, a call that failed, a server that could not start or
//! went away); 2 bad usage or unreadable input (a bad flag, as clap itself exits,
//! a FILE that cannot be read or is not a transcript, a key file that cannot be
//! read); 3 (`client` only) the connection or the protocol failed. `tap` over stdio
//! ends with its server's status instead, so its client sees what it would have.
//! Each subcommand's line is a macro here, so that `concat!` joins it to that
//! subcommand's examples (beside its flags, in `args/`) into one literal at compile
//! time.

use super::console::Console;

/// `client`'s closing line.
macro_rules! client_exit {
    () => {
        "Exit status: 0 all went well; 1 a call failed or returned isError: true; 2 usage (a bad flag or TARGET); 3 the connection or the protocol failed."
    };
}
pub(crate) use client_exit;

/// `tap`'s closing line: over stdio, the server's status passed on.
macro_rules! tap_exit {
    () => {
        "Exit status (stdio): the server's own, or 128 + the signal that killed it; 127 the server's program was not found, 126 it could not be run; 2 usage."
    };
}
pub(crate) use tap_exit;

/// `check`'s closing line.
macro_rules! check_exit {
    () => {
        "Exit status: 0 no errors (warnings allowed, --allow'd findings counted apart), 1 a rule or a contract term was broken, 2 the file cannot be read, or a contract term, --allow RULE or --baseline is bad (the error quotes it)."
    };
}
pub(crate) use check_exit;

/// `stats`' closing line.
macro_rules! stats_exit {
    () => {
        "Exit status: 0 the figures were printed; 2 usage or unreadable input (a bad flag, a FILE that cannot be read or is not a transcript)."
    };
}
pub(crate) use stats_exit;

/// `load`'s closing line.
macro_rules! load_exit {
    () => {
        "Exit status: 0 the load ran and no threshold was broken; 1 --max-p99 or --max-errors was broken, or no client could connect; 2 usage (a bad flag, TARGET, --call or --scenario: the error quotes it)."
    };
}
pub(crate) use load_exit;

/// `export`'s closing line.
macro_rules! export_exit {
    () => {
        "Exit status: 0 written; 1 OUT could not be written; 2 usage or unreadable input (a bad flag, a FILE that cannot be read or is not a transcript, a recording with no HTTP lanes)."
    };
}
pub(crate) use export_exit;

/// `export otlp`'s closing line.
macro_rules! export_otlp_exit {
    () => {
        "Exit status: 0 every span and metric accepted by the collector; 1 some export failed (an error status, no answer within --timeout, no connection: the counts and the first failure on stderr); 2 usage or unreadable input (a bad flag or variable, no endpoint, a FILE that cannot be read or is not a transcript)."
    };
}
pub(crate) use export_otlp_exit;

/// `import`'s closing line.
macro_rules! import_exit {
    () => {
        "Exit status: 0 written; 1 OUT could not be written; 2 usage or unreadable input (a bad flag, a FILE that cannot be read, is larger than --max-har-bytes or is not a HAR: the error quotes where, as a JSON path)."
    };
}
pub(crate) use import_exit;

/// `pin`'s closing line.
macro_rules! pin_exit {
    () => {
        "Exit status: 0 the hashes were written; 1 OUT could not be written; 2 usage or unreadable input (a bad flag, a FILE that cannot be read or is not a transcript)."
    };
}
pub(crate) use pin_exit;

/// `replay`'s closing line.
macro_rules! replay_exit {
    () => {
        "Exit status: 0 replayed, 1 the server failed or fell silent, 2 usage."
    };
}
pub(crate) use replay_exit;

/// `diff`'s closing line.
macro_rules! diff_exit {
    () => {
        "Exit status: 0 the same (but for what is ignored), 1 different, 2 a file cannot be read."
    };
}
pub(crate) use diff_exit;

/// `serve`'s closing line.
macro_rules! serve_exit {
    () => {
        "Exit status: 0 stopped cleanly (stdin closed, or interrupted); 1 the server failed (the port could not be bound, a store could not be reached); 2 usage (a bad flag, an unreadable --state-key-file, a --record path refused)."
    };
}
pub(crate) use serve_exit;

/// `bridge`'s closing line.
macro_rules! bridge_exit {
    () => {
        "Exit status: 0 stopped cleanly (interrupted); 1 the bridge failed (the port could not be bound); 2 usage (a bad flag, a --record path refused)."
    };
}
pub(crate) use bridge_exit;

/// `auth-server`'s closing line.
macro_rules! auth_server_exit {
    () => {
        "Exit status: 0 stopped cleanly (interrupted); 1 it failed (the port could not be bound); 2 usage (a bad flag)."
    };
}
pub(crate) use auth_server_exit;

/// `completions`' closing line.
macro_rules! completions_exit {
    () => {
        "Exit status: 0 the script was written; 1 it could not be written; 2 usage (an unknown shell)."
    };
}
pub(crate) use completions_exit;

/// `show`'s closing line.
macro_rules! show_exit {
    () => {
        "Exit status: 0 shown; 1 the output could not be written (--html); 2 usage or unreadable input (a bad flag, a FILE that cannot be read or is not a transcript: the error names its line, a --lane the recording lacks)."
    };
}
pub(crate) use show_exit;

/// `ui`'s closing line.
macro_rules! ui_exit {
    () => {
        "Exit status: the page is served until interrupted (Ctrl-C); 1 the page could not be served; 2 usage or unreadable input (a bad flag, a FILE that cannot be read or is not a transcript: the error names its line, a --ui-port that cannot be bound)."
    };
}
pub(crate) use ui_exit;

/// `demo` and `demo-http`'s closing line.
macro_rules! demo_exit {
    () => {
        "Exit status: 0 the session went as the script says; 1 a reply was not what it must be, or the server could not be spawned; 2 usage (a bad flag)."
    };
}
pub(crate) use demo_exit;

/// `ca`'s closing line.
macro_rules! ca_exit {
    () => {
        "Exit status: 0 done; 1 the CA could not be made, read or removed (a file in the way, a key others can read, a symbolic link refused); 2 usage (a bad flag or action)."
    };
}
pub(crate) use ca_exit;

/// `wrap`'s closing line.
macro_rules! wrap_exit {
    () => {
        "Exit status: 0 done (entries that cannot be wrapped are said and left); 1 a file was left alone (it does not parse, is read-only, or changed since install in a way uninstall cannot undo); 2 usage."
    };
}
pub(crate) use wrap_exit;

/// `sessions`' closing line.
macro_rules! sessions_exit {
    () => {
        "Exit status: 0 listed (none is not an error); 2 the state directory cannot be read."
    };
}
pub(crate) use sessions_exit;

/// A bad flag value, TARGET or input file: the caller's mistake, exit status 2.
#[derive(Debug)]
pub struct Usage(pub String);

impl std::fmt::Display for Usage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Usage {}

/// A [`Usage`] error.
pub fn usage(text: impl Into<String>) -> anyhow::Error {
    Usage(text.into()).into()
}

/// Whether an error is the caller's mistake (exit status 2) rather than a failure
/// while running (1).
pub fn code(e: &anyhow::Error) -> u8 {
    if e.is::<Usage>() { 2 } else { 1 }
}

/// What went wrong, one line on stderr, `PROGRAM: …` (escaped: an error may quote
/// what a peer sent, shown, not obeyed by the terminal).
pub fn say(program: &str, e: &anyhow::Error, console: &Console) {
    console.say(format_args!(
        "{program}: {}",
        mcp_raw_wire::term::escape(&format!("{e:#}"))
    ));
}

/// [`say`], then the exit status by [`code`].
pub fn report(program: &str, e: &anyhow::Error, console: &Console) -> u8 {
    say(program, e, console);
    code(e)
}

/// What clap says when it refuses a command line (or answers `--help`, `--version`),
/// and its status (2, or 0): on the process's console exactly what `Cli::parse` would
/// print (its colours and all); in a buffer, the plain text.
pub fn clap_refused(e: clap::Error, console: &Console) -> u8 {
    let status = u8::try_from(e.exit_code()).unwrap_or(2);
    if console.is_process() {
        let _ = e.print();
    } else if e.use_stderr() {
        let _ = std::io::Write::write_all(&mut console.err(), e.render().to_string().as_bytes());
    } else {
        console.print(e.render().to_string());
    }
    status
}
