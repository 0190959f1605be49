# Sourced by the cluster test scripts. compare_results A B: the stage tables of two results.h5
# files are equal (h5diff of every stage group present, plus /queries, /targets and /skipped; run
# bookkeeping such as the command line and hosts may differ), and each stage's TSV export is
# byte-identical. Needs $screen.
compare_results() {
  local a=$1 b=$2 group ok=0 n=0
  for group in /queries /targets /skipped /nussinov /miranda /bpmax; do
    h5ls "$a$group" >/dev/null 2>&1 || continue
    h5ls "$b$group" >/dev/null 2>&1 || { echo "$b has no $group"; return 1; }
    if ! h5diff -q "$a" "$b" "$group" "$group"; then
      echo "$group differs:"
      h5diff -r "$a" "$b" "$group" "$group" | head -n 20
      ok=1
    fi
    n=$((n + 1))
  done
  ((n >= 4)) || { echo "only $n groups compared in $a"; return 1; }
  for stage in nussinov miranda bpmax; do
    h5ls "$a/$stage" >/dev/null 2>&1 || continue
    if ! cmp -s <("$screen" export "$(dirname "$a")" --stage "$stage") <("$screen" export "$(dirname "$b")" --stage "$stage"); then
      echo "the $stage exports differ"
      ok=1
    fi
  done
  return $ok
}
