#!/usr/bin/env bash
# A real client and a real server with `mcp-raw tap` between them: the TypeScript SDK
# clients (v1, v2) against `mcp-raw serve`, and mcp-raw's client against
# @modelcontextprotocol/server-everything, over stdio and Streamable HTTP; ts-proxy: the
# v1 client against `serve --tls-cert` over https://, through `tap --proxy` as its
# HTTPS_PROXY (a forward proxy that opens the TLS with its own CA's leaf).
#
#   interop/tap.sh ts-stdio|ts-http|ts-proxy|ts2-stdio|ts2-http|everything-stdio|everything-http BINARY
#
# The run must pass as it does without the tap (the same client checks), and:
# - what the tap recorded equals, hash for hash in both directions, what the other end
#   recorded itself (`serve --record` for the SDK clients, `client --record` against
#   server-everything): the tap passed every byte on unchanged (interop/wire_hashes.py);
# - `mcp-raw check` finds no error in the tap's recording.
set -euo pipefail
combo=$1 bin=$2
cd "$(dirname "$0")/.."
lang=${combo%-*} transport=${combo#*-}
dir=$(mktemp -d)
pids=()
trap 'for p in "${pids[@]}"; do kill -INT "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$dir"' EXIT

# start LOG CMD…: in the background, waiting for its "listening on" line.
source interop/lib.sh

# Stops the background servers (SIGINT: each ends its recording cleanly).
stop_all() {
  sleep 0.2
  for p in "${pids[@]}"; do kill -INT "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  pids=()
}

tap=$dir/tap.jsonl end=$dir/end.jsonl
case $lang in
  ts | ts2)
    sdk=v1
    [ "$lang" = ts2 ] && sdk=v2
    if [ "$transport" = proxy ]; then
      # A forward proxy that sees inside HTTPS: the server listens with TLS (a CA and a
      # leaf made here, interop/lib.sh), the tap is the client's HTTPS_PROXY, opens the
      # client's TLS with a leaf from its own CA (`mcp-raw ca`, trusted by the client
      # through NODE_EXTRA_CA_CERTS) and its own TLS to the server (--cacert).
      make_pki "$dir"
      "$bin" ca --dir "$dir/ca" >/dev/null
      start "$dir/server.log" "$bin" serve --http --port 0 --tls-cert "$dir/leaf.pem" --tls-key "$dir/leaf.key" --record "$end"
      target=$addr
      start "$dir/tap.log" "$bin" tap --proxy --listen 127.0.0.1:0 --ca-dir "$dir/ca" --cacert "$dir/ca.pem" --record "$tap"
      HTTPS_PROXY=http://$addr NODE_EXTRA_CA_CERTS=$dir/ca/ca.pem node interop/ts/client.mjs "$sdk" http "https://$target/mcp"
      stop_all
      # The plaintext inside the tunnel: the tools/call and its answer; and the TLS facts
      # of both legs (the client's to the tap, the tap's to the server).
      python3 - "$tap" <<'PY'
import json, sys
events = [json.loads(line) for line in open(sys.argv[1])][1:]
said = {d: "".join(e.get("text", "") for e in events if e.get("dir") == d) for d in ("c2s", "s2c")}
wants = [("c2s", '"method":"tools/call","params":{"name":"add","arguments":{"a":2,"b":40}}'),
         ("s2c", '"content":[{"type":"text","text":"42"}]')]
missing = [w for d, w in wants if w not in said[d]]
tls = sum(1 for e in events if "tls" in e)
if missing or tls < 2:
    sys.exit(f"the tap's recording lacks {missing} or has {tls} tls events (want both legs')")
print(f"the tap's plaintext holds the add call and its 42; {tls} tls events (both legs)")
PY
    elif [ "$transport" = stdio ]; then
      args=$(python3 -c 'import json, sys; print(json.dumps(sys.argv[1:]))' \
        tap --record "$tap" -- "$bin" serve --record "$end")
      MCP_RAW_SERVER_ARGS=$args node interop/ts/client.mjs "$sdk" stdio "$bin"
    else
      start "$dir/server.log" "$bin" serve --http --port 0 --record "$end"
      target=$addr
      start "$dir/tap.log" "$bin" tap --http --listen 127.0.0.1:0 --target "http://$target/mcp" --record "$tap"
      node interop/ts/client.mjs "$sdk" http "http://$addr/mcp"
      stop_all
    fi
    ;;
  everything)
    TAP_RECORD=$tap CLIENT_RECORD=$end interop/everything.sh "$transport" "$bin"
    ;;
  *) echo "usage: $0 ts-stdio|ts-http|ts-proxy|ts2-stdio|ts2-http|everything-stdio|everything-http BINARY" >&2; exit 2 ;;
esac

echo "the tap's recording against the other end's own, per direction:"
# INTEROP_KEEP=DIR keeps both recordings there (to look at a failure).
[ -z "${INTEROP_KEEP:-}" ] || cp "$tap" "$end" "$INTEROP_KEEP/"
python3 interop/wire_hashes.py "$tap" "$end"
echo "mcp-raw check on the tap's recording:"
# pipefail: check's exit status is the script's.
"$bin" check "$tap" | sed 's/^/  /'
