#!/usr/bin/env bash
# Installs the Debian 12 packages hyalign needs to build and test, and any named as arguments (a
# checking build's extras). Idempotent; quiet when all is present.
# usage: scripts/install-deps.sh [PACKAGE...]
set -euo pipefail
packages=(build-essential cmake pkg-config zlib1g-dev libcli11-dev libfmt-dev
          libgtest-dev libgmock-dev libbenchmark-dev libparasail-dev libxxhash-dev libdivsufsort-dev libhts-dev libisal-dev
          libopenmpi-dev openmpi-bin
          ninja-build mummer kleborate-examples dwgsim xz-utils samtools bwa minimap2 time
          clang libclang-rt-dev "$@")
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
  echo "install-deps: missing packages: ${missing[*]} (run this script as root)" >&2
  exit 1
fi
echo "install-deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
