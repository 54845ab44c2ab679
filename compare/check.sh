#!/usr/bin/env bash
# The same client session against mcp-raw and against the rmcp version of its demo
# server (compare/rmcp/), over stdio and Streamable HTTP, in both eras; then checks
# that the two wires differ exactly where compare/expected-differences.json says
# (and docs/en/src/internals/sdk-vs-raw.md explains). Fails on a difference the list does not name,
# and on a listed one that no longer appears (stale).
#
# What is compared, per pair of recordings:
#   - the JSON-RPC messages, by `mcp-raw diff --format json` (ids, RFC 3339 times
#     and uuids ignored); for HTTP only lane c1, the POST/DELETE connection, so that
#     the GET stream (lane c2) does not shift the messages out of step;
#   - the HTTP exchanges, by compare/exchanges.jq: per request, the status, the
#     content type, the response header names (not `date`), the count of empty
#     priming SSE events and of SSE events with data.
#
# Usage: compare/check.sh [--print]   (--print: write the observed list and exit 0)
# COMPARE_KEEP=DIR: keep the recordings in DIR.
set -euo pipefail
cd "$(dirname "$0")/.."

print_only=false
[[ ${1:-} == --print ]] && print_only=true

# jq reads the recordings (Debian's, installed if missing, as .ci/run does for chromium).
if ! command -v jq >/dev/null; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends jq >/dev/null \
    || { apt-get update >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends jq >/dev/null; }
fi

target=$(realpath -m "${CARGO_TARGET_DIR:-target}")
echo "-- building mcp-raw (release) and compare/rmcp (debug)"
cargo build --release --quiet
# rmcp in debug: from a clean target its ~125 crates took 56 s, against 96 s in
# release (2026-12-03, two shared cores); the session is a dozen small messages, so
# the binary's speed does not matter.
cargo build --quiet --locked --manifest-path compare/rmcp/Cargo.toml \
  --target-dir "$target/compare-rmcp"
cargo fmt --check --manifest-path compare/rmcp/Cargo.toml
raw="$target/release/mcp-raw"
sdk="$target/compare-rmcp/debug/mcp-raw-rmcp"

work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

# The session: list the tools, call each, and one call with a bad argument.
calls=(--call get_current_time --call 'echo={"message":"hello"}'
  --call 'add={"a":2,"b":3}' --call 'add={"a":"two","b":3}')

# record NAME CLIENT-ARGS…: one session; exit 1 (the bad call's isError) is expected.
record() {
  local name=$1 rc=0
  shift
  "$raw" client "${calls[@]}" --color never --record "$work/$name.jsonl" "$@" \
    >"$work/$name.out" 2>&1 || rc=$?
  if ((rc > 1)); then
    echo "FAIL: the session $name ended with status $rc:" >&2
    tail -20 "$work/$name.out" >&2
    exit 1
  fi
}

# start NAME CMD…: an HTTP server on a free port; sets $url once it says where it listens.
start() {
  local name=$1
  shift
  "$@" >/dev/null 2>"$work/$name.err" &
  pids+=($!)
  for _ in $(seq 100); do
    url=$(grep -o 'http://127\.0\.0\.1:[0-9]*/mcp' "$work/$name.err" | head -1 || true)
    [[ -n $url ]] && return
    sleep 0.1
  done
  echo "FAIL: $name did not say where it listens:" >&2
  cat "$work/$name.err" >&2
  exit 1
}

start raw-http "$raw" serve --http --port 0
raw_url=$url
start sdk-http "$sdk" --http 0
sdk_url=$url

for era in legacy modern; do
  record "raw-stdio-$era" --era "$era" -- "$raw" serve
  record "sdk-stdio-$era" --era "$era" -- "$sdk"
  record "raw-http-$era" --era "$era" "$raw_url"
  record "sdk-http-$era" --era "$era" "$sdk_url"
done

# messages PAIR A B: mcp-raw diff's differences, one line each, event numbers dropped.
messages() {
  local pair=$1 a=$2 b=$3 rc=0
  "$raw" diff --ignore id --ignore time --ignore uuid --format json --max-shown 1000 \
    "$a" "$b" >"$work/diff.json" || rc=$?
  if ((rc > 1)); then
    echo "FAIL: mcp-raw diff $a $b: status $rc" >&2
    exit 1
  fi
  jq -r --arg pair "$pair" '.differences[]
    | "\($pair): \(.dir) message \(.n) (\(.what)): \(.detail | gsub(", event [0-9]+\\)"; ")"))"' \
    "$work/diff.json"
}

# exchanges PAIR A B: the HTTP-level differences, request by request.
exchanges() {
  local pair=$1 a=$2 b=$3
  jq -r --arg pair "$pair" \
    --slurpfile A <(jq -s -f compare/exchanges.jq "$a") \
    --slurpfile B <(jq -s -f compare/exchanges.jq "$b") -n '
    ($A[0] | map({key: "\(.lane) #\(.n)", value: .}) | from_entries) as $a
    | ($B[0] | map({key: "\(.lane) #\(.n)", value: .}) | from_entries) as $b
    | ($a + $b | keys_unsorted | unique)[] as $k
    | ($a[$k] // $b[$k]) as $x
    | "\($pair): http \($k) \($x.request)\(if $x.method then " " + $x.method else "" end)" as $where
    | if $a[$k] == null then "\($where): only in B"
      elif $b[$k] == null then "\($where): only in A"
      else (["status", "content_type", "headers", "priming", "events"][]) as $f
        | select($a[$k][$f] != $b[$k][$f])
        | "\($where): \($f): \($a[$k][$f] | tojson) vs \($b[$k][$f] | tojson)"
      end'
}

{
  for era in legacy modern; do
    messages "stdio $era" "$work/raw-stdio-$era.jsonl" "$work/sdk-stdio-$era.jsonl"
    for side in raw sdk; do
      "$raw" show "$work/$side-http-$era.jsonl" --lane c1 --json >"$work/$side-http-$era.c1.jsonl"
    done
    messages "http $era" "$work/raw-http-$era.c1.jsonl" "$work/sdk-http-$era.c1.jsonl"
    exchanges "http $era" "$work/raw-http-$era.jsonl" "$work/sdk-http-$era.jsonl"
  done
} | LC_ALL=C sort -u >"$work/observed.txt"

# COMPARE_KEEP=DIR keeps the recordings, to read with `mcp-raw show` / `mcp-raw diff`.
[[ -z ${COMPARE_KEEP:-} ]] || { mkdir -p "$COMPARE_KEEP" && cp "$work"/*.jsonl "$COMPARE_KEEP"/; }

if $print_only; then
  cat "$work/observed.txt"
  exit 0
fi

# Every entry has its reason, and names (`doc`) the item of docs/en/src/internals/sdk-vs-raw.md's list
# "Every difference, named" that explains it.
missing=$(jq '[.[] | select((.reason // "") == "" or .doc == null)] | length' compare/expected-differences.json)
if ((missing > 0)); then
  echo "FAIL: $missing entries of compare/expected-differences.json lack a reason or a doc item" >&2
  exit 1
fi
for n in $(jq -r '[.[].doc] | unique[]' compare/expected-differences.json); do
  grep -q "^$n\. \*\*" docs/en/src/internals/sdk-vs-raw.md \
    || { echo "FAIL: docs/en/src/internals/sdk-vs-raw.md has no item $n, which compare/expected-differences.json cites" >&2; exit 1; }
done

jq -r '.[] | "\(.pair): \(.difference)"' compare/expected-differences.json \
  | LC_ALL=C sort -u >"$work/expected.txt"
unexpected=$(LC_ALL=C comm -23 "$work/observed.txt" "$work/expected.txt")
stale=$(LC_ALL=C comm -13 "$work/observed.txt" "$work/expected.txt")
if [[ -n $unexpected || -n $stale ]]; then
  [[ -z $unexpected ]] || printf 'FAIL: a difference compare/expected-differences.json does not name:\n%s\n' "$unexpected" >&2
  [[ -z $stale ]] || printf 'FAIL: an expected difference no longer appears (stale):\n%s\n' "$stale" >&2
  exit 1
fi
echo "ok: $(wc -l <"$work/observed.txt") differences between mcp-raw and rmcp, each named in compare/expected-differences.json"
