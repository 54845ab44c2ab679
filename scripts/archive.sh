#!/usr/bin/env bash
# The release asset of one platform, named as `cargo binstall` looks for it (the root
# Cargo.toml's [package.metadata.binstall]):
#
#   scripts/archive.sh TRIPLE BINARY OUTDIR   ->  OUTDIR/mcp-raw-VERSION-TRIPLE.tar.gz
#                                                 (.zip for a Windows triple)
#
# holding mcp-raw-VERSION-TRIPLE/mcp-raw (or mcp-raw.exe) and the two licences.
# .github/workflows/release.yml and scripts/packages.sh both call it, so the name CI
# checks against binstall's template is the name a release publishes. Prints the path.
set -euo pipefail
[ $# = 3 ] || { echo "usage: scripts/archive.sh TRIPLE BINARY OUTDIR" >&2; exit 2; }
triple=$1 binary=$2 out=$3
root=$(cd "$(dirname "$0")/.." && pwd)
version=$(sed -n '/^\[workspace.package\]/,/^\[/s/^version = "\(.*\)"/\1/p' "$root/Cargo.toml")
[ -n "$version" ] || { echo "archive.sh: no version under [workspace.package] in Cargo.toml" >&2; exit 1; }
name=mcp-raw-$version-$triple
mkdir -p "$out"
out=$(cd "$out" && pwd)
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir "$stage/$name"
case $triple in
  *windows*) exe=mcp-raw.exe ;;
  *) exe=mcp-raw ;;
esac
install -m 755 "$binary" "$stage/$name/$exe"
cp "$root/LICENSE-MIT" "$root/LICENSE-APACHE" "$stage/$name/"
case $triple in
  *windows*) (cd "$stage" && 7z a -tzip -bd "$out/$name.zip" "$name" >/dev/null) && echo "$out/$name.zip" ;;
  *) tar -C "$stage" -czf "$out/$name.tar.gz" "$name" && echo "$out/$name.tar.gz" ;;
esac
