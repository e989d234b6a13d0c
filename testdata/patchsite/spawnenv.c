// SPDX-License-Identifier: GPL-2.0-only
/*
 * Children started with an environment of their own (tests/patchsite/
 * record.sh): each gets envp = { "PATH=/usr/bin", NULL }, without what
 * started the parent.  usage: spawnenv, or spawnenv child N (N calls of
 * leaf(), then `child calls=N`).  The parent starts `child 3` by
 * posix_spawn, `child 4` by posix_spawnp and waits for both; forks a
 * child that execve's `child 5`, waits, then execvpe's `child 6` itself.
 */
#define _GNU_SOURCE
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile long sink;

__attribute__((noinline)) void leaf(long i)
{
	sink += i;
	__asm__ volatile("" ::: "memory");
}

static void wait_ok(pid_t pid)
{
	int st;

	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st)) {
		fprintf(stderr, "spawnenv: child %d failed\n", (int)pid);
		exit(1);
	}
}

int main(int argc, char **argv)
{
	char *env[] = { "PATH=/usr/bin", NULL };
	char *a3[] = { argv[0], "child", "3", NULL }, *a4[] = { argv[0], "child", "4", NULL };
	char *a5[] = { argv[0], "child", "5", NULL }, *a6[] = { argv[0], "child", "6", NULL };
	pid_t pid;

	if (argc == 3 && !strcmp(argv[1], "child")) {
		int n = atoi(argv[2]);

		for (int i = 0; i < n; i++)
			leaf(i);
		printf("child calls=%d\n", n);
		return 0;
	}
	if (posix_spawn(&pid, argv[0], NULL, NULL, a3, env))
		return 1;
	wait_ok(pid);
	if (posix_spawnp(&pid, argv[0], NULL, NULL, a4, env))
		return 1;
	wait_ok(pid);
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return 1;
	if (!pid) {
		execve(argv[0], a5, env);
		_exit(127);
	}
	wait_ok(pid);
	execvpe(argv[0], a6, env);
	return 127;
}
