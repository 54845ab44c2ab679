#!/usr/bin/env bash
# `mcp-raw export har` against the tools that read HAR: real recordings — a
# `demo-http --record` session, a `client --record` against `serve --http` in each era
# (2025-11-25 and 2026-07-28), a `tap --http` recording — exported, each validated
# against the HAR 1.2 schema by har-validator (npm), then read back by mitmproxy
# (`mitmdump -nr FILE.har`, PyPI) with the same requests and responses: method, URL,
# headers in order, bodies by SHA-256, status and reason. Then each HAR imported back
# (`import har`) and diffed with its recording: no difference.
#
# HARs made by real tools, imported: mitmproxy's (a reverse proxy in front of
# `serve --http`) and headless Chromium's (Playwright's recordHar, a page calling the
# server with fetch), each holding the messages that crossed.
#
# Pinned: har-validator and playwright-core (npm, `npm install --prefix`) and mitmproxy
# (PyPI, a venv), in .har-check/ (git-ignored, or $HAR_CHECK_HOME), reused while the
# pins match; the browser is Debian's chromium.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
HAR_VALIDATOR=5.1.5
PLAYWRIGHT_CORE=1.49.1
MITMPROXY=11.0.2
home=$(realpath -m "${HAR_CHECK_HOME:-.har-check}")
mkdir -p "$home"
if [[ "$(cat "$home/npm.pin" 2>/dev/null)" != "$HAR_VALIDATOR $PLAYWRIGHT_CORE" ]]; then
  echo "== installing har-validator@$HAR_VALIDATOR and playwright-core@$PLAYWRIGHT_CORE (no browser: Debian's chromium) into $home/npm"
  npm install --prefix "$home/npm" --no-audit --no-fund --loglevel=error \
    "har-validator@$HAR_VALIDATOR" "playwright-core@$PLAYWRIGHT_CORE"
  echo "$HAR_VALIDATOR $PLAYWRIGHT_CORE" > "$home/npm.pin"
fi
chromium=$(command -v chromium || command -v chromium-browser) || { echo "FAIL: no chromium (Debian's package)" >&2; exit 1; }
if [[ "$(cat "$home/mitm.pin" 2>/dev/null)" != "$MITMPROXY" ]]; then
  echo "== installing mitmproxy==$MITMPROXY into $home/venv"
  rm -rf "$home/venv"
  python3 -m venv "$home/venv"
  "$home/venv/bin/pip" install --quiet "mitmproxy==$MITMPROXY"
  echo "$MITMPROXY" > "$home/mitm.pin"
fi
echo "   har-validator $HAR_VALIDATOR, $("$home/venv/bin/mitmdump" --version | head -1)"

cargo build --quiet
bin=$(realpath -m "${CARGO_TARGET_DIR:-target}")/debug/mcp-raw
work=$(mktemp -d)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

# The URL a program announces on its first line of stderr (waits up to 10 s).
announced() {
  for _ in $(seq 100); do
    url=$(grep -o 'http://[^ ,]*' "$1" 2>/dev/null | head -1) && [ -n "$url" ] && { echo "$url"; return; }
    sleep 0.1
  done
  echo "FAIL: nothing announced in $1" >&2; cat "$1" >&2; exit 1
}

echo "== recordings"
timeout 60 "$bin" demo-http --record "$work/demo-http.jsonl" >/dev/null
"$bin" serve --http --port 0 2>"$work/serve.err" & pids+=($!)
server=$(announced "$work/serve.err")
for era in legacy modern; do
  timeout 60 "$bin" client "$server" --era "$era" --call 'echo={"message":"hi"}' --record "$work/client-$era.jsonl" >/dev/null
done
"$bin" tap --http --listen 0 --target "$server" --record "$work/tap-http.jsonl" 2>"$work/tap.err" & pids+=($!)
tap=$(announced "$work/tap.err")
timeout 60 "$bin" client "$tap" --call 'echo={"message":"through the tap"}' >/dev/null
# A HAR made by another tool: mitmproxy as a reverse proxy in front of the server, its
# HAR (`hardump`) of a client's session, beside that client's own recording.
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$home/venv/bin/mitmdump" -q --listen-host 127.0.0.1 --listen-port "$port" --mode "reverse:${server%/mcp}" \
  --set hardump="$work/mitmproxy.har" >"$work/mitm.log" 2>&1 & mitm=$!
for _ in $(seq 100); do (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.1; done
timeout 60 "$bin" client "http://127.0.0.1:$port/mcp" --era legacy --call 'echo={"message":"through mitmproxy"}' \
  --record "$work/client-via-mitmproxy.jsonl" >/dev/null
kill -INT "$mitm"; wait "$mitm" || true
NODE_PATH=$home/npm/node_modules timeout 120 node scripts/har_check/chromium_har.js "$chromium" "$server" "$work/chromium.har" >"$work/chromium.out"
kill "${pids[@]}"; wait "${pids[@]}" 2>/dev/null || true; pids=()

for name in demo-http client-legacy client-modern tap-http; do
  rec=$work/$name.jsonl
  har=$work/$name.har
  echo "== $name"
  "$bin" export har "$rec" -o "$har"
  NODE_PATH=$home/npm/node_modules node scripts/har_check/validate.js "$har"
  timeout 60 "$home/venv/bin/mitmdump" -q -nr "$har" -s scripts/har_check/mitm_flows.py \
    | python3 scripts/har_check/compare.py "$har"
  "$bin" import har "$har" -o "$work/$name.back.jsonl" 2>/dev/null
  "$bin" diff "$rec" "$work/$name.back.jsonl" >/dev/null \
    || { echo "FAIL: $name: the imported HAR differs from its recording" >&2; "$bin" diff "$rec" "$work/$name.back.jsonl" >&2; exit 1; }
  echo "   imported back: the same messages (mcp-raw diff)"
done
echo "== mitmproxy's HAR (reverse proxy in front of serve --http), imported"
"$bin" import har "$work/mitmproxy.har" -o "$work/mitmproxy.jsonl"
# Each message the client recorded is in the import (method, id, status, size): the
# order across lanes is the HAR's times, which are mitmproxy's own (its upstream
# connect is counted after the client sent), so the lines are compared sorted.
messages() { "$bin" show "$1" --oneline | awk '{$2=""; $3=""; print}' | sort; }
diff <(messages "$work/client-via-mitmproxy.jsonl") <(messages "$work/mitmproxy.jsonl") \
  || { echo "FAIL: mitmproxy's HAR, imported, does not hold the messages the client recorded" >&2; exit 1; }
grep -q 'through mitmproxy' "$work/mitmproxy.jsonl" || { echo "FAIL: the call's text is not in the import" >&2; exit 1; }
echo "   the same $(messages "$work/mitmproxy.jsonl" | wc -l) messages as the client's own recording"
echo "== Chromium's HAR (Playwright's recordHar, a page calling serve --http with fetch), imported"
"$bin" import har "$work/chromium.har" -o "$work/chromium.jsonl"
shown=$("$bin" show "$work/chromium.jsonl" --oneline)
for want in 'request      initialize' 'notification notifications/initialized' 'tools/call echo .* "from chromium"'; do
  grep -q -- "$want" <<<"$shown" || { echo "FAIL: Chromium's HAR, imported, has no line matching $want:" >&2; echo "$shown" >&2; exit 1; }
done
"$bin" check "$work/chromium.jsonl" | tail -1
echo "OK: 4 recordings exported as valid HAR 1.2, read back by mitmproxy and imported the same; mitmproxy's and Chromium's own HARs imported with the messages that crossed"
