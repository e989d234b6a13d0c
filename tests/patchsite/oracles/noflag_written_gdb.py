# SPDX-License-Identifier: GPL-2.0-only
# Which bytes of a traced program's code the runtime changed, for tests/patchsite/noflag_real.sh:
# `gdb -batch -x noflag_written_gdb.py --args PROG ARG...` with the runtime preloaded (the
# environment set by the caller) and NF_WRITTEN=FILE, FILE holding one object path a line.
# Stopped at exit_group, each object's executable PT_LOAD segments in memory are compared with
# the file's bytes (read here with the struct module, not by patchsite); prints
# "changed OBJECT ADDR" for each run of changed bytes (ADDR: the ELF virtual address, hex) and
# "compared OBJECT BYTES".  The caller checks every run against the proof's sites.
import os
import sys

import gdb

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from noflag_gdb_maps import exec_segments, load_bias  # noqa: E402


gdb.execute("set pagination off")
gdb.execute("set confirm off")
gdb.execute("handle all nostop noprint pass", to_string=True)	# the program's own signals
objs = [os.path.realpath(l.strip()) for l in open(os.environ["NF_WRITTEN"]) if l.strip()]
gdb.execute("catch syscall exit_group", to_string=True)
# The program's output to NF_OUT, not in gdb's.
shown = gdb.execute("show args", to_string=True)	# ... is "ARGS".  (quoted for the shell)
gdb.execute("run %s > %s 2> %s.err" % (shown[shown.index('"') + 1:shown.rindex('"')],
                                       os.environ["NF_OUT"], os.environ["NF_OUT"]), to_string=True)

bias = load_bias(objs)
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
