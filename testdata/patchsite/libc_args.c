// SPDX-License-Identifier: GPL-2.0-only
/*
 * The sample of tests/patchsite/libc_args.sh (record -a on library
 * calls): calls into libc with arguments of every kind the prototype list
 * reads (sizes, ints, negative ints, flags, strings, pointers into static
 * buffers and into the heap, a FILE *), each once or a few times.  Each
 * value a call returns is printed as "ret NAME VALUE" (the oracle for the
 * trace's return values); the rtld-audit library of the test sees the
 * argument registers.  Built with -fno-builtin so that every call stays a
 * call.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static char src[64] = "hello, world";
static char dst[64];
static int nums[5] = { 5, -3, 9, 0, 2 };
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static int cmp(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

static void memory(int argc)
{
	char *p = malloc(100 + (size_t)argc), *q;
	void *z = calloc(3, 7);

	printf("ret malloc %p\n", (void *)p);
	printf("ret calloc %p\n", z);
	q = realloc(p, 4000);
	printf("ret realloc %p\n", (void *)q);
	free(q);
	free(z);
}

static void strings(void)
{
	printf("ret memcpy %p\n", memcpy(dst, src, 13));
	printf("ret memset %p\n", memset(dst + 20, 'A', 9));
	printf("ret memcmp %d\n", memcmp(dst, "hello, there", 13));
	printf("ret strlen %zu\n", strlen(src));
	printf("ret strcmp %d\n", strcmp("abc", "abd"));
	printf("ret strchr %p\n", (void *)strchr(src, 'w'));
	printf("ret strstr %p\n", (void *)strstr(src, "wor"));
	printf("ret strtol %ld\n", strtol("777", NULL, 8));
}

static void files(void)
{
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	char buf[8];
	FILE *f;

	printf("ret open %d\n", fd);
	/* The same number traced or not (the tracer holds descriptors of its own). */
	fd = fcntl(fd, F_DUPFD_CLOEXEC, 40);
	printf("ret read %zd\n", read(fd, buf, 5));
	printf("ret close %d\n", close(fd));
	printf("ret close %d\n", close(-7));
	printf("ret write %zd\n", write(1, "w\n", 2));
	f = fopen("/dev/null", "r");
	printf("ret fopen %p\n", (void *)f);
	printf("ret fclose %d\n", fclose(f));
	printf("ret puts %d\n", puts("a line"));
	printf("ret snprintf %d\n", snprintf(dst, 16, "%s-%d", "x", 3));
}

static void *worker(void *arg)
{
	return arg;
}

static void threads(void)
{
	struct timespec ts = { 0, 1000 };
	pthread_t t;
	void *r;

	printf("ret pthread_mutex_lock %d\n", pthread_mutex_lock(&lock));
	printf("ret pthread_mutex_unlock %d\n", pthread_mutex_unlock(&lock));
	printf("ret nanosleep %d\n", nanosleep(&ts, NULL));
	printf("ret pthread_create %d\n", pthread_create(&t, NULL, worker, nums));
	printf("ret pthread_join %d\n", pthread_join(t, &r));
	qsort(nums, 5, sizeof(nums[0]), cmp);
	printf("sorted %d %d\n", nums[0], nums[4]);
}

int main(int argc, char **argv)
{
	(void)argv;
	memory(argc);
	strings();
	files();
	threads();
	fflush(stdout);
	return 0;
}
