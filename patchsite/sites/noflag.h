/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What noflag.c (proof files, an object's sites) and noflag_arm.c (arming
 * them) share.
 */
#ifndef PS_NOFLAG_H
#define PS_NOFLAG_H

#include "noflag_proof.h"
#include "sites.h"

/* One site record of a proof, as kept (the name apart). */
struct nf_keep {
	uint64_t entry, site;
	uint32_t depth;
	char form;
	uint8_t nbytes, ninsns;
	uint8_t bytes[NF_MAX_BYTES];
	struct nf_insn insns[NF_MAX_INSNS];
	char *name;			/* NULL: nameless */
};

struct nf_proof {
	const char *file;
	char buildid[129];
	char path[4096];
	struct nf_keep *s;		/* by site address */
	size_t n;
	bool used;
};

/* What an object armed from its proof. */
struct ps_noflag {
	const struct nf_proof *proof;
	struct ps_sym *syms;		/* one per site, in order: its name */
	const char **why;		/* per site: the check that refused it, or NULL */
	size_t refused, bytes_changed;
	uint8_t *armed;			/* per site: its program SITE holds the jump (noflag_arm.c) */
	size_t narmed;
};

/* The proof's record of one of m's sites. */
static inline const struct nf_keep *ps_noflag_keep(const struct ps_module *m, const struct ps_site *s)
{
	return &m->noflag->proof->s[s->sym - m->noflag->syms];
}

#endif
