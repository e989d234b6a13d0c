#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""An independent reader of function_profile's counts.

usage: check_profile.py decode PROFILE
       check_profile.py stat STAT_TEXT PROFILE
       check_profile.py hist HIST_TEXT PROFILE FUNC

decode: parses the process directory's `profile` file from the format
written out in patchsite-data(5) alone (not our reader), checks each
function's buckets against the issue's bucket rule (below 8 ns one per ns,
above each power of two cut in 8) -- they add up to its hits, its min and
max fall in its first and last bucket -- merges the threads, and prints
one line per function: NAME HITS TOTAL SELF MIN MAX SUM (ns), then
`threads N`.
stat: STAT_TEXT (trace_stat/function) has the kernel profiler's header and
one row per function of PROFILE with its hits and times (us, 3 decimals).
hist: HIST_TEXT (trace_stat/function_hist or report --hist) has FUNC's
buckets, bounds and counts exactly as PROFILE holds them.
Exit 1 with one line on the first difference.
"""
import re
import sys


def die(msg):
    print("check_profile: " + msg)
    sys.exit(1)


def bucket(v):
    if v < 8:
        return v
    k = v.bit_length() - 1
    return 8 + (k - 3) * 8 + ((v >> (k - 3)) & 7)


def bucket_lo(b):
    if b < 8:
        return b
    k = (b - 8) // 8 + 3
    return (8 + (b - 8) % 8) << (k - 3)


def decode(path):
    lines = open(path).read().split("\n")
    if lines[-1] != "":
        die("%s: no newline at the end" % path)
    lines = lines[:-1]
    if not lines or lines[0] != "patchsite-profile 1":
        die("%s: first line %r" % (path, lines[:1]))
    funcs, threads, i = {}, 0, 1
    while i < len(lines):
        ln = lines[i]
        if ln.startswith("thread "):
            threads += 1
            i += 1
            continue
        m = re.match(r"f (\d+) (\d+) (\d+) (\d+) (\d+) (\d+) 0x([0-9a-f]+) (.+)$", ln)
        if not m or i + 1 >= len(lines) or not lines[i + 1].startswith("h"):
            die("%s: line %d: %r" % (path, i + 1, ln))
        hits, total, tsum, self_, lo, hi = (int(m.group(k)) for k in range(1, 7))
        name = m.group(8)
        buckets = {}
        for pair in lines[i + 1].split()[1:]:
            b, c = pair.split(":")
            buckets[int(b)] = int(c)
        if sum(buckets.values()) != hits:
            die("%s: %s: buckets add up to %d, hits %d" % (path, name, sum(buckets.values()), hits))
        if min(buckets) != bucket(lo) or max(buckets) != bucket(hi):
            die("%s: %s: min %d max %d outside buckets %d..%d" % (path, name, lo, hi,
                                                                min(buckets), max(buckets)))
        if not (self_ <= tsum and total <= tsum and hits * lo <= tsum <= hits * hi):
            die("%s: %s: inconsistent times %s" % (path, name, ln))
        f = funcs.setdefault(name, {"hits": 0, "total": 0, "self": 0, "min": lo, "max": hi,
                                    "sum": 0, "buckets": {}})
        f["hits"] += hits
        f["total"] += total
        f["self"] += self_
        f["sum"] += tsum
        f["min"] = min(f["min"], lo)
        f["max"] = max(f["max"], hi)
        for b, c in buckets.items():
            f["buckets"][b] = f["buckets"].get(b, 0) + c
        i += 2
    return funcs, threads


def us(ns):
    return "%d.%03d us" % (ns // 1000, ns % 1000)


def main():
    cmd = sys.argv[1]
    if cmd == "decode":
        funcs, threads = decode(sys.argv[2])
        for name in sorted(funcs):
            f = funcs[name]
            print(name, f["hits"], f["total"], f["self"], f["min"], f["max"], f["sum"])
        print("threads", threads)
    elif cmd == "stat":
        text = open(sys.argv[2]).read().split("\n")
        funcs, _ = decode(sys.argv[3])
        if not text[0].startswith("  Function                               Hit    Time"
                                  "            Avg             s^2") or \
           not text[1].startswith("  --------                               ---    ----"
                                  "            ---             ---"):
            die("stat: not the kernel profiler's header: %r" % text[:2])
        rows = [r for r in text[2:] if r.strip()]
        if len(rows) != len(funcs):
            die("stat: %d rows, %d functions in the profile" % (len(rows), len(funcs)))
        for r in rows:
            w = r.split()
            name, hits = w[0], int(w[1])
            f = funcs.get(name)
            if not f or f["hits"] != hits:
                die("stat: row %r, profile %r" % (r, f))
            want = [us(f["total"]), us(f["sum"] // f["hits"])]
            got = [" ".join(w[2:4]), " ".join(w[4:6])]
            if got != want or " ".join(w[-6:]) != " ".join([us(f["self"]), us(f["min"]),
                                                            us(f["max"])]):
                die("stat: row %r, want time/avg %s and self/min/max %s %s %s" %
                    (r, want, us(f["self"]), us(f["min"]), us(f["max"])))
        print("%d rows equal to the profile" % len(rows))
    elif cmd == "hist":
        text = open(sys.argv[2]).read().split("\n")
        funcs, _ = decode(sys.argv[3])
        f = funcs[sys.argv[4]]
        got = []
        for ln in text:
            if ln.startswith("#") or not ln.strip():
                continue
            w = ln.split("|")[0].split()
            got.append(int(w[4]))
        want = [f["buckets"][b] for b in sorted(f["buckets"])]
        if got != want:
            die("hist: counts %s, profile %s" % (got, want))
        if "# %s: %d calls;" % (sys.argv[4], f["hits"]) not in text[0]:
            die("hist: header %r" % text[0])
        print("%d buckets equal to the profile's" % len(want))


if __name__ == "__main__":
    main()
