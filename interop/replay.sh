#!/usr/bin/env bash
# A recording replayed as the server: the TypeScript SDK v1 client
# (interop/ts/everything_client.mjs) against @modelcontextprotocol/server-everything,
# recorded through `mcp-raw tap`; then the same client against `mcp-raw replay` of that
# recording. It must get the same answers (its printed results compared byte for byte),
# and `mcp-raw diff` of the two recordings must find nothing. Over stdio, mcp-raw's own
# client's full server-everything run (interop/everything.sh) is replayed too: the
# server's sampling, elicitation and task requests wait for the client's answers.
#
#   interop/replay.sh stdio|http BINARY
set -euo pipefail
transport=$1 bin=$2
cd "$(dirname "$0")/.."
ev=interop/ts/node_modules/@modelcontextprotocol/server-everything/dist/index.js
[ -f "$ev" ] || { echo "server-everything is not installed ($ev)" >&2; exit 1; }
dir=$(mktemp -d)
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$dir"' EXIT

# start LOG CMD…: in the background, waiting for its "listening on" line.
source interop/lib.sh

case $transport in
  stdio)
    node interop/ts/everything_client.mjs stdio "$bin" tap --record "$dir/a.jsonl" -- node "$ev" stdio >"$dir/first.json"
    node interop/ts/everything_client.mjs stdio "$bin" tap --record "$dir/b.jsonl" -- "$bin" replay "$dir/a.jsonl" >"$dir/again.json"
    ;;
  http)
    port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
    PORT=$port NODE_OPTIONS="--require $PWD/scripts/conformance/loopback-only.cjs" \
      node "$ev" streamableHttp >"$dir/ev.log" 2>&1 &
    pids+=($!)
    for _ in $(seq 100); do grep -q "listening on port" "$dir/ev.log" && break; sleep 0.1; done
    start "$dir/tap.log" "$bin" tap --http --listen 127.0.0.1:0 --target "http://127.0.0.1:$port/mcp" --record "$dir/a.jsonl"
    node interop/ts/everything_client.mjs http "http://$addr/mcp" >"$dir/first.json"
    sleep 0.2
    kill -INT "${pids[1]}"
    wait "${pids[1]}" 2>/dev/null || true
    start "$dir/replay.log" "$bin" replay "$dir/a.jsonl" --port 0
    mock=$addr
    start "$dir/tap2.log" "$bin" tap --http --listen 127.0.0.1:0 --target "http://$mock/mcp" --record "$dir/b.jsonl"
    node interop/ts/everything_client.mjs http "http://$addr/mcp" >"$dir/again.json"
    sleep 0.2
    ;;
  *) echo "usage: $0 stdio|http BINARY" >&2; exit 2 ;;
esac

if ! cmp -s "$dir/first.json" "$dir/again.json"; then
  echo "the client's results differ between the server and its replay:"
  diff -u "$dir/first.json" "$dir/again.json" | head -40
  exit 1
fi
echo "the same client, the server's answers and the replay's: identical ($(wc -c <"$dir/first.json") bytes of results)"
"$bin" diff "$dir/a.jsonl" "$dir/b.jsonl" | tail -n1
if [ "$transport" = stdio ]; then
  # And mcp-raw's own client, all 19 tools with sampling, elicitation, roots and tasks
  # both ways (interop/everything.sh), against a replay of its session with the server.
  TAP_RECORD=$dir/c.jsonl CLIENT_RECORD=$dir/c-client.jsonl interop/everything.sh stdio "$bin" >/dev/null
  echo -n "against the replay: "
  REPLAY_OF=$dir/c.jsonl interop/everything.sh stdio "$bin"
fi
