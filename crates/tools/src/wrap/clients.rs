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
            // Each VS Code profile but the default keeps its own `mcp.json` under
            // `User/profiles/ID/` (VS Code "Profiles"; the default's is `User/`'s).
            Client::Vscode => {
                let user = env.app_config.join("Code/User");
                let mut files = vec![user.join("mcp.json"), user.join("settings.json")];
                let mut profiles: Vec<PathBuf> = std::fs::read_dir(user.join("profiles"))
                    .into_iter()
                    .flatten()
                    .flatten()
                    .map(|d| d.path().join("mcp.json"))
                    .filter(|p| p.is_file())
                    .collect();
                profiles.sort();
                files.extend(profiles);
                files.push(env.cwd.join(".vscode/mcp.json"));
                files
            }
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

/// The operating systems whose places differ.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Os {
    /// Linux and the other Unixes: XDG directories.
    Linux,
    /// macOS: `~/Library/Application Support`.
    Macos,
    /// Windows: `%APPDATA%`, `%LOCALAPPDATA%`, `%USERPROFILE%`.
    Windows,
}

impl Os {
    /// The one this binary was built for.
    pub fn this() -> Os {
        if cfg!(target_os = "macos") {
            Os::Macos
        } else if cfg!(windows) {
            Os::Windows
        } else {
            Os::Linux
        }
    }
}

/// An environment variable, non-empty, as a path.
type Var<'a> = &'a dyn Fn(&str) -> Option<PathBuf>;

/// The process's environment, as [`Var`] reads it.
fn process_var(k: &str) -> Option<PathBuf> {
    std::env::var_os(k)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
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
    /// From the process's environment, for this OS.
    pub fn from_process() -> anyhow::Result<Env> {
        Env::of(Os::this(), &process_var, std::env::current_dir()?)
    }

    /// From the variables `var` reads, as `os` places things.
    pub fn of(os: Os, var: Var, cwd: PathBuf) -> anyhow::Result<Env> {
        let home = if os == Os::Windows { var("USERPROFILE") } else { var("HOME") }
            .ok_or_else(|| anyhow::anyhow!("HOME is not set: cannot find the clients' configurations (give --config PATH --client NAME)"))?;
        let app_config = match os {
            Os::Macos => home.join("Library/Application Support"),
            Os::Windows => var("APPDATA").unwrap_or_else(|| home.join("AppData/Roaming")),
            Os::Linux => var("XDG_CONFIG_HOME").unwrap_or_else(|| home.join(".config")),
        };
        Ok(Env {
            codex_home: var("CODEX_HOME").unwrap_or_else(|| home.join(".codex")),
            app_config,
            cwd,
            home,
        })
    }
}

/// The state directory: `$XDG_STATE_HOME/mcp-raw`, else `~/.local/state/mcp-raw`;
/// `~/Library/Application Support/mcp-raw` on macOS, `%LOCALAPPDATA%\mcp-raw` on
/// Windows.
pub fn state_dir() -> anyhow::Result<PathBuf> {
    state_dir_of(Os::this(), &process_var)
}

/// [`state_dir`] from the variables `var` reads, as `os` places it.
pub fn state_dir_of(os: Os, var: Var) -> anyhow::Result<PathBuf> {
    if os == Os::Windows {
        if let Some(d) = var("LOCALAPPDATA") {
            return Ok(d.join("mcp-raw"));
        }
    } else if let Some(d) = var("XDG_STATE_HOME") {
        return Ok(d.join("mcp-raw"));
    }
    let home = if os == Os::Windows {
        var("USERPROFILE")
    } else {
        var("HOME")
    }
    .ok_or_else(|| {
        anyhow::anyhow!(
            "neither XDG_STATE_HOME nor HOME is set: no state directory (give --state-dir DIR)"
        )
    })?;
    Ok(match os {
        Os::Macos => home.join("Library/Application Support/mcp-raw"),
        Os::Windows => home.join("AppData/Local/mcp-raw"),
        Os::Linux => home.join(".local/state/mcp-raw"),
    })
}

/// `path` shown with the home directory as `~` (shorter lines in `status`).
pub fn tilde(path: &Path, home: Option<&Path>) -> String {
    match home.and_then(|h| path.strip_prefix(h).ok()) {
        Some(rest) => format!("~/{}", rest.display()),
        None => path.display().to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The variables of a fake environment.
    fn vars(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<PathBuf> + use<> {
        let map: Vec<(String, PathBuf)> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), PathBuf::from(v)))
            .collect();
        move |k| map.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone())
    }

    fn places(os: Os, pairs: &[(&str, &str)]) -> Vec<String> {
        let env = Env::of(os, &vars(pairs), PathBuf::from("/p")).unwrap();
        Client::ALL
            .iter()
            .flat_map(|c| c.files(&env))
            .map(|f| f.path.display().to_string())
            .collect()
    }

    #[test]
    fn each_os_puts_each_client_at_its_documented_place() {
        let mac = places(Os::Macos, &[("HOME", "/Users/u")]);
        assert!(
            mac.contains(
                &"/Users/u/Library/Application Support/Claude/claude_desktop_config.json"
                    .to_owned()
            ),
            "{mac:?}"
        );
        assert!(
            mac.contains(&"/Users/u/Library/Application Support/Code/User/mcp.json".to_owned()),
            "{mac:?}"
        );
        assert!(
            mac.contains(&"/Users/u/.cursor/mcp.json".to_owned()),
            "{mac:?}"
        );
        let win = places(
            Os::Windows,
            &[
                ("USERPROFILE", "C:/Users/u"),
                ("APPDATA", "C:/Users/u/AppData/Roaming"),
            ],
        );
        assert!(
            win.contains(
                &"C:/Users/u/AppData/Roaming/Claude/claude_desktop_config.json".to_owned()
            ),
            "{win:?}"
        );
        assert!(
            win.contains(&"C:/Users/u/AppData/Roaming/Code/User/settings.json".to_owned()),
            "{win:?}"
        );
        assert!(
            win.contains(&"C:/Users/u/.claude.json".to_owned()),
            "{win:?}"
        );
        // Without APPDATA, its default under the profile.
        let bare = places(Os::Windows, &[("USERPROFILE", "C:/Users/u")]);
        assert!(
            bare.contains(
                &"C:/Users/u/AppData/Roaming/Claude/claude_desktop_config.json".to_owned()
            ),
            "{bare:?}"
        );
        let linux = places(Os::Linux, &[("HOME", "/home/u"), ("CODEX_HOME", "/c")]);
        assert!(
            linux.contains(&"/home/u/.config/Claude/claude_desktop_config.json".to_owned()),
            "{linux:?}"
        );
        assert!(linux.contains(&"/c/config.toml".to_owned()), "{linux:?}");
        assert!(
            linux.contains(&"/p/.vscode/mcp.json".to_owned()),
            "{linux:?}"
        );
        // No home: said, naming the way out.
        let none = Env::of(Os::Windows, &vars(&[("HOME", "/h")]), PathBuf::from("/p"));
        assert!(
            none.err()
                .is_some_and(|e| e.to_string().contains("--config PATH"))
        );
    }

    #[test]
    fn each_os_has_its_state_directory() {
        let at = |os, pairs: &[(&str, &str)]| state_dir_of(os, &vars(pairs)).unwrap();
        assert_eq!(
            at(Os::Linux, &[("HOME", "/h")]),
            PathBuf::from("/h/.local/state/mcp-raw")
        );
        assert_eq!(
            at(Os::Linux, &[("HOME", "/h"), ("XDG_STATE_HOME", "/s")]),
            PathBuf::from("/s/mcp-raw")
        );
        // Set on a Mac too (a user who keeps XDG there), it is honoured.
        assert_eq!(
            at(Os::Macos, &[("HOME", "/Users/u")]),
            PathBuf::from("/Users/u/Library/Application Support/mcp-raw")
        );
        assert_eq!(
            at(Os::Macos, &[("HOME", "/Users/u"), ("XDG_STATE_HOME", "/s")]),
            PathBuf::from("/s/mcp-raw")
        );
        assert_eq!(
            at(Os::Windows, &[("LOCALAPPDATA", "C:/L")]),
            PathBuf::from("C:/L/mcp-raw")
        );
        assert_eq!(
            at(Os::Windows, &[("USERPROFILE", "C:/Users/u")]),
            PathBuf::from("C:/Users/u/AppData/Local/mcp-raw")
        );
        assert!(state_dir_of(Os::Linux, &vars(&[])).is_err());
    }

    #[test]
    fn vs_code_profiles_have_their_own_mcp_json() {
        let root = std::env::temp_dir().join(format!("mcp-raw-vscode-{}", std::process::id()));
        let user = root.join(".config/Code/User");
        for id in ["-2b1c3d", "7f00aa"] {
            std::fs::create_dir_all(user.join("profiles").join(id)).unwrap();
        }
        std::fs::write(user.join("profiles/7f00aa/mcp.json"), "{}").unwrap();
        let env = Env::of(
            Os::Linux,
            &vars(&[("HOME", root.to_str().unwrap())]),
            PathBuf::from("/p"),
        )
        .unwrap();
        let files: Vec<PathBuf> = Client::Vscode
            .files(&env)
            .into_iter()
            .map(|f| f.path)
            .collect();
        assert_eq!(
            files,
            [
                user.join("mcp.json"),
                user.join("settings.json"),
                user.join("profiles/7f00aa/mcp.json"),
                PathBuf::from("/p/.vscode/mcp.json"),
            ]
        );
        let _ = std::fs::remove_dir_all(&root);
    }
}
