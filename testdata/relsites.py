#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Oracle (c): profiling-hook call sites from an object's relocation list.

Reads `readelf -hW -SW -rW` (and hex dumps of code sections to confirm each
call's opcode), keeps the relocations against a hook symbol whose type is
the call relocation of the machine, and maps each to the first byte of the
call by the documented encoding:

  x86-64  e8 rel32 (PC32/PLT32)             site = r_offset - 1
          ff 15 disp32 (GOTPCRELX, PIE)     site = r_offset - 2
  i386    e8 rel32 (PC32/PLT32)             site = r_offset - 1
          ff 93 disp32 (GOT32X, PIE -pg)    site = r_offset - 2
  s390x   brasl c0 r5 imm32 (PLT32DBL)      site = r_offset - 2
  arm     bl (CALL/PC24), thumb bl (THM_CALL), aarch64 bl (CALL26),
  ppc bl (REL24), sparc call (WDISP30), riscv auipc+jalr (CALL[_PLT]):
                                            site = r_offset
  mips    jal (R_MIPS_26): site = r_offset; -mlong-calls: the first
          relocation of the lui/addiu (HI16, LO16) or the 64-bit
          HIGHEST, HI16, HIGHER, LO16 sequence
  sh      the literal-pool word holding &mcount (R_SH_DIR32), as the
          kernel's ftrace patches that word: site = r_offset

Nothing here comes from the tool under test.  It shares nothing with it.

usage: relsites.py [--traced | --untraced | --nops | --all] file.o

  --traced     only sites in sections recordmcount records (prefix .text,
               and .init.text .ref.text .sched.text .spinlock.text
               .irqentry.text .softirqentry.text .kprobes.text .cpuidle.text)
  --untraced   only sites in the other executable sections
  --nops       for untraced sites on x86-64, i386, arm and aarch64, print
               what the tool must write there instead of the site:
               `section+0xstart hexbytes R_TYPE_NONE@0xr_offset`
  --all        all three lists in one pass, each line tagged "T " (traced),
               "U " (untraced) or "N " (nops): readelf -rW is slow on big
               MIPS objects
Output is sorted by section name, then offset.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
import mcloc  # noqa: E402  (readelf parsers only)

HOOKS = {"mcount", "_mcount", "._mcount", "__fentry__", "__gnu_mcount_nc"}
TRACED = {".init.text", ".ref.text", ".sched.text", ".spinlock.text", ".irqentry.text",
          ".softirqentry.text", ".kprobes.text", ".cpuidle.text"}

# NOP byte sequences, in file order, as the kernel's recordmcount and ftrace use them.
NOP_X86_64 = "0f1f440000"        # nopl 0x0(%rax,%rax,1)
NOP6_X86_64 = "660f1f440000"     # nopw 0x0(%rax,%rax,1), for the 6-byte ff 15 call
NOP_I386 = "3e8d742600"          # ds lea 0x0(%esi,%eiz,1),%esi
NOP6_I386 = "8db600000000"       # lea 0x0(%esi),%esi, for the 6-byte ff 93 call
NOP_ARM_LE = "0000a0e1"          # mov r0, r0 (e1a00000)
NOP_THUMB_LE = "00bf"            # nop (bf00)
NOP_A64_LE = "1f2003d5"          # nop (d503201f)
PUSH_LR_ARM_LE = "04e02de5"      # push {lr} (e52de004)
PUSH_LR_THUMB_LE = "00b5"        # push {lr} (b500)


def traced(name):
    return name.startswith(".text") or name in TRACED


class Obj:
    def __init__(self, path):
        self.path = path
        self.hdr = mcloc.parse_header(mcloc.readelf("-hW", path))
        self.secs = mcloc.parse_sections(mcloc.readelf("-SW", path))
        rela = {s["offset"]: s["type"] == "RELA" for s in self.secs.values()
                if s["type"] in ("REL", "RELA")}
        self.relocs = mcloc.parse_relocs(mcloc.readelf("-rW", path), self.hdr["bits"], rela)
        self.symnames = {}
        for table in mcloc.parse_symbols(mcloc.readelf("-sW", path)).values():
            for idx, (_, _, name) in table.items():
                self.symnames.setdefault(idx, name)
        self._bytes = {}

    def code(self, idx):
        if idx not in self._bytes:
            with open(self.path, "rb") as f:
                f.seek(self.secs[idx]["offset"])
                self._bytes[idx] = f.read(self.secs[idx]["size"])
        return self._bytes[idx]


def hook_relocs(obj):
    """Yield (code section index, [(r_offset, type)...] sorted) per reloc section."""
    for idx, rsec in sorted(obj.secs.items()):
        if rsec["type"] not in ("REL", "RELA"):
            continue
        target = obj.secs.get(rsec["info"])
        if target is None or "X" not in target["flags"] or target["type"] != "PROGBITS":
            continue
        rels = [(off, typ) for off, sym, typ, _ in obj.relocs.get(rsec["offset"], [])
                if sym and obj.symnames.get(sym) in HOOKS]
        if rels:
            yield rsec["info"], sorted(rels)


def expect(cond, what):
    if not cond:
        raise mcloc.Fail(what)


def sites(obj):
    """[(section index, site, r_offset, type, kind)], kind names the encoding."""
    machine = obj.hdr["machine"]
    out = []
    for sec, rels in hook_relocs(obj):
        code = obj.code(sec)
        name = obj.secs[sec]["name"]
        pending = 0  # MIPS: relocations left in the current long-call sequence
        for off, typ in rels:
            where = "%s+%#x (%s)" % (name, off, typ)
            if machine == "Advanced Micro Devices X86-64":
                if typ in ("R_X86_64_PC32", "R_X86_64_PLT32"):
                    expect(off >= 1 and code[off - 1] == 0xe8, where + ": not after an e8 call")
                    out.append((sec, off - 1, off, typ, "x86_64"))
                elif typ in ("R_X86_64_GOTPCRELX", "R_X86_64_REX_GOTPCRELX",
                             "R_X86_64_GOTPCREL"):
                    expect(off >= 2 and code[off - 2:off] == b"\xff\x15",
                           where + ": not after ff 15")
                    out.append((sec, off - 2, off, typ, "x86_64_got"))
                else:
                    raise mcloc.Fail(where + ": unexpected type")
            elif machine == "Intel 80386":
                if typ in ("R_386_PC32", "R_386_PLT32"):
                    expect(off >= 1 and code[off - 1] == 0xe8, where + ": not after an e8 call")
                    out.append((sec, off - 1, off, typ, "i386"))
                elif typ in ("R_386_GOT32X", "R_386_GOT32"):
                    expect(off >= 2 and code[off - 2:off] == b"\xff\x93",
                           where + ": not after ff 93")
                    out.append((sec, off - 2, off, typ, "i386_got"))
                else:
                    raise mcloc.Fail(where + ": unexpected type")
            elif machine == "IBM S/390":
                expect(typ in ("R_390_PLT32DBL", "R_390_PC32DBL"), where + ": unexpected type")
                expect(off >= 2 and code[off - 2] == 0xc0 and code[off - 1] & 0x0f == 5,
                       where + ": not in a brasl")
                out.append((sec, off - 2, off, typ, "s390"))
            elif machine == "ARM":
                if typ in ("R_ARM_CALL", "R_ARM_PC24"):
                    out.append((sec, off, off, typ, "arm"))
                elif typ == "R_ARM_THM_CALL":
                    out.append((sec, off, off, typ, "thumb"))
                else:
                    raise mcloc.Fail(where + ": unexpected type")
            elif machine == "AArch64":
                expect(typ == "R_AARCH64_CALL26", where + ": unexpected type")
                out.append((sec, off, off, typ, "aarch64"))
            elif machine in ("PowerPC", "PowerPC64"):
                expect(typ in ("R_PPC_REL24", "R_PPC64_REL24", "R_PPC64_REL24_NOTOC"),
                       where + ": unexpected type")
                out.append((sec, off, off, typ, "ppc"))
            elif machine == "Sparc v9":
                expect(typ in ("R_SPARC_WDISP30", "R_SPARC_WPLT30"), where + ": unexpected type")
                out.append((sec, off, off, typ, "sparc"))
            elif machine == "RISC-V":
                expect(typ in ("R_RISCV_CALL", "R_RISCV_CALL_PLT"), where + ": unexpected type")
                out.append((sec, off, off, typ, "riscv"))
            elif machine == "Renesas / SuperH SH":
                expect(typ == "R_SH_DIR32", where + ": unexpected type")
                out.append((sec, off, off, typ, "sh"))
            elif machine == "MIPS R3000":
                if pending:
                    expect(typ in ("R_MIPS_HI16", "R_MIPS_HIGHER", "R_MIPS_LO16"),
                           where + ": inside a long-call sequence")
                    pending -= 1
                elif typ == "R_MIPS_26":
                    out.append((sec, off, off, typ, "mips"))
                elif typ == "R_MIPS_HIGHEST":
                    pending = 3
                    out.append((sec, off, off, typ, "mips"))
                elif typ == "R_MIPS_HI16":
                    pending = 1
                    out.append((sec, off, off, typ, "mips"))
                else:
                    raise mcloc.Fail(where + ": unexpected type")
            else:
                raise mcloc.Fail("unsupported machine %r" % machine)
        expect(pending == 0, "%s: long-call sequence cut short" % name)
    return out


def nop_line(obj, sec, site, r_offset, kind):
    code = obj.code(sec)
    name = obj.secs[sec]["name"]
    big = obj.hdr["big"]
    if kind == "x86_64":
        start, nop, none = site, NOP_X86_64, "R_X86_64_NONE"
    elif kind == "x86_64_got":
        start, nop, none = site, NOP6_X86_64, "R_X86_64_NONE"
    elif kind == "i386":
        start, nop, none = site, NOP_I386, "R_386_NONE"
    elif kind == "i386_got":
        start, nop, none = site, NOP6_I386, "R_386_NONE"
    elif kind == "aarch64" and not big:
        start, nop, none = site, NOP_A64_LE, "R_AARCH64_NONE"
    elif kind == "arm" and not big:
        # push {lr}; bl __gnu_mcount_nc  ->  two mov r0, r0
        if site < 4 or code[site - 4:site].hex() != PUSH_LR_ARM_LE:
            return None
        start, nop, none = site - 4, NOP_ARM_LE * 2, "R_ARM_NONE"
    elif kind == "thumb" and not big:
        # push {lr}; bl.w __gnu_mcount_nc  ->  three 16-bit nops
        if site < 2 or code[site - 2:site].hex() != PUSH_LR_THUMB_LE:
            return None
        start, nop, none = site - 2, NOP_THUMB_LE * 3, "R_ARM_NONE"
    else:
        return None
    return "%s+%#x %s %s@%#x" % (name, start, nop, none, r_offset)


def main(argv):
    want = None
    args = []
    for a in argv[1:]:
        if a in ("--traced", "--untraced", "--nops", "--all"):
            want = a
        elif a.startswith("-"):
            args = []
            break
        else:
            args.append(a)
    if len(args) != 1:
        sys.stderr.write("usage: relsites.py [--traced | --untraced | --nops | --all] file.o\n")
        return 2
    try:
        obj = Obj(args[0])
        found = sites(obj)
    except mcloc.Fail as e:
        sys.stderr.write("relsites.py: %s: %s\n" % (args[0], e))
        return 1
    lists = {"T": [], "U": [], "N": []}
    for sec, site, r_offset, typ, kind in found:
        name = obj.secs[sec]["name"]
        if traced(name):
            lists["T"].append("%s+%#x" % (name, site))
            continue
        lists["U"].append("%s+%#x" % (name, site))
        line = nop_line(obj, sec, site, r_offset, kind)
        if line:
            lists["N"].append(line)
    for lst in lists.values():
        lst.sort(key=lambda l: mcloc.sort_key(l.split()[0]))
    pick = {None: "TU", "--traced": "T", "--untraced": "U", "--nops": "N", "--all": "TUN"}[want]
    if want is None:
        for line in sorted(lists["T"] + lists["U"], key=mcloc.sort_key):
            print(line)
        return 0
    for tag in pick:
        for line in lists[tag]:
            print(("%s %s" % (tag, line)) if want == "--all" else line)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
