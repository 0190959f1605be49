#!/usr/bin/env bash
# workflows/slurm/array.sbatch and merge.sbatch must be what `screen submit --dry-run` renders for
# workflows/slurm/example.yaml today (workflows/slurm/render-examples.sh): the examples in the
# documentation cannot drift from the code. Usage: examples_test.sh SCREEN (from the source root).
set -uo pipefail
screen=$(realpath "${1:?usage: examples_test.sh SCREEN}")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
workflows/slurm/render-examples.sh "$screen" "$tmp" || { echo "FAILED: render-examples.sh failed"; exit 1; }
status=0
for f in array.sbatch merge.sbatch; do
  if ! diff -u "workflows/slurm/$f" "$tmp/$f"; then
    echo "FAILED: workflows/slurm/$f is out of date; run workflows/slurm/render-examples.sh $screen"
    status=1
  fi
done
grep -q -- "--array=0-7%4" workflows/slurm/array.sbatch || { echo "FAILED: no --array=0-7%4"; status=1; }
((status == 0)) && echo "PASSED: workflows/slurm examples are up to date"
exit $status
