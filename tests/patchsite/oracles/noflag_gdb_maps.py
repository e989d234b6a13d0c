# SPDX-License-Identifier: GPL-2.0-only
# Where gdb's inferior has an object's code, for tests/patchsite/oracles/noflag_count_gdb.py and
# noflag_written_gdb.py (imported by both, from gdb's Python).
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


def load_bias(objs):
    """{realpath: bias} from the mapping of each object's first code segment: the runtime
    maps the files it reads (read-only, at offset 0 too), so the first mapping at offset 0
    may be that; an ET_EXEC file's bias is 0."""
    maps = []
    for line in gdb.execute("info proc mappings", to_string=True).splitlines():
        f = line.split()
        if len(f) >= 6 and f[0].startswith("0x") and f[-1].startswith("/") and "x" in f[-2]:
            maps.append((os.path.realpath(f[-1]), int(f[0], 16), int(f[3], 16)))
    bias = {}
    for obj in objs:
        for vaddr, off, _ in exec_segments(obj)[:1]:
            for path, start, moff in maps:
                if path == obj and moff == off & ~0xfff:
                    bias[obj] = start - (vaddr & ~0xfff)
    return bias
