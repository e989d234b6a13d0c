#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Structural checks on an object that recordmcount has processed.

Reads readelf output (through tests/mcloc.py's parsers) and the raw section
bytes; shares no code with the tool under test.  Each subcommand prints one
line per problem and exits 1 if there was any, 0 otherwise.

  check.py headers NEW ORIG
      `__mcount_loc`: PROGBITS, flags exactly A, align = entsize = word size;
      `.rel__mcount_loc` or `.rela__mcount_loc`: REL or RELA like the code
      relocations of ORIG, entsize of that kind, link = the .symtab index,
      info = the `__mcount_loc` index; the two are the last two sections,
      table first; exactly one of each.
  check.py nops NEW NOPS
      every line of NOPS (`section+0xstart hexbytes R_TYPE@0xr_offset`):
      the bytes at section+start are hexbytes, and the relocation of that
      section at r_offset has type R_TYPE.
  check.py code ORIG NEW [NOPS]
      every executable section of ORIG is still there, under the same index
      and name, with the same bytes, except inside the byte ranges NOPS lists.
  check.py relax NEW
      RISC-V only (nothing to check elsewhere): the linker may delete bytes
      at an R_RISCV_RELAX or R_RISCV_ALIGN relocation, so a table entry
      symbol+addend stays right only if no such relocation lies between the
      symbol and the call (symbol <= r_offset < site).
  check.py all ORIG NEW [NOPS]
      all four, each object read once; lines are prefixed with the check.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import mcloc  # noqa: E402

_OBJS = {}


def load(path):
    """One parsed Obj per path, so that `all` reads each object once."""
    if path not in _OBJS:
        _OBJS[path] = Obj(path)
    return _OBJS[path]


REL_ENTSIZE = {(32, "REL"): 8, (32, "RELA"): 12, (64, "REL"): 16, (64, "RELA"): 24}


class Obj:
    def __init__(self, path):
        self.path = path
        self.hdr = mcloc.parse_header(mcloc.readelf("-hW", path))
        self.secs = mcloc.parse_sections(mcloc.readelf("-SW", path))
        self._relocs = None
        self._file = None

    @property
    def relocs(self):
        if self._relocs is None:
            rela = {s["offset"]: s["type"] == "RELA" for s in self.secs.values()
                    if s["type"] in ("REL", "RELA")}
            self._relocs = mcloc.parse_relocs(mcloc.readelf("-rW", self.path),
                                              self.hdr["bits"], rela)
        return self._relocs

    def by_name(self, name):
        return [i for i, s in self.secs.items() if s["name"] == name]

    def data(self, idx):
        s = self.secs[idx]
        if s["type"] == "NOBITS":
            return b""
        if self._file is None:
            with open(self.path, "rb") as f:
                self._file = f.read()
        return self._file[s["offset"]:s["offset"] + s["size"]]


def read_nops(path):
    out = []
    if not path or not os.path.exists(path):
        return out
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            where, hexbytes, rel = line.split()
            name, _, start = where.rpartition("+")
            rtype, _, roff = rel.partition("@")
            out.append((name, int(start, 16), bytes.fromhex(hexbytes), rtype, int(roff, 16)))
    return out


def cmd_headers(new_path, orig_path):
    new, orig = load(new_path), load(orig_path)
    word = new.hdr["bits"] // 8
    bad = []
    kinds = {s["type"] for s in orig.secs.values()
             if s["type"] in ("REL", "RELA") and "X" in orig.secs.get(s["info"], {}).get("flags", "")}
    tabs = new.by_name("__mcount_loc")
    rels = new.by_name(".rel__mcount_loc") + new.by_name(".rela__mcount_loc")
    if len(tabs) != 1 or len(rels) != 1:
        return ["expected one __mcount_loc and one .rel[a]__mcount_loc, found %d and %d"
                % (len(tabs), len(rels))]
    t, r = tabs[0], rels[0]
    ts, rs = new.secs[t], new.secs[r]
    if ts["type"] != "PROGBITS":
        bad.append("__mcount_loc: type %s, expected PROGBITS" % ts["type"])
    if ts["flags"] != "A":
        bad.append("__mcount_loc: flags %r, expected 'A'" % ts["flags"])
    if ts["align"] != word or ts["entsize"] != word:
        bad.append("__mcount_loc: align %d entsize %d, expected %d and %d"
                   % (ts["align"], ts["entsize"], word, word))
    want_kind = "RELA" if rs["name"].startswith(".rela") else "REL"
    if rs["type"] != want_kind:
        bad.append("%s: type %s" % (rs["name"], rs["type"]))
    if len(kinds) == 1 and rs["type"] not in kinds:
        bad.append("%s: type %s, but the object's code relocations are %s"
                   % (rs["name"], rs["type"], kinds.pop()))
    if rs["entsize"] != REL_ENTSIZE.get((new.hdr["bits"], rs["type"])):
        bad.append("%s: entsize %d, expected %s" % (rs["name"], rs["entsize"],
                                                    REL_ENTSIZE.get((new.hdr["bits"], rs["type"]))))
    symtabs = [i for i, s in new.secs.items() if s["type"] == "SYMTAB"]
    if symtabs != [rs["link"]]:
        bad.append("%s: link %d, expected the .symtab index %s" % (rs["name"], rs["link"], symtabs))
    if rs["info"] != t:
        bad.append("%s: info %d, expected %d (__mcount_loc)" % (rs["name"], rs["info"], t))
    last = max(new.secs)
    if (t, r) != (last - 1, last):
        bad.append("__mcount_loc [%d] and %s [%d] are not the last two sections (last is %d)"
                   % (t, rs["name"], r, last))
    if len(new.secs) != len(orig.secs) + 2:
        bad.append("%d sections, expected %d + 2" % (len(new.secs), len(orig.secs)))
    return bad


def cmd_nops(new_path, nops_path):
    new = load(new_path)
    bad = []
    for name, start, want, rtype, roff in read_nops(nops_path):
        idx = new.by_name(name)
        if len(idx) != 1:
            bad.append("%s: %d sections with this name" % (name, len(idx)))
            continue
        idx = idx[0]
        got = new.data(idx)[start:start + len(want)]
        if got != want:
            bad.append("%s+%#x: expected %s, found %s" % (name, start, want.hex(" "), got.hex(" ")))
        types = []
        for rsec in new.secs.values():
            if rsec["type"] in ("REL", "RELA") and rsec["info"] == idx:
                types += [typ for off, _, typ, _ in new.relocs.get(rsec["offset"], [])
                          if off == roff]
        if types != [rtype]:
            bad.append("%s+%#x: relocation %s, expected %s" % (name, roff,
                                                              " ".join(types) or "none", rtype))
    return bad


def cmd_code(orig_path, new_path, nops_path=None):
    orig, new = load(orig_path), load(new_path)
    allowed = {}
    for name, start, want, _, _ in read_nops(nops_path):
        allowed.setdefault(name, []).append((start, start + len(want)))
    bad = []
    for idx, s in sorted(orig.secs.items()):
        if "X" not in s["flags"]:
            continue
        n = new.secs.get(idx)
        if n is None or n["name"] != s["name"] or n["size"] != s["size"]:
            bad.append("[%d] %s: missing, renamed or resized" % (idx, s["name"]))
            continue
        a, b = orig.data(idx), new.data(idx)
        if a == b:
            continue
        for i in range(len(a)):
            if a[i] != b[i] and not any(lo <= i < hi for lo, hi in allowed.get(s["name"], [])):
                bad.append("%s+%#x: code changed (%02x -> %02x) outside a NOP site"
                           % (s["name"], i, a[i], b[i]))
                break
    return bad


def cmd_relax(new_path):
    new = load(new_path)
    if new.hdr["machine"] != "RISC-V":
        return []
    syms = mcloc.parse_symbols(mcloc.readelf("-sW", new_path))
    moving = {}  # section index -> r_offsets where the linker may delete bytes
    for rsec in new.secs.values():
        if rsec["type"] in ("REL", "RELA"):
            for off, _, typ, _ in new.relocs.get(rsec["offset"], []):
                if typ in ("R_RISCV_RELAX", "R_RISCV_ALIGN"):
                    moving.setdefault(rsec["info"], []).append(off)
    bad = []
    for t in new.by_name("__mcount_loc"):
        for rsec in new.secs.values():
            if rsec["type"] not in ("REL", "RELA") or rsec["info"] != t:
                continue
            symtab = syms.get(new.secs[rsec["link"]]["name"], {})
            for off, sym, _, addend in new.relocs.get(rsec["offset"], []):
                if sym not in symtab or addend is None:
                    continue
                value, ndx, name = symtab[sym]
                site = value + addend
                hit = [r for r in moving.get(ndx, []) if value <= r < site]
                if hit:
                    bad.append("__mcount_loc+%#x: %s%+#x (%s+%#x) spans relaxable code at %s"
                               % (off, name or "symbol %d" % sym, addend, new.secs[ndx]["name"],
                                  site, ", ".join("%#x" % r for r in hit)))
    return bad


def cmd_all(orig_path, new_path, nops_path=None):
    bad = ["headers: " + b for b in cmd_headers(new_path, orig_path)]
    if nops_path:
        bad += ["nops: " + b for b in cmd_nops(new_path, nops_path)]
    bad += ["code: " + b for b in cmd_code(orig_path, new_path, nops_path)]
    bad += ["relax: " + b for b in cmd_relax(new_path)]
    return bad


def main(argv):
    cmds = {"headers": (cmd_headers, 2, 2), "nops": (cmd_nops, 2, 2), "code": (cmd_code, 2, 3),
            "relax": (cmd_relax, 1, 1), "all": (cmd_all, 2, 3)}
    if len(argv) < 2 or argv[1] not in cmds or not cmds[argv[1]][1] <= len(argv) - 2 <= cmds[argv[1]][2]:
        sys.stderr.write("usage: check.py headers NEW ORIG | nops NEW NOPS | code ORIG NEW [NOPS]"
                         " | relax NEW | all ORIG NEW [NOPS]\n")
        return 2
    try:
        bad = cmds[argv[1]][0](*argv[2:])
    except mcloc.Fail as e:
        bad = ["readelf: %s" % e]
    for line in bad:
        print(line)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
