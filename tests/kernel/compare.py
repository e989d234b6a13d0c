#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Compare our recordmcount with the kernel's on the objects of a kernel build.

Called by tests/kernel/run.sh once per arch, after the build.

--mode wrap (arm, powerpc, mips): wrapper.sh kept, for each object Kbuild
  handed to scripts/recordmcount, SAVE/REL/{in,ref,ours}/BASE and rc.  The
  two outputs must agree on
    - the exit status,
    - the table, as sorted section+offset lines (tests/mcloc.py),
    - the bytes of every executable section (the NOPs),
    - every relocation outside the table (offset, type, symbol: R_*_NONE).
  A difference is "known" only when it is one the kernel's tool is known to
  get wrong AND ours agrees with an independent oracle made from the input's
  relocations (plus objdump for the instructions):
    mips-fake-leak  the MIPS "second reloc of a long call" filter keeps the
                    previous offset in a static variable across sections, so
                    a real `jal _mcount` at prev+4 in the next section is
                    dropped; ours must record exactly those, and objdump must
                    show each one as `jal` with R_MIPS_26 _mcount
    weak-only       "Cannot find symbol for section": the section holds only
                    weak symbols; the kernel's tool fails (the build would
                    stop), ours records the oracle's sites
  Everything else is a mismatch.  Ours must also equal that relocation oracle
  (hook symbol, call relocation type, traced section; MIPS: the long-call
  filter applied within each section) on every object, matched or not.

--mode cc (x86_64): gcc -mrecord-mcount made the table.  For each object with
  a __mcount_loc: copy it, strip the table (objcopy), run ours, and check that
  ours records gcc's sites within the traced sections, that gcc's other sites
  became `0f 1f 44 00 00` with R_X86_64_NONE, and that nothing else changed.

patchverify (if built) runs on each of our outputs; its errors and warnings
are counted.  In wrap mode it also runs on the kernel tool's outputs, where
its errors should be exactly the sites the kernel's tool dropped.  Exit status: 0 no mismatch, 1 a mismatch, 2 usage or setup.
"""

import argparse
import multiprocessing
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import mcloc  # noqa: E402  (tests/mcloc.py: readelf-based, shares nothing with the tool)

TRACED_EXACT = {".init.text", ".ref.text", ".sched.text", ".spinlock.text", ".irqentry.text",
                ".softirqentry.text", ".kprobes.text", ".cpuidle.text"}

# Hook symbols and call relocations per arch (the oracle's view, from the ABI).
OBJDUMP = {"arm": "arm-linux-gnueabihf-objdump", "powerpc": "powerpc64le-linux-gnu-objdump",
           "mips": "mips64el-linux-gnuabi64-objdump", "x86_64": "objdump"}
HOOKS = {
    "arm": ({"__gnu_mcount_nc", "mcount"}, {"R_ARM_CALL", "R_ARM_PC24", "R_ARM_THM_CALL"}),
    "powerpc": ({"_mcount", "._mcount"}, {"R_PPC64_REL24"}),
    "mips": ({"_mcount"}, {"R_MIPS_26"}),
    "x86_64": ({"__fentry__"}, {"R_X86_64_PLT32", "R_X86_64_PC32"}),
}
X86_NOP5 = bytes.fromhex("0f1f440000")


def traced(name):
    return name.startswith(".text") or name in TRACED_EXACT


class Obj:
    """What readelf says about one object, read once."""

    def __init__(self, path):
        self.path = path
        self.hdr = mcloc.parse_header(mcloc.readelf("-hW", path))
        self.secs = mcloc.parse_sections(mcloc.readelf("-SW", path))
        self.syms = mcloc.parse_symbols(mcloc.readelf("-sW", path))
        rela = {s["offset"]: s["type"] == "RELA" for s in self.secs.values()
                if s["type"] in ("REL", "RELA")}
        by_off = mcloc.parse_relocs(mcloc.readelf("-rW", path), self.hdr["bits"], rela)
        with open(path, "rb") as f:
            self.data = f.read()
        # reloc section index -> (target index, [(off, symname, type, addend)])
        self.rels = {}
        for i, s in sorted(self.secs.items()):
            if s["type"] not in ("REL", "RELA"):
                continue
            symtab = self.syms.get(self.secs.get(s["link"], {}).get("name"), {})
            lst = []
            for off, sym, typ, add in by_off.get(s["offset"], []):
                lst.append((off, symtab.get(sym, (0, 0, ""))[2] if sym else "", typ, add))
            self.rels[i] = (s["info"], lst)

    def exec_sections(self):
        return {i: s for i, s in self.secs.items()
                if s["type"] == "PROGBITS" and "X" in s["flags"]}

    def bytes_of(self, i):
        s = self.secs[i]
        return self.data[s["offset"]:s["offset"] + s["size"]]

    def symtab(self):
        return self.syms.get(".symtab", {})


def table(path):
    lines, problems = mcloc.table(path, "__mcount_loc", True)
    return sorted(lines, key=mcloc.sort_key), problems


def site(name, off):
    return "%s+%#x" % (name, off)


def oracle(obj, arch, leak):
    """The sites the relocations call for.  leak=True replays the kernel's MIPS
    filter with its static offset kept across sections (recordmcount.h:177-189)."""
    names, types = HOOKS[arch]
    out = []
    old = None
    for ridx, (tidx, rels) in sorted(obj.rels.items()):
        t = obj.secs.get(tidx)
        if not t or t["type"] != "PROGBITS" or "X" not in t["flags"] or not traced(t["name"]):
            continue
        if not leak:
            old = None
        for off, sname, typ, _ in rels:
            if sname.lstrip(".") not in {n.lstrip(".") for n in names} and sname != "__fentry__":
                continue
            if arch == "mips":
                fake = old is not None and off - old == 4
                old = off
                if fake:
                    continue
            elif typ not in types:
                continue
            out.append(site(t["name"], off))
    return sorted(out, key=mcloc.sort_key)


def objdump_insns(arch, path, secname):
    """offset -> (mnemonic text, [reloc lines]) for one section, from objdump -dr."""
    p = subprocess.run([OBJDUMP[arch], "-dr", "-j", secname, path], capture_output=True, text=True,
                       env=dict(os.environ, LC_ALL="C"))
    insns = {}
    last = None
    for line in p.stdout.splitlines():
        m = re.match(r"^\s+([0-9a-f]+):\s+((?:[0-9a-f]{2,8} )+)\s*(.*)$", line)
        if m:
            last = int(m.group(1), 16)
            insns[last] = (m.group(3).strip(), [])
            continue
        m = re.match(r"^\s+([0-9a-f]+): (R_\S+)\s+(\S+)", line)
        if m and last is not None:
            insns[last][1].append((int(m.group(1), 16), m.group(2), m.group(3)))
    return insns


def weak_only(obj, secname):
    """True when no local or global symbol (the kernel's candidates) is defined in SECNAME."""
    idx = [i for i, s in obj.secs.items() if s["name"] == secname]
    rd = mcloc.readelf("-sW", obj.path)
    for line in rd.splitlines():
        f = line.split()
        if len(f) >= 7 and f[0].endswith(":") and f[6].isdigit() and int(f[6]) in idx:
            if f[4] in ("LOCAL", "GLOBAL"):
                return False
    return True


def reloc_diff(a, b, skip):
    """Relocations outside the table that differ (offset, symbol, type), per section."""
    out = []
    for ridx in sorted(set(a.rels) | set(b.rels)):
        if ridx in skip:
            continue
        ta, la = a.rels.get(ridx, (None, []))
        tb, lb = b.rels.get(ridx, (None, []))
        if ta is None or tb is None or a.secs[ridx]["name"] != b.secs[ridx]["name"]:
            out.append("relocation section %d only in one output" % ridx)
            continue
        name = a.secs[ridx]["name"]
        if len(la) != len(lb):
            out.append("%s: %d vs %d relocations" % (name, len(la), len(lb)))
            continue
        for x, y in zip(la, lb):
            if x[:3] != y[:3] or x[3] != y[3]:
                out.append("%s+%#x: kernel %s %s, ours %s %s" % (name, x[0], x[2], x[1],
                                                                y[2], y[1]))
    return out


def nops(inp, out):
    """Calls ours turned into NOPs: relocations that became R_*_NONE."""
    n = 0
    for ridx, (_, li) in inp.rels.items():
        lo = out.rels.get(ridx, (None, []))[1]
        n += sum(1 for x, y in zip(li, lo) if x[2] != y[2] and y[2].endswith("_NONE"))
    return n


def table_rel_sections(obj):
    t = {i for i, s in obj.secs.items() if s["name"] == "__mcount_loc"}
    return {i for i, (tidx, _) in obj.rels.items() if tidx in t}


def exec_diff(a, b):
    out = []
    ea, eb = a.exec_sections(), b.exec_sections()
    for i in sorted(set(ea) | set(eb)):
        if i not in ea or i not in eb or ea[i]["name"] != eb[i]["name"]:
            out.append("executable section %d only in one output" % i)
            continue
        x, y = a.bytes_of(i), b.bytes_of(i)
        if x != y:
            offs = [o for o in range(min(len(x), len(y))) if x[o] != y[o]]
            first = offs[0] if offs else min(len(x), len(y))
            out.append("%s: bytes differ at %d places, first +%#x: kernel %s ours %s"
                       % (ea[i]["name"], len(offs), first, x[first:first + 8].hex(),
                          y[first:first + 8].hex()))
    return out


def run_patchverify(pv, path):
    if not pv:
        return 0, 0, []
    p = subprocess.run([pv, path], capture_output=True, text=True)
    text = (p.stdout + p.stderr).splitlines()
    s = subprocess.run([pv, "--summary", path], capture_output=True, text=True)
    m = re.search(r"(\d+) errors?, (\d+) warnings?", s.stdout + s.stderr)
    if not m:
        return 1, 0, ["patchverify: no summary (rc %d): %s" % (s.returncode,
                                                             (s.stdout + s.stderr).strip()[:200])]
    findings = [t for t in text if ": error:" in t or ": warning:" in t]
    return int(m.group(1)), int(m.group(2)), findings


def rerun_ours(ours, src, dst):
    """Run the current build of ours on a fresh copy of the saved input."""
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    shutil.copyfile(src, dst)
    p = subprocess.run([ours, dst], capture_output=True, text=True)
    return p.returncode


def check_wrap(job):
    rel, d, arch, ours, pv = job
    base = os.path.basename(rel)
    r = {"obj": rel, "sites": 0, "status": "match", "notes": [], "pv": (0, 0, [])}
    try:
        ref_rc, ours_rc = (int(x) for x in open(os.path.join(d, "rc")).read().split())
        inp, ref_p, ours_p = (os.path.join(d, k, base) for k in ("in", "ref", "ours"))
        if os.path.getmtime(ours) > os.path.getmtime(ours_p):
            ours_rc = rerun_ours(ours, inp, ours_p)
        ref_out = open(os.path.join(d, "ref.out"), errors="replace").read()
        a, b = Obj(ref_p), Obj(ours_p)
        ta, _ = table(ref_p)
        tb, shape = table(ours_p)
        r["sites"] = len(tb)
        mism, known = [], []
        if shape:
            mism += ["table shape: " + s for s in shape]
        if ref_rc != ours_rc:
            m = re.search(r"Cannot find symbol for section \d+: (\S+?)\.", ref_out)
            if ref_rc and not ours_rc and m and weak_only(a, m.group(1)) \
                    and tb == oracle(Obj(inp), arch, False):
                known.append("weak-only: kernel tool fails on %s (only weak symbols); ours "
                             "records the %d oracle sites" % (m.group(1), len(tb)))
                ta = tb
            else:
                mism.append("exit status: kernel %d, ours %d (%s)" % (ref_rc, ours_rc,
                                                                     ref_out.strip()[:200]))
        if ta != tb:
            extra = sorted(set(tb) - set(ta), key=mcloc.sort_key)
            missing = sorted(set(ta) - set(tb), key=mcloc.sort_key)
            i = Obj(inp)
            ok = False
            if arch == "mips" and not missing:
                ok = (ta == oracle(i, arch, True) and tb == oracle(i, arch, False))
                bysec = {}
                for s in extra:
                    n, _, o = s.rpartition("+")
                    bysec.setdefault(n, []).append(int(o, 16))
                for n, offs in bysec.items():
                    insns = objdump_insns(arch, inp, n)
                    for o in offs:
                        ins = insns.get(o)
                        if not ins or not ins[0].startswith("jal\t") and not ins[0].startswith(
                                "jal ") or not any(t == "R_MIPS_26" and s == "_mcount"
                                                   for _, t, s in ins[1]):
                            ok = False
                            mism.append("%s+%#x: not a jal _mcount per objdump: %r"
                                        % (n, o, ins))
                if ok:
                    known.append("mips-fake-leak: %d real `jal _mcount` the kernel dropped (%s)"
                                 % (len(extra), ", ".join(extra[:4])
                                    + (" ..." if len(extra) > 4 else "")))
            if not ok:
                mism.append("tables differ: extra in ours %s; missing in ours %s"
                            % (extra[:8], missing[:8]))
        mism += exec_diff(a, b)
        mism += reloc_diff(a, b, table_rel_sections(a) | table_rel_sections(b))
        i = Obj(inp)
        r["untraced"] = nops(i, b)
        # Independent of both tools: the input's call relocations in traced sections.
        want = oracle(i, arch, False)
        if tb != want and not (ref_rc == 0 and ours_rc and not tb):
            mism.append("ours differs from the relocation oracle: extra %s; missing %s"
                        % (sorted(set(tb) - set(want), key=mcloc.sort_key)[:8],
                           sorted(set(want) - set(tb), key=mcloc.sort_key)[:8]))
        r["pv"] = run_patchverify(pv, ours_p)
        # The kernel's output too: patchverify should see what the kernel's tool got wrong.
        r["pv_ref"] = run_patchverify(pv, ref_p)[0] if pv and not ref_rc else 0
        r["notes"] = mism + known
        r["status"] = "mismatch" if mism else "known" if known else "match"
    except Exception as e:  # noqa: BLE001 - one bad object must not hide the others
        r["status"] = "mismatch"
        r["notes"].append("compare failed: %s: %s" % (type(e).__name__, e))
    return r


def check_cc(job):
    rel, objpath, save, arch, ours, pv = job
    base = os.path.basename(rel)
    d = os.path.join(save, rel)
    r = {"obj": rel, "sites": 0, "status": "match", "notes": [], "pv": (0, 0, [])}
    try:
        gcc_p, inp, ours_p = (os.path.join(d, k, base) for k in ("gcc", "in", "ours"))
        fresh = (os.path.exists(ours_p) and os.path.getmtime(ours_p) >= os.path.getmtime(objpath)
                 and os.path.getmtime(ours_p) >= os.path.getmtime(ours))
        if not fresh:
            for k in ("gcc", "in", "ours"):
                os.makedirs(os.path.join(d, k), exist_ok=True)
            shutil.copyfile(objpath, gcc_p)
            subprocess.run(["objcopy", "--remove-section=__mcount_loc",
                            "--remove-section=.rela__mcount_loc", gcc_p, inp], check=True)
            shutil.copyfile(inp, ours_p)
            p = subprocess.run([ours, ours_p], capture_output=True, text=True)
            open(os.path.join(d, "rc"), "w").write("%d\n%s" % (p.returncode, p.stderr))
        rc_text = open(os.path.join(d, "rc")).read()
        rc = int(rc_text.split()[0])
        g, _ = table(gcc_p)
        tb, shape = table(ours_p)
        r["sites"] = len(tb)
        want = [s for s in g if traced(s.rpartition("+")[0])]
        untraced = [s for s in g if not traced(s.rpartition("+")[0])]
        mism = []
        if rc:
            mism.append("ours failed (rc %d): %s" % (rc, rc_text.strip()[:200]))
        mism += ["table shape: " + s for s in shape]
        if tb != want:
            mism.append("tables differ: extra in ours %s; missing in ours %s"
                        % (sorted(set(tb) - set(want))[:8], sorted(set(want) - set(tb))[:8]))
        a, b = Obj(inp), Obj(ours_p)
        # Expected after ours: each untraced site NOPed, its reloc R_X86_64_NONE.
        nop_at = {}
        for s in untraced:
            n, _, o = s.rpartition("+")
            nop_at.setdefault(n, set()).add(int(o, 16))
        ea, eb = a.exec_sections(), b.exec_sections()
        for i in sorted(set(ea) | set(eb)):
            if i not in ea or i not in eb:
                mism.append("executable section %d only in one file" % i)
                continue
            name = ea[i]["name"]
            x, y = bytearray(a.bytes_of(i)), b.bytes_of(i)
            for o in nop_at.get(name, ()):
                if y[o:o + 5] != X86_NOP5:
                    mism.append("%s+%#x: expected 5-byte NOP, found %s" % (name, o,
                                                                          y[o:o + 5].hex(" ")))
                x[o:o + 5] = y[o:o + 5]
            if bytes(x) != y:
                offs = [o for o in range(min(len(x), len(y))) if x[o] != y[o]]
                mism.append("%s: %d unexpected byte changes, first +%#x" % (
                    name, len(offs), offs[0] if offs else 0))
        skip = table_rel_sections(b)
        for ridx in sorted(set(a.rels) | set(b.rels)):
            if ridx in skip:
                continue
            ta, la = a.rels.get(ridx, (None, []))
            tb2, lb = b.rels.get(ridx, (None, []))
            if ta is None or tb2 is None:
                mism.append("relocation section %d only in one file" % ridx)
                continue
            tname = a.secs[ta]["name"]
            for x, y in zip(la, lb):
                if x == y:
                    continue
                if (x[0] == y[0] and x[1] == y[1] and y[2] == "R_X86_64_NONE"
                        and x[0] - 1 in nop_at.get(tname, ())):
                    continue
                mism.append("%s+%#x: reloc %s %s became %s %s" % (tname, x[0], x[2], x[1],
                                                                  y[2], y[1]))
            if len(la) != len(lb):
                mism.append("%s: %d vs %d relocations" % (tname, len(la), len(lb)))
        for n, offs in nop_at.items():
            tidx = [i for i, s in b.secs.items() if s["name"] == n]
            have = {(x[0], x[2]) for ri, (t, lst) in b.rels.items() if t in tidx for x in lst}
            for o in offs:
                if (o + 1, "R_X86_64_NONE") not in have:
                    mism.append("%s+%#x: reloc at the call is not R_X86_64_NONE" % (n, o))
        r["pv"] = run_patchverify(pv, ours_p)
        r["notes"] = mism + (["%d untraced gcc sites NOPed (%s)" % (len(untraced),
                                                                ", ".join(untraced[:3]))]
                             if untraced and not mism else [])
        r["status"] = "mismatch" if mism else "match"
        r["untraced"] = len(untraced)
    except Exception as e:  # noqa: BLE001
        r["status"] = "mismatch"
        r["notes"].append("compare failed: %s: %s" % (type(e).__name__, e))
    return r


def is_rel_elf(path):
    try:
        with open(path, "rb") as f:
            h = f.read(18)
    except OSError:
        return False
    if len(h) < 18 or h[:4] != b"\x7fELF":
        return False
    return int.from_bytes(h[16:18], "little" if h[5] == 1 else "big") == 1


def has_table(path):
    out = subprocess.run(["readelf", "-SW", path], capture_output=True, text=True).stdout
    return " __mcount_loc " in out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mode", choices=("wrap", "cc"), required=True)
    ap.add_argument("--arch", required=True)
    ap.add_argument("--objtree", required=True)
    ap.add_argument("--save", required=True)
    ap.add_argument("--ours", required=True)
    ap.add_argument("--patchverify", default="")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--report", required=True)
    ap.add_argument("--summary", required=True)
    ap.add_argument("dirs", nargs="+")
    a = ap.parse_args()
    pv = a.patchverify if a.patchverify and os.access(a.patchverify, os.X_OK) else ""

    jobs = []
    for top in a.dirs:
        top = top.strip("/")
        if a.mode == "wrap":
            root = os.path.join(a.save, top)
            for dp, dn, fn in os.walk(root):
                if "rc" in fn and dp.endswith(".o"):
                    jobs.append((os.path.relpath(dp, a.save), dp, a.arch, a.ours, pv))
        else:
            root = os.path.join(a.objtree, top)
            for dp, dn, fn in os.walk(root):
                for f in fn:
                    p = os.path.join(dp, f)
                    if f.endswith(".o") and is_rel_elf(p) and has_table(p):
                        jobs.append((os.path.relpath(p, a.objtree), p, a.save, a.arch, a.ours,
                                     pv))
    jobs.sort()
    fn = check_wrap if a.mode == "wrap" else check_cc
    with multiprocessing.Pool(max(1, a.jobs)) as pool:
        results = pool.map(fn, jobs, chunksize=4)

    n = {"match": 0, "known": 0, "mismatch": 0}
    sites = pv_err = pv_warn = 0
    kinds = {}
    with open(a.report, "w") as rep:
        for r in results:
            n[r["status"]] += 1
            sites += r["sites"]
            e, w, findings = r["pv"]
            pv_err += e
            pv_warn += w
            if r["status"] != "match" or r["notes"] or findings:
                rep.write("%s %s (%d sites)\n" % (r["status"].upper(), r["obj"], r["sites"]))
                for note in r["notes"]:
                    rep.write("    %s\n" % note)
                    k = note.split(":")[0]
                    if r["status"] == "known" and k in ("mips-fake-leak", "weak-only"):
                        kinds[k] = kinds.get(k, 0) + 1
                for f in findings[:20]:
                    rep.write("    pv %s\n" % f)
        untraced = sum(r.get("untraced", 0) for r in results)
        pv_ref = sum(r.get("pv_ref", 0) for r in results)
        rep.write("\n%s: %d objects, %d sites, %d match, %d known, %d mismatch; patchverify "
                  "%d errors, %d warnings%s%s\n"
                  % (a.arch, len(results), sites, n["match"], n["known"], n["mismatch"],
                     pv_err, pv_warn, "" if pv else " (patchverify not built)",
                     "; %d untraced calls NOPed" % untraced))
        for k, v in sorted(kinds.items()):
            rep.write("known %s: %d objects\n" % (k, v))
        if pv and a.mode == "wrap":
            rep.write("patchverify on the kernel tool's outputs: %d errors\n" % pv_ref)
    with open(a.summary, "w") as f:
        f.write("%s %d %d %d %d %d %d %d %d" % (a.arch, len(results), sites, untraced, n["match"],
                                               n["known"], n["mismatch"], pv_err, pv_warn))
    print("   %s: %d objects, %d sites, %d NOPed, %d match, %d known, %d mismatch; patchverify "
          "%d errors, %d warnings" % (a.arch, len(results), sites, untraced, n["match"],
                                      n["known"], n["mismatch"], pv_err, pv_warn))
    for k, v in sorted(kinds.items()):
        print("     known %s: %d objects" % (k, v))
    if pv and a.mode == "wrap":
        print("     patchverify on the kernel tool's outputs: %d errors" % pv_ref)
    for r in results:
        if r["status"] == "mismatch":
            print("   MISMATCH %s: %s" % (r["obj"], "; ".join(r["notes"])[:300]))
    return 1 if n["mismatch"] or not results else 0


if __name__ == "__main__":
    sys.exit(main())
