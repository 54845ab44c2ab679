#!/usr/bin/env bash
# Renders mcp-raw.conf.template into a runnable nginx.conf for N replicas.
#
#   deploy/nginx/render.sh sticky|round-robin LISTEN_PORT REPLICA_PORT... > PREFIX/nginx.conf
#
# sticky: modern requests and `initialize` round-robin; a legacy request to the replica
# its Mcp-Session-Id names: the i-th REPLICA_PORT must run with `--session-id-prefix ri.`
# (r1., r2., …). round-robin: everything round-robin (legacy sessions break: the
# demonstration). Replicas are on 127.0.0.1. Run the result with
#   mkdir -p PREFIX/logs PREFIX/tmp
#   nginx -p PREFIX -c PREFIX/nginx.conf -e logs/error.log -g 'daemon off;'
set -euo pipefail
usage() {
  echo "usage: $0 sticky|round-robin LISTEN_PORT REPLICA_PORT..." >&2
  exit 2
}
(( $# >= 3 )) || usage
case $1 in
  sticky | round-robin) mode=$1 ;;
  *) usage ;;
esac
listen=$2
shift 2
port_ok() { [[ $1 =~ ^[0-9]+$ ]] && (( $1 >= 1 && $1 <= 65535 )); }
port_ok "$listen" || { echo "$0: listen port ${listen@Q} is not a port number" >&2; exit 2; }
servers= routes= upstreams= i=0
for p in "$@"; do
  port_ok "$p" || { echo "$0: replica port ${p@Q} is not a port number" >&2; exit 2; }
  i=$((i + 1))
  servers+="        server 127.0.0.1:$p max_fails=1 fail_timeout=5s;"$'\n'
  if [[ $mode == sticky ]]; then
    routes+="        \"~^r$i\\.\"  mcp_r$i;"$'\n'
  fi
  upstreams+="    upstream mcp_r$i {"$'\n'"        server 127.0.0.1:$p;"$'\n'"        keepalive 4;"$'\n'"    }"$'\n'
done
servers=${servers%$'\n'} routes=${routes%$'\n'} upstreams=${upstreams%$'\n'}
template=$(dirname "${BASH_SOURCE[0]}")/mcp-raw.conf.template
while IFS= read -r line || [[ -n $line ]]; do
  case $line in
    @SERVERS@) printf '%s\n' "$servers" ;;
    @SESSION_ROUTES@) [[ -z $routes ]] || printf '%s\n' "$routes" ;;
    @REPLICA_UPSTREAMS@) printf '%s\n' "$upstreams" ;;
    *) printf '%s\n' "${line//@LISTEN@/$listen}" ;;
  esac
done < "$template"
