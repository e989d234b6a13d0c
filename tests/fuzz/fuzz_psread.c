// SPDX-License-Identifier: GPL-2.0-only
/*
 * The trace directory reader (patchsite/data/) and every renderer on
 * arbitrary bytes.  The input is cut into the directory's files:
 *   byte 0       flags: bit 0 a valid thread header is made (fields from
 *                the next bytes), else the thread file is raw input;
 *                bit 1 overwrite; bit 2 clean
 *   bytes 1-8    lengths (2 bytes each) of session, info, modules, mod.0
 *   bytes 9-10   length of sched.7, the thread's scheduler switches (after
 *                a made header of state 1 when bit 0 is set, else raw)
 *   then those five files' bytes, and the rest is the thread file (after
 *   the made header, when there is one).
 * A fixed events file describes static trace events 1 and 2 (kind 5
 * records in the thread data are decoded through it, with a print format
 * that has conversions which fit no field).
 * The reader must say what is wrong and carry on: no memory error, no
 * undefined behaviour, no hang; all five outputs are produced each run.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../patchsite/data/format.h"
#include "../../patchsite/render/render.h"
#include "common.h"

static char dir[4096], proc[4200];
static const char events[] =
	"name: s:e\nID: 1\nformat:\n"
	"\tfield:int len;\toffset:8;\tsize:4;\tkind:signed;\n"
	"\tfield:__data_loc char[] host;\toffset:12;\tsize:4;\tkind:string;\n"
	"\tfield:double x;\toffset:16;\tsize:8;\tkind:float;\n"
	"\tfield:u8 mac[6];\toffset:24;\tsize:6;\tkind:bytes;\n"
	"fixed: 30\nprint fmt: len=%d host=%s x=%.3f mac=%s %p %n %*d %lld%%\n\n"
	"name: s:f\nID: 2\nformat:\n"
	"\tfield:void * p;\toffset:8;\tsize:8;\tkind:pointer;\n"
	"\tfield:float y;\toffset:16;\tsize:4;\tkind:float;\n"
	"fixed: 20\nprint fmt: p=%p y=%g z=%d\n\n";
static FILE *null;

static void put(const char *name, const uint8_t *p, size_t n, const void *hdr, size_t hn)
{
	char path[4400];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", proc, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		abort();
	if ((hn && write(fd, hdr, hn) != (ssize_t)hn) || (n && write(fd, p, n) != (ssize_t)n))
		abort();
	close(fd);
}

/* sched.7: switch records after a made header (flags bit 0), or raw bytes. */
static void put_sched(const uint8_t *p, size_t n, uint8_t flags)
{
	union {
		struct psd_sched_hdr h;
		uint8_t page[PSD_SCHED_HDR_BYTES];
	} u;

	if (!(flags & 1)) {
		put("sched.7", p, n, NULL, 0);
		return;
	}
	memset(&u, 0, sizeof(u));
	memcpy(u.h.magic, PSD_SCHED_MAGIC, 8);
	u.h.version = PSD_SCHED_VERSION;
	u.h.hdr_bytes = PSD_SCHED_HDR_BYTES;
	u.h.tid = 7;
	u.h.state = PSD_SCHED_ON;
	u.h.clockid = 1;
	u.h.clean = flags >> 2 & 1;
	u.h.lost = flags >> 4;
	put("sched.7", p, n, &u, sizeof(u));
}

static size_t take(const uint8_t **p, size_t *left, size_t want)
{
	size_t n = want < *left ? want : *left;

	*p += n;
	*left -= n;
	return n;
}

/* patchsite script's walk (render_calls): every field of each call read. */
static int fuzz_call(const struct render_call *c, void *arg)
{
	fprintf(arg, "%d %d %zu %llu %llu %llx %s %s", c->kind, c->tid, c->depth,
		(unsigned long long)c->ns, (unsigned long long)c->dur_ns,
		(unsigned long long)c->addr, c->name, c->text ? c->text : "");
	for (unsigned i = 0; i < c->nargs; i++)
		fprintf(arg, " %llx", (unsigned long long)c->args[i]);
	if (c->has_ret)
		fprintf(arg, " = %llx", (unsigned long long)c->ret);
	if (c->args_probe)
		fprintf(arg, " %s", psr_event_name(c->p, c->args_probe));
	if (c->ret_probe)
		fprintf(arg, " %s", psr_event_name(c->p, c->ret_probe));
	return 0;
}

/*
 * The filters on a recording (data/read_filter.c) over the damaged events:
 * each kind at once, on the names an input's sites go by without symbols.
 */
static void filtered(const struct psr_session *s)
{
	static const char *const set[][2] = {
		{ "F", "site#*" }, { "N", "site#1" }, { "H", "site#2" }, { "C", "site#*" },
		{ "T", "site#3@depth=1,trace_off" }, { "T", "site#4@trace_on" }, { "D", "3" },
		{ "t", "1" }, { "Z", "1" }, { "r", "1ns~" }, { "M", "5" }, { "L", "*.c" },
	};
	static struct psr_filter *f;
	struct render_opts o = { 0 };
	char why[256];

	if (!f)
		for (size_t i = 0; i < sizeof(set) / sizeof(set[0]); i++)
			if (psr_filter_add(&f, set[i][0][0], set[i][1], why, sizeof(why)))
				abort();	/* a harness bug: every one is well formed */
	o.filter = f;
	for (size_t i = 0; i < s->nprocs; i++) {
		const struct psr_proc *p = &s->procs[i];

		psr_filter_check(f, &p, 1, s->dir, null);
	}
	render_replay(null, s, &o);
	render_report(null, s, &o);
	render_graph(null, s, &o);
	render_chrome(null, s, &o);
	render_folded(null, s, &o);
	render_calls(s, &o, fuzz_call, null);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct render_opts opts[] = { { 0 }, { .sort = { SORT_SELF }, .nsort = 1, .json = true,
		.pct = { 50, 99.9 }, .npct = 2,
		.opt_set = PSR_OPT_SYM_OFFSET | PSR_OPT_FUNCGRAPH_ABSTIME | PSR_OPT_FUNCGRAPH_TAIL,
		.opt_clear = PSR_OPT_PRINT_PARENT | PSR_OPT_FUNCGRAPH_PROC | PSR_OPT_SLEEP_TIME |
			     PSR_OPT_FUNCGRAPH_CPU | PSR_OPT_FUNCGRAPH_OVERHEAD,
		.sched = true },
		/* report --hist, --graph=FUNC, dump --flamegraph --reverse: a name of the
		   sites an input names without a symbol */
		{ .hist = "site#0", .graph_func = "site#0", .flame_reverse = true } };
	struct psd_thread_hdr h;
	struct psr_session *s;
	const uint8_t *p = data;
	size_t left = size, len[5];
	uint8_t flags;

	if (!null) {
		fuzz_init();
		snprintf(dir, sizeof(dir), "%s", fuzz_scratch("psdata"));
		snprintf(proc, sizeof(proc), "%s/p", dir);
		mkdir(dir, 0755);
		mkdir(proc, 0755);
		null = fopen("/dev/null", "w");
	}
	if (size < 11)
		return 0;
	flags = data[0];
	for (int i = 0; i < 5; i++)
		len[i] = (size_t)(data[1 + 2 * i] | data[2 + 2 * i] << 8) % 2048;
	take(&p, &left, 11);
	/* session and the rest live in dir; proc is "p" */
	{
		char path[4400];
		const uint8_t *q = p;
		size_t n = take(&p, &left, len[0]);
		FILE *f;

		snprintf(path, sizeof(path), "%s/session", dir);
		f = fopen(path, "w");
		fputs("1 0 p /x\n", f);
		fwrite(q, 1, n, f);
		fclose(f);
	}
	{
		const uint8_t *q = p;

		put("info", q, take(&p, &left, len[1]), NULL, 0);
		q = p;
		put("modules", q, take(&p, &left, len[2]), "load 0 0 0 mod.0 /x\n", 20);
		q = p;
		put("mod.0", q, take(&p, &left, len[3]), NULL, 0);
		/* the same bytes as the noflag file, after a proof line of object 0 */
		put("noflag", q, (size_t)(p - q), "proof 0 3 /p\n", 13);
		q = p;
		put_sched(q, take(&p, &left, len[4]), flags);
		/* Static trace events 1 and 2: extended records of kind 5 in the data decode through them. */
		put("events", (const uint8_t *)events, strlen(events), NULL, 0);
	}
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, PSD_THREAD_MAGIC, 8);
	h.version = PSD_VERSION;
	h.hdr_bytes = PSD_HDR_BYTES;
	h.tid = 7;
	h.chunk_bytes = 4096;
	h.overwrite = flags >> 1 & 1;
	h.nchunks = 4;
	h.clean = flags >> 2 & 1;
	h.end_word = flags >> 3;
	h.chunks = flags >> 5;
	if (flags & 1) {
		uint8_t page[PSD_HDR_BYTES] = { 0 };

		memcpy(page, &h, sizeof(h));
		put("thread.7", p, left, page, sizeof(page));
	} else {
		put("thread.7", p, left, NULL, 0);
	}
	if (psr_open(dir, null, &s))
		return 0;
	for (int i = 0; i < 2; i++) {
		render_replay(null, s, &opts[i]);
		render_report(null, s, &opts[i]);
		render_graph(null, s, &opts[i]);
		render_report_diff(null, s, s, &opts[i]);
		render_chrome(null, s, &opts[i]);
		render_perfetto(null, s, &opts[i]);
		render_folded(null, s, &opts[i]);
		render_flamegraph(null, s, &opts[i]);
		render_graphviz(null, s, &opts[i]);
		render_mermaid(null, s, &opts[i]);
		render_info(null, s, &opts[i]);
		render_calls(s, &opts[i], fuzz_call, null);
	}
	render_report(null, s, &opts[2]);
	render_graph(null, s, &opts[2]);
	render_flamegraph(null, s, &opts[2]);
	filtered(s);
	psr_close(s);
	/* Followed as patchsite pipe does: a round while live, then one after the end. */
	if (psr_open_live(dir, null, &s))
		return 0;
	for (size_t i = 0; i < s->nprocs; i++) {
		struct render_live *l = render_live_new(PSR_OPT_SYM_OFFSET | PSR_OPT_FUNCGRAPH_ABSTIME,
							PSR_OPT_FUNCGRAPH_PROC, true);

		if (!l)
			continue;
		render_live_round(null, l, &s->procs[i]);
		s->procs[i].gone = true;
		psr_follow(s);
		render_live_round(null, l, &s->procs[i]);
		render_live_save(null, l);
		render_live_free(l);
	}
	psr_close(s);
	return 0;
}
