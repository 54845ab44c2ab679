#!/usr/bin/env bash
# One bench peer made of mitmproxy's `mitmdump --mode reverse:` (PyPI, what a user
# might pick instead of the tap) in front of one `mcp-raw serve --http`:
#
#   bench/peers/tap/mitmdump.sh LISTEN_PORT MCP_RAW_BINARY MITMDUMP [MITMDUMP FLAGS…]
#
# Quiet (`-q`), no flow file unless the flags ask for one (`-w FILE`).
set -euo pipefail
listen=$1 bin=$2 mitmdump=$3
shift 3
here=$(cd "$(dirname "$0")/../../.." && pwd)
scratch=$here/bench/target/tap-peer
mkdir -p "$scratch"
source "$(dirname "$0")/start-server.sh"
start_server "$bin" "$scratch/mitm-server-$listen.log"
exec "$mitmdump" -q --mode "reverse:http://127.0.0.1:$port/" --listen-host 127.0.0.1 --listen-port "$listen" \
  --set confdir="$scratch/mitm-conf" "$@"
