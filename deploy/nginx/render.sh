#!/usr/bin/env bash
# Renders mcp-raw.conf.template into a runnable nginx.conf for N replicas.
#
#   deploy/nginx/render.sh [--tls CERT KEY] sticky|round-robin LISTEN_PORT REPLICA_PORT... > PREFIX/nginx.conf
#
# --tls CERT KEY: nginx terminates TLS on LISTEN_PORT (https://) with this PEM
# certificate chain and key (absolute paths); the replicas behind it stay plain HTTP on
# loopback. Without it, plain http:// (the default).
#
# sticky: modern requests and `initialize` round-robin; a legacy request to the replica
# its Mcp-Session-Id names: the i-th REPLICA_PORT must run with `--session-id-prefix ri.`
# (r1., r2., …). round-robin: everything round-robin (legacy sessions break: the
# demonstration). Replicas are on 127.0.0.1. Run the result with
#   mkdir -p PREFIX/logs PREFIX/tmp
#   nginx -p PREFIX -c PREFIX/nginx.conf -e logs/error.log -g 'daemon off;'
set -euo pipefail
usage() {
  echo "usage: $0 [--tls CERT KEY] sticky|round-robin LISTEN_PORT REPLICA_PORT..." >&2
  exit 2
}
ssl= tls=
if [[ ${1:-} == --tls ]]; then
  (( $# >= 3 )) || usage
  for f in "$2" "$3"; do
    [[ $f == /* ]] || { echo "$0: --tls ${f@Q}: give an absolute path (nginx reads it relative to its prefix otherwise)" >&2; exit 2; }
    [[ -r $f ]] || { echo "$0: --tls ${f@Q}: cannot read it" >&2; exit 2; }
  done
  ssl=" ssl"
  tls="        ssl_certificate $2;"$'\n'"        ssl_certificate_key $3;"$'\n'"        ssl_protocols TLSv1.2 TLSv1.3;"
  shift 3
fi
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
    @TLS@) [[ -z $tls ]] || printf '%s\n' "$tls" ;;
    *)
      line=${line//@LISTEN@/$listen}
      printf '%s\n' "${line//@SSL@/$ssl}"
      ;;
  esac
done < "$template"
