#!/usr/bin/env bash
# Renders array.sbatch and merge.sbatch of workflows/slurm/example.yaml with `screen submit
# --dry-run`, as if this checkout were /path/to/screen and screen were
# /path/to/screen/build/apps/screen/screen, into DEST (default: workflows/slurm, beside this file).
# Usage: workflows/slurm/render-examples.sh SCREEN [DEST]
set -euo pipefail
screen=$(realpath "${1:?usage: render-examples.sh SCREEN [DEST]}")
here=$(dirname "$(realpath "$0")")
src=$(realpath "$here/../..")
dest=${2:-$here}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
root=$tmp/screen  # stands for /path/to/screen
mkdir -p "$root/workflows/slurm"
ln -s "$src/data" "$root/data"
cp "$here/example.yaml" "$root/workflows/slurm/"
"$screen" -q submit "$root/workflows/slurm/example.yaml" --dry-run >/dev/null
mkdir -p "$dest"
for f in array.sbatch merge.sbatch; do
  sed -e "s|$screen|/path/to/screen/build/apps/screen/screen|g" -e "s|$root|/path/to/screen|g" \
    "$root/results/demo-cluster/slurm/$f" >"$dest/$f"
done
