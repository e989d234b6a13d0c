// SPDX-License-Identifier: GPL-2.0-only
/*
 * Instructions as text, for messages and --list, and the instruction-start
 * test for arches whose instructions have no alignment (x86).  Capstone 4
 * serves every arch it knows; riscv64 and sh are not among them, so their
 * sites are described by the arch table's own call/NOP decoder alone
 * (--version says so).  Handles are opened on first use and kept, per
 * thread; each thread closes its own with disasm_cleanup().
 */
#include <capstone/capstone.h>
#include <stdio.h>
#include <string.h>

#include "verify.h"

struct engine {
	const char *arch;
	cs_arch csarch;
	cs_mode mode, thumb_mode;
};

static const struct engine engines[] = {
	{ "x86_64", CS_ARCH_X86, CS_MODE_64, CS_MODE_64 },
	{ "i386", CS_ARCH_X86, CS_MODE_32, CS_MODE_32 },
	{ "arm", CS_ARCH_ARM, CS_MODE_ARM, CS_MODE_THUMB },
	{ "aarch64", CS_ARCH_ARM64, CS_MODE_ARM, CS_MODE_ARM },
	{ "mips", CS_ARCH_MIPS, CS_MODE_MIPS32, CS_MODE_MIPS32 },
	{ "mips64", CS_ARCH_MIPS, CS_MODE_MIPS64, CS_MODE_MIPS64 },
	{ "ppc", CS_ARCH_PPC, CS_MODE_32, CS_MODE_32 },
	{ "ppc64", CS_ARCH_PPC, CS_MODE_64, CS_MODE_64 },
	{ "sparc64", CS_ARCH_SPARC, CS_MODE_V9, CS_MODE_V9 },
	{ "s390x", CS_ARCH_SYSZ, CS_MODE_BIG_ENDIAN, CS_MODE_BIG_ENDIAN },
};

struct handle {
	const struct engine *e;
	bool thumb, be, ok;
	csh h;
};

/* Per thread: a Capstone handle is not shared between threads (--jobs). */
static __thread struct handle handles[8];
static __thread size_t nhandles;

static const struct engine *engine_of(const struct arch *a)
{
	size_t i;

	for (i = 0; i < sizeof(engines) / sizeof(engines[0]); i++)
		if (!strcmp(engines[i].arch, a->name))
			return &engines[i];
	return NULL;
}

const char *disasm_engine(const struct arch *a)
{
	return engine_of(a) ? "Capstone" : "the arch table's own call/NOP decoder "
					   "(Capstone 4 has no support)";
}

static csh *handle_for(const struct arch *a, bool be, bool thumb)
{
	const struct engine *e = engine_of(a);
	struct handle *h;
	cs_mode mode;
	size_t i;

	if (!e)
		return NULL;
	thumb = thumb && e->thumb_mode != e->mode;
	for (i = 0; i < nhandles; i++)
		if (handles[i].e == e && handles[i].thumb == thumb && handles[i].be == be)
			return handles[i].ok ? &handles[i].h : NULL;
	if (nhandles == sizeof(handles) / sizeof(handles[0]))
		return NULL;
	h = &handles[nhandles++];
	*h = (struct handle){ .e = e, .thumb = thumb, .be = be };
	mode = thumb ? e->thumb_mode : e->mode;
	if (be && e->csarch != CS_ARCH_X86)
		mode |= CS_MODE_BIG_ENDIAN;
	h->ok = cs_open(e->csarch, mode, &h->h) == CS_ERR_OK;
	return h->ok ? &h->h : NULL;
}

unsigned disasm_one(const struct arch *a, bool big_endian, bool thumb, const uint8_t *p,
		    uint64_t avail, uint64_t addr, char *buf, size_t len)
{
	csh *h = handle_for(a, big_endian, thumb);
	cs_insn *insn;
	unsigned n;

	if (!h || !avail)
		return 0;
	if (cs_disasm(*h, p, avail < 16 ? avail : 16, addr, 1, &insn) != 1)
		return 0;
	snprintf(buf, len, "%s%s%s", insn->mnemonic, insn->op_str[0] ? " " : "", insn->op_str);
	n = insn->size;
	cs_free(insn, 1);
	return n;
}

bool disasm_is_insn_start(const struct arch *a, bool big_endian, bool thumb,
			  const uint8_t *code, uint64_t size, uint64_t base_addr,
			  uint64_t from, uint64_t at)
{
	csh *h = handle_for(a, big_endian, thumb);
	const uint8_t *p;
	uint64_t addr, pos = from;
	size_t left;
	cs_insn *insn;
	bool ok = true;

	if (!h || from > at || at > size)
		return true;	/* cannot tell: no accusation */
	insn = cs_malloc(*h);
	if (!insn)
		return true;
	p = code + from;
	left = size - from;
	addr = base_addr + from;
	while (pos < at) {
		if (!cs_disasm_iter(*h, &p, &left, &addr, insn))
			break;	/* undecodable: keep the benefit of the doubt */
		pos += insn->size;
	}
	if (pos < at)
		ok = true;
	else
		ok = pos == at;
	cs_free(insn, 1);
	return ok;
}

void disasm_cleanup(void)
{
	size_t i;

	for (i = 0; i < nhandles; i++)
		if (handles[i].ok)
			cs_close(&handles[i].h);
	nhandles = 0;
}
