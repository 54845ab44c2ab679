#!/usr/bin/env bash
# One bench peer made of `mcp-raw tap --http` in front of one `mcp-raw serve --http`,
# for bench/'s tap rows (the relay's cost per call, with and without recording):
#
#   bench/peers/tap/serve.sh LISTEN_PORT MCP_RAW_BINARY [TAP FLAGS…]
#
# e.g. `… {port} mcp-raw --record /dev/null`. The script ends as the tap itself (exec),
# in the same process group as the server: mcp-bench measures and stops the group.
set -euo pipefail
listen=$1 bin=$2
shift 2
here=$(cd "$(dirname "$0")/../../.." && pwd)
scratch=$here/bench/target/tap-peer
mkdir -p "$scratch"
source "$(dirname "$0")/start-server.sh"
start_server "$bin" "$scratch/server-$listen.log"
exec "$bin" tap --http --listen "127.0.0.1:$listen" --target "http://127.0.0.1:$port/mcp" "$@"
