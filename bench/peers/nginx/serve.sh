#!/usr/bin/env bash
# One bench peer made of nginx (deploy/nginx, the sticky configuration) in front of N
# `mcp-raw serve --http` replicas, for bench/'s "through nginx" columns:
#
#   bench/peers/nginx/serve.sh N LISTEN_PORT MCP_RAW_BINARY
#
# The replicas share one --state-key-file and name their sessions r1., r2., … (what the
# sticky configuration routes on). The script ends as nginx itself (exec), in the same
# process group as the replicas: mcp-bench measures and stops the whole group.
set -euo pipefail
n=$1 listen=$2 bin=$3
here=$(cd "$(dirname "$0")/../../.." && pwd)
# Its files (config, logs, the key) in one place, reused by the next start.
scratch=$here/bench/target/nginx-$n
rm -rf "$scratch"
mkdir -p "$scratch"
head -c 32 /dev/urandom > "$scratch/state.key"
ports=()
for i in $(seq "$n"); do
  log=$scratch/replica-$i.log
  : > "$log"
  "$bin" serve --http --port 0 --state-key-file "$scratch/state.key" --session-id-prefix "r$i." 2> "$log" &
  port=
  for _ in $(seq 200); do
    port=$(sed -n 's|.*listening on http://127\.0\.0\.1:\([0-9]*\)/mcp.*|\1|p' "$log" | head -n1)
    [[ -n $port ]] && break
    sleep 0.02
  done
  [[ -n $port ]] || { echo "replica $i did not start:" >&2; cat "$log" >&2; exit 1; }
  ports+=("$port")
done
mkdir -p "$scratch/logs" "$scratch/tmp"
"$here/deploy/nginx/render.sh" sticky "$listen" "${ports[@]}" > "$scratch/nginx.conf"
exec nginx -p "$scratch" -c "$scratch/nginx.conf" -e logs/error.log -g 'daemon off;'
