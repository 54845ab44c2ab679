#!/usr/bin/env bash
# Interop: the official MCP SDK clients (TypeScript and Python) against mcp-raw's server,
# each over stdio and over Streamable HTTP.
#
#   interop/run.sh                   all twenty-seven: ts-stdio ts-http ts2-stdio ts2-http py-stdio py-http
#                                    everything-stdio everything-http everything-https
#                                    pyserver-stdio pyserver-http pyserver-https
#                                    tap-ts-stdio tap-ts-http tap-ts-proxy tap-ts-remote
#                                    tap-ts2-stdio tap-ts2-http tap-ts2-remote
#                                    tap-py-proxy tap-py-oauth-proxy
#                                    tap-everything-stdio tap-everything-http
#                                    replay-everything-stdio replay-everything-http
#                                    oauth-http oauth-https
#   interop/run.sh ts-http py-stdio  only those
#
# ts-* (TypeScript SDK v1), ts2-* (v2, @modelcontextprotocol/client) and py-* run an
# SDK client against `mcp-raw serve`; everything-* run
# `mcp-raw client` against @modelcontextprotocol/server-everything (interop/everything.sh;
# -https: Debian's nginx terminating TLS in front of it, the client with --cacert);
# pyserver-* run `mcp-raw client` against a Python-SDK server in both eras (-https:
# under uvicorn with --ssl-certfile, the client over https:// with --cacert)
# (interop/pyserver.sh, interop/py/server.py); tap-* run the ts, ts2, py and everything
# combinations with `mcp-raw tap` between client and server, compare the tap's recording
# with the other end's own hash for hash, and `mcp-raw check` it (interop/tap.sh;
# tap-ts-remote and tap-ts2-remote: the client starts `tap --remote URL` as its stdio server
# and the tap speaks Streamable HTTP to `serve --http`; tap-ts-proxy and tap-py-proxy: the
# v1 client and the Python SDK client over https://
# through `tap --proxy` as their HTTPS_PROXY; tap-py-oauth-proxy: the Python SDK client's
# OAuth, a full authorization-code flow with PKCE and dynamic registration through the
# proxy, against `serve --tls-cert --auth-server https://…` and `mcp-raw auth-server
# --tls-cert`, every hop read out of the tap's recording (interop/oauth_hops.py) and both
# servers' own records compared with it);
# replay-* record the TypeScript SDK client against server-everything, then serve the
# recording with `mcp-raw replay` to the same client, which must get the same answers
# (interop/replay.sh); oauth-http runs `mcp-raw serve --auth-server` against a real
# authorization server, oidc-provider, and checks every answer to good and bad tokens
# (interop/oauth_check.py); oauth-https does the same with every party on TLS (the
# provider over node's https, serve --tls-cert --auth-cacert, the client --cacert).
#
# Environment: CARGO_TARGET_DIR (where cargo builds, default target/), INTEROP_TIMEOUT
# (seconds per combination, default 60), PYTHON (interpreter for the venv, default python3.11),
# INTEROP_VERBOSE=1 (show every client's output, not only a failed one's).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
start_s=$SECONDS

timeout_s=${INTEROP_TIMEOUT:-60}
combos=("$@")
all=(ts-stdio ts-http ts2-stdio ts2-http py-stdio py-http everything-stdio everything-http everything-https
  pyserver-stdio pyserver-http pyserver-https
  tap-ts-stdio tap-ts-http tap-ts-proxy tap-ts-remote tap-ts2-stdio tap-ts2-http tap-ts2-remote
  tap-py-proxy tap-py-oauth-proxy tap-everything-stdio tap-everything-http
  replay-everything-stdio replay-everything-http oauth-http oauth-https)
[ ${#combos[@]} -gt 0 ] || combos=("${all[@]}")
for c in "${combos[@]}"; do
  case " ${all[*]} " in *" $c "*) ;; *) echo "unknown combination: $c" >&2; exit 2 ;; esac
done

# Everything a run leaves behind (logs, server pids) lives here and goes away on exit.
work=$(mktemp -d)
server_pids=()
client_pid=
cleanup() {
  [ -z "$client_pid" ] || kill "$client_pid" 2>/dev/null || true
  for pid in "${server_pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

echo "== cargo build --release"
cargo build --release
target_dir=${CARGO_TARGET_DIR:-target}
case $target_dir in /*) ;; *) target_dir=$root/$target_dir ;; esac
bin=$target_dir/release/mcp-raw
[ -x "$bin" ] || { echo "no binary at $bin" >&2; exit 1; }

# A stamp records what an install was made from; the same inputs mean the install is reused.
stamp_of() { cat "$@" | sha256sum | cut -d' ' -f1; }

install_ts() {
  command -v node >/dev/null || { echo "node not found (the TypeScript SDK needs Node >= 20)" >&2; return 1; }
  local major
  major=$(node -p 'process.versions.node.split(".")[0]')
  [ "$major" -ge 20 ] || { echo "node $(node --version) is too old: the TypeScript SDK v2 needs >= 20" >&2; return 1; }
  local dir=interop/ts want
  want="$(stamp_of "$dir/package-lock.json") node$major"
  if [ "$(cat "$dir/node_modules/.interop-stamp" 2>/dev/null)" != "$want" ]; then
    echo "== npm ci (interop/ts)"
    (cd "$dir" && npm ci --no-audit --no-fund)
    echo "$want" >"$dir/node_modules/.interop-stamp"
  fi
  local version='require("./'$dir'/node_modules/@modelcontextprotocol/" + process.argv[1] + "/package.json").version'
  echo "node $(node --version), @modelcontextprotocol/sdk $(node -p "$version" sdk), @modelcontextprotocol/client $(node -p "$version" client)"
}

install_py() {
  local python=${PYTHON:-python3.11} venv=interop/.venv want
  command -v "$python" >/dev/null || python=python3
  want="$(stamp_of interop/py/requirements.txt) $("$python" --version 2>&1)"
  if [ "$(cat "$venv/.interop-stamp" 2>/dev/null)" != "$want" ]; then
    echo "== venv + pip install (interop/.venv, $("$python" --version 2>&1))"
    rm -rf "$venv"
    "$python" -m venv "$venv"
    PIP_DISABLE_PIP_VERSION_CHECK=1 "$venv/bin/pip" install --quiet -r interop/py/requirements.txt
    echo "$want" >"$venv/.interop-stamp"
  fi
  echo "$("$venv/bin/python" --version), mcp $("$venv/bin/python" -c 'import importlib.metadata as m; print(m.version("mcp"))')"
}

# Install only what the chosen combinations need.
case " ${combos[*]}" in *"ts-"* | *"ts2-"* | *"everything-"* | *" oauth-"*) install_ts ;; esac
case " ${combos[*]}" in *" py-"* | *" pyserver-"* | *" tap-py-"*) install_py ;; esac

# Start `mcp-raw serve --http` on a free loopback port; sets $url, or fails after 10 s.
start_http() {
  local log=$1
  "$bin" serve --http --host 127.0.0.1 --port 0 2>"$log" &
  server_pids+=($!)
  local port=
  for _ in $(seq 100); do
    port=$(sed -n 's#.*listening on http://127\.0\.0\.1:\([0-9][0-9]*\)/mcp.*#\1#p' "$log" | head -n1)
    [ -n "$port" ] && break
    kill -0 "${server_pids[-1]}" 2>/dev/null || break
    sleep 0.1
  done
  [ -n "$port" ] || { echo "the HTTP server printed no 'listening on' line" >&2; return 1; }
  url=http://127.0.0.1:$port/mcp
}

stop_http() {
  kill "${server_pids[-1]}" 2>/dev/null || true
  wait "${server_pids[-1]}" 2>/dev/null || true
  unset 'server_pids[-1]'
}

# One combination: client output in $work/NAME.log, the HTTP server's stderr beside it.
run_combo() {
  local name=$1 lang=${1%-*} transport=${1#*-} target=$bin
  local log=$work/$name.log
  if [ "${name%%-*}" = tap ] || [ "${name%%-*}" = replay ]; then
    local rc=0 script=(interop/tap.sh "${name#tap-}")
    [ "${name%%-*}" = replay ] && script=(interop/replay.sh "${name#replay-everything-}")
    timeout --kill-after=5 "$timeout_s" "${script[@]}" "$bin" >>"$log" 2>&1 &
    client_pid=$!
    wait "$client_pid" || rc=$?
    client_pid=
    [ "$rc" -ne 124 ] || echo "timed out after ${timeout_s}s" >>"$log"
    return "$rc"
  fi
  if [ "$lang" = oauth ]; then
    local rc=0
    local tls=()
    [ "$transport" = https ] && tls=(https)
    mkdir -p "$work/$name"
    timeout --kill-after=5 "$timeout_s" python3 interop/oauth_check.py "$bin" node "$work/$name" ${tls[@]+"${tls[@]}"} >>"$log" 2>&1 &
    client_pid=$!
    wait "$client_pid" || rc=$?
    client_pid=
    [ "$rc" -ne 124 ] || echo "timed out after ${timeout_s}s" >>"$log"
    return "$rc"
  fi
  if [ "$lang" = everything ] || [ "$lang" = pyserver ]; then
    local rc=0 script=(interop/everything.sh "$transport" "$bin")
    [ "$lang" = pyserver ] && script=(interop/pyserver.sh "$transport" "$bin" "$root/interop/.venv/bin/python")
    timeout --kill-after=5 "$timeout_s" "${script[@]}" >>"$log" 2>&1 &
    client_pid=$!
    wait "$client_pid" || rc=$?
    client_pid=
    [ "$rc" -ne 124 ] || echo "timed out after ${timeout_s}s" >>"$log"
    return "$rc"
  fi
  if [ "$transport" = http ]; then
    start_http "$work/$name.server.log" >>"$log" 2>&1 || return 1
    target=$url
  fi
  local client=(node interop/ts/client.mjs v1)
  [ "$lang" = ts2 ] && client=(node interop/ts/client.mjs v2)
  [ "$lang" = py ] && client=(interop/.venv/bin/python interop/py/client.py)
  # --kill-after: a client that ignores SIGTERM still goes, so one run can't hang CI.
  # timeout runs in its own process group, out of Ctrl-C's reach: so run it in the
  # background and wait, which a signal interrupts, and the trap then kills it.
  local rc=0
  timeout --kill-after=5 "$timeout_s" "${client[@]}" "$transport" "$target" >>"$log" 2>&1 &
  client_pid=$!
  wait "$client_pid" || rc=$?
  client_pid=
  [ "$rc" -ne 124 ] || echo "timed out after ${timeout_s}s" >>"$log"
  [ "$transport" = http ] && stop_http
  return "$rc"
}

echo "== interop: ${combos[*]} (mcp-raw at $bin)"
passed=0 failed=0
for name in "${combos[@]}"; do
  t0=$SECONDS
  if run_combo "$name"; then
    echo "PASS $name ($((SECONDS - t0))s)"
    passed=$((passed + 1))
    [ "${INTEROP_VERBOSE:-0}" = 1 ] && sed 's/^/    | /' "$work/$name.log"
  else
    echo "FAIL $name ($((SECONDS - t0))s)"
    failed=$((failed + 1))
    # On failure show everything: the client's output, then the server's stderr.
    sed 's/^/    | /' "$work/$name.log"
    if [ -s "$work/$name.server.log" ]; then
      echo "    server stderr:"
      sed 's/^/    | /' "$work/$name.server.log"
    fi
  fi
done

echo "wall time: $((SECONDS - start_s))s"
# The closing line in the plain 'N passed, N failed' form that CI reads.
echo "interop: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
