#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""libc_args.sh's and libc_args_lua.sh's comparison of a trace with the oracles.

usage: libc_args_compare.py AUDIT TRACE PROGRAM_OUTPUT NAMES [RET_NAMES] [--pie]

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
"""
import re, sys

PIE = '--pie' in sys.argv
if PIE:
    sys.argv.remove('--pie')

audit_f, trace_f, prog_f, want = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4].split()
want_rets = sys.argv[5].split() if len(sys.argv) > 5 else []     # each must show its value
MASK = 2**64 - 1
IMAGE = (0x400000, 0x600000)        # the non-PIE executable: addresses fixed
errors = []

audit = []
for line in open(audit_f, errors='replace'):
    f = line.rstrip('\n').split('\t')
    if len(f) == 13:
        audit.append((f[0], [int(x, 16) for x in f[1:7]], f[7:13]))

trace, rets = [], {}
for line in open(trace_f, errors='replace'):
    m = re.search(r'auto:(\w+): (\w+)\((.*)\)', line)
    if m and m.group(1) == m.group(2):
        fields = re.findall(r'(\w+)=("(?:[^"\\]|\\.)*"|[^,]+)', m.group(3))
        trace.append((m.group(1), [v for _, v in fields]))
    m = re.search(r'(?:\||: )\s*(\w+)\(\) = ([-\w]+)', line)
    if m:
        rets.setdefault(m.group(1), []).append(m.group(2))
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

HIGH = 0x700000000000    # mmap (libc, thread stacks) and the stack, under any ASLR
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
            elif x < IMAGE[1] and r < IMAGE[1]:
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
