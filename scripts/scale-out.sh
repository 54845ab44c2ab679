#!/usr/bin/env bash
# Three `mcp-raw serve --http` replicas behind nginx, twice: with the sticky
# configuration (deploy/nginx: legacy requests to the replica their Mcp-Session-Id's
# prefix names) and with round-robin for everything. The same legacy sessions run through both, and
# their wires are printed (mcp-raw client's view, and nginx's access log saying which
# replica got each request): without stickiness the session's second request reaches a
# replica that never saw its `initialize`, and gets 404. Modern (2026-07-28) requests
# run through round-robin and succeed, a multi round-trip request included (the
# replicas share one --state-key-file). Tasks (the tasks extension) run through
# round-robin too: the replicas share them through a redis-server of this run's own
# (--store), so a task created through one replica is polled, answered and cancelled
# through others (nginx's access log names the replica of each request).
#
# Last, replica 2 is killed while modern calls go on: they keep succeeding on the others;
# a task it had finished stays readable, and one it was running turns failed once its
# lease (--task-lease 2) lapses.
#
# Ends with `scale-out: N passed, M failed`; exit status 1 if M > 0, 2 if something
# needed (nginx, redis-server, the build) is missing.
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
command -v redis-server >/dev/null || { echo "scale-out: redis-server is not installed (apt-get install -y redis-server)" >&2; exit 2; }
command -v curl >/dev/null || { echo "scale-out: curl is not installed" >&2; exit 2; }

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

# The shared store: a redis-server on a free port, nothing on disk.
redis_port=$(free_port)
redis-server --port "$redis_port" --bind 127.0.0.1 --save '' --appendonly no --dir "$scratch" \
  > "$scratch/redis.log" 2>&1 &
pids+=($!)
await_port "$redis_port" || { echo "redis-server did not listen on $redis_port:" >&2; cat "$scratch/redis.log" >&2; exit 2; }
store=redis://127.0.0.1:$redis_port
lease=2

# Replica i on a free port, read from its listening line; its port in ports[i].
ports=()
start_replica() {
  local i=$1 log=$scratch/replica-$1.log port=
  # Made here: the replica's own `2>` may not have run yet when sed first reads it.
  : > "$log"
  "$bin" serve --http --port 0 --fixture conformance --state-key-file "$key" \
    --session-id-prefix "r$i." --store "$store" --task-lease "$lease" 2> "$log" &
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
echo "== $replicas replicas on 127.0.0.1:${ports[*]} (--fixture conformance, one --state-key-file, --session-id-prefix r1. r2. …, --store $store --task-lease $lease)"

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

# One modern request with curl to URL $1: method $2, Mcp-Name $3 (may be empty),
# params $4 (JSON, without _meta: the tasks extension and elicitation are declared);
# prints the JSON-RPC response (from JSON or from the SSE event alike).
rpc() {
  local url=$1 method=$2 name=$3 params=$4 body
  body=$(python3 -c 'import json, sys
p = json.loads(sys.argv[2])
p["_meta"] = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {"extensions": {"io.modelcontextprotocol/tasks": {}}, "elicitation": {}}}
print(json.dumps({"jsonrpc": "2.0", "id": 1, "method": sys.argv[1], "params": p}))' "$method" "$params")
  curl -sS -N --max-time 10 "$url" -H 'Content-Type: application/json' \
    -H 'Accept: application/json, text/event-stream' -H 'MCP-Protocol-Version: 2026-07-28' \
    -H "Mcp-Method: $method" ${name:+-H "Mcp-Name: $name"} -d "$body" | sed -n -e 's/^data: //' -e '/^{/p'
}
# Field $2 (a Python expression on `r`, the response) of the JSON in $1.
field() {
  python3 -c 'import json, sys; r = json.loads(sys.argv[1]); print(eval(sys.argv[2]))' "$1" "$2" 2>/dev/null || echo "?"
}
# The replica (r1, r2, …) nginx sent the last request to, from its access log.
last_replica() {
  local up i
  sleep 0.05
  up=$(tail -n 1 "$scratch/nginx-round-robin/logs/access.log" | grep -o 'upstream=[0-9.:]*' | grep -o '[0-9]*$')
  for i in $(seq "$replicas"); do
    [[ ${ports[i]} == "$up" ]] && { echo "r$i"; return; }
  done
  echo "?"
}
# Polls tasks/get on $1 for task $2 until its status is $3 (at most $4 s); prints the last response.
poll_task() {
  local url=$1 id=$2 want=$3 secs=$4 r= _
  for _ in $(seq "$((secs * 10))"); do
    r=$(rpc "$url" tasks/get "$id" "{\"taskId\": \"$id\"}")
    [[ $(field "$r" 'r["result"]["status"]') == "$want" ]] && break
    sleep 0.1
  done
  echo "$r"
}

echo
echo "== tasks through round-robin: one task, many replicas (--store $store)"
r=$(rpc "$url_round_robin" tools/call slow_compute '{"name": "slow_compute", "arguments": {"seconds": 30}}')
task=$(field "$r" 'r["result"]["taskId"]')
made_on=$(last_replica)
echo "-- tools/call slow_compute → task $task, created on $made_on"
served=()
for n in 1 2 3; do
  r=$(rpc "$url_round_robin" tasks/get "$task" "{\"taskId\": \"$task\"}")
  served+=("$(last_replica):$(field "$r" 'r["result"]["status"]')")
done
echo "-- tasks/get ×3 through round-robin, replica:status → ${served[*]}"
r=$(rpc "$url_round_robin" tasks/cancel "$task" "{\"taskId\": \"$task\"}")
cancelled_on=$(last_replica)
r=$(poll_task "$url_round_robin" "$task" cancelled 5)
echo "-- tasks/cancel on $cancelled_on; tasks/get on $(last_replica) → $(field "$r" 'r["result"]["status"]')"
others=$(printf '%s\n' "${served[@]}" | cut -d: -f1 | grep -vc "^$made_on\$" || true)
if [[ $(field "$r" 'r["result"]["status"]') == cancelled ]] && (( others > 0 )) \
    && ! printf '%s\n' "${served[@]}" | grep -qv ':working$'; then
  pass "round-robin: a task created on $made_on was read working on ${served[*]%%:*} and cancelled through $cancelled_on"
else
  fail "round-robin: shared task: read as ${served[*]}, then $(field "$r" 'r["result"]["status"]') (want working everywhere, then cancelled)"
fi
for i in $(seq "$replicas"); do
  grep -h "task $task" "$scratch/replica-$i.log" | sed "s/^/   r$i stderr: /" || true
done

r=$(rpc "$url_round_robin" tools/call confirm_delete '{"name": "confirm_delete", "arguments": {"filename": "notes.txt"}}')
task=$(field "$r" 'r["result"]["taskId"]')
made_on=$(last_replica)
r=$(poll_task "$url_round_robin" "$task" input_required 5)
key=$(field "$r" 'next(iter(r["result"]["inputRequests"]))')
echo "-- confirm_delete → task on $made_on; tasks/get on $(last_replica) asks $key"
rpc "$url_round_robin" tasks/update "$task" "{\"taskId\": \"$task\", \"inputResponses\": {\"$key\": {\"action\": \"accept\", \"content\": {\"confirm\": true}}}}" > /dev/null
answered_on=$(last_replica)
r=$(poll_task "$url_round_robin" "$task" completed 5)
text=$(field "$r" 'r["result"]["result"]["content"][0]["text"]')
echo "-- tasks/update on $answered_on; tasks/get on $(last_replica) → $(field "$r" 'r["result"]["status"]'): $text"
if [[ $(field "$r" 'r["result"]["status"]') == completed ]]; then
  pass "round-robin: a question asked by work on $made_on was answered through $answered_on and the work finished"
else
  fail "round-robin: the answered task ended $(field "$r" 'r["result"]["status"]') (want completed)"
fi

# Tasks owned by replica 2 (asked directly), for the crash below.
direct2=http://127.0.0.1:${ports[2]}/mcp
r=$(rpc "$direct2" tools/call slow_compute '{"name": "slow_compute", "arguments": {"seconds": 0.1, "label": "finished"}}')
finished_task=$(field "$r" 'r["result"]["taskId"]')
r=$(rpc "$direct2" tools/call slow_compute '{"name": "slow_compute", "arguments": {"seconds": 120, "label": "orphan"}}')
orphan_task=$(field "$r" 'r["result"]["taskId"]')
poll_task "$url_round_robin" "$finished_task" completed 5 > /dev/null
echo "-- on r2: task $finished_task (finished) and task $orphan_task (running 120 s)"

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
echo "== replica 2's tasks after its death"
r=$(rpc "$url_round_robin" tasks/get "$finished_task" "{\"taskId\": \"$finished_task\"}")
echo "-- tasks/get $finished_task on $(last_replica) → $(field "$r" 'r["result"]["status"]')"
if [[ $(field "$r" 'r["result"]["status"]') == completed ]]; then
  pass "a task finished by the killed replica is still readable on the others"
else
  fail "the killed replica's finished task reads as: $r"
fi
r=$(poll_task "$url_round_robin" "$orphan_task" failed "$((lease * 3))")
echo "-- tasks/get $orphan_task on $(last_replica) → $(field "$r" 'r["result"]["status"]'): $(field "$r" 'r["result"].get("statusMessage")')"
if [[ $(field "$r" 'r["result"]["status"]') == failed ]]; then
  pass "the task the killed replica was running turned failed once its ${lease} s lease lapsed"
else
  fail "the killed replica's running task reads as: $r"
fi

echo
echo "scale-out: $passed passed, $failed failed"
(( failed == 0 ))
