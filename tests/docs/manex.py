#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The man pages' example commands, for tests/docs/man_examples.sh.

  manex.py script PAGE OUTDIR SKIPFILE [san]  write OUTDIR/run.sh, which runs the
                                         page's example blocks in order, and
                                         OUTDIR/cmds (K STATUS TEXT a line),
                                         OUTDIR/exp.K (the lines the page
                                         prints under command K)
  manex.py compare EXP OUT               each line of EXP is in OUT (masked)

A block is the text between .nf and .fi.  Groff is undone: \\- \\(aq \\(dq
\\e \\& \\fX, request lines (.ft) dropped, a leading "$ " prompt dropped, a
line ending in \\ (or in && or |) joined with the next.  A line is a COMMAND
when its first word, after any NAME=value assignments, is one of COMMANDS or
a ./program, and that word is not followed by ':' (so "patchverify: FILE:
LEVEL: ..." and "recordmcount: a.o: error: ..." are output formats, not
commands).  A block with no command is a format or a code sample and is not
run.  The lines under a command, up to the next command, are its output as
the page prints it; the command must exit non-zero when they hold an
"NAME: ...: error:" line of its own (NAME the command's name), 0 otherwise
(a "patchsite: error:" line under ./prog is the runtime's: the program runs).
"""
import os
import re
import sys

sys.path.insert(0, __file__.rsplit('/', 1)[0])
from readme import mask_numbers as mask  # noqa: E402  the README check's masking

COMMANDS = {'patchsite', 'patchverify', 'recordmcount', 'gcc', 'make', 'python3',
            'readelf', 'patchsite-cc', 'patchsite-c++'}


def unescape(line):
    for a, b in (('\\-', '-'), ('\\(aq', "'"), ('\\(dq', '"'), ('\\e', '\\'),
                 ('\\&', '')):
        line = line.replace(a, b)
    return re.sub(r'\\f[BIRP]', '', line)


def cmd_word(line):
    """The command's name: its first word after NAME=value assignments."""
    words = line.split()
    while words and re.match(r'^[A-Z_][A-Z0-9_]*=', words[0]):
        words.pop(0)
    return words[0] if words else ''


def is_command(line):
    w = cmd_word(line)
    return not w.endswith(':') and (w in COMMANDS or w.startswith('./'))


def blocks(page):
    """Each example block: a list of [command, [output lines]]."""
    text = open(page).read()
    out = []
    for raw in re.findall(r'^\.nf\n(.*?)^\.fi$', text, re.S | re.M):
        lines, cur = [], ''
        for line in raw.split('\n'):
            if line.startswith('.'):
                continue
            line = unescape(line)
            if cur:
                line = cur + ' ' + line.strip()
                cur = ''
            if line.endswith('\\'):
                cur = line[:-1].rstrip()
                continue
            if re.search(r'(&&|\|)\s*$', line):
                cur = line.rstrip()
                continue
            lines.append(line)
        cmds = []
        for line in lines:
            s = line[2:] if line.startswith('$ ') else line
            if is_command(s.strip()):
                cmds.append([s.strip(), []])
            elif cmds and line.strip():
                cmds[-1][1].append(line)
        if cmds:
            out.append(cmds)
    return out


# Under the sanitizers (man_examples.sh san): the runtime is an ASan build, which
# neither loads into a program started without them (LD_PRELOAD=libpatchsite.so
# ./prog, record -p) nor links into one (its archive, object and library): such a
# command is left out, and the rest of its block with it (they act on what it
# started or built).
SAN_ONLY = ('LD_PRELOAD=', 'record -p', 'pkg-config --libs', '-l:libpatchsite.a', 'patchsite_o')
SAN_WHY = 'under san: loads or links the ASan runtime into a program started or built without it'


def script(page, outdir, skipfile, mode='plain'):
    skip = {}
    for line in open(skipfile):
        if line.strip() and not line.startswith('#'):
            cmd, why = line.rstrip('\n').split('\t', 1)
            skip[cmd] = why
    sh = ['__bg=']
    meta = []
    k = 0
    for b, cmds in enumerate(blocks(page), 1):
        sh.append('# block %d' % b)
        san_skip = False
        for cmd, exp in cmds:
            if mode == 'san' and (san_skip or any(w in cmd for w in SAN_ONLY)):
                skip.setdefault(cmd, SAN_WHY)
                san_skip = True
            k += 1
            with open('%s/exp.%d' % (outdir, k), 'w') as f:
                f.write(''.join(l + '\n' for l in exp))
            # A refusal: an error line from the command itself (patchsite:
            # lines under ./prog are the runtime's, and the program runs on).
            name = os.path.basename(cmd_word(cmd))
            err = any(l.startswith(name + ':') and ': error:' in l for l in exp)
            # A program left running (cmd & ...): killed at the page's end.
            bg = re.search(r'(^|[^&])&([^&]|$)', cmd.split('#')[0]) is not None
            status = 'bg' if bg else 'nz' if err else '0'
            if cmd in skip:
                status = 'skip'
                sh.append('echo "%d skip" >>"$MX/rc"' % k)
            else:
                sh.append('{ %s\n} >"$MX/o.%d" 2>&1 </dev/null; echo "%d $?" >>"$MX/rc"' % (cmd, k, k))
                if bg:
                    sh.append('__bg="$__bg $!"')
            meta.append('%d\t%s\t%s\t%s' % (k, status, cmd, skip.get(cmd, '')))
    sh.append('for p in $__bg; do kill $p 2>/dev/null; wait $p 2>/dev/null; done; exit 0')
    open(outdir + '/run.sh', 'w').write('\n'.join(sh) + '\n')
    open(outdir + '/cmds', 'w').write(''.join(m + '\n' for m in meta))
    return 0


def norm(text):
    return ' '.join(mask(l) for l in text.split('\n')).replace('  ', ' ')


def compare(exp, out):
    real = re.sub(r' +', ' ', norm(open(out, errors='replace').read()))
    bad = 0
    for line in open(exp).read().split('\n'):
        if not line.strip():
            continue
        want = re.sub(r' +', ' ', mask(line)).strip()
        pat = '.*'.join(re.escape(p.strip()) for p in want.split('...'))
        if not re.search(pat, real):
            print('not in the output (numbers masked): %s' % line)
            bad = 1
    return bad


if __name__ == '__main__':
    if sys.argv[1] == 'script':
        sys.exit(script(*sys.argv[2:6]))
    if sys.argv[1] == 'compare':
        sys.exit(compare(*sys.argv[2:4]))
    sys.exit(2)
