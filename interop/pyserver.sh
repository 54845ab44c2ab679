#!/usr/bin/env bash
# mcp-raw's client against a server on the official Python SDK (interop/py/server.py,
# `mcp` pinned in interop/py/requirements.txt), over stdio or Streamable HTTP, in both
# eras the server speaks: 2026-07-28 (its questions come as input_required, MRTR) and
# 2025-11-25 (they come as requests mid-call). Every tool is called; the elicitation,
# sampling and roots answers, the progress and the logs are checked. `https` runs the
# server under uvicorn with --ssl-certfile (a CA and a leaf made here with openssl) and
# the client with --cacert; its transcript must hold the handshake's facts.
#
#   interop/pyserver.sh stdio|http|https MCP_RAW_BINARY PYTHON
set -euo pipefail
transport=$1 bin=$2 python=$3
cd "$(dirname "$0")/.."
source interop/lib.sh

args=(
  --color never
  --answer 'sampling={"role":"assistant","content":{"type":"text","text":"hi from the canned LLM"},"model":"canned"}'
  --answer 'elicitation={"action":"accept","content":{"name":"Ada"}}'
  --root "$PWD"
  --progress --log-level debug
  --call 'add={"a":2,"b":40}' --call 'work={"steps":2}' --call greet --call sampled --call roots
)
out=$(mktemp)
server=
pki=$(mktemp -d)
trap '[ -z "$server" ] || kill "$server" 2>/dev/null || true; rm -rf "$out" "$out.server" "$pki"' EXIT
tls=()
if [ "$transport" = https ]; then
  # A CA and a leaf for 127.0.0.1 it signed (interop/lib.sh).
  make_pki "$pki"
  tls=(--cacert "$pki/ca.pem" --record "$pki/client.jsonl")
fi
if [ "$transport" != stdio ]; then
  port=$("$python" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  if [ "$transport" = https ]; then
    "$python" interop/py/server.py https "$port" "$pki/leaf.pem" "$pki/leaf.key" >"$out.server" 2>&1 &
  else
    "$python" interop/py/server.py http "$port" >"$out.server" 2>&1 &
  fi
  server=$!
  for _ in $(seq 100); do
    "$python" -c "import socket,sys; s=socket.socket(); sys.exit(s.connect_ex(('127.0.0.1',$port)))" && break
    sleep 0.1
  done
fi

for era in modern legacy; do
  if [ "$transport" != stdio ]; then
    "$bin" client "$transport://127.0.0.1:$port/mcp" --era "$era" "${args[@]}" ${tls[@]+"${tls[@]}"} >"$out" 2>&1 || {
      cat "$out"; cat "$out.server"; echo "the client failed ($era)"; exit 1; }
  else
    "$bin" client --era "$era" "${args[@]}" -- "$python" interop/py/server.py stdio >"$out" 2>&1 || {
      cat "$out"; echo "the client failed ($era)"; exit 1; }
  fi
  fail=0
  expect() { grep -qF -- "$1" "$out" || { echo "$era: missing: $1"; fail=1; }; }
  for t in add work greet sampled roots; do expect "# $t: ok"; done
  expect '"text": "42"'
  expect '"text": "done after 2 steps"'
  expect '"text": "Hello, Ada!"'
  expect '"text": "the LLM said: hi from the canned LLM"'
  expect "roots: file://$PWD"
  expect '"method": "notifications/progress"'
  expect '"method": "notifications/message"'
  case $era in
    modern) expect '"resultType": "input_required"'; expect '"inputResponses"' ;;
    legacy) expect '"method": "elicitation/create"'; expect '"method": "sampling/createMessage"' ;;
  esac
  if [ "$transport" = https ]; then
    # The handshake with uvicorn (OpenSSL), as the client recorded it.
    grep -q '"tls":{"version":"TLSv1\.[23]"' "$pki/client.jsonl" || { echo "$era: no tls event in the client's record"; fail=1; }
    expect 'TLS: TLSv1.'
  fi
  if [ "$fail" -ne 0 ]; then cat "$out"; exit 1; fi
  echo "python-sdk server over $transport, $era: 5 tools ok; elicitation, sampling, roots answered"
done
