#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""report's table against uftrace's report of the same binary (tests/patchsite/uftreport.sh).

usage: check_uftreport.py UFTRACE_REPORT OUR_REPORT [--order] [--sorted-by TITLE,...]
                          [--drop TITLE] [--subset] [--task]
       check_uftreport.py UFTRACE_DIFF OUR_DIFF --diff a|b-sorted|change

Both tables are read by their titles (columns two or more spaces apart).  Always: the same
titles (less --drop, a column patchsite does not have; --subset: uftrace's among ours, in
the same order: patchsite's own table has more), the same functions (--task: as many
threads), each function's Calls equal (--task: the same Num funcs, as a multiset), and the
relations times must keep (Total time >= Self time, min <= avg <= max, a max no larger than
its total).  --order: the rows in uftrace's order.  --sorted-by: ours in the order of those
columns (times and counts largest first, Function A to Z), as uftrace sorts."""
import re
import sys

UNIT = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}


def cell(text):
    m = re.fullmatch(r"(-?[0-9.]+) *(ns|us|ms|s)?", text.strip())
    if not m:
        return text.strip()
    return float(m.group(1)) * UNIT[m.group(2)] if m.group(2) else float(m.group(1))


def table(path):
    lines = [l.rstrip("\n") for l in open(path) if l.strip() and not l.startswith("#")]
    if not any(re.match(r"\s*=+", l) for l in lines[:2]):	# -f none: names alone
        return [], [{"Function": l.strip()} for l in lines]
    titles = re.split(r"\s{2,}", lines[0].strip())
    rows = []
    for l in lines[2:]:
        cells = re.split(r"\s{2,}", l.strip())
        if len(cells) != len(titles):
            sys.exit(f"{path}: a row of {len(cells)} cells under {len(titles)} titles: {l}")
        rows.append({t: cell(c) for t, c in zip(titles, cells)})
    return titles, rows


def relations(rows, path):
    for r in rows:
        name = r.get("Function", r.get("Task name"))
        for tot, lo, avg, hi in (("Total time", "Total min", "Total avg", "Total max"),
                                 ("Self time", "Self min", "Self avg", "Self max")):
            have = [r[k] for k in (lo, avg, hi) if k in r]
            if have != sorted(have):
                sys.exit(f"{path}: {name}: {lo}, {avg}, {hi} out of order: {have}")
            if tot in r and hi in r and r[hi] > r[tot]:
                sys.exit(f"{path}: {name}: {hi} {r[hi]} > {tot} {r[tot]}")
        if "Total time" in r and "Self time" in r and r["Self time"] > r["Total time"]:
            sys.exit(f"{path}: {name}: Self time > Total time")


def diff_rows(path):
    """report --diff's rows under --diff-policy: {function: calls (A, B, change)}, in order."""
    lines = [l.rstrip("\n") for l in open(path) if l.strip() and not l.startswith("#")]
    titles = re.split(r"\s{2,}", lines[0].strip())
    rows = []
    for l in lines[2:]:
        cells = re.split(r"\s{2,}", l.strip())
        full = len(cells) == 10
        if len(cells) not in (4, 10):
            sys.exit(f"{path}: a row of {len(cells)} cells: {l}")
        calls = [int(c) if c != "-" else 0 for c in (cells[6:9] if full else [0, 0, cells[2]])]
        rows.append((cells[-1], calls))
    return titles, rows


def diff_main(args):
    """--diff WHICH: the same titles, functions and call changes (full: A's and B's calls
    too), and the rows in the same sequence of WHICH (a or change of the calls); b-sorted:
    ours in the order of B's calls (uftrace 0.13 sorts --sort-column 1 as 0)."""
    ut, ur = diff_rows(args[0])
    pt, pr = diff_rows(args[1])
    what = args[args.index("--diff") + 1]
    which = {"a": 0, "b": 1, "change": 2, "b-sorted": 1}[what]
    if ut != pt:
        sys.exit(f"titles: uftrace {ut}, patchsite {pt}")
    if dict(ur) != dict(pr):
        sys.exit(f"calls (A, B, change): uftrace {dict(ur)}, patchsite {dict(pr)}")
    us, ps = [c[which] for _, c in ur], [c[which] for _, c in pr]
    if what == "b-sorted":	# uftrace 0.13 sorts --sort-column 1 as 0: ours, largest first
        us = sorted(ps, reverse=True)
    if us != ps:
        sys.exit(f"order of the calls' {args[args.index('--diff') + 1]}: uftrace {us}, patchsite {ps}")
    print(f"{len(pr)} rows, columns {pt}, calls' {args[args.index('--diff') + 1]} in order {ps}")


def main():
    args = sys.argv[1:]
    if "--diff" in args:
        return diff_main(args)
    upath, ppath = args[0], args[1]
    order = "--order" in args
    task = "--task" in args
    subset = "--subset" in args
    drop = args[args.index("--drop") + 1] if "--drop" in args else None
    keys = args[args.index("--sorted-by") + 1].split(",") if "--sorted-by" in args else []
    ut, ur = table(upath)
    pt, pr = table(ppath)
    if drop:
        ut = [t for t in ut if t != drop]
    if ut != pt and not (subset and [t for t in pt if t in ut] == ut):
        sys.exit(f"titles: uftrace {ut}, patchsite {pt}")
    relations(pr, ppath)
    name = "Task name" if task else "Function"
    count = "Num funcs" if task else "Calls"
    if task:
        if len(ur) != len(pr):
            sys.exit(f"threads: uftrace {len(ur)}, patchsite {len(pr)}")
        if count in pt and sorted(r[count] for r in ur) != sorted(r[count] for r in pr):
            sys.exit(f"{count}: uftrace {sorted(r[count] for r in ur)}, "
                     f"patchsite {sorted(r[count] for r in pr)}")
        for r in pr:
            if "Total time" in r and "Self time" in r and r["Total time"] != r["Self time"]:
                sys.exit(f"thread {r.get('TID')}: Total time != Self time (uftrace's are one)")
    else:
        un, pn = [r[name] for r in ur], [r[name] for r in pr]
        if sorted(un) != sorted(pn):
            sys.exit(f"functions: uftrace {sorted(un)}, patchsite {sorted(pn)}")
        if order and un != pn:
            sys.exit(f"order: uftrace {un}, patchsite {pn}")
        if count in pt:
            uc = {r[name]: r[count] for r in ur}
            for r in pr:
                if uc[r[name]] != r[count]:
                    sys.exit(f"{r[name]}: {count} uftrace {uc[r[name]]}, patchsite {r[count]}")
    if keys:
        def key(r):
            return [(r[k],) if k == name else (-r[k],) for k in keys]
        if [key(r) for r in pr] != sorted(key(r) for r in pr):
            sys.exit(f"patchsite's rows are not sorted by {keys}")
    print(f"{len(pr)} rows, columns {pt}")


main()
