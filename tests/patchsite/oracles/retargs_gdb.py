# SPDX-License-Identifier: GPL-2.0-only
# gdb's side of tests/patchsite/retprobe.sh's entry values at the return: `source` it, then
# `retargs LOC EV=FUNC:FIELD,... ...` and `run`.  At LOC in FUNC ("*" the first
# instruction, "*+N" N bytes on, or a source file: its closing brace, as -O0 fills its
# stack slots in the prologue) gdb reads each
# FIELD (NAME, LABEL=NAME, or NAME->MEMBER) by DWARF; a FinishBreakpoint on that frame
# prints at the return "@@ t:EV LABEL=VALUE ... = RET".  As the kernel's fprobe keeps
# $argN from the entry and reads through it at the return, NAME->MEMBER is read at the
# return from the pointer NAME held at the entry.
import json

import gdb


def show(v):
    t = v.type.strip_typedefs()
    if t.code == gdb.TYPE_CODE_PTR and t.target().sizeof == 1:
        return json.dumps(v.string()) if int(v) else "NULL"
    if t.code == gdb.TYPE_CODE_FLT:
        return repr(float(v))
    if t.code == gdb.TYPE_CODE_PTR:
        return hex(int(v))
    return str(int(v))


# One finish breakpoint per event and frame: a recursion has several open; one left armed
# at an entry on the same frame is a call a longjmp left.
pending = {}


class Finish(gdb.FinishBreakpoint):
    def __init__(self, ev, vals, key):
        old = pending.pop(key, None)
        if old is not None and old.is_valid():
            old.delete()
        super().__init__(gdb.newest_frame(), internal=True)
        self.ev, self.vals, self.key = ev, vals, key
        pending[key] = self

    def stop(self):
        out = []
        for label, v in self.vals:
            if isinstance(v, tuple):        # (pointer, member): read now
                v = v[0].dereference()[v[1]]
            out.append("%s=%s" % (label, show(v)))
        print("@@ t:%s %s = %s" % (self.ev, " ".join(out), show(self.return_value)))
        pending.pop(self.key, None)
        return False

    def out_of_scope(self):
        pass


class Entry(gdb.Breakpoint):
    def __init__(self, loc, evs):
        super().__init__(loc, internal=True)
        self.evs = evs

    def stop(self):
        frame = gdb.selected_frame()
        for ev, fields in self.evs:
            vals = []
            for f in fields:
                label, _, name = f.rpartition("=")
                base, _, member = name.partition("->")
                label = label or name.replace("->", "_")
                v = frame.read_var(base)
                vals.append((label, (v, member) if member else v))
            Finish(ev, vals, (ev, int(frame.read_register("sp"))))
        return False


class Retargs(gdb.Command):
    def __init__(self):
        super().__init__("retargs", gdb.COMMAND_USER)

    def invoke(self, arg, from_tty):
        words = arg.split()
        src, evs = words[0], words[1:]
        for w in evs:
            ev, spec = w.split("=", 1)
            fn, _, fields = spec.partition(":")
            if src.startswith("*"):   # "*+5": past clang's patchable NOPs
                loc = "*" + fn + src[1:]
            else:               # the function's closing brace in the source
                lines = open(src).read().split("\n")
                start = next(i for i, l in enumerate(lines) if (" " + fn + "(") in l)
                loc = "%s:%d" % (src, next(i for i in range(start, len(lines))
                                            if lines[i] == "}") + 1)
            Entry(loc, [(ev, fields.split(",") if fields else [])])


Retargs()
