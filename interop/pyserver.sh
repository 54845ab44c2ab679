#!/usr/bin/env bash
# mcp-raw's client against a server on the official Python SDK (interop/py/server.py,
# `mcp` pinned in interop/py/requirements.txt), over stdio or Streamable HTTP, in both
# eras the server speaks: 2026-07-28 (its questions come as input_required, MRTR) and
# 2025-11-25 (they come as requests mid-call). Every tool is called; the elicitation,
# sampling and roots answers, the progress and the logs are checked.
#
#   interop/pyserver.sh stdio|http MCP_RAW_BINARY PYTHON
set -euo pipefail
transport=$1 bin=$2 python=$3
cd "$(dirname "$0")/.."

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
trap '[ -z "$server" ] || kill "$server" 2>/dev/null || true; rm -f "$out" "$out.server"' EXIT
if [ "$transport" = http ]; then
  port=$("$python" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  "$python" interop/py/server.py http "$port" >"$out.server" 2>&1 &
  server=$!
  for _ in $(seq 100); do
    "$python" -c "import socket,sys; s=socket.socket(); sys.exit(s.connect_ex(('127.0.0.1',$port)))" && break
    sleep 0.1
  done
fi

for era in modern legacy; do
  if [ "$transport" = http ]; then
    "$bin" client "http://127.0.0.1:$port/mcp" --era "$era" "${args[@]}" >"$out" 2>&1 || {
      cat "$out"; echo "the client failed ($era)"; exit 1; }
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
  if [ "$fail" -ne 0 ]; then cat "$out"; exit 1; fi
  echo "python-sdk server over $transport, $era: 5 tools ok; elicitation, sampling, roots answered"
done
