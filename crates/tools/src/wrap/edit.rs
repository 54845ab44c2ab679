//! The edits themselves, on text: an entry wrapped (a stdio entry's `command` and
//! `args` literals replaced, nothing else; a remote entry's object replaced by a
//! stdio entry that runs `tap --remote URL`), and the same edits undone, each checked
//! first against what the file holds now.

use super::entries::{Entry, Format, Remote, Shape};
use super::jsonc::quote;
use std::ops::Range;

/// Which value of an entry an edit starts at.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum At {
    /// The `command` literal (and, when the entry had no `args`, the member
    /// inserted after it).
    Command,
    /// The `args` array.
    Args,
    /// A remote entry's whole object, replaced by a stdio one.
    Entry,
}

impl At {
    /// As kept in the manifest.
    pub fn name(self) -> &'static str {
        match self {
            At::Command => "command",
            At::Args => "args",
            At::Entry => "entry",
        }
    }

    /// From the manifest.
    pub fn from_name(s: &str) -> Option<At> {
        match s {
            "command" => Some(At::Command),
            "args" => Some(At::Args),
            "entry" => Some(At::Entry),
            _ => None,
        }
    }
}

/// One change to one entry: the bytes that were there and the bytes put there.
#[derive(Clone, Debug)]
pub struct Edit {
    /// Where it starts.
    pub at: At,
    /// The bytes before `install` (what `uninstall` puts back).
    pub original: String,
    /// The bytes `install` wrote.
    pub wrapped: String,
}

/// An edit and the span of the file it replaces.
pub type Placed = (Range<usize>, Edit);

/// What `wrap` puts in front of a server.
pub struct Shim<'a> {
    /// The entry's `command`: the running mcp-raw's absolute path, or the launcher
    /// that fetched it into a cache it may clear ([`launcher`]).
    pub bin: &'a str,
    /// The launcher's arguments before `tap` (`-y mcp-raw@VERSION` for `npx`); none
    /// for the binary itself.
    pub prefix: &'a [String],
    /// The sessions directory the tap records into.
    pub record_dir: &'a str,
}

impl<'a> Shim<'a> {
    /// The binary at `bin`, or the [`launcher`] that `fetched` it.
    pub fn new(
        bin: &'a str,
        fetched: Option<&'a (String, Vec<String>)>,
        record_dir: &'a str,
    ) -> Self {
        match fetched {
            Some((command, prefix)) => Shim {
                bin: command,
                prefix,
                record_dir,
            },
            None => Shim {
                bin,
                prefix: &[],
                record_dir,
            },
        }
    }
}

/// Where the running mcp-raw lives when a package runner fetched it into a cache it
/// may clear at any time (`npx`'s `_npx/`, uv's `archive-v*/` for `uvx`, pipx's
/// `.cache/` for `pipx run`): the command and the arguments before `tap` that fetch
/// this version again, for the entries `wrap` writes to outlive that cache. `None`:
/// an installed binary, written as its path.
pub fn launcher(exe: &str, version: &str) -> Option<(String, Vec<String>)> {
    let parts: Vec<&str> = exe.split(['/', '\\']).collect();
    let has = |name: &str| parts.contains(&name);
    if has("_npx") {
        return Some((
            "npx".into(),
            vec!["-y".into(), format!("mcp-raw@{version}")],
        ));
    }
    if parts.iter().any(|p| p.starts_with("archive-v")) && has("uv") {
        return Some(("uvx".into(), vec![format!("mcp-raw@{version}")]));
    }
    if has("pipx") && has(".cache") {
        return Some((
            "pipx".into(),
            vec!["run".into(), format!("mcp-raw=={version}")],
        ));
    }
    None
}

/// Whether an entry's command is already the tap (an mcp-raw binary run as `tap`
/// with `--name`, or a [`launcher`] of one): install leaves it, status says wrapped.
pub fn is_wrapped(entry: &Entry) -> bool {
    let Shape::Stdio { command, args, .. } = &entry.shape else {
        return false;
    };
    let program = command
        .value
        .rsplit(['/', '\\'])
        .next()
        .unwrap_or(&command.value);
    let args: Vec<&str> = args
        .as_ref()
        .map(|(_, a)| a.iter().map(|s| s.value.as_str()).collect())
        .unwrap_or_default();
    let tap_at = match (program, args.as_slice()) {
        ("mcp-raw" | "mcp-raw.exe", _) => 0,
        ("npx" | "npx.cmd", ["-y", package, ..]) if package.starts_with("mcp-raw@") => 2,
        ("uvx" | "uvx.exe", [package, ..]) if package.starts_with("mcp-raw@") => 1,
        ("pipx" | "pipx.exe", ["run", package, ..]) if package.starts_with("mcp-raw==") => 2,
        _ => return false,
    };
    args.get(tap_at) == Some(&"tap") && args.contains(&"--name")
}

/// The edits that wrap a stdio entry, each with the span of the file it replaces:
/// `command` becomes the mcp-raw binary, `args` becomes `tap --record-dir DIR --name
/// CLIENT/SERVER -- COMMAND ARG…`, the original command and arguments copied as
/// the literals they were written as (their escapes, their quotes).
pub fn wrap(
    text: &str,
    format: Format,
    entry: &Entry,
    shim: &Shim,
    name: &str,
) -> Vec<(Range<usize>, Edit)> {
    let Shape::Stdio {
        command,
        args,
        insert_sep,
    } = &entry.shape
    else {
        return Vec::new();
    };
    let mut items: Vec<String> = shim.prefix.iter().map(|s| quote(s)).collect();
    items.extend(
        ["tap", "--record-dir", shim.record_dir, "--name", name, "--"]
            .iter()
            .map(|s| quote(s)),
    );
    items.push(text[command.span.clone()].to_owned());
    if let Some((_, list)) = args {
        items.extend(list.iter().map(|a| text[a.span.clone()].to_owned()));
    }
    let array = format!("[{}]", items.join(", "));
    let bin = quote(shim.bin);
    match args {
        Some((span, _)) => vec![
            (
                command.span.clone(),
                Edit {
                    at: At::Command,
                    original: text[command.span.clone()].to_owned(),
                    wrapped: bin,
                },
            ),
            (
                span.clone(),
                Edit {
                    at: At::Args,
                    original: text[span.clone()].to_owned(),
                    wrapped: array,
                },
            ),
        ],
        None => {
            let key = match format {
                Format::Json => "\"args\": ",
                Format::Toml => "args = ",
            };
            vec![(
                command.span.clone(),
                Edit {
                    at: At::Command,
                    original: text[command.span.clone()].to_owned(),
                    wrapped: format!("{bin}{insert_sep}{key}{array}"),
                },
            )]
        }
    }
}

/// The edit that puts a stdio entry in place of a remote (URL) one, a JSON object of
/// its own: `type` (`stdio`, when the entry had a `type`), `command` the mcp-raw
/// binary, `args` `tap --remote URL [--header 'NAME: VALUE'…] --record-dir DIR --name
/// CLIENT/SERVER` (the URL literal copied as written, each header as the client would
/// send it: a `${VAR}` in it is left for the client to fill in, as it does in `args`),
/// then every other member as written. `uninstall` puts the original object back.
pub fn wrap_remote(text: &str, remote: &Remote, shim: &Shim, name: &str) -> Vec<Placed> {
    let mut items: Vec<String> = shim.prefix.iter().map(|s| quote(s)).collect();
    items.extend([
        quote("tap"),
        quote("--remote"),
        text[remote.url.span.clone()].to_owned(),
    ]);
    for header in &remote.headers {
        items.push(quote("--header"));
        items.push(quote(header));
    }
    for word in ["--record-dir", shim.record_dir, "--name", name] {
        items.push(quote(word));
    }
    let mut members = Vec::new();
    if remote.kind.is_some() {
        members.push(format!("{}: {}", quote("type"), quote("stdio")));
    }
    members.push(format!("{}: {}", quote("command"), quote(shim.bin)));
    members.push(format!("{}: [{}]", quote("args"), items.join(", ")));
    for (key, span) in &remote.others {
        members.push(format!("{}: {}", quote(key), &text[span.clone()]));
    }
    vec![(
        remote.span.clone(),
        Edit {
            at: At::Entry,
            original: text[remote.span.clone()].to_owned(),
            wrapped: format!("{{{}}}", members.join(", ")),
        },
    )]
}

/// Where an edit of `entry` starts in the current text.
pub fn start_of(entry: &Entry, at: At) -> Option<usize> {
    if at == At::Entry {
        return entry.span.as_ref().map(|s| s.start);
    }
    match (&entry.shape, at) {
        (Shape::Stdio { command, .. }, At::Command) => Some(command.span.start),
        (
            Shape::Stdio {
                args: Some((span, _)),
                ..
            },
            At::Args,
        ) => Some(span.start),
        _ => None,
    }
}

/// `text` with each span replaced (spans must not overlap).
pub fn splice(text: &str, mut edits: Vec<(Range<usize>, String)>) -> String {
    edits.sort_by_key(|(span, _)| std::cmp::Reverse(span.start));
    let mut out = text.to_owned();
    for (span, new) in edits {
        out.replace_range(span, &new);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wrap::entries::{self, Found};

    /// `text` with every edit's wrapped bytes in place.
    fn wrapped(text: &str, edits: &[(Range<usize>, Edit)]) -> String {
        splice(
            text,
            edits
                .iter()
                .map(|(s, e)| (s.clone(), e.wrapped.clone()))
                .collect(),
        )
    }

    fn entries(format: Format, text: &str, table: &str) -> Vec<Entry> {
        match entries::read(format, text, &[&[table]]) {
            Ok(Found::Entries(e)) => e,
            _ => panic!("no entries in {text:?}"),
        }
    }

    const SHIM: Shim = Shim {
        bin: "/bin/mcp-raw",
        prefix: &[],
        record_dir: "/s",
    };

    #[test]
    fn a_binary_in_a_package_runners_cache_is_written_as_its_launcher() {
        let npx = "/home/u/.npm/_npx/0a1b/node_modules/@mcp-raw/linux-x64/bin/mcp-raw";
        let (command, prefix) = launcher(npx, "0.1.0").expect("npx's cache");
        assert_eq!(command, "npx");
        assert_eq!(prefix, ["-y", "mcp-raw@0.1.0"]);
        let uvx = "/home/u/.cache/uv/archive-v0/XyZ/bin/mcp-raw";
        assert_eq!(launcher(uvx, "0.1.0").map(|l| l.0).as_deref(), Some("uvx"));
        let pipx = "/home/u/.local/pipx/.cache/9f8e/bin/mcp-raw";
        assert_eq!(
            launcher(pipx, "0.1.0").map(|l| l.0).as_deref(),
            Some("pipx")
        );
        assert!(launcher("/usr/local/bin/mcp-raw", "0.1.0").is_none());
        assert!(launcher("/home/u/.cargo/bin/mcp-raw", "0.1.0").is_none());
        // Wrapped through npx, the entry still reads as wrapped.
        let text = "{\"mcpServers\": {\"x\": {\"command\": \"node\", \"args\": [\"s.js\"]}}}";
        let found = entries(Format::Json, text, "mcpServers");
        let shim = Shim {
            bin: "npx",
            prefix: &prefix,
            record_dir: "/s",
        };
        let new = wrapped(
            text,
            &wrap(text, Format::Json, &found[0], &shim, "cursor/x"),
        );
        assert_eq!(
            new,
            "{\"mcpServers\": {\"x\": {\"command\": \"npx\", \"args\": [\"-y\", \"mcp-raw@0.1.0\", \"tap\", \"--record-dir\", \"/s\", \"--name\", \"cursor/x\", \"--\", \"node\", \"s.js\"]}}}"
        );
        assert!(is_wrapped(&entries(Format::Json, &new, "mcpServers")[0]));
        // npx running something else is not a wrap.
        let other = "{\"mcpServers\": {\"x\": {\"command\": \"npx\", \"args\": [\"-y\", \"pkg\", \"tap\", \"--name\"]}}}";
        assert!(!is_wrapped(&entries(Format::Json, other, "mcpServers")[0]));
    }

    #[test]
    fn a_json_entry_without_args_gets_one_after_its_command() {
        let text = "{\"mcpServers\": {\"x\": {\"command\": \"n\\u0070x\" /* c */}}}";
        let found = entries(Format::Json, text, "mcpServers");
        let edits = wrap(text, Format::Json, &found[0], &SHIM, "cursor/x");
        assert_eq!(edits.len(), 1);
        let new = wrapped(text, &edits);
        assert_eq!(
            new,
            "{\"mcpServers\": {\"x\": {\"command\": \"/bin/mcp-raw\", \"args\": [\"tap\", \"--record-dir\", \"/s\", \"--name\", \"cursor/x\", \"--\", \"n\\u0070x\"] /* c */}}}"
        );
        let wrapped = entries(Format::Json, &new, "mcpServers");
        assert!(is_wrapped(&wrapped[0]));
        // Undone: the edit's bytes found where it starts now, the original put back.
        let (_, e) = &edits[0];
        let at = start_of(&wrapped[0], e.at).expect("the command");
        assert!(new[at..].starts_with(&e.wrapped));
        let back = splice(&new, vec![(at..at + e.wrapped.len(), e.original.clone())]);
        assert_eq!(back, text);
    }

    #[test]
    fn a_toml_table_entry_keeps_its_literals_and_line_endings() {
        let text = "[mcp_servers.x]\r\ncommand = 'npx' # c\r\nargs = [\"-y\", 'pkg']\r\n";
        let found = entries(Format::Toml, text, "mcp_servers");
        let edits = wrap(text, Format::Toml, &found[0], &SHIM, "codex/x");
        let new = wrapped(text, &edits);
        assert_eq!(
            new,
            "[mcp_servers.x]\r\ncommand = \"/bin/mcp-raw\" # c\r\nargs = [\"tap\", \"--record-dir\", \"/s\", \"--name\", \"codex/x\", \"--\", 'npx', \"-y\", 'pkg']\r\n"
        );
        assert!(is_wrapped(&entries(Format::Toml, &new, "mcp_servers")[0]));
    }
}
