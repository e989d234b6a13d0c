// SPDX-License-Identifier: GPL-2.0-only
/*
 * The verbs that read a recording: replay, report, dump and info.  Their
 * options become render_opts; render/ prints.
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "../render/branch_report.h"
#include "../data/read_profile.h"
#include "../render/dist.h"
#include "../render/render.h"
#include "dwarf/srcline.h"

/* DIR/snapshot.N; N 0: the latest (the highest number).  -1 when there is none. */
static int snapshot_dir(const char *dir, int n, char *buf, size_t len)
{
	DIR *d;
	struct dirent *e;

	if (!n && (d = opendir(dir))) {
		while ((e = readdir(d))) {
			char *end;
			long k = !strncmp(e->d_name, "snapshot.", 9) ? strtol(e->d_name + 9, &end, 10) : 0;

			if (k > n && k <= INT_MAX && !*end)
				n = (int)k;
		}
		closedir(d);
	}
	if (!n) {
		fprintf(stderr, "patchsite: %s: no snapshot taken (echo 1 > snapshot, or "
			"patchsite_snapshot())\n", dir);
		return -1;
	}
	snprintf(buf, len, "%s/snapshot.%d", dir, n);
	return 0;
}

/*
 * nosleep-time (the flag, --options or the recorded option) needs every shown
 * thread's time off the CPU: a thread without it is named, with why, rather
 * than shown with its sleep counted.
 */
static bool offcpu_known(const struct psr_session *s, const struct render_opts *o,
			 const char *dir)
{
	for (size_t i = 0; i < s->nprocs; i++) {
		const struct psr_proc *p = &s->procs[i];

		bool nosleep = !(psr_options_apply(p->options, o->opt_set, o->opt_clear) &
				 PSR_OPT_SLEEP_TIME);

		for (size_t k = 0; nosleep && render_proc_wanted(p, o) && k < p->nthreads; k++) {
			const struct psr_thread *t = &p->threads[k];

			if ((o->tid && t->tid != o->tid) || t->sched == PSR_SCHED_ON)
				continue;
			fprintf(stderr, "patchsite: %s: nosleep-time: thread %d of process %d: "
				"off-CPU time unknown (%s)\n", dir, t->tid, p->pid,
				t->sched == PSR_SCHED_UNKNOWN ? t->sched_why :
				p->sched_asked == 0 ? "recorded with --no-sched" :
				"no scheduler switches recorded");
			return false;
		}
	}
	return true;
}

/* Long options without a short one. */
enum { OPT_FOLDED = 0x100, OPT_AVG_TOTAL, OPT_AVG_SELF, OPT_TASK, OPT_DIFF_POLICY, OPT_SORT_COLUMN,
       OPT_GRAPHVIZ, OPT_MERMAID };

/*
 * report -s, -f, --avg-total, --avg-self and --task (uftrace's spellings), read once every
 * option is known (avg, min and max name --avg-self's columns with it).  2: said.
 */
static int report_columns(struct render_opts *o, const char *sort_arg, const char *fields_arg,
			  int avg)
{
	const char *bad = "";
	int err = 0;

	if (avg && fields_arg)
		return bad_usage("--avg-total and --avg-self choose the columns: not with -f%s", "");
	if (avg)
		err = render_parse_fields(o, avg == 't' ? "total-avg,total-min,total-max" :
					  "self-avg,self-min,self-max", &bad);
	else if (fields_arg)
		err = render_parse_fields(o, fields_arg, &bad);
	if (err == -EOPNOTSUPP)
		return bad_usage("-f size: a trace directory has no function sizes%s", "");
	if (err)
		return bad_usage(o->task ? "-f %s: expected total, self, func, tid or none" :
				 "-f %s: expected total, total-avg, total-min, total-max, self, "
				 "self-avg, self-min, self-max, call, all or none", bad);
	/* As uftrace: with --avg-total or --avg-self the rows are sorted by the average. */
	if (sort_arg || avg)
		err = render_parse_keys(o, sort_arg ? sort_arg : "avg", avg == 's', &bad);
	if (err == -EOPNOTSUPP)
		return bad_usage("--sort=size: a trace directory has no function sizes%s", "");
	if (err)
		return bad_usage(o->task ? "--sort=%s: expected total, self, func or tid" :
				 "--sort=%s: expected total, self, call (calls), func, total-avg, "
				 "total-min, total-max, self-avg, self-min, self-max, or avg, min, max",
				 bad);
	return 0;
}

static int filter_option(struct psr_filter **f, int c, const char *arg)
{
	static const char *const names[][2] = {
		{ "F", "--filter" }, { "G", "-G" }, { "N", "--notrace" }, { "H", "--hide" },
		{ "C", "--caller-filter" }, { "T", "--trigger" }, { "D", "--depth" },
		{ "t", "--time-filter" }, { "Z", "--size-filter" }, { "L", "--loc-filter" },
		{ "r", "--time-range" }, { "M", "--max-stack" }, { "m", "--match" }, { "o", "--trace" },
		{ "l", "--no-libcall" }, { "a", "--no-args" },
	};
	char why[256], msg[512];
	const char *name = "";
	int err = psr_filter_add(f, c, arg, why, sizeof(why));

	if (!err)
		return 0;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i][0][0] == c)
			name = names[i][1];
	if (err == -ENOMEM)
		snprintf(why, sizeof(why), "out of memory");
	snprintf(msg, sizeof(msg), "%s=%s: %s", name, arg, why);
	bad_usage("%s", msg);
	return 2;
}

int filter_arg_add(struct filter_args *fa, int c, const char *arg, const char *shown)
{
	if (c == 'm') {
		fa->match = arg;
		return 0;
	}
	if (fa->n == sizeof(fa->a) / sizeof(fa->a[0]))
		return bad_usage("%s: more than 64 filter options", arg ? arg : shown);
	fa->a[fa->n].c = FILTER_LETTER(c);
	fa->a[fa->n++].arg = arg ? arg : "";
	return 0;
}

int filter_options(struct psr_filter **f, const struct filter_args *fa)
{
	/* --match, wherever it is, says how every pattern reads (as uftrace's). */
	if (fa->match && filter_option(f, 'm', fa->match))
		return 2;
	for (size_t i = 0; i < fa->n; i++)
		if (filter_option(f, fa->a[i].c, fa->a[i].arg))
			return 2;
	psr_filter_srcline(*f, srcline_of);
	return 0;
}

bool filter_fits(const struct psr_session *s, const struct render_opts *o)
{
	const struct psr_proc **shown = calloc(s->nprocs + 1, sizeof(*shown));
	size_t n = 0;
	bool ok = shown != NULL;

	for (size_t i = 0; ok && i < s->nprocs; i++) {
		const struct psr_proc *p = &s->procs[i];

		if (!render_proc_wanted(p, o))
			continue;
		if (psr_proc_profiled(p)) {
			fprintf(stderr, "patchsite: %s: function_profile counted calls without "
				"recording them: no calls to filter\n", p->dir);
			ok = false;
		}
		shown[n++] = p;
	}
	if (!shown)
		fprintf(stderr, "patchsite: out of memory\n");
	ok = ok && !psr_filter_check(o->filter, shown, n, s->dir, stderr);
	free(shown);
	return ok;
}

/* Filters with what they cannot apply to: 0, or 2 after one line. */
static int filter_usage(enum verb verb, const struct psr_filter *f, const struct render_opts *o,
			bool branches)
{
	if (!psr_filter_any(f))
		return 0;
	if (verb == INFO)
		return bad_usage("info: the filters (-F, -N, ...) are replay's, report's, graph's "
				 "and dump's%s", "");
	if (o->latency || branches)
		return bad_usage("the filters (-F, -N, ...) with --latency or --branches: "
				 "those show no filtered calls%s", "");
	return 0;
}

/* cmd_read's work: the filters in *filter, freed by cmd_read whatever the way out. */
static int read_verb(enum verb verb, int argc, char **argv, struct psr_filter **filter)
{
	static const struct option opts[] = {
		{ "dir", required_argument, NULL, 'd' },
		{ "pid", required_argument, NULL, 'p' },
		{ "tid", required_argument, NULL, 'i' },
		{ "sort", required_argument, NULL, 's' },
		{ "json", no_argument, NULL, 'j' },
		{ "chrome", no_argument, NULL, 'c' },
		{ "folded", no_argument, NULL, OPT_FOLDED },
		{ "output-fields", required_argument, NULL, 'f' },
		{ "avg-total", no_argument, NULL, OPT_AVG_TOTAL },
		{ "avg-self", no_argument, NULL, OPT_AVG_SELF },
		{ "task", no_argument, NULL, OPT_TASK },
		{ "diff-policy", required_argument, NULL, OPT_DIFF_POLICY },
		{ "sort-column", required_argument, NULL, OPT_SORT_COLUMN },
		{ "perfetto", no_argument, NULL, 'P' },
		{ "flamegraph", no_argument, NULL, 'g' },
		{ "graphviz", no_argument, NULL, OPT_GRAPHVIZ },
		{ "mermaid", no_argument, NULL, OPT_MERMAID },
		{ "reverse", no_argument, NULL, 'R' },
		{ "latency", no_argument, NULL, 'l' },
		{ "snapshot", optional_argument, NULL, 'S' },
		{ "options", required_argument, NULL, 'O' },
		{ "branches", no_argument, NULL, 'B' },
		{ "percentiles", optional_argument, NULL, 'Q' },
		{ "hist", required_argument, NULL, 'y' },
		{ "graph", optional_argument, NULL, 'a' },
		{ "diff", required_argument, NULL, 'x' },
		{ "sched", no_argument, NULL, 'W' },
		{ "no-sched", no_argument, NULL, 'w' },
		{ "sleep-time", no_argument, NULL, 'Y' },
		{ "nosleep-time", no_argument, NULL, 'z' },
		{ "srcline", no_argument, NULL, 'X' },
		FILTER_LONG_OPTIONS,
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct render_opts o = { .sort_column = -1 };
	struct psr_session *s;
	const char *dir = DEFAULT_DIR;
	char snap[PATH_MAX];
	int c, err = 0, fmt = 0, snapshot = -1;
	bool sorted = false, branches = false, sleep_flag = false;
	int sched = -1;		/* replay's switches: -1 the default (shown where recorded) */
	const char *diff_dir = NULL, *sort_arg = NULL, *fields_arg = NULL;
	int avg = 0;		/* --avg-total 't', --avg-self 's' */
	bool sort_column = false;
	struct filter_args fa = { .n = 0 };

	while ((c = getopt_long(argc, argv, "d:hs:f:F:N:H:C:T:D:t:Z:L:r:G:", opts, NULL)) != -1) {
		switch (c) {
		case 'd': dir = optarg; break;
		case 'p': if (parse_int(optarg, "--pid", &o.pid)) return 2; break;
		case 'i': if (parse_int(optarg, "--tid", &o.tid)) return 2; break;
		case 'F': case 'N': case 'H': case 'C': case 'T': case 'D': case 't': case 'Z':
		case 'L': case 'r': case 'G': case 'M': case 'o':
		case OPT_NO_LIBCALL: case OPT_NO_ARGS: case 'm':
			if (filter_arg_add(&fa, c, optarg, argv[optind - 1]))
				return 2;
			break;
		case 'j': o.json = true; break;
		case 'l': o.latency = true; break;
		case 'c': case OPT_FOLDED: case 'P': case 'g': case OPT_GRAPHVIZ: case OPT_MERMAID:
			fmt = c;
			break;
		case 'f': fields_arg = optarg; break;
		case OPT_AVG_TOTAL: case OPT_AVG_SELF:
			if (avg && avg != (c == OPT_AVG_TOTAL ? 't' : 's'))
				return bad_usage("--avg-total or --avg-self, not both%s", "");
			avg = c == OPT_AVG_TOTAL ? 't' : 's';
			break;
		case OPT_TASK: o.task = true; break;
		case OPT_DIFF_POLICY: {
			const char *bad = "";

			if (render_parse_diff_policy(&o, optarg, &bad))
				return bad_usage("--diff-policy: '%s': expected abs, no-abs, percent, "
						 "no-percent, compact or full", bad);
			break;
		}
		case OPT_SORT_COLUMN:
			if (strcmp(optarg, "0") && strcmp(optarg, "1") && strcmp(optarg, "2"))
				return bad_usage("--sort-column=%s: expected 0 (A), 1 (B) or 2 "
						 "(the change)", optarg);
			o.sort_column = *optarg - '0';
			sort_column = true;
			break;
		case 'R': o.flame_reverse = true; break;
		case 'O':
			if (verb != REPLAY)
				return bad_usage("--options: only replay and pipe print ftrace's text%s", "");
			if (parse_options(optarg, &o.opt_set, &o.opt_clear, true))
				return 2;
			break;
		case 'S':
			snapshot = 0;
			if (optarg && parse_int(optarg, "--snapshot", &snapshot))
				return 2;
			break;
		case 'B': branches = true; break;
		case 'Q': {
			const char *why;
			int n = dist_parse_percentiles(optarg ? optarg : "50,90,99", o.pct, &why);

			if (n < 0) {
				char msg[256];

				snprintf(msg, sizeof(msg), "--percentiles=%s: %s", optarg ? optarg : "",
					 why);
				return bad_usage("%s", msg);
			}
			o.npct = (unsigned)n;
			break;
		}
		case 'y':
			if (!*optarg)
				return bad_usage("--hist=%s: expected a function's name", optarg);
			o.hist = optarg;
			break;
		case 'x':
			if (!*optarg)
				return bad_usage("--diff=%s: expected a trace directory to compare with",
						 optarg);
			diff_dir = optarg;
			break;
		case 'a':
			if (optarg && !*optarg)
				return bad_usage("--graph=%s: expected a function's name", optarg);
			o.graph = true;
			o.graph_func = optarg;
			break;
		case 's': sorted = true; sort_arg = optarg; break;
		case 'W': sched = 1; break;
		case 'w': sched = 0; break;
		/* The sleep-time option's flags: the same as --options=[no]sleep-time. */
		case 'Y': case 'z':
			if (parse_options(c == 'Y' ? "sleep-time" : "nosleep-time", &o.opt_set,
					  &o.opt_clear, true))
				return 2;
			sleep_flag = true;
			break;
		case 'X': o.srcline = srcline_of; break;
		case 'h': fputs(usage, stdout); return 0;
		default: return bad_usage("bad option%s", "");
		}
	}
	if (optind < argc)
		return bad_usage("unexpected argument '%s'", argv[optind]);
	if (filter_options(filter, &fa))
		return 2;
	err = filter_usage(verb, *filter, &o, branches);
	if (err)
		return err;
	o.filter = *filter;
	if ((o.json && verb != REPORT) || (sorted && verb != REPORT))
		return bad_usage("--json and --sort are report's options%s", "");
	if ((fields_arg || avg || o.task) &&
	    (verb != REPORT || o.json || branches || o.npct || o.hist || o.graph ||
	     (diff_dir && (avg || o.task))))
		return bad_usage("-f, --avg-total, --avg-self and --task are report's, for its "
				 "table (not with --json, --branches, --percentiles, --hist, "
				 "--graph; only -f with --diff)%s", "");
	if (o.task && o.srcline)
		return bad_usage("--task: one row per thread, no source line%s", "");
	if (report_columns(&o, sort_arg, fields_arg, avg))
		return 2;
	if ((o.diff_policy || sort_column) && (!diff_dir || o.json))
		return bad_usage("--diff-policy and --sort-column are report --diff's, for its "
				 "table%s", "");
	if (sort_column && !(o.diff_policy & RENDER_DIFF_FULL))
		return bad_usage("--sort-column: with --diff-policy=full (A, B and the change "
				 "shown)%s", "");
	if (diff_dir && o.nsort > 1)
		return bad_usage("--diff=%s: one --sort key (the change of it is sorted, or func: "
				 "the names)", diff_dir);
	for (unsigned i = 0; diff_dir && i < o.nfield; i++)
		if (o.field[i] != SORT_TOTAL && o.field[i] != SORT_SELF && o.field[i] != SORT_CALLS)
			return bad_usage("-f with --diff=%s: total, self, call or none (the "
					 "changes uftrace's diff shows)", diff_dir);
	if ((o.npct || o.hist) && (verb != REPORT || branches))
		return bad_usage("--percentiles and --hist are report's (without --branches)%s", "");
	if (o.graph && (verb != REPORT || branches || o.npct || o.hist || sorted))
		return bad_usage("--graph is report's, alone (with --json, --pid, --tid)%s", "");
	if (diff_dir && (verb != REPORT || branches || o.npct || o.hist || o.graph || o.pid ||
			 o.tid))
		return bad_usage("--diff=%s is report's, with --sort and --json only (two runs' "
				 "pids differ)", diff_dir);
	if (o.hist && o.json)
		return bad_usage("--hist=%s: a text histogram; --json has the percentiles", o.hist);
	if (o.srcline && verb != REPLAY && (verb != REPORT || o.json || o.hist || o.npct ||
					    diff_dir || branches))
		return bad_usage("--srcline is replay's, report's (its table) and graph's option%s",
				 "");
	if (o.latency && verb != REPLAY)
		return bad_usage("--latency is replay's option%s", "");
	if ((sched >= 0 || sleep_flag) && verb != REPLAY)
		return bad_usage("--sched, --no-sched and --nosleep-time are replay's options "
				 "(report has on-CPU and off-CPU columns)%s", "");
	/* As uftrace's replay: the switches recorded are shown unless told not to. */
	o.sched = verb == REPLAY && sched != 0;
	if (branches && (verb != REPORT || sorted))
		return bad_usage("--branches is report's, without --sort (sorted as the kernel "
				 "does)%s", "");
	if (verb == DUMP && !fmt)
		return bad_usage("dump: --chrome, --perfetto, --folded, --flamegraph, --graphviz or "
				 "--mermaid?%s", "");
	if (o.flame_reverse && fmt != 'g')
		return bad_usage("--reverse: only with dump --flamegraph (an icicle graph)%s", "");
	if (fmt == 'P' && isatty(STDOUT_FILENO))
		return bad_usage("dump --perfetto: the trace is binary; redirect it to a file%s", "");
	if (snapshot >= 0) {
		if (snapshot_dir(dir, snapshot, snap, sizeof(snap)))
			return 1;
		dir = snap;
	}
	if (psr_open(dir, stderr, &s))
		return 1;
	if ((verb == REPLAY && !offcpu_known(s, &o, dir)) ||
	    (psr_filter_any(o.filter) && !filter_fits(s, &o))) {
		psr_close(s);
		return 1;
	}
	if (diff_dir) {
		struct psr_session *b;
		char *said = NULL;
		size_t len = 0;
		FILE *e = open_memstream(&said, &len);	/* what opening DIR2 says, to prefix */
		int bad = psr_open(diff_dir, e ? e : stderr, &b);

		if (e)
			fclose(e);
		if (bad) {
			fprintf(stderr, "patchsite: --diff=%s: %s", diff_dir,
				said && !strncmp(said, "patchsite: ", 11) ? said + 11 :
				"not a trace directory\n");
			free(said);
			psr_close(s);
			return 2;
		}
		fputs(said ? said : "", stderr);
		free(said);
		b->err = stderr;	/* damage found while reading it */
		/* The filters keep the same calls of both, as uftrace's report --diff. */
		if (psr_filter_any(o.filter) && !filter_fits(b, &o)) {
			psr_close(b);
			psr_close(s);
			return 1;
		}
		err = render_report_diff(stdout, s, b, &o);
		psr_close(b);
	}
	switch (diff_dir ? -1 : (int)verb) {
	case REPLAY: err = render_replay(stdout, s, &o); break;
	case REPORT:
		err = branches ? render_branches(stdout, s, &o) :
		      o.graph ? render_graph(stdout, s, &o) :
		      o.task ? render_report_task(stdout, s, &o) : render_report(stdout, s, &o);
		break;
	case DUMP:
		err = fmt == 'c' ? render_chrome(stdout, s, &o) :
		      fmt == 'P' ? render_perfetto(stdout, s, &o) :
		      fmt == 'g' ? render_flamegraph(stdout, s, &o) :
		      fmt == OPT_GRAPHVIZ ? render_graphviz(stdout, s, &o) :
		      fmt == OPT_MERMAID ? render_mermaid(stdout, s, &o) : render_folded(stdout, s, &o);
		break;
	case INFO: err = render_info(stdout, s, &o); break;
	default: break;
	}
	/* function_profile's calls are counts, not events: only report (its table) shows them. */
	if ((verb != REPORT || o.graph || branches) && verb != INFO)
		for (size_t i = 0; i < s->nprocs; i++)
			if (render_proc_wanted(&s->procs[i], &o) && psr_proc_profiled(&s->procs[i]))
				fprintf(stderr, "patchsite: %s: function_profile counted calls without "
					"recording them: 'patchsite report' shows those counts\n",
					s->procs[i].dir);
	/* Folded stacks and JSON have no room for comments: what is missing goes to stderr. */
	if ((verb == DUMP || o.json) && !branches)
		for (size_t i = 0; i < s->nprocs; i++)
			if (render_proc_wanted(&s->procs[i], &o))
				render_losses(stderr, &s->procs[i], "patchsite: ");
	if (o.pid) {
		bool any = false;

		for (size_t i = 0; i < s->nprocs; i++)
			any |= s->procs[i].pid == o.pid;
		if (!any) {
			fprintf(stderr, "patchsite: %s: no process %d recorded\n", dir, o.pid);
			err = err ? err : -ESRCH;
		}
	}
	psr_close(s);
	srcline_end();
	if (err == -ENOENT && (o.hist || o.graph_func)) {
		const char *f = o.hist ? o.hist : o.graph_func;

		fprintf(stderr, "patchsite: --%s=%s: no completed call of %s in %s\n",
			o.hist ? "hist" : "graph", f, f, dir);
		return 2;
	}
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "patchsite: writing the output: %s\n", strerror(errno));
		return 1;
	}
	if (err == -ENOMEM)
		fprintf(stderr, "patchsite: out of memory\n");
	return err ? 1 : 0;
}

int cmd_read(enum verb verb, int argc, char **argv)
{
	struct psr_filter *filter = NULL;
	int rc = read_verb(verb, argc, argv, &filter);

	psr_filter_free(filter);
	return rc;
}
