#!/usr/bin/env bash
# Configures and builds hyalign for 64-bit ARM (Grace Hopper and other aarch64 GPU nodes) with
# Debian's cross compiler, to show that every source compiles there: the SIMD kernels are x86-only
# and left out, the scalar kernels take their place. Only the libraries are built (every source of
# the engine, the tools and the CLI compiled to objects): linking would need arm64 builds of fmt and
# zlib, which a cross-build machine need not have. CUDA is off (no aarch64 CUDA toolkit here).
# Without optimisation (CMAKE_BUILD_TYPE None): the check is that the sources compile, and -O2 took
# half as long again on CI's two cores.
# usage: scripts/cross-aarch64.sh [BUILD_DIR]   (default build-aarch64)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-aarch64}
scripts/install-deps.sh g++-aarch64-linux-gnu
mkdir -p "$build"
cat >"$build/toolchain.cmake" <<'TOOLCHAIN'
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
# The header-only parts of fmt, CLI11, zlib, xxHash and libdivsufsort are the same on every architecture: take
# them from the host, after the cross compiler's own system headers (divsufsort.h: its index types
# are 32- and 64-bit integers on every architecture).
# -Wno-psabi: GCC's note that 10.1 changed how a pair of doubles is passed concerns linking with
# objects of older compilers, which nothing here does.
set(CMAKE_CXX_FLAGS_INIT "-idirafter /usr/include -Wno-psabi")
set(CMAKE_CXX_IMPLICIT_INCLUDE_DIRECTORIES /usr/include)
TOOLCHAIN
host_lib=/usr/lib/$(gcc -print-multiarch)
# divsufsort.h alone from the host's multiarch folder (the rest of that folder is x86 glibc).
mkdir -p "$build/divsufsort-include"
ln -sf "/usr/include/$(gcc -print-multiarch)"/divsufsort*.h "$build/divsufsort-include/"
cmake -S . -B "$build" -DCMAKE_TOOLCHAIN_FILE="$build/toolchain.cmake" -DHYALIGN_CUDA=OFF -DBUILD_TESTING=OFF -DCMAKE_BUILD_TYPE=None \
  -Dfmt_DIR="$host_lib/cmake/fmt" -DCLI11_DIR=/usr/share/cmake/CLI11 \
  -DZLIB_INCLUDE_DIR=/usr/include -DZLIB_LIBRARY="$host_lib/libz.so" -DDIVSUFSORT_INCLUDE_DIR="$build/divsufsort-include" \
  -DDIVSUFSORT_LIBRARY="$host_lib/libdivsufsort.so" -DDIVSUFSORT64_LIBRARY="$host_lib/libdivsufsort64.so" >/dev/null
cmake --build "$build" -j"$(nproc)" --target hyalign_core hyalign_io hyalign_engine hyalign_index hyalign_kernels \
  hyalign_dist hyalign_papara hyalign_search hyalign_mem hyalign_map hyalign_cli
echo "aarch64: every source compiled: $(find "$build" -name '*.o' | wc -l) objects, $(file -b "$(find "$build" -name '*.o' | head -n 1)" | cut -d, -f1-2)"
