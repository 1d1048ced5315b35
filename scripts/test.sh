#!/usr/bin/env bash
# Convoy's whole test suite: formatting, lints, unit/integration/property tests, docs, fuzz targets.
# Installs what the tests need when it is missing: iperf3 and nftables for the network-namespace tests (as root).
# Those tests build their own namespaces, bridge and veths (crates/cli/tests/common/lab.rs) and remove them;
# without root they print SKIPPED and pass.
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n== %s\n' "$*"; }

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null \
    && ! { command -v iperf3 >/dev/null && command -v nft >/dev/null; }; then
  step "installing iperf3 and nftables for the network-namespace tests"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq iperf3 nftables >/dev/null
fi

step "rustfmt"
cargo fmt --all -- --check
step "clippy"
cargo clippy --workspace --all-targets -- -D warnings
step "tests"
cargo test --workspace
step "long network-namespace tests (release: 100 MB through 20 Mbit/s, TCP competition)"
cargo test --release -p convoy --test netns -- --ignored --test-threads 1 --nocapture
step "docs"
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps
step "fuzz targets build"
cargo check --manifest-path fuzz/Cargo.toml
step "all passed"
