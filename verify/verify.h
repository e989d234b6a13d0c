/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * patchverify's internal interface.  One struct audit holds what is known
 * about one file: its patch-site tables, the sites they name, the calls to
 * a profiling hook found in its code, and its functions.  The steps fill it
 * in order:
 *
 *   table_find()      the tables (__mcount_loc, __patchable_function_entries)
 *   symindex          functions, per section, for func+0xoff and coverage
 *                     (lib/symindex.c, built in audit_file())
 *   calls_find()      every call to a hook (relocations, or decoded targets)
 *   table_resolve()   each entry -> section + offset, with table-level checks
 *   checks_run()      per-site checks, duplicates, order, completeness
 *                     (sleds.c: patchable entries; deadcopy.c: sites no
 *                     function covers)
 *   report_*()        findings as text or JSON, --list, --summary
 */
#ifndef PV_VERIFY_H
#define PV_VERIFY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "arch.h"
#include "diag.h"
#include "elfobj.h"
#include "elfquery.h"
#include "symindex.h"

enum check {
	CHK_SITE_NOT_EXEC,
	CHK_SITE_NOT_CALL,
	CHK_MISALIGNED,
	CHK_NOT_AT_ENTRY,
	CHK_MISSING_SITE,
	CHK_UNTRACED_CALL,
	CHK_DUPLICATE,
	CHK_UNSORTED,
	CHK_ZERO_ENTRY,
	CHK_ORPHAN_SITE,
	CHK_STALE_WEAK,
	CHK_BAD_RELOC,
	CHK_PATCHABLE_SLED,
	CHK_NO_TABLE,
	CHK_EVENT_SITE,
	CHK_EVENT_DESC,
	CHK_TABLE_ALIGN,
	CHK_COUNT
};

#define LEVEL_OFF (-1)	/* a check's level: LEVEL_OFF or an enum diag_level */

struct options {
	int level[CHK_COUNT];
	bool json, list, summary;
	int sled_total, sled_before;	/* --sled=N[,M]; -1 when not given */
	unsigned jobs;			/* --jobs: files audited at once */
	const struct sysmap *sysmap;	/* --system-map, or NULL */
};

/* What a run adds up: per file, then over the whole run in input order. */
struct totals {
	unsigned files;		/* audited */
	unsigned failed;	/* could not be read or audited */
	unsigned skipped;	/* found in a directory or archive, not ELF by magic */
	size_t tables, sites, hook_calls;
	unsigned level[3];	/* findings per enum diag_level */
	unsigned check[CHK_COUNT][3];
};

/*
 * One input's output, kept whole until its turn comes (so that --jobs
 * prints exactly what a sequential run prints): what goes to stdout and
 * what goes to stderr, as memory streams.
 */
struct output {
	FILE *out, *err;
	char *outbuf, *errbuf;
	size_t outlen, errlen;
	unsigned docs;		/* JSON documents written to out */
	char last_error[512];	/* for a JSON document of a file not audited */
	struct totals t;
};

/* names.c */
const char *check_name(enum check c);
int check_by_name(const char *name);	/* enum check, or -1 */
/* checks.c */
void checks_default_levels(int level[CHK_COUNT]);

enum table_kind { TABLE_MCOUNT, TABLE_PATCHABLE };

struct table {
	size_t sec;		/* the table's section, 0 for a __start/__stop range */
	const char *name;
	enum table_kind kind;
	bool pcrel;		/* PCREL_TABLE: each entry is the site less its own address */
	/*
	 * A __patchable_function_entries beside an __mcount_loc: ftrace reads
	 * the latter; the former is call padding (x86 -fpatchable-function-
	 * entry=16,16 with -mrecord-mcount, as 6.12 kernels build): NOPs that
	 * must end at a function's entry, and no site of ftrace's.
	 */
	bool padding;
	unsigned entsize;	/* bytes per entry: the file's word, or 4 (pcrel) */
	uint64_t addr, size;	/* linked: its address; object: 0 */
	const uint8_t *bytes;
	size_t nentries;
};

enum site_state { SITE_CALL, SITE_NOP, SITE_OTHER, SITE_UNCHECKED };

struct site {
	size_t table, entry;
	uint64_t value;		/* resolved address (linked) or section offset */
	size_t sec;		/* section holding it, 0 when none */
	uint64_t off;
	bool thumb;
	bool lsb;		/* ARM: bit 0 was set (ftrace clears it: a Thumb site) */
	bool settled;		/* a finding already explains this entry */
	enum site_state state;
	unsigned len;		/* of the call or NOP found there */
	const char *hook;	/* the hook the call goes to */
};

/* A call to a profiling hook found in the code. */
struct hookcall {
	size_t sec;
	uint64_t off;
	unsigned len;
	bool thumb;
	const char *hook;
	bool claimed;		/* some table entry names it */
};

/* A relocation against a hook that does not make a call (object files). */
struct badref {
	size_t sec;
	uint64_t off;		/* where call_site() put the site */
	const char *hook, *why;
};

/* Where a call to a hook may go in a linked file. */
struct target {
	uint64_t addr;		/* ARM: bit 0 cleared, as a decoded branch target has it */
	const char *hook;
	bool thumb;		/* ARM: the target is Thumb code */
};

struct finding {
	enum check check;
	enum diag_level level;
	char where[160];	/* "func+0xoff (section+0xoff)" */
	bool have_addr;
	uint64_t addr;
	char *msg;
};

struct audit {
	const struct options *opt;
	struct output *out;
	const char *path;
	struct elfobj *o;
	struct elfquery *q;
	const struct arch *a;
	const struct eo_hdr *h;
	bool linked;

	struct table *tables;
	size_t ntables;
	struct site *sites;
	size_t nsites;
	struct symindex *si;		/* functions by section, offset */
	struct hookcall *calls;		/* sorted by section, offset */
	size_t ncalls;
	struct badref *badrefs;
	size_t nbadrefs;
	/* Relocatable: where the arch's align_reloc pads end, { sec, off } sorted (sleds.c). */
	struct pad_end *pads;
	size_t npads;
	bool pads_read;
	const char *mode_hook;		/* "__fentry__" or the mcount-style hook seen */
	struct target *direct, *slots;	/* linked: hook addresses and GOT words */
	size_t ndirect, nslots;
	uint64_t got;			/* linked: the GOT's address, 0 if none */
	/* --system-map, for a linked file whose own symbols lack the table's bounds */
	const struct sysmap *sysmap;

	struct finding *findings;
	size_t nfindings;
	unsigned count[3];		/* findings per enum diag_level */
};

/* table.c */
int table_find(struct audit *au);
int table_resolve(struct audit *au);

/* calls.c */
int calls_find(struct audit *au);
struct hookcall *calls_at(struct audit *au, size_t sec, uint64_t off);
struct hookcall *calls_containing(struct audit *au, size_t sec, uint64_t off);
const struct badref *calls_badref_at(const struct audit *au, size_t sec, uint64_t off);
struct insn_view calls_view(const struct audit *au, size_t sec, uint64_t off, bool thumb);

/* checks.c */
int checks_run(struct audit *au);

/* cyg.c: -finstrument-functions code (imports __cyg_profile_func_enter): traced with no table. */
bool cyg_imports(const struct audit *au);

/* events.c: the static trace events' table and descriptors (event-site, event-desc). */
int events_check(struct audit *au);

/* sleds.c */
/* The sled length the table's entries have (--sled, or the most common). */
unsigned sleds_expected(const struct audit *au);
/* A patchable entry: its sled of want NOPs and its place before/at a function. */
void sleds_check(struct audit *au, struct site *st, unsigned want);
/* Every function whose entry holds the sled is named by an entry (missing-site). */
int sleds_complete(struct audit *au);

/* deadcopy.c */
/* How an entry sits at its function's start: its sled, fentry call or mcount call. */
enum entry_form { FORM_SLED, FORM_FENTRY, FORM_MCOUNT };
/* A site no function symbol covers: stale-weak (a dead weak copy) or orphan-site. */
void deadcopy_check(struct audit *au, const struct site *st, enum entry_form form);

/* disasm.c */
/* One instruction as text ("call 0x1234"); returns its length, 0 if undecodable. */
unsigned disasm_one(const struct arch *a, bool big_endian, bool thumb, const uint8_t *p,
		    uint64_t avail, uint64_t addr, char *buf, size_t len);
/* Does decoding from `from` reach `at` on an instruction boundary? */
bool disasm_is_insn_start(const struct arch *a, bool big_endian, bool thumb,
			  const uint8_t *code, uint64_t size, uint64_t base_addr,
			  uint64_t from, uint64_t at);
/* Which disassembler serves this arch, for --version. */
const char *disasm_engine(const struct arch *a);
void disasm_cleanup(void);

/* report.c */
__attribute__((format(printf, 5, 6)))
void report(struct audit *au, enum check c, size_t sec, uint64_t off, const char *fmt, ...);
__attribute__((format(printf, 4, 5)))
void report_table(struct audit *au, enum check c, const char *where, const char *fmt, ...);
/* The same, always at note level (a fact worth knowing, not a defect). */
__attribute__((format(printf, 4, 5)))
void report_table_note(struct audit *au, enum check c, const char *where, const char *fmt, ...);
/* "e8 00 00 00 00 (call 0x5)" for len bytes at p. */
void report_bytes(const struct audit *au, bool thumb, const uint8_t *p, uint64_t avail,
		  unsigned len, uint64_t addr, char *buf, size_t size);
/* The same for the bytes `skip` past iv's instruction, which may lie where
 * the file holds none (NOBITS, or a section cut short). */
void report_view_bytes(const struct audit *au, const struct insn_view *iv, uint64_t skip,
		       unsigned len, char *buf, size_t size);
void report_file(struct audit *au);
void report_file_error(const struct options *opt, struct output *out, const char *path);
void report_begin(const struct options *opt);
void report_end(const struct options *opt, const struct totals *t);
void report_free(struct audit *au);
void totals_add(struct totals *sum, const struct totals *t);

/* names.c: a place in the file */
/* The address of sec+off: linked, sh_addr + off; in an object, off. */
uint64_t audit_addr(const struct audit *au, size_t sec, uint64_t off);
/* "func+0xoff (section+0xoff)", naming the function that holds the place. */
void audit_where(const struct audit *au, size_t sec, uint64_t off, char *buf, size_t len);

/* audit.c */
/*
 * Audit an opened object, called name in messages; its report goes to out.
 * 0, 1 (error-level findings) or a negative errno (could not be audited).
 * The object is closed.
 */
int audit_object(const struct options *opt, struct output *out, const char *name,
		 struct elfobj *o);

/* sysmap.c: --system-map, the symbols a stripped image lacks. */
struct sysmap;
int sysmap_read(const char *path, struct sysmap **out);
bool sysmap_addr(const struct sysmap *m, const char *name, uint64_t *addr);
size_t sysmap_count(const struct sysmap *m);
const char *sysmap_sym(const struct sysmap *m, size_t i, uint64_t *addr);
void sysmap_free(struct sysmap *m);

/* unpack.c: what a file's first bytes say it is, and decompression. */
enum blob_kind { BLOB_ELF, BLOB_AR, BLOB_XZ, BLOB_ZSTD, BLOB_GZIP, BLOB_OTHER };
enum blob_kind unpack_kind(const uint8_t *p, size_t n);
/* Decompress in into a new buffer (*out, freed by the caller); -errno with one message. */
int unpack(const char *name, enum blob_kind k, const uint8_t *in, size_t n, uint8_t **out,
	   size_t *outn);

/* input.c: the command line's inputs, expanded, and how each is read. */
struct input {
	char *path;		/* as given or found; "-" for standard input */
	bool in_dir;		/* found in a directory: skip it if not ELF by magic */
};
struct inputs {
	struct input *v;
	size_t n;
	unsigned empty_dirs;
	uint8_t *stdin_data;	/* standard input, read once */
	size_t stdin_len;
	bool stdin_read;
};
/* Add one argument: FILE, DIR (recursively), @LIST, or - ; -errno after one message. */
int inputs_add(struct inputs *in, const char *arg);
int inputs_add_list(struct inputs *in, const char *listfile);
void inputs_free(struct inputs *in);
/* Audit input k (every member of an archive), reporting to out. */
void input_audit(const struct options *opt, struct inputs *in, size_t k, struct output *out);

/* run.c: every input, --jobs at a time, printed in input order. */
int run_all(const struct options *opt, struct inputs *in, struct totals *t);
/* The output of the input this thread audits (the diagnostic sink writes there). */
struct output *run_current_output(void);

#endif
