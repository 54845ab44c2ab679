//! `mcp-raw wrap install|uninstall|status`: the clients' MCP configurations edited
//! so that each stdio server they start runs through `mcp-raw tap`, recording each
//! session into the state directory; undone byte for byte.
//!
//! The files touched: the client's configuration (only the wrapped entries'
//! `command` and `args` bytes, through a temporary file renamed over it), and in
//! `STATE/wrap/` the original bytes and the manifest of edits (see `store`).
//!
//! [`run`] takes plain [`Options`] and returns a [`Report`]: the text for stdout and
//! each file left alone with why; the caller prints them.

pub mod clients;
pub mod edit;
pub mod entries;
pub mod jsonc;
pub mod store;

use crate::wire::term::escape;
use clients::{Client, ConfigFile, Env};
use edit::Shim;
use entries::{Found, Shape};
use std::path::{Path, PathBuf};

/// What `wrap` does to each file, `--dry-run` carried along.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// Wrap its stdio servers (`dry_run`: only say which).
    Install {
        /// `--dry-run`: say what would change, change nothing.
        dry_run: bool,
    },
    /// Undo the edits the manifest lists (`dry_run`: only say which).
    Uninstall {
        /// `--dry-run`: say what would change, change nothing.
        dry_run: bool,
    },
    /// List its servers and whether each is wrapped.
    Status,
}

/// Which configuration files to work on.
#[derive(Clone, Debug)]
pub enum Files {
    /// `--config PATH` (absolute), read as a file of this client's kind.
    Config {
        /// The kind of file it is (`--client NAME`).
        client: Client,
        /// The file.
        path: PathBuf,
    },
    /// Each of these clients' files at their documented places (all of them when
    /// the list is empty).
    Clients(Vec<Client>),
}

/// A `wrap` run, as plain values (the binary maps its flags to these).
#[derive(Clone, Debug)]
pub struct Options {
    /// Install, uninstall or status.
    pub action: Action,
    /// The configuration files.
    pub files: Files,
    /// `--server NAME`s: only these entries (all when empty).
    pub servers: Vec<String>,
    /// The state directory (absolute): originals, manifests, `sessions/`.
    pub state: PathBuf,
    /// The mcp-raw binary put in front of each server; `None`: the running program.
    pub program: Option<PathBuf>,
    /// Whether the report's verdicts are coloured (SGR).
    pub color: bool,
}

/// What a run did: the text for stdout, and each file left alone.
pub struct Report {
    /// Per file, its path and per server what was done (coloured if asked).
    pub text: String,
    /// Why each file left alone was (it is also said in `text`), in file order.
    pub left_alone: Vec<anyhow::Error>,
}

/// Runs `wrap` over the files `options` names. Fails as a whole only when the
/// files cannot be found (no home directory); a file that cannot be changed is
/// left alone and said in the report.
pub fn run(options: &Options) -> anyhow::Result<Report> {
    let action = options.action;
    let state = &options.state;
    let env = Env::from_process();
    let home = env.as_ref().ok().map(|e| e.home.clone());
    let files = files(&options.files, env)?;
    let mut left_alone = Vec::new();
    let mut out = String::new();
    let color = options.color;
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
        let servers = &options.servers;
        let result = match action {
            Action::Install { dry_run } => install(
                file,
                servers,
                state,
                options.program.as_deref(),
                dry_run,
                &mut out,
            ),
            Action::Uninstall { dry_run } => uninstall(file, servers, state, dry_run, &mut out),
            Action::Status => status(file, servers, &mut out),
        };
        if let Err(e) = result {
            out.push_str(&format!(
                "  {} {}\n",
                paint(color, "31", "left alone:"),
                escape(&format!("{e:#}"))
            ));
            left_alone.push(e);
        }
    }
    if files.iter().all(|f| !f.path.exists()) && !matches!(action, Action::Status) {
        out.push_str("no client configuration found (`mcp-raw wrap status` lists where each is looked for)\n");
    }
    Ok(Report {
        text: if color { colored(&out) } else { out },
        left_alone,
    })
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

/// The files to work on: `--config PATH`, else each wanted client's (all when
/// none is named) at their documented places.
fn files(files: &Files, env: anyhow::Result<Env>) -> anyhow::Result<Vec<ConfigFile>> {
    match files {
        Files::Config { client, path } => Ok(vec![client.file(path.clone())]),
        Files::Clients(wanted) => {
            let env = env?;
            let wanted = if wanted.is_empty() {
                Client::ALL.as_slice()
            } else {
                wanted.as_slice()
            };
            Ok(wanted.iter().flat_map(|c| c.files(&env)).collect())
        }
    }
}

/// `p` made absolute against the current directory.
pub fn absolute(p: &Path) -> anyhow::Result<PathBuf> {
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

/// Why a remote entry in a TOML file is left as it is.
const REMOTE_TOML: &str = "not wrapped: a remote (URL) server in a TOML file (its entry would have to be rewritten whole, which wrap does in JSON only); record it by hand with `command = \"mcp-raw\"`, `args = [\"tap\", \"--remote\", URL]`";

fn install(
    file: &ConfigFile,
    servers: &[String],
    state: &Path,
    program: Option<&Path>,
    dry_run: bool,
    out: &mut String,
) -> anyhow::Result<()> {
    let text = read(&file.path)?;
    let found = parse(file, &text)?;
    let bin = match program {
        Some(p) => p.to_owned(),
        None => std::env::current_exe()?,
    }
    .canonicalize()?;
    let bin = bin
        .to_str()
        .ok_or_else(|| anyhow::anyhow!("the path of mcp-raw is not UTF-8: {}", bin.display()))?;
    let record_dir = state.join("sessions");
    let record_dir = record_dir
        .to_str()
        .ok_or_else(|| anyhow::anyhow!("the state directory's path is not UTF-8"))?;
    // Run from a package runner's cache, the entries name the runner, not a path
    // that can vanish with the cache.
    let fetched = edit::launcher(bin, env!("CARGO_PKG_VERSION"));
    let shim = Shim::new(bin, fetched.as_ref(), record_dir);
    if let Some((command, prefix)) = &fetched {
        out.push_str(&format!(
            "  (mcp-raw runs from {command}'s cache here, which {command} may clear: the entries start it as `{command} {}`)\n",
            prefix.join(" ")
        ));
    }
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
            Shape::Remote(Some(remote)) => match file.client.remote_refusal(remote) {
                Some(why) => out.push_str(&format!("  {name}: not wrapped: {why}\n")),
                None => {
                    let session = format!("{}/{}", file.client.name(), entry.name);
                    planned.push((
                        entry.key(),
                        edit::wrap_remote(&text, remote, &shim, &session),
                    ));
                    out.push_str(&format!(
                        "  {name}: {} (a remote server: through tap --remote)\n",
                        if dry_run {
                            "would be wrapped"
                        } else {
                            "wrapped"
                        }
                    ));
                }
            },
            Shape::Remote(None) => out.push_str(&format!("  {name}: {REMOTE_TOML}\n")),
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
            Shape::Remote(Some(remote)) => match file.client.remote_refusal(remote) {
                Some(why) => format!("remote (URL): cannot be wrapped: {why}"),
                None => "remote (URL): not wrapped".to_owned(),
            },
            Shape::Remote(None) => "remote (URL): cannot be wrapped (a TOML file)".to_owned(),
            Shape::Unusable(why) => format!("cannot be wrapped: {why}"),
        };
        out.push_str(&format!("  {}: {what}\n", escape(&entry.key())));
    }
    Ok(())
}
