#!/usr/bin/env bash
# Convoy's whole test suite: formatting, lints, unit/integration/property tests, docs, fuzz targets.
# Installs what the tests need when it is missing (Debian packages), then runs everything.
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n== %s\n' "$*"; }

# Debian packages the tests use: tshark decodes the simulator's pcap files.
need_packages=()
command -v tshark >/dev/null || need_packages+=(tshark)
if [ ${#need_packages[@]} -gt 0 ]; then
  step "installing ${need_packages[*]}"
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${need_packages[@]}"
fi

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
