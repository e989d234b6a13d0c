#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""An independent computation of report --percentiles and --hist.

usage: check_dist.py REPLAY REPORT_JSON HIST FUNC PCTS

REPLAY is `patchsite replay` (function_graph, ftrace's text): every call's
time is read from its DURATION column (microseconds with 3 decimals, so
exact in ns), matched to its function by the braces.  From those times
alone this computes, with Python's sort and exact fractions:
- the nearest-rank percentiles (the smallest time with at least p% of the
  calls at or below it) of each function; REPORT_JSON's p<P>_ns (report
  --json --percentiles=PCTS, from a histogram, not a sort) must lie in the
  same bucket as the exact one (so within 12.5% of it), and within the
  function's exact min and max;
- FUNC's histogram with the bucket rule of the issue (below 8 ns one
  bucket per ns, above each power of two cut in 8: at most 12.5% wide),
  compared line by line with HIST (report --hist=FUNC).
Prints one summary line; exit 1 on the first difference.
"""
import json
import re
import sys
from fractions import Fraction

LINE = re.compile(r"^\s*\d+\)\s+(\S+)\s+\|\s*[-+!#*@$]?\s*(?:([0-9]+\.[0-9]{3}) us)?\s*\|(\s*)(.*)$")


def call_times(path):
    times, stacks = {}, {}  # stacks: per task (threads are merged by time)
    for line in open(path):
        if line.startswith("#"):
            continue
        m = LINE.search(line)
        if not m:
            continue
        stack = stacks.setdefault(m.group(1), [])
        dur, text = m.group(2), m.group(4).strip()
        if text.endswith("() {"):
            stack.append(text[:-4])
        elif text.endswith("();"):
            times.setdefault(text[:-3], []).append(round(float(dur) * 1000))
        elif text.startswith("}") and dur is not None:
            times.setdefault(stack.pop(), []).append(round(float(dur) * 1000))
    return times


def nearest_rank(sorted_v, p):
    n = len(sorted_v)
    r = -(-Fraction(p) * n // 100)  # ceil
    return sorted_v[max(1, min(n, int(r))) - 1]


def bucket(v):
    if v < 8:
        return v, v
    k = v.bit_length() - 1
    w = 1 << (k - 3)
    lo = (v >> (k - 3)) << (k - 3)
    assert w * 8 <= lo  # at most 12.5% of the bucket's values
    return lo, lo + w - 1


def ns_text(ns):
    if ns >= 10000000000:
        return "%.3f s" % (ns / 1e9)
    if ns >= 10000000:
        return "%.3f ms" % (ns / 1e6)
    if ns >= 10000:
        return "%.3f us" % (ns / 1e3)
    return "%d ns" % ns


def die(msg):
    print("check_dist: " + msg)
    sys.exit(1)


def main():
    replay, rep, hist, func, pcts = sys.argv[1:6]
    pcts = pcts.split(",")
    times = call_times(replay)
    rows = json.load(open(rep))
    checked, worst = 0, 0.0
    for r in rows:
        v = sorted(times.get(r["name"], []))
        if len(v) != r["calls"]:
            die("%s: %d calls in replay, %d in report" % (r["name"], len(v), r["calls"]))
        for p in pcts:
            want = nearest_rank(v, p)
            got = r["p%s_ns" % p]
            if not isinstance(got, int) or bucket(got) != bucket(want) or not v[0] <= got <= v[-1]:
                die("%s: p%s %s, exact %d (bucket %s)" % (r["name"], p, got, want, bucket(want)))
            worst = max(worst, abs(got - want) / want if want else 0)
            checked += 1
    v = sorted(times[func])
    counts = {}
    for x in v:
        b = bucket(x)
        counts[b] = counts.get(b, 0) + 1
    want, cum = [], 0
    for b in sorted(counts):
        cum += counts[b]
        want.append("%s %s %d %.2f" % (ns_text(b[0]), ns_text(b[1]), counts[b],
                                        100.0 * cum / len(v)))
    got = [" ".join(re.sub(r"\s+\|.*", "", l).split()) for l in open(hist)
           if not l.startswith("#")]
    if got != want:
        for g, w in zip(got, want):
            if g != w:
                die("%s: histogram line '%s', computed '%s'" % (func, g, w))
        die("%s: %d histogram lines, computed %d" % (func, len(got), len(want)))
    head = open(hist).read().splitlines()[1]
    if not head.startswith("# min %s " % ns_text(v[0])) or not head.endswith(" max " + ns_text(v[-1])):
        die("%s: hist header '%s', exact min %d max %d" % (func, head, v[0], v[-1]))
    for p in ["50", "90", "99", "99.9"]:
        lo, hi = bucket(nearest_rank(v, p))
        m = re.search(r" p%s ([0-9.]+) (ns|us|ms|s)(?: |$)" % re.escape(p), head)
        if not m:
            die("%s: hist header '%s' lacks p%s" % (func, head, p))
        # the text's value, to its printed resolution, must meet the exact one's bucket
        scale = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}[m.group(2)]
        res = scale * (1e-3 if m.group(2) != "ns" else 1)
        val = float(m.group(1)) * scale
        if val + res / 2 < lo or val - res / 2 > hi:
            die("%s: hist header '%s': p%s not in [%d, %d]" % (func, head, p, lo, hi))
    print("%d functions x %d percentiles in the bucket of an exact sort of replay's %d call "
          "times (largest difference %.1f%%); %s: %d buckets equal"
          % (len(rows), len(pcts), sum(len(t) for t in times.values()), 100 * worst,
             func, len(want)))


if __name__ == "__main__":
    main()
