// SPDX-License-Identifier: GPL-2.0-only
/*
 * clang starts its parameters' location lists after what it puts at the
 * very entry of a function for tracing (gcc starts them at the entry), so
 * at the entry itself DWARF says nothing:
 *  - -pg -mfentry: the call to __fentry__.  That call preserves every
 *    argument register and returns with the same stack pointer (it is the
 *    profiling ABI's contract, which the runtime's trampoline at that site
 *    keeps too);
 *  - -fpatchable-function-entry=N: the NOPs (x86-64's 0f 1f 44 00 08,
 *    after an endbr64 with -fcf-protection; aarch64's d503201f, after a
 *    `bti c`), which change nothing, as those landing pads do not.
 * So a location that holds after them held at the entry.  probe_dwarf.c
 * reads the lists there only when the entry has none; this gives how many
 * bytes they take.  A call the program makes to anything else is not at
 * the very entry with arguments live and no location (compilers describe
 * those), and any other instruction stops the skip.
 */
#include <gelf.h>
#include <string.h>

#include "probe_dwarf_site.h"

#define MAX_SKIP	16	/* the longest sled this reads past */

/*
 * The length of the x86-64 NOP at b (n bytes), or 0: 90, or 0f 1f /0
 * with its ModRM, SIB and displacement (Intel SDM vol. 2B, "NOP"), after
 * any 66 prefixes.  A NOP's memory operand is never accessed.
 */
static unsigned x86_nop(const unsigned char *b, unsigned n)
{
	unsigned i = 0, mod, rm, len;

	while (i < n && b[i] == 0x66)
		i++;
	if (i < n && b[i] == 0x90)
		return i + 1;
	if (i + 3 > n || b[i] != 0x0f || b[i + 1] != 0x1f || (b[i + 2] >> 3 & 7))
		return 0;
	mod = b[i + 2] >> 6;
	rm = b[i + 2] & 7;
	len = i + 3 + (mod != 3 && rm == 4);			/* SIB */
	len += mod == 1 ? 1 : mod == 2 || (mod == 0 && rm == 5) ? 4 : 0;
	if (mod == 0 && rm == 4 && len <= n && (b[i + 3] & 7) == 5)
		len += 4;					/* SIB with no base: disp32 */
	return len <= n ? len : 0;
}

static unsigned x86_skip(const unsigned char *b, unsigned n)
{
	static const unsigned char endbr64[] = { 0xf3, 0x0f, 0x1e, 0xfa };
	unsigned at = 0, k;

	if (n >= sizeof(endbr64) && !memcmp(b, endbr64, sizeof(endbr64)))
		at = sizeof(endbr64);	/* -fcf-protection: the rest follows it */
	if (at + 5 <= n && b[at] == 0xe8)
		return at + 5;			/* call rel32 */
	if (at + 6 <= n && b[at] == 0xff && b[at + 1] == 0x15)
		return at + 6;			/* call *rel32(%rip), through the GOT */
	while ((k = x86_nop(b + at, n - at)))
		at += k;
	return at;
}

static unsigned a64_skip(const unsigned char *b, unsigned n)
{
	unsigned at = 0;
	uint32_t w;

	for (; at + 4 <= n; at += 4) {
		memcpy(&w, b + at, 4);	/* little-endian, as the ELF files this reads */
		if (w != 0xd503201f && !(at == 0 && w == 0xd503245f))	/* nop; bti c first */
			break;
	}
	return at;
}

unsigned probe_dwarf_entry_skip(Dwfl_Module *mod, Dwarf_Addr addr)
{
	Dwarf_Addr off = addr, bias;
	Elf *elf = dwfl_module_getelf(mod, &bias);
	Elf_Scn *scn = dwfl_module_address_section(mod, &off, &bias);
	GElf_Ehdr eh;
	Elf_Data *d;
	unsigned char b[MAX_SKIP];
	unsigned n, skip;

	if (!elf || !scn || !gelf_getehdr(elf, &eh) || eh.e_ident[EI_DATA] != ELFDATA2LSB)
		return 0;
	d = elf_getdata(scn, NULL);
	if (!d || !d->d_buf || off >= d->d_size)
		return 0;
	n = d->d_size - off < sizeof(b) ? (unsigned)(d->d_size - off) : sizeof(b);
	memcpy(b, (const char *)d->d_buf + off, n);
	if (eh.e_machine == EM_X86_64)
		skip = x86_skip(b, n);
	else if (eh.e_machine == EM_AARCH64)
		skip = a64_skip(b, n);
	else
		skip = 0;
	return skip < n ? skip : 0;	/* the whole window NOPs: not a sled this knows */
}
