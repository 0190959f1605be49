"""Reading the build's compile_commands.json, for the checks that recompile sources with extra flags
(tests/format_strings, tests/kernels): the entries under some folders, each source once, and a
command's argv without the flags that write into the build tree."""

import json
import os
import shlex

# Flags that name an output or dependency file (dropped with their value), and ones that only ask
# for dependency files.
OUTPUT_FLAGS_WITH_VALUE = {"-o", "-MF", "-MT", "-MQ"}
OUTPUT_FLAGS_ALONE = {"-MD", "-MMD"}


def load(path):
    """The entries of compile_commands.json; OSError or ValueError when it cannot be read."""
    with open(path) as f:
        return json.load(f)


def entry_argv(entry):
    """The compiler's argv for one entry ("arguments", or the shell-quoted "command")."""
    return list(entry["arguments"]) if "arguments" in entry else shlex.split(entry["command"])


def entry_path(entry):
    return os.path.realpath(os.path.join(entry["directory"], entry["file"]))


def entries_under(compile_commands, source_dir, folders, suffixes):
    """(source path, entry) for each source ending in one of `suffixes` under the folders (relative to
    source_dir), once each, in path order."""
    roots = [os.path.join(source_dir, f) + os.sep for f in folders]
    chosen = {}
    for entry in compile_commands:
        path = entry_path(entry)
        if path.endswith(tuple(suffixes)) and any(path.startswith(r) for r in roots):
            chosen.setdefault(path, entry)
    return sorted(chosen.items())


def without_flags(argv, drop_prefixes=(), drop_alone=()):
    """argv without its output and dependency-file flags, the flags starting with one of drop_prefixes
    and the flags in drop_alone (so that a recompile writes nothing into the build tree)."""
    out, skip = [], False
    for arg in argv:
        if skip:
            skip = False
        elif arg in OUTPUT_FLAGS_WITH_VALUE:
            skip = True
        elif arg in OUTPUT_FLAGS_ALONE or arg in drop_alone or arg.startswith(tuple(drop_prefixes)):
            pass
        else:
            out.append(arg)
    return out
