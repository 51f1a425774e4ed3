#!/usr/bin/env bash
# Refuses an #include that points up the layers (docs/architecture.md):
#   core <- io, engine <- index <- kernels, dist <- papara, search, mem, map <- cli
# A tool includes no other tool; kernels include nothing from a tool; dist (the MPI job) nothing
# but core and engine. Run by ctest (layering).
# usage: scripts/check-layers.sh [SRC_DIR]
set -euo pipefail
src=${1:-$(dirname "$0")/../src}
declare -A allowed=(
  [core]="core hyalign"
  [io]="core io"
  [engine]="core engine"
  [index]="core io index"
  [kernels]="core engine index kernels"
  [dist]="core engine dist"
  [papara]="core io engine kernels dist papara"
  [search]="core io engine kernels dist search"
  [mem]="core io engine index kernels dist mem"
  [map]="core io engine index kernels dist map hyalign"
  [cli]="core io engine index kernels dist papara search mem map cli hyalign"
)
bad=0
for layer in "${!allowed[@]}"; do
  [ -d "$src/$layer" ] || continue
  while IFS=: read -r file line text; do
    target=$(sed -E 's/.*#include "([^/"]+)\/.*/\1/' <<<"$text")
    if [[ " ${allowed[$layer]} " != *" $target "* ]]; then
      echo "${file#"$src"/}:$line: $layer may not include $target ($text)"
      bad=1
    fi
  done < <(grep -rn --include='*.hpp' --include='*.cpp' --include='*.cu' --include='*.cuh' -E '^#include "[^/"]+/' "$src/$layer" || true)
done
layers=$(find "$src" -mindepth 1 -maxdepth 1 -type d -printf '%f\n' | sort | tr '\n' ' ')
for dir in $layers; do
  [ -n "${allowed[$dir]+x}" ] || { echo "src/$dir: a folder that is no layer (add it to scripts/check-layers.sh)"; bad=1; }
done
[ $bad -eq 0 ] && echo "layers: every include points down (${layers% })"
exit $bad
