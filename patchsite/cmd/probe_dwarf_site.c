// SPDX-License-Identifier: GPL-2.0-only
/*
 * clang -pg -mfentry starts its parameters' location lists after the call
 * to __fentry__ that is the function's first instruction (gcc starts them
 * at the entry): at the entry itself DWARF says nothing.  That call
 * preserves every argument register and returns with the same stack
 * pointer (it is the profiling ABI's contract, which the runtime's
 * trampoline at that site keeps too), so a location that holds after it
 * held at the entry.  probe_dwarf.c reads the lists there only when the
 * entry has none and the first instruction is a call, whose length this
 * gives: a call the program makes to anything else is not at the very
 * entry with arguments live and no location (compilers describe those).
 * aarch64's patchable entry (two NOPs) is the same kind of site, 8 bytes.
 */
#include <gelf.h>
#include <string.h>

#include "probe_dwarf_site.h"

#define A64_NOP 0xd503201fu	/* hint #0 */

/*
 * aarch64's -fpatchable-function-entry=2: two NOPs at the symbol, which
 * the runtime makes `mov x9, x30; bl trampoline` (argument registers and
 * sp kept).  gcc puts them before the function's DWARF start (its low_pc
 * is the symbol + 8: nothing there describes the NOPs); clang inside it.
 */
static unsigned a64_patch_area(const unsigned char *b)
{
	uint32_t w0, w1;

	memcpy(&w0, b, 4);	/* little-endian: this command runs on x86-64 or aarch64 hosts */
	memcpy(&w1, b + 4, 4);
	return w0 == A64_NOP && w1 == A64_NOP ? 8 : 0;
}

unsigned probe_dwarf_entry_call_len(Dwfl_Module *mod, Dwarf_Addr addr)
{
	Dwarf_Addr off = addr, bias;
	Elf *elf = dwfl_module_getelf(mod, &bias);
	Elf_Scn *scn = dwfl_module_address_section(mod, &off, &bias);
	GElf_Ehdr eh;
	Elf_Data *d;
	unsigned char b[8];

	if (!elf || !scn || !gelf_getehdr(elf, &eh) ||
	    (eh.e_machine != EM_X86_64 && eh.e_machine != EM_AARCH64))
		return 0;
	d = elf_getdata(scn, NULL);
	if (!d || !d->d_buf || off + sizeof(b) > d->d_size)
		return 0;
	memcpy(b, (const char *)d->d_buf + off, sizeof(b));
	if (eh.e_machine == EM_AARCH64)
		return a64_patch_area(b);
	if (b[0] == 0xe8)
		return 5;			/* call rel32 */
	if (b[0] == 0xff && b[1] == 0x15)
		return 6;			/* call *rel32(%rip), through the GOT */
	return 0;
}
