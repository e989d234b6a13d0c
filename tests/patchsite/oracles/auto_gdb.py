# SPDX-License-Identifier: GPL-2.0-only
# gdb's side of tests/patchsite/auto_args.sh: `source` it, then `autoargs LOC FUNC...` and
# `run`.  At LOC in each FUNC ("*" its first instruction; a source file: the first line
# of its body, as -O0 fills its stack slots in the prologue) gdb lists the frame's arguments
# (its own choice of parameters and values from DWARF) as
# "@@ auto:FUNC: FUNC(a=1, b=0x7ffc...)": integers in decimal, pointers in hex.
import gdb


def show(v):
    t = v.type.strip_typedefs()
    if t.code == gdb.TYPE_CODE_PTR:
        return hex(int(v))
    if t.code == gdb.TYPE_CODE_FLT:
        return repr(float(v))
    return str(int(v))


class Entry(gdb.Breakpoint):
    def __init__(self, loc, fn):
        super().__init__(loc, internal=True)
        self.fn = fn

    def stop(self):
        frame = gdb.selected_frame()
        args = ["%s=%s" % (s.name, show(s.value(frame)))
                for s in frame.block() if s.is_argument]
        print("@@ auto:%s: %s(%s)" % (self.fn, self.fn, ", ".join(args)))
        return False


class AutoArgs(gdb.Command):
    def __init__(self):
        super().__init__("autoargs", gdb.COMMAND_USER)

    def invoke(self, arg, from_tty):
        words = arg.split()
        src, fns = words[0], words[1:]
        for fn in fns:
            if src == "*":
                loc = "*" + fn
            else:
                lines = open(src).read().split("\n")
                start = next(i for i, l in enumerate(lines) if (" " + fn + "(") in l)
                loc = "%s:%d" % (src, next(i for i in range(start, len(lines))
                                            if lines[i] == "{") + 2)
            Entry(loc, fn)


AutoArgs()
