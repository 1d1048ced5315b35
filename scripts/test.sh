#!/usr/bin/env bash
# Convoy's whole test suite: formatting, lints, unit/integration/property tests, docs, fuzz targets.
# Installs what the tests need when it is missing (nothing beyond the Rust toolchain so far).
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n== %s\n' "$*"; }

step "rustfmt"
cargo fmt --all -- --check
step "clippy"
cargo clippy --workspace --all-targets -- -D warnings
step "tests"
cargo test --workspace
step "docs"
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps
step "fuzz targets build"
cargo check --manifest-path fuzz/Cargo.toml
step "all passed"
