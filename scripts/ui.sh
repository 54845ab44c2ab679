#!/usr/bin/env bash
# `mcp-raw ui`, checked in a real browser: the demos (stdio and HTTP, both eras, and
# the OAuth flow of `demo-http --auth`) are recorded, each recording opened with
# `mcp-raw ui`, and the page loaded in headless Chromium (Debian's `chromium`; .ci/run
# installs it). What is checked, and how, is said at the top of scripts/ui_check.py.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
browser=$(command -v chromium || command -v chromium-browser || true)
[ -n "$browser" ] || { echo "chromium is not installed (apt-get install chromium)" >&2; exit 1; }
echo "== cargo build --release"
cargo build --release
bin=$(realpath -m "${CARGO_TARGET_DIR:-target}")/release/mcp-raw
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
for era in legacy modern; do
  "$bin" demo --era "$era" --color never --record "$dir/stdio-$era.jsonl" >/dev/null
  "$bin" demo-http --era "$era" --color never --record "$dir/http-$era.jsonl" >/dev/null
done
# The OAuth flow (an authorization server and a protected server, both spawned).
"$bin" demo-http --auth --color never --record "$dir/http-auth.jsonl" >/dev/null
python3 scripts/ui_check.py "$bin" "$browser" \
  "$dir/stdio-legacy.jsonl" "$dir/stdio-modern.jsonl" "$dir/http-legacy.jsonl" "$dir/http-modern.jsonl" \
  "$dir/http-auth.jsonl"
# Live: a server's page open in a browser driven over the DevTools protocol while
# clients come, through a reload (what scripts/ui_live.py checks is said at its top).
python3 scripts/ui_live.py "$bin" "$browser"
