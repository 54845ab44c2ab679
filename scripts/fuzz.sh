#!/usr/bin/env bash
# Runs every cargo-fuzz target in fuzz/ briefly against its checked-in seeds, and fails if
# any target finds a crash (a panic, a failed assertion, a timeout, running out of memory).
#
# cargo-fuzz is pinned below and installed with `cargo install --locked` unless that
# version is there already. The targets are built without a sanitizer (`-s none`: the
# code is safe Rust, and it builds on stable too), with the nightly toolchain when one
# is installed, else with the default one.
#
# Usage: scripts/fuzz.sh [target...]        (default: every target)
#
# Environment:
#   FUZZ_SECONDS      seconds per target, 1 to 60 (default: 30)
#   CARGO_TARGET_DIR  where the fuzz targets are built (default: fuzz/target/)
#
# Every input in fuzz/regressions/<target>-* is replayed first. Each run then starts
# from fuzz/seeds/<target> with a fresh corpus in a temporary folder (fuzz/target/ is
# all it writes under fuzz/). A crash input is kept in that folder and its path
# printed; copy it to fuzz/regressions/ and reproduce it with
#   cargo fuzz run -s none <target> <file>
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

CARGO_FUZZ_VERSION=0.13.2
TARGETS=(jsonrpc json_check stdio_line sse http_request core_sequence wire_decode)

seconds=${FUZZ_SECONDS:-30}
if ! [[ $seconds =~ ^[0-9]+$ ]] || ((seconds < 1 || seconds > 60)); then
  echo "FUZZ_SECONDS must be a whole number of seconds from 1 to 60, got '$seconds'" >&2
  exit 2
fi
if (($# > 0)); then
  TARGETS=("$@")
fi

if [[ "$(cargo fuzz --version 2>/dev/null)" == "cargo-fuzz $CARGO_FUZZ_VERSION" ]]; then
  echo "== cargo-fuzz $CARGO_FUZZ_VERSION already installed"
else
  echo "== installing cargo-fuzz $CARGO_FUZZ_VERSION"
  cargo install cargo-fuzz --version "$CARGO_FUZZ_VERSION" --locked
fi

toolchain=()
if cargo +nightly --version >/dev/null 2>&1; then
  toolchain=(+nightly)
fi

cd fuzz
bin=$(realpath -m "${CARGO_TARGET_DIR:-target}")/x86_64-unknown-linux-gnu/release
echo "== building the fuzz targets (cargo ${toolchain[*]} fuzz build -s none)"
cargo "${toolchain[@]}" fuzz build -s none

work=$(mktemp -d "${TMPDIR:-/tmp}/mcp-raw-fuzz.XXXXXX")
failed=()
for target in "${TARGETS[@]}"; do
  echo "== fuzz $target for ${seconds}s"
  mkdir -p "$work/$target/corpus"
  log=$work/$target/log
  for input in regressions/"$target"-*; do
    [[ -e $input ]] || continue
    if ! "$bin/$target" "$input" >"$log" 2>&1; then
      echo "   FAILED on $input:"
      grep -A 6 'panicked at' "$log" | head -n 12 | sed 's/^/   | /' || true
      failed+=("$target")
      continue 2
    fi
  done
  # -close_fd_mask=2: the server's own log lines on stderr would drown the report; a
  # crash is re-run below with them, to show its panic message.
  if nice -n 19 cargo "${toolchain[@]}" fuzz run -s none "$target" \
    "$work/$target/corpus" "seeds/$target" -- \
    -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 -close_fd_mask=2 \
    -artifact_prefix="$work/$target/" -print_final_stats=1 >"$log" 2>&1; then
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
    rss=$(sed -n 's/^stat::peak_rss_mb: *//p' "$log")
    echo "   ok: ${runs:-?} executions, ${rate:-?} exec/s, peak RSS ${rss:-?} MB"
  else
    failed+=("$target")
    echo "   FAILED; the last lines of $log:"
    tail -n 25 "$log" | sed 's/^/   | /'
    for input in "$work/$target"/crash-* "$work/$target"/timeout-* "$work/$target"/oom-*; do
      [[ -e $input ]] || continue
      echo "   input: $input"
      "$bin/$target" "$input" 2>&1 |
        grep -A 6 'panicked at' | head -n 12 | sed 's/^/   | /' || true
    done
  fi
done

passed=$((${#TARGETS[@]} - ${#failed[@]}))
if ((${#failed[@]} > 0)); then
  echo "failed: ${failed[*]} (inputs and logs in $work)"
  echo "fuzz: $passed passed, ${#failed[@]} failed"
  exit 1
fi
rm -rf "$work"
echo "fuzz: $passed passed, 0 failed"
