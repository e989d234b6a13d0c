// SPDX-License-Identifier: GPL-2.0-only
/*
 * The shared ELF reader on arbitrary bytes: open, then touch everything a
 * tool may follow (every section's bytes, every symbol and its name, every
 * relocation of every REL/RELA section).  Besides memory errors it checks
 * the reader's contract: a failed open reports exactly one error, a good
 * one none, and what it hands out stays inside the file.
 */
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "elfobj.h"

static volatile uint64_t sink;

static void walk(struct elfobj *o)
{
	size_t i, k, n, nsyms = elfobj_nsyms(o);

	for (i = 0; i < elfobj_shnum(o); i++) {
		const struct eo_sec *s = elfobj_sec(o, i);
		const uint8_t *b = elfobj_sec_bytes(o, i);
		const struct eo_rel *r;

		sink += strlen(s->name);
		if (b && s->size)
			sink += b[0] + b[s->size - 1];
		if (!elfobj_is_rel_sec(o, i) || elfobj_rels(o, i, &r, &n))
			continue;
		for (k = 0; k < n; k++) {
			if (s->link == elfobj_symtab_index(o) && r[k].sym >= nsyms)
				abort();	/* promised to be checked */
			sink += r[k].offset + r[k].type;
		}
	}
	for (i = 0; i < nsyms; i++) {
		const struct eo_sym *s = elfobj_sym(o, i);

		sink += strlen(s->name) + s->value;
		if (s->defined && s->shndx >= elfobj_shnum(o))
			abort();
	}
	sink += elfobj_find_sec(o, "__mcount_loc");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_input(data, size);
	struct elfobj *o;
	int err = elfobj_open(path, &o);

	if (err ? fuzz_errors != 1 || o : fuzz_errors != 0)
		abort();	/* one diagnostic per failure, none on success */
	if (!err) {
		walk(o);
		elfobj_close(o);
	}
	return 0;
}
