#!/usr/bin/env bash
# workflows/snakemake/Snakefile with Debian's snakemake: the demo job (4 shards, CPU) through
# `snakemake --cores 2`, results equal to a local `screen run`; a second snakemake run has nothing
# to do. Exit 77 with "SKIPPED: reason" when snakemake is not installed.
# Usage: snakemake_test.sh SCREEN (from the source root).
set -uo pipefail
screen=$(realpath "${1:?usage: snakemake_test.sh SCREEN}")
src=$(pwd)
here=$(dirname "$(realpath "$0")")
skip() { echo "SKIPPED: $*"; exit 77; }
fail() { echo "FAILED: $*"; exit 1; }
command -v snakemake >/dev/null ||
  skip "snakemake is not installed (Debian package snakemake: scripts/setup --cluster installs it)"
source "$here/compare_results.sh"
source "$here/demo_job.sh"
tmp=$(mktemp -d /tmp/screen-snakemake-test.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

make_job "$tmp/local" 4
"$screen" -q run "$tmp/local/job.yaml" >/dev/null || fail "local screen run failed"
make_job "$tmp/smk" 4
run_snakemake() {
  snakemake -s "$src/workflows/snakemake/Snakefile" -d "$tmp/smk/work" --cores 2 \
    --config manifest="$tmp/smk/job.yaml" screen="$screen" threads=1 "$@"
}
log=$(run_snakemake 2>&1) || fail "snakemake failed: $log"
echo "$log" | tail -n 5
[[ $(grep -cE "^(local)?rule shard:" <<<"$log") == 4 && $(grep -cE "^(local)?rule merge:" <<<"$log") == 1 ]] ||
  fail "expected 4 shard jobs and 1 merge job: $log"
grep -q "6 of 6 steps (100%) done" <<<"$log" || fail "snakemake did not finish every step: $log"
[[ -f $tmp/smk/out/results.h5 ]] || fail "no results.h5"
compare_results "$tmp/local/out/results.h5" "$tmp/smk/out/results.h5" || fail "results differ from the local run"
"$screen" status "$tmp/smk/out" | grep -q "^states:   4 done, 0 running, 0 pending, 0 failed$" || fail "status"
again=$(run_snakemake 2>&1) || fail "second snakemake run failed: $again"
grep -q "Nothing to be done" <<<"$again" || fail "second run was not a no-op: $again"
echo "PASSED: snakemake ran 4 shards and the merge; results equal the local run's"
