//! `mcp-raw demo [--era legacy|modern|both]`: spawns `mcp-raw serve` (this same
//! binary) as a child process and drives a whole session over its stdin/stdout,
//! printing every line both ways. The child's stderr is shown too, marked, to make the
//! rule visible: stdout carries protocol messages only, logs go to stderr.

use super::script::{self, Expect, Step};
use anyhow::{Context, bail};
use mcp_raw_core::Eras;
use mcp_raw_net::client::stdio_link::StdioLink;
use mcp_raw_net::client::wire_print::Printer;
use serde_json::Value;
use std::time::Duration;

/// How long to wait for a response line before calling the server stuck.
const REPLY_TIMEOUT: Duration = Duration::from_secs(10);

struct Demo {
    link: StdioLink,
    printer: Printer,
    next_id: i64,
}

/// `mcp-raw demo`: the view's printer, then [`run`].
pub fn main(args: super::args::DemoArgs, console: &super::console::Console) -> anyhow::Result<()> {
    let printer = args.view.printer("stdio", console)?;
    super::runtime()?.block_on(run(args.era.into(), printer))
}

pub async fn run(era: Eras, printer: Printer) -> anyhow::Result<()> {
    let exe = std::env::current_exe().context("cannot find the mcp-raw binary")?;
    let mut link = StdioLink::spawn(&exe, &["serve"], &printer)?;
    printer.caption("Spawned `mcp-raw serve`: its stdin and stdout are the transport, one JSON message per line.");
    link.settle().await;
    let mut demo = Demo {
        link,
        printer: printer.clone(),
        next_id: 1,
    };
    match era {
        Eras::Legacy => demo.legacy().await?,
        Eras::Modern => {
            for step in script::modern_session(false) {
                demo.step(&step).await?;
            }
            printer.note("a header mismatch (-32020) exists only on HTTP: `cargo demo-http -- --era modern` shows it");
        }
        Eras::Both => demo.both().await?,
    }
    demo.finish(era).await
}

impl Demo {
    /// The session of the original project: the lifecycle, then each tool.
    async fn legacy(&mut self) -> anyhow::Result<()> {
        self.printer.caption(script::SHAPES);
        self.step(&script::too_early()).await?;
        self.step(&script::initialize()).await?;
        self.step(&script::initialized()).await?;
        self.printer.caption(
            "Proof that nothing came back: send ping. The very next stdout line is ping's answer, not a reply to the notification.",
        );
        self.step(&script::bare("ping", Expect::Result)).await?;
        for step in script::operation() {
            self.step(&step).await?;
        }
        Ok(())
    }

    /// One tool call in each era, on one dual-era process.
    async fn both(&mut self) -> anyhow::Result<()> {
        self.printer.caption("The same tool call in both eras, on one process. First legacy (2025-11-25): a handshake opens a session, then the call.");
        self.step(&script::initialize()).await?;
        self.step(&script::initialized()).await?;
        self.step(&script::sample_call()).await?;
        self.printer.caption("Now modern (2026-07-28), same process: no initialize, no notifications/initialized. The request itself declares its version and capabilities in params._meta.");
        self.step(&script::sample_call_modern()).await?;
        self.printer.note(
            "the same content, plus resultType: complete and the server's identity in result._meta",
        );
        self.printer
            .note("stdio framing is unchanged: one JSON message per line");
        Ok(())
    }

    /// Sends one message, waits for the reply (if one is due) and checks it.
    async fn step(&mut self, step: &Step) -> anyhow::Result<()> {
        if !step.caption.is_empty() {
            self.printer.caption(step.caption);
        }
        let id = self.next_id;
        if !step.notification {
            self.next_id += 1;
        }
        self.link
            .send(&serde_json::to_vec(&step.to_message(id))?)
            .await?;
        let reply = if step.notification {
            self.link.settle().await;
            self.printer
                .note("no line on stdout: a notification is never answered");
            None
        } else {
            let out = self
                .link
                .receive(REPLY_TIMEOUT)
                .await?
                .with_context(|| format!("no reply within {REPLY_TIMEOUT:?}"))?;
            let mcp_raw_net::client::stdio_link::Output::Line(line) = out else {
                anyhow::bail!("the server wrote a line too long to read");
            };
            let value: Value = serde_json::from_slice(&line)
                .context("the server wrote a non-JSON line to stdout")?;
            Some(value)
        };
        script::check(step.expect, reply.as_ref())
            .map_err(|e| anyhow::anyhow!("{}: {e}", step.method))
    }

    /// Closes stdin: the server sees EOF and exits; its status is shown.
    async fn finish(self, era: Eras) -> anyhow::Result<()> {
        let printer = self.printer;
        printer.caption(
            "Closing the server's stdin: it reads EOF, which ends the session, and exits.",
        );
        let exit = self.link.close(std::time::Duration::from_secs(5)).await?;
        printer.note(&format!("server exited with {exit}"));
        if !exit.status.success() {
            bail!("the server exited with {exit}");
        }
        printer.caption(script::AFTER);
        printer.caption("`cargo demo-http` drives the same over Streamable HTTP.");
        if era == Eras::Legacy {
            printer.caption(script::TRY_ERAS);
        }
        Ok(())
    }
}
