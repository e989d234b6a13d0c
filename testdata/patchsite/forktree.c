// SPDX-License-Identifier: GPL-2.0-only
/*
 * A forked child's tree (tests/patchsite/uft.sh, issue 42): the child returns
 * from fork() or daemon() inside the calls open at the fork, then calls
 * functions of its own.  Its calls, by construction:
 *   fork:   main() { spawn() { fork(); ...child: work() { leaf(); leaf(); } } }
 *           (the parent waits for it, then calls work() itself)
 *   daemon: main() { detach() { daemon(); ...child: work() { leaf(); leaf(); } } }
 *           (the parent ends inside daemon(); the child keeps standard
 *           output open, so a reader of it sees its end when the child's)
 */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile int sink;

void leaf(int x)
{
	sink += x;
}

void work(int x)
{
	leaf(x);
	leaf(x + 1);
}

int spawn(void)
{
	pid_t pid = fork();

	if (pid == 0) {
		work(1);
		return 1;
	}
	if (pid < 0 || waitpid(pid, NULL, 0) != pid)
		return -1;
	work(2);
	return 0;
}

int detach(void)
{
	if (daemon(1, 1))
		return -1;
	work(3);
	return 0;
}

int main(int argc, char **argv)
{
	int r = argc > 1 && !strcmp(argv[1], "daemon") ? detach() : spawn();

	return r < 0;
}
