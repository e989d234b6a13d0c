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
 *      site record (forms a, b, c, p), of kind SITE_ENTRY_NOFLAG, named by the
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
 * Later, with threads running (an object dlopened after start-up, or the
 * runtime loaded by attach, whose proof list comes in attach_list_file),
 * the same: the jumps of forms a and b go through the live protocol when a
 * tracer first wants them; windows (c, p) are refused by name then
 * (noflag_arm.c).
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "noflag.h"

#define NF_MAX_FILES 16

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

/*
 * Attached to (patchsite record -p --noflag-proof): the attaching command
 * cannot set our environment, so it writes the list, FILE[:FILE...], to
 * /tmp/patchsite-UID/PID.noflag before loading us (cmd/attach/attach.c),
 * in the directory of the control sockets, ours alone (0700, our uid: it is
 * refused otherwise, said).  Read once and removed: the command checks that
 * it is gone.  NULL when there is none.
 */
static char *attach_list_file(void)
{
	char dir[64], path[96], buf[8192];
	struct stat sb;
	ssize_t n = -1;
	int fd;

	snprintf(dir, sizeof(dir), "/tmp/patchsite-%d", (int)geteuid());
	snprintf(path, sizeof(path), "%s/%d.noflag", dir, (int)getpid());
	if (lstat(path, &sb))
		return NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd >= 0 && !fstat(fd, &sb) && S_ISREG(sb.st_mode) && sb.st_uid == geteuid() &&
	    !lstat(dir, &sb) && S_ISDIR(sb.st_mode) && sb.st_uid == geteuid() && !(sb.st_mode & 077))
		n = read(fd, buf, sizeof(buf) - 1);
	else
		ps_log(PATCHSITE_LOG_WARNING, "%s: not ours alone (uid %d, mode 0700): proof files "
		       "in it not used", path, (int)geteuid());
	if (fd >= 0)
		close(fd);
	unlink(path);
	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return strdup(buf);
}

/*
 * Before the objects are read (module.c): at start-up from PATCHSITE_NOFLAG;
 * attached (the runtime loaded into a running process) from the attach's file.
 */
void ps_noflag_load(bool attached)
{
	char *list = attached ? attach_list_file() : NULL, *save = NULL;
	const char *v = attached ? list : getenv("PATCHSITE_NOFLAG");

	if (!v || !*v) {
		free(list);
		return;
	}
	if (!ps.arch->write_noflag_stub) {
		ps_log(PATCHSITE_LOG_WARNING, "PATCHSITE_NOFLAG: %s: nothing armed",
		       ps.arch->noflag_refused);
		free(list);
		return;
	}
	if (!list)
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
 * What the runtime itself runs on: the C library (the object holding getauxval) and
 * the dynamic linker (AT_BASE).  Their functions are called from inside the tracer
 * (syscall() for a thread's id and membarrier, memcpy, the lazy binder), so a site
 * there would enter the tracer from itself, and the arming's own calls run through
 * the bytes it is writing: Debian's gzip with a proof of libc.so.6 died at start-up
 * (SIGSEGV, found by bisecting the proof: libc's syscall(), a form b site).  NULL
 * for any other object.
 */
static const char *runtime_object(const struct dl_phdr_info *info)
{
	uintptr_t libc_at = (uintptr_t)&getauxval, base = getauxval(AT_BASE);

	if (base && info->dlpi_addr == base)
		return "the dynamic linker";
	for (unsigned j = 0; j < info->dlpi_phnum; j++) {
		const Elf64_Phdr *q = &info->dlpi_phdr[j];
		uintptr_t lo = info->dlpi_addr + q->p_vaddr;

		if (q->p_type == PT_LOAD && (q->p_flags & PF_X) && libc_at >= lo &&
		    libc_at - lo < q->p_memsz)
			return "the C library";
	}
	return NULL;
}

/* m's proof p not used, for the trace directory: why, a name of the check. */
static int unused(struct ps_module *m, const struct nf_proof *p, const char *why)
{
	m->noflag_unused = p->file;
	m->noflag_unused_why = why;
	m->noflag_unused_n = p->n;
	return 0;
}

/*
 * The sites of m from its proof (module.c, for an object that has no site
 * table; at start-up, attach, or loaded later): in the order of the proof's sites, which is the
 * order of their slots.  Each addr is the program's SITE until ps_noflag_arm.
 */
int ps_noflag_sites(struct ps_module *m, const struct dl_phdr_info *info)
{
	struct nf_proof *p = nproofs ? proof_of(m, info) : NULL;
	struct ps_noflag *nf;
	const char *own;
	size_t n = 0;

	if (!p || !p->n)
		return 0;
	p->used = true;
	if ((own = runtime_object(info))) {
		ps_log(PATCHSITE_LOG_WARNING, "%s: no-flag sites of %s, which patchsite itself runs "
		       "on: not armed (%s not used)", m->name, own, p->file);
		return unused(m, p, "runtime-object");
	}
	nf = calloc(1, sizeof(*nf));
	if (!nf || !(nf->syms = calloc(p->n, sizeof(*nf->syms))) ||
	    !(nf->why = calloc(p->n, sizeof(*nf->why))) ||
	    !(m->sites = realloc(m->sites, (p->n + 1) * sizeof(*m->sites)))) {
		if (nf) {
			free(nf->syms);
			free(nf->why);
		}
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
						  .kind = k->form == 'b' ? SITE_NOFLAG_DEEP
								: SITE_ENTRY_NOFLAG };
	}
	m->nsites = n;
	m->noflag = nf;
	m->stubs_extra = ps_page_up(n * ps.arch->noflag_stub_size);	/* stubs.c leaves room */
	return 0;
}

bool ps_site_args_unknown(const struct ps_site *s)
{
	return (s->kind == SITE_ENTRY_NOFLAG || s->kind == SITE_NOFLAG_DEEP) &&
	       ps_noflag_keep(s->mod, s)->form != 'a';
}

/* After the start-up scan: a proof no loaded object matched (one the program may dlopen). */
void ps_noflag_unused(void)
{
	for (unsigned i = 0; i < nproofs; i++)
		if (!proofs[i].used)
			ps_log(PATCHSITE_LOG_WARNING, "PATCHSITE_NOFLAG: %s: no object loaded now is "
			       "%s (build-id %s): nothing armed from it unless the program loads it",
			       proofs[i].file, proofs[i].path,
			       proofs[i].buildid[0] ? proofs[i].buildid : "-");
}
