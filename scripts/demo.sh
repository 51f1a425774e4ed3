#!/usr/bin/env bash
# Installs what is missing, builds hyalign, and aligns the bundled 16S reads to the bundled
# Greengenes reference alignment and tree. The result is written to out/papara_demo.phy.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake -S . -B build >/dev/null
cmake --build build -j"$(nproc)" --target hyalign
mkdir -p out
data=tests/data/papara/q2_16S
build/hyalign papara -j 0 -t "$data/ref.nwk" -s "$data/ref.phy" -q "$data/query.fasta" -o out/papara_demo.phy
echo "demo: alignment of $(grep -c '>' "$data/query.fasta") reads written to $(pwd)/out/papara_demo.phy"
