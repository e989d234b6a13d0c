#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Check a PATCHSITE_FORMAT=chrome trace: usage check_chrome.py TRACE.json TRACER
Valid JSON in the trace-event format Perfetto and chrome://tracing load:
thread names as "M" events; function_graph calls as complete "X" events
(or "B" for calls still open) nested within their parents on each thread;
function tracer events as thread-scoped instants "i"; time off the CPU
(cat "sched", issue 25) as "X" slices nested like the calls, or instants."""
import json
import sys

doc = json.load(open(sys.argv[1]))
ev = doc["traceEvents"]
names = [e for e in ev if e["ph"] == "M" and e["name"] == "thread_name"]
calls = [e for e in ev if e["ph"] != "M" and e.get("cat") != "sched"]
sched = [e for e in ev if e.get("cat") == "sched"]
assert all(e["ph"] in ("X", "i") and e["name"].startswith(("off-CPU", "sched-")) for e in sched)
assert names and all(isinstance(e["tid"], int) for e in names), "thread names"
want = "X" if sys.argv[2] == "function_graph" else "i"
assert calls and all(e["ph"] in (want, "B") for e in calls), "phases"
for e in calls:
    assert isinstance(e["ts"], (int, float)) and isinstance(e["pid"], int) and e["name"]
    if e["ph"] == "X":
        assert e["dur"] >= 0
tids = {e["tid"] for e in calls}
assert len(tids) >= 2, "events from several threads"
assert "work_count" in {e["name"] for e in calls} or "work_leaf" in {e["name"] for e in calls}
if want == "X":
    EPS = 0.002  # the JSON has ns resolution in us
    by = {}
    for e in calls + sched:
        if e["ph"] == "X":
            by.setdefault(e["tid"], []).append(e)
    for es in by.values():
        es.sort(key=lambda e: (e["ts"], -e["dur"]))
        stack = []
        for e in es:
            while stack and e["ts"] >= stack[-1]["ts"] + stack[-1]["dur"] - EPS:
                stack.pop()
            if stack:
                assert e["ts"] + e["dur"] <= stack[-1]["ts"] + stack[-1]["dur"] + EPS, (e, stack[-1])
            stack.append(e)
print(len(calls), "events,", len(tids), "threads,", len(sched), "off-CPU")
