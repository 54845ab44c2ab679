#!/usr/bin/env bash
# `mcp-raw ui`, checked in a real browser: the demos (stdio and HTTP, both eras, and
# the OAuth flow of `demo-http --auth`) are recorded, each recording opened with
# `mcp-raw ui`, and the page loaded in headless Chromium (Debian's `chromium`; .ci/run
# installs it). What is checked, and how, is said at the top of scripts/ui_check.py.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/demo_recordings.sh"
python3 scripts/ui_check.py "$bin" "$browser" "${recordings[@]}"
# Live: a server's page open in a browser driven over the DevTools protocol while
# clients come, through a reload (what scripts/ui_live.py checks is said at its top).
python3 scripts/ui_live.py "$bin" "$browser"
# Two recordings side by side (`mcp-raw ui A B`): the stdio demo in each era, checked
# against `mcp-raw diff`'s reading (what scripts/ui_diff.py checks is said at its top).
python3 scripts/ui_diff.py "$bin" "$browser" "${recordings[0]}" "${recordings[1]}"
# A real client and a real server through `tap --ui`: the TypeScript SDK client against
# @modelcontextprotocol/server-everything over stdio and HTTP, and a resend from the
# page (scripts/ui_everything.py says what it checks). interop/run.sh installs
# interop/ts in CI; a run of this script alone installs it when it is missing.
[ -f interop/ts/node_modules/@modelcontextprotocol/server-everything/dist/index.js ] \
  || (cd interop/ts && npm ci --no-audit --no-fund --loglevel=error)
python3 scripts/ui_everything.py "$bin" "$browser"
# Holding on an HTTP tap and the forward proxy's page: the TS SDK client's get-sum held
# and edited on `tap --http --ui --intercept`'s page, and the Python SDK client through
# `tap --proxy --ui --intercept` (HTTP_PROXY) held and edited too, each page's rows
# equal to the recording's messages (scripts/ui_tap_http.py says what it checks).
python3 scripts/ui_tap_http.py "$bin" "$browser"
