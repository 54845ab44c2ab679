#!/usr/bin/env bash
# `mcp-raw show FILE --html`, checked in a real browser: the demos (stdio and HTTP, both
# eras, and the OAuth flow of `demo-http --auth`) are recorded, each recording written
# as a page (the live page of `mcp-raw ui`, frozen into one file), and the page opened
# from its file in headless Chromium
# (Debian's `chromium`; .ci/run installs it): no listener, no network. The checks are
# scripts/ui_check.py's with --frozen (said at its top): the page must hold one
# message per message the recording holds (counted from `show --json`'s message
# facts), its script must log that count, its console no error; its filters, its
# sequence view and a row opened from the URL are checked as the live page's are.
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
python3 scripts/ui_check.py --frozen "$bin" "$browser" \
  "$dir/stdio-legacy.jsonl" "$dir/stdio-modern.jsonl" "$dir/http-legacy.jsonl" "$dir/http-modern.jsonl" \
  "$dir/http-auth.jsonl"
