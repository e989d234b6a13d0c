#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""dump --graphviz and --mermaid against uftrace's (tests/patchsite/dumpgraph.sh).

  check_dumpgraph.py dot UFTRACE.json PATCHSITE.json
      Both DOT outputs as graphviz itself parsed them (dot -Tjson0): the same
      graph name, the same nodes and the same edges with the same call counts
      (xlabel), as multisets (a function reached by two paths has an edge from
      each, with each path's calls, in both).
  check_dumpgraph.py mermaid UFTRACE.html PATCHSITE.mmd
      uftrace's flowchart (inside its HTML page) and patchsite's, each read
      by the small parser below of mermaid's flowchart syntax: patchsite's
      must be nothing but a header, node and edge statements; both give the
      same tree (every path of names from the root) with the same calls.

  check_dumpgraph.py names PATCHSITE.json PATCHSITE.mmd NAMES
      The node names dot parsed and the labels the flowchart parser read are
      both the lines of NAMES (each function's name, as c++filt writes it).

Prints one summary line; exit 1 with what differs.
"""
import collections
import json
import re
import sys


def dot_graph(path):
    with open(path) as f:
        g = json.load(f)
    nodes = {o["_gvid"]: o["name"] for o in g.get("objects", [])}
    edges = collections.Counter(
        (nodes[e["tail"]], nodes[e["head"]], e.get("xlabel")) for e in g.get("edges", []))
    return g["name"], set(nodes.values()), edges


# Mermaid's flowchart syntax (mermaid.js.org/syntax/flowchart.html), the subset a call
# graph needs: "flowchart DIR", a node "ID["text"]", an edge "ID -->|text| ID["text"]"
# (";" may end a statement).  Inside quotes, '"' is written #quot; (an entity code).
ID = r"[A-Za-z0-9_]+"
TEXT = r'"([^"]*)"'
HEADER = re.compile(r"(flowchart|graph) (TB|TD|BT|RL|LR)$")
NODE = re.compile(rf"({ID})\[{TEXT}\];?$")
EDGE = re.compile(rf"({ID})(?:\[{TEXT}\])? -->\|(\d+)\| ({ID})\[{TEXT}\];?$")
ENTITY = {"quot": '"', "lt": "<", "gt": ">", "amp": "&"}


def unescape(text):
    def one(m):
        code = m.group(1)
        return chr(int(code)) if code.isdigit() else ENTITY[code]
    if re.search(r"[<>]", text):
        raise ValueError(f"raw < or > in a label: {text!r}")
    return re.sub(r"#(\d+|quot|lt|gt|amp);", one, text)


def mermaid_tree(lines, strict):
    """{path of names: calls} from a flowchart's lines; strict: every line is a statement."""
    label, parent, calls = {}, {}, {}
    header = False
    for n, raw in enumerate(lines, 1):
        line = raw.strip()
        if not line or line.startswith("%%"):
            continue
        if not header:
            if not HEADER.match(line):
                raise ValueError(f"line {n}: not a flowchart header: {line!r}")
            header = True
            continue
        m = EDGE.match(line)
        if m:
            a, atext, count, b, btext = m.groups()
            if a not in label and atext is None:
                raise ValueError(f"line {n}: edge from {a}, a node not defined before")
            if atext is not None:
                label.setdefault(a, unescape(atext))
            if b in parent:
                raise ValueError(f"line {n}: {b} has two callers: not a tree")
            label[b] = unescape(btext)
            parent[b] = a
            calls[b] = int(count)
            continue
        m = NODE.match(line)
        if m:
            label[m.group(1)] = unescape(m.group(2))
            continue
        if strict:
            raise ValueError(f"line {n}: not a flowchart statement: {line!r}")
    if not header:
        raise ValueError("no flowchart header")

    def path(node):
        names = []
        while node is not None:
            names.append(label[node])
            node = parent.get(node)
        return tuple(reversed(names))
    tree = collections.Counter()
    for node, c in calls.items():
        tree[path(node)] += c
    return tree


def uftrace_flowchart(path):
    with open(path) as f:
        html = f.read()
    m = re.search(r'<div class="mermaid"[^>]*>\n(.*?)</div>', html, re.S)
    if not m:
        raise ValueError(f"{path}: no mermaid div")
    return m.group(1).replace("&gt;", ">").splitlines()


def names(json_path, mmd_path, names_path):
    with open(names_path) as f:
        want = set(f.read().splitlines())
    try:
        with open(mmd_path) as f:
            labels = {n for path in mermaid_tree(f.read().splitlines(), True) for n in path}
    except ValueError as e:
        print(f"check_dumpgraph: {e}")
        return 1
    got = dot_graph(json_path)[1]
    for what, have in (("DOT nodes", got), ("mermaid labels", labels)):
        if have != want:
            print(f"check_dumpgraph: {what}: not expected {sorted(have - want)}, "
                  f"missing {sorted(want - have)}")
            return 1
    print(f"{len(want)} names, the same in DOT and in mermaid: {sorted(want)}")
    return 0


def main():
    kind, upath, ppath = sys.argv[1:4]
    if kind == "names":
        return names(upath, ppath, sys.argv[4])
    if kind == "dot":
        un, unodes, uedges = dot_graph(upath)
        pn, pnodes, pedges = dot_graph(ppath)
        bad = []
        if un != pn:
            bad.append(f"graph name: uftrace {un!r}, patchsite {pn!r}")
        if unodes != pnodes:
            bad.append(f"nodes only uftrace's {sorted(unodes - pnodes)}, "
                       f"only patchsite's {sorted(pnodes - unodes)}")
        if uedges != pedges:
            bad.append(f"edges only uftrace's {sorted((uedges - pedges).elements())}, "
                       f"only patchsite's {sorted((pedges - uedges).elements())}")
        what = f"{len(pnodes)} nodes, {sum(pedges.values())} edges"
    else:
        try:
            with open(ppath) as f:
                ptree = mermaid_tree(f.read().splitlines(), True)
            utree = mermaid_tree(uftrace_flowchart(upath), False)
        except ValueError as e:
            print(f"check_dumpgraph: {e}")
            return 1
        bad = []
        if utree != ptree:
            bad.append(f"paths only uftrace's {sorted((utree - ptree).items())}, "
                       f"only patchsite's {sorted((ptree - utree).items())}")
        what = f"{len(ptree)} paths, {sum(ptree.values())} calls"
    if bad:
        print("check_dumpgraph: " + "; ".join(bad))
        return 1
    print(f"same as uftrace's: {what}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
