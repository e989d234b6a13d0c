# SPDX-License-Identifier: GPL-2.0-only
# gdb's side of tests/patchsite/retprobe.sh: `source` it, then `retprobe EV=FUNC[:string] ...`
# and `run`.  A breakpoint at each FUNC's first instruction sets a FinishBreakpoint on its
# frame; at the return it prints "@@ t:EV VALUE", the value gdb reads from the return
# register by the function's DWARF type (independent of patchsite's reading of it).
import json

import gdb


def show(v, as_string):
    t = v.type.strip_typedefs()
    if as_string:
        return json.dumps(v.string()) if int(v) else "0x0"
    if t.code == gdb.TYPE_CODE_FLT:
        return repr(float(v))
    if t.code == gdb.TYPE_CODE_PTR:
        return hex(int(v))
    return str(int(v))


# The finish breakpoint still armed per event: the sample's functions do not recurse, so
# one left armed at the next entry is a call a longjmp or an exception left (gdb would
# otherwise take the next call's return, at the same address and frame, for it).
pending = {}


class Finish(gdb.FinishBreakpoint):
    def __init__(self, ev, as_string):
        old = pending.pop(ev, None)
        if old is not None and old.is_valid():
            old.delete()
        super().__init__(gdb.newest_frame(), internal=True)
        self.ev, self.as_string = ev, as_string
        pending[ev] = self

    def stop(self):
        print("@@ t:%s %s" % (self.ev, show(self.return_value, self.as_string)))
        pending.pop(self.ev, None)
        return False

    def out_of_scope(self):
        pass    # left by longjmp or an exception: no value


class Entry(gdb.Breakpoint):
    def __init__(self, func, evs):
        super().__init__("*" + func, internal=True)
        self.evs = evs

    def stop(self):
        for ev, as_string in self.evs:
            Finish(ev, as_string)
        return False


class Retprobe(gdb.Command):
    def __init__(self):
        super().__init__("retprobe", gdb.COMMAND_USER)

    def invoke(self, arg, from_tty):
        by = {}
        for w in arg.split():
            ev, fn = w.split("=")
            fn, _, kind = fn.partition(":")     # FUNC:TYPE, TYPE given to the probe
            by.setdefault(fn, []).append((ev, kind == "string"))
        for fn, evs in by.items():
            Entry(fn, evs)


Retprobe()
