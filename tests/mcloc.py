#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Print the mcount table of a relocatable object as `section+0xoffset` lines.

An oracle-side normalizer for the golden tests: it reads only what binutils'
readelf prints (-hW, -SW, -sW, -rW and a hex dump of the table section) and
shares no code with the tool under test.  Each table word is resolved to the
section and offset it points at:

  RELA:  symbol value + r_addend
  REL:   symbol value + the word stored in the table (read in the file's byte
         order and word size)

so that entries made against section symbols, function symbols (with
positive or negative offsets), ELF32/ELF64, either byte order and any
r_info layout readelf understands (MIPS64 included) print the same way.

usage: mcloc.py [--section NAME] [--unsorted] [--strict] [--raw | --no-raw] file.o

  --section NAME  the table section (default __mcount_loc); every section
                  with that name is read
  --unsorted      keep table order instead of sorting the lines
  --strict        also check the shape of the table and fail (exit 1) when
                  it is off: every word has exactly one relocation, of the
                  absolute word type for the machine; RELA words hold 0; the
                  size is a multiple of the word size; no entry points
                  outside its section
  --raw           decode the table's relocation section from its hex dump
                  (`readelf -x`: Elf_Rel/Elf_Rela in the file's class and
                  byte order, MIPS64 r_info included) instead of reading
                  `readelf -rW`, which prints every relocation section and
                  takes minutes on MIPS objects of 68 000 sections.  The
                  default is --raw above 4096 sections, else --no-raw; the
                  two agree on every golden object.

Exit status: 0 fine (an object without a table prints nothing), 1 a --strict
finding or an unresolvable entry, 2 usage or readelf failure.
"""

import os
import re
import subprocess
import sys

READELF = os.environ.get("READELF", "readelf")

# Absolute word relocation types by machine, as numbers for --raw.
ABS_WORD_NUM = {
    "Advanced Micro Devices X86-64": {1: "R_X86_64_64"},
    "Intel 80386": {1: "R_386_32"},
    "ARM": {2: "R_ARM_ABS32"},
    "AArch64": {257: "R_AARCH64_ABS64"},
    "MIPS R3000": {2: "R_MIPS_32", 18: "R_MIPS_64"},
    "PowerPC": {1: "R_PPC_ADDR32"},
    "PowerPC64": {38: "R_PPC64_ADDR64"},
    "Sparc v9": {32: "R_SPARC_64"},
    "IBM S/390": {22: "R_390_64"},
    "Renesas / SuperH SH": {1: "R_SH_DIR32"},
    "RISC-V": {2: "R_RISCV_64"},
}

# Absolute word relocation per machine (readelf names), for --strict.
ABS_WORD = {
    "Advanced Micro Devices X86-64": {"R_X86_64_64"},
    "Intel 80386": {"R_386_32"},
    "ARM": {"R_ARM_ABS32"},
    "AArch64": {"R_AARCH64_ABS64"},
    "MIPS R3000": {"R_MIPS_32", "R_MIPS_64"},
    "PowerPC": {"R_PPC_ADDR32"},
    "PowerPC64": {"R_PPC64_ADDR64"},
    "Sparc v9": {"R_SPARC_64"},
    "IBM S/390": {"R_390_64"},
    "Renesas / SuperH SH": {"R_SH_DIR32"},
    "RISC-V": {"R_RISCV_64"},
}


class Fail(Exception):
    pass


def readelf(*args):
    env = dict(os.environ, LC_ALL="C")
    p = subprocess.run([READELF, *args], capture_output=True, text=True, env=env)
    if p.returncode != 0:
        raise Fail("readelf %s: %s" % (" ".join(args), p.stderr.strip()))
    return p.stdout


def parse_header(text):
    h = {}
    for line in text.splitlines():
        k, sep, v = line.partition(":")
        if sep:
            h[k.strip()] = v.strip()
    cls = h.get("Class", "")
    data = h.get("Data", "")
    if cls not in ("ELF32", "ELF64"):
        raise Fail("unknown class %r" % cls)
    return {
        "bits": 64 if cls == "ELF64" else 32,
        "big": "big endian" in data,
        "machine": h.get("Machine", ""),
    }


# The right-hand columns of a `readelf -SW` line: Address Off Size ES Flg Lk Inf Al.
SEC_TAIL = re.compile(r"\s([0-9a-f]+) ([0-9a-f]+) ([0-9a-f]+) ([0-9a-f]{2}) +([A-Za-z]*) +"
                      r"(\d+) +(\d+) +(\d+)\s*$")
SEC_HEAD = re.compile(r"^\s*\[\s*(\d+)\] ")


def parse_sections(text):
    """Index -> dict(name, type, offset, size, entsize, flags, link, info, align)."""
    secs = {}
    for line in text.splitlines():
        m = SEC_HEAD.match(line)
        if not m:
            continue
        t = SEC_TAIL.search(line)
        if not t:
            raise Fail("cannot parse section line: %r" % line)
        rest = line[m.end():t.start()]
        # The name starts right after "] " (empty for section 0); the type
        # fills the rest and may hold spaces ("SYMTAB SECTION INDICES").
        name, _, typ = rest.partition(" ")
        secs[int(m.group(1))] = {
            "name": name,
            "type": typ.strip(),
            "offset": int(t.group(2), 16),
            "size": int(t.group(3), 16),
            "entsize": int(t.group(4), 16),
            "flags": t.group(5),
            "link": int(t.group(6)),
            "info": int(t.group(7)),
            "align": int(t.group(8)),
        }
    return secs


SYM_TABLE = re.compile(r"^Symbol table '([^']*)'")
SYM_LINE = re.compile(r"^\s*(\d+): ([0-9a-f]+)\s+(\S+) (\S+)\s+(\S+)\s+(\S+)"
                      r"(?:\s+\[[^\]]*\])?\s+(\S+) ?(.*)$")


def parse_symbols(text):
    """Table name -> {index: (value, ndx, name)}; ndx is an int or 'UND'/'ABS'/'COM'."""
    tables = {}
    cur = None
    for line in text.splitlines():
        m = SYM_TABLE.match(line)
        if m:
            cur = tables.setdefault(m.group(1), {})
            continue
        m = SYM_LINE.match(line)
        if m and cur is not None:
            ndx = m.group(7)
            cur[int(m.group(1))] = (int(m.group(2), 16), int(ndx) if ndx.isdigit() else ndx,
                                    m.group(8))
    return tables


REL_HEAD = re.compile(r"^Relocation section '([^']*)' at offset (0x[0-9a-f]+) contains")
REL_LINE = re.compile(r"^([0-9a-f]+)\s+([0-9a-f]+)\s+(\S+)(.*)$")
ADDEND = re.compile(r"([+-]) ([0-9a-f]+)\s*$")


def parse_relocs(text, bits, rela_by_offset):
    """Section file offset -> list of (r_offset, sym, type, addend or None)."""
    out = {}
    cur = None
    for line in text.splitlines():
        m = REL_HEAD.match(line)
        if m:
            cur = out.setdefault(int(m.group(2), 16), [])
            is_rela = rela_by_offset.get(int(m.group(2), 16), False)
            continue
        if cur is None or not line or line[0] == " ":
            continue  # headings, and MIPS64 "Type2:"/"Type3:" continuation lines
        m = REL_LINE.match(line)
        if not m:
            continue
        info = int(m.group(2), 16)
        sym = info >> 32 if bits == 64 else info >> 8
        addend = None
        if is_rela:
            a = ADDEND.search(m.group(4))
            if a:
                addend = int(a.group(2), 16) * (-1 if a.group(1) == "-" else 1)
            else:
                # Symbol 0: readelf prints the bare addend.
                tail = m.group(4).split()
                addend = int(tail[-1], 16) if tail else 0
        cur.append((int(m.group(1), 16), sym, m.group(3), addend))
    return out


def parse_relocs_raw(data, hdr, is_rela):
    """Decode one relocation section's bytes: [(r_offset, sym, type name, addend)]."""
    order = "big" if hdr["big"] else "little"
    w = hdr["bits"] // 8
    ent = w * (3 if is_rela else 2)
    names = ABS_WORD_NUM.get(hdr["machine"], {})
    out = []
    if len(data) % ent:
        raise Fail("relocation section size %#x is not a multiple of %d" % (len(data), ent))
    for i in range(0, len(data), ent):
        r_offset = int.from_bytes(data[i:i + w], order)
        info = data[i + w:i + 2 * w]
        if hdr["bits"] == 32:
            v = int.from_bytes(info, order)
            sym, typ = v >> 8, v & 0xff
        elif hdr["machine"] == "MIPS R3000":
            # r_sym (32 bits), r_ssym, r_type3, r_type2, r_type (8 bits each)
            sym, typ = int.from_bytes(info[:4], order), info[7]
        else:
            v = int.from_bytes(info, order)
            sym, typ = v >> 32, v & 0xffffffff
        addend = int.from_bytes(data[i + 2 * w:i + 3 * w], order, signed=True) if is_rela else None
        out.append((r_offset, sym, names.get(typ, "type %d" % typ), addend))
    return out


HEX_LINE = re.compile(r"^\s+0x([0-9a-f]+) ")


def section_bytes(path, index, size):
    text = readelf("-x", str(index), path)
    data = bytearray()
    for line in text.splitlines():
        m = HEX_LINE.match(line)
        if not m:
            continue
        # Four groups of 8 hex digits, then the ASCII column.
        groups = line[m.end():m.end() + 35]
        data += bytes.fromhex(groups.replace(" ", ""))
    if len(data) != size:
        raise Fail("hex dump of section %d: %d bytes, expected %d" % (index, len(data), size))
    return bytes(data)


def table(path, want, strict, raw=None):
    hdr = parse_header(readelf("-hW", path))
    secs = parse_sections(readelf("-SW", path))
    syms = parse_symbols(readelf("-sW", path))
    if raw is None:
        raw = len(secs) > 4096
    if raw:
        relocs = {}
        for ridx, rsec in secs.items():
            if rsec["type"] in ("REL", "RELA") and secs.get(rsec["info"], {}).get("name") == want:
                data = section_bytes(path, ridx, rsec["size"]) if rsec["size"] else b""
                relocs[rsec["offset"]] = parse_relocs_raw(data, hdr, rsec["type"] == "RELA")
    else:
        rela_by_offset = {s["offset"]: s["type"] == "RELA" for s in secs.values()
                          if s["type"] in ("REL", "RELA")}
        relocs = parse_relocs(readelf("-rW", path), hdr["bits"], rela_by_offset)
    word = hdr["bits"] // 8
    order = "big" if hdr["big"] else "little"
    abs_types = ABS_WORD.get(hdr["machine"])
    problems = []
    lines = []

    for tidx in sorted(i for i, s in secs.items() if s["name"] == want):
        tsec = secs[tidx]
        data = None
        if tsec["type"] != "NOBITS" and tsec["size"]:
            data = section_bytes(path, tidx, tsec["size"])
        if tsec["size"] % word:
            problems.append("%s: size %#x is not a multiple of %d" % (want, tsec["size"], word))
        covered = {}
        for ridx, rsec in sorted(secs.items()):
            if rsec["type"] not in ("REL", "RELA") or rsec["info"] != tidx:
                continue
            symtab = syms.get(secs.get(rsec["link"], {}).get("name"), {})
            for r_offset, sym, rtype, addend in relocs.get(rsec["offset"], []):
                covered[r_offset] = covered.get(r_offset, 0) + 1
                if abs_types is not None and rtype not in abs_types:
                    problems.append("%s+%#x: relocation %s is not an absolute word"
                                    % (want, r_offset, rtype))
                stored = 0
                if data is not None and r_offset + word <= len(data):
                    stored = int.from_bytes(data[r_offset:r_offset + word], order, signed=True)
                if addend is None:
                    addend = stored
                elif stored:
                    problems.append("%s+%#x: RELA table word holds %#x, not 0"
                                    % (want, r_offset, stored))
                if sym == 0:
                    lines.append((r_offset, "*ABS*", addend))
                    continue
                if sym not in symtab:
                    raise Fail("%s+%#x: symbol %d not in %s" % (want, r_offset, sym,
                                                                secs[rsec["link"]]["name"]))
                value, ndx, sname = symtab[sym]
                if isinstance(ndx, int) and ndx in secs:
                    target = secs[ndx]
                    off = value + addend
                    if off < 0 or off >= target["size"]:
                        problems.append("%s+%#x: %s%+#x is outside %s (size %#x)"
                                        % (want, r_offset, sname, addend, target["name"],
                                           target["size"]))
                    lines.append((r_offset, target["name"], off))
                else:
                    lines.append((r_offset, "*%s:%s*" % (ndx, sname), value + addend))
        for off in range(0, tsec["size"] - tsec["size"] % word, word):
            n = covered.get(off, 0)
            if n != 1:
                problems.append("%s+%#x: %d relocations for this word" % (want, off, n))
        extra = sorted(o for o in covered if o % word or o >= tsec["size"])
        for off in extra:
            problems.append("%s+%#x: relocation not on a table word" % (want, off))

    lines.sort(key=lambda t: t[0])
    text = ["%s%s%#x" % (name, "-" if off < 0 else "+", abs(off)) for _, name, off in lines]
    return text, problems if strict else []


def main(argv):
    want = "__mcount_loc"
    sort = True
    strict = False
    raw = None
    args = []
    it = iter(argv[1:])
    for a in it:
        if a == "--section":
            want = next(it, None)
            if want is None:
                break
        elif a == "--unsorted":
            sort = False
        elif a == "--strict":
            strict = True
        elif a in ("--raw", "--no-raw"):
            raw = a == "--raw"
        elif a.startswith("-"):
            args = []
            break
        else:
            args.append(a)
    if len(args) != 1 or want is None:
        sys.stderr.write("usage: mcloc.py [--section NAME] [--unsorted] [--strict] "
                         "[--raw | --no-raw] file.o\n")
        return 2
    try:
        lines, problems = table(args[0], want, strict, raw)
    except Fail as e:
        sys.stderr.write("mcloc.py: %s: %s\n" % (args[0], e))
        return 2
    if sort:
        lines.sort(key=sort_key)
    for line in lines:
        print(line)
    for p in problems:
        sys.stderr.write("mcloc.py: %s: %s\n" % (args[0], p))
    return 1 if problems else 0


def sort_key(line):
    """Sort by section name, then numerically by offset (as `sort` cannot)."""
    m = re.match(r"^(.*)([+-])0x([0-9a-f]+)$", line)
    if not m:
        return (line, 0)
    off = int(m.group(3), 16)
    return (m.group(1), -off if m.group(2) == "-" else off)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
