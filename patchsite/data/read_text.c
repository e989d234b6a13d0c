// SPDX-License-Identifier: GPL-2.0-only
/*
 * What every part of the reader shares: damage said once through the
 * session, and bounded reading of the directory's text files.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "reader.h"

/* Damage in s's directory: counted, and said on s->err when there is one. */
__attribute__((format(printf, 3, 4)))
void read_say(struct psr_session *s, const char *path, const char *fmt, ...)
{
	va_list ap;

	s->problems++;
	if (!s->err)
		return;
	fprintf(s->err, "patchsite: %s: ", path);
	va_start(ap, fmt);
	vfprintf(s->err, fmt, ap);
	va_end(ap);
	fputc('\n', s->err);
}

char *read_join(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	char *s = malloc(la + lb + 2);

	if (s) {
		memcpy(s, a, la);
		s[la] = '/';
		memcpy(s + la + 1, b, lb + 1);
	}
	return s;
}

void read_put(struct read_out *o, const char *fmt, ...)
{
	va_list ap;
	int k;

	if (o->at + 1 >= o->n)
		return;
	va_start(ap, fmt);
	k = vsnprintf(o->b + o->at, o->n - o->at, fmt, ap);
	va_end(ap);
	if (k > 0)
		o->at = o->at + (size_t)k < o->n ? o->at + (size_t)k : o->n - 1;
}

/*
 * A whole file, NUL-terminated (NULL: missing or unreadable; *len its size).
 * Not a regular file, or over READ_PROC_MAX (a trace directory's text file
 * replaced by a link to /dev/zero would be read for ever): said in one line,
 * NULL with errno EINVAL (callers that say why a file is missing say
 * nothing more then).
 */
char *read_slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t n = 0, cap = 0;
	struct stat sb;

	if (!f)
		return NULL;
	if (fstat(fileno(f), &sb) || !S_ISREG(sb.st_mode) || (size_t)sb.st_size > READ_PROC_MAX) {
		fprintf(stderr, "patchsite: %s: not a regular file of at most 256 MB: not read\n", path);
		fclose(f);
		errno = EINVAL;
		return NULL;
	}
	for (;;) {
		if (cap - n < 4096) {
			char *g = realloc(buf, cap = cap * 2 + 8192);

			if (!g)
				break;
			buf = g;
		}
		size_t got = fread(buf + n, 1, cap - n - 1, f);

		if (!got)
			break;
		n += got;
	}
	fclose(f);
	if (buf)
		buf[n] = 0;
	if (len)
		*len = n;
	return buf;
}

/*
 * A process directory's text file that a report reads whole (branches,
 * profile): a regular file of at most READ_PROC_MAX bytes.  0 with *text
 * (NUL-terminated, *len bytes) or with *absent when there is none; else
 * -errno, said on stderr with the file's path.
 */
int read_proc_text(const struct psr_proc *p, const char *name, char **text, size_t *len,
		   bool *absent, char *path, size_t path_len)
{
	struct stat sb;
	FILE *f;
	int err;

	*absent = false;
	*text = NULL;
	*len = 0;
	snprintf(path, path_len, "%s/%s", p->dir, name);
	f = fopen(path, "r");
	if (!f) {
		err = -errno;
		*absent = err == -ENOENT;
		if (!*absent)
			fprintf(stderr, "patchsite: %s: %s\n", path, strerror(-err));
		return *absent ? 0 : err;
	}
	if (fstat(fileno(f), &sb) || !S_ISREG(sb.st_mode) || (size_t)sb.st_size > READ_PROC_MAX) {
		fprintf(stderr, "patchsite: %s: not a regular file of at most 256 MB\n", path);
		fclose(f);
		return -EINVAL;
	}
	*text = malloc((size_t)sb.st_size + 1);
	if (*text) {
		*len = fread(*text, 1, (size_t)sb.st_size, f);
		(*text)[*len] = '\0';
	}
	fclose(f);
	return *text ? 0 : -ENOMEM;
}

/* "key value" lines: the value of key (a pointer into text, up to the newline), or NULL. */
const char *read_field(const char *text, const char *key, char *buf, size_t len)
{
	size_t kl = strlen(key);

	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		if (!strncmp(l, key, kl) && l[kl] == ' ') {
			const char *v = l + kl + 1, *e = strchr(v, '\n');
			size_t n = e ? (size_t)(e - v) : strlen(v);

			if (n >= len)
				n = len - 1;
			memcpy(buf, v, n);
			buf[n] = 0;
			return buf;
		}
	}
	return NULL;
}

uint64_t read_field_u64(const char *text, const char *key, bool *ok)
{
	char buf[64], *end;
	unsigned long long v;

	if (!read_field(text, key, buf, sizeof(buf)))
		return *ok = false, 0;
	errno = 0;
	v = strtoull(buf, &end, 0);
	if (*end || errno || end == buf)
		*ok = false;
	return v;
}
