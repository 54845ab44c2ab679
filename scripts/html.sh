#!/usr/bin/env bash
# `mcp-raw show FILE --html`, checked in a real browser: the demos (stdio and HTTP, both
# eras, and the OAuth flow of `demo-http --auth`) are recorded, each recording written
# as a page (the live page of `mcp-raw ui`, frozen into one file), and the page opened
# from its file in headless Chromium
# (Debian's `chromium`; .ci/run installs it): no listener, no network. The checks are
# scripts/ui_check.py's with --frozen (said at its top): the page must hold one
# message per message the recording holds (counted from `show --json`'s message
# facts), its script must log that count, its console no error; its filters, its
# sequence view and a row opened from the URL are checked as the live page's are.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/demo_recordings.sh"
python3 scripts/ui_check.py --frozen "$bin" "$browser" "${recordings[@]}"
