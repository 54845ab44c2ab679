#!/usr/bin/env bash
# `mcp-raw show FILE --html`, checked in a real browser: the demos (stdio and HTTP, both
# eras) are recorded, each recording rendered as a page, and the page loaded in headless
# Chromium (Debian's `chromium`; .ci/run installs it). The page must load with no
# console error, its script must run (it logs how many payloads it shows), and the
# DOM must hold one row per message the recording holds (counted from `show --json`'s
# message facts).
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
status=0
for name in stdio-legacy stdio-modern http-legacy http-modern; do
  file=$dir/$name.jsonl page=$dir/$name.html
  "$bin" show "$file" --html "$page"
  want=$("$bin" show "$file" --json | grep -c '"fact":"message"')
  timeout 60 "$browser" --headless --no-sandbox --disable-gpu --enable-logging=stderr --v=0 \
    --dump-dom "file://$page" >"$dir/$name.dom" 2>"$dir/$name.log" || true
  got=$(grep -o 'class="msg' "$dir/$name.dom" | wc -l)
  logged=$(sed -n 's/.*"mcp-raw page: \([0-9]*\) payloads".*/\1/p' "$dir/$name.log" | head -n1)
  errors=$(grep -E 'CONSOLE.*(Uncaught|Error)|:ERROR:CONSOLE' "$dir/$name.log" || true)
  echo "$name demo: $want messages recorded, $got rows in the DOM, the script saw ${logged:-none}, $(wc -c <"$page") bytes"
  if [ "$got" -ne "$want" ] || [ "${logged:-x}" != "$want" ] || [ -n "$errors" ]; then
    echo "FAILED: $name page"; echo "$errors"; tail -n 20 "$dir/$name.log"; status=1
  fi
done
[ "$status" -eq 0 ] && echo "html: OK"
exit "$status"
