#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""libc_args.sh's and libc_args_real.sh's comparison of a trace with the oracles.

usage: libc_args_compare.py AUDIT TRACE PROGRAM_OUTPUT NAMES [RET_NAMES] [--pie]
                            [--exe=PATH] [--high=ADDR]
       libc_args_compare.py --bag AUDIT... TRACE MIN_NAMES

AUDIT: the rtld-audit library's lines (name, six argument registers, the
string each points to or "-", tab-separated), one a PLT call of the
executable.  TRACE: patchsite replay's text.  The calls of the names both
show are paired in order: an integer the trace shows equals its register
(an int: the low 32 bits), a string equals what the register pointed to, a
pointer into the non-PIE executable equals it; a pointer elsewhere (the
heap, the stack, libc: they move when the runtime is preloaded) is one a
call returned to the program (PROGRAM_OUTPUT's "ret NAME VALUE" lines) or
high in both runs.  --pie: the executable moves too: pointers are compared
for NULL only.  Each "ret NAME VALUE" is the trace's return value of that
call of NAME (those of RET_NAMES must be there).  NAMES must all be seen.

--bag (a real program, some of whose calls may follow its memory layout, as Lua's
string cache): per library function, the trace's multiset of argument values
(strings, integers, pointers as NULL or not) equals the audit's, for each
function whose untraced runs (the AUDIT files, under ASLR) all agree and whose
traced calls are as many; at least MIN_NAMES functions compared.
"""
import collections
import re
import sys


def audit_calls(path):
    calls = collections.defaultdict(list)
    for line in open(path, errors='replace'):
        f = line.rstrip('\n').split('\t')
        if len(f) == 13:
            calls[f[0]].append((f[1:7], f[7:13]))
    return calls


def event_call(line):
    """A probe's event line (no call to show it in: --tracer=nop), "auto:NAME: NAME(a=V, ...)":
    (NAME, [V...], None), or None.  A string ends at a quote before ", NAME=" or the end."""
    m = re.search(r'auto:(\w+): (\w+)\((.*)\)', line)
    if not m or m.group(1) != m.group(2):
        return None
    return m.group(1), [v for _, v in re.findall(r'(\w+)=(".*?"(?=, \w+=|$)|[^,]+)',
                                                  m.group(3))], None


def inline_call(line):
    """replay's call line of a call with record -a's values, as uftrace shows one:
    "| NAME(V, ...) {", "| NAME(V, ...) = R;" or "| NAME(V, ...);": (NAME, [V...], R or
    None), or None.  A string ends at a quote before ", " or ")"; uftrace's \\n and the
    other unprintable bytes as the audit writes them ('.')."""
    m = re.search(r'\|\s*(\w+)\(', line)
    if not m:
        return None
    s, i, vals, cur = line.rstrip('\n'), m.end(), [], ''
    while i < len(s):
        if s[i] == '"':
            j = s.find('"', i + 1)
            while j != -1 and not s.startswith(('", ', '")'), j):
                j = s.find('"', j + 1)
            if j == -1:
                return None
            cur += '"' + ''.join(c if c.isprintable() else '.'
                                 for c in s[i + 1:j].replace('\\n', '\n')) + '"'
            i = j + 1
        elif s[i] == ')':
            if cur:
                vals.append(cur)
            r = re.match(r' = (.*);$', s[i + 1:])
            return m.group(1), vals, r.group(1) if r else None
        elif s.startswith(', ', i):
            vals.append(cur)
            cur = ''
            i += 2
        else:
            cur += s[i]
            i += 1
    return None


def trace_calls(path):
    calls = collections.defaultdict(list)
    for line in open(path, errors='replace'):
        c = event_call(line) or inline_call(line)
        if c and c[1]:
            calls[c[0]].append(c[1])
    return calls


def bag():
    audits = [audit_calls(p) for p in sys.argv[2:-2]]
    tr, need = trace_calls(sys.argv[-2]), int(sys.argv[-1])
    errors, compared, skipped = [], [], []

    def t_key(vals):
        return tuple(v if v.startswith('"') else ('0' if int(v, 16) == 0 else 'P')
                     if v.startswith('0x') else str(int(v) & 0xffffffff) for v in vals)

    def a_key(call, like):
        regs, strs = call
        out = []
        for i, v in enumerate(like):
            r = int(regs[i], 16)
            if v.startswith('"'):
                out.append('"%s"' % strs[i])
            elif v.startswith('0x'):
                out.append('0' if r == 0 else 'P')
            else:
                out.append(str(r & 0xffffffff))
        return tuple(out)

    for n in sorted(tr):
        if n not in audits[0]:
            continue
        like = tr[n][0]
        bags = [collections.Counter(a_key(c, like) for c in a.get(n, [])) for a in audits]
        bt = collections.Counter(t_key(v) for v in tr[n])
        if any(b != bags[0] for b in bags) or sum(bt.values()) != sum(bags[0].values()):
            skipped.append(n)   # its calls follow the memory layout (Lua's string cache)
            continue
        compared.append(n)
        if bt != bags[0]:
            errors.append('%s: arguments differ: trace has %s, audit %s' %
                          (n, list((bt - bags[0]).items())[:2], list((bags[0] - bt).items())[:2]))
    if len(compared) < need:
        errors.append('only %d functions compared: %s' % (len(compared), ' '.join(compared)))
    for e in errors[:20]:
        print(e)
    print('%d library functions with arguments, calls and argument values as the audit\'s '
          '(%s; following the layout: %s)' % (len(compared), ' '.join(compared),
                                               ' '.join(skipped) or 'none'))
    sys.exit(1 if errors else 0)


if sys.argv[1:2] == ['--bag']:
    bag()

PIE = '--pie' in sys.argv
if PIE:
    sys.argv.remove('--pie')
OPT = dict(a[2:].split('=', 1) for a in sys.argv[1:] if a.startswith('--') and '=' in a)
sys.argv = [a for a in sys.argv if not (a.startswith('--') and '=' in a)]


def image(path):
    """The span of a non-PIE ELF64's PT_LOAD segments (its addresses, fixed)."""
    import struct
    with open(path, 'rb') as f:
        data = f.read()
    phoff, = struct.unpack_from('<Q', data, 0x20)
    phentsize, phnum = struct.unpack_from('<HH', data, 0x36)
    spans = []
    for i in range(phnum):
        ptype, _, _, vaddr, _, _, memsz, _ = struct.unpack_from('<IIQQQQQQ', data,
                                                                phoff + i * phentsize)
        if ptype == 1:
            spans.append((vaddr, vaddr + memsz))
    return min(a for a, _ in spans), max(b for _, b in spans)

audit_f, trace_f, prog_f, want = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4].split()
want_rets = sys.argv[5].split() if len(sys.argv) > 5 else []     # each must show its value
MASK = 2**64 - 1
# --exe=PATH: the non-PIE executable, whose addresses are fixed; --high=ADDR: where mmap'd
# memory and the stack start (qemu-user puts them lower)
IMAGE = image(OPT['exe']) if 'exe' in OPT else (0x400000, 0x600000)
errors = []

audit = []
for line in open(audit_f, errors='replace'):
    f = line.rstrip('\n').split('\t')
    if len(f) == 13:
        audit.append((f[0], [int(x, 16) for x in f[1:7]], f[7:13]))

trace, rets = [], {}
for line in open(trace_f, errors='replace'):
    c = event_call(line) or inline_call(line)
    if c and c[1]:
        trace.append((c[0], c[1]))
    # function_graph's "| f(...) = V;", or a return probe's event line "(caller <- f) arg1=V"
    # (under nop, as the kernel's)
    m = re.search(r': \([^ ()]+ <- (\w+)\) arg1=([-\w]+)', line)
    if m:
        rets.setdefault(m.group(1), []).append(m.group(2))
    elif c and c[2] is not None and re.match(r'[-\w]+$', c[2]):
        rets.setdefault(c[0], []).append(c[2])
    # a call with something inside it (a switch out): "} = V; /* NAME */"
    m = re.search(r'\} = ([-\w]+);? /\* (\w+) \*/', line)
    if m:
        rets.setdefault(m.group(2), []).append(m.group(1))

names = set(n for n, _ in trace) & set(n for n, _, _ in audit)
missing = [n for n in want if n not in names]
if missing:
    errors.append('no call of %s seen by both' % ' '.join(missing))
a_seq = [x for x in audit if x[0] in names]
t_seq = [x for x in trace if x[0] in names]
if [x[0] for x in a_seq] != [x[0] for x in t_seq]:
    errors.append('sequences differ: audit %s / trace %s' %
                  ([x[0] for x in a_seq][:40], [x[0] for x in t_seq][:40]))

HIGH = int(OPT.get('high', '0x700000000000'), 0)  # mmap and the stack, under any ASLR
printed = set(int(l.split()[2], 16) for l in open(prog_f)
              if l.startswith('ret ') and len(l.split()) == 3 and l.split()[2].startswith('0x'))

values = 0
for (an, regs, strs), (tn, vals) in zip(a_seq, t_seq):
    for i, v in enumerate(vals):
        r = regs[i]
        if v.startswith('"'):
            ok = strs[i] != '-' and strs[i] == v[1:-1]
        elif v.startswith('0x'):
            x = int(v, 16)
            if PIE:
                ok = (x == 0) == (r == 0)
            elif r < IMAGE[1]:    # flags, NULL, the executable's addresses
                ok = x == r or x == r & 0xffffffff
            else:
                # the heap, the stack and libc move between the runs: a heap pointer
                # is one a call returned to the program before (printed), the others
                # are high in both runs
                ok = x in printed or (x >= HIGH and r >= HIGH)
        else:
            x = int(v)
            ok = x == r or (x & 0xffffffff) == (r & 0xffffffff) and -2**31 <= x < 2**32
        values += 1
        if not ok:
            errors.append('%s arg%d: trace %s, audit %#x %s' % (tn, i + 1, v, r, strs[i]))

nret = 0
seen = {}
for line in open(prog_f):
    f = line.split()
    if len(f) != 3 or f[0] != 'ret':
        continue
    k = seen.get(f[1], 0)
    seen[f[1]] = k + 1
    got = rets.get(f[1], [])
    if not got and f[1] not in want_rets:
        continue
    # the k-th printed value of NAME is its k-th call's (only the printed calls are made)
    if k >= len(got):
        errors.append('%s: no return value %d in the trace (program: %s)' % (f[1], k + 1, f[2]))
        continue
    nret += 1
    if int(got[k], 0) & MASK != int(f[2], 0) & MASK:
        errors.append('%s() = %s in the trace, the program got %s' % (f[1], got[k], f[2]))

for e in errors[:20]:
    print(e)
print('%d calls, %d argument values, %d return values' % (len(t_seq), values, nret))
sys.exit(1 if errors else 0)
