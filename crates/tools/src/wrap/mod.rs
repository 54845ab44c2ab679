//! `mcp-raw wrap install|uninstall|status`: the clients' MCP configurations edited
//! so that each stdio server they start runs through `mcp-raw tap`, recording each
//! session into the state directory; undone byte for byte.
//!
//! The files touched: the client's configuration (only the wrapped entries'
//! `command` and `args` bytes, through a temporary file renamed over it), and in
//! `STATE/wrap/` the original bytes and the manifest of edits (see `store`).

pub mod clients;
pub mod edit;
pub mod entries;
pub mod jsonc;
pub mod store;

use super::args::{WrapAction, WrapArgs, WrapTarget};
use clients::{Client, ConfigFile, Env};
use edit::Shim;
use entries::{Found, Shape};
use mcp_raw_wire::term::escape;
use std::path::{Path, PathBuf};

/// Runs `wrap`; returns the exit status: 0 done, 1 a file was left alone because
/// it could not be changed (said on stderr), 2 usage.
pub fn main(args: WrapArgs) -> anyhow::Result<u8> {
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
        Some(d) => absolute(d)?,
        None => clients::state_dir()?,
    };
    let env = Env::from_process();
    let home = env.as_ref().ok().map(|e| e.home.clone());
    let files = files(target, env)?;
    let mut failed = 0;
    let mut out = String::new();
    let color = args.color.enabled();
    for file in &files {
        if !file.path.exists() {
            if matches!(action, Action::Status) {
                out.push_str(&format!(
                    "{:<15} {} (none)\n",
                    file.client.name(),
                    clients::tilde(&file.path, home.as_deref())
                ));
            }
            continue;
        }
        out.push_str(&format!(
            "{:<15} {}\n",
            file.client.name(),
            escape(&clients::tilde(&file.path, home.as_deref()))
        ));
        let result = match action {
            Action::Install { dry_run } => {
                install(file, &target.servers, &state, dry_run, &mut out)
            }
            Action::Uninstall { dry_run } => {
                uninstall(file, &target.servers, &state, dry_run, &mut out)
            }
            Action::Status => status(file, &target.servers, &mut out),
        };
        if let Err(e) = result {
            failed += 1;
            out.push_str(&format!(
                "  {} {}\n",
                paint(color, "31", "left alone:"),
                escape(&format!("{e:#}"))
            ));
            eprintln!("mcp-raw wrap: {}", escape(&format!("{e:#}")));
        }
    }
    if files.iter().all(|f| !f.path.exists()) && !matches!(action, Action::Status) {
        out.push_str("no client configuration found (`mcp-raw wrap status` lists where each is looked for)\n");
    }
    print!("{}", if color { colored(&out) } else { out });
    Ok(u8::from(failed > 0))
}

/// `text` in the SGR colour `code` when colouring.
fn paint(color: bool, code: &str, text: &str) -> String {
    if color {
        format!("\x1b[{code}m{text}\x1b[0m")
    } else {
        text.to_owned()
    }
}

/// Each server line's verdict coloured: done green, left as it is yellow.
fn colored(out: &str) -> String {
    const MARKS: [(&str, &str); 7] = [
        (": already wrapped", "32"),
        (": wrapped", "32"),
        (": restored", "32"),
        (": not wrapped: ", "33"),
        (": remote (URL): cannot be wrapped", "33"),
        (": cannot be wrapped: ", "33"),
        (": not wrapped", "33"),
    ];
    let mut text = String::new();
    for line in out.split_inclusive('\n') {
        let found = MARKS
            .iter()
            .find_map(|(m, code)| line.find(m).map(|at| (at, *m, *code)));
        match found {
            Some((at, mark, code)) if line.starts_with("  ") => {
                let word = &mark[2..];
                text.push_str(&line[..at + 2]);
                text.push_str(&paint(true, code, word.trim_end()));
                text.push_str(&line[at + 2 + word.trim_end().len()..]);
            }
            _ => text.push_str(line),
        }
    }
    text
}

/// What is done to each file, `--dry-run` carried along.
#[derive(Clone, Copy)]
enum Action {
    /// Wrap its stdio servers (`dry_run`: only say which).
    Install {
        /// `--dry-run`.
        dry_run: bool,
    },
    /// Undo the edits the manifest lists (`dry_run`: only say which).
    Uninstall {
        /// `--dry-run`.
        dry_run: bool,
    },
    /// List its servers and whether each is wrapped.
    Status,
}

/// The files to work on: `--config PATH` of `--client`'s kind, else each known
/// client's (those of `--client`, or all) at their documented places.
fn files(target: &WrapTarget, env: anyhow::Result<Env>) -> anyhow::Result<Vec<ConfigFile>> {
    if let Some(path) = &target.config {
        let [client] = target.clients.as_slice() else {
            return Err(super::exit::usage(
                "--config PATH needs one --client NAME: the kind of file it is",
            ));
        };
        return Ok(vec![client.file(absolute(path)?)]);
    }
    let env = env?;
    let wanted: Vec<Client> = if target.clients.is_empty() {
        Client::ALL.to_vec()
    } else {
        target.clients.clone()
    };
    Ok(wanted.into_iter().flat_map(|c| c.files(&env)).collect())
}

fn absolute(p: &Path) -> anyhow::Result<PathBuf> {
    Ok(if p.is_absolute() {
        p.to_owned()
    } else {
        std::env::current_dir()?.join(p)
    })
}

/// A configuration's text, or why not (unreadable, not UTF-8).
fn read(path: &Path) -> anyhow::Result<String> {
    let bytes =
        std::fs::read(path).map_err(|e| anyhow::anyhow!("cannot read {}: {e}", path.display()))?;
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        let (line, column) = jsonc::line_col(&String::from_utf8_lossy(&e.as_bytes()[..at]), at);
        anyhow::anyhow!("{}:{line}:{column}: not UTF-8 text", path.display())
    })
}

/// The servers of a file, or the parse error as `FILE:LINE:COLUMN: why`.
fn parse(file: &ConfigFile, text: &str) -> anyhow::Result<Vec<entries::Entry>> {
    match entries::read(file.format, text, file.tables) {
        Ok(Found::Entries(e)) => Ok(e),
        Ok(Found::NoTable) => Ok(Vec::new()),
        Err(e) => anyhow::bail!(
            "{}:{}:{}: {}",
            file.path.display(),
            e.line,
            e.column,
            e.message
        ),
    }
}

/// Whether `--server` picks the entry of this name, or of this manifest key (the
/// name, then ` (project PATH)` for a project's own).
fn selected(servers: &[String], name: &str) -> bool {
    servers.is_empty()
        || servers
            .iter()
            .any(|s| s == name || name.starts_with(&format!("{s} (project ")))
}

/// Refuses a file its owner cannot write (a read-only config stays as it is).
fn writable(path: &Path) -> anyhow::Result<()> {
    let meta = std::fs::metadata(path)?;
    if meta.permissions().readonly() {
        anyhow::bail!(
            "{} is read-only; not changed (make it writable, then run again)",
            path.display()
        );
    }
    Ok(())
}

/// Why a remote entry is left as it is.
const REMOTE: &str = "not wrapped: a remote (URL) server; the client connects to the URL itself, and a stdio shim it starts cannot stand in for a URL (record it with `mcp-raw tap --http --listen 127.0.0.1:PORT --target URL` and point the entry at the tap)";

fn install(
    file: &ConfigFile,
    servers: &[String],
    state: &Path,
    dry_run: bool,
    out: &mut String,
) -> anyhow::Result<()> {
    let text = read(&file.path)?;
    let found = parse(file, &text)?;
    let bin = std::env::current_exe()?.canonicalize()?;
    let bin = bin
        .to_str()
        .ok_or_else(|| anyhow::anyhow!("the path of mcp-raw is not UTF-8: {}", bin.display()))?;
    let record_dir = state.join("sessions");
    let record_dir = record_dir
        .to_str()
        .ok_or_else(|| anyhow::anyhow!("the state directory's path is not UTF-8"))?;
    let shim = Shim { bin, record_dir };
    let mut planned: Vec<(String, Vec<edit::Placed>)> = Vec::new();
    for entry in found.iter().filter(|e| selected(servers, &e.name)) {
        let key = entry.key();
        let name = escape(&key);
        match &entry.shape {
            _ if edit::is_wrapped(entry) => out.push_str(&format!("  {name}: already wrapped\n")),
            Shape::Stdio { .. } => {
                let session = format!("{}/{}", file.client.name(), entry.name);
                planned.push((
                    entry.key(),
                    edit::wrap(&text, file.format, entry, &shim, &session),
                ));
                out.push_str(&format!(
                    "  {name}: {}\n",
                    if dry_run {
                        "would be wrapped"
                    } else {
                        "wrapped"
                    }
                ));
            }
            Shape::Remote => out.push_str(&format!("  {name}: {REMOTE}\n")),
            Shape::Unusable(why) => out.push_str(&format!("  {name}: not wrapped: {why}\n")),
        }
    }
    if planned.is_empty() || dry_run {
        return Ok(());
    }
    writable(&file.path)?;
    let new = edit::splice(
        &text,
        planned
            .iter()
            .flat_map(|(_, e)| e.iter().map(|(span, e)| (span.clone(), e.wrapped.clone())))
            .collect(),
    );
    // The original is kept before the first change, and the manifest before the file
    // is replaced: whatever stops us, uninstall has what it needs.
    let target = file.path.canonicalize()?;
    let kept = store::kept(state, &target);
    let mut manifest = store::read_manifest(&kept.manifest)?;
    if manifest.is_empty() {
        store::private_file(&kept.orig, text.as_bytes())?;
    }
    let before = manifest.clone();
    manifest.retain(|(n, _)| !planned.iter().any(|(p, _)| p == n));
    manifest.extend(
        planned
            .into_iter()
            .map(|(n, e)| (n, e.into_iter().map(|(_, e)| e).collect())),
    );
    store::write_manifest(&kept.manifest, &target, &manifest)?;
    if let Err(e) = store::replace(&target, text.as_bytes(), new.as_bytes()) {
        store::write_manifest(&kept.manifest, &target, &before)?;
        return Err(e);
    }
    out.push_str(&format!(
        "  original kept in {}\n",
        escape(&kept.orig.display().to_string())
    ));
    Ok(())
}

fn uninstall(
    file: &ConfigFile,
    servers: &[String],
    state: &Path,
    dry_run: bool,
    out: &mut String,
) -> anyhow::Result<()> {
    let target = file.path.canonicalize()?;
    let kept = store::kept(state, &target);
    let manifest = store::read_manifest(&kept.manifest)?;
    let text = read(&target)?;
    let found = parse(file, &text)?;
    if manifest.is_empty() {
        let orphans: Vec<String> = found
            .iter()
            .filter(|e| selected(servers, &e.key()) && edit::is_wrapped(e))
            .map(|e| escape(&e.key()).into_owned())
            .collect();
        if orphans.is_empty() {
            out.push_str("  nothing wrapped by mcp-raw here\n");
        }
        for name in orphans {
            out.push_str(&format!(
                "  {name}: wrapped, but {} holds no record of it; left as it is (its original command and args follow `--` in its args)\n",
                escape(&kept.manifest.display().to_string())
            ));
        }
        return Ok(());
    }
    let mut splices = Vec::new();
    let mut refused = Vec::new();
    let (undo, keep): (Vec<_>, Vec<_>) = manifest
        .into_iter()
        .partition(|(n, _)| selected(servers, n));
    for (name, edits) in &undo {
        let Some(entry) = found.iter().find(|e| e.key() == *name) else {
            refused.push(format!("server {} is no longer in the file", escape(name)));
            continue;
        };
        for e in edits {
            let start = edit::start_of(entry, e.at);
            match start {
                Some(s) if text[s..].starts_with(&e.wrapped) => {
                    splices.push((s..s + e.wrapped.len(), e.original.clone()))
                }
                _ => refused.push(format!(
                    "server {}'s {} changed since install",
                    escape(name),
                    e.at.name()
                )),
            }
        }
    }
    if !refused.is_empty() {
        anyhow::bail!(
            "{}: {}; cannot restore it exactly, nothing changed (the original is in {})",
            file.path.display(),
            refused.join("; "),
            kept.orig.display()
        );
    }
    // Wrapped, but not by an install this state directory remembers (another
    // --state-dir, or its files removed): said, and left for the user.
    for entry in found.iter().filter(|e| selected(servers, &e.key())) {
        if edit::is_wrapped(entry) && !undo.iter().any(|(n, _)| *n == entry.key()) {
            out.push_str(&format!(
                "  {}: wrapped, but {} holds no record of it; left as it is (its original command and args follow `--` in its args)\n",
                escape(&entry.key()),
                escape(&kept.manifest.display().to_string())
            ));
        }
    }
    for (name, _) in &undo {
        out.push_str(&format!(
            "  {}: {}\n",
            escape(name),
            if dry_run {
                "would be restored"
            } else {
                "restored"
            }
        ));
    }
    if dry_run {
        return Ok(());
    }
    writable(&target)?;
    let new = edit::splice(&text, splices);
    store::replace(&target, text.as_bytes(), new.as_bytes())?;
    store::write_manifest(&kept.manifest, &target, &keep)?;
    if keep.is_empty() {
        if std::fs::read(&kept.orig).ok().as_deref() == Some(new.as_bytes()) {
            store::remove(&kept.orig)?;
            out.push_str("  the file is byte for byte what it was before install\n");
        } else {
            out.push_str(&format!(
                "  the file changed elsewhere since install: those changes are kept; the original stays in {}\n",
                escape(&kept.orig.display().to_string())
            ));
        }
    }
    Ok(())
}

fn status(file: &ConfigFile, servers: &[String], out: &mut String) -> anyhow::Result<()> {
    let text = read(&file.path)?;
    let found = parse(file, &text)?;
    if found.is_empty() {
        out.push_str("  (no servers)\n");
    }
    for entry in found.iter().filter(|e| selected(servers, &e.name)) {
        let what = match &entry.shape {
            _ if edit::is_wrapped(entry) => "wrapped".to_owned(),
            Shape::Stdio { .. } => "not wrapped".to_owned(),
            Shape::Remote => "remote (URL): cannot be wrapped".to_owned(),
            Shape::Unusable(why) => format!("cannot be wrapped: {why}"),
        };
        out.push_str(&format!("  {}: {what}\n", escape(&entry.key())));
    }
    Ok(())
}
