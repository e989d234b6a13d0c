#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Checks of report --graph --json against report --json and the sample's counts.

usage: check_graph.py GRAPH_JSON REPORT_JSON [NAME=CALLS]...
       check_graph.py --root FUNC GRAPH_JSON REPORT_JSON CALLS

Whole tree: for every function, the calls and self times of all its nodes
add up to report's calls and self_ns, and every node's total is its self
plus its children's totals (all exact, in ns); NAME=CALLS from the sample
program must match.  --root: the tree of FUNC has one root, FUNC, whose
total is report's total_ns for FUNC (report counts the outermost calls of a
recursive function) and whose calls are CALLS (the outermost ones).
"""
import json
import sys


def die(msg):
    print("check_graph: " + msg)
    sys.exit(1)


def walk(nodes, out, path):
    for n in nodes:
        kids = n["children"]
        if n["total_ns"] != n["self_ns"] + sum(k["total_ns"] for k in kids):
            die("%s: total %d != self %d + children's %d" %
                (";".join(path + [n["name"]]), n["total_ns"], n["self_ns"],
                 sum(k["total_ns"] for k in kids)))
        c, s = out.get(n["name"], (0, 0))
        out[n["name"]] = (c + n["calls"], s + n["self_ns"])
        walk(kids, out, path + [n["name"]])


def main():
    if sys.argv[1] == "--root":
        func, graph, report, calls = sys.argv[2:6]
        tree = json.load(open(graph))
        rep = {r["name"]: r for r in json.load(open(report))}
        if len(tree) != 1 or tree[0]["name"] != func:
            die("%d roots, expected %s alone" % (len(tree), func))
        walk(tree, {}, [])
        if tree[0]["total_ns"] != rep[func]["total_ns"] or tree[0]["calls"] != int(calls):
            die("root %s: total %d calls %d; report's total %d, %s outermost calls" %
                (func, tree[0]["total_ns"], tree[0]["calls"], rep[func]["total_ns"], calls))
        print("graph of %s: its total %d ns equals report's, %s outermost call(s)" %
              (func, tree[0]["total_ns"], calls))
        return
    tree = json.load(open(sys.argv[1]))
    rep = json.load(open(sys.argv[2]))
    got = {}
    walk(tree, got, [])
    for r in rep:
        if got.get(r["name"]) != (r["calls"], r["self_ns"]):
            die("%s: graph has calls, self %s; report %d, %d" %
                (r["name"], got.get(r["name"]), r["calls"], r["self_ns"]))
    for a in sys.argv[3:]:
        name, calls = a.split("=")
        if got.get(name, (0, 0))[0] != int(calls):
            die("%s: %d calls in the graph, the sample made %s" % (name, got.get(name, (0, 0))[0], calls))
    print("%d functions: calls and self in the graph add up to report's; every node's total "
          "is its self plus its children's" % len(rep))


if __name__ == "__main__":
    main()
