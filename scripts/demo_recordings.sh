# Sourced by scripts/html.sh and scripts/ui.sh: finds Debian's chromium, builds
# mcp-raw (release), and records the demos into a scratch directory removed on exit:
# stdio and HTTP in both eras, and the OAuth flow of `demo-http --auth` (an
# authorization server and a protected server, both spawned). Sets `browser`, `bin`,
# `dir` and `recordings` (the seven files, in that order): also a modern call retried
# with requestState, and hostile input through a tap.
cd "$(dirname "${BASH_SOURCE[0]}")/.."
browser=$(command -v chromium || command -v chromium-browser || true)
[ -n "$browser" ] || { echo "chromium is not installed (apt-get install chromium)" >&2; exit 1; }
echo "== cargo build --release"
cargo build --release
bin=$(realpath -m "${CARGO_TARGET_DIR:-target}")/release/mcp-raw
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
for era in legacy modern; do
  "$bin" demo --era "$era" --color never --record "$dir/stdio-$era.jsonl" >/dev/null
  "$bin" demo-http --era "$era" --color never --record "$dir/http-$era.jsonl" >/dev/null
done
"$bin" demo-http --auth --color never --record "$dir/http-auth.jsonl" >/dev/null
# A modern call in three rounds of input_required, linked by requestState.
"$bin" client --era modern --color never --record "$dir/stdio-mrtr.jsonl" \
  --call test_input_required_result_multi_round \
  --answer 'elicitation={"action":"accept","content":{"confirm":true,"name":"x"}}' \
  --answer 'sampling={"role":"assistant","content":{"type":"text","text":"ok"},"model":"m"}' \
  -- "$bin" serve --fixture conformance >/dev/null
# Hostile input through a tap: lines that break JSON-RPC's rules, so check finds some.
printf '%s\n' '{"id":1,"method":"ping"}' 'not json' '{"jsonrpc":"2.0","id":2,"method":"tools/list"}' |
  "$bin" tap --record "$dir/stdio-hostile.jsonl" -- "$bin" serve >/dev/null 2>&1 || true
recordings=("$dir/stdio-legacy.jsonl" "$dir/stdio-modern.jsonl" "$dir/http-legacy.jsonl" "$dir/http-modern.jsonl" "$dir/http-auth.jsonl" "$dir/stdio-mrtr.jsonl" "$dir/stdio-hostile.jsonl")
