# Sourced by the tap's bench peers (serve.sh, mitmdump.sh): starts `BIN serve --http
# --port 0` in the background, its stderr in LOG, and sets `port` to the port its
# first line names (exits 1 saying why if it does not start).
start_server() {
  local bin=$1 log=$2
  : > "$log"
  "$bin" serve --http --port 0 2> "$log" &
  port=
  for _ in $(seq 200); do
    port=$(sed -n 's|.*listening on http://127\.0\.0\.1:\([0-9]*\)/mcp.*|\1|p' "$log" | head -n1)
    [[ -n $port ]] && return 0
    sleep 0.02
  done
  echo "the server did not start:" >&2
  cat "$log" >&2
  exit 1
}
