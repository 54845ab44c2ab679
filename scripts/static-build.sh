#!/usr/bin/env bash
# The fully static Linux x64 build that the npm package and the wheel carry (the book,
# docs/en/src/use/install.md): glibc linked in, so the binary needs no libc at run time, not even
# glibc (it runs on musl distributions too). Prints the binary's path.
#
#   crt-static                  glibc's static archives (libc.a), not libc.so.6
#   relocation-model=static     a plain static executable, not a static PIE: a static
#                               PIE keeps a dynamic section and relocates itself at
#                               start (ldd calls it "statically linked"); this one ldd
#                               calls "not a dynamic executable", and it starts with no
#                               relocations to apply. The cost: its own code and data
#                               are not placed at a random address (the stack, heap and
#                               mappings still are).
#
# --target keeps the flags off build scripts and proc macros, which the compiler loads
# as shared objects; so the build lands in target/x86_64-unknown-linux-gnu/release/
# and shares no compiled dependency with `cargo build --release` (a first build takes
# as long as that one). maturin (packaging/python) runs cargo with the same flags and
# target and finds this build fresh.
set -euo pipefail
cd "$(dirname "$0")/.."
triple=x86_64-unknown-linux-gnu
RUSTFLAGS="-C target-feature=+crt-static -C relocation-model=static" \
  cargo build --release --quiet --target $triple --bin mcp-raw
echo "${CARGO_TARGET_DIR:-$PWD/target}/$triple/release/mcp-raw"
