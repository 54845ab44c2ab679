#!/usr/bin/env bash
# `mcp-raw load` against bench's own HTTP workload (bench/src/workload.rs,
# `mcp-bench http ADDR`), both on the same `mcp-raw serve --http`, the same number of
# clients, the same `echo` call, in each era; prints both lines and fails when load's
# throughput is not within the stated tolerance of bench's.
#
# Tolerance: load's calls/s at least MIN_RATIO (default 0.5) of bench's. Bench's
# client is a blocking loop over hand-written bytes; load's is mcp-raw's McpClient
# (JSON parsed, the era's rules applied, SSE answers decoded), which costs more per
# call, and on a small machine the clients share the cores with the server, so load
# measures less: the ratio shows how much. Each run is 2 s (SECS), a few seconds in all.
set -euo pipefail
cd "$(dirname "$0")/.."
CLIENTS=${CLIENTS:-8}
SECS=${SECS:-2}
MIN_RATIO=${MIN_RATIO:-0.5}
target=${CARGO_TARGET_DIR:-target}/release
cargo build --release --quiet --bin mcp-raw
cargo build --release --quiet --manifest-path bench/Cargo.toml
log=$(mktemp)
"$target/mcp-raw" serve --http --port 0 2>"$log" &
server=$!
trap 'kill $server 2>/dev/null; rm -f "$log"' EXIT
for _ in $(seq 50); do grep -q 'listening on' "$log" && break; sleep 0.1; done
addr=$(grep -o '127\.0\.0\.1:[0-9]*' "$log" | head -1)
status=0
for era in legacy modern; do
  bench=$("$target/mcp-bench" http "$addr" --clients "$CLIENTS" --secs "$SECS" --warm 0.5 --era "$era")
  load=$("$target/mcp-raw" load --quiet --format json --clients "$CLIENTS" --duration "$SECS" \
    --era "$era" --call 'echo={"message":"hello"}' "http://$addr/mcp")
  line=$(python3 - "$bench" "$load" "$MIN_RATIO" "$era" <<'PY'
import json, sys
bench = dict(kv.split("=") for kv in sys.argv[1].split())
load = json.loads(sys.argv[2])
ratio = load["throughput"] / float(bench["calls_per_s"])
ok = ratio >= float(sys.argv[3]) and load["errors"] == 0
print("%s %s: bench %.0f calls/s p50 %.0f us p99 %.0f us | load %.0f calls/s p50 %.0f us p99 %.0f us | load/bench %.2f" % (
    "ok  " if ok else "FAIL", sys.argv[4], float(bench["calls_per_s"]), float(bench["p50_us"]),
    float(bench["p99_us"]), load["throughput"], load["all"]["p50_ms"] * 1e3,
    load["all"]["p99_ms"] * 1e3, ratio))
PY
)
  echo "$line"
  [[ $line == ok* ]] || status=1
done
exit $status
