#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Probes named from DWARF on a real program, against gdb (the oracle):
   check_real_probes.py PATCHSITE DIR N[:MIN] K EXE [ARG...]

The functions EXE calls in the run (its function tracer's report: the
selection only) that gdb gives parameters or a return value are probed,
clones (.isra, .constprop, .part) first, then by name, N of them: each
with an entry probe naming every parameter gdb lists at its first
instruction (and the first integer member of each struct pointer,
p->member) and, if it returns a value, a %return probe on $retval.  An
argument the command refuses is dropped and its reason kept.  gdb
(realprobes_gdb.py) then stops at each symbol's first instruction for its
first K calls, prints what it sees for each name, and `finish`es those
calls.  Pass: for the first K calls of each function every value recorded
equals gdb's (pointers: see same()), each return value equals finish's
(a function gdb sees nested in itself is not compared, its returns come
in another order), the calls recorded are as many as gdb's hit count,
and a name refused as <optimized out> is <optimized out> in gdb at every
stop, and at least MIN (default N) of the functions were called.  The last
lines say the counts.
"""
import json
import os
import re
import socket
import subprocess
import sys
import time

PS, DIR = sys.argv[1], sys.argv[2]
N, K = int(sys.argv[3].split(":")[0]), int(sys.argv[4])
MIN = int(sys.argv[3].split(":")[-1])       # N:MIN: N probed, at least MIN called
# The program by its absolute path: gdb runs it so, and its argv[0] (in Lua's arg table,
# its allocations) must be the same in both runs.
PROG = [os.path.abspath(sys.argv[5])] + sys.argv[6:]
GDB_PY = os.path.join(os.path.dirname(os.path.abspath(__file__)), "realprobes_gdb.py")
CLONE = re.compile(r"\.(isra|constprop|part)\.")
# Another arch's program under qemu-user (tests/patchsite-qemu/realprobes.sh): QEMU is
# qemu-aarch64, SYSROOT its -L; record runs EXE under it (--emulator, PATCHSITE_LIB the
# arch's runtime) and gdb-multiarch (GDB) stops it through qemu's gdb stub (-g PORT).
QEMU = os.environ.get("REALPROBES_QEMU")
SYSROOT = os.environ.get("REALPROBES_SYSROOT", "/usr/aarch64-linux-gnu")
GDB = os.environ.get("REALPROBES_GDB", "gdb")
TOOLS = os.environ.get("REALPROBES_TOOLS", "")     # binutils' prefix: aarch64-linux-gnu-
EMU = ["--emulator=" + QEMU] if QEMU else []


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def record_env():
    env = dict(os.environ)
    if os.environ.get("SANPRE"):   # a sanitized runtime: its sanitizers first, in record only
        env["LD_PRELOAD"] = os.environ["SANPRE"]
    if QEMU:
        env["QEMU_LD_PREFIX"] = SYSROOT
    return env


def called():
    """Symbols the run calls, by the function tracer's report (to choose; not compared)."""
    r = run(["setarch", "-R", PS, "record", "-d", DIR + "/calls", "--tracer=function"] + EMU + PROG,
            env=record_env())
    if r.returncode:
        sys.exit("record --tracer=function: " + r.stderr)
    out = run([PS, "report", "-d", DIR + "/calls"], check=True).stdout
    calls = {}
    for line in out.splitlines():
        m = re.search(r"\s(\d+)(?:\s+\S+ \w+){3}\s+(\S+)$", line)
        if m:
            calls[m.group(2)] = int(m.group(1))
    return calls


def text_symbols():
    """Function symbols (W: C++'s inline and template code) by name, but for names
    several symbols have (a static function of each unit): which one a name means is
    not said."""
    out = run([TOOLS + "nm", PROG[0]], check=True).stdout
    syms = [f for f in (line.split() for line in out.splitlines())
            if len(f) == 3 and f[1] in "tTW"]
    seen = {}
    for f in syms:
        seen[f[2]] = seen.get(f[2], 0) + 1
    return {f[2]: f[0] for f in syms if seen[f[2]] == 1}


def by_symbol(calls, addr):
    """The report's names (C++'s demangled, no parameters) as symbols: a name that more
    than one symbol demangles to (overloads) is left out."""
    names = list(addr)
    # c++filt -p drops a clone's suffix (.part.0), which the report keeps: demangled apart.
    split = [re.match(r"(.*?)((?:\.(?:part|isra|constprop|cold)\.\d+)*)$", n) for n in names]
    plain = run(["c++filt", "-p"], input="\n".join(m.group(1) for m in split) + "\n",
                check=True).stdout.split("\n")
    by = {}
    for sym, name, m in zip(names, plain, split):
        by.setdefault(name + m.group(2), []).append(sym)
    # A name several symbols have (overloads, a class's complete and base destructors):
    # all of them, those not called are said as such.
    return {sym: c for n, c in calls.items() for sym in by.get(n, [])}


def gdb_params(syms, addr, call):
    """gdb's parameters of each symbol, at its entry (after the entry's call or NOPs:
    gcc's aarch64 DWARF starts after them)."""
    with open(DIR + "/syms", "w") as f:
        f.write("".join("%s %#x\n" % (s, int(addr[s], 16) + call.get(int(addr[s], 16), 0))
                        for s in syms))
    r = run([GDB, "-batch", "-nx", "-ex", "source " + GDB_PY, "-ex",
             "realprobes-list %s/syms %s/params.json" % (DIR, DIR), PROG[0]])
    if not os.path.exists(DIR + "/params.json"):
        sys.exit("gdb listed no parameters: " + r.stderr[-2000:])
    return json.load(open(DIR + "/params.json"))


def choose(calls, params):
    ok = [s for s in calls if s in params and "error" not in params[s] and
          (params[s]["params"] or params[s]["returns"]) and not s.endswith(".cold")]
    ok.sort(key=lambda s: (not CLONE.search(s), s))
    defs = []
    for s in ok[:N]:
        names, body = [], []
        for name, kind, mem, in_body in params[s]["params"]:
            names.append(name)
            if mem:
                names.append(name + "->" + mem)
            if in_body:
                body += names[-2:] if mem else names[-1:]
        defs.append({"sym": s, "names": names[:8], "returns": params[s]["returns"],
                     "ret_kind": params[s]["ret_kind"], "body": body})
    return defs


def record(defs):
    """Record, dropping each refused argument; returns the refusals."""
    refused = []
    for _ in range(2000):
        cmd = ["setarch", "-R", PS, "record", "-d", DIR + "/rec", "--tracer=nop"]
        for i, d in enumerate(defs):
            if d["names"]:
                cmd.append("--probe=f:r/e%d %s %s" % (i, d["sym"], " ".join(d["names"])))
            if d["returns"]:
                cmd.append("--probe=f:r/x%d %s%%return $retval" % (i, d["sym"]))
        r = run(cmd + EMU + PROG, env=record_env())
        if r.returncode == 0:
            return refused
        m = re.search(r"--probe='f:r/x(\d+) [^']*': \S+: (.*)", r.stderr)
        if m:       # a return value not recorded (a struct by value): said, not probed
            defs[int(m.group(1))]["returns"] = False
            refused.append((int(m.group(1)), "$retval", m.group(2)))
            continue
        m = re.search(r"--probe='f:r/e(\d+) \S+ [^']*': (\w+): (.*)", r.stderr)
        if not m:
            sys.exit("record failed: " + r.stderr)
        i, name, why = int(m.group(1)), m.group(2), m.group(3)
        drop = [n for n in defs[i]["names"] if n.replace("->", "_") == name]
        if not drop:
            sys.exit("record refused %s of %s, not a name given: %s" % (name, defs[i]["sym"], why))
        defs[i]["names"].remove(drop[0])
        refused.append((i, drop[0], why))
    sys.exit("record: too many refusals")


def replay():
    """Each probe's entry hits and returns, and how many events the header says lost."""
    out = run([PS, "replay", "--no-sched", "-d", DIR + "/rec"], check=True).stdout
    ent, ret = {}, {}
    ent["lost"] = sum(int(n) for n in re.findall(r"^# .*\[LOST (\d+) EVENTS\]", out, re.M))
    for line in out.splitlines():
        m = re.search(r" r:e(\d+): [\w.]+\((.*)\)$", line)
        if m:
            vals = dict(re.findall(r'(\w+)=("(?:[^"\\]|\\.)*"|[^,]*)(?:, |$)', m.group(2)))
            ent.setdefault(int(m.group(1)), []).append(vals)
            continue
        # the caller (%pS) may be a demangled C++ name, with spaces and parentheses
        m = re.search(r" r:x(\d+): \(.* <- [\w.]+\) arg1=(.*?)( \*/)?$", line)
        if m:
            ret.setdefault(int(m.group(1)), []).append(m.group(2))
    return ent, ret


def fentry_calls():
    """address -> the length of the call to __fentry__ the function there starts with
    (objdump's reading; by address: objdump names one of a function's aliases), or of
    aarch64's two patchable NOPs (gcc's DWARF starts after them)."""
    out = run([TOOLS + "objdump", "-d", "-w", PROG[0]], check=True).stdout
    lens, at, nops = {}, None, 0
    for line in out.splitlines():
        m = re.match(r"^([0-9a-f]+) <.*>:$", line)
        if m:
            at, nops = int(m.group(1), 16), 0
            continue
        if at is not None:
            f = line.split("\t")
            if len(f) >= 3 and "call" in f[2] and "__fentry__" in f[2]:
                lens[at] = len(f[1].split())
            elif len(f) >= 3 and f[2].strip() == "nop" and nops < 1:
                nops += 1
                continue
            elif len(f) >= 3 and f[2].strip() == "nop":
                lens[at] = 8
            at = None
    return lens


def gdb_stub():
    """Under qemu: the program started stopped in qemu's gdb stub, and gdb's command to
    connect to it; (None, []) natively (gdb runs the program)."""
    if not QEMU:
        return None, []
    with socket.socket() as s:     # a free port (qemu's -g wants a number)
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    stub = subprocess.Popen(["setarch", "-R", QEMU, "-g", str(port), "-L", SYSROOT] + PROG,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(100):           # listening: a connection (the stub takes the first)
        time.sleep(0.1)
        if ":%04X " % port in open("/proc/net/tcp").read():
            break
    return stub, ["-ex", "set sysroot " + SYSROOT, "-ex", "target remote :%d" % port]


def gdb_run(defs, refused, addr):
    """gdb stops after the call to __fentry__ each function starts with: it preserves
    the argument registers and the stack pointer, so gdb's values there are the
    entry's, and clang's location lists begin there (gcc's at the entry)."""
    spec = {"main": int(addr["main"], 16), "funcs": []}
    call = fentry_calls()
    for i, d in enumerate(defs):
        gone = [n for (j, n, _) in refused if j == i]
        spec["funcs"].append([i, d["sym"], addr[d["sym"]], call.get(int(addr[d["sym"]], 16), 0),
                              d["names"] + gone, d["returns"], d["body"]])
    spec["remote"] = bool(QEMU)
    if QEMU:
        hdr = run(["readelf", "-hW", PROG[0]], check=True).stdout
        spec["entry"] = int(re.search(r"Entry point address:\s+(0x[0-9a-f]+)", hdr).group(1), 16)
    json.dump(spec, open(DIR + "/spec.json", "w"))
    stub, remote = gdb_stub()
    r = run([GDB, "-batch", "-nx", "-ex", "set pagination off", "-ex", "source " + GDB_PY,
             "-ex", "realprobes-break %s/spec.json %d" % (DIR, K)] + remote +
            ["-ex", "realprobes-run", "-ex", "realprobes-counts", "--args"] + PROG)
    if stub:
        stub.kill()
        stub.wait()
    ent, ret, nested, count, body = {}, {}, set(), {}, {}
    for line in r.stdout.splitlines():
        # The program's own output shares gdb's stdout: a line of it not ended when gdb
        # stopped the program (readelf's, buffered by 4 KiB) comes before gdb's "@@".
        at = line.find("@@[")
        if at < 0:
            continue
        x = json.loads(line[at + 2:])
        if x[0] == "e":
            ent.setdefault(x[1], []).append(x[3])
        elif x[0] == "b":
            body.setdefault(x[1], []).append(x[3])
        elif x[0] == "x":
            ret.setdefault(x[1], []).append(x[3])
        elif x[0] == "n":
            nested.add(x[1])
        elif x[0] == "c":
            count[x[1]] = x[2]
        elif x[0] == "sp":
            STACK[0] = x[1]
        elif x[0] == "stopped":
            sys.exit("the program stopped under gdb: " + x[1])
    if not count:
        sys.exit("gdb ran no breakpoint: " + r.stderr[-2000:])
    for ev, hits in body.items():    # the body's view of those names, call by call
        for vals, late in zip(ent.get(ev, []), hits):
            vals.update(late)
    return ent, ret, nested, count


def unquote(s):
    """replay's quoted string: its bytes as they are (a backslash too: replay escapes
    nothing, as the kernel's %s; "\\UUU" read as an escape raised here, on a stack
    buffer's garbage after a string), a byte other than printable ASCII shown as '.'
    (data/read_events.c)."""
    return s[1:-1]


def shown(v):
    """gdb's latin-1 text as replay shows those bytes."""
    return "".join(c if " " <= c <= "~" else "." for c in v)


def image_end():
    """The end of EXE's image as gdb runs it (no randomisation: a PIE at gdb's base)."""
    out = run(["readelf", "-hlW", PROG[0]], check=True).stdout
    base = (0x5500000000 if QEMU else 0x555555554000) if re.search(r"Type:\s+DYN", out) else 0
    ends = [int(m.group(1), 16) + int(m.group(2), 16) for m in
            re.finditer(r"^\s+LOAD\s+\S+\s+(0x[0-9a-f]+)\s+\S+\s+\S+\s+(0x[0-9a-f]+)", out, re.M)]
    return base + max(ends)


END = 0
SHIFTS = {}     # region -> {ours - gdb's: how many pointers}


ARENA = (0x200000000000, 0x200000000000 + (1 << 30))   # testdata/patchsite/realprobes_alloc.c
# The stack pointer at the program's first instruction, under qemu (gdb's run says it):
# qemu-user maps the image at 0x5500000000, its heap (brk) after it, then the 8 MiB stack
# (its top just above that sp), then ld.so, the libraries and the mmaps.
STACK = [0]


def region(p):
    """The part of the address space a pointer of gdb's run points into."""
    if p < END or ARENA[0] <= p < ARENA[1]:
        return "image"      # or the program's own heap, at the same address in both runs
    if QEMU:
        if p < STACK[0] - (8 << 20):
            return "heap"
        return "stack" if p < STACK[0] + 0x8000 else "mmap"    # the top: argv, env
    if p < 0x7f0000000000:
        return "heap"
    return "stack" if p >= 0x7ffff8000000 else "mmap"


def same(ours, theirs):
    """ours as replay shows it, theirs as realprobes_gdb.py prints it.  A pointer into
    libc's heap, the stack or an mmap differs between the two runs by a shift of its
    region (the recorded run has the runtime's allocations and its probes in the
    environment): the shift is noted here, and main() requires one per region;
    pointers into the image or the program's arena and integers compare as they are."""
    kind, _, v = theirs.partition(":")
    if ours is None:
        return False
    if kind.startswith("s@"):      # s@ADDRESS:TEXT
        cut = ours.endswith("[cut]")    # longer than the recorder's cap: its first bytes
        if cut:
            ours = ours[:-len("[cut]")]
        if not ours.startswith('"'):
            return False
        return shown(v).startswith(unquote(ours)) if cut else unquote(ours) == shown(v)
    if kind == "f":
        try:
            return float(ours) == float(v)
        except ValueError:
            return False
    if kind in ("i", "p"):
        n = int(v) % (1 << 64)
        try:
            got = int(ours, 16) if ours.startswith("0x") else int(ours) % (1 << 64)
        except ValueError:
            return kind == "p" and n == 0 and ours == 'NULL'    # a NULL char *
        r = region(n) if kind == "p" and n else "image"
        if r != "image":
            SHIFTS.setdefault(r, {}).setdefault((got - n) % (1 << 64), 0)
            SHIFTS[r][(got - n) % (1 << 64)] += 1
            return True
        return got == n
    return False


def shifts():
    """Each region's pointers shifted alike: the count of those that are not."""
    off = 0
    for r, by in sorted(SHIFTS.items()):
        common = max(by, key=by.get)
        print("%s pointers: %d shifted by %#x between the runs%s" % (
            r, by[common], common, "".join(", %d by %#x (WRONG)" % (c, d)
                                            for d, c in by.items() if d != common)))
        off += sum(c for d, c in by.items() if d != common)
    return off


# Values that differ between the two runs by what the runtime itself does in the recorded
# one: said beside the mismatches, not counted wrong.
RUNTIME_STATE = {
    "this->key_": ("ThreadLocal", "googletest's pthread key: the runtime holds one of its "
                   "own in the recorded run, so the program's key number is another"),
}


def runtime_state(sym, name):
    known = RUNTIME_STATE.get(name)
    return known[1] if known and known[0] in sym else None


def on_stack(gdb_vals, name):
    """name is p->member with p pointing into the stack, or a string there: it may be
    an out-parameter the callee fills, or a buffer of which only the first bytes
    (a length says how many) are written, the rest left by earlier frames, which
    differ between the runs (the recorded run's trampolines used that stack too)."""
    v = gdb_vals.get(name, "")
    if v.startswith("s@"):         # a string in a stack buffer: one being filled, perhaps
        p = int(v[2:].split(":")[0])
        return p != 0 and region(p) == "stack"
    if "->" not in name:
        return False
    v = gdb_vals.get(name.split("->")[0], "")
    return v.startswith("p:") and int(v[2:]) != 0 and region(int(v[2:])) == "stack"


def null_member(names, gdb_hits):
    """A name p->member whose p gdb shows NULL at some call."""
    return any(h.get(n.split("->")[0]) == "p:0" for h in gdb_hits for n in names if "->" in n)


def main():
    global END
    END = image_end()
    calls = by_symbol(called(), addr := text_symbols())
    syms = sorted(s for s in calls if s in addr)
    params = gdb_params(syms, addr, fentry_calls() if QEMU else {})
    defs = choose(calls, params)
    refused = record(defs)
    ours, ours_ret = replay()
    theirs, theirs_ret, nested, count = gdb_run(defs, refused, addr)
    n_arg = n_ret = bad_arg = bad_ret = bad = scratch = 0
    notes, unset, state = [], [], []
    dropped = 0
    for i, d in enumerate(defs):
        s = d["sym"]
        a, b = ours.get(i, []), theirs.get(i, [])
        if d["names"] and len(a) < count.get(i, -1) and any("->" in n for n in d["names"]):
            # p->member with p NULL: the whole event is dropped (events/probe.c), and
            # must be said lost; its other calls cannot be matched with gdb's one by one.
            # gdb shows its values for the first K calls only: a p NULL later is known
            # by the count of events said lost, which must be the sum of these.
            dropped += count[i] - len(a)
            notes.append("%s: %d calls recorded, gdb stopped %d times: p->member of a NULL p "
                         "drops the event%s" % (s, len(a), count[i], "" if null_member(
                             d["names"], b) else " (after gdb's first %d calls)" % K))
            continue
        if d["names"] and len(a) != count.get(i, -1):
            bad += 1
            notes.append("%s: %d calls recorded, gdb stopped %d times" %
                         (s, len(a), count.get(i, -1)))
        for k, (x, y) in enumerate(zip(a, b)):
            for pos, n in enumerate(d["names"]):
                key = n.replace("->", "_")
                if len(key) >= 32:      # the kernel's MAX_ARG_NAME_LEN: named by its place
                    key = "arg%d" % (pos + 1)
                if on_stack(y, n):
                    scratch += 1
                    if not same(x.get(key), y.get(n, "?")):
                        unset.append("%s call %d: %s=%s, gdb: %s" % (s, k + 1, key, x.get(key),
                                                                     y.get(n)))
                    continue
                if runtime_state(s, n) and not same(x.get(key), y.get(n, "?")):
                    state.append("%s call %d: %s=%s, gdb: %s: %s" % (
                        s, k + 1, key, x.get(key), y.get(n), runtime_state(s, n)))
                    continue
                n_arg += 1
                if not same(x.get(key), y.get(n, "?")):
                    bad_arg += 1
                    notes.append("%s call %d: %s=%s, gdb: %s" % (s, k + 1, key, x.get(key),
                                                                 y.get(n)))
        if d["returns"] and i not in nested:
            ra, rb = ours_ret.get(i, []), theirs_ret.get(i, [])
            if len(ra) < len(rb):
                bad += 1
                notes.append("%s: %d returns recorded, gdb finished %d" % (s, len(ra), len(rb)))
            for k, (x, y) in enumerate(zip(ra, rb)):
                if y == "<left>":
                    continue
                n_ret += 1
                if not same(x, y):
                    bad_ret += 1
                    notes.append("%s return %d: %s, gdb's finish: %s" % (s, k + 1, x, y))
    if dropped != ours["lost"]:
        bad += 1
        notes.append("WRONG: %d calls dropped, %d events said lost" % (dropped, ours["lost"]))
    for line in notes:
        print(line)
    for line in unset + state:
        print("not compared: " + line)
    bad_ptr = shifts()
    opt = 0
    for i, n, why in refused:
        seen = {h.get(n) for h in theirs.get(i, [])}
        if "<optimized out>" in why:
            opt += 1
            if seen - {"<optimized out>"}:
                bad += 1
                print("WRONG: %s %s refused as %s, gdb shows %s" % (
                    defs[i]["sym"], n, why, ", ".join(sorted(map(str, seen)))))
        print("refused %s %s: %s; gdb: %s" % (defs[i]["sym"], n, why,
                                             ", ".join(sorted(map(str, seen)))))
    bad += bad_arg + bad_ret + bad_ptr
    called_too = sum(1 for i, d in enumerate(defs) if count.get(i, 0) > 0)
    print("%d functions (%d clones), %d of them called (at least %d wanted):" % (
        len(defs), sum(bool(CLONE.search(d["sym"])) for d in defs), called_too, MIN))
    print("%d argument values and %d return values equal to gdb's"
          ", %d not (%d pointers not shifted as their region), %d calls' counts differ, %d "
          "calls dropped for a NULL p of p->member (said lost); %d "
          "refused (%d <optimized out>, as in gdb); of %d members and strings through stack "
          "pointers %d equal, %d not (out-parameters and buffers not written yet: not counted "
          "wrong); %d values of the runtime's own doing not compared; the returns of "
          "%d recursive functions not compared" % (
              n_arg - bad_arg - bad_ptr, n_ret - bad_ret, bad_arg + bad_ret + bad_ptr, bad_ptr,
              bad - bad_arg - bad_ret - bad_ptr, dropped, len(refused), opt, scratch,
              scratch - len(unset), len(unset), len(state), len(nested)))
    return 1 if bad or called_too < MIN else 0


sys.exit(main())
