# SPDX-License-Identifier: GPL-2.0-only
# gdb's side of check_real_probes.py (the oracle), `source`d by gdb.
#   `realprobes-list IN OUT`: for each symbol of IN ("SYM ADDR" a line), the parameters gdb sees
#   at its first instruction (name, kind), a scalar member of each struct pointer, and
#   whether it returns a value; written to OUT as JSON.  Nothing is run.
#   `realprobes-break IN K`, then `realprobes-run`: a breakpoint at each symbol of IN
#   (JSON: {"main": ADDR, "funcs": [[ev, sym, ADDR, OFF, names, returns, body]...]}: at
#   ADDR + OFF, after the call to __fentry__ the function starts with) printing "@@" + JSON of every name's value gdb gives there, for the
#   first K calls, and a FinishBreakpoint on each of those calls printing the
#   value `finish` would show; a call entered while an earlier one has not
#   returned is said ("n": nested).  The names of body are read after the prologue
#   (clang's stack arguments: see params()).  Then `realprobes-counts`.
import json
import re

import gdb


def kind(t):
    t = t.strip_typedefs()
    if t.code in (gdb.TYPE_CODE_PTR, gdb.TYPE_CODE_REF, gdb.TYPE_CODE_RVALUE_REF):
        tt = t.target().strip_typedefs()
        if tt.code == gdb.TYPE_CODE_INT and tt.sizeof == 1 and t.code == gdb.TYPE_CODE_PTR:
            return "str"
        if tt.code in (gdb.TYPE_CODE_STRUCT, gdb.TYPE_CODE_UNION):
            return "sptr"      # a reference too: name->member reads through it
        return "ptr"
    if t.code in (gdb.TYPE_CODE_INT, gdb.TYPE_CODE_ENUM, gdb.TYPE_CODE_BOOL,
                  gdb.TYPE_CODE_CHAR):
        return "int"
    if t.code == gdb.TYPE_CODE_FLT:
        return "flt"
    return "other"


def member(t):
    """The first scalar (integer) member of the struct t points to, or None."""
    st = t.strip_typedefs().target().strip_typedefs()
    for f in st.fields():
        if not hasattr(f, "bitpos"):   # a static member (C++): not in the object
            continue
        if f.name and not f.bitsize and not f.artificial and kind(f.type) == "int":
            return f.name
    return None


def params(addr):
    """By the symbol's address: gdb takes a name for the DWARF function of that name,
    which for a function split by gcc (f and f.part.0) is the part's address."""
    block = gdb.block_for_pc(addr)
    # The outermost function's block: after aarch64's patchable NOPs the pc may be in a
    # function inlined at the start (its parameters are not the probed function's).
    while block and (not block.function or (block.superblock and block.superblock.function)):
        block = block.superblock
    if not block:
        return None
    # A parameter at an offset of clang's sp-based frame base is where the body's sp
    # says, after the prologue moved it: gdb reads it right only there.
    scope = gdb.execute("info scope *%#x" % addr, to_string=True)
    body = set(re.findall(r"Symbol (\w+) is a variable at frame base reg \$(?:[rs]?sp) offset",
                          scope))
    out = []
    for s in block:
        # g++'s __in_chrg and __vtt_parm (constructors', destructors'): artificial, in
        # the abstract DIE only, not the concrete ones (no value to compare).
        if not s.is_argument or not s.name or s.name in ("__in_chrg", "__vtt_parm"):
            continue
        k = kind(s.type)
        out.append([s.name, k, member(s.type) if k == "sptr" else None, s.name in body])
    rt = block.function.type.target() if block.function.type.code == gdb.TYPE_CODE_FUNC \
        else None
    returns = rt is not None and rt.code != gdb.TYPE_CODE_VOID
    return {"params": out, "returns": returns,
            "ret_kind": kind(rt) if returns else None}


class List(gdb.Command):
    def __init__(self):
        super().__init__("realprobes-list", gdb.COMMAND_USER)

    def invoke(self, arg, from_tty):
        src, dst = arg.split()
        res = {}
        for line in open(src):
            sym, addr = line.split()
            try:
                p = params(int(addr, 16))
            except gdb.error as e:
                p = {"error": str(e)}
            if p is not None:
                res[sym] = p
        with open(dst, "w") as f:
            json.dump(res, f)


def show(v, ret=False):
    if v.is_optimized_out:
        return "<optimized out>"
    t = v.type.strip_typedefs()
    k = kind(v.type)
    if k == "str" and not ret:     # a char * return stays a pointer, as $retval does
        if int(v) == 0:
            return "p:0"
        try:
            # Bytes as latin-1: one character each, whatever the encoding.
            return "s@%d:%s" % (int(v), v.string("latin-1"))
        except gdb.error:
            return "p:%d" % int(v)
    if k == "flt":
        return "f:" + repr(float(v))
    if t.code in (gdb.TYPE_CODE_REF, gdb.TYPE_CODE_RVALUE_REF):    # the address it is
        return "p:%d" % int(v.referenced_value().address)
    if k in ("ptr", "sptr", "str"):
        return "p:%d" % int(v)
    return "i:%d" % int(v)


def function_frame():
    """The probed function's own frame, selected: after the __fentry__ call gdb may be
    in a function inlined at its start, whose frame does not see its parameters."""
    f = gdb.newest_frame()
    while f.type() == gdb.INLINE_FRAME and f.older() is not None:
        f = f.older()
    f.select()
    return f


class Finish(gdb.FinishBreakpoint):
    def __init__(self, ev, seq):
        super().__init__(function_frame(), internal=True)
        self.ev, self.seq = ev, seq

    def stop(self):
        try:
            val = show(self.return_value, True) if self.return_value is not None else "?"
        except Exception as e:
            val = "<error: %s>" % e
        print("@@" + json.dumps(["x", self.ev, self.seq, val]))
        pending[self.ev] = pending.get(self.ev, 1) - 1
        return False

    def out_of_scope(self):
        print("@@" + json.dumps(["x", self.ev, self.seq, "<left>"]))
        pending[self.ev] = pending.get(self.ev, 1) - 1


# Calls of each event not returned yet: a call entered while one is pending is nested
# (recursion), and the order of returns is not the order of entries then.
pending = {}
entries = []
# The calls stopped at whose finish breakpoint is still to be set: set by realprobes-run
# with the inferior stopped (a breakpoint made inside another's stop() corrupted the
# program's text in a run here: Lua crashed under gdb).
todo = []


class Entry(gdb.Breakpoint):
    def __init__(self, ev, addr, names, returns, k):
        super().__init__("*%#x" % addr, internal=True)
        self.ev, self.names, self.returns, self.left = ev, names, returns, k
        self.seq = self.calls = 0

    def stop(self):
        self.calls += 1
        if self.returns and pending.get(self.ev, 0) > 0:
            print("@@" + json.dumps(["n", self.ev]))
        if self.left <= 0:
            return False
        self.left -= 1
        vals = {}
        function_frame()
        for n in self.names:
            try:
                vals[n] = show(gdb.parse_and_eval(n))
            except Exception as e:     # said, never a stop: the run goes on
                vals[n] = "<optimized out>" if "optimized out" in str(e) else "<error: %s>" % e
        print("@@" + json.dumps(["e", self.ev, self.seq, vals]))
        self.seq += 1
        if not self.returns:
            return False
        pending[self.ev] = pending.get(self.ev, 0) + 1
        todo.append((self.ev, self.seq - 1))
        return True


class Body(gdb.Breakpoint):
    """After the prologue (gdb's own skip, by the symbol's name): the names gdb reads
    right only there, for the first K calls."""
    def __init__(self, ev, sym, names, k):
        super().__init__("'%s'" % sym, internal=True)
        self.ev, self.names, self.left, self.seq = ev, names, k, 0

    def stop(self):
        if self.left <= 0:
            return False
        self.left -= 1
        function_frame()
        vals = {}
        for n in self.names:
            try:
                vals[n] = show(gdb.parse_and_eval(n))
            except Exception as e:
                vals[n] = "<optimized out>" if "optimized out" in str(e) else "<error: %s>" % e
        print("@@" + json.dumps(["b", self.ev, self.seq, vals]))
        self.seq += 1
        return False


class Run(gdb.Command):
    """run, setting each finish breakpoint while the inferior is stopped at its entry."""
    def __init__(self):
        super().__init__("realprobes-run", gdb.COMMAND_USER)

    def invoke(self, arg, from_tty):
        # Mapped first (starti), so that each breakpoint goes at its symbol's address
        # where the program is loaded: the address of main, less main's symbol value.
        if not spec.get("remote"):     # under qemu's gdb stub: stopped at its start
            gdb.execute("starti", to_string=True)
        if "entry" in spec:        # gcc's aarch64 &main is after its NOPs: by auxv's AT_ENTRY
            auxv = gdb.execute("info auxv", to_string=True)
            base = int(re.search(r"AT_ENTRY .* (0x[0-9a-f]+)$", auxv, re.M).group(1), 16) \
                - spec["entry"]
        else:
            base = int(gdb.parse_and_eval("(long)&main")) - spec["main"]
        print("@@" + json.dumps(["sp", int(gdb.parse_and_eval("(long)$sp"))]))
        for ev, sym, addr, off, names, returns, body in spec["funcs"]:
            entries.append(Entry(ev, base + int(addr, 16) + off, names, returns, spec["k"]))
            if body:
                Body(ev, sym, body, spec["k"])
        gdb.execute("continue")
        while gdb.selected_inferior().pid and todo:
            ev, seq = todo.pop()
            try:
                Finish(ev, seq)
            except (ValueError, gdb.error):     # gdb finds no caller's frame: no finish
                print("@@" + json.dumps(["x", ev, seq, "<left>"]))
                pending[ev] = pending.get(ev, 1) - 1
            gdb.execute("continue")
        if gdb.selected_inferior().pid:
            print("@@" + json.dumps(["stopped", gdb.execute("info program", to_string=True)]))


class Break(gdb.Command):
    def __init__(self):
        super().__init__("realprobes-break", gdb.COMMAND_USER)

    def invoke(self, arg, from_tty):
        src, k = arg.split()
        spec.update(json.load(open(src)))
        spec["k"] = int(k)


spec = {}


class Counts(gdb.Command):
    """After the run: how many times each function was entered (gdb's hit count)."""
    def __init__(self):
        super().__init__("realprobes-counts", gdb.COMMAND_USER)

    def invoke(self, arg, from_tty):
        for e in entries:
            print("@@" + json.dumps(["c", e.ev, e.calls]))


List()
Break()
Counts()
Run()
