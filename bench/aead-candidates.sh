#!/bin/sh
# Measures the AEAD implementations considered for keyed sessions (issue 45, docs/keyed-sessions.md) on this
# machine and prints per-packet seal and open costs on 1,400-byte payloads. The crate is not part of the workspace
# (bench/aead-candidates/).
set -e
cd "$(dirname "$0")/aead-candidates"
cargo run --release --quiet
