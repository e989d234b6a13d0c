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
one row per function of PROFILE, character for character as the kernel's
function_stat_show would print its hits, time, average and s^2 (then
self, min and max in the same form).  The oracle is the kernel's source:
with KERNEL_TRACE_DIR (its kernel/trace, e.g. from Debian's
linux-source-6.1) the format strings are parsed out of ftrace.c and
trace_functions_graph.c; without it, the same strings as stated below
with the lines they come from.
hist: HIST_TEXT (trace_stat/function_hist or report --hist) has FUNC's
buckets, bounds and counts exactly as PROFILE holds them.
Exit 1 with one line on the first difference.
"""
import os
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
        sumsq = int(m.group(7), 16) if m else 0
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
                                    "sum": 0, "sumsq": 0, "buckets": {}})
        f["sumsq"] += sumsq
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


# Linux 6.1 (Debian's linux-source-6.1), kernel/trace/ftrace.c lines 499-502
# (function_stat_headers, CONFIG_FUNCTION_GRAPH_TRACER), 536 and 539
# (function_stat_show: the name and hits, then 4 spaces), 558 and 560 (4
# spaces between the durations).
KERNEL_HEADER = ("  Function                               Hit    Time            Avg             s^2\n"
                 "  --------                               ---    ----            ---             ---\n")
KERNEL_ROW = "  %-30.30s  %10lu"
KERNEL_SEP = "    "
# trace_functions_graph.c trace_print_graph_duration (lines 559-589): what
# the port in duration() below relies on.
KERNEL_DURATION = ['do_div(duration, 1000)', 'if (len < 7)', '8UL - len', '"%03lu"', '" us "',
                   'for (i = len; i < 8; i++)']


def c_string(text):
    """The concatenated C string literals of text, escapes \n and \" undone."""
    lits = re.findall(r'"((?:[^"\\]|\\.)*)"', text)
    return "".join(lits).replace("\\n", "\n").replace('\\"', '"')


def c_function(src, name):
    m = re.search(r"\n[^\n]*\b" + name + r"\([^)]*\)\n\{\n(.*?)\n\}\n", src, re.S)
    if not m:
        die("kernel source: no function %s" % name)
    return m.group(1)


def kernel_layout(tracedir):
    """The header, row format and separator: parsed from the kernel's source, or as stated."""
    if not tracedir:
        return KERNEL_HEADER, KERNEL_ROW, KERNEL_SEP, "stated (ftrace.c 6.1 lines 499-502, 536, 539)"
    ftrace = open(tracedir + "/ftrace.c").read()
    heads = c_function(ftrace, "function_stat_headers")
    graph = heads.split("#ifdef CONFIG_FUNCTION_GRAPH_TRACER")[1].split("#else")[0]
    header = c_string(re.search(r"seq_puts\(m,(.*?)\);", graph, re.S).group(1))
    show = c_function(ftrace, "function_stat_show")
    row = re.search(r'seq_printf\(m, ("[^"]*"), str, rec->counter\);', show)
    sep = re.search(r'seq_puts\(m, ("[ ]*")\);', show)
    seps = re.findall(r'trace_seq_puts\(&s, ("[ ]*")\);', show)
    dur = c_function(open(tracedir + "/trace_functions_graph.c").read(),
                     "trace_print_graph_duration")
    if not row or not sep or len(seps) != 2 or c_string(seps[0]) != c_string(sep.group(1)):
        die("kernel source: function_stat_show is not as expected")
    for piece in KERNEL_DURATION:
        if piece not in dur:
            die("kernel source: trace_print_graph_duration lacks %r" % piece)
    return header, c_string(row.group(1)), c_string(sep.group(1)), "parsed from " + tracedir


def duration(ns):
    """trace_print_graph_duration's text for ns, ported line by line."""
    usecs, rem = ns // 1000, ns % 1000
    out = "%d" % usecs
    n = len(out)
    if n < 7:
        frac = ("%03d" % rem)[:min(5, 8 - n) - 1]
        out += "." + frac
        n += len(frac) + 1
    return out + " us " + " " * max(0, 8 - n)


def variance(f):
    """function_stat_show's s^2 (ns^2 / 1000, which duration() turns into us^2)."""
    n = f["hits"]
    if n < 2:
        return 0
    return max(0, n * f["sumsq"] - f["sum"] * f["sum"]) // (n * (n - 1) * 1000)


def expected_row(f, name, fmt, sep):
    row = fmt.replace("%10lu", "%10d") % (name, f["hits"])
    kernel = [f["total"], f["sum"] // f["hits"], variance(f)]
    ours = [f["self"], f["min"], f["max"]]
    return row + "".join(sep + duration(v) for v in kernel + ours)


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
        header, fmt, sep, where = kernel_layout(os.environ.get("KERNEL_TRACE_DIR"))
        heads = header.split("\n")[:2]
        if not text[0].startswith(heads[0]) or not text[1].startswith(heads[1]):
            die("stat: not the kernel profiler's header %r: %r" % (heads, text[:2]))
        for k, col in ((0, "Self"), (1, "----")):
            if text[k][len(heads[k]):].split() != ([col, "Min", "Max"] if k == 0 else
                                                   [col, "---", "---"]):
                die("stat: our columns after the kernel's: %r" % text[k])
        rows = [r for r in text[2:] if r.strip()]
        if len(rows) != len(funcs):
            die("stat: %d rows, %d functions in the profile" % (len(rows), len(funcs)))
        for r in rows:
            name = r.split()[0]
            f = funcs.get(name)
            if not f or r != expected_row(f, name, fmt, sep):
                die("stat: row\n%r, want\n%r" % (r, expected_row(f, name, fmt, sep) if f else None))
        print("%d rows as the kernel's function_stat_show would print them (format %s)" %
              (len(rows), where))
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
