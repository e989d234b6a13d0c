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
 */
#include <gelf.h>
#include <string.h>

#include "probe_dwarf_site.h"

unsigned probe_dwarf_entry_call_len(Dwfl_Module *mod, Dwarf_Addr addr)
{
	Dwarf_Addr off = addr, bias;
	Elf *elf = dwfl_module_getelf(mod, &bias);
	Elf_Scn *scn = dwfl_module_address_section(mod, &off, &bias);
	GElf_Ehdr eh;
	Elf_Data *d;
	unsigned char b[2];

	if (!elf || !scn || !gelf_getehdr(elf, &eh) || eh.e_machine != EM_X86_64)
		return 0;
	d = elf_getdata(scn, NULL);
	if (!d || !d->d_buf || off + sizeof(b) > d->d_size)
		return 0;
	memcpy(b, (const char *)d->d_buf + off, sizeof(b));
	if (b[0] == 0xe8)
		return 5;			/* call rel32 */
	if (b[0] == 0xff && b[1] == 0x15)
		return 6;			/* call *rel32(%rip), through the GOT */
	return 0;
}
