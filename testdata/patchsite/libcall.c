// SPDX-License-Identifier: GPL-2.0-only
/*
 * Library calls for tests/patchsite/libcall.sh: calls through the PLT or
 * GOT with integer, pointer, double and varargs arguments, a callback
 * from qsort that calls the library again, and the families that must not
 * be return-hooked.  What it prints depends only on its arguments, so a
 * traced run must print exactly what an untraced one does.
 *   libcall plain      the call sequence the oracles record
 *   libcall longjmp    longjmp out of a qsort callback, back into main
 *   libcall vfork      vfork + execv of /bin/true, then waitpid
 *   libcall dlsym      dlsym(RTLD_NEXT) from the program: what it finds
 *                      must be what RTLD_DEFAULT finds from here
 *   libcall malloc N   N malloc/free pairs (the report counts them)
 *   libcall threads PIDFILE STOPFILE
 *                      4 threads allocate until STOPFILE exists; the pid is
 *                      written to PIDFILE once they run
 */
#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static jmp_buf env;
static void *volatile sink;	/* keeps malloc/free pairs from being folded away */
static int jumped;

static int cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int cmp_jump(const void *a, const void *b)
{
	(void)a, (void)b;
	if (!jumped++)
		longjmp(env, 7);
	return 0;
}

static void plain(void)
{
	const char *words[] = { "pear", "apple", "fig" };
	char *buf = malloc(64);
	volatile double x = 1.5, e = 0.75;
	double r = pow(x, 3.0);

	snprintf(buf, 64, "%s %d %.3f %.1f", "v", 42, r, ldexp(e, 4));
	qsort(words, 3, sizeof(words[0]), cmp);
	printf("%s | %s %s %s | %zu\n", buf, words[0], words[1], words[2], strlen(buf));
	free(buf);
}

static void jump(void)
{
	int v[3] = { 3, 2, 1 };
	int r = setjmp(env);

	if (r == 0)
		qsort(v, 3, sizeof(v[0]), cmp_jump);
	printf("setjmp returned %d\n", r);
	puts("after longjmp");
}

static void spawn(void)
{
	char *argv[] = { "true", NULL };
	int st = -1;
	pid_t pid = vfork();

	if (pid == 0) {
		execv("/bin/true", argv);
		_exit(127);
	}
	waitpid(pid, &st, 0);
	printf("child exit %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
}

static void next(void)
{
	void *n = dlsym(RTLD_NEXT, "dlopen"), *d = dlsym(RTLD_DEFAULT, "dlopen");

	printf("RTLD_NEXT %s RTLD_DEFAULT\n", n == d ? "==" : "!=");
}

static const char *stop_file;

static void *alloc_loop(void *arg)
{
	(void)arg;
	while (access(stop_file, F_OK)) {
		for (int i = 0; i < 1000; i++) {
			void *volatile p = malloc(32);

			free(p);
		}
		usleep(1000);
	}
	return NULL;
}

static void threads(const char *pid_file)
{
	pthread_t t[4];
	FILE *f;

	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, alloc_loop, NULL);
	f = fopen(pid_file, "w");
	if (f) {
		fprintf(f, "%d\n", (int)getpid());
		fclose(f);
	}
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	puts("threads done");
}

int main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "plain";

	if (!strcmp(how, "longjmp"))
		jump();
	else if (!strcmp(how, "vfork"))
		spawn();
	else if (!strcmp(how, "dlsym"))
		next();
	else if (!strcmp(how, "threads") && argc > 3)
		stop_file = argv[3], threads(argv[2]);
	else if (!strcmp(how, "malloc"))
		for (long i = 0, n = argc > 2 ? atol(argv[2]) : 0; i < n; i++) {
			sink = malloc(16 + (size_t)i % 64);
			free(sink);
		}
	else
		plain();
	return 0;
}
