// SPDX-License-Identifier: GPL-2.0-only
/* The command's usage text and the argument checks every verb shares. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "cmd.h"
#include "../data/psread.h"

const char usage[] =
	"usage: patchsite record [-d DIR] [--tracer=function|function_graph|latency|function_profile|nop]\n"
	"                        [-F GLOB]...\n"
	"                        [-N GLOB]... [-G GLOB]... [-D DEPTH] [--buffer-kb=N]\n"
	"                        [--overwrite] [--live] [--probe=DEF]... [-A FUNC[@arg1,...]]...\n"
	"                        [-R FUNC[@retval[/FMT]]]... [-T FUNC@read=KIND]... [-a]\n"
	"                        [--libcall[=plt|got]|--no-libcall]\n"
	"                        [--nest-libcall] [--no-sched] [--emulator=PROG] [--] CMD [ARGS...]\n"
	"       patchsite record -p PID [-d DIR] [--tracer=...] [-F GLOB]... [--duration=S] [--live]\n"
	"       patchsite pipe   [-d DIR | PID] [--pid=P] [--from-start|--from-now] [--reader=NAME]\n"
	"                        [--options=LIST] [--no-sched]\n"
	"       patchsite replay [-d DIR] [--pid=P] [--tid=T] [--latency] [--snapshot[=N]]\n"
	"                        [--options=LIST] [--sched|--no-sched] [--sleep-time|--nosleep-time]\n"
	"                        [--srcline]\n"
	"       patchsite report [-d DIR] [-s KEY[,KEY...]] [--pid=P] [--json]\n"
	"                        [--srcline]\n"
	"                        [--percentiles[=50,90,99,...]]\n"
	"       patchsite report [-d DIR] [-f FIELD[,...]|--avg-total|--avg-self] [-s KEY[,...]]\n"
	"       patchsite report [-d DIR] --task [-f FIELD[,...]] [-s KEY[,...]]\n"
	"       patchsite report [-d DIR] --hist=FUNC [--percentiles=LIST] [--pid=P]\n"
	"       patchsite report [-d DIR] --graph[=FUNC] [--pid=P] [--tid=T] [--json]\n"
	"       patchsite report [-d DIR] --diff=DIR2 [--sort=KEY] [--json]\n"
	"                        [--diff-policy=[no-]abs,[no-]percent,compact|full]\n"
	"                        [--sort-column=0|1|2]\n"
	"       patchsite graph  [-d DIR] [FUNC] [--pid=P] [--tid=T] [--json|--srcline]\n"
	"       patchsite report [-d DIR] --branches [--pid=P] [--json]\n"
	"       patchsite dump   [-d DIR] --chrome|--perfetto|--folded [--pid=P] [--tid=T]\n"
	"       patchsite dump   [-d DIR] --flamegraph [--reverse] [--pid=P] [--tid=T]\n"
	"       patchsite dump   [-d DIR] --graphviz|--mermaid [--pid=P] [--tid=T]\n"
	"       patchsite info   [-d DIR] [--pid=P]\n"
	"       patchsite script [-d DIR] [--pid=P] [--tid=T] [FILTERS] FILE.py|-S FILE.py [-- ARG...]\n"
	"       patchsite script [-d DIR] [--pid=P] [--tid=T] [FILTERS] --json\n"
	"       patchsite ctl    [--append] PID FILE [VALUE...] | --list PID\n"
	"\n"
	"record   runs CMD with libpatchsite preloaded; it records into DIR (default\n"
	"         ./" DEFAULT_DIR ") as it runs, one directory per process; the exit status\n"
	"         is CMD's.  -F/-N: functions to trace / not to trace (ftrace globs,\n"
	"         glob:mod:OBJECT); -G: function_graph only below these; -D: graph depth;\n"
	"         --overwrite: keep the newest --buffer-kb KB per thread (flight recorder).\n"
	"         --live: print the events as they are recorded too, as pipe does.\n"
	"         --probe='f[:GRP/EVENT] FUNC [NAME=FETCHARG[:TYPE]]...': an fprobe event\n"
	"         (dynamic_events, as the kernel's), recorded: FETCHARG $argN, $stackN,\n"
	"         $stack, %REG, @SYM, +OFF(FETCHARG); TYPE u8..u64 s8..s64 x8..x64 char\n"
	"         string float double; or a parameter's name (len, h->name), resolved\n"
	"         from the program's DWARF by this command.  FUNC%return: at the\n"
	"         return, $retval (typed from DWARF when no TYPE).  A trailing 'if EXPR'\n"
	"         (events' filter syntax: len > 1000 && port < 10) keeps the calls\n"
	"         whose arguments match.\n"
	"         -A FUNC@arg1[/FMT],...,fparg1 (uftrace's spelling: FMT d i u x with\n"
	"         sizes, c, s, p; f f32 f64): a probe of FUNC's arguments; -R FUNC@retval:\n"
	"         its return value on function_graph's return line (/FMT: a return\n"
	"         probe of that type); replay shows both in the call, as uftrace; -A FUNC,\n"
	"         -R FUNC alone: typed from DWARF, as -a; -T FUNC@read=KIND (proc/statm, page-fault,\n"
	"         pmu-cycle, pmu-cache, pmu-branch): KIND read at FUNC's entry and exit,\n"
	"         replay shows both and the difference; -a: every function\n"
	"         of a -g program with its arguments and return value, from DWARF,\n"
	"         and common libc functions' library calls, from a prototype list.\n"
	"         Library calls (malloc() inside main()) are traced through the PLT\n"
	"         slots by default (--libcall); --no-libcall: the program's\n"
	"         own functions only; --libcall=got: -fno-plt's GOT slots too;\n"
	"         --nest-libcall: the calls of the libraries loaded at start-up too.\n"
	"         Each thread's scheduler switches are recorded too (a perf event per\n"
	"         thread; time off the CPU): --no-sched does not ask for them.\n"
	"         --emulator=PROG: run PROG CMD (qemu-aarch64: CMD of another arch, with\n"
	"         PATCHSITE_LIB its runtime); names resolve in CMD's DWARF.\n"
	"         -p PID: attach to a running process (loading the runtime if it has\n"
	"         none) until Ctrl-C, SIGTERM or --duration=S; it then runs on untraced;\n"
	"         with --live, what it records from now on (a running session's\n"
	"         backlog is not shown: pipe --from-now).\n"
	"pipe     ftrace's trace_pipe: print the events of DIR's processes (or of the\n"
	"         running process PID, where it records) as they are\n"
	"         recorded, until they end; the next pipe goes on where this one stopped\n"
	"         (--from-start: from the beginning; --from-now: only what is recorded\n"
	"         from now on; --reader=NAME: a position of its own); the scheduler\n"
	"         switches as replay shows them, unless --no-sched.\n"
	"replay   the ftrace text of the function or function_graph tracer; --latency:\n"
	"         the longest call the latency tracer kept; the threads' scheduler\n"
	"         switches too (/* sched-out (preempted) */, /* sched-in */) where they\n"
	"         were recorded, unless --no-sched;\n"
	"         --nosleep-time: durations without the time off the CPU (ftrace's\n"
	"         sleep-time option cleared; --sleep-time, the default, counts it);\n"
	"         --srcline (replay, report's table, graph): each function's FILE:LINE, from\n"
	"         its object's DWARF\n"
	"report   per function: total, self, calls, average, min, max time (and\n"
	"         on-CPU and off-CPU time, where scheduler switches were recorded;\n"
	"         a function_profile run: its counts, no events needed);\n"
	"         --percentiles: percentiles of each function's call times too (from its\n"
	"           histogram: within 12.5% above the exact value);\n"
	"         --hist=FUNC: FUNC's call times as a log-linear histogram (12.5% buckets);\n"
	"         --graph[=FUNC]: the call tree (under FUNC) with calls and times per path;\n"
	"         --diff=DIR2: per function, this run, DIR2's and the change, largest first;\n"
	"         -s/--sort KEY,...: total self call(s) func total-avg/min/max self-avg/min/max\n"
	"           (avg min max: the total's, --avg-self's with it); -f/--output-fields\n"
	"           FIELD,...: those columns (the keys but func; all; none); --avg-total,\n"
	"           --avg-self: average, min, max of the total (self) time; --task: per\n"
	"           thread (uftrace's names and meanings);\n"
	"graph    report --graph[=FUNC], as uftrace spells it\n"
	"         --branches: patchsite_likely/unlikely counts, worst predicted first\n"
	"dump     Chrome trace-event JSON, Perfetto's protobuf trace (--perfetto, about a\n"
	"         quarter of the JSON's size), folded stacks (flamegraph.pl) or an SVG\n"
	"         flame graph of them (--flamegraph; --reverse: icicle), or the call\n"
	"         graph with each path's calls (--graphviz: DOT; --mermaid: a flowchart)\n"
	"info     the session: processes, threads, objects, events and losses\n"
	"script   each call to a Python script's begin, entry, exit, event and end\n"
	"         (or uftrace's uftrace_begin ... uftrace_end) with its ctx, as uftrace\n"
	"         script -S; --json: each ctx as a JSON line (libpython not needed)\n"
	"ctl      read or write a control file of a running process (ftrace's tracefs\n"
	"         files: current_tracer, set_ftrace_filter, tracing_on...; --list;\n"
	"         function_profile's trace_stat/function and trace_stat/function_hist)\n"
	"replay, report, dump and info read snapshot N (default: the latest) with\n"
	"--snapshot[=N]: a copy taken while the program ran (the snapshot control file).\n"
	"--options: trace_options for the text, over the ones recorded, comma-separated\n"
	"(ftrace's names; noNAME clears): print-parent, sym-offset, funcgraph-proc,\n"
	"funcgraph-abstime, funcgraph-cpu, funcgraph-duration, funcgraph-overhead,\n"
	"funcgraph-tail, sleep-time (replay's: nosleep-time is --nosleep-time).\n"
	"replay, report, graph and dump filter the recording as uftrace's do: -F FUNC\n"
	"(it and what it calls; -G too), -N FUNC (neither), -H FUNC (not it, its callees\n"
	"moved up), -C FUNC (the paths to it), -T FUNC@depth=N|trace_on|trace_off|\n"
	"filter|notrace|hide, -D N, -t TIME (calls shorter hidden), -Z SIZE, -L FILE,\n"
	"-r START~END, --max-stack=N, --no-libcall, --no-args (long forms: --filter,\n"
	"--notrace, "
	"--hide, --caller-filter, --trigger, --depth, --time-filter,\n"
	"--size-filter, --loc-filter, --time-range; see patchsite-replay(1), FILTERS).\n"
	"patchsite help VERB: the verb's page (patchsite-VERB(1)); see also patchsite(1) and\n"
	"patchsite-data(5).\n";

int bad_usage(const char *fmt, const char *arg)
{
	fprintf(stderr, "patchsite: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n(patchsite --help for usage)\n");
	return 2;
}

int parse_int(const char *s, const char *what, int *out)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*end || end == s || v <= 0 || v > INT_MAX) {
		bad_usage("%s: expected a positive number", what);
		return -1;
	}
	*out = (int)v;
	return 0;
}

/*
 * --options LIST (and replay's --sleep-time, --nosleep-time) over the ones given before it:
 * -1 when a word is not an option, or is sleep-time where it is not taken (said).
 */
int parse_options(const char *list, unsigned *set, unsigned *clear, bool sleep_time)
{
	const char *bad;
	unsigned s, c;
	char msg[320];

	if (psr_options_parse(list, &s, &c, &bad)) {
		snprintf(msg, sizeof(msg), "--options: '%s': expected %s (ftrace's trace_options "
			 "names), each with no before it to clear it", bad, psr_option_names());
		bad_usage("%s", msg);
		return -1;
	}
	if (!sleep_time && ((s | c) & PSR_OPT_SLEEP_TIME)) {
		bad_usage("--options: %s: replay's (pipe's durations count the time off the CPU: a "
			  "call's switches may not all be read when its return is)", list);
		return -1;
	}
	*set = (*set & ~c) | s;
	*clear = (*clear & ~s) | c;
	return 0;
}
