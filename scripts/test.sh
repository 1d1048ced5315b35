#!/usr/bin/env bash
# Convoy's whole test suite: formatting, lints, unit/integration/property tests, docs, fuzz targets.
# Installs what the tests need when it is missing (Debian packages): tshark decodes the simulator's pcap files;
# iperf3 and nftables serve the network-namespace tests, which build their own namespaces, bridge and veths
# (crates/cli/tests/common/lab.rs) and remove them; without root those tests print SKIPPED and pass; libpgm-dev,
# pkg-config and a C compiler build the OpenPGM receiver of the interoperability tests; slurm-wlm and munge
# give crates/cli/tests/slurm.rs a real one-node Slurm (started and stopped by the test). The large
# loopback transfers need about 8 GB free in the temporary directory for a minute or two. The Python package is
# built from crates/python into a fresh virtual environment (python3 with venv and pip; maturin, pandas and
# pytest come from PyPI).
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n== %s\n' "$*"; }

need_packages=()
command -v tshark >/dev/null || need_packages+=(tshark)
command -v iperf3 >/dev/null || need_packages+=(iperf3)
command -v nft >/dev/null || need_packages+=(nftables)
command -v pkg-config >/dev/null || need_packages+=(pkg-config)
command -v cc >/dev/null || need_packages+=(gcc)
pkg-config --exists openpgm-5.3 2>/dev/null || need_packages+=(libpgm-dev)
command -v sbatch >/dev/null || need_packages+=(slurm-wlm)
command -v munged >/dev/null || need_packages+=(munge)
command -v python3 >/dev/null || need_packages+=(python3)
python3 -m venv --help >/dev/null 2>&1 || need_packages+=(python3-venv python3-pip)
if [ ${#need_packages[@]} -gt 0 ] && command -v apt-get >/dev/null; then
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  step "installing ${need_packages[*]}"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${need_packages[@]}" >/dev/null
fi

step "rustfmt"
cargo fmt --all -- --check
step "clippy"
cargo clippy --workspace --all-targets -- -D warnings
step "tests"
cargo test --workspace
step "long network-namespace tests (release: 100 MB through 20 Mbit/s, TCP competition)"
cargo test --release -p convoy --test netns -- --ignored --test-threads 1 --nocapture
step "a fleet in namespaces (release: 30 MB to 20 receivers with 1% loss each, one behind 10 Mbit/s)"
cargo test --release -p convoy --test netns_fleet twenty_lossy_receivers_one_behind_10mbit_byte_exact -- --ignored \
  --exact --nocapture
step "shedding a slow receiver in namespaces (release: 100 MB to 10 receivers, one behind 1 Mbit/s, --min-rate)"
cargo test --release -p convoy --test netns_shed -- --ignored --test-threads 1 --nocapture
step "the limiting receiver named when the slow path moves (release, namespaces)"
cargo test --release -p convoy --test netns_limiting -- --ignored --nocapture
step "large loopback transfers (release: a 2 GB file to 3 receivers, a 1.5 GB stream to 2)"
cargo test --release -p convoy --test loopback_large -- --ignored --test-threads 1 --nocapture
step "the Python package (a fresh virtual environment: pip install ./crates/python, then pytest)"
rm -rf target/py-venv
python3 -m venv target/py-venv
target/py-venv/bin/pip install --quiet ./crates/python pytest
cargo build --release -p convoy
CONVOY_BIN="$PWD/target/release/convoy" target/py-venv/bin/python -m pytest -q crates/python/tests
step "docs"
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps
step "fuzz targets build"
cargo check --manifest-path fuzz/Cargo.toml
step "all passed"
