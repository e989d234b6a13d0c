#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Switches recorded in a trace directory's sched.T files against the
kernel's own counts (tests/patchsite/sched.sh).

usage: check_sched.py PROCDIR OUTPUT

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


def main():
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
