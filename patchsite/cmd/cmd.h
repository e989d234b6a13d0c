/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The patchsite command's verbs (main.c picks one) and what they share
 * (usage.c).  Each verb only turns its arguments into a call of data/,
 * render/ or the control client, and chooses the exit status.
 *   record_cmd.c  record            view.c  replay, report, dump, info
 *   pipe.c        pipe              ctl.c   ctl (ctlclient.h)
 *   help.c        help VERB (the verb's man page)
 * record runs its CMD in record_run.c (record_run.h).
 * Beside the verbs: record_lost.c (what a recording lost), graph_cmd.c
 * (graph), runtime_path.c (where libpatchsite.so is), textlist.c (the lists
 * passed to the runtime as text), ctlclient.c (the control channel's client),
 * ctl_probes.c (ctl's dynamic_events names resolved), pipe_ended.c (pipe's
 * last look at a process), filter_if_cmd.c (-F 'FUNC if COND'), script.c
 * (script, with script_py.c: Python loaded by that verb only, script.h),
 * readtrig_cmd.c (record -T FUNC@read=KIND).
 * Two subsystems, in folders of their own: attach/ (record -p PID: attach.c,
 * attach_target.c, attach_refuse.c, attach_loader.c, attach_ptrace.c,
 * attach_safe.c, attach_inject.c, attach_nops.c, attach_boost.c; attach.c
 * has the map) and
 * dwarf/ (DWARF and argument resolution: probe_dwarf.c names in probe
 * definitions, probe_dwarf_ctx.c, probe_dwarf_loc.c, probe_dwarf_fn.c,
 * probe_dwarf_site.c, probe_dwarf_type.c, argspec.c -A, auto_args.c -a,
 * libcall_args.c and libc_protos.c library calls' arguments, srcline.c
 * replay --srcline).
 */
#ifndef PS_CMD_H
#define PS_CMD_H

#include <stdbool.h>
#include <stddef.h>

#define DEFAULT_DIR "patchsite.data"

extern const char usage[];
/* "patchsite: " fmt (with arg) and a pointer to --help on stderr: 2, the usage exit status. */
int bad_usage(const char *fmt, const char *arg);
/* A positive int, or -1 after bad_usage naming what. */
int parse_int(const char *s, const char *what, int *out);
/* --options LIST over *set, *clear: -1 when a word is not an option or sleep-time is not taken (said). */
int parse_options(const char *list, unsigned *set, unsigned *clear, bool sleep_time);

/*
 * record -T FUNC@read=KIND (readtrig_cmd.c): checked (pmu-* counters tried),
 * added to *args as set_ftrace_args specs; 0, or 2 said in one line.
 */
int record_trigger(const char *spec, char **args);
/* list + sep + s (s alone when list is NULL), realloc'd; NULL (list freed) out of memory. */
char *list_add(char *list, const char *s, char sep);

/* help [VERB]: the usage, or VERB's man page (help.c). */
int cmd_help(int argc, char **argv);
int cmd_record(int argc, char **argv);
/* Events and switches lost in dir's recording, said on stderr (record_lost.c). */
void record_say_lost(const char *dir, const char *cmd);
int cmd_pipe(int argc, char **argv);

enum verb { REPLAY, REPORT, DUMP, INFO };
int cmd_read(enum verb verb, int argc, char **argv);
/*
 * The readers' filters (view.c, for replay, report, graph, dump and script): the n options fo
 * (in their order, read as --match says wherever it was) into *f, 0 or 2 after one line saying
 * what is wrong; filter_fits: they hold for every process o shows (what they name was
 * recorded, what they need was kept), else false, said.
 */
/* Filters on the recording: uftrace's spellings (data/read_filter_parse.c), as getopt_long's options. */
#define FILTER_LONG_OPTIONS \
	{ "filter", required_argument, NULL, 'F' }, { "notrace", required_argument, NULL, 'N' }, \
	{ "hide", required_argument, NULL, 'H' }, \
	{ "caller-filter", required_argument, NULL, 'C' }, \
	{ "trigger", required_argument, NULL, 'T' }, { "depth", required_argument, NULL, 'D' }, \
	{ "time-filter", required_argument, NULL, 't' }, \
	{ "size-filter", required_argument, NULL, 'Z' }, \
	{ "loc-filter", required_argument, NULL, 'L' }, \
	{ "time-range", required_argument, NULL, 'r' }, \
	{ "max-stack", required_argument, NULL, 'M' }, { "match", required_argument, NULL, 'm' }, \
	{ "trace", required_argument, NULL, 'o' }, \
	{ "no-libcall", no_argument, NULL, OPT_NO_LIBCALL }, \
	{ "no-args", no_argument, NULL, OPT_NO_ARGS }
/* getopt's values of the filters without a short letter (psr_filter_add's 'l', 'a'). */
enum { OPT_NO_LIBCALL = 0x180, OPT_NO_ARGS };
#define FILTER_LETTER(c) ((c) == OPT_NO_LIBCALL ? 'l' : (c) == OPT_NO_ARGS ? 'a' : (c))
struct psr_filter;
struct psr_session;
struct render_opts;
/* The filter options of a command line, in their order (--match apart: it reads them all). */
struct filter_args {
	struct {
		int c;		/* psr_filter_add's letter */
		const char *arg;
	} a[64];
	size_t n;
	const char *match;
};
/* getopt's filter option c and its argument (NULL: a flag), kept: 0, or 2 after one line. */
int filter_arg_add(struct filter_args *fa, int c, const char *arg, const char *shown);
int filter_options(struct psr_filter **f, const struct filter_args *fa);
bool filter_fits(const struct psr_session *s, const struct render_opts *o);
/* script FILE.py | --json: the calls to Python callbacks or as JSON lines (script.c). */
int cmd_script(int argc, char **argv);
/* graph [FUNC]: report --graph[=FUNC] (graph_cmd.c). */
int cmd_graph(int argc, char **argv);
/* demangle.c: names the traced process left mangled are demangled by the reader. */
void cmd_demangle_init(void);

#endif
