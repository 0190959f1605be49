#!/usr/bin/env python3
"""Checks that the kernels tuned for the H100 keep every value in registers on sm_90.

A kernel's launch bounds cap its registers; past the cap ptxas spills values to local memory, and a
spill inside a hot loop costs more than the occupancy the bound bought (the BPMax patch-up's
two-block forms spilled 24-52 bytes a thread until Session 20). This recompiles each CUDA source under
the given folders with the build's own flags (compile_commands.json) for sm_90 only, into a temporary
cubin, with ptxas's spill report, and fails naming every kernel that spills.

Register allocation depends on the compiler: the kernels were tuned with nvcc TUNED_RELEASE, and with
another release the check reports itself skipped (exit SKIP_CODE) rather than fail a build whose
results are still exact.
"""

import argparse
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import compile_db  # noqa: E402  (tests/tools)

TUNED_RELEASE = "13.0"
SKIP_CODE = 77
SPILL = re.compile(r"Registers are spilled to local memory in function '(?P<fn>[^']+)', "
                   r"(?P<stores>\d+) bytes spill stores, (?P<loads>\d+) bytes spill loads")
# The build's target-architecture and ptxas flags give way to sm_90 and the spill report.
DROP_PREFIXES = ("--generate-code", "-gencode", "-arch", "--gpu-architecture", "-code", "-Xptxas", "--ptxas-options")


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--compile-commands", required=True, help="the build's compile_commands.json")
    p.add_argument("--source-dir", required=True, help="the project's source root")
    p.add_argument("--nvcc", required=True, help="the CUDA compiler of the build")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="files compiled at once")
    p.add_argument("folders", nargs="+", help="folders under the source root whose .cu files are checked")
    return p.parse_args()


def release(nvcc):
    """nvcc's release ("13.0"), or None."""
    try:
        out = subprocess.run([nvcc, "--version"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True).stdout
    except OSError:
        return None
    m = re.search(r"release (\d+\.\d+)", out)
    return m.group(1) if m else None


def demangle(names):
    if not names or not shutil.which("c++filt"):
        return names
    out = subprocess.run(["c++filt"], input="\n".join(names), stdout=subprocess.PIPE, text=True).stdout.splitlines()
    return out if len(out) == len(names) else names


def spills_of(source, entry, tmp):
    """(compiler exit status, its output, [(kernel, stores, loads)]) for one source on sm_90."""
    argv = compile_db.without_flags(compile_db.entry_argv(entry), drop_prefixes=DROP_PREFIXES, drop_alone={"-c"})
    cubin = os.path.join(tmp, os.path.basename(source) + ".cubin")
    argv += ["-arch=sm_90", "-cubin", "-o", cubin, "-Xptxas=-warn-spills"]
    run = subprocess.run(argv, cwd=entry["directory"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    found = [(m["fn"], int(m["stores"]), int(m["loads"])) for m in SPILL.finditer(run.stdout)]
    return run.returncode, run.stdout, found


def main():
    args = parse_args()
    have = release(args.nvcc)
    if have != TUNED_RELEASE:
        print(f"kernels_do_not_spill: SKIPPED: the kernels' registers were tuned with nvcc {TUNED_RELEASE}; "
              f"this build's compiler ({args.nvcc}) is {have or 'unknown'}, whose allocation may differ")
        return SKIP_CODE
    source_dir = os.path.realpath(args.source_dir)
    try:
        entries = compile_db.entries_under(compile_db.load(args.compile_commands), source_dir, args.folders, (".cu",))
    except (OSError, ValueError) as e:
        print(f"kernels_do_not_spill: FAILED: cannot read {args.compile_commands} ({e})")
        return 1
    if not entries:
        print(f"kernels_do_not_spill: FAILED: no .cu source under {', '.join(args.folders)} in {args.compile_commands}")
        return 1
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="no-spills.") as tmp, \
            concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        results = list(pool.map(lambda e: spills_of(e[0], e[1], tmp), entries))
    failed = False
    for (src, _), (rc, out, found) in zip(entries, results):
        rel = os.path.relpath(src, source_dir)
        if rc != 0:
            failed = True
            print(f"=== {rel}: does not compile for sm_90:\n" + "\n".join(out.splitlines()[:40]))
        for (fn, stores, loads), name in zip(found, demangle([f[0] for f in found])):
            failed = True
            print(f"{rel}: {name}: {stores} bytes spill stores, {loads} bytes spill loads")
    seconds = time.monotonic() - start
    if failed:
        print(f"kernels_do_not_spill: FAILED ({seconds:.0f} s): a kernel above spills registers on sm_90; "
              "raise its launch bound's register budget (fewer blocks an SM) or cut what it holds")
        return 1
    print(f"kernels_do_not_spill: {len(entries)} sources under {', '.join(args.folders)}, no kernel spills on sm_90 "
          f"({seconds:.0f} s, {args.jobs} jobs)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
