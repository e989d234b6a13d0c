# SPDX-License-Identifier: GPL-2.0-only
# Which bytes of a traced program's code the runtime changed, for tests/patchsite/noflag_real.sh:
# `gdb -batch -x noflag_written_gdb.py --args PROG ARG...` with the runtime preloaded (the
# environment set by the caller) and NF_WRITTEN=FILE, FILE holding one object path a line.
# Stopped at exit_group, each object's executable PT_LOAD segments in memory are compared with
# the file's bytes (read here with the struct module, not by patchsite); prints
# "changed OBJECT ADDR" for each run of changed bytes (ADDR: the ELF virtual address, hex) and
# "compared OBJECT BYTES".  The caller checks every run against the proof's sites.
import os
import struct

import gdb


def exec_segments(path):
    """(vaddr, offset, filesz) of each PT_LOAD with PF_X; 64-bit little-endian ELF only."""
    with open(path, "rb") as f:
        data = f.read(64)
        phoff, = struct.unpack_from("<Q", data, 0x20)
        phentsize, phnum = struct.unpack_from("<HH", data, 0x36)
        f.seek(phoff)
        ph = f.read(phentsize * phnum)
    out = []
    for i in range(phnum):
        p_type, p_flags, p_offset, p_vaddr, _, p_filesz = struct.unpack_from(
            "<IIQQQQ", ph, i * phentsize)
        if p_type == 1 and p_flags & 1:
            out.append((p_vaddr, p_offset, p_filesz))
    return out


gdb.execute("set pagination off")
gdb.execute("set confirm off")
objs = [os.path.realpath(l.strip()) for l in open(os.environ["NF_WRITTEN"]) if l.strip()]
gdb.execute("catch syscall exit_group", to_string=True)
# The program's output to NF_OUT, not in gdb's.
shown = gdb.execute("show args", to_string=True)	# ... is "ARGS".  (quoted for the shell)
gdb.execute("run %s > %s 2> %s.err" % (shown[shown.index('"') + 1:shown.rindex('"')],
                                       os.environ["NF_OUT"], os.environ["NF_OUT"]), to_string=True)

# Each object's load bias from its mapping of the segment holding code: the runtime maps the
# files it reads (read-only, at offset 0 too), so the first mapping at offset 0 may be that.
maps = []
for line in gdb.execute("info proc mappings", to_string=True).splitlines():
    f = line.split()
    if len(f) >= 6 and f[0].startswith("0x") and f[-1].startswith("/") and "x" in f[-2]:
        maps.append((os.path.realpath(f[-1]), int(f[0], 16), int(f[3], 16)))
bias = {}
for obj in objs:
    for vaddr, off, size in exec_segments(obj)[:1]:
        for path, start, moff in maps:
            if path == obj and moff == off & ~0xfff:
                bias[obj] = start - (vaddr & ~0xfff)

inf = gdb.selected_inferior()
for obj in objs:
    if obj not in bias:
        print("not-loaded %s" % obj)
        continue
    n = 0
    with open(obj, "rb") as f:
        for vaddr, off, size in exec_segments(obj):
            f.seek(off)
            want = f.read(size)
            got = bytes(inf.read_memory(bias[obj] + vaddr, size))
            n += size
            i = 0
            while i < size:
                if got[i] != want[i]:
                    j = i
                    while j < size and got[j] != want[j]:
                        j += 1
                    print("changed %s %x %d" % (obj, vaddr + i, j - i))
                    i = j
                else:
                    i += 1
    print("compared %s %d" % (obj, n))
