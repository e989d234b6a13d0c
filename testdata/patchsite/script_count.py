# SPDX-License-Identifier: GPL-2.0-only
# A uftrace script (uftrace's callback names only), run unchanged by `uftrace script -S` and by
# `patchsite script` (tests/patchsite/script.sh): per function, its entries, its exits, the
# deepest depth it was called at, and the argument/return value pairs of the calls that
# recorded them, one line each, sorted.
import collections

entries = collections.Counter()
exits = collections.Counter()
depth = {}
args = {}
pairs = collections.Counter()


def uftrace_begin(ctx):
    assert ctx["record"] is False


def uftrace_entry(ctx):
    entries[ctx["name"]] += 1
    depth[ctx["name"]] = max(depth.get(ctx["name"], 0), ctx["depth"])
    if "args" in ctx:
        args[ctx["tid"], ctx["depth"]] = ctx["args"]


def uftrace_exit(ctx):
    exits[ctx["name"]] += 1
    a = args.pop((ctx["tid"], ctx["depth"]), None)
    if "retval" in ctx or a is not None:
        pairs[ctx["name"], tuple(int(x) for x in a or ()), ctx.get("retval")] += 1


def uftrace_end():
    for name in sorted(entries):
        print(name, "entries", entries[name], "exits", exits[name], "max-depth", depth[name])
    for (name, a, r), n in sorted(pairs.items(), key=str):
        print(name, "args", list(a), "retval", r, "x", n)
