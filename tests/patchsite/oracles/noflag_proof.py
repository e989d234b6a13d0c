# SPDX-License-Identifier: GPL-2.0-only
# noflag_proof.py OBJDUMP_OUT BUILDID SIZE PATH FUNC...: a no-flag proof file
# (include/noflag_proof.h) on stdout for the named functions of a program, from
# `objdump -d -w` of it: the test's own prover, independent of patchverify's.
# objdump is the oracle of each instruction's bytes and length, of its rip-relative
# operand's target (the `# ADDR` it prints, whose disp32 is then found in the
# bytes) and of every direct branch target in the text.  Kept deliberately
# narrow (tests/patchsite/noflag.sh):
#   form a: the first instruction is 5 bytes or more, not a branch, and no
#           branch target lies inside it;
#   form b: only pushes of registers, `sub $N,%rsp` and instructions that
#           neither touch the stack pointer nor branch before it; no branch
#           target in (entry, site]; the site is the first instruction of 5
#           bytes or more or a `call rel32`; DEPTH counts the pushes and subs.
import re, sys
dump, bid, size, path, funcs = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:]
insns, fn, text, targets = {}, None, False, set()
for line in open(dump):
    if line.startswith('Disassembly of section'):
        text = line.strip() == 'Disassembly of section .text:'
        continue
    m = re.match(r'^([0-9a-f]+) <([^>]+)>:$', line)
    if m:
        fn = m.group(2)
        if text:
            insns[fn] = []
        continue
    m = re.match(r'^\s+([0-9a-f]+):\t([0-9a-f ]+)\t(.*)$', line)
    if not m:
        continue
    addr, raw, asm = int(m.group(1), 16), bytes.fromhex(m.group(2).replace(' ', '')), m.group(3)
    t = re.match(r'^(?:bnd )?(j\w+|call)\s+([0-9a-f]+) <', asm)
    if t:
        targets.add(int(t.group(2), 16))
    if text and fn in insns:
        insns[fn].append((addr, raw, asm))

def encode(addr, raw, asm):
    """LEN or LEN:KIND@OFF, or None when the tests do not handle it."""
    n = len(raw)
    mnem = asm.split()[0] if asm.split() else ''
    if '(%rip)' in asm:
        c = re.search(r'# ([0-9a-f]+)', asm)
        disp = (int(c.group(1), 16) - (addr + n)) & 0xffffffff
        off = raw.find(disp.to_bytes(4, 'little'))
        return '%d:rip@%d' % (n, off) if off > 0 else None
    if raw[0] == 0xe8 and n == 5:
        return '5:call@1'
    if mnem.startswith('j') or mnem in ('call', 'ret', 'bnd', 'notrack'):
        return None
    return str(n)

out = ['patchsite-noflag-proof 1', 'object %s %x %s' % (bid, int(size), path)]
for f in funcs:
    code = insns[f]
    entry = code[0][0]
    # form a: the first instruction, 5 bytes or more, nothing landing inside it
    a, raw, asm = code[0]
    e = encode(a, raw, asm)
    if len(raw) >= 5 and e and not any(a < t < a + len(raw) for t in targets):
        out.append('site %x a %x 0 %s %s %s' % (entry, a, raw.hex(), e, f))
        continue
    # form b: pushes and sub $N,%rsp, then the first instruction of 5 bytes or more (or a
    # call rel32); no jump, no target in (entry, site]
    depth = 0
    for a, raw, asm in code:
        if a > entry and a in targets:
            break
        e = encode(a, raw, asm)
        if len(raw) >= 5 or raw[0] == 0xe8:
            if e:
                out.append('site %x b %x %x %s %s %s' % (entry, a, depth, raw.hex(), e, f))
            break
        m = re.match(r'^push\s+%r\w+$', asm)
        s = re.match(r'^sub\s+\$0x([0-9a-f]+),%rsp$', asm)
        if m:
            depth += 8
        elif s:
            depth += int(s.group(1), 16)
        elif '%rsp' in asm or '%esp' in asm or not e:
            break
print('\n'.join(out))
