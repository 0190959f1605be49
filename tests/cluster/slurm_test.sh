#!/usr/bin/env bash
# The demo job (configs/demo.yaml, its output redirected to a temporary folder, 4 shards, on the
# CPU) through a real one-node SLURM on this machine (slurm_env.sh): `screen submit`, wait, and
# results.h5's stage tables must equal a local `screen run` of the same manifest (one task is requeued
# while it runs, as on preemption, on the way). Then a second
# submission in a fresh folder: one array task is cancelled while it runs, the rest finish, the
# job is resubmitted, and the results must again be identical.
# Usage: slurm_test.sh SCREEN (run from the source root). Exit 77 with "SKIPPED: reason" when
# SLURM cannot run here; never passes without running.
set -uo pipefail
screen=$(realpath "${1:?usage: slurm_test.sh SCREEN}")
src=$(pwd)
here=$(dirname "$(realpath "$0")")
skip() { echo "SKIPPED: $*"; exit 77; }
fail() { echo "FAILED: $*"; exit 1; }
SLURM_TEST_DIR=$(mktemp -d /tmp/screen-slurm-test.XXXXXX)
export SLURM_TEST_DIR
# shellcheck source=tests/cluster/slurm_env.sh
source "$here/slurm_env.sh"
source "$here/compare_results.sh"
source "$here/demo_job.sh"
cleanup() {
  local rc=$?
  slurm_down
  if ((rc != 0 && rc != 77)); then
    echo "--- logs under $SLURM_TEST_DIR (kept)"
    tail -n 20 "$SLURM_TEST_DIR"/slurmctld.log "$SLURM_TEST_DIR"/slurmd.log "$SLURM_TEST_DIR"/job*/out/slurm/logs/* \
      2>/dev/null
  else
    rm -rf "$SLURM_TEST_DIR"
  fi
}
trap cleanup EXIT
trap 'exit 1' INT TERM

slurm_up
echo "slurm: one node ($(sinfo -h -o '%N %c CPUs %T')), SLURM_CONF=$SLURM_CONF"

# Submits DIR/job.yaml; sets array_job and merge_job.
submit() {
  local text
  text=$("$screen" submit "$1/job.yaml" 2>&1) || fail "screen submit failed: $text"
  echo "$text"
  array_job=$(sed -n 's/^array job: \([0-9]*\) .*/\1/p' <<<"$text")
  merge_job=$(sed -n 's/^merge job: \([0-9]*\) .*/\1/p' <<<"$text")
  [[ -n $array_job && -n $merge_job ]] || fail "no job ids in: $text"
}

# The first task of array job $1 seen running (0.1 s polls, at most 60 s), as "<array>_<task>".
first_running() {
  local t
  for _ in $(seq 600); do
    t=$(squeue -h -r -j "$1" -t RUNNING -o %i 2>/dev/null | head -n 1)
    [[ -n $t ]] && { echo "$t"; return 0; }
    sleep 0.1
  done
  return 1
}

# The reference: the same manifest run locally in one process.
ref=$SLURM_TEST_DIR/local
make_job "$ref" 4
"$screen" -q run "$ref/job.yaml" --threads 2 >/dev/null || fail "local screen run failed"

echo "== 1: the whole array"
job1=$SLURM_TEST_DIR/job1
make_job "$job1" 4
start=$SECONDS
submit "$job1"
grep -q -- "--array=0-3%2" "$job1/out/slurm/array.sbatch" || fail "array.sbatch: $(cat "$job1/out/slurm/array.sbatch")"
# a task requeued while it runs (as on preemption) runs its shard again and the job still completes
requeued=$(first_running "$array_job") || fail "no task of $array_job started within 60 s"
scontrol requeue "$requeued" || fail "scontrol requeue $requeued failed"
for _ in $(seq 100); do  # SLURM delays a requeued job by 2 minutes: once it is pending, start it now
  [[ $(squeue -h -j "$requeued" -o %T 2>/dev/null) == PENDING ]] && break
  sleep 0.1
done
scontrol update JobId="$requeued" StartTime=now || fail "scontrol update JobId=$requeued StartTime=now failed"
echo "requeued $requeued while running"
wait_gone "$array_job,$merge_job" 240 || fail "jobs still queued after 240 s: $(squeue)"
echo "array and merge done in $((SECONDS - start)) s"
[[ $(grep -c "^demo: 4 shards" "$job1/out/slurm/logs/$requeued.out") -ge 1 ]] ||
  fail "$requeued.out: $(cat "$job1/out/slurm/logs/$requeued.out" "$job1/out/slurm/logs/$requeued.err")"
scontrol show job "$requeued" | grep -q "Restarts=1" || fail "$requeued was not requeued: $(scontrol show job "$requeued")"
"$screen" status "$job1/out" || fail "screen status failed"
"$screen" status "$job1/out" | grep -q "^states:   4 done, 0 running, 0 pending, 0 failed$" || fail "status"
[[ -f $job1/out/results.h5 ]] || fail "no results.h5 after the merge job: $(cat "$job1"/out/slurm/logs/merge-*)"
ls "$job1"/out/slurm/logs/"${array_job}"_{0,1,2,3}.out >/dev/null || fail "array task logs missing"
compare_results "$ref/out/results.h5" "$job1/out/results.h5" || fail "results differ from the local run"
echo "results.h5 equals the local run's"

echo "== 2: one task cancelled while it runs, then resubmitted"
job2=$SLURM_TEST_DIR/job2
make_job "$job2" 4
submit "$job2"
victim=$(first_running "$array_job") || fail "no task of $array_job started within 60 s"
scancel "$victim" || fail "scancel $victim failed"
k=${victim#*_}
echo "cancelled $victim (shard $k) while running"
for _ in $(seq 480); do  # the rest of the array finishes; the merge job can never start
  [[ -z $(squeue -h -r -j "$array_job" 2>/dev/null) ]] && break
  sleep 0.5
done
[[ -z $(squeue -h -r -j "$array_job" 2>/dev/null) ]] || fail "array $array_job still queued: $(squeue)"
status=$("$screen" status "$job2/out")
echo "$status"
if grep -q "^$k	done" <<<"$status"; then
  fail "shard $k completed although its task was cancelled while running (the shard is too fast to cancel)"
fi
grep -q "^$k	failed	$victim	" <<<"$status" || fail "status does not show shard $k failed"
[[ ! -f $job2/out/results.h5 ]] || fail "results.h5 exists although shard $k was cancelled"
old_merge=$merge_job
submit "$job2"
wait_gone "$array_job,$merge_job" 240 || fail "resubmitted jobs still queued after 240 s: $(squeue)"
[[ -z $(squeue -h -j "$old_merge" 2>/dev/null) ]] || fail "the first merge job $old_merge is still queued"
"$screen" status "$job2/out" | grep -q "^states:   4 done, 0 running, 0 pending, 0 failed$" ||
  fail "status after the resubmission: $("$screen" status "$job2/out")"
compare_results "$ref/out/results.h5" "$job2/out/results.h5" || fail "resubmitted results differ from the local run"
echo "results.h5 after cancel + resubmit equals the local run's"
echo "PASSED"
