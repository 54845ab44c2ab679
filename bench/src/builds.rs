//! `mcp-bench builds`: two builds of mcp-raw side by side, the default (dynamically
//! linked against glibc) and the fully static one the npm package and the wheel carry
//! (the book, `docs/en/src/use/install.md`). The same stdio cold start and idle RSS that `run` measures,
//! plus the size of each file, in one table with each build's ratio to the first,
//! taken repetition by repetition with the builds interleaved.
//!
//! ```text
//! mcp-bench builds NAME=BINARY NAME=BINARY [--reps N] [--starts N]
//! ```

use crate::messages::Era;
use crate::peer::Peer;
use crate::table::{Better, Table};
use crate::workload;

/// What `builds` was asked for.
#[derive(Debug)]
struct Options {
    /// (column name, path of the binary); the first is the yardstick of the ratios.
    builds: Vec<(String, String)>,
    /// Repetitions; the table shows medians.
    reps: usize,
    /// Process starts per cold-start measurement (their median is one repetition's value).
    starts: usize,
}

fn options(args: &[String]) -> Result<Options, String> {
    let mut o = Options {
        builds: Vec::new(),
        reps: 3,
        starts: 20,
    };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut count = || -> Result<usize, String> {
            let v = it.next().ok_or_else(|| format!("{a} needs a value"))?;
            v.parse::<usize>()
                .ok()
                .filter(|n| *n > 0)
                .ok_or_else(|| format!("{a}: want a positive count, got {v:?}"))
        };
        match a.as_str() {
            "--reps" => o.reps = count()?,
            "--starts" => o.starts = count()?,
            b => match b.split_once('=') {
                Some((name, path)) if !name.is_empty() && !path.is_empty() => {
                    o.builds.push((name.to_owned(), path.to_owned()))
                }
                _ => return Err(format!("want NAME=BINARY or an option, got {b:?}")),
            },
        }
    }
    if o.builds.len() < 2 {
        return Err(
            "builds: name two builds or more, NAME=BINARY each (the first is the yardstick)".into(),
        );
    }
    Ok(o)
}

/// Measures and prints the table; an error if any measurement failed.
pub fn main(args: &[String]) -> Result<(), String> {
    let o = options(args)?;
    let names: Vec<String> = o.builds.iter().map(|(n, _)| n.clone()).collect();
    let mut table = Table::new(names.clone(), &names[0]);
    let peers: Vec<Peer> = o
        .builds
        .iter()
        .map(|(name, path)| Peer {
            name: name.clone(),
            floor: false,
            eras: vec![Era::Legacy],
            stdio: vec![path.clone(), "serve".into()],
            http: Vec::new(),
        })
        .collect();
    for rep in 0..o.reps {
        eprintln!("== repetition {} of {}", rep + 1, o.reps);
        for (p, (_, path)) in peers.iter().zip(&o.builds) {
            let bytes = std::fs::metadata(path)
                .map_err(|e| format!("{path}: {e}"))?
                .len();
            table.put(
                "file",
                "MiB",
                Better::Lower,
                &p.name,
                rep,
                Some(bytes as f64 / (1024.0 * 1024.0)),
            );
            let start = workload::cold_start(p, Era::Legacy, o.starts)
                .map_err(|e| format!("cold start, {}: {e}", p.name))?;
            eprintln!(
                "   cold start, {}: {:.2} ms",
                p.name,
                start.as_secs_f64() * 1e3
            );
            table.put(
                "stdio cold start",
                "ms to first answer",
                Better::Lower,
                &p.name,
                rep,
                Some(start.as_secs_f64() * 1e3),
            );
            let kib = workload::idle_rss(p, Era::Legacy, false)
                .map_err(|e| format!("idle RSS, {}: {e}", p.name))?;
            table.put(
                "idle RSS, stdio",
                "MiB",
                Better::Lower,
                &p.name,
                rep,
                Some(kib as f64 / 1024.0),
            );
        }
    }
    println!(
        "\n### mcp-raw's builds (ratio to {}, per repetition)\n",
        names[0]
    );
    print!("{}", table.markdown());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builds_are_named_and_at_least_two() {
        let args = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let o = options(&args(&["default=/a", "static=/b", "--reps", "2"])).unwrap();
        assert_eq!(o.builds[1], ("static".into(), "/b".into()));
        assert_eq!(o.reps, 2);
        assert!(
            options(&args(&["default=/a"]))
                .unwrap_err()
                .contains("two builds")
        );
        assert!(
            options(&args(&["/a", "b=/b"]))
                .unwrap_err()
                .contains("\"/a\"")
        );
        assert!(options(&args(&["a=/a", "b=/b", "--starts", "0"])).is_err());
    }
}
