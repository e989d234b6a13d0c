// SPDX-License-Identifier: GPL-2.0-only
/*
 * What attach reads of a target's ELF files (patchsite/cmd/attach/attach_target.c)
 * on arbitrary bytes: the site tables it looks for, symbols of both tables
 * (functions and data: the loader's _r_debug), DT_NEEDED and PT_INTERP.  The
 * files are the target's own, which another user may have written.
 * Besides memory errors: a DT_NEEDED name handed out lies inside the file,
 * NUL included, and the interpreter's path is a C string.
 */
#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "attach_target.h"

static volatile unsigned long sink;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct file f = { .p = data, .size = size };
	char interp[64];
	const char *need;

	if (size < sizeof(Elf64_Ehdr))
		return 0;	/* target_file_open refuses it */
	sink += target_file_has_sites(&f);
	sink += target_file_symbol(&f, "patchsite_init", true);
	sink += target_file_symbol(&f, "pthread_create", false);
	sink += target_file_object(&f, "_r_debug");
	need = target_file_needed(&f, "lib");
	if (need && (need < (const char *)data || need >= (const char *)data + size ||
		     !memchr(need, '\0', (size_t)((const char *)data + size - need))))
		abort();
	if (target_file_interp(&f, interp, sizeof(interp)) && strlen(interp) >= sizeof(interp))
		abort();
	return 0;
}
