// SPDX-License-Identifier: GPL-2.0-only
/*
 * The API against testdata/patchsite/work.c (traced, built by run.sh in
 * each -pg form).  This file itself is not built with -pg.  Prints one
 * PASS/FAIL line per check.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "patchsite.h"

long api_f1(long a, long b);
long api_f2(long a);
long api_g(long a);
long work_count(long a);
long work_other(long a);
double api_fp(double x, double y);

/* The harness says when work.c is built -pg (tests/patchsite-qemu/run.sh). */
#define MCOUNT_FORM	(getenv("PSTEST_MCOUNT") && *getenv("PSTEST_MCOUNT"))

static int failures;

static void check(int ok, const char *what)
{
	printf("%s %s\n", ok ? "PASS" : "FAIL", what);
	failures += !ok;
}

struct counts {
	atomic_int f1, f2, g, count, other;
	long last_arg0;
	int arg_errno;
	unsigned long last_parent;
};

/*
 * The function a site is in: the nearest of work.c's functions at or below
 * it (their addresses are the oracle: the symbols, not the runtime's).
 */
static unsigned long in_function(unsigned long ip)
{
	const unsigned long fns[] = { (unsigned long)api_f1, (unsigned long)api_f2,
				      (unsigned long)api_g, (unsigned long)work_count,
				      (unsigned long)work_other };
	unsigned long best = 0;

	for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++)
		if (fns[i] <= ip && fns[i] > best)
			best = fns[i];
	return best;
}

static void count_hit(unsigned long ip, unsigned long parent_ip, struct patchsite_ops *op,
		      struct patchsite_regs *regs)
{
	struct counts *c = op->private;

	/* ip is the site: the function's address (or +4 after endbr64), or after the prologue (-pg). */
	ip = in_function(ip);
	if (ip == (unsigned long)api_f1) {
		c->f1++;
		errno = 0;
		c->last_arg0 = (long)patchsite_regs_arg(regs, 0);
		c->arg_errno = errno;
	} else if (ip == (unsigned long)api_f2) {
		c->f2++;
		c->last_parent = parent_ip;
	} else if (ip == (unsigned long)api_g) {
		c->g++;
	} else if (ip == (unsigned long)work_count) {
		c->count++;
	} else {
		c->other++;
	}
}

/* The built-in tracer's trace, written to a temporary file and read back. */
static char trace_text[65536];

static void trace_load(void)
{
	FILE *f = tmpfile();
	size_t n = 0;

	if (f) {
		patchsite_trace_write(fileno(f));
		rewind(f);
		n = fread(trace_text, 1, sizeof(trace_text) - 1, f);
		fclose(f);
	}
	trace_text[n] = '\0';
}

static int trace_has(const char *what)
{
	return strstr(trace_text, what) != NULL;
}

static void run_calls(void)
{
	api_f1(42, 1);
	api_f2(3);
	api_g(5);	/* calls api_f2 too */
	work_count(1);
}

static void reset(struct counts *c)
{
	memset(c, 0, sizeof(*c));
}

struct listing {
	int work, enabled, refused;
};

static int list_cb(const char *name, const char *module, unsigned long ip, unsigned flags,
		   void *arg)
{
	struct listing *l = arg;

	(void)module;
	(void)ip;
	if (!strncmp(name, "api_", 4) || !strncmp(name, "work_", 5)) {
		l->work++;
		l->enabled += !!(flags & PATCHSITE_FUNC_ENABLED);
	}
	l->refused += !!(flags & PATCHSITE_FUNC_REFUSED);
	return 0;
}

int main(void)
{
	struct counts c1, c2;
	struct patchsite_ops ops1 = { .func = count_hit, .private = &c1 };
	struct patchsite_ops ops2 = { .func = count_hit, .private = &c2 };
	struct listing l = { 0 };

	reset(&c1);
	reset(&c2);
	check(patchsite_init() == 0, "init");
	patchsite_for_each_function(list_cb, &l);
	check(l.work == 6 && l.enabled == 0 && l.refused == 0, "listing: 6 sites, all NOP");

	check(patchsite_set_filter(&ops1, "api_f*", 1) == 0, "filter api_f*");
	check(patchsite_register_function(&ops1) == 0, "register");
	check(patchsite_register_function(&ops1) == -EBUSY, "register twice: EBUSY");
	l = (struct listing){ 0 };
	patchsite_for_each_function(list_cb, &l);
	check(l.enabled == 3, "only the three filtered sites are patched");
	run_calls();
	check(c1.f1 == 1 && c1.f2 == 2 && c1.g == 0 && c1.count == 0 && c1.other == 0,
	      "callbacks follow the filter");
	/* aarch64 -pg: the site is after the prologue, where x0 is _mcount's (libpatchsite(3)). */
	if (c1.arg_errno == ENODATA && MCOUNT_FORM)
		check(c1.last_arg0 == 0, "regs: no argument at a -pg site: 0, ENODATA");
	else
		check(c1.last_arg0 == 42, "regs: first argument");
	check(c1.last_parent > (unsigned long)api_g && c1.last_parent < (unsigned long)api_g + 64,
	      "parent_ip is inside the caller");
	check(api_fp(1.5, 2.0) == 3.0, "xmm arguments survive a traced call");

	reset(&c1);
	check(patchsite_set_notrace(&ops1, "api_f2", 1) == 0, "notrace api_f2");
	run_calls();
	check(c1.f1 == 1 && c1.f2 == 0, "notrace wins over filter");
	check(patchsite_set_notrace(&ops1, "", 1) == 0, "notrace reset");

	reset(&c1);
	check(patchsite_set_filter(&ops1, "nosuch_function", 0) == -EINVAL && errno == EINVAL,
	      "a glob that matches nothing: EINVAL");
	run_calls();
	check(c1.f1 == 1 && c1.f2 == 2, "a failed filter leaves the old one");

	reset(&c1);
	check(patchsite_set_filter(&ops1, "!api_f1", 0) == 0, "!api_f1 removes it");
	run_calls();
	check(c1.f1 == 0 && c1.f2 == 2, "filter without api_f1");

	reset(&c1);
	check(patchsite_set_filter(&ops1, "*_g api_f1:mod:api*", 1) == 0, "*suffix and :mod:");
	run_calls();
	check(c1.f1 == 1 && c1.g == 1 && c1.f2 == 0, "both tokens apply");
	/* As ftrace does for a module not loaded yet: kept, it applies when the object comes. */
	check(patchsite_set_filter(&ops1, "api_f1:mod:libnosuch.so", 1) == 0,
	      ":mod: of an object not loaded: kept pending");
	reset(&c1);
	run_calls();
	check(c1.f1 + c1.g + c1.f2 == 0, "a pending :mod: filter selects nothing yet");
	check(patchsite_set_filter(&ops1, "*_g api_f1:mod:api*", 1) == 0, "filter back");

	reset(&c1);
	check(patchsite_set_filter(&ops2, "*count*", 1) == 0 &&
		      patchsite_register_function(&ops2) == 0,
	      "second ops with its own filter");
	run_calls();
	check(c1.f1 == 1 && c1.g == 1 && c1.count == 0 && c2.count == 1 && c2.f1 == 0,
	      "each ops sees only its own functions");

	reset(&c1);
	reset(&c2);
	check(patchsite_tracing_off() == 0, "tracing off");
	l = (struct listing){ 0 };
	patchsite_for_each_function(list_cb, &l);
	check(l.enabled > 0, "tracing off: the sites stay calls (no re-patching)");
	run_calls();
	check(c1.f1 + c1.g + c2.count == 0, "no callbacks while off");
	check(patchsite_tracing_on() == 0, "tracing on");
	run_calls();
	check(c1.f1 == 1 && c2.count == 1, "callbacks again");

	reset(&c1);
	reset(&c2);
	check(patchsite_unregister_function(&ops1) == 0, "unregister ops1");
	check(patchsite_unregister_function(&ops1) == -ENOENT, "unregister twice: ENOENT");
	run_calls();
	check(c1.f1 + c1.g == 0 && c2.count == 1, "ops1 silent, ops2 still called");
	check(patchsite_unregister_function(&ops2) == 0, "unregister ops2");
	l = (struct listing){ 0 };
	patchsite_for_each_function(list_cb, &l);
	check(l.enabled == 0, "no ops: every site is a NOP");

	/* function_graph alone (its fast trampoline), then next to an ops (the dispatcher). */
	check(patchsite_set_filter(NULL, "api_g api_f2", 1) == 0, "built-in filter");
	check(patchsite_set_tracer("function_graph") == 0, "function_graph");
	run_calls();
	trace_load();
	check(trace_has("api_g() {") && trace_has("api_f2();") && !trace_has("api_f1"),
	      "function_graph alone: api_g() { api_f2(); }, filtered");
	check(patchsite_set_filter(&ops2, "api_g", 1) == 0 && patchsite_register_function(&ops2) == 0,
	      "function_graph next to another ops");
	reset(&c2);
	run_calls();
	trace_load();
	check(c2.g == 1 && trace_has("api_g() {") && trace_has("api_f2();"),
	      "function_graph through the dispatcher, the other ops called");
	check(patchsite_unregister_function(&ops2) == 0, "unregister the other ops");
	check(patchsite_set_graph_max_depth(0) == -EINVAL, "max depth 0: EINVAL");
	check(patchsite_set_tracer("nop") == 0, "tracer nop");
	check(patchsite_set_tracer("bogus") == -EINVAL, "unknown tracer: EINVAL");
	check(patchsite_ops_release(&ops1) == 0 && patchsite_ops_release(&ops2) == 0, "release");
	printf("%s\n", failures ? "api: FAILED" : "api: ok");
	return failures != 0;
}
