#!/usr/bin/env bash
# Three `mcp-raw serve --http` replicas behind nginx, twice: with the sticky
# configuration (deploy/nginx: legacy requests to the replica their Mcp-Session-Id's
# prefix names) and with round-robin for everything. The same legacy sessions run through both, and
# their wires are printed (mcp-raw client's view, and nginx's access log saying which
# replica got each request): without stickiness the session's second request reaches a
# replica that never saw its `initialize`, and gets 404. Modern (2026-07-28) requests
# run through round-robin and succeed, a multi round-trip request included (the
# replicas share one --state-key-file).
#
# Last, replica 2 is killed while modern calls go on: they keep succeeding on the others.
#
# Ends with `scale-out: N passed, M failed`; exit status 1 if M > 0, 2 if something
# needed (nginx, the build) is missing.
#
# Environment:
#   CARGO_TARGET_DIR   cargo's target directory (default: target/)
#   SCALE_OUT_KEEP     1: keep the scratch directory (logs, wires, nginx prefixes)
#   SCALE_OUT_TIMEOUT  seconds allowed per client run (default: 60)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
repo=$PWD
replicas=3
timeout_s=${SCALE_OUT_TIMEOUT:-60}
passed=0
failed=0

command -v nginx >/dev/null || { echo "scale-out: nginx is not installed (apt-get install -y nginx)" >&2; exit 2; }

echo "== cargo build --release"
cargo build --release
bin=$(realpath -m "${CARGO_TARGET_DIR:-target}")/release/mcp-raw

scratch=$(mktemp -d "${TMPDIR:-/tmp}/mcp-raw-scale-out.XXXXXX")
pids=()
cleanup() {
  local pid
  for pid in "${pids[@]}"; do
    kill "$pid" 2>/dev/null || true
  done
  for pid in "${pids[@]}"; do
    wait "$pid" 2>/dev/null || true
  done
  if [[ ${SCALE_OUT_KEEP:-} == 1 ]]; then
    echo "scratch directory kept: $scratch"
  else
    rm -rf "$scratch"
  fi
}
trap cleanup EXIT

pass() {
  echo "PASS: $*"
  passed=$((passed + 1))
}
fail() {
  echo "FAIL: $*"
  failed=$((failed + 1))
}

# A free loopback port (the kernel's pick; nginx needs a number in its config).
free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# Waits until something accepts on 127.0.0.1:$1.
await_port() {
  local _
  for _ in $(seq 100); do
    if (exec 3<> "/dev/tcp/127.0.0.1/$1") 2>/dev/null; then
      return 0
    fi
    sleep 0.05
  done
  return 1
}

# The shared requestState key: every replica opens what another sealed.
key=$scratch/state.key
head -c 32 /dev/urandom > "$key"
chmod 600 "$key"

# Replica i on a free port, read from its listening line; its port in ports[i].
ports=()
start_replica() {
  local i=$1 log=$scratch/replica-$1.log port=
  # Made here: the replica's own `2>` may not have run yet when sed first reads it.
  : > "$log"
  "$bin" serve --http --port 0 --fixture conformance --state-key-file "$key" \
    --session-id-prefix "r$i." 2> "$log" &
  pids+=($!)
  replica_pids[i]=$!
  for _ in $(seq 100); do
    port=$(sed -n 's|.*listening on http://127\.0\.0\.1:\([0-9]*\)/mcp.*|\1|p' "$log" | head -n1)
    [[ -n $port ]] && break
    sleep 0.05
  done
  [[ -n $port ]] || { echo "replica $i did not start; its stderr:" >&2; cat "$log" >&2; exit 2; }
  ports[i]=$port
}
replica_pids=()
for i in $(seq "$replicas"); do
  start_replica "$i"
done
echo "== $replicas replicas on 127.0.0.1:${ports[*]} (--fixture conformance, one --state-key-file, --session-id-prefix r1. r2. …)"

# nginx with configuration $1 (sticky | round-robin) in its own prefix; its URL in $url_<name>.
start_nginx() {
  local mode=$1 prefix=$scratch/nginx-$1 port
  port=$(free_port)
  mkdir -p "$prefix/logs" "$prefix/tmp"
  deploy/nginx/render.sh "$mode" "$port" "${ports[@]}" > "$prefix/nginx.conf"
  nginx -p "$prefix" -c "$prefix/nginx.conf" -e logs/error.log -g 'daemon off;' &
  pids+=($!)
  await_port "$port" || { echo "nginx ($mode) did not listen on $port:" >&2; cat "$prefix/logs/error.log" >&2; exit 2; }
  echo "== nginx ($mode) on http://127.0.0.1:$port/mcp (deploy/nginx/render.sh $mode $port ${ports[*]})"
  printf -v "url_${mode//-/_}" 'http://127.0.0.1:%s/mcp' "$port"
}
start_nginx sticky
start_nginx round-robin

# Runs `mcp-raw client ARGS… URL` through nginx configuration $1, the wire in $2.txt
# (and the transcript in $2.jsonl); prints nginx's access-log lines of the run (which
# replica got each request). Sets `rc`.
through() {
  local mode=$1 name=$2 url access before
  shift 2
  url=url_${mode//-/_}
  access=$scratch/nginx-$mode/logs/access.log
  before=$(wc -l < "$access" 2>/dev/null || echo 0)
  rc=0
  timeout -k 5 "$timeout_s" "$bin" client --color never --record "$scratch/$name.jsonl" "$@" "${!url}" \
    > "$scratch/$name.txt" 2>&1 || rc=$?
  # nginx writes the access-log line once the response is done.
  sleep 0.2
  tail -n +"$((before + 1))" "$access" > "$scratch/$name.access"
  echo "-- nginx ($mode) sent the requests of $name to:"
  sed 's/^/   /' "$scratch/$name.access"
}

# The count of responses with status $2 in the wire $1.txt.
statuses() {
  grep -c "^<<< \[c[0-9]* [^]]*\] HTTP/1.1 $2 " "$scratch/$1.txt" || true
}

legacy=(--era legacy --call test_simple_text --method ping)
sessions=3

echo
echo "== legacy (2025-11-25) sessions through the sticky configuration"
for s in $(seq "$sessions"); do
  through sticky "legacy-sticky-$s" "${legacy[@]}"
  if (( s == 1 )); then
    echo "-- the wire of legacy-sticky-1 (mcp-raw client's view):"
    cat "$scratch/legacy-sticky-1.txt"
  fi
  n404=$(statuses "legacy-sticky-$s" 404)
  if (( rc == 0 && n404 == 0 )); then
    pass "sticky: legacy session $s completed (initialize, tools/list, a call, ping, DELETE), no 404"
  else
    fail "sticky: legacy session $s: client exit $rc, $n404 response(s) 404 (wire: $scratch/legacy-sticky-$s.txt)"
  fi
done

echo
echo "== the same legacy sessions through round-robin"
for s in $(seq "$sessions"); do
  through round-robin "legacy-round-robin-$s" "${legacy[@]}"
  if (( s == 1 )); then
    echo "-- the wire of legacy-round-robin-1 (mcp-raw client's view):"
    cat "$scratch/legacy-round-robin-1.txt"
  fi
  n404=$(statuses "legacy-round-robin-$s" 404)
  if (( n404 > 0 && rc != 0 )); then
    pass "round-robin: legacy session $s broke as expected: $n404 response(s) 404, client exit $rc"
  else
    fail "round-robin: legacy session $s did not break (exit $rc, $n404 404s): was every request sent to one replica?"
  fi
done
echo "why: a legacy session lives in the memory of the one replica that answered its initialize;"
echo "     round-robin sends the next request (notifications/initialized) to another replica, which"
echo "     never saw that Mcp-Session-Id, and 2025-11-25 basic/transports §Session Management says a"
echo "     server MUST answer 404 Not Found to a session id it does not know. In the sticky"
echo "     configuration each replica's ids start with its name (--session-id-prefix r1. …), and nginx"
echo "     sends every request of a session to the replica its id names."

echo
echo "== modern (2026-07-28) requests through round-robin"
through round-robin modern-calls --era modern --call test_simple_text --method resources/list
spread=$(grep -o 'upstream=[0-9.:]*' "$scratch/nginx-round-robin/logs/access.log" | sort -u | wc -l)
if (( rc == 0 )) && [[ $(statuses modern-calls 404) == 0 ]]; then
  pass "round-robin: modern discover, tools/list, a call, resources/list all succeeded, on $spread replica(s) so far"
else
  fail "round-robin: modern calls: client exit $rc (wire: $scratch/modern-calls.txt)"
fi
through round-robin modern-mrtr --era modern --call test_input_required_result_request_state \
  --answer 'elicitation={"action":"accept","content":{"ok":true}}'
echo "-- the wire of modern-mrtr, the tool call's two rounds:"
sed -n '/"method": "tools\/call"/,$p' "$scratch/modern-mrtr.txt" | grep -E '^(>>>|<<<) \[|requestState|resultType|state-ok|^#' || true
# The last two requests are the call's two rounds.
rounds_on=$(tail -n 2 "$scratch/modern-mrtr.access" | grep -o 'upstream=[0-9.:]*' | sort -u | wc -l)
if (( rc == 0 && rounds_on == 2 )) && grep -q 'Confirmed: state-ok' "$scratch/modern-mrtr.txt"; then
  pass "round-robin: a multi round-trip request completed, its two rounds on two replicas (one --state-key-file)"
else
  fail "round-robin: the multi round-trip request: exit $rc, rounds on $rounds_on replica(s) (wire: $scratch/modern-mrtr.txt)"
fi

echo
echo "== a replica killed mid-run: modern calls through round-robin keep succeeding"
# Calls run back to back while replica 2 is killed (SIGKILL: a crash, no goodbye).
# nginx sees the refused or reset connection, retries the POST on the next replica
# (proxy_next_upstream error … non_idempotent), and leaves the dead one out for
# fail_timeout; a retried request shows two addresses in the access log.
calls=60
kill_at=10
access=$scratch/nginx-round-robin/logs/access.log
ok=0 bad=0 before=0
for c in $(seq "$calls"); do
  if (( c == kill_at )); then
    sleep 0.2
    before=$(wc -l < "$access")
    kill -KILL "${replica_pids[2]}"
    wait "${replica_pids[2]}" 2>/dev/null || true
    echo "-- call $c: replica 2 (127.0.0.1:${ports[2]}) killed"
  fi
  if timeout -k 5 "$timeout_s" "$bin" client --color never --era modern --call test_simple_text \
      "$url_round_robin" > "$scratch/after-kill-$c.txt" 2>&1; then
    ok=$((ok + 1))
  else
    bad=$((bad + 1))
    echo "   call $c failed: $(tail -n 1 "$scratch/after-kill-$c.txt")"
  fi
  # Spread over more than fail_timeout (5 s), so nginx tries the dead one again.
  sleep 0.15
done
sleep 0.2
tail -n +"$((before + 1))" "$access" > "$scratch/after-kill.access"
retried=$(grep -c 'upstream=[0-9.:]*, ' "$scratch/after-kill.access" || true)
dead=$(grep -c "upstream=[^ ]*127.0.0.1:${ports[2]}" "$scratch/after-kill.access" || true)
echo "-- after the kill, $dead request(s) tried the dead replica first, and nginx the next:"
grep "upstream=[^ ]*127.0.0.1:${ports[2]}" "$scratch/after-kill.access" | sed 's/^/   /'
if (( bad == 0 )); then
  pass "round-robin: $ok of $calls modern clients succeeded around a replica's crash ($retried request(s) retried on another replica)"
else
  fail "round-robin: $bad of $calls modern clients failed after replica 2 was killed"
fi

echo
echo "scale-out: $passed passed, $failed failed"
(( failed == 0 ))
