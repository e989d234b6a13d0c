#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""README.md's commands, for tests/docs/run.sh.

  readme.py commands README          the quick start's commands, one a line
  readme.py compare README N OUTPUT  command N's real output against the block
  readme.py more README              the commands of the ```sh block after it
  readme.py options README MANDIR    every `patchsite VERB ... --opt` README
                                     names is on man/patchsite-VERB.1
  readme.py paths DOC...             every path of the tree a doc names exists

The quick start is the first ```console block: '$ ' lines are commands, the
lines under one its output.  Outputs are compared by shape, as uftrace's
tests normalise run-to-run noise: numbers (times, pids, counts) and the
duration markers are masked, and a function_graph line keeps the call's
name and depth only, no duration (leaf or open varies with how threads interleave); every masked
line README shows must be a masked line of the real output, both or neither
empty, and a report's functions must be the same set.
"""
import re
import sys


def console_block(readme):
    lines = open(readme).read().split('\n')
    start = lines.index('```console') + 1
    end = lines.index('```', start)
    cmds = []
    for line in lines[start:end]:
        if line.startswith('$ '):
            cmds.append([line[2:], []])
        elif cmds:
            cmds[-1][1].append(line)
    return cmds


def more_block(readme):
    """The ```sh block after the quick start's: commands without output."""
    lines = open(readme).read().split('\n')
    start = lines.index('```console')
    start = lines.index('```sh', start) + 1
    return [l for l in lines[start:lines.index('```', start)] if l.strip()]


def mask_numbers(line):
    line = re.sub(r'[+!#*@$] +(?=\d)', ' ', line)     # ftrace's duration markers
    line = re.sub(r'\d+(\.\d+)? (ns|us|ms|s)\b', 'T', line)
    return re.sub(r'\d+(\.\d+)?', 'N', line)


def mask(line):
    line = mask_numbers(line)
    # function_graph: a call shown as a leaf in one run may be open in
    # another (a thread's lines merged inside it): keep the name only.
    m = re.match(r'^(.*?\|)[^|]*\| ( *)([\w.]+)\(\)( \{|;)$', line.rstrip())
    if m:
        line = '%s | %s%s' % (m.group(1), m.group(2), m.group(3))
    return re.sub(r' +', ' ', line).rstrip()


def compare(readme, n, path):
    shown = console_block(readme)[n - 1][1]
    real = open(path).read().rstrip('\n')
    real = real.split('\n') if real else []
    bad = 0
    if bool(shown) != bool(real):
        print('README shows %d lines, the command printed %d' % (len(shown), len(real)))
        bad = 1
    have = {mask(l) for l in real}
    for line in shown:
        if mask(line) not in have:
            print('README line not in the output (masked): %s' % line)
            bad = 1
    if shown and shown[0].lstrip().startswith('Total time'):
        fn = lambda ls: sorted(l.split()[-1] for l in ls[2:] if l.strip())
        if fn(shown) != fn(real):
            print('functions: README %s, output %s' % (fn(shown), fn(real)))
            bad = 1
    return bad


def page_text(path):
    t = open(path).read()
    t = re.sub(r'\\f[BIRP]', '', t).replace('\\-', '-').replace('\\&', '')
    return t


def options(readme, mandir):
    text = open(readme).read()
    # Inline code may wrap: each `...` span joined onto one line, and the
    # commands of the quick start's two blocks.
    text = re.sub(r'(?ms)^```.*?^```$', '', text)
    spans = [re.sub(r'\s+', ' ', t) for t in re.findall(r'`([^`]+)`', text)]
    spans += [cmd for cmd, _ in console_block(readme)] + more_block(readme)
    uses = []
    for t in spans:
        uses += re.findall(r'patchsite (record|replay|report|graph|dump|info|pipe|ctl)\b([^|>;]*)', t)
    bad, n = 0, 0
    for verb, rest in uses:
        page = page_text('%s/patchsite-%s.1' % (mandir, verb))
        for opt in re.findall(r'(?<![\w-])(--?[a-zA-Z][\w-]*)', rest):
            n += 1
            if not re.search(r'(?<![\w-])' + re.escape(opt) + r'(?![\w-])', page):
                print('README: patchsite %s %s: not on patchsite-%s.1' % (verb, opt, verb))
                bad = 1
    if not bad:
        print('%d options checked' % n)
    return bad


# Paths of other trees the docs name: the kernel's tool, SystemTap's header.
ELSEWHERE = {'scripts/recordmcount', 'sys/sdt.h'}
TOPS = ('lib/', 'include/', 'recordmcount/', 'verify/', 'patchsite/', 'tests/',
        'testdata/', 'bench/', 'scripts/', 'man/', 'docs/')


def paths(docs):
    """Every path a doc names in inline code (from a top-level folder of the
    tree, globs and {a,b} allowed) exists, so that a doc cannot name a file
    that moved or went."""
    import glob
    bad, n = 0, 0
    for doc in docs:
        text = re.sub(r'(?ms)^```.*?^```$', '', open(doc).read())
        for tok in re.findall(r'`([^`\n]+)`', text):
            for word in tok.split():
                word = word.rstrip('.,:;)').lstrip('(')
                # A source file named from inside patchsite/ (core/thread.c)
                # counts as a path too.
                inner = '/' in word and re.search(r'\.(c|h|S|sh|py|mk)$', word)
                if (not (word.startswith(TOPS) or inner) or word in ELSEWHERE or
                        re.search(r'[A-Z]{2,}|<|\$', word)):
                    continue
                alts = [word]
                m = re.search(r'\{([^}]*)\}', word)
                if m:
                    alts = [word[:m.start()] + a + word[m.end():] for a in m.group(1).split(',')]
                for a in alts:
                    n += 1
                    if not glob.glob(a) and not (inner and glob.glob('patchsite/' + a)):
                        print('%s: names %s, which is not in the tree' % (doc, a))
                        bad = 1
    if not bad:
        print('%d paths checked' % n)
    return bad


def main(argv):
    if argv[1] == 'commands':
        for cmd, _ in console_block(argv[2]):
            print(cmd)
        return 0
    if argv[1] == 'more':
        for cmd in more_block(argv[2]):
            print(cmd)
        return 0
    if argv[1] == 'compare':
        return compare(argv[2], int(argv[3]), argv[4])
    if argv[1] == 'options':
        return options(argv[2], argv[3])
    if argv[1] == 'paths':
        return paths(argv[2:])
    print('usage: readme.py commands|compare|options ...', file=sys.stderr)
    return 2


if __name__ == '__main__':
    sys.exit(main(sys.argv))
