//! The clients `wrap` knows: each one's configuration files at their documented
//! place per OS, the file's format, and the key its servers are under.
//!
//! Places, from each client's documentation:
//! - Claude Desktop: `claude_desktop_config.json` in `~/Library/Application
//!   Support/Claude/` (macOS), `%APPDATA%\Claude\` (Windows), `~/.config/Claude/`
//!   (Linux builds); `mcpServers`.
//! - Claude Code: `~/.claude.json` (user scope under `mcpServers`, and each
//!   project's local scope under `projects` → PATH → `mcpServers`) and `.mcp.json` in
//!   the project; `mcpServers`.
//! - Cursor: `~/.cursor/mcp.json` and `.cursor/mcp.json` in the project; `mcpServers`.
//! - VS Code: `mcp.json` in the user profile (`Code/User/` under `~/.config`,
//!   `~/Library/Application Support` or `%APPDATA%`) and `.vscode/mcp.json`, servers
//!   under `servers`; the older form in the user `settings.json`, under `mcp` →
//!   `servers`. JSON with comments and trailing commas.
//! - Windsurf: `~/.codeium/windsurf/mcp_config.json`; `mcpServers`.
//! - Gemini CLI: `~/.gemini/settings.json` and `.gemini/settings.json` in the
//!   project; `mcpServers`.
//! - Codex: `config.toml` in `$CODEX_HOME` (default `~/.codex`), and
//!   `.codex/config.toml` in a trusted project; tables `[mcp_servers.NAME]`.

use super::entries::{Format, Remote};
use std::path::{Path, PathBuf};

/// A client `wrap` can edit the configuration of.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Client {
    /// Claude Desktop.
    ClaudeDesktop,
    /// Claude Code.
    ClaudeCode,
    /// Cursor.
    Cursor,
    /// VS Code.
    Vscode,
    /// Windsurf.
    Windsurf,
    /// Gemini CLI.
    Gemini,
    /// Codex.
    Codex,
}

/// One configuration file of a client.
pub struct ConfigFile {
    /// Whose it is.
    pub client: Client,
    /// Where it is.
    pub path: PathBuf,
    /// How it is written.
    pub format: Format,
    /// The keys leading to each servers table (`*`: through every member).
    pub tables: &'static [&'static [&'static str]],
}

impl Client {
    /// Every client, in the order `status` lists them.
    pub const ALL: [Client; 7] = [
        Client::ClaudeDesktop,
        Client::ClaudeCode,
        Client::Cursor,
        Client::Vscode,
        Client::Windsurf,
        Client::Gemini,
        Client::Codex,
    ];

    /// The name on the command line and in session names.
    pub fn name(self) -> &'static str {
        match self {
            Client::ClaudeDesktop => "claude-desktop",
            Client::ClaudeCode => "claude-code",
            Client::Cursor => "cursor",
            Client::Vscode => "vscode",
            Client::Windsurf => "windsurf",
            Client::Gemini => "gemini",
            Client::Codex => "codex",
        }
    }

    /// The format of a file of this client (VS Code's user `settings.json` puts its
    /// servers under `mcp` → `servers`: told apart by its file name).
    pub fn file(self, path: PathBuf) -> ConfigFile {
        let named = |n: &str| path.file_name().is_some_and(|f| f == n);
        let (format, tables): (Format, &'static [&'static [&'static str]]) = match self {
            Client::Codex => (Format::Toml, &[&["mcp_servers"]]),
            Client::Vscode if named("settings.json") => (Format::Json, &[&["mcp", "servers"]]),
            Client::Vscode => (Format::Json, &[&["servers"]]),
            // Claude Code's user file also holds each project's local-scope servers.
            Client::ClaudeCode if named(".claude.json") => (
                Format::Json,
                &[&["mcpServers"], &["projects", "*", "mcpServers"]],
            ),
            _ => (Format::Json, &[&["mcpServers"]]),
        };
        ConfigFile {
            client: self,
            path,
            format,
            tables,
        }
    }

    /// This client's configuration files, user files first, then the project's
    /// (relative to `cwd`), at their documented places for this OS.
    pub fn files(self, env: &Env) -> Vec<ConfigFile> {
        let home = &env.home;
        let paths: Vec<PathBuf> = match self {
            Client::ClaudeDesktop => vec![env.app_config.join("Claude/claude_desktop_config.json")],
            Client::ClaudeCode => vec![home.join(".claude.json"), env.cwd.join(".mcp.json")],
            Client::Cursor => vec![
                home.join(".cursor/mcp.json"),
                env.cwd.join(".cursor/mcp.json"),
            ],
            Client::Vscode => vec![
                env.app_config.join("Code/User/mcp.json"),
                env.app_config.join("Code/User/settings.json"),
                env.cwd.join(".vscode/mcp.json"),
            ],
            Client::Windsurf => vec![home.join(".codeium/windsurf/mcp_config.json")],
            Client::Gemini => vec![
                home.join(".gemini/settings.json"),
                env.cwd.join(".gemini/settings.json"),
            ],
            Client::Codex => vec![
                env.codex_home.join("config.toml"),
                env.cwd.join(".codex/config.toml"),
            ],
        };
        paths.into_iter().map(|p| self.file(p)).collect()
    }

    /// Why a remote entry cannot stand behind `tap --remote`, if it cannot: the
    /// transport it names is not Streamable HTTP (the 2024-11-05 HTTP+SSE one: `type`
    /// `sse`, or Gemini CLI's `url`).
    pub fn remote_refusal(self, remote: &Remote) -> Option<String> {
        match remote.kind.as_deref() {
            None | Some("http" | "streamable-http" | "streamableHttp") => {}
            Some("sse") => {
                return Some(
                    "its type is sse, the 2024-11-05 HTTP+SSE transport; tap --remote speaks Streamable HTTP".into(),
                );
            }
            Some(other) => {
                return Some(format!("its type {other:?} is not one tap --remote speaks"));
            }
        }
        if self == Client::Gemini && remote.key == "url" {
            return Some("Gemini CLI's url is the 2024-11-05 HTTP+SSE transport (httpUrl is Streamable HTTP); tap --remote speaks Streamable HTTP".into());
        }
        None
    }
}

/// The directories the places above are relative to, read once from the
/// environment (tests point HOME and XDG_* elsewhere).
pub struct Env {
    /// The user's home: `HOME` (`USERPROFILE` on Windows).
    pub home: PathBuf,
    /// Where desktop apps keep their settings: `~/Library/Application Support`
    /// (macOS), `%APPDATA%` (Windows), `$XDG_CONFIG_HOME` or `~/.config` (Linux).
    pub app_config: PathBuf,
    /// `$CODEX_HOME`, else `~/.codex`.
    pub codex_home: PathBuf,
    /// The project: the current directory.
    pub cwd: PathBuf,
}

impl Env {
    /// From the process's environment.
    pub fn from_process() -> anyhow::Result<Env> {
        let var = |k: &str| {
            std::env::var_os(k)
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
        };
        let home = if cfg!(windows) { var("USERPROFILE") } else { var("HOME") }
            .ok_or_else(|| anyhow::anyhow!("HOME is not set: cannot find the clients' configurations (give --config PATH --client NAME)"))?;
        let app_config = if cfg!(target_os = "macos") {
            home.join("Library/Application Support")
        } else if cfg!(windows) {
            var("APPDATA").unwrap_or_else(|| home.join("AppData/Roaming"))
        } else {
            var("XDG_CONFIG_HOME").unwrap_or_else(|| home.join(".config"))
        };
        Ok(Env {
            codex_home: var("CODEX_HOME").unwrap_or_else(|| home.join(".codex")),
            app_config,
            cwd: std::env::current_dir()?,
            home,
        })
    }
}

/// The state directory: `$XDG_STATE_HOME/mcp-raw`, else `~/.local/state/mcp-raw`;
/// `~/Library/Application Support/mcp-raw` on macOS, `%LOCALAPPDATA%\mcp-raw` on
/// Windows.
pub fn state_dir() -> anyhow::Result<PathBuf> {
    let var = |k: &str| {
        std::env::var_os(k)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    if cfg!(windows) {
        if let Some(d) = var("LOCALAPPDATA") {
            return Ok(d.join("mcp-raw"));
        }
    } else if let Some(d) = var("XDG_STATE_HOME") {
        return Ok(d.join("mcp-raw"));
    }
    let home = if cfg!(windows) {
        var("USERPROFILE")
    } else {
        var("HOME")
    }
    .ok_or_else(|| {
        anyhow::anyhow!(
            "neither XDG_STATE_HOME nor HOME is set: no state directory (give --state-dir DIR)"
        )
    })?;
    Ok(if cfg!(target_os = "macos") {
        home.join("Library/Application Support/mcp-raw")
    } else {
        home.join(".local/state/mcp-raw")
    })
}

/// `path` shown with the home directory as `~` (shorter lines in `status`).
pub fn tilde(path: &Path, home: Option<&Path>) -> String {
    match home.and_then(|h| path.strip_prefix(h).ok()) {
        Some(rest) => format!("~/{}", rest.display()),
        None => path.display().to_string(),
    }
}
