# SPDX-License-Identifier: GPL-2.0-only
# gdb's call counts for tests/patchsite/noflag_real.sh: the oracle of how often a function of
# a stripped Debian program or library ran.  Sourced by `gdb -batch -x noflag_count_gdb.py
# --args PROG ARG...` with NF_COUNT=FILE, FILE holding "OBJECT ENTRY NAME" lines (OBJECT a
# path, ENTRY the ELF virtual address in hex, NAME as the report shows it).  Prints
# "count NAME HITS" for each at the program's exit.
#
# A breakpoint at the entry with an ignore count of 2^30 never stops the program and still
# counts every execution.  The objects are found once the program reaches its ELF entry point
# (AT_ENTRY from the auxiliary vector): by then ld.so has mapped every library loaded at
# start-up; each object's load bias from its code's mapping (noflag_gdb_maps.py).
import os
import sys

import gdb

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from noflag_gdb_maps import load_bias  # noqa: E402

gdb.execute("set pagination off")
gdb.execute("set confirm off")
gdb.execute("handle all nostop noprint pass", to_string=True)	# the program's own signals
# The program's own output is not gdb's: a line of it could read as a count.
# The program's output to NF_OUT (a file, as in the traced run: grep stops at its first match
# when its output is /dev/null), its stderr to NF_OUT.err, not in gdb's.
shown = gdb.execute("show args", to_string=True)	# ... is "ARGS".  (quoted for the shell)
args = "%s > %s 2> %s.err" % (shown[shown.index('"') + 1:shown.rindex('"')], os.environ["NF_OUT"],
                              os.environ["NF_OUT"])
# gdb adds LINES and COLUMNS to the program's environment; the traced run has neither.
gdb.execute("unset environment LINES")
gdb.execute("unset environment COLUMNS")
want = []
with open(os.environ["NF_COUNT"]) as f:
    for line in f:
        obj, entry, name = line.split()
        want.append((os.path.realpath(obj), int(entry, 16), name))

gdb.execute("starti " + args, to_string=True)
entry = None
for line in gdb.execute("info auxv", to_string=True).splitlines():
    if line.split()[1:2] == ["AT_ENTRY"]:
        entry = int(line.split()[-1], 16)
gdb.Breakpoint("*%#x" % entry, temporary=True, internal=True)
gdb.execute("continue", to_string=True)

bias = load_bias(set(obj for obj, _, _ in want))

bps = []
for obj, at, name in want:
    if obj not in bias:
        print("count %s not-loaded" % name)
        continue
    b = gdb.Breakpoint("*%#x" % (bias[obj] + at), internal=True)
    b.ignore_count = 1 << 30
    bps.append((name, b))

gdb.execute("continue", to_string=True)
for name, b in bps:
    print("count %s %d" % (name, b.hit_count))
