#!/usr/bin/env bash
# The .deb of `screen`: built with cpack from the build folder, unpacked (dpkg-deb -x) into a
# temporary root, its executable runs the packaged demo manifest there and exports every stage.
# Checks the package's control fields, its files, and the results. Exit 77 with "SKIPPED: reason"
# when cpack or dpkg-deb is missing.
set -euo pipefail
build=${1:?usage: package_test.sh BUILD_DIR}
skip() { echo "SKIPPED: $*"; exit 77; }
fail() { echo "FAILED: $*"; exit 1; }
command -v cpack >/dev/null || skip "cpack is not installed"
command -v dpkg-deb >/dev/null || skip "dpkg-deb is not installed (Debian package dpkg)"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/screen-package.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

(cd "$build" && cpack -G DEB -B "$tmp/out" >"$tmp/cpack.log" 2>&1) || fail "cpack: $(tail -n 20 "$tmp/cpack.log")"
deb=$(ls "$tmp"/out/screen_*.deb 2>/dev/null | head -n 1)
[[ -n $deb ]] || fail "no screen_*.deb in $tmp/out: $(ls "$tmp/out")"
echo "package: $(basename "$deb") ($(du -h "$deb" | cut -f1))"
dpkg-deb --field "$deb" Package | grep -qx screen || fail "Package field: $(dpkg-deb --field "$deb" Package)"
depends=$(dpkg-deb --field "$deb" Depends)
echo "depends: $depends"
for lib in libhdf5 libyaml-cpp libssl; do
  grep -q "$lib" <<<"$depends" || fail "Depends lacks $lib: $depends"
done

root=$tmp/root
dpkg-deb -x "$deb" "$root"
for f in usr/bin/screen usr/share/screen/configs/demo.yaml usr/share/screen/data/demo/mirnas.fa \
         usr/share/doc/screen/README.md usr/share/doc/screen/results.md; do
  [[ -e $root/$f ]] || fail "the package lacks $f"
done
screen=$root/usr/bin/screen
"$screen" --version | grep -q "^screen " || fail "screen --version: $("$screen" --version 2>&1)"
# The demo as packaged: its relative paths resolve inside share/screen; the results go beside it.
"$screen" run -q --threads 2 "$root/usr/share/screen/configs/demo.yaml" >"$tmp/run.log" 2>&1 ||
  fail "screen run: $(tail -n 20 "$tmp/run.log")"
out=$root/usr/share/screen/results/demo
[[ -f $out/results.h5 ]] || fail "no results.h5 in $out"
for stage in nussinov miranda bpmax; do
  "$screen" export "$out" --stage "$stage" --out "$tmp/$stage.tsv" || fail "export --stage $stage"
  [[ $(wc -l <"$tmp/$stage.tsv") -gt 1 ]] || fail "export --stage $stage has no rows"
done
# The same demo with the build's executable gives the same rows.
mkdir -p "$tmp/src/configs" "$tmp/src/data"
cp configs/demo.yaml "$tmp/src/configs/" && cp -r data/demo "$tmp/src/data/"
"$build/apps/screen/screen" run -q --threads 2 "$tmp/src/configs/demo.yaml" >"$tmp/run-build.log" 2>&1 ||
  fail "the build's screen run: $(tail -n 20 "$tmp/run-build.log")"
for stage in nussinov miranda bpmax; do
  "$build/apps/screen/screen" export "$tmp/src/results/demo" --stage "$stage" --out "$tmp/build-$stage.tsv"
  cmp "$tmp/$stage.tsv" "$tmp/build-$stage.tsv" || fail "$stage: the packaged screen's rows differ from the build's"
done
echo "the packaged screen ran the demo: $(wc -l <"$tmp/bpmax.tsv") lines of BPMax results, the build's rows"
