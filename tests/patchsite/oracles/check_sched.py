#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Switches recorded in a trace directory's sched.T files against the
kernel's own counts (tests/patchsite/sched.sh).

usage: check_sched.py PROCDIR OUTPUT
       check_sched.py --chrome PROCDIR TRACE.json
       check_sched.py --nosleep PROCDIR TRACE.json OUTPUT NS

OUTPUT is testdata/patchsite/offcpu's `switches` lines: per thread, the
CLOCK_MONOTONIC times a1 < (status read 0) < a2 and b1 < (status read 1) < b2,
and voluntary/nonvoluntary_ctxt_switches of /proc/self/task/TID/status at
each read: the oracle.  A switch recorded between a2 and b1 is surely
between the two reads, one between a1 and b2 may be; so for each thread

    recorded in (a2, b1)  <=  change of the counts  <=  recorded in [a1, b2]

for all switches, and for the voluntary (blocked) and nonvoluntary
(preempted) ones apart.  Usually no switch falls inside the short reads,
and the three are equal: the line says how often that was so.  The sched
file is parsed here from patchsite-data(5), not by patchsite's reader.
"""
import json
import os
import struct
import sys

HDR = struct.Struct("<8sIIIIII QQ II 128s")
REC = struct.Struct("<QIi")


def sched_file(path):
    data = open(path, "rb").read()
    (magic, version, hdr_bytes, pid, tid, state, clean, lost, records, clockid, _pad,
     why) = HDR.unpack_from(data, 0)
    if magic != b"PSSCHD1\0" or version != 1 or hdr_bytes != 256 or clockid != 1:
        raise SystemExit(f"{path}: bad header {magic!r} v{version} {hdr_bytes} clock {clockid}")
    if state != 1:
        raise SystemExit(f"{path}: state {state}: {why.rstrip(bytes(1)).decode()}")
    if lost:
        raise SystemExit(f"{path}: {lost} switches lost")
    body = data[hdr_bytes:]
    if len(body) != records * REC.size:
        raise SystemExit(f"{path}: {len(body)} bytes of records, header says {records}")
    return tid, [REC.unpack_from(body, k * REC.size) for k in range(records)]


def chrome(procdir, trace):
    """dump --chrome's off-CPU slices: one per switch out followed by a switch in, in the
    sched file (parsed here), as long as the pair less at most SKEW (an event of the
    thread mapped just after the switch out, or just before the switch in, bounds the
    slice: the counter and CLOCK_MONOTONIC meet to a microsecond or so), and no longer
    (RATE: the counter against CLOCK_MONOTONIC); each inside its thread's calls (nested),
    and in sleeper's run (testdata offcpu sleep) every nap() call holds a voluntary one
    (nanosleep blocks)."""
    SKEW, RATE = 50000, 0.001
    ev = json.load(open(trace))["traceEvents"]
    trimmed = 0
    for name in os.listdir(procdir):
        if not name.startswith("sched."):
            continue
        tid, r = sched_file(os.path.join(procdir, name))
        pairs = [(b[0] - a[0]) for a, b in zip(r, r[1:]) if a[1] in (1, 2) and b[1] == 3]
        sl = sorted((e for e in ev if e.get("cat") == "sched" and e["tid"] == tid),
                    key=lambda e: e["ts"])
        if len(sl) != len(pairs) or any(e["ph"] != "X" for e in sl):
            raise SystemExit(f"thread {tid}: {len(sl)} sched events, not {len(pairs)} "
                             f"off-CPU slices (one per out-in pair)")
        for e, ns in zip(sl, pairs):
            dur = e["dur"] * 1000
            if not ns - SKEW - ns * RATE <= dur <= ns + ns * RATE + 2:
                raise SystemExit(f"thread {tid}: off-CPU slice of {dur:.0f} ns for a "
                                 f"switch pair {ns} ns apart")
            trimmed += dur < ns * (1 - RATE)
        naps = [e for e in ev if e["name"] == "nap" and e["ph"] == "X" and e["tid"] == tid]
        vol = [e for e in sl if e["name"] in ("off-CPU", "sched-out")]
        held = sum(1 for n in naps if any(n["ts"] <= v["ts"] and v["ts"] + v.get("dur", 0) <=
                                          n["ts"] + n["dur"] + 0.002 for v in vol))
        if len(naps) != 10 or held != 10:
            raise SystemExit(f"thread {tid}: {held} of {len(naps)} nap() calls hold an off-CPU slice")
    # Nested: Perfetto's JSON importer needs slices on a thread to nest strictly.
    EPS = 0.002  # ns resolution in us
    by = {}
    for e in ev:
        if e["ph"] == "X":
            by.setdefault(e["tid"], []).append(e)
    for es in by.values():
        es.sort(key=lambda e: (e["ts"], -e["dur"]))
        stack = []
        for e in es:
            while stack and e["ts"] >= stack[-1]["ts"] + stack[-1]["dur"] - EPS:
                stack.pop()
            if stack and e["ts"] + e["dur"] > stack[-1]["ts"] + stack[-1]["dur"] + EPS:
                raise SystemExit(f"not nested: {e} in {stack[-1]}")
            stack.append(e)
    print(f"{len([e for e in ev if e.get('cat') == 'sched' and e['ph'] == 'X'])} off-CPU "
          f"slices, one per switch out and in ({trimmed} bounded by a call mapped between "
          f"the switches); each of the 10 nap() calls holds a voluntary one")


def nosleep(procdir, trace, output, value):
    """sleeper()'s time on the CPU as patchsite shows it (VALUE ns, from replay
    --nosleep-time or report) against an oracle taken at the same instants: the
    program's CLOCK_MONOTONIC reads t0 and t1 either side of the call (OUTPUT, testdata
    offcpu sleep) less the off-CPU stretches the kernel stamped between them (each switch
    out to the next switch in, CLOCK_MONOTONIC, in the sched file parsed here).  Between
    t0 and the call's entry, and its exit and t1, the thread runs a clock read's return
    and the tracer's hook: the call's entry and exit (dump --chrome) say how long, so

        oracle - margins - RATE  <=  VALUE  <=  oracle + RATE

    where RATE is the counter against CLOCK_MONOTONIC.  Neither side depends on how
    busy the machine is.  The thread's CPU clock differs from both by the kernel's own
    work at each switch (it starts the clock when it picks the thread, before the
    switch in is stamped, tens of microseconds on a loaded VM) and by a hypervisor's
    steal: it is only checked to within less than one nap() (3 ms), so that a sleep
    lost from the sched file shows."""
    RATE, NAP = 0.001, 3000000
    f = dict(kv.split("=") for kv in open(output).read().split())
    cpu, t0, t1 = int(f["cpu_ns"]), int(f["t0"]), int(f["t1"])
    ev = json.load(open(trace))["traceEvents"]
    calls = [e for e in ev if e["name"] == "sleeper" and e["ph"] == "X"]
    if len(calls) != 1:
        raise SystemExit(f"{len(calls)} sleeper() calls in {trace}")
    entry = round(calls[0]["ts"] * 1000)
    leave = entry + round(calls[0]["dur"] * 1000)
    slack = (t1 - t0) * RATE + 2
    if not (t0 - slack <= entry <= leave <= t1 + slack):
        raise SystemExit(f"sleeper() at [{entry}, {leave}] ns outside the program's reads "
                         f"[{t0}, {t1}]")
    tid = calls[0]["tid"]
    off = margin_off = 0
    for name in os.listdir(procdir):
        if name != f"sched.{tid}":
            continue
        _, r = sched_file(os.path.join(procdir, name))
        for a, b in zip(r, r[1:]):
            if a[1] in (1, 2) and b[1] == 3 and t0 <= a[0] and b[0] <= t1:
                off += b[0] - a[0]
                if not (entry <= a[0] and b[0] <= leave):
                    margin_off += b[0] - a[0]
    oracle = t1 - t0 - off
    margins = (entry - t0) + (t1 - leave) - margin_off
    lo, hi = oracle - margins - oracle * RATE - 2, oracle + oracle * RATE + 2
    if not lo <= value <= hi:
        raise SystemExit(f"sleeper() {value} ns on the CPU; the program's reads less the "
                         f"switches between them: {oracle} ns (allowed [{lo:.0f}, {hi:.0f}])")
    if abs(value - cpu) >= NAP:
        raise SystemExit(f"sleeper() {value} ns on the CPU, CPU clock {cpu} ns: a sleep "
                         f"lost or counted twice?")
    print(f"sleeper() {value} ns on the CPU; the program's reads less the switches between "
          f"them {oracle} ns (margins {margins} ns); CPU clock {cpu} ns ({(value - cpu) * 100 / cpu:+.2f}%)")


def main():
    if sys.argv[1] == "--chrome":
        return chrome(sys.argv[2], sys.argv[3])
    if sys.argv[1] == "--nosleep":
        return nosleep(sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]))
    procdir, output = sys.argv[1], sys.argv[2]
    recs = {}
    for name in os.listdir(procdir):
        if name.startswith("sched."):
            tid, r = sched_file(os.path.join(procdir, name))
            recs[tid] = r
    threads = exact = total = 0
    for line in open(output):
        f = line.split()
        if not f or f[0] != "tid":
            continue
        tid, a1, a2, b1, b2, v0, n0, v1, n1 = map(int, f[1:])
        if tid not in recs:
            raise SystemExit(f"thread {tid}: no sched file")
        dv, dn = v1 - v0, n1 - n0
        for kind, want, change in (("voluntary", (1,), dv), ("nonvoluntary", (2,), dn),
                                   ("all", (1, 2), dv + dn)):
            inner = sum(1 for ns, what, _ in recs[tid] if what in want and a2 < ns < b1)
            outer = sum(1 for ns, what, _ in recs[tid] if what in want and a1 <= ns <= b2)
            if not inner <= change <= outer:
                raise SystemExit(f"thread {tid}: {kind} switches: /proc says {change}, "
                                 f"recorded {inner} surely and {outer} at most between the reads")
            if kind == "all":
                exact += inner == change == outer
                total += change
        ins = [r for r in recs[tid] if r[1] == 3]
        outs = [r for r in recs[tid] if r[1] in (1, 2)]
        if abs(len(ins) - len(outs)) > 1:
            raise SystemExit(f"thread {tid}: {len(outs)} sched-out, {len(ins)} sched-in")
        times = [r[0] for r in recs[tid]]
        if times != sorted(times):
            raise SystemExit(f"thread {tid}: records not in time order")
        threads += 1
    if threads != 5 or total < 50:
        raise SystemExit(f"{threads} threads, {total} switches: expected 5 threads, >= 50")
    print(f"{threads} threads, {total} switches as /proc counts them "
          f"(exactly, no switch during a read, in {exact} of {threads})")


main()
