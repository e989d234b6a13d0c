// SPDX-License-Identifier: GPL-2.0-only
/*
 * The entries of a linked file: one per address, the union of defined
 * function symbols (.symtab and .dynsym, IFUNC resolvers included: the
 * loader calls them) and .eh_frame FDE starts, the last being all a
 * stripped file has.  Aliases at one address are one entry.  Fragments
 * (noflag_ehframe.c says which FDEs; a symbol named *.cold is one whatever
 * its FDE says) are kept as entries flagged so: their starts and branches
 * still count as hazards, but they are never sites.  PLT sections hold no
 * entries (their code belongs to the loader's protocol, not a function).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "noflag.h"

#define STT_GNU_IFUNC_ 10	/* gelf's STT_GNU_IFUNC, without <elf.h> */
#define SHT_NOTE_ 7
#define NT_GNU_BUILD_ID_ 3

struct entlist {
	struct nf_ent *v;
	size_t n, cap;
};

static int push(struct entlist *l, const struct nf_ent *e)
{
	if (nf_grow(&l->v, &l->cap, l->n, sizeof(*l->v)))
		return -ENOMEM;
	l->v[l->n++] = *e;
	return 0;
}

static bool is_plt(const char *name)
{
	return !strcmp(name, ".plt") || !strcmp(name, ".plt.got") || !strcmp(name, ".plt.sec") ||
	       !strcmp(name, ".iplt");
}

static int collect_text(struct nf_file *f)
{
	size_t n = elfobj_shnum(f->o);

	f->text = calloc(n ? n : 1, sizeof(*f->text));
	if (!f->text)
		return -ENOMEM;
	for (size_t i = 1; i < n; i++) {
		const struct eo_sec *s = elfobj_sec(f->o, i);
		if (s->type != EO_SHT_PROGBITS || !(s->flags & EO_SHF_EXECINSTR) ||
		    !(s->flags & EO_SHF_ALLOC) || !s->size)
			continue;
		f->text[f->ntext++] = (struct nf_text){ s->addr, s->size, elfobj_sec_bytes(f->o, i),
							is_plt(s->name) };
	}
	return 0;
}

/* gcc's names for split-off cold parts: foo.cold, foo.part.0.cold, foo.cold.12 (older gcc). */
static bool cold_name(const char *name)
{
	const char *p = name;

	while ((p = strstr(p, ".cold"))) {
		p += 5;
		if (!*p || (*p == '.' && p[1] >= '0' && p[1] <= '9'))
			return true;
	}
	return false;
}

static int add_sym(struct nf_file *f, struct entlist *l, const struct eo_sym *s)
{
	const struct nf_text *t;

	if (!s->defined || (s->type != EO_STT_FUNC && s->type != STT_GNU_IFUNC_) || !s->name[0])
		return 0;
	t = nf_text_of(f, s->value);
	if (!t || t->plt)
		return 0;
	struct nf_ent e = { .addr = s->value, .name = s->name, .sym = true,
			    .end = s->value + s->size, .has_end = s->size != 0,
			    .fragment = cold_name(s->name) ? "cold-name" : NULL };
	return push(l, &e);
}

static int add_fde(void *arg, uint64_t start, uint64_t size, const char *fragment)
{
	struct nf_file *f = ((void **)arg)[0];
	struct entlist *l = ((void **)arg)[1];
	const struct nf_text *t = nf_text_of(f, start);
	struct nf_ent e = { .addr = start, .end = start + size, .has_end = true, .fde = true,
			    .fragment = fragment };

	if (!t || t->plt)
		return 0;	/* a discarded function's FDE (start 0), or the PLT's */
	return push(l, &e);
}

static int cmp_ent(const void *a, const void *b)
{
	const struct nf_ent *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* FDE first, then globals: the merge keeps the FDE's range and a global's name. */
	return (int)y->fde - (int)x->fde;
}

/* Merge into d what alias s adds: a name, a range, a reason to be a fragment. */
static void merge(struct nf_ent *d, const struct nf_ent *s)
{
	if (!d->name || (s->name && cold_name(d->name) && !cold_name(s->name)))
		d->name = s->name;
	if (!d->has_end && s->has_end) {
		d->end = s->end;
		d->has_end = true;
	}
	if (!d->fragment)
		d->fragment = s->fragment;
	d->fde |= s->fde;
	d->sym |= s->sym;
}

/* Sort, merge aliases, and give entries with no known range one up to the next start. */
static void settle(struct nf_file *f, struct entlist *l)
{
	size_t n = 0;

	if (l->n)	/* qsort wants a non-null array even for none */
		qsort(l->v, l->n, sizeof(*l->v), cmp_ent);
	for (size_t i = 0; i < l->n; i++) {
		if (n && l->v[n - 1].addr == l->v[i].addr)
			merge(&l->v[n - 1], &l->v[i]);
		else
			l->v[n++] = l->v[i];
	}
	for (size_t i = 0; i < n; i++) {
		const struct nf_text *t = nf_text_of(f, l->v[i].addr);
		uint64_t limit = t->addr + t->size;
		if (i + 1 < n && l->v[i + 1].addr < limit)
			limit = l->v[i + 1].addr;
		if (!l->v[i].has_end || l->v[i].end > t->addr + t->size)
			l->v[i].end = limit;
	}
	f->ents = l->v;
	f->nents = n;
}

/* The GNU build-id note, as hex, or "" when the file has none. */
static void read_buildid(struct nf_file *f)
{
	for (size_t i = 1; i < elfobj_shnum(f->o); i++) {
		const struct eo_sec *s = elfobj_sec(f->o, i);
		const uint8_t *p = elfobj_sec_bytes(f->o, i);
		uint64_t off = 0;

		if (s->type != SHT_NOTE_ || !p)
			continue;
		while (off + 12 <= s->size) {
			uint32_t nsz, dsz, type;
			memcpy(&nsz, p + off, 4);
			memcpy(&dsz, p + off + 4, 4);
			memcpy(&type, p + off + 8, 4);
			uint64_t name = off + 12, desc = name + ((nsz + 3ull) & ~3ull);
			if (desc + dsz > s->size)
				break;
			if (type == NT_GNU_BUILD_ID_ && nsz == 4 && !memcmp(p + name, "GNU", 4) &&
			    dsz && dsz * 2 < sizeof(f->buildid)) {
				for (uint32_t k = 0; k < dsz; k++)
					snprintf(f->buildid + 2 * k, 3, "%02x", p[desc + k]);
				return;
			}
			off = desc + ((dsz + 3ull) & ~3ull);
		}
	}
}

int nf_entries(struct nf_file *f)
{
	struct entlist l = { 0 };
	void *arg[2] = { f, &l };
	int err = collect_text(f);

	read_buildid(f);
	for (size_t i = 1; !err && i < elfobj_nsyms(f->o); i++)
		err = add_sym(f, &l, elfobj_sym(f->o, i));
	for (size_t i = 1; !err && i < elfquery_ndynsyms(f->q); i++)
		err = add_sym(f, &l, elfquery_dynsym(f->q, i));
	if (!err)
		err = nf_ehframe(f, add_fde, arg, &f->nfdes);
	if (err) {
		free(l.v);
		if (err == -ENOMEM)
			diag_err(f->path, "out of memory");
		return -1;
	}
	settle(f, &l);
	return 0;
}
