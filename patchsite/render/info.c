// SPDX-License-Identifier: GPL-2.0-only
/* The summary of a trace directory (info). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../data/format.h"
#include "branch_report.h"
#include "walk.h"

/* Static trace events recorded per event (info): the wanted threads' records, counted. */
/* One reason's functions, from the "WHY NAME" lines: "      WHY (N): a, b, c". */
static void info_scan_why(FILE *out, const char *lines, const char *why)
{
	size_t n = 0, wl = strlen(why);

	for (const char *l = lines; l && *l; l = strchr(l, '\n') + 1)
		n += !strncmp(l, why, wl) && l[wl] == ' ';
	if (!n)
		return;
	fprintf(out, "        %s (%zu):", why, n);
	n = 0;
	for (const char *l = lines; l && *l; l = strchr(l, '\n') + 1)
		if (!strncmp(l, why, wl) && l[wl] == ' ')
			fprintf(out, "%s %.*s", n++ ? "," : "", (int)(strcspn(l + wl + 1, "\n")),
				l + wl + 1);
	fputc('\n', out);
}

/* An object without a table: how its sites were found, and every function that got none, why. */
static void info_scan(FILE *out, const struct psr_module *m)
{
	static const char *const whys[] = {
		"no-frame-pointer-prologue", "no-call-after-prologue", "no-call-at-entry",
		"no-size-or-code",
	};

	if (!m->scan_how[0])
		return;
	if (!strcmp(m->scan_how, "cyg"))
		fprintf(out, "      no table, -finstrument-functions: %zu functions with sites, "
			"traced when they call __cyg_profile_func_enter/exit; %zu without:\n",
			m->scan_found, m->scan_nmiss);
	else if (!strcmp(m->scan_how, "fentry"))
		fprintf(out, "      no table, -pg -mfentry: %zu functions found calling __fentry__ at "
			"their entry; %zu not:\n", m->scan_found, m->scan_nmiss);
	else
		fprintf(out, "      no table, -pg: %zu functions found calling %s after their "
			"prologue; %zu not:\n", m->scan_found, m->scan_how, m->scan_nmiss);
	for (size_t i = 0; i < sizeof(whys) / sizeof(whys[0]); i++)
		info_scan_why(out, m->scan_miss, whys[i]);
}

/*
 * A library-call module's slots never switched, by reason (the "NAME\tWHY"
 * lines, grouped in the order the reasons first come): "      not traced
 * (N): a, b: WHY".
 */
static void info_refused(FILE *out, const struct psr_module *m)
{
	for (const char *l = m->refused; l && *l; l = strchr(l, '\n') + 1) {
		const char *why = strchr(l, '\t') + 1, *k;
		size_t wl = strcspn(why, "\n"), n = 0;
		bool first = true;

		for (k = m->refused; k < l && first; k = strchr(k, '\n') + 1)
			first = strncmp(strchr(k, '\t') + 1, why, wl + 1) != 0;
		if (!first)
			continue;	/* said with the first slot of that reason */
		for (k = l; *k; k = strchr(k, '\n') + 1)
			n += !strncmp(strchr(k, '\t') + 1, why, wl + 1);
		fprintf(out, "      not traced (%zu):", n);
		n = 0;
		for (k = l; *k; k = strchr(k, '\n') + 1)
			if (!strncmp(strchr(k, '\t') + 1, why, wl + 1))
				fprintf(out, "%s %.*s", n++ ? "," : "", (int)strcspn(k, "\t"), k);
		fprintf(out, ": %.*s\n", (int)wl, why);
	}
}

/*
 * An object with a proof (the `noflag` file): its sites proven, armed and
 * refused, then per check that refused some (in the order first met) its
 * functions: "        WHY (N): a, b".
 */
static void info_noflag(FILE *out, const struct psr_proc *p, unsigned index)
{
	const struct psr_noflag *g = psr_noflag_of(p, index);

	if (!g)
		return;
	if (g->unused) {
		fprintf(out, "      no-flag sites from %s: %zu proven, none used: %s\n", g->file,
			g->sites, g->unused);
		return;
	}
	fprintf(out, "      no-flag sites from %s: %zu proven, %zu armed, %zu refused\n", g->file,
		g->sites, g->armed, g->nr);
	for (size_t i = 0; i < g->nr; i++) {
		const char *why = g->r[i].why;
		size_t n = 0, k;

		for (k = 0; k < i && strcmp(g->r[k].why, why); k++)
			;
		if (k < i)
			continue;	/* said with the first site of that reason */
		for (k = i; k < g->nr; k++)
			n += !strcmp(g->r[k].why, why);
		fprintf(out, "        %s (%zu):", why, n);
		n = 0;
		for (k = i; k < g->nr; k++)
			if (!strcmp(g->r[k].why, why))
				fprintf(out, "%s %s", n++ ? "," : "", g->r[k].name);
		fputc('\n', out);
	}
}

static void info_events(FILE *out, const struct psr_proc *p, const struct render_opts *o)
{
	uint64_t *n = calloc(p->nevents + 1, sizeof(*n));
	struct psr_cursor c;
	struct psr_event ev;

	if (!n)
		return;
	for (size_t k = 0; k < p->nthreads; k++) {
		if (!walk_thread_wanted(&p->threads[k], o))
			continue;
		psr_cursor_init(&c, p, &p->threads[k]);
		while (psr_next(&c, &ev)) {
			const uint8_t *rec;
			size_t bytes;
			const struct psr_evdesc *d;

			if (ev.type != PSR_EXT || ev.ext_kind != PSD_EXT_EVENT)
				continue;
			d = psr_evdesc(p, &ev, &rec, &bytes);
			n[d ? (size_t)(d - p->events) : p->nevents]++;
		}
	}
	fprintf(out, "  static events: %zu described\n", p->nevents);
	for (size_t i = 0; i < p->nevents; i++)
		fprintf(out, "    %-32s %llu\n", p->events[i].name, (unsigned long long)n[i]);
	if (n[p->nevents])
		fprintf(out, "    %-32s %llu\n", "(no format)", (unsigned long long)n[p->nevents]);
	free(n);
}

/* Seconds from the process's start to tsc. */
static double since_start(const struct psr_proc *p, uint64_t tsc)
{
	return tsc > p->tsc0 ? (double)(tsc - p->tsc0) * p->ns_per_tsc / 1e9 : 0;
}

/*
 * The tracers that ran, each with when it was switched on and off (the
 * `tracers` file: one "TSC NAME" line per change; nop is none).  Lines
 * that do not read as such are skipped.
 */
static void info_tracers(FILE *out, const struct psr_proc *p)
{
	const char *l = p->tracers;
	char name[32], prev[32] = "";
	unsigned long long tsc, on = 0;
	bool head = false;

	for (; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : l + strlen(l)) {
		if (sscanf(l, "%llu %31s", &tsc, name) != 2)
			continue;
		if (prev[0] && strcmp(prev, "nop")) {
			fprintf(out, "%s    %-16s on %10.6f s, off %10.6f s\n", head ? "" : "  tracers:\n",
				prev, since_start(p, on), since_start(p, tsc));
			head = true;
		}
		snprintf(prev, sizeof(prev), "%s", name);
		on = tsc;
	}
	if (prev[0] && strcmp(prev, "nop"))
		fprintf(out, "%s    %-16s on %10.6f s, still on at the end\n", head ? "" : "  tracers:\n",
			prev, since_start(p, on));
}

/* The scheduler switches of p's wanted threads, and where its off-CPU time is unknown. */
static void info_sched(FILE *out, const struct psr_proc *p, const struct render_opts *o)
{
	unsigned long long outs = 0, preempt = 0, lost = 0;
	size_t on = 0;

	if (p->sched_asked == 0) {
		fprintf(out, "  sched:    not recorded (--no-sched): off-CPU time unknown\n");
		return;
	}
	for (size_t k = 0; k < p->nthreads; k++) {
		const struct psr_thread *t = &p->threads[k];

		if (!walk_thread_wanted(t, o) || t->sched != PSR_SCHED_ON)
			continue;
		on++;
		lost += t->sched_lost;
		for (size_t i = 0; i < t->nsw; i++) {
			outs += t->sw[i].what != PSR_SW_IN;
			preempt += t->sw[i].what == PSR_SW_OUT_PREEMPT;
		}
	}
	if (on)
		fprintf(out, "  sched:    %llu switches out (%llu preempted) in %zu threads, %llu lost\n",
			outs, preempt, on, lost);
	for (size_t k = 0; k < p->nthreads; k++) {
		const struct psr_thread *t = &p->threads[k];

		if (walk_thread_wanted(t, o) && t->sched == PSR_SCHED_UNKNOWN)
			fprintf(out, "    %d: off-CPU time unknown: %s\n", t->tid, t->sched_why);
	}
}

int render_info(FILE *out, const struct psr_session *s, const struct render_opts *o)
{
	unsigned long long events = 0, lost = 0, markers = 0;
	unsigned damaged = 0;	/* parts said damaged while rendering (read at psr_open: s->problems) */

	fprintf(out, "# directory: %s\n# format: patchsite-data %d\n", s->dir, PSD_VERSION);
	fprintf(out, "# processes: %zu recorded, %zu without sites\n", s->nprocs, s->nosites);
	for (size_t i = 0; i < s->nprocs; i++) {
		const struct psr_proc *p = &s->procs[i];
		uint64_t span = p->last_ns > p->ns0 ? p->last_ns - p->ns0 : 0;

		if (!render_proc_wanted(p, o))
			continue;
		fprintf(out, "\nprocess %d (parent %d) in %s\n", p->pid, p->ppid, p->name);
		fprintf(out, "  command:  %s\n", p->cmdline ? p->cmdline : "?");
		fprintf(out, "  exe:      %s\n", p->exe ? p->exe : "?");
		fprintf(out, "  tracer:   %s%s\n", p->tracer, p->overwrite ? " (overwrite)" : "");
		info_tracers(out, p);
		fprintf(out, "  clock:    tsc, %.6f ns per tick\n", p->ns_per_tsc);
		fprintf(out, "  time:     %.6f s recorded\n", (double)span / 1e9);
		if (p->has_end)
			fprintf(out, "  end:      %s\n", p->status[0] ? p->status : "normal exit");
		else if (p->exec_followed)
			fprintf(out, "  end:      exec (a later image of this pid follows)\n");
		else
			fprintf(out, "  end:      %s%sabnormal: no clean end written\n", p->status,
				p->status[0] ? ", " : "");
		for (unsigned k = 0; k < p->ntext_lost; k++)
			fprintf(out, "  lost:     %llu lines of %s (writing them failed, said on the "
				"program's stderr)\n", (unsigned long long)p->text_lost[k].lines,
				p->text_lost[k].file);
		fprintf(out, "  objects:  %zu\n", p->nmods);
		for (size_t k = 0; k < p->nmods; k++) {
			fprintf(out, "    [%u] %s: %zu sites%s\n", p->mods[k].index,
				p->mods[k].path ? p->mods[k].path : "?", p->mods[k].nsites,
				p->mods[k].unload_tsc ? " (unloaded)" : "");
			info_scan(out, &p->mods[k]);
			info_refused(out, &p->mods[k]);
			info_noflag(out, p, p->mods[k].index);
		}
		fprintf(out, "  threads:  %zu\n", p->nthreads);
		for (size_t k = 0; k < p->nthreads; k++) {
			const struct psr_thread *t = &p->threads[k];

			if (!walk_thread_wanted(t, o))
				continue;
			fprintf(out, "    %d %-16s events %llu lost %llu overwritten %llu%s%s%s\n",
				t->tid, t->comm, (unsigned long long)t->events,
				(unsigned long long)t->lost, (unsigned long long)t->overwritten,
				t->stopped ? " stopped: " : "", t->stopped ? t->why : "",
				t->clean ? "" : " (not closed)");
			events += t->events;
			lost += t->lost;
			markers += t->markers;
		}
		info_sched(out, p, o);
		if (p->nevents)
			info_events(out, p, o);
		damaged += !render_branches_info(out, p);
	}
	fprintf(out, "\n# events: %llu recorded, %llu lost\n# markers: %llu (trace_marker lines, "
		"counted in the events)\n", events, lost, markers);
	if (s->problems)
		fprintf(out, "# damaged or missing parts: %u (said above on stderr)\n", s->problems);
	return s->problems || damaged ? -EBADMSG : 0;
}
