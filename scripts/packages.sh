#!/usr/bin/env bash
# mcp-raw's packages, built and tried without publishing anything (CI runs this):
#
#   1. the fully static Linux x64 build (scripts/static-build.sh), which every
#      package carries; `ldd` must call it "not a dynamic executable";
#   2. the release asset (scripts/archive.sh), checked against the file name and path
#      that Cargo.toml's [package.metadata.binstall] templates give for this platform;
#   3. the npm packages (`mcp-raw`, the launcher, and `@mcp-raw/linux-x64`, the binary)
#      with `npm pack`, and the wheel with maturin (packaging/python);
#   4. each installed from its local file into a fresh directory (`npm install
#      ./mcp-raw-*.tgz ./mcp-raw-linux-x64-*.tgz`, `pip install ./mcp_raw-*.whl` into a
#      fresh venv, `uvx --from` and `pipx run --spec` on the wheel's file), then run
#      through each: `--version`, `demo`, a `tap` with a real initialize (its answer
#      compared byte for byte with the server's own), exit statuses; through the npm
#      launcher also `npx -y mcp-raw`, SIGTERM and SIGINT passed on, and the messages
#      of a missing platform package.
#
#   scripts/packages.sh            everything above
#   MCP_RAW_STATIC_BIN=PATH        skip step 1's build and use that binary (it must be static)
#
# No network is needed once maturin, uv and pipx are installed (pinned, from PyPI,
# into target/packages/tools: once). Files land in target/packages/dist; scratch
# directories under /tmp are removed on exit.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
fail() {
  echo "packages.sh: FAILED: $*" >&2
  exit 1
}
target_dir=${CARGO_TARGET_DIR:-$root/target}
triple=x86_64-unknown-linux-gnu
maturin_version=1.16.0
# `uvx` and `pipx run`, tried on the wheel's file as a user would run them.
uv_version=0.13.8
pipx_version=1.18.4
# scripts/static-build.sh's flags (it says why), for maturin to find that build fresh.
static_flags=$(sed -n 's/^RUSTFLAGS="\(.*\)" \\$/\1/p' scripts/static-build.sh)
[ -n "$static_flags" ] || fail "no RUSTFLAGS line in scripts/static-build.sh"
version=$(sed -n '/^\[workspace.package\]/,/^\[/s/^version = "\(.*\)"/\1/p' Cargo.toml)
dist=$target_dir/packages/dist
work=$(mktemp -d /tmp/mcp-raw-packages.XXXXXX)
server=
# A server left running would hold this script's stdout open after it ends.
trap '[ -z "$server" ] || kill "$server" 2>/dev/null; rm -rf "$work"' EXIT
rm -rf "$dist"
mkdir -p "$dist"

echo "== the static build (glibc, crt-static, $triple)"
if [ -n "${MCP_RAW_STATIC_BIN:-}" ]; then
  static=$MCP_RAW_STATIC_BIN
else
  static=$(scripts/static-build.sh)
fi
ldd_says=$(ldd "$static" 2>&1 || true)
echo "   $static: $(stat -c %s "$static") bytes; ldd: $ldd_says"
case $ldd_says in
  *"not a dynamic executable"*) ;;
  *) fail "$static is not static: ldd says $ldd_says" ;;
esac
[ "$("$static" --version)" = "mcp-raw $version" ] || fail "$static --version: $("$static" --version)"

echo "== the static binary alone in an empty root: no libc, no loader; a name from that root's /etc/hosts"
# What "static" promises: only a Linux kernel under it (a musl distribution, a scratch
# container). (The default build cannot start there: it needs ld-linux-x86-64.so.2 and
# libc.so.6; seen by hand, not checked here.)
if [ "$(id -u)" = 0 ] && command -v chroot >/dev/null; then
  jail=$work/root
  mkdir -p "$jail/etc"
  cp "$static" "$jail/mcp-raw"
  echo '127.0.0.1 packages-check.test' >"$jail/etc/hosts"
  echo 'hosts: files' >"$jail/etc/nsswitch.conf"
  [ "$(chroot "$jail" /mcp-raw --version)" = "mcp-raw $version" ] || fail "the static binary in an empty root: --version"
  "$static" serve --http --port 0 --allow-host packages-check.test 2>"$work/serve.log" &
  server=$!
  port=
  for _ in $(seq 100); do
    port=$(grep -o 'http://127.0.0.1:[0-9]*/mcp' "$work/serve.log" | head -1 | cut -d: -f3 | cut -d/ -f1 || true)
    [ -n "$port" ] && break
    sleep 0.05
  done
  [ -n "$port" ] || fail "serve --http did not say its port: $(cat "$work/serve.log")"
  status=0
  chroot "$jail" /mcp-raw client "http://packages-check.test:$port/mcp" --call add='{"a":40,"b":2}' \
    >"$work/client.txt" 2>&1 || status=$?
  kill $server
  wait $server 2>/dev/null || true
  server=
  [ $status = 0 ] && grep -q 'connected to packages-check.test:' "$work/client.txt" && grep -qF '"text": "42"' "$work/client.txt" \
    || fail "the static client in an empty root ended with $status: $(tail -5 "$work/client.txt")"
  echo "   --version, and a client that resolved packages-check.test from the root's /etc/hosts and called add (42)"
else
  echo "   skipped: chroot needs root"
fi

echo "== the release asset, against cargo binstall's templates (Cargo.toml)"
archive=$(scripts/archive.sh $triple "$static" "$dist")
python3 - "$archive" "$version" "$triple" <<'EOF'
import sys, tarfile, tomllib, os
archive, version, triple = sys.argv[1:]
meta = tomllib.load(open("Cargo.toml", "rb"))["package"]["metadata"]["binstall"]
vals = {"name": "mcp-raw", "version": version, "target": triple, "bin": "mcp-raw",
        "binary-ext": "", "archive-suffix": {"tgz": ".tar.gz", "zip": ".zip"}[meta["pkg-fmt"]]}
def render(t):
    for k, v in vals.items():
        t = t.replace("{ %s }" % k, v)
    return t
url = render(meta["pkg-url"])
want_file = url.rsplit("/", 1)[1]
if not url.startswith("{ repo }/releases/download/v%s/" % version):
    sys.exit("binstall pkg-url %r: not the release of tag v%s" % (url, version))
if os.path.basename(archive) != want_file:
    sys.exit("binstall looks for %s, scripts/archive.sh made %s" % (want_file, os.path.basename(archive)))
bin_dir = render(meta["bin-dir"])
member = tarfile.open(archive).getmember(bin_dir)
if not member.isfile() or member.mode & 0o111 == 0:
    sys.exit("%s in %s is not an executable file" % (bin_dir, archive))
print("   binstall: %s, then %s in it" % (want_file, bin_dir))
EOF

echo "== npm pack: mcp-raw (the launcher) and @mcp-raw/linux-x64 (the static binary)"
cp -r packaging/npm/mcp-raw "$work/npm-mcp-raw"
cp -r packaging/npm/platforms/linux-x64 "$work/npm-linux-x64"
for d in "$work/npm-mcp-raw" "$work/npm-linux-x64"; do
  cp LICENSE-MIT LICENSE-APACHE "$d/"
done
mkdir -p "$work/npm-linux-x64/bin"
install -m 755 "$static" "$work/npm-linux-x64/bin/mcp-raw"
for d in "$work/npm-mcp-raw" "$work/npm-linux-x64"; do
  (cd "$d" && npm pack --silent --pack-destination "$dist" >/dev/null)
done
npm_main=$dist/mcp-raw-$version.tgz
npm_linux=$dist/mcp-raw-linux-x64-$version.tgz
[ -f "$npm_main" ] && [ -f "$npm_linux" ] || fail "npm pack made: $(ls "$dist")"

echo "== maturin $maturin_version: the wheel (bindings = \"bin\"), from the same static build"
tools=$target_dir/packages/tools
want="maturin $maturin_version, uv $uv_version, pipx $pipx_version"
if [ "$(cat "$tools/.stamp" 2>/dev/null)" != "$want" ]; then
  rm -rf "$tools"
  python3 -m venv "$tools"
  PIP_DISABLE_PIP_VERSION_CHECK=1 "$tools/bin/pip" install --quiet \
    "maturin==$maturin_version" "uv==$uv_version" "pipx==$pipx_version"
  echo "$want" >"$tools/.stamp"
fi

# The same flags and target as step 1, so cargo finds that build fresh instead of
# building again (`cmp` below proves the wheel holds those very bytes).
(cd packaging/python && RUSTFLAGS="$static_flags" "$tools/bin/maturin" build \
  --release --quiet --target $triple --out "$dist" >"$work/maturin.log" 2>&1) \
  || { cat "$work/maturin.log" >&2; fail "maturin build"; }
wheel=$(ls "$dist"/mcp_raw-"$version"-*.whl)
echo "   $(basename "$wheel")"

# Runs the program through one installed command ("$@"): --version, the demo, a tap
# with a real initialize, an exit status passed through.
init='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"packages.sh","version":"0"}}}'
direct=$(printf '%s\n' "$init" | "$static" serve 2>/dev/null)
case $direct in
  *'"protocolVersion":"2025-11-25"'*'"name":"mcp-raw"'*) ;;
  *) fail "mcp-raw serve answered initialize with: $direct" ;;
esac
try() {
  local via=$1
  shift
  local out
  out=$("$@" --version) || fail "$via: --version exited $?"
  [ "$out" = "mcp-raw $version" ] || fail "$via --version printed: $out"
  "$@" demo >"$work/demo.txt" 2>&1 || fail "$via demo exited $? ($(tail -3 "$work/demo.txt"))"
  grep -q '"serverInfo"' "$work/demo.txt" && grep -q 'tools/call' "$work/demo.txt" \
    || fail "$via demo: no initialize answer or tools/call in its output"
  rm -f "$work/tap.jsonl"
  # The server's log lines on stderr pass through the tap too; kept out of CI's log.
  out=$(printf '%s\n' "$init" | "$@" tap --record "$work/tap.jsonl" -- "$static" serve 2>"$work/tap.err") \
    || fail "$via tap exited $? ($(cat "$work/tap.err"))"
  [ "$out" = "$direct" ] || fail "$via tap: the client got $out, the server said $direct"
  "$@" show "$work/tap.jsonl" >"$work/show.txt" || fail "$via show of the tap's recording exited $?"
  grep -q 'initialize' "$work/show.txt" || fail "$via: the tap's recording holds no initialize"
  local status=0
  "$@" tap -- sh -c 'exit 7' </dev/null || status=$?
  [ $status = 7 ] || fail "$via tap -- sh -c 'exit 7' ended with $status, not 7"
  status=0
  "$@" --no-such-flag >/dev/null 2>&1 || status=$?
  [ $status = 2 ] || fail "$via --no-such-flag ended with $status, not 2"
  echo "   $via: --version, demo, tap (answer byte for byte), exit statuses 7 and 2"
}

echo "== npm install from the local tarballs into a fresh directory"
app=$work/npm-app
mkdir "$app"
echo '{"name":"packages-check","private":true}' >"$app/package.json"
# --offline: the other platforms' packages are optional and not published; npm
# skips them instead of asking the registry.
(cd "$app" && npm install --offline --no-audit --no-fund --loglevel=error "$npm_main" "$npm_linux" >/dev/null)
cmp "$app/node_modules/@mcp-raw/linux-x64/bin/mcp-raw" "$static" || fail "npm's binary is not the static build"
try "node_modules/.bin/mcp-raw" "$app/node_modules/.bin/mcp-raw"
(cd "$app" && try "npx -y mcp-raw" npx --offline -y mcp-raw)

echo "== npm: SIGTERM and SIGINT to the launcher reach the binary, and the launcher dies of them"
# Sends SIG to the launcher running `mcp-raw serve` (stdin held open by a fifo): the
# binary must end, and the launcher's status must be 128 + the signal's number, what
# bash reports for a process killed by it (a launcher that did not pass the signal on
# would end without its binary, or not at all).
signal_through() {
  local sig=$1 want=$2 launcher child status=0
  rm -f "$work/stdin"
  mkfifo "$work/stdin"
  "$app/node_modules/.bin/mcp-raw" serve <"$work/stdin" >/dev/null 2>&1 &
  launcher=$!
  exec 7>"$work/stdin"
  child=
  for _ in $(seq 100); do
    child=$(pgrep -P $launcher -x mcp-raw || true)
    [ -n "$child" ] && break
    sleep 0.05
  done
  [ -n "$child" ] || fail "the launcher (pid $launcher) started no mcp-raw"
  kill -"$sig" $launcher
  for _ in $(seq 100); do
    kill -0 $launcher 2>/dev/null || break
    sleep 0.05
  done
  if kill -0 $launcher 2>/dev/null; then
    kill -KILL $launcher $child 2>/dev/null || true
    fail "the launcher did not end within 5 s of SIG$sig"
  fi
  wait $launcher || status=$?
  exec 7>&-
  kill -0 "$child" 2>/dev/null && fail "the binary (pid $child) outlived its launcher's SIG$sig"
  [ $status = "$want" ] || fail "after SIG$sig the launcher ended with $status, not $want"
  echo "   SIG$sig: the binary ended, the launcher's status is $want"
}
signal_through TERM 143
signal_through INT 130

echo "== npm: no platform package, and a platform with none published"
bare=$work/npm-bare
mkdir "$bare"
echo '{"name":"packages-check","private":true}' >"$bare/package.json"
(cd "$bare" && npm install --offline --no-audit --no-fund --loglevel=error "$npm_main" >/dev/null)
status=0
"$bare/node_modules/.bin/mcp-raw" --version >"$work/out.txt" 2>"$work/err.txt" || status=$?
[ $status = 1 ] && [ ! -s "$work/out.txt" ] || fail "without @mcp-raw/linux-x64 the launcher ended with $status"
grep -q '@mcp-raw/linux-x64, which holds the binary for linux-x64, is not installed' "$work/err.txt" \
  && grep -q 'cargo install mcp-raw' "$work/err.txt" || fail "without @mcp-raw/linux-x64 it said: $(cat "$work/err.txt")"
echo 'Object.defineProperty(process, "platform", { value: "aix" });' >"$work/aix.js"
status=0
NODE_OPTIONS="--require $work/aix.js" "$app/node_modules/.bin/mcp-raw" --version 2>"$work/err.txt" || status=$?
[ $status = 1 ] && grep -q 'no prebuilt binary is published for aix-x64' "$work/err.txt" \
  && grep -q 'cargo install mcp-raw' "$work/err.txt" || fail "on aix the launcher ended with $status: $(cat "$work/err.txt")"
echo "   missing package and unknown platform: status 1, what to do instead on stderr"

echo "== pip install of the wheel into a fresh venv"
python3 -m venv "$work/venv"
PIP_DISABLE_PIP_VERSION_CHECK=1 "$work/venv/bin/pip" install --quiet --no-index "$wheel"
cmp "$work/venv/bin/mcp-raw" "$static" || fail "the wheel's binary is not the static build"
try "venv/bin/mcp-raw" "$work/venv/bin/mcp-raw"

echo "== uvx and pipx run on the wheel's file (offline: nothing else to fetch)"
UV_CACHE_DIR=$work/uv-cache UV_TOOL_DIR=$work/uv-tools UV_PYTHON_DOWNLOADS=never \
  try "uvx mcp-raw" "$tools/bin/uvx" --offline --from "$wheel" mcp-raw
PIP_NO_INDEX=1 PIPX_HOME=$work/pipx PIPX_BIN_DIR=$work/pipx/bin \
  try "pipx run mcp-raw" "$tools/bin/pipx" run --spec "$wheel" mcp-raw

echo "== packages.sh: all passed; in $dist:"
(cd "$dist" && ls -l | tail -n +2 | awk '{printf "   %s  %s bytes\n", $NF, $5}')
