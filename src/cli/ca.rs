//! `mcp-raw ca`: the local CA of `tap --proxy` made, shown, rotated or deleted, and
//! what each runtime needs to trust it.

use super::args::{CaAction, CaArgs};
use super::console::Console;
use mcp_raw_tools::tap::ca;
use rustls::pki_types::pem::PemObject;
use std::fmt::Write;

/// Runs `mcp-raw ca ACTION`; what it did and how to trust the CA, in one write on
/// stdout.
pub fn main(args: CaArgs, console: &Console) -> anyhow::Result<()> {
    let mut out = String::new();
    let done = act(args, &mut out);
    console.print(out);
    done
}

fn act(args: CaArgs, out: &mut String) -> anyhow::Result<()> {
    let dir = match args.dir {
        Some(dir) => dir,
        None => ca::default_dir()?,
    };
    // Absolute paths: the lines printed for NODE_EXTRA_CA_CERTS and the rest must
    // work from any directory.
    let absolute = |dir: std::path::PathBuf| std::fs::canonicalize(&dir).unwrap_or(dir);
    let dir = absolute(dir);
    let (cert, key) = ca::paths(&dir);
    match args.action {
        CaAction::Create if ca::exists(&dir) => {
            let _ = writeln!(out, "a CA already exists: {}", cert.display());
            trust(out, &cert, &key);
        }
        CaAction::Create => {
            ca::create(&dir)?;
            let (cert, key) = ca::paths(&absolute(dir.clone()));
            let _ = writeln!(out, "created a CA: {}", cert.display());
            trust(out, &cert, &key);
        }
        CaAction::Rotate => {
            ca::delete(&dir)?;
            ca::create(&dir)?;
            let (cert, key) = ca::paths(&absolute(dir.clone()));
            let _ = writeln!(
                out,
                "a new CA replaces the old one: {} (programs that trusted the old one must trust this one now)",
                cert.display()
            );
            trust(out, &cert, &key);
        }
        CaAction::Delete => {
            let gone = ca::delete(&dir)?;
            if gone.is_empty() {
                let _ = writeln!(out, "no CA in {}", dir.display());
            }
            for path in gone {
                let _ = writeln!(out, "removed {}", path.display());
            }
            let _ = writeln!(
                out,
                "if you added it to the system store: sudo rm /usr/local/share/ca-certificates/mcp-raw.crt && sudo update-ca-certificates --fresh"
            );
        }
        CaAction::Show => {
            let der = rustls::pki_types::CertificateDer::pem_file_iter(&cert)
                .map_err(|e| {
                    anyhow::anyhow!("{}: {e} (create the CA with `mcp-raw ca`)", cert.display())
                })?
                .next()
                .ok_or_else(|| anyhow::anyhow!("{}: no certificate in it", cert.display()))?
                .map_err(|e| anyhow::anyhow!("{}: {e}", cert.display()))?;
            let facts = mcp_raw_net::client::tls::describe(&der);
            let _ = writeln!(out, "certificate: {}", cert.display());
            let _ = writeln!(out, "key:         {}", key.display());
            let _ = writeln!(out, "subject:     {}", facts.subject);
            let _ = writeln!(
                out,
                "valid:       {} to {}",
                facts.not_before, facts.not_after
            );
            let _ = writeln!(out, "SHA-256:     {}", facts.sha256);
        }
    }
    Ok(())
}

/// The lines that make each runtime trust the CA, and what trusting it means.
fn trust(out: &mut String, cert: &std::path::Path, key: &std::path::Path) {
    let _ = writeln!(out, "key (0600, keep it private): {}", key.display());
    let _ = writeln!(out, "to trust it:");
    for line in ca::trust_lines(cert) {
        let _ = writeln!(out, "  {line}");
    }
    let _ = writeln!(
        out,
        "whoever holds the key can impersonate any site to a program that trusts this CA: `mcp-raw ca delete` when done"
    );
}
