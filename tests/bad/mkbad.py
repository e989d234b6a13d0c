#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Make deliberately broken objects from clean ones, one file per case.

    mkbad.py OUTDIR CLEAN64LE CLEAN32LE CLEAN64BE

Each case changes one thing (a header field, a section header, a symbol,
a relocation, a string table byte) or cuts the file short; the names say
what.  tests/bad/run.sh holds the message and exit status each must give.
Standard library only; fields are read and written in the file's own
class and byte order.
"""
import os
import struct
import sys

# ELF header: name -> (offset64, offset32, size64, size32)
EH = {
    'e_type': (16, 16, 2, 2), 'e_machine': (18, 18, 2, 2),
    'e_shoff': (40, 32, 8, 4), 'e_shentsize': (58, 46, 2, 2),
    'e_shnum': (60, 48, 2, 2), 'e_shstrndx': (62, 50, 2, 2),
}
# Section header fields: name -> (offset64, offset32, size64, size32)
SH = {
    'sh_name': (0, 0, 4, 4), 'sh_type': (4, 4, 4, 4), 'sh_flags': (8, 8, 8, 4),
    'sh_offset': (24, 16, 8, 4), 'sh_size': (32, 20, 8, 4),
    'sh_link': (40, 24, 4, 4), 'sh_info': (44, 28, 4, 4),
    'sh_addralign': (48, 32, 8, 4), 'sh_entsize': (56, 36, 8, 4),
}
SHT_SYMTAB, SHT_STRTAB, SHT_RELA, SHT_REL = 2, 3, 4, 9


class Elf:
    def __init__(self, data):
        self.b = bytearray(data)
        self.is64 = self.b[4] == 2
        self.end = '<' if self.b[5] == 1 else '>'

    def _fmt(self, size):
        return self.end + {1: 'B', 2: 'H', 4: 'I', 8: 'Q'}[size]

    def get(self, off, size):
        return struct.unpack_from(self._fmt(size), self.b, off)[0]

    def put(self, off, size, val):
        struct.pack_into(self._fmt(size), self.b, off, val % (1 << (8 * size)))

    def _field(self, table, name):
        o64, o32, s64, s32 = table[name]
        return (o64, s64) if self.is64 else (o32, s32)

    def eh(self, name, val=None):
        off, size = self._field(EH, name)
        if val is None:
            return self.get(off, size)
        self.put(off, size, val)

    def shdr_off(self, i):
        return self.eh('e_shoff') + i * self.eh('e_shentsize')

    def sh(self, i, name, val=None):
        off, size = self._field(SH, name)
        if val is None:
            return self.get(self.shdr_off(i) + off, size)
        self.put(self.shdr_off(i) + off, size, val)

    def shnum(self):
        return self.eh('e_shnum')

    def name(self, i):
        st = self.eh('e_shstrndx')
        off = self.sh(st, 'sh_offset') + self.sh(i, 'sh_name')
        return bytes(self.b[off:self.b.index(0, off)]).decode()

    def find(self, name):
        return next(i for i in range(self.shnum()) if self.name(i) == name)

    def find_type(self, t):
        return next(i for i in range(1, self.shnum()) if self.sh(i, 'sh_type') == t)

    def code_rel(self):
        """The first REL/RELA section that applies to code, and its target."""
        for i in range(1, self.shnum()):
            if self.sh(i, 'sh_type') in (SHT_REL, SHT_RELA) and self.sh(i, 'sh_size'):
                tgt = self.sh(i, 'sh_info')
                if self.sh(tgt, 'sh_flags') & 4:
                    return i, tgt
        raise LookupError('no code relocations')

    def rel_field(self, rs, k, what, val):
        """Set r_offset or the symbol of relocation k of section rs."""
        ent = self.sh(rs, 'sh_entsize')
        base = self.sh(rs, 'sh_offset') + k * ent
        word = 8 if self.is64 else 4
        if what == 'offset':
            self.put(base, word, val)
        elif self.is64:		# r_info: symbol in the high 32 bits
            info = self.get(base + 8, 8)
            self.put(base + 8, 8, (val << 32) | (info & 0xffffffff))
        else:			# r_info: symbol in the high 24 bits
            info = self.get(base + 4, 4)
            self.put(base + 4, 4, (val << 8) | (info & 0xff))


def cases(c64, c32, be64):
    """Yield (name, bytes) for every case."""
    yield 'empty', b''
    yield 'not-elf', b'This is plain text, not an object file.\n' * 8
    yield 'elf-magic-only', c64[:4]
    member = b'%-16s%-12s%-6s%-6s%-8s%-10d`\n' % (b'sample.o/', b'0', b'0', b'0', b'644', len(c64))
    yield 'archive.a', b'!<arch>\n' + member + c64 + b'\n' * (len(c64) % 2)
    yield 'bad-class', c64[:4] + b'\x07' + c64[5:]
    yield 'bad-data', c64[:5] + b'\x05' + c64[6:]

    e = Elf(c64)
    # Truncated at every field boundary of the ELF header ...
    for n in (5, 6, 7, 16, 18, 20, 24, 32, 40, 48, 52, 54, 56, 58, 60, 62, 63):
        yield 'trunc-ehdr-%d' % n, c64[:n]
    # ... inside the section header table at each entry, and at each section.
    for i in range(e.shnum()):
        yield 'trunc-shdr-%d' % i, c64[:e.shdr_off(i) + (13 if i == 0 else 0)]
    seen = set()
    for i in range(1, e.shnum()):
        off = e.sh(i, 'sh_offset')
        if e.sh(i, 'sh_type') != 8 and 64 < off < e.eh('e_shoff') and off not in seen:
            seen.add(off)
            yield 'trunc-sec-%d' % i, c64[:off]

    def mut(name, fn, base=c64):
        x = Elf(base)
        fn(x)
        return name, bytes(x.b)

    text, symtab = e.find('.text'), e.find_type(SHT_SYMTAB)
    strtab, shstr = e.sh(symtab, 'sh_link'), e.eh('e_shstrndx')
    rs, tgt = e.code_rel()
    size = len(c64)
    yield mut('sec-offset-past-eof', lambda x: x.sh(text, 'sh_offset', size + 16))
    yield mut('sec-size-past-eof', lambda x: x.sh(text, 'sh_size', size))
    yield mut('sec-size-wraps', lambda x: x.sh(text, 'sh_size', (1 << 64) - 8))
    yield mut('symtab-past-eof', lambda x: x.sh(symtab, 'sh_size', size * 4))
    yield mut('shoff-past-eof', lambda x: x.eh('e_shoff', size + 64))
    yield mut('overlap-sections', lambda x: x.sh(rs, 'sh_offset', x.sh(tgt, 'sh_offset')))
    yield mut('overlap-ehdr', lambda x: x.sh(text, 'sh_offset', 0))
    yield mut('overlap-shdrs', lambda x: x.sh(strtab, 'sh_offset', x.eh('e_shoff')))
    yield mut('rel-link-range', lambda x: x.sh(rs, 'sh_link', 0xfff0))
    yield mut('rel-info-range', lambda x: x.sh(rs, 'sh_info', 0xfff0))
    yield mut('symtab-link-range', lambda x: x.sh(symtab, 'sh_link', 0xfff0))
    yield mut('symtab-link-not-strtab', lambda x: x.sh(symtab, 'sh_link', text))
    yield mut('shstrndx-range', lambda x: x.eh('e_shstrndx', e.shnum() + 3))
    yield mut('shentsize-bad', lambda x: x.eh('e_shentsize', 40))
    yield mut('rel-sym-range', lambda x: x.rel_field(rs, 0, 'sym', 0xfffff))
    yield mut('rel-offset-past-section',
              lambda x: x.rel_field(rs, 0, 'offset', x.sh(tgt, 'sh_size') + 16))
    yield mut('rel-offset-huge', lambda x: x.rel_field(rs, 0, 'offset', (1 << 64) - 2))
    yield mut('sec-name-range', lambda x: x.sh(text, 'sh_name', 0xfffffff0))

    def unterminate(x, sec):
        off = x.sh(sec, 'sh_offset') + x.sh(sec, 'sh_size') - 1
        x.b[off] = ord('A')
    yield mut('strtab-unterminated', lambda x: unterminate(x, strtab))
    yield mut('shstrtab-unterminated', lambda x: unterminate(x, shstr))

    def bogus_count(x):
        x.eh('e_shnum', 0)
        x.sh(0, 'sh_size', 0x7ffffff0)
    yield mut('shnum0-bogus-count', bogus_count)

    def bogus_strndx(x):
        x.eh('e_shstrndx', 0xffff)
        x.sh(0, 'sh_link', 0x7ffffff0)
    yield mut('shstrndx-xindex-bogus', bogus_strndx)
    yield mut('exec-type', lambda x: x.eh('e_type', 2))
    yield mut('unknown-machine', lambda x: x.eh('e_machine', 0x7777))

    # Class and byte order that lie about the rest of the file.
    yield 'class32-of-64', c64[:4] + b'\x01' + c64[5:]
    yield 'class64-of-32', c32[:4] + b'\x02' + c32[5:]
    yield 'big-endian-lie', c64[:5] + b'\x02' + c64[6:]
    yield 'little-endian-lie', be64[:5] + b'\x01' + be64[6:]
    b = Elf(be64)
    brs, btgt = b.code_rel()
    yield mut('be-rel-offset-past-section',
              lambda x: x.rel_field(brs, 0, 'offset', x.sh(btgt, 'sh_size') + 4), be64)
    yield mut('be-sec-size-past-eof', lambda x: x.sh(btgt, 'sh_size', len(be64)), be64)
    s = Elf(c32)
    srs, stgt = s.code_rel()
    yield mut('elf32-rel-sym-range', lambda x: x.rel_field(srs, 0, 'sym', 0xffff), c32)
    yield mut('elf32-sec-offset-past-eof',
              lambda x: x.sh(stgt, 'sh_offset', len(c32) + 4), c32)


def main():
    out = sys.argv[1]
    clean = [open(p, 'rb').read() for p in sys.argv[2:5]]
    os.makedirs(out, exist_ok=True)
    for name, data in cases(*clean):
        with open(os.path.join(out, name if '.' in name else name + '.o'), 'wb') as f:
            f.write(data)


if __name__ == '__main__':
    main()
