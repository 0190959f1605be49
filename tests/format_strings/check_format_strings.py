#!/usr/bin/env python3
"""Checks every fmt/spdlog format string in the host sources against its arguments at compile time.

The project is C++17, where fmt 9 checks a literal format string only at run time: a missing argument
is an "argument not found" exception where the call runs. In C++20, fmt::format_string's constructor
is consteval, so the same call does not compile. This compiles each host .cpp under the given folders
with its real flags from compile_commands.json (the configured build: its include directories,
definitions and warnings; sources of a disabled CUDA path are not there) plus -std=c++20
-fsyntax-only, and fails with each mismatch's file:line. A canary with a known mismatch is compiled
first, so that a toolchain that stopped checking fails the test instead of passing it silently.
"""

import argparse
import concurrent.futures
import os
import re
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import compile_db  # noqa: E402  (tests/tools)

SOURCE_SUFFIXES = (".cpp", ".cc", ".cxx")
CANARY = '#include <fmt/format.h>\nstd::string canary() { return fmt::format("{} {}", 1); }\n'
# gcc's trace of a failed check: the call site's "in 'constexpr' expansion of
# 'fmt::v9::basic_format_string<char, ARGS>("FORMAT")'" line, then fmt's message in a later line.
CALL_SITE = re.compile(r"^(?P<where>.+?:\d+:\d+):\s+in .constexpr. expansion of "
                       r".(?:fmt::v\d+::)?basic_format_string<char(?:, (?P<args>.*))?>\((?P<fmt>\".*\")\).?\s*$")
FMT_MESSAGE = re.compile(r"on_error\((?:\(\(const char\*\))?(\"[^\"]*\")")


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--compile-commands", required=True, help="the build's compile_commands.json")
    p.add_argument("--source-dir", required=True, help="the project's source root")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="files compiled at once")
    p.add_argument("folders", nargs="+", help="folders under the source root to check (apps lib)")
    return p.parse_args()


def syntax_only_argv(argv, directory, source, replacement=None):
    """argv as C++20 with -fsyntax-only, writing nothing; source replaced by `replacement` if given.
    -Wno-error: a warning that only C++20 gives (the build is C++17) is not this check's concern."""
    out = []
    for arg in compile_db.without_flags(argv, drop_prefixes=("-std=",)):
        if replacement and os.path.realpath(os.path.join(directory, arg)) == source:
            out.append(replacement)
        else:
            out.append(arg)
    return out + ["-std=c++20", "-fsyntax-only", "-Wno-error"]


def compile_one(source, entry, replacement=None):
    # LC_ALL=C: plain quotes in gcc's messages, which summarize() reads.
    env = dict(os.environ, LC_ALL="C")
    argv = syntax_only_argv(compile_db.entry_argv(entry), entry["directory"], source, replacement)
    run = subprocess.run(argv, cwd=entry["directory"], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         text=True)
    return run.returncode, run.stdout


def summarize(output, source_dir):
    """One line per format string that failed its check: where, the format, its arguments, fmt's message."""
    lines, found = output.splitlines(), []
    for i, line in enumerate(lines):
        site = CALL_SITE.match(line)
        if not site:
            continue
        message = "see the compiler's output"
        for later in lines[i + 1:]:
            if CALL_SITE.match(later):
                break
            m = FMT_MESSAGE.search(later)
            if m:
                message = m.group(1)
                break
        where = os.path.relpath(site["where"], source_dir) if os.path.isabs(site["where"]) else site["where"]
        types = argument_types(site["args"] or "")
        fmt = site["fmt"].replace("\\'", "'")
        found.append(f"{where}: format {fmt} with {len(types)} argument(s) ({', '.join(types)}): {message}")
    return found


def argument_types(args):
    """gcc's template argument list split at its top-level commas, std::string spelled short."""
    args = args.replace("std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >",
                        "std::string")
    types, depth, start = [], 0, 0
    for i, c in enumerate(args):
        if c in "<([":
            depth += 1
        elif c in ">)]":
            depth -= 1
        elif c == "," and depth == 0:
            types.append(args[start:i].strip())
            start = i + 1
    return types + [args[start:].strip()] if args.strip() else types


def check_canary(entry, source):
    """Compiles a known mismatch with a real file's flags: it must fail, or nothing is being checked."""
    with tempfile.TemporaryDirectory(prefix="format-canary.") as tmp:
        canary = os.path.join(tmp, "canary.cpp")
        with open(canary, "w") as f:
            f.write(CANARY)
        rc, output = compile_one(source, entry, replacement=canary)
    if rc == 0:
        print("format_strings_checked: FAILED: a mismatched format string compiled as C++20, so this "
              "toolchain does not check format strings at compile time (fmt >= 8 and a consteval-capable "
              "compiler are needed); nothing would be caught")
        return False
    if "argument not found" not in output:
        print("format_strings_checked: FAILED: the canary did not fail on its format string:\n" + output)
        return False
    return True


def main():
    args = parse_args()
    source_dir = os.path.realpath(args.source_dir)
    try:
        compile_commands = compile_db.load(args.compile_commands)
    except (OSError, ValueError) as e:
        print(f"format_strings_checked: FAILED: cannot read {args.compile_commands} ({e}); "
              "CMake writes it with CMAKE_EXPORT_COMPILE_COMMANDS for the Makefile and Ninja generators")
        return 1
    entries = compile_db.entries_under(compile_commands, source_dir, args.folders, SOURCE_SUFFIXES)
    if not entries:
        print(f"format_strings_checked: FAILED: no C++ source under {', '.join(args.folders)} in "
              f"{args.compile_commands}")
        return 1
    start = time.monotonic()
    if not check_canary(entries[0][1], entries[0][0]):
        return 1
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        results = list(pool.map(lambda e: compile_one(*e), entries))
    failed = [(src, out) for (src, _), (rc, out) in zip(entries, results) if rc != 0]
    seconds = time.monotonic() - start
    for src, out in failed:
        rel = os.path.relpath(src, source_dir)
        mismatches = summarize(out, source_dir)
        print(f"\n=== {rel}: " + ("format string mismatch" if mismatches else "does not compile as C++20"))
        for m in mismatches:
            print("  " + m)
        print("--- compiler output (first 60 lines):")
        print("\n".join(out.splitlines()[:60]))
    if failed:
        print(f"\nformat_strings_checked: FAILED: {len(failed)} of {len(entries)} files ({seconds:.0f} s). "
              "A format string needs one argument per {} field (fmt ignores extra arguments); "
              "a format chosen at run time goes through fmt::runtime().")
        return 1
    print(f"format_strings_checked: {len(entries)} files under {', '.join(args.folders)} compile as C++20 "
          f"with every format string matching its arguments ({seconds:.0f} s, {args.jobs} jobs)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
