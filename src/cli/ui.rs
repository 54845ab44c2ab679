//! `mcp-raw ui FILE` and `--ui`: the page served on loopback, on a thread of its own
//! (with its own runtime, so a program without one, `serve` over stdio, has a page
//! too), and a recording file streamed into it line by line, whole or `--follow`ed.

use super::args::{UiArgs, UiPage};
use super::console::Console;
use mcp_raw_tools::ui::{self, Feed};
use mcp_raw_wire::recorder::Sink;
use mcp_raw_wire::transcript;
use std::io::Read;
use std::time::Duration;

/// An unreadable FILE, or one that is not a transcript: exit status 2, as `show`.
macro_rules! usage {
    ($($t:tt)*) => { super::exit::usage(format!($($t)*)) };
}

/// `mcp-raw ui FILE`: the recording's page, until interrupted (`ui A B`: the two
/// side by side).
pub fn main(args: UiArgs, console: &Console) -> anyhow::Result<()> {
    if let [a, b] = &args.files[..] {
        return pair(a, b, &args, console);
    }
    if !args.ignore.is_empty() {
        return Err(usage!(
            "--ignore goes with two recordings (mcp-raw ui A B): it says what their comparison leaves out"
        ));
    }
    let file = &args.files[0];
    let mut input =
        std::fs::File::open(file).map_err(|e| usage!("cannot read {}: {e}", file.display()))?;
    let mut lines = Lines::default();
    // The header first: the page's title, and the proof this is a transcript.
    // (A followed file is waited for until its first line comes.)
    let Some((no, line)) = lines.next(&mut input, file, args.follow)? else {
        return Err(usage!(
            "{} is empty: not a transcript (its first line is the header)",
            file.display()
        ));
    };
    let header = transcript::header_of_line(&line).map_err(|e| {
        usage!(
            "{} is not a transcript mcp-raw can read: line {no}: {e}",
            file.display()
        )
    })?;
    let feed = Feed::new(header, args.page.ui_keep, args.max_message_bytes);
    let mut sink = feed.sink();
    // Served before the file is read whole: a large recording's first rows show at once.
    start(feed.clone(), &args.page, console)?;
    while let Some((no, line)) = lines.next(&mut input, file, args.follow)? {
        let event = transcript::event_of_line(&line)
            .map_err(|e| usage!("{} line {no}: {e}", file.display()))?;
        if let Some(e) = event {
            sink.event(&e);
        }
    }
    sink.finish();
    // The page stays served until Ctrl-C.
    loop {
        std::thread::park();
    }
}

/// `mcp-raw ui A B`: both read whole (the comparison needs every message), each
/// served as its own page and the two compared as `diff` compares them.
fn pair(
    a: &std::path::Path,
    b: &std::path::Path,
    args: &UiArgs,
    console: &Console,
) -> anyhow::Result<()> {
    if args.follow {
        return Err(usage!(
            "--follow reads one growing recording; two (A B) are compared whole"
        ));
    }
    let ignore = super::diff::rules(&args.ignore).map_err(|e| usage!("{e}"))?;
    let (ha, ea) = super::read_transcript(a).map_err(|e| usage!("{e}"))?;
    let (hb, eb) = super::read_transcript(b).map_err(|e| usage!("{e}"))?;
    let feed = |header: &transcript::Header, events: &[mcp_raw_wire::event::Event]| {
        let feed = Feed::new(header.clone(), args.page.ui_keep, args.max_message_bytes);
        let mut sink = feed.sink();
        for e in events {
            sink.event(e);
        }
        sink.finish();
        feed
    };
    let side = |file: &std::path::Path, header: &transcript::Header, events| ui::diff::Side {
        name: file.display().to_string(),
        header: header.to_json(),
        events,
    };
    let doc = ui::diff::document(
        &side(a, &ha, &ea),
        &side(b, &hb, &eb),
        &ignore,
        &args.ignore,
    );
    let (fa, fb) = (feed(&ha, &ea), feed(&hb, &eb));
    serve_ui(
        |token| ui::Ui::pair(fa, fb, &doc, token, args.page.ui_max_body_bytes),
        &args.page,
        console,
    )?;
    loop {
        std::thread::park();
    }
}

/// `--ui`: the page's feed as one more sink of a program's recorder (the page served
/// at once); nothing without `--ui`.
pub fn sinks(
    wanted: bool,
    page: &UiPage,
    header: &transcript::Header,
    max_message: usize,
    console: &Console,
) -> anyhow::Result<Vec<Box<dyn Sink>>> {
    if !wanted {
        return Ok(Vec::new());
    }
    // The same header as --record's: an export of the whole is that file.
    let feed = Feed::new(header.clone(), page.ui_keep, max_message);
    let sink = feed.sink();
    start(feed, page, console)?;
    Ok(vec![Box::new(sink)])
}

/// The page this process serves, once `--ui` or `ui` started one.
static PAGE: std::sync::OnceLock<std::sync::Arc<ui::Ui>> = std::sync::OnceLock::new();

/// The HTTP tap listens at `at`: the page (if any) offers resend through it.
pub fn resend_through(at: std::net::SocketAddr) {
    if let Some(page) = PAGE.get() {
        let to = if at.ip().is_unspecified() {
            std::net::SocketAddr::from(([127, 0, 0, 1], at.port()))
        } else {
            at
        };
        page.resend_to(to);
    }
}

/// A live session takes the page's resends (a stdio tap's server, a client's);
/// false when this process serves no page.
pub fn resend_into(session: std::sync::Arc<dyn ui::live::Live>) -> bool {
    match PAGE.get() {
        Some(page) => {
            page.resend_into(session);
            true
        }
        None => false,
    }
}

/// A program that kept its page served itself (a client's, with its session open
/// until Ctrl-C): [`linger`] has nothing more to do.
static LINGERED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// The page's URL, for a program that keeps it served itself until Ctrl-C (and
/// then exits: [`linger`] returns at once); none when there is no page.
pub fn keep_serving() -> Option<&'static str> {
    let url = SERVED.get()?;
    LINGERED.store(true, std::sync::atomic::Ordering::Relaxed);
    Some(url)
}

/// The tap holds messages (`--intercept`): the page shows them and decides.
pub fn intercept_with(holds: std::sync::Arc<mcp_raw_tools::tap::intercept::Interceptor>) {
    if let Some(page) = PAGE.get() {
        page.intercept_with(holds);
    }
}

/// The URL of the page this process serves, once `--ui` or `ui` started one.
static SERVED: std::sync::OnceLock<String> = std::sync::OnceLock::new();

/// When this process serves a page, keeps it served after the program's work is
/// done, until interrupted (Ctrl-C): a client's session ends in a second, and its
/// page is still worth reading. Returns at once otherwise.
pub fn linger(console: &Console) {
    // A program stopped by Ctrl-C or SIGTERM ends: the page goes with it.
    if LINGERED.load(std::sync::atomic::Ordering::Relaxed) || super::stop::was_signalled() {
        return;
    }
    if let Some(url) = SERVED.get() {
        console.say(format_args!(
            "[mcp-raw] ui: done; the page stays at {url} until Ctrl-C"
        ));
        super::stop::wait();
    }
}

/// Serves `feed`'s page on 127.0.0.1 from a thread of its own, says its URL on
/// stderr, and opens it in a browser with `--ui-open`.
pub fn start(feed: Feed, page: &UiPage, console: &Console) -> anyhow::Result<()> {
    serve_ui(
        |token| ui::Ui::new(feed, token, page.ui_max_body_bytes),
        page,
        console,
    )
}

/// Serves the site `make` builds (given the token) as [`start`] says.
fn serve_ui(
    make: impl FnOnce(String) -> std::sync::Arc<ui::Ui>,
    page: &UiPage,
    console: &Console,
) -> anyhow::Result<()> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let listener = runtime
        .block_on(tokio::net::TcpListener::bind(("127.0.0.1", page.ui_port)))
        .map_err(|e| {
            usage!(
                "--ui-port {}: cannot listen on 127.0.0.1: {e}",
                page.ui_port
            )
        })?;
    let addr = listener.local_addr()?;
    let token = mcp_raw_net::keys::random_token()?;
    let ui = make(token);
    let _ = PAGE.set(ui.clone());
    let url = ui.url(addr);
    std::thread::Builder::new()
        .name("mcp-raw ui".into())
        .spawn(move || {
            if let Err(e) = runtime.block_on(ui::serve(listener, ui, std::future::pending())) {
                log::error!("[mcp-raw] ui: {e}");
            }
        })?;
    console.say(format_args!("[mcp-raw] ui: {url}"));
    let _ = SERVED.set(url.clone());
    if page.ui_open {
        open_browser(&url, console);
    }
    Ok(())
}

/// The default browser on `url` (xdg-open, open); a failure is said, not fatal.
fn open_browser(url: &str, console: &Console) {
    let opener = if cfg!(target_os = "macos") {
        "open"
    } else {
        "xdg-open"
    };
    let spawned = std::process::Command::new(opener)
        .arg(url)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn();
    if let Err(e) = spawned {
        console.say(format_args!(
            "[mcp-raw] ui: could not start {opener} ({e}); open the URL above yourself"
        ));
    }
}

/// How often `--follow` looks for more of the file.
const FOLLOW_POLL: Duration = Duration::from_millis(100);

/// A file read line by line, never whole; with `follow`, waiting at its end for more.
#[derive(Default)]
struct Lines {
    /// Bytes read past the last whole line.
    pending: Vec<u8>,
    /// Lines handed out so far.
    no: usize,
}

impl Lines {
    /// The next non-blank line and its number; `None` at the end of a file not followed.
    fn next(
        &mut self,
        input: &mut std::fs::File,
        file: &std::path::Path,
        follow: bool,
    ) -> anyhow::Result<Option<(usize, String)>> {
        let mut buf = [0u8; 64 * 1024];
        loop {
            if let Some(end) = self.pending.iter().position(|&b| b == b'\n') {
                let line: Vec<u8> = self.pending.drain(..=end).collect();
                self.no += 1;
                let text = String::from_utf8(line).map_err(|e| {
                    usage!(
                        "{}: {}",
                        file.display(),
                        transcript::not_utf8(e.as_bytes(), e.utf8_error().valid_up_to(), self.no)
                    )
                })?;
                let text = text.trim_end();
                if text.is_empty() {
                    continue;
                }
                return Ok(Some((self.no, text.to_owned())));
            }
            let n = input
                .read(&mut buf)
                .map_err(|e| usage!("reading {}: {e}", file.display()))?;
            if n > 0 {
                self.pending.extend_from_slice(&buf[..n]);
                continue;
            }
            if !follow {
                // A last line without its newline is still a line.
                if self.pending.is_empty() {
                    return Ok(None);
                }
                self.pending.push(b'\n');
                continue;
            }
            std::thread::sleep(FOLLOW_POLL);
        }
    }
}
