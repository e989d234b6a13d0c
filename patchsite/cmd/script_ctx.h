/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * How `patchsite script` writes a callback's ctx (script.c says what is in
 * it, once): as a JSON object (script.c, --json) or as a Python dict
 * (script_py.c), through the same calls.  Keys are NULL inside a list.
 */
#ifndef PS_CMD_SCRIPT_CTX_H
#define PS_CMD_SCRIPT_CTX_H

#include <stdbool.h>

struct ctx_out;
struct ctx_ops {
	/* An object (the ctx itself: key NULL at the top) or a list, then its closing. */
	void (*open)(struct ctx_out *o, const char *key, bool list);
	void (*close)(struct ctx_out *o, bool list);
	void (*i64)(struct ctx_out *o, const char *key, long long v);
	void (*u64)(struct ctx_out *o, const char *key, unsigned long long v);
	void (*f64)(struct ctx_out *o, const char *key, double v);
	/* a NUL-terminated string: each byte one character (JSON's \u00XX, Latin-1) */
	void (*str)(struct ctx_out *o, const char *key, const char *s);
	void (*atom)(struct ctx_out *o, const char *key, int v);	/* 1 true, 0 false, -1 null */
};

#define CTX_MAX_DEPTH 4
struct ctx_out {
	const struct ctx_ops *ops;
	unsigned depth;
	bool more[CTX_MAX_DEPTH];	/* JSON: a member was written at this depth */
	void *sink;		/* JSON: the FILE */
};

#endif
