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
log=$scratch/mitm-server-$listen.log
: > "$log"
"$bin" serve --http --port 0 2> "$log" &
port=
for _ in $(seq 200); do
  port=$(sed -n 's|.*listening on http://127\.0\.0\.1:\([0-9]*\)/mcp.*|\1|p' "$log" | head -n1)
  [[ -n $port ]] && break
  sleep 0.02
done
[[ -n $port ]] || { echo "the server did not start:" >&2; cat "$log" >&2; exit 1; }
exec "$mitmdump" -q --mode "reverse:http://127.0.0.1:$port/" --listen-host 127.0.0.1 --listen-port "$listen" \
  --set confdir="$scratch/mitm-conf" "$@"
