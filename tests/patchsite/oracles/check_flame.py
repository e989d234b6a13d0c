#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Checks of dump --flamegraph's SVG against report's and graph's numbers.

usage: check_flame.py SVG REPORT_JSON GRAPH_JSON COMM [reverse]

The SVG is parsed as XML (it must be well formed); each frame is a <g> with
a <title> "NAME (N ns, P%)" and a <rect>.  Frames are put back into a tree
by their rows and x ranges alone.  Then:
- "all" spans the full width and its time is the sum of report's self_ns
  (the self times of every call add up to the time of the outermost ones);
- under COMM (one thread), every frame's path and time equal the node of
  report --graph --json at the same path (graph.c builds its tree
  separately, from the same calls);
- every frame's children fit inside it, and every graph node wide enough to
  draw (0.1 px) is drawn;
- the function with the most self time in report is written in a frame;
- reverse: the root row is at the top.
"""
import json
import re
import sys
import xml.etree.ElementTree as ET

NS = "{http://www.w3.org/2000/svg}"


def die(msg):
    print("check_flame: " + msg)
    sys.exit(1)


def main():
    svg, rep, graph, comm = sys.argv[1:5]
    reverse = len(sys.argv) > 5
    frames = []
    for g in ET.parse(svg).getroot().iter(NS + "g"):
        m = re.match(r"^(.*) \((\d+) ns, [0-9.]+%\)$", g.find(NS + "title").text)
        r = g.find(NS + "rect")
        t = g.find(NS + "text")
        frames.append({"name": m.group(1), "ns": int(m.group(2)), "x": float(r.get("x")),
                       "w": float(r.get("width")), "y": int(r.get("y")),
                       "label": t.text if t is not None else None, "kids": []})
    root = frames[0]
    if root["name"] != "all" or abs(root["w"] - 1180.0) > 0.05:
        die("the first frame is %s, %.1f px wide" % (root["name"], root["w"]))
    rows = sorted({f["y"] for f in frames}, reverse=not reverse)
    if rows[0] != root["y"]:
        die("'all' is not on the %s row" % ("top" if reverse else "bottom"))
    level = {y: i for i, y in enumerate(rows)}
    by_level = {}
    for f in frames:
        by_level.setdefault(level[f["y"]], []).append(f)
    for lv in range(1, len(rows)):
        for f in by_level.get(lv, []):
            up = [p for p in by_level[lv - 1] if p["x"] - 0.05 <= f["x"] and
                  f["x"] + f["w"] <= p["x"] + p["w"] + 0.05 * (len(p["kids"]) + 2)]
            if len(up) != 1:
                die("frame %s at row %d: %d possible parents" % (f["name"], lv, len(up)))
            up[0]["kids"].append(f)
    for f in frames:
        if sum(k["ns"] for k in f["kids"]) > f["ns"]:
            die("%s: children's time exceeds its own" % f["name"])
    report = json.load(open(rep))
    if root["ns"] != sum(r["self_ns"] for r in report):
        die("all: %d ns, report's self times add up to %d" %
            (root["ns"], sum(r["self_ns"] for r in report)))
    th = [k for k in root["kids"] if k["name"] == comm]
    if len(th) != 1:
        die("no frame for the thread %s" % comm)
    scale = 1180.0 / root["ns"]
    drawn = 0

    def same(gnodes, fnodes, path):
        nonlocal drawn
        fmap = {f["name"]: f for f in fnodes}
        for n in gnodes:
            f = fmap.get(n["name"])
            if n["total_ns"] * scale < 0.1:
                continue
            if f is None:
                die("%s: in the graph (%d ns), not drawn" % (";".join(path + [n["name"]]),
                                                             n["total_ns"]))
            if f["ns"] != n["total_ns"]:
                die("%s: %d ns drawn, the graph's total %d" %
                    (";".join(path + [n["name"]]), f["ns"], n["total_ns"]))
            drawn += 1
            same(n["children"], f["kids"], path + [n["name"]])

    same(json.load(open(graph)), th[0]["kids"], [comm])
    hot = max(report, key=lambda r: r["self_ns"])["name"]
    if not any(f["label"] == hot for f in frames):
        die("the hottest function %s is written in no frame" % hot)
    print("%d frames in %d rows; %d paths equal to the graph's, 'all' = report's %d ns; "
          "the hottest, %s, written" % (len(frames), len(rows), drawn, root["ns"], hot))


if __name__ == "__main__":
    main()
