//! The printer of a client-side program (`client`, the demos, `replay --against`,
//! `conformance-client`), built from its [`View`] flags: the text view, `--raw`,
//! `--oneline` or `--json`'s transcript on stdout (captions then on stderr), the
//! `--record` file and the `--ui` page beside it.

use super::args::View;
use super::console::Console;
use mcp_raw_net::client::wire_print::{Printer, Screen};
use mcp_raw_wire::{transcript, transcript_write};

impl View {
    /// The client's printer: the text view (or `--json`'s transcript) on stdout, and
    /// the `--record` file.
    pub fn printer(&self, transport: &str, console: &Console) -> anyhow::Result<Printer> {
        self.printer_with(transport, console, Vec::new())
    }

    /// The printer with `extra` sinks beside the flags' (`client --otlp`'s exporter).
    pub fn printer_with(
        &self,
        transport: &str,
        console: &Console,
        extra: Vec<Box<dyn mcp_raw_wire::recorder::Sink>>,
    ) -> anyhow::Result<Printer> {
        let printer = self.printer_unmasked(transport, console, extra)?;
        printer.recorder().set_redaction(!self.show_secrets);
        printer.recorder().redact_headers(&self.redact_headers);
        Ok(printer)
    }

    fn printer_unmasked(
        &self,
        transport: &str,
        console: &Console,
        extra: Vec<Box<dyn mcp_raw_wire::recorder::Sink>>,
    ) -> anyhow::Result<Printer> {
        let header = transcript::Header::new("client", transport);
        let mut more = crate::cli::ui::sinks(
            self.ui,
            &self.ui_page,
            &header,
            self.max_message_bytes,
            console,
        )?;
        more.extend(extra);
        if let Some(path) = &self.record {
            more.push(crate::cli::record::record_file(
                path,
                &header,
                self.max_message_bytes,
                self.record_queue.policy(),
            )?);
        }
        if self.json() {
            if self.raw || self.oneline {
                let flag = if self.raw { "--raw" } else { "--oneline" };
                anyhow::bail!("{flag} shows a text view: it cannot go with --format json");
            }
            more.insert(
                0,
                Box::new(transcript_write::Writer::new(
                    console.out(),
                    &header,
                    self.max_message_bytes,
                )?) as _,
            );
            return Ok(Printer::sinks_only(
                more,
                self.max_message_bytes,
                Screen::new(console.err()),
            ));
        }
        if self.oneline {
            return Ok(Printer::oneline(
                Screen::new(console.out()),
                self.color.enabled(console),
                more,
                self.max_message_bytes,
            ));
        }
        Ok(Printer::new(
            Screen::new(console.out()),
            self.color.enabled(console),
            self.raw,
            more,
            self.max_message_bytes,
        ))
    }
}
