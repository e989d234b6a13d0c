// SPDX-License-Identifier: GPL-2.0-only
/*
 * The branch profiler's counters (include/patchsite_branch.h): each
 * object that uses patchsite_likely/unlikely has an array of struct
 * patchsite_branch in its section "patchsite_branches", and, built by g++
 * on x86-64, the addresses of its counters in "patchsite_branch_refs" (g++
 * puts a template's counters in .data).  We find both through the
 * object's file (sites/image.c) and write every object's counts
 * as text into the process directory, file `branches` (patchsite-data(5)),
 * replaced whole each time:
 *   - at exit (ps_store_finish),
 *   - on demand (ps_branches_write: a snapshot),
 *   - and before a library is unloaded: the dlclose wrapper (dl.c)
 *     renders every object's counts before the C library's dlclose
 *     (ps_branches_capture); objects that dlclose then unloaded keep that
 *     text for every later write (ps_branches_gone), the others drop it
 *     (ps_branches_settle).  An object unloaded where we could not capture
 *     it first (a dlclose that did not come through the wrapper) is
 *     written as lost, and said once on stderr.
 *
 * An entry is read only when its layout version is ours and its strings
 * lie in the object's memory; the rest of a section with a bad entry is
 * refused by name (a warning), never read wrong.
 */
#include <errno.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/branch_report.h"
#include "core/ctl_file.h"
#include "record/record.h"
#include "patchsite_branch.h"

#define SECTION	"patchsite_branches"
#define REFS	"patchsite_branch_refs"
#define MAX_STR	4096		/* a longer function or file name is cut */

struct kept {				/* the final text of an object that was unloaded */
	char *text;
	size_t len;
	struct kept *next;
};

static struct kept *kept, **kept_tail = &kept;
bool ps_branches_off;			/* PATCHSITE_BRANCHES=0 */
static struct {				/* texts made before a dlclose, by module index */
	const struct ps_module *m;
	char *text;
	size_t len;
} pending[PS_MAX_MODULES];

/* The counters of m: 0 and the array, or -errno (-ENOENT: none). */
static int find(const struct ps_module *m, struct patchsite_branch **b, size_t *n)
{
	uintptr_t addr;
	size_t size;
	int err = ps_module_section(m, SECTION, &addr, &size);

	if (err)
		return err;
	if (size % sizeof(**b) || addr % _Alignof(struct patchsite_branch))
		return -ENOEXEC;
	*b = (struct patchsite_branch *)addr;
	*n = size / sizeof(**b);
	return *n ? 0 : -ENOENT;
}

/*
 * The references of m (REFS: g++'s counters in templates lie outside the
 * section; the header lists every counter's address there): 0 and the
 * array, or -errno (-ENOENT: none).  The words are the image's, relocated.
 */
static int find_refs(const struct ps_module *m, const uintptr_t **r, size_t *n)
{
	uintptr_t addr;
	size_t size;
	int err = ps_module_section(m, REFS, &addr, &size);

	if (err)
		return err;
	if (size % sizeof(**r) || addr % sizeof(**r))
		return -ENOEXEC;
	*r = (const uintptr_t *)addr;
	*n = size / sizeof(**r);
	return *n ? 0 : -ENOENT;
}

/* Counter entries and references of m (an upper bound of its counters); 0 when none. */
static size_t count(const struct ps_module *m)
{
	struct patchsite_branch *b;
	const uintptr_t *r;
	size_t n = 0, nr = 0;

	if (find(m, &b, &n) == -ENOEXEC)
		n = 1;
	if (find_refs(m, &r, &nr) == -ENOEXEC)
		nr = 1;
	return n + nr;
}

bool ps_branches_any(void)
{
	for (unsigned i = 0; i < ps.nmods && !ps_branches_off; i++)
		if (!ps.mods[i]->gone && count(ps.mods[i]))
			return true;
	return false;
}

/* A name as one field: bytes that are not printable, spaces and '\' as \ooo. */
static void add_field(struct ps_buf *out, const char *s, size_t max)
{
	char esc[8];
	size_t i = 0;

	for (; i < max && s[i]; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c <= ' ' || c >= 0x7f || c == '\\') {
			snprintf(esc, sizeof(esc), "\\%03o", c);
			ps_buf_puts(out, esc);
		} else {
			ps_buf_add(out, s + i, 1);
		}
	}
	if (!i)
		ps_buf_puts(out, "?");
}

/* The string at p, when it ends (NUL) inside m's image; *len its length, cut at MAX_STR. */
static const char *str_in(const struct ps_module *m, const char *p, size_t *len)
{
	size_t room = ps_module_room(m, (uintptr_t)p);

	if (!room)
		return NULL;
	*len = strnlen(p, room < MAX_STR + 1 ? room : MAX_STR + 1);
	if (*len == room)
		return NULL;	/* runs off the end of its segment: not a string of the object */
	if (*len > MAX_STR)
		*len = MAX_STR;
	return p;
}

/* A warning once per object slot, not at every write. */
static void warn_once(const struct ps_module *m, const char *what)
{
	static bool said[PS_MAX_MODULES];

	if (said[m->index])
		return;
	said[m->index] = true;
	ps_log(PATCHSITE_LOG_WARNING, "%s: section " SECTION ": %s", m->path, what);
}

/* One counter's line; false (said once, marked) when e is not a counter of ours. */
static bool render_entry(struct ps_buf *out, const struct ps_module *m,
			 const struct patchsite_branch *e, const char *where, size_t i)
{
	/* Fixed since the object was built: plain reads. */
	const char *fn = NULL, *file = NULL;
	unsigned line = e->line, expect = e->expect;
	size_t fl, ml;

	if (e->abi == PATCHSITE_BRANCH_ABI && expect <= 1) {
		fn = str_in(m, e->func, &fl);
		file = fn ? str_in(m, e->file, &ml) : NULL;
	}
	if (!file) {
		char what[160];

		snprintf(what, sizeof(what), "%s %zu is not a branch counter of layout %d: it and "
			 "the rest of the section not read", where, i, PATCHSITE_BRANCH_ABI);
		warn_once(m, what);
		ps_buf_printf(out, "refused %s %zu\n", where, i);
		return false;
	}
	/* The counters move while we read: each once, as atomic increments are. */
	ps_buf_printf(out, "branch %u %lu %lu %u ", expect,
		      __atomic_load_n(&e->correct, __ATOMIC_RELAXED),
		      __atomic_load_n(&e->incorrect, __ATOMIC_RELAXED), line);
	add_field(out, fn, fl);
	ps_buf_puts(out, " ");
	add_field(out, file, ml);
	ps_buf_puts(out, "\n");
	return true;
}

static int cmp_addr(const void *a, const void *b)
{
	uintptr_t x = *(const uintptr_t *)a, y = *(const uintptr_t *)b;

	return (x > y) - (x < y);
}

/*
 * The counters the references name that are not in the section [b, b + n):
 * each once (an inlined use repeats its reference), in address order.
 */
static void render_refs(struct ps_buf *out, const struct ps_module *m,
			const struct patchsite_branch *b, size_t n)
{
	const uintptr_t *r;
	uintptr_t *sorted;
	size_t nr;
	int err = find_refs(m, &r, &nr);

	if (err == -ENOENT)
		return;
	if (err) {
		warn_once(m, "its references (" REFS ") are not an array of addresses: not read");
		ps_buf_puts(out, "refused refs-not-an-array\n");
		return;
	}
	sorted = malloc(nr * sizeof(*sorted));
	if (!sorted) {
		out->oom = true;
		return;
	}
	memcpy(sorted, r, nr * sizeof(*sorted));
	qsort(sorted, nr, sizeof(*sorted), cmp_addr);
	for (size_t i = 0; i < nr; i++) {
		uintptr_t a = sorted[i];

		if ((i && a == sorted[i - 1]) ||
		    (n && a >= (uintptr_t)b && a < (uintptr_t)(b + n)))
			continue;
		if (a % _Alignof(struct patchsite_branch) ||
		    ps_module_room(m, a) < sizeof(struct patchsite_branch)) {
			warn_once(m, "a reference (" REFS ") outside the object's memory: the "
				  "rest not read");
			ps_buf_printf(out, "refused ref %zu\n", i);
			break;
		}
		if (!render_entry(out, m, (const struct patchsite_branch *)a, "ref", i))
			break;
	}
	free(sorted);
}

/* The lines of one object; a section or entry we do not read is said (once) and marked. */
static void render_object(struct ps_buf *out, const struct ps_module *m, const char *state)
{
	struct patchsite_branch *b = NULL;
	size_t n = 0;
	int err = find(m, &b, &n);

	if (!count(m))
		return;
	ps_buf_puts(out, "object ");
	ps_buf_puts(out, state);
	ps_buf_puts(out, " ");
	add_field(out, m->path, MAX_STR);
	ps_buf_puts(out, "\n");
	if (err && err != -ENOENT) {
		warn_once(m, "not an array of counters in the object's memory: not read");
		ps_buf_puts(out, "refused not-an-array\n");
		n = 0;
	}
	for (size_t i = 0; i < n && !err; i++)
		if (!render_entry(out, m, &b[i], "entry", i))
			break;
	render_refs(out, m, err ? NULL : b, err ? 0 : n);
}

static void lost_object(struct ps_buf *out, const struct ps_module *m, size_t n)
{
	ps_buf_puts(out, "object unloaded ");
	add_field(out, m->path, MAX_STR);
	ps_buf_printf(out, "\nlost %zu\n", n);
}

/*
 * Counters are read only from inside a dl_iterate_phdr callback, for an
 * object the C library still lists: it holds its dl_load_write_lock there,
 * and dlclose unmaps under that lock, so what we read stays mapped while
 * we read it (sites/sync.c relies on the same).  An object we know that is no
 * longer listed was unloaded behind our back: its counts are lost (said).
 */
struct walk {
	struct ps_buf *out;		/* render_all: the text */
	bool capture;			/* ps_branches_capture: into pending[] */
	bool seen[PS_MAX_MODULES];
};

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* The program has no name in the list; the others are known by basename and bias. */
static struct ps_module *module_of(const struct dl_phdr_info *info)
{
	const char *name = info->dlpi_name ? info->dlpi_name : "";

	for (unsigned i = 0; i < ps.nmods; i++) {
		struct ps_module *m = ps.mods[i];

		if (!m->gone && m->bias == info->dlpi_addr &&
		    (!name[0] || !strcmp(base_name(name), m->name)))
			return m;
	}
	return NULL;
}

static int walk_one(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct walk *w = arg;
	struct ps_module *m = module_of(info);
	struct ps_buf b = { 0 };

	(void)size;
	if (!m || w->seen[m->index])
		return 0;
	w->seen[m->index] = true;
	if (!w->capture) {
		render_object(w->out, m, "loaded");
		return 0;
	}
	if (pending[m->index].m)
		return 0;
	render_object(&b, m, "unloaded");
	if (!b.len || b.oom) {
		ps_buf_free(&b);
		return 0;
	}
	pending[m->index].m = m;
	pending[m->index].text = b.p;
	pending[m->index].len = b.len;
	return 0;
}

/* Every loaded object's counters (ps.lock held). */
static void walk_objects(struct walk *w)
{
	static bool said[PS_MAX_MODULES];
	size_t n;

	dl_iterate_phdr(walk_one, w);
	for (unsigned i = 0; i < ps.nmods && w->out; i++) {
		if (ps.mods[i]->gone || w->seen[i] || !(n = count(ps.mods[i])))
			continue;
		if (!said[i])
			ps_log(PATCHSITE_LOG_WARNING, "%s: unloaded without passing through "
			       "patchsite's dlclose: its %zu branch counters lost", ps.mods[i]->path, n);
		said[i] = true;
		lost_object(w->out, ps.mods[i], n);
	}
}

static void render_all(struct ps_buf *out)
{
	struct walk w = { .out = out };

	ps_buf_puts(out, "# patchsite branches 1\n");
	for (const struct kept *k = kept; k; k = k->next)
		ps_buf_add(out, k->text, k->len);
	walk_objects(&w);
}

/* The file `branches` now: 0, or -errno (-ENODEV: this process records no trace directory). */
int ps_branches_write(void)
{
	struct ps_buf b = { 0 };
	int err;

	if (!ps.inited || ps.init_err || ps_branches_off)
		return -ENODEV;
	pthread_mutex_lock(&ps.lock);
	render_all(&b);
	pthread_mutex_unlock(&ps.lock);
	err = b.oom ? -ENOMEM : ps_store_replace("branches", b.p, b.len);
	if (err && err != -ENODEV)
		ps_log(PATCHSITE_LOG_ERROR, "writing the branch counts: %s", strerror(-err));
	ps_buf_free(&b);
	return err;
}

/* Before the C library's dlclose: every object's counts, for the ones it will unload. */
void ps_branches_capture(void)
{
	struct walk w = { .capture = true };

	if (!ps.inited || ps.init_err || ps_branches_off || !ps_store_on())
		return;
	pthread_mutex_lock(&ps.lock);
	walk_objects(&w);
	pthread_mutex_unlock(&ps.lock);
}

static void keep(char *text, size_t len)
{
	struct kept *k = malloc(sizeof(*k));

	if (!k) {
		ps_log(PATCHSITE_LOG_ERROR, "out of memory: branch counts of an unloaded object lost");
		free(text);
		return;
	}
	*k = (struct kept){ text, len, NULL };
	*kept_tail = k;
	kept_tail = &k->next;
}

/* m was unloaded (sites/sync.c, ps.lock held): its last counts stay. */
static void ps_branches_gone(struct ps_module *m)
{
	struct ps_buf t = { 0 };
	size_t n;

	if (ps_branches_off || !ps_store_on())
		return;
	if (pending[m->index].m == m) {
		keep(pending[m->index].text, pending[m->index].len);
		pending[m->index].m = NULL;
		pending[m->index].text = NULL;
		return;
	}
	/* Its file is still mapped: we know whether it had counters, not what they were. */
	if (!(n = count(m)))
		return;
	ps_log(PATCHSITE_LOG_WARNING, "%s: unloaded without passing through patchsite's "
	       "dlclose: its %zu branch counters lost", m->path, n);
	lost_object(&t, m, n);
	if (t.oom)
		ps_buf_free(&t);
	else
		keep(t.p, t.len);
}

/* After dlclose: texts of objects still loaded are dropped (they are read live). */
void ps_branches_settle(void)
{
	pthread_mutex_lock(&ps.lock);
	for (unsigned i = 0; i < PS_MAX_MODULES; i++) {
		free(pending[i].text);
		pending[i].m = NULL;
		pending[i].text = NULL;
	}
	pthread_mutex_unlock(&ps.lock);
}

/*
 * trace_stat/branch_annotated, the kernel's tracefs file: the counts now
 * (objects unloaded while recording included), in its layout and order,
 * through the same code as `patchsite report --branches`.
 */
static int read_annotated(const char *sub, struct ps_buf *out)
{
	struct ps_buf text = { 0 };
	struct psr_branches bs;
	char why[160], *p = NULL;
	size_t n = 0;
	FILE *f;
	int err;

	(void)sub;
	pthread_mutex_lock(&ps.lock);
	render_all(&text);
	pthread_mutex_unlock(&ps.lock);
	if (text.oom) {
		ps_buf_free(&text);
		return -ENOMEM;
	}
	err = psr_branches_parse(text.p, text.len, &bs, why, sizeof(why));
	ps_buf_free(&text);
	if (err) {
		ps_log(PATCHSITE_LOG_ERROR, "trace_stat/branch_annotated: %s", why);
		return err;
	}
	f = open_memstream(&p, &n);
	if (!f) {
		psr_branches_free(&bs);
		return -ENOMEM;
	}
	psr_branches_show(f, NULL, &bs, false);
	psr_branches_free(&bs);
	err = fclose(f) ? -ENOMEM : 0;
	if (!err)
		ps_buf_add(out, p, n);
	free(p);
	return err;
}

const struct ps_ctl_file ps_ctl_branches[] = {
	{ .name = "trace_stat/branch_annotated",
	  .what = "patchsite_likely/unlikely counts, worst predicted first (ftrace: the same file)",
	  .read = read_annotated },
	{ 0 }
};

/* Counters of an object that leaves are read before it goes; written at exit. */
const struct ps_watch ps_branches_watch = { NULL, ps_branches_gone };
static void branches_write(void)
{
	ps_branches_write();
}
const struct ps_store_part ps_branches_part = { ps_branches_any, NULL, branches_write };
