#!/usr/bin/env bash
# mcp-raw's client against @modelcontextprotocol/server-everything (the official
# reference server, pinned in interop/ts/package.json), over stdio or Streamable HTTP:
# every tool it lists is called (with --tasks and a URL-mode answer it lists all 19:
# simulate-research-query runs as a legacy task that asks for input on tasks/result,
# the two *-async tools have the client run sampling and elicitation as tasks), the
# server's sampling, elicitation and roots requests are answered, progress and logs
# are asked for, and the answers are checked.
#
#   interop/everything.sh stdio|http|https MCP_RAW_BINARY
#
# https: Debian's nginx (deploy/nginx/render.sh --tls, a CA and a leaf made here with
# openssl) terminates TLS in front of server-everything's Streamable HTTP, and the client
# speaks https:// to nginx with --cacert; its --record must hold the handshake's facts.
#
# With TAP_RECORD=FILE (interop/tap.sh), `mcp-raw tap --record FILE` sits between the
# client and the server, and CLIENT_RECORD=FILE is the client's own --record. With
# REPLAY_OF=FILE (stdio; interop/replay.sh) the server is `mcp-raw replay FILE`, a
# recording of server-everything, and the same checks must pass.
set -euo pipefail
transport=$1 bin=$2
cd "$(dirname "$0")/.."
source interop/lib.sh
ev=interop/ts/node_modules/@modelcontextprotocol/server-everything/dist/index.js
[ -f "$ev" ] || { echo "server-everything is not installed ($ev)" >&2; exit 1; }

answers=(
  --answer 'sampling={"role":"assistant","content":{"type":"text","text":"sampled by mcp-raw"},"model":"canned"}'
  --answer 'elicitation={"action":"accept","content":{"name":"Ada","interpretation":"historical"}}'
  --answer 'elicitation-url={"action":"accept"}'
  --tasks
  --root "$PWD"
  --progress --log-level debug --shutdown-timeout 1
)
tools=(echo get-annotated-message get-env get-resource-links get-resource-reference
  get-structured-content get-sum get-tiny-image gzip-file-as-resource toggle-simulated-logging
  toggle-subscriber-updates trigger-long-running-operation get-roots-list
  trigger-elicitation-request trigger-sampling-request trigger-url-elicitation
  simulate-research-query trigger-sampling-request-async trigger-elicitation-request-async)
calls=(
  --call 'echo={"message":"hello, wire"}'
  --call 'get-annotated-message={"messageType":"success","includeImage":true}'
  --call get-env
  --call 'get-resource-links={"count":2}'
  --call 'get-resource-reference={"resourceType":"Blob","resourceId":2}'
  --call 'get-structured-content={"location":"Chicago"}'
  --call 'get-sum={"a":2,"b":40}'
  --call get-tiny-image
  # A data: URI, so the tool fetches nothing from the network.
  --call 'gzip-file-as-resource={"name":"hello.txt.gz","data":"data:text/plain;base64,aGVsbG8=","outputType":"resource"}'
  --call toggle-simulated-logging
  --call toggle-subscriber-updates
  --call 'trigger-long-running-operation={"duration":1,"steps":2}'
  --call get-roots-list
  --call trigger-elicitation-request
  --call 'trigger-sampling-request={"prompt":"say hi"}'
  --call 'trigger-url-elicitation={"url":"https://example.com/consent"}'
  --call 'simulate-research-query={"topic":"python","ambiguous":true}'
  --call 'trigger-sampling-request-async={"prompt":"say hi later"}'
  --call trigger-elicitation-request-async
  --method resources/list
  --method prompts/list
)

out=$(mktemp)
server= tap= nginx= pki=
trap '[ -z "$tap" ] || kill -INT "$tap" 2>/dev/null || true; [ -z "$nginx" ] || kill "$nginx" 2>/dev/null || true; [ -z "$server" ] || kill "$server" 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$out" "$out.server" "$out.tap" $pki' EXIT
# Through the tap, or straight.
via=() record=()
if [ -n "${TAP_RECORD:-}" ]; then
  record=(--record "$CLIENT_RECORD")
  [ "$transport" = stdio ] && via=("$bin" tap --record "$TAP_RECORD" --)
fi
case $transport in
  stdio)
    server_cmd=(node "$ev" stdio)
    [ -z "${REPLAY_OF:-}" ] || server_cmd=("$bin" replay "$REPLAY_OF")
    "$bin" client --color never "${record[@]}" "${answers[@]}" "${calls[@]}" -- "${via[@]}" "${server_cmd[@]}" >"$out" 2>&1 || {
      cat "$out"; echo "the client failed"; exit 1; }
    ;;
  http | https)
    port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
    # The loopback preload keeps the server's listener on 127.0.0.1.
    PORT=$port NODE_OPTIONS="--require $PWD/scripts/conformance/loopback-only.cjs" \
      node "$ev" streamableHttp >"$out.server" 2>&1 &
    server=$!
    for _ in $(seq 100); do grep -q "listening on port" "$out.server" && break; sleep 0.1; done
    grep -q "listening on port" "$out.server" || { cat "$out.server"; echo "server-everything did not start"; exit 1; }
    url=http://127.0.0.1:$port/mcp
    if [ "$transport" = https ]; then
      # nginx in front, TLS on its side only: the deployment's own configuration with
      # server-everything as its one replica, run as this user under a scratch prefix.
      pki=$(mktemp -d)
      make_pki "$pki"
      mkdir -p "$pki/nginx/logs" "$pki/nginx/tmp"
      front=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
      deploy/nginx/render.sh --tls "$pki/leaf.pem" "$pki/leaf.key" round-robin "$front" "$port" >"$pki/nginx/nginx.conf"
      "${NGINX:-/usr/sbin/nginx}" -p "$pki/nginx" -c "$pki/nginx/nginx.conf" -e logs/error.log -g 'daemon off;' &
      nginx=$!
      for _ in $(seq 100); do
        python3 -c "import socket,sys; s=socket.socket(); sys.exit(s.connect_ex(('127.0.0.1',$front)))" && break
        sleep 0.1
      done
      url=https://127.0.0.1:$front/mcp
      record=(--cacert "$pki/ca.pem" --record "$pki/client.jsonl")
    fi
    if [ -n "${TAP_RECORD:-}" ]; then
      "$bin" tap --http --listen 127.0.0.1:0 --target "$url" --record "$TAP_RECORD" 2>"$out.tap" &
      tap=$!
      for _ in $(seq 100); do grep -q "listening on" "$out.tap" && break; sleep 0.1; done
      url=$(sed -n 's#.*listening on \(http://[0-9.:]*/mcp\).*#\1#p' "$out.tap" | head -n1)
      [ -n "$url" ] || { cat "$out.tap"; echo "the tap did not start"; exit 1; }
    fi
    "$bin" client "$url" --color never "${record[@]}" "${answers[@]}" "${calls[@]}" >"$out" 2>&1 || {
      cat "$out"; echo "the client failed"; exit 1; }
    ;;
  *) echo "usage: $0 stdio|http|https BINARY" >&2; exit 2 ;;
esac

fail=0
expect() { grep -qF -- "$1" "$out" || { echo "missing: $1"; fail=1; }; }
for t in "${tools[@]}"; do expect "# $t: ok"; done
expect "# resources/list: ok"
expect "# prompts/list: ok"
expect '"text": "The sum of 2 and 40 is 42."'
expect 'sampled by mcp-raw'
expect 'Name: Ada'
expect '"method": "notifications/progress"'
expect '"method": "notifications/message"'
expect '"method": "roots/list"'
expect '"method": "tasks/get"'
expect 'Research Report: python (historical)'
expect 'User completed the URL elicitation flow'
expect '[COMPLETED] Async sampling completed!'
expect '[COMPLETED] User provided the requested information!'
expect "# ${#tools[@]} tools:"
if [ "$transport" = https ]; then
  # The handshake with nginx (OpenSSL), as the client recorded it and showed it.
  grep -q '"tls":{"version":"TLSv1\.[23]"' "$pki/client.jsonl" || { echo "no tls event in the client's record"; fail=1; }
  expect 'TLS: TLSv1.'
fi
if [ "$fail" -ne 0 ]; then cat "$out"; exit 1; fi
echo "server-everything over $transport: all ${#tools[@]} tools and 2 methods ok; sampling, elicitation (form and URL), roots and tasks both ways answered"
