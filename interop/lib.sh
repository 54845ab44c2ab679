# Shared by the interop/*.sh scripts (sourced, not run). The caller keeps
# the pids of what it starts in the array `pids` and kills them on exit.

# Starts a command in the background, its stdout to LOG.out and its stderr to LOG,
# and waits (10 s at most) for a "listening on http(s)://ADDR…" line there; sets $addr.
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
    addr=$(sed -n 's#.*listening on https\{0,1\}://\([0-9.]*:[0-9]*\).*#\1#p' "$log" | head -n1)
    [ -n "$addr" ] && return 0
    sleep 0.1
  done
  cat "$log"
  echo "no 'listening on' line from: $*" >&2
  return 1
}

# A CA and a leaf for 127.0.0.1 (and localhost) it signed, made with openssl in DIR:
# DIR/ca.pem, DIR/leaf.pem, DIR/leaf.key. Short-lived (2 days), P-256, serverAuth.
make_pki() {
  local pki=$1
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 \
    -subj '/CN=mcp-raw interop CA' -keyout "$pki/ca.key" -out "$pki/ca.pem" 2>/dev/null
  openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
    -subj '/CN=127.0.0.1' -keyout "$pki/leaf.key" -out "$pki/leaf.csr" 2>/dev/null
  printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n' >"$pki/ext"
  openssl x509 -req -in "$pki/leaf.csr" -CA "$pki/ca.pem" -CAkey "$pki/ca.key" \
    -CAcreateserial -days 2 -extfile "$pki/ext" -out "$pki/leaf.pem" 2>/dev/null
}
