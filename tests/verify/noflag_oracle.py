#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Independent oracles for tests/verify/noflag.sh (binutils, not our code).

  noflag_oracle.py entries FILE LIST   the entries patchverify --noflag --list
                                       printed are exactly the distinct FDE
                                       starts (readelf --debug-dump=frames) and
                                       defined FUNC/IFUNC symbols (readelf -sW)
                                       outside the PLT sections (readelf -SW)
  noflag_oracle.py results LIST        every entry is a site (a, b, c, p) or a
                                       fragment or a refusal, each named
  noflag_oracle.py bytes FILE PROOF    each site record's BYTES are objdump -d's
                                       bytes of the instructions from SITE, whose
                                       lengths are INSNS' and whose kinds agree
                                       with objdump's text (rip: a (%rip)
                                       operand; direct call, jmp, jcc), each
                                       displacement at @OFF naming the address
                                       objdump prints
Prints what disagrees and exits 1; else prints one line of counts.
"""
import re
import subprocess
import sys

PLT = {'.plt', '.plt.got', '.plt.sec', '.iplt'}


def run(*cmd):
    # readelf exits 1 on libc.so.6 with its whole output printed: the output is what counts
    return subprocess.run(cmd, capture_output=True, text=True, check=False).stdout


def sections(path):
    """Executable sections: (name, start, end)."""
    out = []
    for line in run('readelf', '-SW', path).splitlines():
        m = re.match(r'\s*\[\s*\d+\]\s+(\S+)\s+\S+\s+([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)\s+\S+\s+(\S*X\S*)\s', line)
        if m:
            start = int(m.group(2), 16)
            out.append((m.group(1), start, start + int(m.group(3), 16)))
    return out


def in_text(secs, addr):
    for name, lo, hi in secs:
        if lo <= addr < hi:
            return name not in PLT
    return False


def expected_entries(path):
    secs = sections(path)
    want = set()
    for m in re.finditer(r' FDE cie=\S+ pc=([0-9a-f]+)\.\.', run('readelf', '--debug-dump=frames', path)):
        a = int(m.group(1), 16)
        if in_text(secs, a):
            want.add(a)
    for line in run('readelf', '-sW', path).splitlines():
        f = line.split()
        if len(f) >= 8 and f[3] in ('FUNC', 'IFUNC') and f[6] != 'UND' and f[7:]:
            a = int(f[1], 16)
            if in_text(secs, a):
                want.add(a)
    return want


def listed(list_path):
    return [l.rstrip('\n').split('\t') for l in open(list_path) if l.strip()]


def entries(path, list_path):
    want = expected_entries(path)
    got = {int(f[1], 16) for f in listed(list_path)}
    bad = 0
    for a in sorted(want - got)[:10]:
        print('readelf has an entry at 0x%x that the list lacks' % a)
        bad = 1
    for a in sorted(got - want)[:10]:
        print('the list has 0x%x, which readelf knows as no FDE or function' % a)
        bad = 1
    if not bad:
        print('%d entries, as readelf lists them' % len(got))
    return bad


def results(list_path):
    bad = 0
    n = {}
    for f in listed(list_path):
        ok = len(f) == 5 and (f[3] in ('a', 'b', 'c', 'p') and f[4].startswith('site=0x') or
                              f[3] in ('fragment', 'refused') and re.fullmatch(r'[a-z][a-z0-9-]+', f[4]))
        if not ok:
            print('neither a site nor a named refusal: %s' % '\t'.join(f))
            bad = 1
        n[f[3]] = n.get(f[3], 0) + 1
    if not bad:
        print(' '.join('%s %d' % kv for kv in sorted(n.items())))
    return bad


def objdump_insns(path):
    """{address: (bytes hex, text)} of every instruction objdump -d decodes."""
    insns = {}
    for line in run('objdump', '-d', '-w', '--insn-width=16', path).splitlines():
        m = re.match(r'\s*([0-9a-f]+):\t([0-9a-f ]+)\t?(.*)$', line)
        if m:
            insns[int(m.group(1), 16)] = (m.group(2).replace(' ', ''), m.group(3))
    return insns


def kind_of(text):
    """The proof file's KIND for an instruction as objdump prints it."""
    words = text.split()
    while words and words[0] in ('bnd', 'notrack', 'data16', 'cs', 'ds'):
        words = words[1:]
    mnem = words[0] if words else ''
    direct = len(words) > 1 and re.fullmatch(r'[0-9a-f]+', words[1]) is not None
    if '(%rip)' in text:
        return 'rip'
    if mnem == 'call' and direct:
        return 'call'
    if mnem == 'jmp' and direct:
        return 'jmp'
    if re.fullmatch(r'j[a-z]+', mnem) and mnem != 'jmp' and direct:
        return 'jcc'
    return ''


def target_at(ob, k, addr):
    """What the displacement at @OFF of instruction bytes ob (at addr) points to."""
    n = len(ob) // 2
    off = int(k.split('@')[1])
    width = 1 if k.split(':')[1].split('@')[0] in ('jmp8', 'jcc8') else 4
    v = int.from_bytes(bytes.fromhex(ob)[off:off + width], 'little', signed=True)
    return addr + n + v


def objdump_target(text):
    """The address objdump computed: a rip operand's '# ADDR' comment, or a branch's operand."""
    m = re.search(r'#\s*([0-9a-f]+)', text) if '(%rip)' in text else \
        re.search(r'\s([0-9a-f]+)\s*(<|$)', text)
    return int(m.group(1), 16) if m else -1


def bytes_check(path, proof):
    sites = []
    for line in open(proof):
        f = line.split()
        if f and f[0] == 'site':
            sites.append((int(f[3], 16), f[5], f[6]))
    insns = objdump_insns(path)
    bad = 0
    for site, hexbytes, kinds in sites:
        at, got = site, ''
        for k in kinds.split(','):
            n = int(k.split(':')[0])
            kind = k.split(':')[1].split('@')[0] if ':' in k else ''
            if at not in insns:
                print('0x%x: objdump decodes no instruction at 0x%x' % (site, at))
                bad += 1
                break
            ob, text = insns[at]
            want = kind_of(text)
            # rel8 branches: the proof says jmp8/jcc8, objdump the same mnemonic
            if kind in ('jmp8', 'jcc8') and len(ob) == 4:
                kind = kind[:-1]
            if len(ob) != 2 * n or kind != want:
                print('0x%x: instruction at 0x%x is %s in the proof, objdump: %d bytes, kind "%s" (%s)'
                      % (site, at, k, len(ob) // 2, want, text))
                bad += 1
            elif kind and target_at(ob, k, at) != objdump_target(text):
                print('0x%x: %s at 0x%x names 0x%x, objdump 0x%x (%s)'
                      % (site, k, at, target_at(ob, k, at), objdump_target(text), text))
                bad += 1
            got += ob
            at += len(ob) // 2
        if got != hexbytes:
            print('0x%x: proof bytes %s, objdump %s' % (site, hexbytes, got))
            bad += 1
        if bad >= 10:
            break
    if not bad:
        print('%d site records, bytes, lengths and kinds as objdump decodes them' % len(sites))
    return 1 if bad else 0


def main():
    cmd = sys.argv[1]
    if cmd == 'entries':
        return entries(sys.argv[2], sys.argv[3])
    if cmd == 'results':
        return results(sys.argv[2])
    if cmd == 'bytes':
        return bytes_check(sys.argv[2], sys.argv[3])
    print(__doc__)
    return 2


if __name__ == '__main__':
    sys.exit(main())
