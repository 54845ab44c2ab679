//! The command line itself run inside the test process: `mcp_raw::run`, the function
//! the binary's `main` calls with the process's arguments and streams, here called
//! with a command line and a captured console ([`cli_here`]). Everything from clap's
//! parsing to the program's last line and its exit status is the binary's own code;
//! what the process adds (its argv, its two file descriptors, `ExitCode::from`) is
//! checked once against the real binary, byte for byte (tests/cli_conventions.rs,
//! `the_binary_is_run_on_the_process_console`).
//!
//! Not for what needs a process of its own: a server on stdio (its stdin and stdout
//! are the transport), a signal, the environment or working directory of one run,
//! or a program that serves until Ctrl-C.

use mcp_raw::cli::console::Console;
use std::ffi::OsString;

/// What one command line did, in the shape of `std::process::Output` (so a test reads
/// a run the same way whichever ran it).
#[derive(Debug)]
pub struct Ran {
    /// The exit status the binary would exit with.
    pub status: Status,
    /// What it printed on stdout.
    pub stdout: Vec<u8>,
    /// What it printed on stderr (its own lines; the libraries' `log` records go to
    /// the process's stderr, as in the binary).
    pub stderr: Vec<u8>,
}

/// The exit status, read as `std::process::ExitStatus` is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Status(pub u8);

impl Status {
    /// The status, always there (a run in-process is never killed by a signal).
    pub fn code(&self) -> Option<i32> {
        Some(i32::from(self.0))
    }

    /// Whether it is 0.
    pub fn success(&self) -> bool {
        self.0 == 0
    }
}

impl std::fmt::Display for Status {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "exit status: {}", self.0)
    }
}

impl Ran {
    /// stdout as text (it must be UTF-8).
    pub fn out(&self) -> String {
        String::from_utf8(self.stdout.clone()).expect("stdout is UTF-8")
    }

    /// stderr as text (lossy).
    pub fn err(&self) -> String {
        String::from_utf8_lossy(&self.stderr).into_owned()
    }

    /// Whether it exited 0.
    pub fn ok(&self) -> bool {
        self.status.success()
    }
}

/// `mcp-raw ARGS…` in-process, to its end.
pub fn cli_here<I, S>(args: I) -> Ran
where
    I: IntoIterator<Item = S>,
    S: Into<OsString>,
{
    let argv: Vec<OsString> = std::iter::once(OsString::from("mcp-raw"))
        .chain(args.into_iter().map(Into::into))
        .collect();
    let (console, captured) = Console::captured();
    let code = mcp_raw::run(argv, &console);
    Ran {
        status: Status(code),
        stdout: captured.out(),
        stderr: captured.err(),
    }
}

/// A real stdio session recorded to `file`: `mcp-raw client --call CALL… --record FILE
/// -- mcp-raw serve`, the client in-process, the server the process it spawns; it
/// must succeed (its stderr is the panic's message otherwise).
pub fn record_stdio_session(file: &std::path::Path, calls: &[&str]) {
    let mut args = vec!["client".to_owned()];
    for call in calls {
        args.extend(["--call".to_owned(), (*call).to_owned()]);
    }
    args.extend([
        "--record".to_owned(),
        file.display().to_string(),
        "--".to_owned(),
        super::BIN.to_owned(),
        "serve".to_owned(),
    ]);
    let out = cli_here(&args);
    assert!(out.ok(), "mcp-raw {args:?}: {}", out.err());
}
