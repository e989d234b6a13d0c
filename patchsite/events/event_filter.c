// SPDX-License-Identifier: GPL-2.0-only
/*
 * Event filters (events/SUBSYS/NAME/filter), ftrace's syntax:
 *
 *   expr    := and ('||' and)*
 *   and     := unary ('&&' unary)*
 *   unary   := '!' unary | '(' expr ')' | FIELD OP VALUE
 *   OP      := == != < <= > >= &      (numbers; & is "any bit in common")
 *              == != ~                 (strings; ~ is an fnmatch(3) glob)
 *   VALUE   := number (C syntax: 12, -3, 0x1f, 1.5) | "text" | 'text' | word
 *
 * A filter is checked against the event's fields when it is set (an
 * unknown field, an operator its type has not, a value of the wrong kind
 * is refused, saying which); it is then a flat array of nodes evaluated
 * without recursion or allocation on the emitting thread.  Nesting is
 * limited to 32 levels and the text to 4096 bytes.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "event.h"

#define MAX_TEXT	4096
#define MAX_DEPTH	32
#define MAX_NODES	512

enum op { OP_EQ, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE, OP_BAND, OP_GLOB };
enum node_type { N_CMP, N_AND, N_OR, N_NOT };

struct node {
	uint8_t type, op, kind;		/* kind: the field's */
	uint16_t field;
	int16_t a, b;			/* children (N_AND, N_OR: both; N_NOT: a) */
	uint64_t u;			/* the value: integer */
	double d;			/* float fields */
	char *s;			/* string fields */
};

struct ps_evfilter {
	unsigned n;
	int16_t root;
	struct node nodes[];
};

struct parser {
	const char *p;
	const struct ps_evfield *f;
	unsigned nf;
	struct ps_evfilter *out;
	char *err;
	size_t errlen;
	int depth;
	bool failed;
};

__attribute__((format(printf, 2, 3)))
static int fail(struct parser *ps, const char *fmt, ...)
{
	va_list ap;

	if (!ps->failed) {
		va_start(ap, fmt);
		vsnprintf(ps->err, ps->errlen, fmt, ap);
		va_end(ap);
	}
	ps->failed = true;
	return -1;
}

static void skip(struct parser *ps)
{
	while (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n')
		ps->p++;
}

static bool eat(struct parser *ps, const char *tok)
{
	size_t n = strlen(tok);

	skip(ps);
	if (strncmp(ps->p, tok, n))
		return false;
	ps->p += n;
	return true;
}

static int node_new(struct parser *ps, uint8_t type)
{
	struct ps_evfilter *o = ps->out;

	if (o->n == MAX_NODES)
		return fail(ps, "filter too long (more than %d terms)", MAX_NODES);
	memset(&o->nodes[o->n], 0, sizeof(o->nodes[0]));
	o->nodes[o->n].type = type;
	return (int)o->n++;
}

static bool is_word(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '.' || c == '-' || c == '*' || c == '?' || c == '[' || c == ']' ||
	       c == '/' || c == ':' || c == '+';
}

static int parse_expr(struct parser *ps);

static int parse_op(struct parser *ps)
{
	static const struct { const char *t; enum op op; } ops[] = {
		{ "==", OP_EQ }, { "!=", OP_NE }, { "<=", OP_LE }, { ">=", OP_GE },
		{ "<", OP_LT }, { ">", OP_GT }, { "&", OP_BAND }, { "~", OP_GLOB },
	};

	for (unsigned i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (eat(ps, ops[i].t))
			return ops[i].op;
	return fail(ps, "expected an operator (== != < <= > >= & ~) at '%.16s'", ps->p);
}

/* A quoted or bare string value, copied. */
static char *parse_string(struct parser *ps)
{
	const char *start;
	char q = 0, *s;
	size_t n;

	skip(ps);
	if (*ps->p == '"' || *ps->p == '\'')
		q = *ps->p++;
	start = ps->p;
	while (*ps->p && (q ? *ps->p != q : is_word(*ps->p)))
		ps->p++;
	if (q && *ps->p != q) {
		fail(ps, "unterminated string");
		return NULL;
	}
	n = (size_t)(ps->p - start);
	if (q)
		ps->p++;
	else if (!n) {
		fail(ps, "expected a value at '%.16s'", ps->p);
		return NULL;
	}
	s = malloc(n + 1);
	if (!s) {
		fail(ps, "out of memory");
		return NULL;
	}
	memcpy(s, start, n);
	s[n] = 0;
	return s;
}

static int parse_number(struct parser *ps, struct node *nd, const struct ps_evfield *f)
{
	char *end;

	skip(ps);
	errno = 0;
	if (f->kind == PATCHSITE_FIELD_FLOAT) {
		nd->d = strtod(ps->p, &end);
	} else if (*ps->p == '-') {
		if (f->kind != PATCHSITE_FIELD_SIGNED)
			return fail(ps, "field %s is unsigned: no negative values", f->name);
		nd->u = (uint64_t)strtoll(ps->p, &end, 0);
	} else {
		nd->u = strtoull(ps->p, &end, 0);
	}
	if (end == ps->p || errno || is_word(*end))
		return fail(ps, "field %s: expected a number at '%.16s'", f->name, ps->p);
	ps->p = end;
	return 0;
}

static int parse_cmp(struct parser *ps)
{
	const char *start;
	const struct ps_evfield *f = NULL;
	struct node *nd;
	size_t len;
	int k, op;

	skip(ps);
	start = ps->p;
	while ((*ps->p >= 'a' && *ps->p <= 'z') || (*ps->p >= 'A' && *ps->p <= 'Z') ||
	       (*ps->p >= '0' && *ps->p <= '9') || *ps->p == '_')
		ps->p++;
	len = (size_t)(ps->p - start);
	if (!len)
		return fail(ps, "expected a field name at '%.16s'", start);
	for (unsigned i = 0; i < ps->nf && !f; i++)
		if (strlen(ps->f[i].name) == len && !strncmp(ps->f[i].name, start, len))
			f = &ps->f[i];
	if (!f)
		return fail(ps, "no field named '%.*s'", (int)(len > 64 ? 64 : len), start);
	if (f->kind == PATCHSITE_FIELD_BYTES)
		return fail(ps, "field %s is a byte array: it cannot be filtered", f->name);
	op = parse_op(ps);
	if (op < 0)
		return -1;
	k = node_new(ps, N_CMP);
	if (k < 0)
		return -1;
	nd = &ps->out->nodes[k];
	nd->op = (uint8_t)op;
	nd->field = (uint16_t)(f - ps->f);
	nd->kind = f->kind;
	if (f->kind == PATCHSITE_FIELD_STRING) {
		if (op != OP_EQ && op != OP_NE && op != OP_GLOB)
			return fail(ps, "field %s is a string: only == != ~", f->name);
		nd->s = parse_string(ps);
		return nd->s ? k : -1;
	}
	if (op == OP_GLOB)
		return fail(ps, "field %s is a number: ~ is for strings", f->name);
	if (op == OP_BAND && f->kind == PATCHSITE_FIELD_FLOAT)
		return fail(ps, "field %s is a float: no &", f->name);
	return parse_number(ps, nd, f) ? -1 : k;
}

static int parse_unary(struct parser *ps)
{
	int k, a;

	if (++ps->depth > MAX_DEPTH)
		return fail(ps, "filter nested more than %d deep", MAX_DEPTH);
	skip(ps);
	if (ps->p[0] == '!' && ps->p[1] != '=') {
		ps->p++;
		a = parse_unary(ps);
		k = a < 0 ? -1 : node_new(ps, N_NOT);
		if (k >= 0)
			ps->out->nodes[k].a = (int16_t)a;
	} else if (eat(ps, "(")) {
		k = parse_expr(ps);
		if (k >= 0 && !eat(ps, ")"))
			k = fail(ps, "expected ')' at '%.16s'", ps->p);
	} else {
		k = parse_cmp(ps);
	}
	ps->depth--;
	return k;
}

static int parse_chain(struct parser *ps, bool is_or)
{
	int a = is_or ? parse_chain(ps, false) : parse_unary(ps);

	while (a >= 0 && eat(ps, is_or ? "||" : "&&")) {
		int b = is_or ? parse_chain(ps, false) : parse_unary(ps);
		int k = b < 0 ? -1 : node_new(ps, is_or ? N_OR : N_AND);

		if (k < 0)
			return -1;
		ps->out->nodes[k].a = (int16_t)a;
		ps->out->nodes[k].b = (int16_t)b;
		a = k;
	}
	return a;
}

static int parse_expr(struct parser *ps)
{
	int k;

	if (++ps->depth > MAX_DEPTH)
		return fail(ps, "filter nested more than %d deep", MAX_DEPTH);
	k = parse_chain(ps, true);
	ps->depth--;
	return k;
}

void ps_evfilter_free(struct ps_evfilter *flt)
{
	if (!flt)
		return;
	for (unsigned i = 0; i < flt->n; i++)
		free(flt->nodes[i].s);
	free(flt);
}

int ps_evfilter_parse(const char *text, const struct ps_evfield *f, unsigned n,
		      struct ps_evfilter **out, char *err, size_t errlen)
{
	struct parser ps = { .p = text, .f = f, .nf = n, .err = err, .errlen = errlen };
	int root;

	*out = NULL;
	if (strlen(text) > MAX_TEXT) {
		snprintf(err, errlen, "filter longer than %d bytes", MAX_TEXT);
		return -EINVAL;
	}
	ps.out = calloc(1, sizeof(*ps.out) + MAX_NODES * sizeof(ps.out->nodes[0]));
	if (!ps.out) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	root = parse_expr(&ps);
	skip(&ps);
	if (root >= 0 && *ps.p)
		root = fail(&ps, "unexpected '%.16s'", ps.p);
	if (root < 0) {
		ps_evfilter_free(ps.out);
		return -EINVAL;
	}
	ps.out->root = (int16_t)root;
	*out = ps.out;
	return 0;
}

static bool cmp_num(const struct node *nd, const struct ps_evval *v)
{
	if (nd->kind == PATCHSITE_FIELD_FLOAT) {
		double x = v->d, y = nd->d;

		switch (nd->op) {
		case OP_EQ: return x == y;
		case OP_NE: return x != y;
		case OP_LT: return x < y;
		case OP_LE: return x <= y;
		case OP_GT: return x > y;
		default: return x >= y;
		}
	}
	if (nd->op == OP_BAND)
		return (v->u & nd->u) != 0;
	if (nd->kind == PATCHSITE_FIELD_SIGNED) {
		int64_t x = (int64_t)v->u, y = (int64_t)nd->u;

		return nd->op == OP_EQ ? x == y : nd->op == OP_NE ? x != y : nd->op == OP_LT ? x < y :
		       nd->op == OP_LE ? x <= y : nd->op == OP_GT ? x > y : x >= y;
	}
	return nd->op == OP_EQ ? v->u == nd->u : nd->op == OP_NE ? v->u != nd->u :
	       nd->op == OP_LT ? v->u < nd->u : nd->op == OP_LE ? v->u <= nd->u :
	       nd->op == OP_GT ? v->u > nd->u : v->u >= nd->u;
}

static bool cmp_str(const struct node *nd, const struct ps_evval *v)
{
	char buf[PATCHSITE_EVENT_STR_MAX + 1];
	size_t n = v->slen < PATCHSITE_EVENT_STR_MAX ? v->slen : PATCHSITE_EVENT_STR_MAX;
	bool eq;

	memcpy(buf, v->s, n);
	buf[n] = 0;
	if (nd->op == OP_GLOB)
		return !fnmatch(nd->s, buf, 0);
	eq = !strcmp(buf, nd->s);
	return nd->op == OP_EQ ? eq : !eq;
}

/*
 * Children always come before their parent in the array (they are parsed
 * first), so one pass in order evaluates every node.
 */
bool ps_evfilter_match(const struct ps_evfilter *flt, const struct ps_evval *v)
{
	bool val[MAX_NODES];

	for (unsigned i = 0; i < flt->n; i++) {
		const struct node *nd = &flt->nodes[i];

		switch (nd->type) {
		case N_CMP:
			val[i] = nd->kind == PATCHSITE_FIELD_STRING ? cmp_str(nd, &v[nd->field]) : cmp_num(nd, &v[nd->field]);
			break;
		case N_AND:
			val[i] = val[nd->a] && val[nd->b];
			break;
		case N_OR:
			val[i] = val[nd->a] || val[nd->b];
			break;
		default:
			val[i] = !val[nd->a];
			break;
		}
	}
	return val[flt->root];
}
