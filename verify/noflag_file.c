// SPDX-License-Identifier: GPL-2.0-only
/*
 * The arrays of a struct nf_file (noflag.h) and the lookups every step
 * makes in them: which executable section holds an address, which entry's
 * range, which element of H lies in an interval.  The bottom of the
 * --noflag modules: it calls none of them.
 */
#include <errno.h>
#include <stdlib.h>

#include "noflag.h"

const struct nf_text *nf_text_of(const struct nf_file *f, uint64_t addr)
{
	for (size_t i = 0; i < f->ntext; i++)
		if (addr >= f->text[i].addr && addr - f->text[i].addr < f->text[i].size)
			return &f->text[i];
	return NULL;
}

const uint8_t *nf_code_at(const struct nf_file *f, uint64_t addr, uint64_t *avail)
{
	const struct nf_text *t = nf_text_of(f, addr);

	if (!t || !t->bytes)
		return NULL;
	*avail = t->size - (addr - t->addr);
	return t->bytes + (addr - t->addr);
}

bool nf_in_text(const struct nf_file *f, uint64_t addr)
{
	return nf_text_of(f, addr) != NULL;
}

/* Room for one more element in *v (cap elements of size each, n used). */
int nf_grow(void *v, size_t *cap, size_t n, size_t size)
{
	void **pv = v;

	if (n < *cap)
		return 0;
	size_t ncap = *cap ? 2 * *cap : 256;
	void *nv = realloc(*pv, ncap * size);
	if (!nv)
		return -ENOMEM;
	*pv = nv;
	*cap = ncap;
	return 0;
}

int nf_hazard_add(struct nf_file *f, uint64_t addr, uint8_t why)
{
	if (nf_grow(&f->hz, &f->hzcap, f->nhz, sizeof(*f->hz)))
		return -ENOMEM;
	f->hz[f->nhz++] = (struct nf_hazard){ addr, why, (why & HZ_BRANCH) != 0 };
	return 0;
}

int nf_tablejmp_add(struct nf_file *f, uint64_t addr)
{
	if (nf_grow(&f->tablejmp, &f->tjcap, f->ntablejmp, sizeof(*f->tablejmp)))
		return -ENOMEM;
	f->tablejmp[f->ntablejmp++] = addr;
	return 0;
}

int nf_fragref_add(struct nf_file *f, size_t frag, uint64_t src)
{
	if (nf_grow(&f->fragref, &f->frcap, f->nfragref, sizeof(*f->fragref)))
		return -ENOMEM;
	f->fragref[f->nfragref++] = (struct nf_fragref){ frag, src };
	return 0;
}

int nf_ptrjump_add(struct nf_file *f, const struct nf_ptrjump *pj)
{
	if (nf_grow(&f->ptrjump, &f->pjcap, f->nptrjump, sizeof(*f->ptrjump)))
		return -ENOMEM;
	f->ptrjump[f->nptrjump++] = *pj;
	return 0;
}

int nf_hoisted_add(struct nf_file *f, const struct nf_hoisted *ho)
{
	if (nf_grow(&f->hoisted, &f->hocap, f->nhoisted, sizeof(*f->hoisted)))
		return -ENOMEM;
	f->hoisted[f->nhoisted++] = *ho;
	return 0;
}

int nf_pictable_add(struct nf_file *f, const struct nf_pictable *pt)
{
	if (nf_grow(&f->pictable, &f->ptcap, f->npictable, sizeof(*f->pictable)))
		return -ENOMEM;
	f->pictable[f->npictable++] = *pt;
	return 0;
}

struct nf_ent *nf_ent_holding(const struct nf_file *f, uint64_t addr)
{
	size_t a = 0, b = f->nents;

	while (a < b) {		/* the first entry after addr */
		size_t m = a + (b - a) / 2;
		if (f->ents[m].addr <= addr)
			a = m + 1;
		else
			b = m;
	}
	return a && addr < f->ents[a - 1].end ? &f->ents[a - 1] : NULL;
}

const struct nf_hazard *nf_hazard_in(const struct nf_file *f, uint64_t lo, uint64_t hi)
{
	size_t a = 0, b = f->nhz;

	while (a < b) {		/* the first element > lo */
		size_t m = a + (b - a) / 2;
		if (f->hz[m].addr <= lo)
			a = m + 1;
		else
			b = m;
	}
	return a < f->nhz && f->hz[a].addr < hi ? &f->hz[a] : NULL;
}

bool nf_tablejmp_in(const struct nf_file *f, uint64_t lo, uint64_t hi)
{
	size_t a = 0, b = f->ntablejmp;

	while (a < b) {		/* the first element >= lo */
		size_t m = a + (b - a) / 2;
		if (f->tablejmp[m] < lo)
			a = m + 1;
		else
			b = m;
	}
	return a < f->ntablejmp && f->tablejmp[a] < hi;
}
