// SPDX-License-Identifier: GPL-2.0-only
/*
 * Sites of code built without any flag (issue 37; shared design:
 * noflag.md §3.2, §3.4, §3.5).  The prover (patchverify --noflag --proof)
 * wrote, per object, which function entries have a site and the bytes it
 * displaces (include/noflag_proof.h); PATCHSITE_NOFLAG=FILE[:FILE...] names
 * such files.  At start-up, before main and with one thread:
 *
 *   1. every file is read whole; a damaged one is said in one line (file,
 *      line, why) and nothing of it is used;
 *   2. an object whose build-id (else path) is a file's gets one site per
 *      record of form a or b, of kind SITE_ENTRY_NOFLAG, named by the
 *      record (OBJECT+0xENTRY when nameless);
 *   3. arming: a site whose bytes in memory are not the recorded ones is
 *      refused (bytes-changed), as is one the arch cannot relocate (its
 *      check's name); the others get their out-of-line stub (the arch's
 *      write_noflag_stub, in the page of the object's stubs) and the
 *      program's SITE a jump to it.
 *
 * The ps_site is the stub's slot, not the program's SITE: the live
 * protocols of patch.c switch it between NOP and a call to the site's
 * stub, so the program's code is written once.  The stubs are a segment
 * of the object for them (ps_text_protect, the trap handler's lookup).
 * Objects loaded later and attach are not armed yet (said once).
 */
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "noflag_proof.h"
#include "sites.h"

#define NF_MAX_FILES 16

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
	struct ps_sym *syms;		/* one per site: its name */
	uintptr_t lo, hi;		/* the out-of-line stubs */
	uint8_t *stubs;			/* lo */
	size_t refused, bytes_changed;
};

static struct nf_proof proofs[NF_MAX_FILES];
static unsigned nproofs;

static int by_site(const void *a, const void *b)
{
	const struct nf_keep *x = a, *y = b;

	return x->site < y->site ? -1 : x->site > y->site;
}

static void proof_drop(struct nf_proof *p)
{
	for (size_t i = 0; i < p->n; i++)
		free(p->s[i].name);
	free(p->s);
	p->s = NULL;
	p->n = 0;
}

static bool keep(struct nf_proof *p, const struct nf_record *r, size_t *cap)
{
	struct nf_keep *k;

	if (p->n == *cap) {
		size_t c = *cap ? *cap * 2 : 64;
		struct nf_keep *g = realloc(p->s, c * sizeof(*g));

		if (!g)
			return false;
		p->s = g;
		*cap = c;
	}
	k = &p->s[p->n];
	*k = (struct nf_keep){ .entry = r->entry, .site = r->site, .depth = r->depth,
			       .form = r->form, .nbytes = r->nbytes, .ninsns = r->ninsns };
	memcpy(k->bytes, r->bytes, sizeof(k->bytes));
	memcpy(k->insns, r->insns, sizeof(k->insns));
	if (r->name[0] && !(k->name = strdup(r->name)))
		return false;
	p->n++;
	return true;
}

/* One file, whole: 0, or -1 when it is damaged or unreadable (said). */
static int proof_read(struct nf_proof *p, const char *file)
{
	struct nf_object o;
	struct nf_record *r = malloc(sizeof(*r));
	char err[256] = "";
	unsigned line = 0;
	size_t cap = 0;
	FILE *f = fopen(file, "re");
	int got = -1;

	p->file = file;
	if (!f || !r) {
		ps_log(PATCHSITE_LOG_WARNING, "PATCHSITE_NOFLAG: %s: %s: nothing armed from it", file,
		       strerror(errno));
		goto out;
	}
	if (nf_read_object(f, &o, &line, err, sizeof(err)))
		goto bad;
	memcpy(p->buildid, o.buildid, sizeof(p->buildid));
	memcpy(p->path, o.path, sizeof(p->path));
	while ((got = nf_read_record(f, r, &line, err, sizeof(err))) > 0)
		if (r->rec == NF_SITE && !keep(p, r, &cap)) {
			snprintf(err, sizeof(err), "line %u: out of memory", line);
			got = -1;
			break;
		}
	if (got < 0)
		goto bad;
	qsort(p->s, p->n, sizeof(*p->s), by_site);
	for (size_t i = 1; i < p->n; i++)
		if (p->s[i].site < p->s[i - 1].site + p->s[i - 1].nbytes) {
			snprintf(err, sizeof(err), "sites at %llx and %llx overlap",
				 (unsigned long long)p->s[i - 1].site, (unsigned long long)p->s[i].site);
			got = -1;
			goto bad;
		}
	got = 0;
	goto out;
bad:
	ps_log(PATCHSITE_LOG_WARNING, "PATCHSITE_NOFLAG: %s: %s: nothing armed from it", file, err);
	got = -1;
out:
	if (got)
		proof_drop(p);
	if (f)
		fclose(f);
	free(r);
	return got;
}

/* At start-up, before the objects are read (module.c). */
void ps_noflag_load(void)
{
	const char *v = getenv("PATCHSITE_NOFLAG");
	char *list, *save = NULL;

	if (!v || !*v)
		return;
	if (!ps.arch->write_noflag_stub) {
		ps_log(PATCHSITE_LOG_WARNING, "PATCHSITE_NOFLAG: %s: nothing armed",
		       ps.arch->noflag_refused);
		return;
	}
	list = strdup(v);
	for (char *f = list ? strtok_r(list, ":", &save) : NULL; f; f = strtok_r(NULL, ":", &save)) {
		if (nproofs == NF_MAX_FILES) {
			ps_log(PATCHSITE_LOG_WARNING, "PATCHSITE_NOFLAG: more than %d files: %s and "
			       "after not read", NF_MAX_FILES, f);
			break;
		}
		char *file = strdup(f);

		if (!file)
			break;
		if (!proof_read(&proofs[nproofs], file))
			nproofs++;
		else
			free(file);
	}
	free(list);
}

/* The object's GNU build-id in hex, from its loaded notes; "" when it has none. */
static void image_buildid(const struct dl_phdr_info *info, char *out, size_t size)
{
	out[0] = '\0';
	for (unsigned j = 0; j < info->dlpi_phnum; j++) {
		const Elf64_Phdr *q = &info->dlpi_phdr[j];
		const uint8_t *p = (const uint8_t *)(info->dlpi_addr + q->p_vaddr), *end;

		if (q->p_type != PT_NOTE)
			continue;
		for (end = p + q->p_memsz; p + sizeof(Elf64_Nhdr) <= end;) {
			const Elf64_Nhdr *nh = (const Elf64_Nhdr *)p;
			size_t name = (nh->n_namesz + 3) & ~3u, desc = (nh->n_descsz + 3) & ~3u;
			const uint8_t *d = p + sizeof(*nh) + name;

			if (d + desc > end)
				break;
			if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 &&
			    !memcmp(p + sizeof(*nh), "GNU", 4) && nh->n_descsz * 2 < size) {
				for (unsigned i = 0; i < nh->n_descsz; i++)
					snprintf(out + 2 * i, 3, "%02x", d[i]);
				return;
			}
			p = d + desc;
		}
	}
}

/* The proof of this object: by build-id when the proof has one, else by path. */
static struct nf_proof *proof_of(const struct ps_module *m, const struct dl_phdr_info *info)
{
	char id[129];

	image_buildid(info, id, sizeof(id));
	for (unsigned i = 0; i < nproofs; i++) {
		const struct nf_proof *p = &proofs[i];

		if (p->buildid[0] ? !strcmp(p->buildid, id) : !strcmp(p->path, m->path))
			return &proofs[i];
	}
	return NULL;
}

/*
 * The sites of m from its proof (module.c, for an object that has none of
 * its own; start-up only): in the order of the proof's sites, which is the
 * order of their slots.  Each addr is the program's SITE until ps_noflag_arm.
 */
int ps_noflag_sites(struct ps_module *m, const struct dl_phdr_info *info)
{
	struct nf_proof *p = nproofs ? proof_of(m, info) : NULL;
	struct ps_noflag *nf;
	size_t n = 0;

	if (!p || !p->n)
		return 0;
	p->used = true;
	nf = calloc(1, sizeof(*nf));
	if (!nf || !(nf->syms = calloc(p->n, sizeof(*nf->syms))) ||
	    !(m->sites = realloc(m->sites, (p->n + 1) * sizeof(*m->sites)))) {
		if (nf)
			free(nf->syms);
		free(nf);
		return -ENOMEM;
	}
	nf->proof = p;
	for (size_t i = 0; i < p->n; i++) {
		const struct nf_keep *k = &p->s[i];
		struct ps_sym *sym = &nf->syms[n];
		char buf[300];

		if (!k->name)
			snprintf(buf, sizeof(buf), "%s+0x%llx", m->name, (unsigned long long)k->entry);
		sym->name = sym->shown = k->name ? k->name : strdup(buf);
		if (!sym->name)
			return -ENOMEM;
		sym->addr = m->bias + k->entry;
		sym->order = i;
		m->sites[n++] = (struct ps_site){ .addr = m->bias + k->site, .sym = sym,
						  .kind = SITE_ENTRY_NOFLAG };
	}
	m->nsites = n;
	m->noflag = nf;
	return 0;
}

bool ps_noflag_holds(const struct ps_module *m, uintptr_t addr)
{
	const struct ps_noflag *nf = m->noflag;

	return nf && addr >= nf->lo && addr < nf->hi;
}

/* Room stubs.c leaves after the sites' stubs, for the out-of-line ones. */
size_t ps_noflag_room(const struct ps_module *m)
{
	return m->noflag ? ps_page_up(m->nsites * ps.arch->noflag_stub_size) : 0;
}

static const struct nf_keep *keep_of(const struct ps_module *m, const struct ps_site *s)
{
	return &m->noflag->proof->s[s->sym - m->noflag->syms];
}

/* "prog: name (SITE 0x1139): why: not traced" */
static void refuse(struct ps_module *m, struct ps_site *s, const char *why, const char *more)
{
	const struct nf_keep *k = keep_of(m, s);

	s->state = SITE_REFUSED;
	m->noflag->refused++;
	ps_log(PATCHSITE_LOG_WARNING, "%s: %s (site %#llx): %s%s: not traced", m->name,
	       s->sym->name, (unsigned long long)k->site, why, more);
}

/* The record as the arch reads it. */
static void record_of(const struct nf_keep *k, struct nf_record *r)
{
	memset(r, 0, offsetof(struct nf_record, name) + 1);
	r->rec = NF_SITE;
	r->form = k->form;
	r->entry = k->entry;
	r->site = k->site;
	r->depth = k->depth;
	r->nbytes = k->nbytes;
	r->ninsns = k->ninsns;
	memcpy(r->bytes, k->bytes, sizeof(r->bytes));
	memcpy(r->insns, k->insns, sizeof(r->insns));
}

/*
 * stubs.c, once the sites' stubs are written at m->stubs: the out-of-line
 * stubs at p (room bytes), and each site's addr becomes its slot.  A site
 * refused before (bytes-changed) or here keeps a place in the order.
 */
int ps_noflag_write(struct ps_module *m, uint8_t *p, size_t room)
{
	struct ps_noflag *nf = m->noflag;
	const unsigned size = ps.arch->noflag_stub_size;
	struct nf_record *r = malloc(sizeof(*r));

	if (!r)
		return -ENOMEM;
	nf->stubs = p;
	nf->lo = (uintptr_t)p;
	nf->hi = (uintptr_t)p + room;
	for (size_t i = 0; i < m->nsites; i++) {
		struct ps_site *s = &m->sites[i];
		uintptr_t at = (uintptr_t)p + i * size;
		const char *why = NULL;
		unsigned slot = 0;

		if (s->state != SITE_REFUSED) {
			record_of(keep_of(m, s), r);
			slot = ps.arch->write_noflag_stub(p + i * size, at, s->addr, r, &why);
			if (!slot)
				refuse(m, s, why ? why : "not relocatable", "");
		}
		s->addr = at + (slot ? slot : 8);	/* in order, inside its stub */
		s->len = (uint8_t)ps.arch->patch_len;
	}
	free(r);
	return 0;
}

/* The program's SITE of each site (ps_noflag_write moves addr to the slot). */
static uintptr_t *program_sites(struct ps_module *m, bool *touched)
{
	uintptr_t *at = malloc(m->nsites * sizeof(*at));

	for (size_t i = 0; at && i < m->nsites; i++) {
		struct ps_site *s = &m->sites[i];
		const struct nf_keep *k = keep_of(m, s);
		char want[3 * NF_MAX_BYTES + 1], found[3 * NF_MAX_BYTES + 1], more[200];

		at[i] = s->addr;
		if (!ps_module_has_code(m, s->addr, k->nbytes)) {
			refuse(m, s, "outside-code", " (not in the object's code as loaded)");
			continue;
		}
		if (memcmp((const void *)s->addr, k->bytes, k->nbytes)) {
			ps_format_bytes(want, sizeof(want), k->bytes, k->nbytes);
			ps_format_bytes(found, sizeof(found), (const uint8_t *)s->addr, k->nbytes);
			snprintf(more, sizeof(more), " (the proof has %.60s, memory %.60s)", want, found);
			refuse(m, s, "bytes-changed", more);
			m->noflag->bytes_changed++;
			continue;
		}
		ps_mark_segment(m, s->addr, touched);
		ps_mark_segment(m, s->addr + k->nbytes - 1, touched);
	}
	return at;
}

static void refuse_all(struct ps_module *m, const char *why)
{
	for (size_t i = 0; i < m->nsites; i++)
		m->sites[i].state = SITE_REFUSED;
	m->noflag->refused = m->nsites;
	ps_log(PATCHSITE_LOG_WARNING, "%s: no-flag sites from %s: %s: none armed", m->name,
	       m->noflag->proof->file, why);
}

/*
 * Start-up (nop.c, one thread, before main): check each site's bytes, write
 * the stubs, then the program's jumps to them.  Every site starts idle:
 * its slot is the NOP, so an armed function costs a jump there and back
 * until a tracer wants it.
 */
int ps_noflag_arm(struct ps_module *m)
{
	struct ps_noflag *nf = m->noflag;
	const unsigned size = ps.arch->noflag_stub_size;
	bool touched[8] = { false };
	uintptr_t *at;
	size_t armed = 0;
	int err;

	if (m->nsegs == sizeof(m->segs) / sizeof(m->segs[0])) {
		refuse_all(m, "the object has too many code segments");
		return 0;
	}
	at = program_sites(m, touched);
	if (!at)
		return -ENOMEM;
	err = ps_stubs_map(m);
	if (err || !nf->stubs) {
		refuse_all(m, err ? strerror(-err) : "no stubs");
		goto out;
	}
	m->segs[m->nsegs++] = (struct ps_seg){ nf->lo, nf->hi, PROT_READ | PROT_EXEC };
	err = ps_text_protect(m, touched, true);
	if (err) {
		refuse_all(m, strerror(-err));
		goto out;
	}
	for (size_t i = 0; i < m->nsites; i++) {
		const struct nf_keep *k = keep_of(m, &m->sites[i]);
		uint8_t jump[16];

		if (m->sites[i].state == SITE_REFUSED)
			continue;
		if (!ps.arch->make_jump(jump, at[i], nf->lo + i * size + 8)) {
			refuse(m, &m->sites[i], "stub-out-of-reach", "");
			continue;
		}
		ps.arch->fill_tail(jump + ps.arch->jump_len, k->nbytes - ps.arch->jump_len);
		memcpy((void *)at[i], jump, k->nbytes);
		armed++;
	}
	ps.arch->sync_icache((void *)m->text_lo, m->text_hi - m->text_lo);
	err = ps_text_protect(m, touched, false);
	ps_log(PATCHSITE_LOG_NOTE, "%s: no-flag sites from %s: %zu armed, %zu refused (%zu "
	       "bytes-changed)", m->name, nf->proof->file, armed, nf->refused, nf->bytes_changed);
out:
	free(at);
	return err;
}

/* After the start-up scan: a proof no loaded object matched. */
void ps_noflag_unused(void)
{
	for (unsigned i = 0; i < nproofs; i++)
		if (!proofs[i].used)
			ps_log(PATCHSITE_LOG_WARNING, "PATCHSITE_NOFLAG: %s: no object loaded at "
			       "start-up is %s (build-id %s): nothing armed from it", proofs[i].file,
			       proofs[i].path, proofs[i].buildid[0] ? proofs[i].buildid : "-");
}
