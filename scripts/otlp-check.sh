#!/usr/bin/env bash
# `--otlp` and `export otlp` against the official OpenTelemetry packages: makes the
# venv tests/otlp.rs uses (.otlp-check/venv, git-ignored, or $OTLP_CHECK_HOME), pinned,
# reused while the pins match, then runs those tests with MCP_RAW_REQUIRE_OTLP=1 (a
# missing venv is then a failure, not a skip):
#   opentelemetry-proto  decodes each POST (tests/scripts/otlp_receiver.py)
#   opentelemetry-semantic-conventions  defines every name we send (otlp_semconv.py)
#   opentelemetry-sdk    starts the trace the server must continue (otel_client.py)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
PINS="opentelemetry-proto==1.45.2 opentelemetry-sdk==1.45.2 opentelemetry-api==1.45.2 opentelemetry-semantic-conventions==0.66b2 protobuf==7.36.2 typing_extensions==4.16.0"
home=$(realpath -m "${OTLP_CHECK_HOME:-.otlp-check}")
mkdir -p "$home"
if [[ "$(cat "$home/pins" 2>/dev/null)" != "$PINS" ]]; then
  echo "== installing $PINS into $home/venv"
  rm -rf "$home/venv"
  python3 -m venv "$home/venv"
  # shellcheck disable=SC2086
  PIP_DISABLE_PIP_VERSION_CHECK=1 "$home/venv/bin/pip" install --quiet $PINS
  echo "$PINS" > "$home/pins"
fi
MCP_RAW_OTLP_PYTHON="$home/venv/bin/python" MCP_RAW_REQUIRE_OTLP=1 cargo test --test otlp
