//! One exit-status rule for every subcommand, said in each `--help` (`after_help`):
//! 0 it did what was asked; 1 it ran and found or met a failure (a rule broken,
//! recordings that differ, a call that failed, a server that could not start or
//! went away); 2 bad usage or unreadable input (a bad flag, as clap itself exits,
//! a FILE that cannot be read or is not a transcript, a key file that cannot be
//! read); 3 (`client` only) the connection or the protocol failed. `tap` over stdio
//! ends with its server's status instead, so its client sees what it would have.
//! `check`, `diff`, `replay`, `client` and `tap` state theirs beside their other
//! closing lines in `args.rs`; the rest use these (macros, so that `concat!` joins
//! them to each subcommand's examples into one literal at compile time).

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

/// Whether an error is the caller's mistake (exit status 2) rather than a failure
/// while running (1).
pub fn code(e: &anyhow::Error) -> u8 {
    if e.is::<super::client::Usage>() { 2 } else { 1 }
}
