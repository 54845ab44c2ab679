//! The install packages agree with each other and with the crate (README, "Install"):
//! the npm launcher's package and each platform's package carry the crate's version,
//! the launcher's optional dependencies are exactly the platform packages laid out
//! under `packaging/npm/platforms/`, each of which npm installs only on its own `os`
//! and `cpu`; the release workflow builds each of them; maturin is the same pinned
//! version everywhere. `scripts/packages.sh` (CI) builds and runs the packages
//! themselves; this test catches a version bumped in one place and not the others.

use serde_json::Value;
use std::path::Path;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn read(path: &str) -> String {
    std::fs::read_to_string(Path::new(ROOT).join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn json(path: &str) -> Value {
    serde_json::from_str(&read(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The platform folders under `packaging/npm/platforms/`, sorted.
fn platforms() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(Path::new(ROOT).join("packaging/npm/platforms"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn the_npm_packages_carry_the_crate_version_and_name_each_other() {
    let version = env!("CARGO_PKG_VERSION");
    let main = json("packaging/npm/mcp-raw/package.json");
    assert_eq!(main["name"], "mcp-raw");
    assert_eq!(
        main["version"], version,
        "packaging/npm/mcp-raw/package.json"
    );
    assert_eq!(main["bin"]["mcp-raw"], "bin/mcp-raw.js");
    assert!(
        main.get("dependencies").is_none(),
        "the launcher has no dependencies"
    );
    let optional = main["optionalDependencies"].as_object().unwrap();
    let mut named: Vec<String> = optional
        .keys()
        .map(|k| {
            k.strip_prefix("@mcp-raw/")
                .unwrap_or_else(|| panic!("{k}: not in the @mcp-raw scope"))
                .to_owned()
        })
        .collect();
    named.sort();
    assert_eq!(
        named,
        platforms(),
        "optionalDependencies against packaging/npm/platforms/"
    );
    for (name, wanted) in optional {
        assert_eq!(
            wanted, version,
            "{name}: the launcher must ask for its own version"
        );
    }
    for platform in platforms() {
        let path = format!("packaging/npm/platforms/{platform}/package.json");
        let p = json(&path);
        assert_eq!(p["name"], format!("@mcp-raw/{platform}"), "{path}");
        assert_eq!(p["version"], version, "{path}");
        // The folder is `<process.platform>-<process.arch>`, which the launcher builds
        // the name from; npm installs the package only where both match.
        let (os, cpu) = platform.split_once('-').unwrap();
        assert_eq!(p["os"], serde_json::json!([os]), "{path}");
        assert_eq!(p["cpu"], serde_json::json!([cpu]), "{path}");
        let exe = if os == "win32" {
            "bin/mcp-raw.exe"
        } else {
            "bin/mcp-raw"
        };
        assert_eq!(
            p["files"],
            serde_json::json!([exe, "LICENSE-MIT", "LICENSE-APACHE"]),
            "{path}"
        );
    }
}

#[test]
fn the_release_workflow_builds_every_platform_package() {
    let workflow = read(".github/workflows/release.yml");
    for platform in platforms() {
        assert!(
            workflow.contains(&format!("npm: {platform},")),
            "release.yml's matrix has no entry for npm: {platform}"
        );
    }
    assert_eq!(
        workflow.matches("npm: ").count(),
        platforms().len(),
        "release.yml builds a platform that has no npm package"
    );
}

#[test]
fn maturin_is_pinned_to_one_version_everywhere() {
    let pyproject = read("packaging/python/pyproject.toml");
    let pin = pyproject
        .lines()
        .find_map(|l| l.trim().strip_prefix("requires = [\"maturin=="))
        .and_then(|l| l.strip_suffix("\"]"))
        .expect("packaging/python/pyproject.toml pins maturin in build-system.requires");
    assert!(pyproject.contains("bindings = \"bin\""));
    assert!(pyproject.contains("manifest-path = \"../../Cargo.toml\""));
    let script = read("scripts/packages.sh");
    assert!(
        script.contains(&format!("maturin_version={pin}\n")),
        "scripts/packages.sh installs another maturin than {pin}"
    );
    let workflow = read(".github/workflows/release.yml");
    let pins: Vec<&str> = workflow.matches("maturin==").collect();
    assert!(!pins.is_empty());
    assert_eq!(
        workflow.matches(&format!("maturin=={pin}\n")).count(),
        pins.len(),
        "release.yml installs another maturin than {pin}"
    );
}
