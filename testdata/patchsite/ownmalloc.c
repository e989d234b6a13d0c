// SPDX-License-Identifier: GPL-2.0-only
/*
 * A program that defines malloc, calloc, realloc and free (tests/patchsite/uft.sh),
 * as uftrace's malloc tests do: the C library's own calls reach them too, so the
 * tracer's work (start-up, a fork's child, the end) calls them as well, and none of
 * those calls is the program's.  Its own: main() { malloc(); free(); }, and with an
 * argument a forked child's malloc() and free() before it returns from main.
 */
#include <stddef.h>
#include <sys/wait.h>
#include <unistd.h>

void *__libc_malloc(size_t n);
void *__libc_calloc(size_t n, size_t size);
void *__libc_realloc(void *p, size_t n);
void __libc_free(void *p);

void *malloc(size_t n)
{
	return __libc_malloc(n);
}

void *calloc(size_t n, size_t size)
{
	return __libc_calloc(n, size);
}

void *realloc(void *p, size_t n)
{
	return __libc_realloc(p, n);
}

void free(void *p)
{
	__libc_free(p);
}

int main(int argc, char **argv)
{
	pid_t child;

	(void)argv;
	free(malloc(16));
	if (argc < 2)
		return 0;
	child = fork();
	if (child == 0) {
		free(malloc(8));
		return 0;
	}
	return child > 0 && waitpid(child, NULL, 0) == child ? 0 : 1;
}
