/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Dynamic probes: the kernel's fprobe events (Documentation/trace/
 * fprobetrace.rst) on a user program's functions, written to the
 * dynamic_events control file (or PATCHSITE_PROBES, `record --probe`):
 *
 *	f[:[GRP/][EVENT]] FUNC [FETCHARG...]
 *	f[:[GRP/][EVENT]] FUNC%return [FETCHARG...]
 *	-:[GRP/]EVENT
 *
 * FETCHARG is [NAME=]WHAT[:TYPE], WHAT one of $argN (N >= 1), $retval,
 * $stackN, $stack, $comm, %REG, @ADDR, @SYM[+|-OFF], \IMM, +|-[u]OFF(WHAT),
 * or a name (len, host->name, $arg:len) that only DWARF resolves.  TYPE one
 * of u8..u64, s8..s64, x8..x64, char, string, ustring, float, double
 * (default x64).  As in the kernel, +OFF(WHAT):string is the string AT
 * WHAT+OFF (a struct's char * member is +0(+OFF(WHAT)):string), @ADDR:string
 * the one at ADDR; a string of a plain register or stack value is refused
 * (the kernel's BAD_STRING), but for a DWARF name or $retval whose type is
 * char *, which the command reads through (the kernel does so from BTF).
 * Ours beyond the kernel's: a trailing "if EXPR" sets the event's filter
 * (events/GRP/EVENT/filter's syntax, on the arguments' names) as it is
 * defined: the condition travels with the definition (record --probe).
 *
 *   probe_parse.c  text -> struct ps_probe_def; no runtime state, so that
 *                  the fuzz harness links it alone (tests/fuzz/fuzz_probe.c)
 *   probe_fetch.c  a definition -> a fetch program, and its evaluation at
 *                  the probed site (registers through arch/regs.h, memory
 *                  through a fault-safe copy)
 *   probe.c        probes as events (events/GRP/EVENT/...), the
 *                  dynamic_events file's text
 *   probe_hit.c    their ops: the hit table, what a hit runs
 */
#ifndef PS_PROBE_H
#define PS_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PS_PROBE_MAX_ARGS	8	/* an event's fields (the kernel takes 128) */
#define PS_PROBE_MAX_DEREF	4	/* +OFF( ... ) nesting */
#define PS_PROBE_NAME_MAX	64
#define PS_PROBE_ARG_NAME_MAX	32	/* NAME= (the kernel's MAX_ARG_NAME_LEN) */
#define PS_PROBE_RET_ENTRY	5	/* a %return probe's entry values (a shadow frame's room) */

enum ps_fetch_base {
	PF_ARG,			/* $argN: n is N - 1 */
	PF_RETVAL,		/* $retval */
	PF_STACK,		/* $stackN: the Nth word at the entry's stack pointer */
	PF_STACKADDR,		/* $stack */
	PF_REG,			/* %REG: sym is the name */
	PF_ADDR,		/* @ADDR: n */
	PF_SYM,			/* @SYM[+-OFF]: sym, off */
	PF_IMM,			/* \IMM: n */
	PF_NAME,		/* a name for DWARF: sym (len, host->name) */
	PF_COMM,		/* $comm: the thread's name */
};

enum ps_fetch_type {
	PT_U, PT_S, PT_X,	/* size 1, 2, 4, 8 */
	PT_CHAR,		/* size 1 */
	PT_STRING,		/* the string at the address the fetch ends at */
	PT_FLOAT, PT_DOUBLE,
};

struct ps_probe_arg {
	char name[PS_PROBE_NAME_MAX];
	char sym[128];
	uint8_t base;		/* enum ps_fetch_base */
	uint8_t type;		/* enum ps_fetch_type */
	uint8_t size;		/* bytes of the value */
	uint8_t nderef;
	uint8_t bw, bo;		/* a bitfield's width and offset in bits (bw 0: none), of
				   the container the type's size gives (u8..u64) */
	uint64_t n;
	int64_t off;		/* PF_SYM */
	int64_t deref[PS_PROBE_MAX_DEREF];	/* innermost first: read at value + deref[i] */
};

struct ps_probe_def {
	bool remove;		/* -:GRP/EVENT */
	bool ret;		/* FUNC%return */
	char group[PS_PROBE_NAME_MAX], event[PS_PROBE_NAME_MAX];
	char func[256];
	unsigned nargs;
	struct ps_probe_arg a[PS_PROBE_MAX_ARGS];
	char filter[512];	/* "if EXPR": EXPR, or "" */
};

/* One definition (a line, without its newline): 0, or -EINVAL with the reason in err. */
int ps_probe_parse(const char *line, struct ps_probe_def *d, char *err, size_t errlen);
/* The definition as dynamic_events lists it (the kernel's form). */
void ps_probe_text(const struct ps_probe_def *d, char *out, size_t len);
/*
 * In a %return probe: read at the entry and kept until the return ($argN,
 * $stackN, $stack, %REG and DWARF names, as the kernel's fprobe keeps $argN);
 * what is read through them is read at the return, but for a stack slot's
 * first read (an argument passed on the stack: its caller may reuse it).
 */
bool ps_probe_arg_at_entry(const struct ps_probe_arg *a);
/*
 * A type's name (u32, string, ...; a bitfield's container's) and the print
 * format of one value of it; the type as a definition writes it (a
 * bitfield's b<width>@<offset>/<size>, into buf).
 */
const char *ps_probe_type_name(const struct ps_probe_arg *a, char *buf, size_t len);
const char *ps_probe_type_text(const struct ps_probe_arg *a, char *buf, size_t len);
const char *ps_probe_type_fmt(const struct ps_probe_arg *a);

/*
 * probe.c (the runtime started, ps.lock not held): the lines of text
 * ('\n' or ';' between them) added, after every probe is removed unless
 * append; enable: each new probe is recorded at once (PATCHSITE_PROBES).
 * 0 or -errno, said.  The list: one definition a line, the kernel's form.
 */
struct ps_buf;
int ps_probes_write(const char *text, bool append, bool enable);
void ps_probes_list(struct ps_buf *out);
/*
 * Conditional filters (filter_if.c): each definition a probe whose hits
 * hand the call to the tracer running when its condition holds (no event
 * recorded); reset: the ones before removed.  0 or -errno, said.  The list:
 * "FUNC name:type... if COND" a line.
 */
int ps_probes_trace_if(const struct ps_probe_def *defs, unsigned n, bool reset);
void ps_probes_trace_if_list(struct ps_buf *out);
/*
 * set_ftrace_filter's lines (PATCHSITE_FILTER, patchsite_set_filter with
 * no ops, filter_if.c): does one hold a condition ("FUNC [FETCHARG...] if
 * COND"), or do conditions set before go (reset)?  Then parse: the plain
 * lines' globs (with "FUNC !FUNC" per condition: the tracer never takes
 * FUNC by itself) and the conditions as probe definitions (0 or -errno,
 * said); keep_empty: whether the tracers' filter, left empty, must select
 * nothing; done: the text set, whether conditions are in force.
 */
#define PS_FILTER_IF_MAX	16
struct ps_filter_if {
	char *plain;
	unsigned n;
	struct ps_probe_def defs[PS_FILTER_IF_MAX];
};
bool ps_filter_if_wants(const char *text, int reset);
int ps_filter_if_parse(const char *text, struct ps_filter_if **fi);
bool ps_filter_if_keep_empty(const struct ps_filter_if *fi, int reset);
bool ps_filter_if_done(const struct ps_filter_if *fi, int reset);
void ps_filter_if_free(struct ps_filter_if *fi);

#endif
