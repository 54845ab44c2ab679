//! What the client programs print around the wire: captions (`# …`) and notes. The
//! wire itself is not printed here: every byte the client sends or receives goes
//! through its [`Recorder`], whose sinks render it (the text view on stdout, a JSONL
//! transcript) the moment it crosses. Nothing here picks a stream either: the program
//! hands in its [`Screen`] (its stdout, or stderr for `--json`'s captions), a test a
//! buffer.

use crate::lock::Locked;
use crate::wire::recorder::{Recorder, Sink};
use crate::wire::text::{COLOR, PLAIN, Style};
use std::io::Write;
use std::sync::{Arc, Mutex};

/// Where the client's view and captions go, in the order they are written: the
/// binary hands in its stdout (or its stderr for `--json`'s captions), a test a
/// buffer. Clones write to the same stream, so the text view and the captions
/// between its lines keep their order.
#[derive(Clone)]
pub struct Screen(Arc<Mutex<Box<dyn Write + Send>>>);

impl Screen {
    /// A screen over `out`.
    pub fn new(out: impl Write + Send + 'static) -> Screen {
        Screen(Arc::new(Mutex::new(Box::new(out))))
    }
}

impl Write for Screen {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.locked().write(buf)
    }

    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        self.0.locked().write_all(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.0.locked().flush()
    }
}

/// Where captions go.
#[derive(Clone)]
enum Captions {
    /// Between the view's lines, or apart from a transcript (`--json`: stdout then
    /// holds only the transcript, and the program hands in its stderr).
    To(Screen),
    /// Nowhere (a quiet printer).
    None,
}

/// Where the client's view goes: the text view of its recorder, and captions.
#[derive(Clone)]
pub struct Printer {
    style: &'static Style,
    captions: Captions,
    /// Every link of this program records through it.
    recorder: Recorder,
    /// The largest message a link reads whole (`--max-message-bytes`): a longer stdio
    /// line is skipped, and shown as too long.
    pub max_message: usize,
}

impl Printer {
    /// The text view on `screen` (`raw`: every byte verbatim), plus `more` sinks (a
    /// `--record` file); captions on `screen` between its lines.
    pub fn new(
        screen: Screen,
        color: bool,
        raw: bool,
        more: Vec<Box<dyn Sink>>,
        max_message: usize,
    ) -> Self {
        let view = crate::wire::text::TextView::with_max(screen.clone(), color, raw, max_message);
        Self::on_screen(screen, color, Box::new(view), more, max_message)
    }

    /// The one-line view on `screen` (`--oneline`: a line per message), plus `more`
    /// sinks; captions stay on `screen` between the lines.
    pub fn oneline(
        screen: Screen,
        color: bool,
        more: Vec<Box<dyn Sink>>,
        max_message: usize,
    ) -> Self {
        let view = crate::wire::oneline::OnelineView::new(screen.clone(), color, max_message);
        Self::on_screen(screen, color, Box::new(view), more, max_message)
    }

    /// `view` on `screen`, `more` sinks beside it, captions between its lines.
    fn on_screen(
        screen: Screen,
        color: bool,
        view: Box<dyn Sink>,
        more: Vec<Box<dyn Sink>>,
        max_message: usize,
    ) -> Self {
        let mut sinks = vec![view];
        sinks.extend(more);
        Printer {
            style: if color { &COLOR } else { &PLAIN },
            captions: Captions::To(screen),
            recorder: Recorder::new(sinks),
            max_message,
        }
    }

    /// Only these sinks (the JSONL transcript on stdout for `--json`), and captions,
    /// plain, on `captions` (the program's stderr).
    pub fn sinks_only(sinks: Vec<Box<dyn Sink>>, max_message: usize, captions: Screen) -> Self {
        Printer {
            style: &PLAIN,
            captions: Captions::To(captions),
            recorder: Recorder::new(sinks),
            max_message,
        }
    }

    /// A printer that shows nothing.
    pub fn quiet() -> Self {
        Printer {
            style: &PLAIN,
            captions: Captions::None,
            recorder: Recorder::none(),
            max_message: crate::wire::decode::DEFAULT_MAX_MESSAGE,
        }
    }

    /// The recorder the links hand their bytes to.
    pub fn recorder(&self) -> &Recorder {
        &self.recorder
    }

    /// A one-line caption saying what the reader is about to see.
    pub fn caption(&self, text: &str) {
        let s = self.style;
        // A caption may quote the server (a tool's name, an error's message).
        let text = crate::wire::term::escape(text);
        self.out(&format!("\n{}# {text}{}\n", s.caption, s.reset));
    }

    /// A remark inside a step (what did not happen, what to notice).
    pub fn note(&self, text: &str) {
        let s = self.style;
        let text = crate::wire::term::escape(text);
        self.out(&format!("{}    ({text}){}\n", s.dim, s.reset));
    }

    /// A line a server wrote to its stderr that no lane records (the HTTP demo's
    /// child): logs, never protocol.
    pub fn server_stderr(&self, line: &str) {
        let s = self.style;
        let line = crate::wire::term::escape_line(line);
        self.out(&format!(
            "{}    [server stderr] {line}{}\n",
            s.stderr, s.reset
        ));
    }

    fn out(&self, text: &str) {
        // A closed stdout (`| head`) is not worth a panic.
        let _ = match &self.captions {
            Captions::None => Ok(()),
            Captions::To(screen) => {
                let mut out = screen.0.locked();
                out.write_all(text.as_bytes()).and_then(|()| out.flush())
            }
        };
    }
}
