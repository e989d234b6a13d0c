// SPDX-License-Identifier: GPL-2.0-only
/*
 * The arguments and return types of common C library functions, written
 * here from the C standard's and POSIX's signatures (the _chk variants from
 * the LSB's), for the calls a program makes into libc: their DWARF is not
 * the program's, so record -a and probe names take them from this list.
 * LP64 (x86-64, aarch64, riscv64): size_t u64, ssize_t/off_t/long s64,
 * int s32, pointers x64.  A pointer is read as a string only where the
 * standard says it is one (a NUL-terminated input); outputs, buffers and
 * variadic arguments are not read (printf's format only, open's mode only
 * exists with O_CREAT: left out).  Functions that return twice or never
 * are not here: their slots are never switched (sites/got_families.c).
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "libc_protos.h"

static const struct libc_proto protos[] = {
	/* <stdlib.h> memory */
	{ "malloc", "size=$arg1:u64", "x64" },
	{ "calloc", "nmemb=$arg1:u64 size=$arg2:u64", "x64" },
	{ "realloc", "ptr=$arg1:x64 size=$arg2:u64", "x64" },
	{ "reallocarray", "ptr=$arg1:x64 nmemb=$arg2:u64 size=$arg3:u64", "x64" },
	{ "free", "ptr=$arg1:x64", NULL },
	{ "aligned_alloc", "alignment=$arg1:u64 size=$arg2:u64", "x64" },
	{ "posix_memalign", "memptr=$arg1:x64 alignment=$arg2:u64 size=$arg3:u64", "s32" },
	/* <stdlib.h> other */
	{ "getenv", "name=+0($arg1):string", "x64" },
	{ "atoi", "nptr=+0($arg1):string", "s32" },
	{ "strtol", "nptr=+0($arg1):string endptr=$arg2:x64 base=$arg3:s32", "s64" },
	{ "strtoul", "nptr=+0($arg1):string endptr=$arg2:x64 base=$arg3:s32", "u64" },
	{ "strtod", "nptr=+0($arg1):string endptr=$arg2:x64", "double" },
	{ "qsort", "base=$arg1:x64 nmemb=$arg2:u64 size=$arg3:u64 compar=$arg4:x64", NULL },
	{ "rand", "", "s32" },
	{ "srand", "seed=$arg1:u32", NULL },
	/* <string.h> */
	{ "memcpy", "dest=$arg1:x64 src=$arg2:x64 n=$arg3:u64", "x64" },
	{ "memmove", "dest=$arg1:x64 src=$arg2:x64 n=$arg3:u64", "x64" },
	{ "memset", "s=$arg1:x64 c=$arg2:s32 n=$arg3:u64", "x64" },
	{ "memcmp", "s1=$arg1:x64 s2=$arg2:x64 n=$arg3:u64", "s32" },
	{ "memchr", "s=$arg1:x64 c=$arg2:s32 n=$arg3:u64", "x64" },
	{ "strlen", "s=+0($arg1):string", "u64" },
	{ "strnlen", "s=$arg1:x64 maxlen=$arg2:u64", "u64" },
	{ "strcmp", "s1=+0($arg1):string s2=+0($arg2):string", "s32" },
	{ "strncmp", "s1=$arg1:x64 s2=$arg2:x64 n=$arg3:u64", "s32" },
	{ "strcasecmp", "s1=+0($arg1):string s2=+0($arg2):string", "s32" },
	{ "strcpy", "dest=$arg1:x64 src=+0($arg2):string", "x64" },
	{ "strncpy", "dest=$arg1:x64 src=$arg2:x64 n=$arg3:u64", "x64" },
	{ "strcat", "dest=$arg1:x64 src=+0($arg2):string", "x64" },
	{ "strdup", "s=+0($arg1):string", "x64" },
	{ "strndup", "s=$arg1:x64 n=$arg2:u64", "x64" },
	{ "strchr", "s=+0($arg1):string c=$arg2:s32", "x64" },
	{ "strrchr", "s=+0($arg1):string c=$arg2:s32", "x64" },
	{ "strstr", "haystack=+0($arg1):string needle=+0($arg2):string", "x64" },
	{ "strcoll", "s1=+0($arg1):string s2=+0($arg2):string", "s32" },
	{ "strspn", "s=+0($arg1):string accept=+0($arg2):string", "u64" },
	{ "strcspn", "s=+0($arg1):string reject=+0($arg2):string", "u64" },
	{ "strerror", "errnum=$arg1:s32", "x64" },
	/* <stdio.h>: of the variadic ones, the format only */
	{ "fopen", "pathname=+0($arg1):string mode=+0($arg2):string", "x64" },
	{ "fopen64", "pathname=+0($arg1):string mode=+0($arg2):string", "x64" },	/* LFS */
	{ "fdopen", "fd=$arg1:s32 mode=+0($arg2):string", "x64" },
	{ "fclose", "stream=$arg1:x64", "s32" },
	{ "fflush", "stream=$arg1:x64", "s32" },
	{ "fread", "ptr=$arg1:x64 size=$arg2:u64 nmemb=$arg3:u64 stream=$arg4:x64", "u64" },
	{ "fwrite", "ptr=$arg1:x64 size=$arg2:u64 nmemb=$arg3:u64 stream=$arg4:x64", "u64" },
	{ "fgets", "s=$arg1:x64 size=$arg2:s32 stream=$arg3:x64", "x64" },
	{ "fputs", "s=+0($arg1):string stream=$arg2:x64", "s32" },
	{ "fputc", "c=$arg1:s32 stream=$arg2:x64", "s32" },
	{ "putc", "c=$arg1:s32 stream=$arg2:x64", "s32" },
	{ "putchar", "c=$arg1:s32", "s32" },
	{ "puts", "s=+0($arg1):string", "s32" },
	{ "fileno", "stream=$arg1:x64", "s32" },
	{ "feof", "stream=$arg1:x64", "s32" },
	{ "ferror", "stream=$arg1:x64", "s32" },
	{ "fgetc", "stream=$arg1:x64", "s32" },
	{ "getc", "stream=$arg1:x64", "s32" },
	{ "printf", "format=+0($arg1):string", "s32" },
	{ "fprintf", "stream=$arg1:x64 format=+0($arg2):string", "s32" },
	{ "sprintf", "str=$arg1:x64 format=+0($arg2):string", "s32" },
	{ "snprintf", "str=$arg1:x64 size=$arg2:u64 format=+0($arg3):string", "s32" },
	/* _FORTIFY_SOURCE's (LSB): what -O2 builds call instead */
	{ "__printf_chk", "flag=$arg1:s32 format=+0($arg2):string", "s32" },
	{ "__fprintf_chk", "stream=$arg1:x64 flag=$arg2:s32 format=+0($arg3):string", "s32" },
	{ "__sprintf_chk", "str=$arg1:x64 flag=$arg2:s32 strlen=$arg3:u64 format=+0($arg4):string",
	  "s32" },
	{ "__snprintf_chk", "str=$arg1:x64 maxlen=$arg2:u64 flag=$arg3:s32 strlen=$arg4:u64 "
	  "format=+0($arg5):string", "s32" },
	{ "__memcpy_chk", "dest=$arg1:x64 src=$arg2:x64 len=$arg3:u64 destlen=$arg4:u64", "x64" },
	{ "__memset_chk", "dest=$arg1:x64 c=$arg2:s32 len=$arg3:u64 destlen=$arg4:u64", "x64" },
	/* <fcntl.h>, <unistd.h>, <sys/mman.h> */
	{ "open", "pathname=+0($arg1):string flags=$arg2:x32", "s32" },
	{ "open64", "pathname=+0($arg1):string flags=$arg2:x32", "s32" },	/* LFS */
	{ "openat", "dirfd=$arg1:s32 pathname=+0($arg2):string flags=$arg3:x32", "s32" },
	{ "read", "fd=$arg1:s32 buf=$arg2:x64 count=$arg3:u64", "s64" },
	{ "write", "fd=$arg1:s32 buf=$arg2:x64 count=$arg3:u64", "s64" },
	{ "close", "fd=$arg1:s32", "s32" },
	{ "lseek", "fd=$arg1:s32 offset=$arg2:s64 whence=$arg3:s32", "s64" },
	{ "unlink", "pathname=+0($arg1):string", "s32" },
	{ "access", "pathname=+0($arg1):string mode=$arg2:s32", "s32" },
	{ "dup2", "oldfd=$arg1:s32 newfd=$arg2:s32", "s32" },
	{ "pipe", "pipefd=$arg1:x64", "s32" },
	{ "getpid", "", "s32" },
	{ "sleep", "seconds=$arg1:u32", "u32" },
	{ "usleep", "usec=$arg1:u32", "s32" },
	{ "mmap", "addr=$arg1:x64 length=$arg2:u64 prot=$arg3:x32 flags=$arg4:x32 fd=$arg5:s32 "
	  "offset=$arg6:s64", "x64" },
	{ "munmap", "addr=$arg1:x64 length=$arg2:u64", "s32" },
	/* <time.h> */
	{ "nanosleep", "req=$arg1:x64 rem=$arg2:x64", "s32" },
	{ "clock_gettime", "clockid=$arg1:s32 tp=$arg2:x64", "s32" },
	{ "time", "tloc=$arg1:x64", "s64" },
	{ "mktime", "tm=$arg1:x64", "s64" },
	/* <pthread.h> */
	{ "pthread_create", "thread=$arg1:x64 attr=$arg2:x64 start_routine=$arg3:x64 "
	  "arg=$arg4:x64", "s32" },
	{ "pthread_join", "thread=$arg1:x64 retval=$arg2:x64", "s32" },
	{ "pthread_mutex_lock", "mutex=$arg1:x64", "s32" },
	{ "pthread_mutex_trylock", "mutex=$arg1:x64", "s32" },
	{ "pthread_mutex_unlock", "mutex=$arg1:x64", "s32" },
	{ "pthread_cond_wait", "cond=$arg1:x64 mutex=$arg2:x64", "s32" },
	{ "pthread_cond_signal", "cond=$arg1:x64", "s32" },
	{ "pthread_cond_broadcast", "cond=$arg1:x64", "s32" },
};

const struct libc_proto *libc_proto_find(const char *name)
{
	for (size_t i = 0; i < sizeof(protos) / sizeof(protos[0]); i++)
		if (!strcmp(protos[i].name, name))
			return &protos[i];
	return NULL;
}

int libc_proto_param(const struct libc_proto *proto, const char *pname, char *out, size_t len)
{
	size_t n = strlen(pname);

	for (const char *p = proto->args; *p; p += strcspn(p, " "), p += *p == ' ') {
		size_t w = strcspn(p, " ");

		if (w > n && !strncmp(p, pname, n) && p[n] == '=') {
			snprintf(out, len, "%.*s", (int)(w - n - 1), p + n + 1);
			return 0;
		}
	}
	return -1;
}
