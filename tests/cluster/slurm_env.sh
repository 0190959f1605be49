# Sourced by slurm_test.sh: a one-node SLURM (munged, slurmctld, slurmd) on this machine, private
# to the test: its own munge key and socket, its own slurm.conf (SLURM_CONF), ports, state and
# spool folders under $SLURM_TEST_DIR. slurm_up starts it (or calls skip with the reason it cannot);
# slurm_down cancels what is left in its queue and stops the daemons by their pids.
slurm_pids=()

slurm_up() {
  local d=$SLURM_TEST_DIR host
  host=$(hostname -s)
  local b
  for b in munged slurmctld slurmd sbatch squeue scancel sinfo; do
    command -v "$b" >/dev/null ||
      skip "$b is not installed (Debian packages slurm-wlm and munge: scripts/setup --cluster installs them)"
  done
  [[ $(id -u) -eq 0 ]] || skip "starting munged as the munge user and slurmd needs root (this is uid $(id -u))"
  id munge >/dev/null 2>&1 || skip "no munge user (is the munge package configured?)"

  mkdir -p "$d/munge" "$d/state" "$d/spool"
  chmod 755 "$d"
  chown munge: "$d/munge"
  chmod 700 "$d/munge"
  dd if=/dev/urandom of="$d/munge/munge.key" bs=1024 count=1 status=none
  chown munge: "$d/munge/munge.key"
  chmod 400 "$d/munge/munge.key"
  runuser -u munge -- munged --force --key-file="$d/munge/munge.key" --socket="$d/munge/munge.socket" \
    --pid-file="$d/munge/munged.pid" --log-file="$d/munge/munged.log" --seed-file="$d/munge/munged.seed" \
    >"$d/munged.out" 2>&1 || skip "munged does not start: $(tail -n 3 "$d/munged.out" "$d/munge/munged.log" 2>/dev/null)"
  local i
  for i in $(seq 50); do [[ -s $d/munge/munged.pid ]] && break; sleep 0.1; done
  [[ -s $d/munge/munged.pid ]] || skip "munged wrote no pid file: $(tail -n 3 "$d/munge/munged.log" 2>/dev/null)"
  slurm_pids+=("$(cat "$d/munge/munged.pid")")
  chmod 755 "$d/munge"  # the socket must be reachable by slurmctld, slurmd and the clients

  local port=$((17000 + RANDOM % 2000))
  cat >"$d/slurm.conf" <<CONF
ClusterName=screentest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$d/munge/munge.socket
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$d/state
SlurmdSpoolDir=$d/spool
SlurmctldPidFile=$d/slurmctld.pid
SlurmdPidFile=$d/slurmd.pid
SlurmctldLogFile=$d/slurmctld.log
SlurmdLogFile=$d/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
MpiDefault=none
SwitchType=switch/none
ReturnToService=2
SchedulerParameters=sched_interval=2
NodeName=$host NodeAddr=127.0.0.1 CPUs=2 State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
  export SLURM_CONF=$d/slurm.conf
  slurmctld -D -c -f "$SLURM_CONF" >"$d/slurmctld.out" 2>&1 &
  slurm_pids+=($!)
  slurmd -D -N "$host" -f "$SLURM_CONF" >"$d/slurmd.out" 2>&1 &
  slurm_pids+=($!)
  slurm_watchdog
  for i in $(seq 60); do
    [[ $(sinfo -h -o %T 2>/dev/null) == idle ]] && return 0
    sleep 0.5
  done
  skip "the one-node SLURM did not come up within 30 s: sinfo says '$(sinfo -h -o %T 2>&1)'; slurmctld.log: \
$(tail -n 3 "$d/slurmctld.log" 2>/dev/null) slurmd.log: $(tail -n 3 "$d/slurmd.log" 2>/dev/null)"
}

# Should the test script die without running its EXIT trap (SIGKILL, e.g. a ctest time-out), a
# background watcher cancels the jobs and stops the daemons once the script's process is gone.
slurm_watchdog() {
  local owner=$$ pids="${slurm_pids[*]}"
  (
    trap '' INT TERM HUP
    while kill -0 "$owner" 2>/dev/null; do sleep 1; done
    scancel --me >/dev/null 2>&1
    sleep 2
    for p in $pids; do  # only if it is still one of ours (its command line names our folder)
      tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | grep -qF "$SLURM_TEST_DIR" && kill "$p" 2>/dev/null
    done
  ) </dev/null >/dev/null 2>&1 &
  disown
}

slurm_down() {
  if [[ -n ${SLURM_CONF:-} ]] && ((${#slurm_pids[@]} > 1)); then
    scancel --me >/dev/null 2>&1 || true
    local i
    for i in $(seq 40); do [[ -z $(squeue -h 2>/dev/null) ]] && break; sleep 0.5; done
  fi
  local p
  for p in "${slurm_pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${slurm_pids[@]}"; do
    for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$p" 2>/dev/null || true
  done
  slurm_pids=()
}

# Waits until none of the given jobs is in the queue (at most $2 seconds); 1 on time-out.
wait_gone() {
  local jobs=$1 limit=$2 t=0
  while [[ -n $(squeue -h -j "$jobs" 2>/dev/null) ]]; do
    ((t++ >= limit * 2)) && return 1
    sleep 0.5
  done
}
