/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Between the files of the reader (data/): what opening and following a
 * directory share.  psread.h is the reader's interface to its users.
 *   read_text.c    damage said, text files read with bounds
 *   read_syms.c    objects, sites, names as of a time
 *   read_thread.c  thread files, chunks, the cursor
 *   read.c         the session and its processes: psr_open, psr_close
 *   read_follow.c  psr_open_live, psr_follow
 */
#ifndef PS_DATA_READER_H
#define PS_DATA_READER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "psread.h"

/* read_noflag.c: p's `noflag` file, read again when followed; freed. */
void read_noflag(struct psr_proc *p);
void read_noflag_free(struct psr_proc *p);

/* read_text.c */
/* Damage in s's directory: counted, and said on s->err when there is one. */
__attribute__((format(printf, 3, 4)))
void read_say(struct psr_session *s, const char *path, const char *fmt, ...);
char *read_join(const char *a, const char *b);
/* A whole file, NUL-terminated (NULL: missing or unreadable; *len its size). */
char *read_slurp(const char *path, size_t *len);
/*
 * A text of b[n] being appended to (read_events.c's print formats,
 * read_uprobe.c's values): never past n, NUL-terminated once anything is
 * put; at, the length so far.
 */
struct read_out {
	char *b;
	size_t n, at;
};
__attribute__((format(printf, 2, 3)))
void read_put(struct read_out *o, const char *fmt, ...);
#define READ_PROC_MAX	(256ul << 20)	/* bytes of a text file read_proc_text reads */
int read_proc_text(const struct psr_proc *p, const char *name, char **text, size_t *len,
		   bool *absent, char *path, size_t path_len);
/* "key value" lines: the value of key (a pointer into text, up to the newline), or NULL. */
const char *read_field(const char *text, const char *key, char *buf, size_t len);
uint64_t read_field_u64(const char *text, const char *key, bool *ok);

/* read_syms.c */
/* The modules log: load/unload lines, each load naming its mod file. */
void read_modules(struct psr_proc *p);
/* Every object read, freed (the list is empty after). */
void read_modules_free(struct psr_proc *p);
const struct psr_site *read_site_at(const struct psr_proc *p, uint32_t id, uint64_t tsc);

/* read_thread.c: a thread file of p (name in its directory), indexed unless followed. */
void read_thread(struct psr_proc *p, const char *name);
void read_count_events(struct psr_proc *p, struct psr_thread *t);

/* read_sched.c: the thread's switch file (sched.T beside thread.T), and the cursor's merge */
void read_sched(struct psr_proc *p, struct psr_thread *t);
void read_sched_free(struct psr_thread *t);
struct psd_sched_hdr;
/* sched.X for thread.X (an allocated path), or NULL; the file read whole and checked. */
char *read_sched_path(const char *thread_file);
void read_sched_file(struct psr_proc *p, struct psr_thread *t, const char *path);
bool read_sched_header_ok(const struct psr_thread *t, const struct psd_sched_hdr *h);
void read_sched_bad_header(struct psr_proc *p, struct psr_thread *t, const char *path);
void read_sched_unknown(struct psr_thread *t, const char *why);
int read_sched_spans(struct psr_thread *t);	/* t->off, t->off_sum from t->sw: 0 or -ENOMEM */
/* read_sched_follow.c: a followed thread's growing switch file */
void read_sched_follow(struct psr_proc *p, struct psr_thread *t);
int read_sched_next(struct psr_cursor *c, struct psr_event *ev,
		    int (*next)(struct psr_cursor *c, struct psr_event *ev));

/* read.c */
/* end: the clean trailer; with it, the rate over the whole run. */
void read_end(struct psr_proc *p);
/* The options file: "NAME 0|1" lines; missing: the defaults (a record made before it). */
void read_options(struct psr_proc *p);
void read_proc(struct psr_session *s, const char *name);
/*
 * Process directories: from the session list, in its order (start order).  follow: opened by
 * psr_open_live, so parts being written are left for psr_follow.
 */
int read_open_session(const char *dir, FILE *err, bool follow, struct psr_session **out);

#endif
