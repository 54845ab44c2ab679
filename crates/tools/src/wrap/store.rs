//! What `wrap` keeps in the state directory (`STATE/wrap/`), per configuration file:
//! the original bytes before its first change (`KEY.orig`) and the manifest of the
//! edits made (`KEY.json`), both readable by the user alone (the originals hold the
//! configuration's secrets as they were); and the atomic write of a configuration.

use super::edit::{At, Edit};
use std::io::Write;
use std::path::{Path, PathBuf};

/// The two files kept for one configuration.
pub struct Kept {
    /// `KEY.orig`: the bytes before the first change.
    pub orig: PathBuf,
    /// `KEY.json`: the edits, per server.
    pub manifest: PathBuf,
}

/// The files kept for `config` under `state`: named after the file and a hash of
/// its absolute path (two `mcp.json` of two projects stay apart).
pub fn kept(state: &Path, config: &Path) -> Kept {
    let full = config.to_string_lossy();
    // FNV-1a, 64 bits: stable across runs and builds (std's hasher is not).
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in full.as_bytes() {
        h = (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3);
    }
    let base = crate::sessions::file_safe(
        &config
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default(),
    );
    let dir = state.join("wrap");
    Kept {
        orig: dir.join(format!("{base}-{h:016x}.orig")),
        manifest: dir.join(format!("{base}-{h:016x}.json")),
    }
}

/// The edits made to one file, per server name, in the order made.
pub type Manifest = Vec<(String, Vec<Edit>)>;

/// Reads a manifest (an absent one is empty).
pub fn read_manifest(path: &Path) -> anyhow::Result<Manifest> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => anyhow::bail!("cannot read {}: {e}", path.display()),
    };
    let bad = || anyhow::anyhow!("{} is not a manifest wrap wrote", path.display());
    let value: serde_json::Value = serde_json::from_str(&text).map_err(|_| bad())?;
    let mut out = Vec::new();
    for entry in value["servers"].as_array().ok_or_else(bad)? {
        let name = entry["name"].as_str().ok_or_else(bad)?.to_owned();
        let mut edits = Vec::new();
        for e in entry["edits"].as_array().ok_or_else(bad)? {
            edits.push(Edit {
                at: e["at"].as_str().and_then(At::from_name).ok_or_else(bad)?,
                original: e["original"].as_str().ok_or_else(bad)?.to_owned(),
                wrapped: e["wrapped"].as_str().ok_or_else(bad)?.to_owned(),
            });
        }
        out.push((name, edits));
    }
    Ok(out)
}

/// Writes a manifest (or removes it when empty).
pub fn write_manifest(path: &Path, config: &Path, manifest: &Manifest) -> anyhow::Result<()> {
    if manifest.is_empty() {
        return remove(path);
    }
    let servers: Vec<serde_json::Value> = manifest
        .iter()
        .map(|(name, edits)| {
            serde_json::json!({
                "name": name,
                "edits": edits.iter().map(|e| serde_json::json!({
                    "at": e.at.name(), "original": e.original, "wrapped": e.wrapped,
                })).collect::<Vec<_>>(),
            })
        })
        .collect();
    let doc = serde_json::json!({ "config": config.to_string_lossy(), "servers": servers });
    let mut text = serde_json::to_string_pretty(&doc)?;
    text.push('\n');
    private_file(path, text.as_bytes())
}

/// Writes `bytes` to a new file readable by the user alone (the directory made too).
pub fn private_file(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)
        .map_err(|e| anyhow::anyhow!("cannot create {}: {e}", dir.display()))?;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut f = options
        .open(path)
        .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", path.display()))?;
    f.write_all(bytes)
        .and_then(|()| f.sync_all())
        .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", path.display()))
}

/// Removes a file that may be absent.
pub fn remove(path: &Path) -> anyhow::Result<()> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            anyhow::bail!("cannot remove {}: {e}", path.display())
        }
        _ => Ok(()),
    }
}

/// Replaces `path`'s bytes with `new`, atomically (a temporary file in the same
/// directory, its mode the original's, synced, then renamed over it), but only if
/// the file still holds `old`: a client writing it meanwhile wins, and the caller is
/// told (nothing half-written either way).
pub fn replace(path: &Path, old: &[u8], new: &[u8]) -> anyhow::Result<()> {
    let meta = std::fs::metadata(path)
        .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", path.display()))?;
    let dir = path.parent().unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dir.join(format!(".{name}.mcp-raw-{}.tmp", std::process::id()));
    let write = || -> std::io::Result<()> {
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)?;
        f.write_all(new)?;
        f.set_permissions(meta.permissions())?;
        f.sync_all()
    };
    if let Err(e) = write() {
        let _ = std::fs::remove_file(&tmp);
        anyhow::bail!(
            "cannot write beside {} ({}): {e}; the file is unchanged",
            path.display(),
            tmp.display()
        );
    }
    // The last look before the rename: what we read is still what is there.
    if std::fs::read(path).ok().as_deref() != Some(old) {
        let _ = std::fs::remove_file(&tmp);
        anyhow::bail!(
            "{} changed while wrap was editing it (its client writing it?); left as the client wrote it: run the command again",
            path.display()
        );
    }
    std::fs::rename(&tmp, path).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        anyhow::anyhow!(
            "cannot replace {}: {e}; the file is unchanged",
            path.display()
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kept_files_are_apart_per_path_and_stable() {
        let state = Path::new("/state");
        let a = kept(state, Path::new("/p1/.cursor/mcp.json"));
        let b = kept(state, Path::new("/p2/.cursor/mcp.json"));
        assert_ne!(a.orig, b.orig);
        assert_eq!(a.orig, kept(state, Path::new("/p1/.cursor/mcp.json")).orig);
        let name = a.orig.file_name().unwrap().to_string_lossy().into_owned();
        assert!(
            name.starts_with("mcp.json-") && name.ends_with(".orig"),
            "{name}"
        );
        assert_eq!(a.orig.parent(), Some(Path::new("/state/wrap")));
        assert_eq!(a.manifest.with_extension("orig"), a.orig);
    }

    #[test]
    fn a_manifest_round_trips_and_replace_refuses_a_file_changed_meanwhile() {
        let dir = std::env::temp_dir().join(format!("mcp-raw-store-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let config = dir.join("mcp.json");
        let path = dir.join("wrap/m.json");
        let manifest: Manifest = vec![(
            "github".into(),
            vec![Edit {
                at: At::Args,
                original: "[\"a\"]".into(),
                wrapped: "[\"tap\", \"a\"]".into(),
            }],
        )];
        write_manifest(&path, &config, &manifest).expect("writes");
        let back = read_manifest(&path).expect("reads");
        assert_eq!(back.len(), 1);
        assert_eq!(back[0].0, "github");
        assert_eq!(back[0].1[0].at, At::Args);
        assert_eq!(back[0].1[0].wrapped, "[\"tap\", \"a\"]");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        write_manifest(&path, &config, &Vec::new()).expect("an empty one removes it");
        assert!(!path.exists());
        assert!(read_manifest(&path).expect("absent").is_empty());

        std::fs::write(&config, "old").expect("writes");
        let e = replace(&config, b"what we read", b"new").expect_err("changed meanwhile");
        assert!(
            format!("{e}").contains("changed while wrap was editing it"),
            "{e}"
        );
        assert_eq!(std::fs::read(&config).unwrap(), b"old");
        replace(&config, b"old", b"new").expect("replaces");
        assert_eq!(std::fs::read(&config).unwrap(), b"new");
        let left: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(left.len(), 2, "no temporary file left: {left:?}");
        std::fs::remove_dir_all(&dir).expect("cleans up");
    }
}
