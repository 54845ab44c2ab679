# Shared by interop/tap.sh and interop/replay.sh (sourced, not run). The caller keeps
# the pids of what it starts in the array `pids` and kills them on exit.

# Starts a command in the background, its stdout to LOG.out and its stderr to LOG,
# and waits (10 s at most) for a "listening on http://ADDR…" line there; sets $addr.
start() {
  local log=$1
  shift
  # Created here, not by the background job's redirection: the first look at it below
  # may come before the job has started (and a missing file fails under pipefail).
  : >"$log"
  "$@" 2>"$log" >"$log.out" &
  pids+=($!)
  addr=
  for _ in $(seq 100); do
    addr=$(sed -n 's#.*listening on http://\([0-9.]*:[0-9]*\).*#\1#p' "$log" | head -n1)
    [ -n "$addr" ] && return 0
    sleep 0.1
  done
  cat "$log"
  echo "no 'listening on' line from: $*" >&2
  return 1
}
