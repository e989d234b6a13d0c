# SPDX-License-Identifier: GPL-2.0-only
# A patchsite script (tests/patchsite/script.sh): report's calls, total and self per function,
# recomputed from the entry and exit callbacks alone, printed as JSON at the end.  As report
# counts them: a call's self is its duration less its completed callees'; a recursive call's
# duration adds to its function's total only at the outermost call.
import json

rows = {}      # name -> [calls, total, self]
stacks = {}    # tid -> [[name, time in callees]]


def entry(ctx):
    stacks.setdefault(ctx["tid"], []).append([ctx["name"], 0])
    if ctx.get("untimed"):  # the function tracer's: counted, never timed
        stacks[ctx["tid"]].pop()
        rows.setdefault(ctx["name"], [0, 0, 0])[0] += 1


def exit(ctx):
    stack = stacks[ctx["tid"]]
    assert len(stack) == ctx["depth"] + 1, "depth %d, %d open" % (ctx["depth"], len(stack))
    name, callees = stack.pop()
    assert name == ctx["name"]
    d = ctx["duration"]
    row = rows.setdefault(name, [0, 0, 0])
    row[0] += 1
    row[1] += 0 if any(f[0] == name for f in stack) else d
    row[2] += max(d - callees, 0)
    if stack:
        stack[-1][1] += d


def end():
    print(json.dumps({k: v for k, v in sorted(rows.items())}))
