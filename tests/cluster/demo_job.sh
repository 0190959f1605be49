# Sourced by the cluster test scripts (needs $src, $screen and a `fail` function).
# make_job DIR SHARDS: configs/demo.yaml as DIR/job.yaml with its output in DIR/out, SHARDS shards,
# on the CPU with one thread, and a cluster section without GPUs (for `screen submit`).
make_job() {
  local dir=$1 shards=$2 m=$1/job.yaml
  mkdir -p "$dir"
  sed -e "s|\.\./data/|$src/data/|" -e 's|^\(  output:\).*|\1 out|' -e 's|^\(  devices:\).*|\1 cpu|' \
    -e 's|^\(  cpu_threads:\).*|\1 1|' -e "s|^\(  shards:\).*|\1 $shards|" "$src/configs/demo.yaml" >"$m"
  printf 'cluster:\n  gpus_per_task: 0\n  time_limit: "00:10:00"\n  max_concurrent: 2\n' >>"$m"
  grep -q "^  output: out$" "$m" && grep -q "^  devices: cpu$" "$m" && grep -q "^  shards: $shards$" "$m" &&
    grep -q "fasta: $src/data/demo/" "$m" || fail "configs/demo.yaml no longer has the lines this test edits"
  [[ $("$screen" plan "$m" --count) == "$shards" ]] || fail "$m does not plan $shards shards"
}
