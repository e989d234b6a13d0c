// SPDX-License-Identifier: GPL-2.0-only
/*
 * Attaching to a running process started without the runtime: load
 * libpatchsite.so into it (x86-64); attach.c then drives it through its
 * control channel as `patchsite ctl` does.
 *
 * Where the runtime is loaded, and why that is safe.  The generic
 * injectors stop a thread at an arbitrary instruction and make it call
 * dlopen there; a thread stopped inside malloc, the loader or a lock
 * it holds then deadlocks or corrupts the heap (kubo/injector#31), and
 * the private entry points they call are gone (__libc_dlopen_mode,
 * glibc 2.34, linux-inject#19).  Here:
 *
 *   1. One thread is seized (PTRACE_SEIZE, never a SIGSTOP) and interrupted;
 *      the others run on throughout.  It is used only if it stopped at a
 *      safe point: in the program's own code (the executable's text: no
 *      libc or loader frame is half done above it), or blocked in one of
 *      the C library's plain blocking wrappers (read, poll, nanosleep,
 *      accept, epoll_wait, and the futex waits for an event: condition
 *      variables, pthread_join, semaphores; functions that hold no lock of
 *      the C library; never a lock's futex wait, never the loader's own
 *      inline syscalls).
 *      Not if it is running a signal handler (its stack holds glibc's
 *      __restore_rt above the stack pointer): the handler may have
 *      interrupted malloc.  The first pass over the threads takes only a
 *      blocked one.  Otherwise it is let go untouched and another thread,
 *      or the same one a millisecond later, is tried, for up to
 *      ATTACH_WAIT_MS.
 *   2. With every signal but SIGTRAP blocked in it (PTRACE_SETSIGMASK: no
 *      handler of the program can run on top of what follows; the traps it
 *      takes for us stop for ptrace and are never delivered, and a blocked
 *      SIGTRAP would reset the program's handler, borrow()), the thread makes one raw
 *      mmap system call (single-stepped over a `syscall` instruction of
 *      the C library's text: no libc state is touched): two pages, mapped
 *      read+execute, a code page and a data page, filled through
 *      /proc/PID/mem; then it calls pthread_create(), public since glibc
 *      2.34 in libc.so.6, returning onto an int3 of the code page.  That
 *      call is the only C library code run on the borrowed thread, at a
 *      point where the thread holds none of the locks it takes.  The new
 *      thread makes its data page writable (no page is ever writable and
 *      executable, so W^X policies pass) and starts two threads that only
 *      register the runtime's membarrier commands ahead (one each: their
 *      RCU grace periods overlap, and the runtime scans meanwhile).  From
 *      its interrupt to its release the borrowed thread runs at nice -20
 *      and SCHED_FIFO when we may (attach_boost.c); the threads it makes
 *      keep the nice until the tracer is on.
 *   3. Its registers (general, and the whole XSAVE area: pthread_create's
 *      memcpy uses vector registers) and its signal mask are put back
 *      exactly and it is let go.  A thread interrupted in a blocking call
 *      keeps orig_rax and the -ERESTART* value, so the kernel restarts the
 *      call on resume as it would after any stop; the injected registers
 *      carry orig_rax -1 so that nothing is restarted in between.
 *   4. The new thread starts at a clean ABI boundary (a thread start
 *      routine: no lock held, its own stack and TLS), names itself
 *      PS_ATTACH_THREAD and calls dlopen(lib, RTLD_NOW).  If another
 *      thread holds the loader lock, it simply waits.  The runtime's
 *      constructor sees that name and NOPs every site with the live
 *      breakpoint protocol (patchsite/sites/late.c) while the program's
 *      threads keep calling.  The thread detaches itself and ends.
 *
 * The runtime is NODELETE: it stays after we leave, untraced (tracer nop,
 * every site a NOP), and a second attach finds its channel and reuses it.
 * The two pages (8 KiB) stay mapped.
 *
 * Refused by name, before anything is written: another user's process or
 * one ptrace may not touch (which rule), a process already traced, a
 * static or musl program, one with the runtime already (then we only talk
 * to it), one with nothing to trace, any arch but x86-64 (attach_refuse.c).
 */
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include "attach_boost.h"
#include "attach_inject.h"
#include "attach_refuse.h"

#define ATTACH_WAIT_MS	3000	/* to find a thread at a safe point */

#define LOAD_WAIT_MS	20000	/* dlopen, the runtime's start-up (100,000 sites: 0.1 s) */
#define PS_ATTACH_THREAD ATTACH_THREAD_NAME	/* patchsite/sites/late.h: the runtime looks for this name */

struct attach_timing attach_timing;

#if defined(__x86_64__)

#include "attach_ptrace.h"
#include "attach_safe.h"

/*
 * How long to look for a safe point: ATTACH_WAIT_MS, or PATCHSITE_ATTACH_WAIT
 * (ms, 1 to 600000), for a loaded machine where no thread runs for seconds.
 */
static long long attach_wait_ms(void)
{
	const char *v = getenv("PATCHSITE_ATTACH_WAIT");
	char *end;
	long long ms = v ? strtoll(v, &end, 10) : 0;

	return v && *v && !*end && ms > 0 && ms <= 600000 ? ms : ATTACH_WAIT_MS;
}

/* ---- The borrowed thread ---- */

/*
 * The code page.  start() is the loader thread's routine; its argument is
 * the data page (struct blob_data), mapped read+execute with the code (one
 * system call on the borrowed thread) and made writable by start() itself.
 * It calls only the C library's public functions, through pointers the
 * command filled in.
 */
static const uint8_t blob[] = {
	0x53,				/* 00 push %rbx              (aligns the stack) */
	0x48, 0x89, 0xfb,		/* 01 mov %rdi,%rbx          data */
	0xb8, 0x90, 0x00, 0x00, 0x00,	/* 04 mov $0x90,%eax         SYS_sched_setscheduler(0, */
	0x31, 0xff,			/* 09 xor %edi,%edi          this thread, */
	0x31, 0xf6,			/* 0b xor %esi,%esi          SCHED_OTHER, */
	0x48, 0x8d, 0x53, 0x34,		/* 0d lea 0x34(%rbx),%rdx    &data->zero): not the borrowed thread's FIFO */
	0x0f, 0x05,			/* 11 syscall */
	0xb8, 0x0a, 0x00, 0x00, 0x00,	/* 13 mov $0xa,%eax          SYS_mprotect(data, */
	0x48, 0x89, 0xdf,		/* 18 mov %rbx,%rdi */
	0xbe, 0x00, 0x10, 0x00, 0x00,	/* 1b mov $0x1000,%esi       4096, */
	0xba, 0x03, 0x00, 0x00, 0x00,	/* 20 mov $0x3,%edx          READ | WRITE) */
	0x0f, 0x05,			/* 25 syscall */
	0x48, 0x85, 0xc0,		/* 27 test %rax,%rax */
	0x75, 0x74,			/* 2a jne a0                 (the thread ends) */
	0x48, 0x8d, 0x7b, 0x70,		/* 2c lea 0x70(%rbx),%rdi    &data->sync_thread */
	0x31, 0xf6,			/* 30 xor %esi,%esi */
	0x48, 0x8d, 0x15, 0x6c, 0x00, 0x00, 0x00, /* 32 lea 0x6c(%rip),%rdx    BLOB_SYNC */
	0x48, 0x89, 0xd9,		/* 39 mov %rbx,%rcx */
	0xff, 0x53, 0x38,		/* 3c call *0x38(%rbx)       pthread_create() */
	0x48, 0x8d, 0x7b, 0x78,		/* 3f lea 0x78(%rbx),%rdi    &data->sync_thread2 */
	0x31, 0xf6,			/* 43 xor %esi,%esi */
	0x48, 0x8d, 0x15, 0x8a, 0x00, 0x00, 0x00, /* 45 lea 0x8a(%rip),%rdx    BLOB_SYNC2 */
	0x48, 0x89, 0xd9,		/* 4c mov %rbx,%rcx */
	0xff, 0x53, 0x38,		/* 4f call *0x38(%rbx)       pthread_create() */
	0xff, 0x53, 0x10,		/* 52 call *0x10(%rbx)       pthread_self() */
	0x48, 0x89, 0xc7,		/* 55 mov %rax,%rdi */
	0xff, 0x53, 0x18,		/* 58 call *0x18(%rbx)       pthread_detach() */
	0xb8, 0x9d, 0x00, 0x00, 0x00,	/* 5b mov $0x9d,%eax         SYS_prctl */
	0xbf, 0x0f, 0x00, 0x00, 0x00,	/* 60 mov $0xf,%edi          PR_SET_NAME */
	0x48, 0x8d, 0x73, 0x40,		/* 65 lea 0x40(%rbx),%rsi    data->name */
	0x0f, 0x05,			/* 69 syscall */
	0x48, 0x8d, 0xbb, 0x80, 0x00, 0x00, 0x00, /* 6b lea 0x80(%rbx),%rdi    data->path */
	0xbe, 0x02, 0x00, 0x00, 0x00,	/* 72 mov $0x2,%esi          RTLD_NOW */
	0xff, 0x13,			/* 77 call *(%rbx)           dlopen() */
	0x48, 0x89, 0x43, 0x20,		/* 79 mov %rax,0x20(%rbx)    data->handle */
	0x48, 0x85, 0xc0,		/* 7d test %rax,%rax */
	0x75, 0x07,			/* 80 jne 89 */
	0xff, 0x53, 0x08,		/* 82 call *0x8(%rbx)        dlerror() */
	0x48, 0x89, 0x43, 0x28,		/* 85 mov %rax,0x28(%rbx)    data->error */
	0xb8, 0xe4, 0x00, 0x00, 0x00,	/* 89 mov $0xe4,%eax         SYS_clock_gettime */
	0xbf, 0x03, 0x00, 0x00, 0x00,	/* 8e mov $0x3,%edi          this thread's CPU */
	0x48, 0x8d, 0x73, 0x60,		/* 93 lea 0x60(%rbx),%rsi    data->cpu */
	0x0f, 0x05,			/* 97 syscall */
	0xc7, 0x43, 0x30, 0x01, 0x00, 0x00, 0x00, /* 99 movl $0x1,0x30(%rbx)   data->done */
	0x31, 0xc0,			/* a0 xor %eax,%eax */
	0x5b,				/* a2 pop %rbx */
	0xc3,				/* a3 ret                    (the thread ends) */
	0xcc,				/* a4 int3                   pthread_create's return */
	/*
	 * Two more threads' routines: the runtime's membarrier registrations
	 * (sites/patch.c ps_sync_register), done ahead, one command each.  In
	 * a process with threads each registration waits for an RCU grace
	 * period (kernel/sched/membarrier.c, sync_runqueues_membarrier_state:
	 * synchronize_rcu; 8-200 ms measured here under load); one thread
	 * doing both waited for two in turn, two threads wait for them at the
	 * same time (synchronize_rcu callers that overlap share grace
	 * periods), while the loader thread's dlopen and scan run; the
	 * runtime's own registration then returns at once if theirs is done.
	 * What they return does not matter: the runtime asks again and says
	 * what fails.  The loader thread makes them, not the borrowed one:
	 * each call made on the borrowed thread is a round trip through
	 * ptrace that keeps it stopped longer.
	 */
	0x53,				/* a5 push %rbx */
	0x48, 0x89, 0xfb,		/* a6 mov %rdi,%rbx          data */
	0xff, 0x53, 0x10,		/* a9 call *0x10(%rbx)       pthread_self() */
	0x48, 0x89, 0xc7,		/* ac mov %rax,%rdi */
	0xff, 0x53, 0x18,		/* af call *0x18(%rbx)       pthread_detach() */
	0xb8, 0x9d, 0x00, 0x00, 0x00,	/* b2 mov $0x9d,%eax         SYS_prctl */
	0xbf, 0x0f, 0x00, 0x00, 0x00,	/* b7 mov $0xf,%edi          PR_SET_NAME */
	0x48, 0x8d, 0x73, 0x40,		/* bc lea 0x40(%rbx),%rsi    data->name (attach_boost.c) */
	0x0f, 0x05,			/* c0 syscall */
	0xb8, 0x44, 0x01, 0x00, 0x00,	/* c2 mov $0x144,%eax        SYS_membarrier */
	0xbf, 0x40, 0x00, 0x00, 0x00,	/* c7 mov $0x40,%edi         REGISTER_PRIVATE_EXPEDITED_SYNC_CORE */
	0x31, 0xf6,			/* cc xor %esi,%esi */
	0x31, 0xd2,			/* ce xor %edx,%edx */
	0x0f, 0x05,			/* d0 syscall */
	0x31, 0xc0,			/* d2 xor %eax,%eax */
	0x5b,				/* d4 pop %rbx */
	0xc3,				/* d5 ret                    (the thread ends) */
	0x53,				/* d6 push %rbx */
	0x48, 0x89, 0xfb,		/* d7 mov %rdi,%rbx          data */
	0xff, 0x53, 0x10,		/* da call *0x10(%rbx)       pthread_self() */
	0x48, 0x89, 0xc7,		/* dd mov %rax,%rdi */
	0xff, 0x53, 0x18,		/* e0 call *0x18(%rbx)       pthread_detach() */
	0xb8, 0x9d, 0x00, 0x00, 0x00,	/* e3 mov $0x9d,%eax         SYS_prctl */
	0xbf, 0x0f, 0x00, 0x00, 0x00,	/* e8 mov $0xf,%edi          PR_SET_NAME */
	0x48, 0x8d, 0x73, 0x40,		/* ed lea 0x40(%rbx),%rsi    data->name (attach_boost.c) */
	0x0f, 0x05,			/* f1 syscall */
	0xb8, 0x44, 0x01, 0x00, 0x00,	/* f3 mov $0x144,%eax        SYS_membarrier */
	0xbf, 0x10, 0x00, 0x00, 0x00,	/* f8 mov $0x10,%edi         REGISTER_PRIVATE_EXPEDITED */
	0x31, 0xf6,			/* fd xor %esi,%esi */
	0x31, 0xd2,			/* ff xor %edx,%edx */
	0x0f, 0x05,			/* 101 syscall */
	0x31, 0xc0,			/* 103 xor %eax,%eax */
	0x5b,				/* 105 pop %rbx */
	0xc3,				/* 106 ret                    (the thread ends) */
};
#define BLOB_TRAP	0xa4
#define BLOB_SYNC	0xa5	/* the membarrier threads' routines: SYNC_CORE, */
#define BLOB_SYNC2	0xd6	/* ... PRIVATE_EXPEDITED (the lea's at 0x32 and 0x45) */
_Static_assert(sizeof(blob) == 0x107, "the code's offsets: the int3 at BLOB_TRAP, the routines after it");

struct blob_data {			/* offsets are the code's */
	uint64_t dlopen, dlerror, self, detach;		/* 0x00 */
	uint64_t handle, error;				/* 0x20: out */
	uint32_t done;					/* 0x30: out */
	uint32_t zero;					/* 0x34: a struct sched_param */
	uint64_t create;				/* 0x38: pthread_create */
	char name[32];					/* 0x40 */
	int64_t cpu_sec, cpu_nsec;			/* 0x60: out, struct timespec */
	uint64_t sync_thread, sync_thread2;		/* 0x70: pthread_create's */
	char path[4096 - 0x80];				/* 0x80 */
};
_Static_assert(sizeof(struct blob_data) == 4096, "one page");
_Static_assert(offsetof(struct blob_data, zero) == 0x34 &&
	       offsetof(struct blob_data, create) == 0x38 &&
	       offsetof(struct blob_data, cpu_sec) == 0x60 &&
	       offsetof(struct blob_data, sync_thread) == 0x70 &&
	       offsetof(struct blob_data, path) == 0x80, "the code's offsets");

struct libc_fns {
	unsigned long create, dlopen, dlerror, self, detach;
};

/* What each thread tried needs: the C library's path and addresses, the runtime's path. */
struct safe_search {
	const char *libc;
	unsigned long syscall_insn, restorer;	/* attach_safe.c's */
	const struct libc_fns *fn;
	const char *lib;
};

/*
 * On a seized, stopped thread at a safe point: map the two pages, write
 * them, pthread_create the loader thread, put the thread back.  Two round
 * trips through ptrace after its stop: the thread is stopped 0.3-0.5 ms
 * on an idle machine (was five, 0.5-1.1 ms).  The data page's address is
 * returned in *data.
 */
static int borrow(struct hijack *h, const struct target *t, const struct libc_fns *fn,
		  const char *lib, unsigned long *data, char *why, size_t len)
{
	/*
	 * Every signal blocked but SIGTRAP: the kernel resets a signal's action
	 * to SIG_DFL, for the whole process, when it forces that signal on a
	 * thread that blocks it (force_sig_info_to_task), and this thread takes
	 * two such traps (the single step, the int3 its call returns onto).
	 * Blocked, they took the program's own SIGTRAP handler away, or the
	 * runtime's when its loader thread had already installed it: a site's
	 * breakpoint then killed the program (issue 44).  Unblocked, each stops
	 * for us first (ptrace) and is never delivered.
	 */
	static const uint64_t all = ~(1ULL << (SIGTRAP - 1));
	struct blob_data d = { .dlopen = fn->dlopen, .dlerror = fn->dlerror, .self = fn->self,
			       .detach = fn->detach, .create = fn->create };
	long code = 0, rc = -1;
	unsigned long page;
	int err, err2;

	/* Boosted since its interrupt (attach_boost_stop): the threads it makes inherit it. */
	attach_boost_made(t->pid, h->prio.nice);
	snprintf(d.name, sizeof(d.name), "%s", PS_ATTACH_THREAD);
	memcpy(d.path, lib, strlen(lib) + 1);	/* attach_inject() checked its length */
	err = ptrace(PTRACE_GETSIGMASK, h->tid, (void *)sizeof(h->mask), &h->mask) ? -errno : 0;
	if (!err && ptrace(PTRACE_SETSIGMASK, h->tid, (void *)sizeof(all), &all))
		err = -errno;
	/* Never writable and executable at once: start() makes the data page writable. */
	if (!err)
		err = hijack_syscall(h, SYS_mmap, (long[6]){ 0, 2 * 4096, PROT_READ | PROT_EXEC,
				     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0 }, &code);
	if (!err && (unsigned long)code > -4096UL)
		err = (int)code;
	page = (unsigned long)code + 4096;
	/* /proc/PID/mem writes the read+execute pages as a debugger writes breakpoints. */
	if (!err && (pwrite(t->mem, blob, sizeof(blob), code) != sizeof(blob) ||
		     pwrite(t->mem, &d, sizeof(d), (off_t)page) != sizeof(d)))
		err = -errno;
	/* pthread_create(scratch, NULL, start, data); the new threads inherit the boost */
	if (!err)
		err = hijack_call(h, t, fn->create, (unsigned long)code + BLOB_TRAP,
				  (unsigned long[4]){ hijack_scratch(h), 0, (unsigned long)code,
				  page }, &rc);
	attach_unboost_stop(h->tid, &h->prio);	/* before it runs its own code again */
	err2 = hijack_restore(h);
	if (err)
		return attach_fail(why, len, "pid %d: thread %d: the injected call failed: %s (the "
				   "thread was put back as it "
				   "was)", t->pid, h->tid, strerror(-err));
	if (err2)
		return attach_fail(why, len, "pid %d: thread %d: putting it back: %s", t->pid, h->tid,
			    strerror(-err2));
	if (rc)
		return attach_fail(why, len, "pid %d: pthread_create in it: %s", t->pid, strerror((int)rc));
	*data = page;
	return 0;
}

/* A thread interrupted at since_us (attach_now_us) is let go now: its stop, for PATCHSITE_ATTACH_TIME. */
static void stop_ended(long long since_us)
{
	long long us = attach_now_us() - since_us;

	attach_timing.nstopped++;
	if (us > attach_timing.max_stop_us)
		attach_timing.max_stop_us = us;
}

/*
 * Thread tid seized and interrupted; borrowed if it stopped at a safe point
 * (pass 0: blocked in a system call only), else let go untouched.  1: not
 * borrowed, try another; 0: borrowed, its data page in *data; -1 with why.
 */
static int try_thread(struct target *t, int tid, const struct safe_search *ss, unsigned pass,
		      unsigned long *data, char *why, size_t len)
{
	static struct hijack h;
	long long stopped_us, since_us;
	const char *where;
	int status, err;

	memset(&h, 0, sizeof(h));
	h.tid = tid;
	h.syscall_insn = ss->syscall_insn;
	if (ptrace(PTRACE_SEIZE, tid, NULL, NULL))
		return errno == EPERM ? attach_why_no_ptrace(t->pid, why, len) :
			1;	/* ESRCH: the thread ended */
	since_us = attach_now_us();
	/* Its way into the stop, the steps and calls run on it wait for a CPU too. */
	attach_boost_stop(tid, &h.prio);
	if (ptrace(PTRACE_INTERRUPT, tid, NULL, NULL)) {
		attach_unboost_stop(tid, &h.prio);
		ptrace(PTRACE_DETACH, tid, NULL, NULL);
		return 1;
	}
	if (hijack_wait(tid, &status, 10000)) {
		attach_unboost_stop(tid, &h.prio);
		/* Not let go before it stops: our exit has the kernel do it. */
		return attach_fail(why, len, "pid %d: thread %d did not stop within "
				   "10 s (in an uninterruptible wait?): try "
				   "again", t->pid, tid);
	}
	if (!WIFSTOPPED(status)) {
		attach_unboost_stop(tid, &h.prio);
		return 1;	/* it ended */
	}
	if (!(status >> 16))
		h.pending = WSTOPSIG(status);	/* it gets it when let go */
	if (ptrace(PTRACE_GETREGS, tid, NULL, &h.saved)) {
		attach_unboost_stop(tid, &h.prio);
		ptrace(PTRACE_DETACH, tid, NULL, (void *)(long)h.pending);
		stop_ended(since_us);
		return 1;
	}
	stopped_us = attach_now_us() - since_us;
	where = attach_safe_point(t, ss->libc, &h.saved, pass == 0);
	if (where && attach_in_handler(t, ss->restorer, h.saved.rsp))
		where = NULL;
	if (!where) {
		attach_unboost_stop(tid, &h.prio);
		ptrace(PTRACE_DETACH, tid, NULL, (void *)(long)h.pending);
		stop_ended(since_us);
		return 1;
	}
	h.xio.iov_base = h.xstate;
	h.xio.iov_len = sizeof(h.xstate);
	h.have_x = !ptrace(PTRACE_GETREGSET, tid, (void *)NT_X86_XSTATE, &h.xio);
	if (!h.have_x) {
		attach_unboost_stop(tid, &h.prio);
		ptrace(PTRACE_DETACH, tid, NULL, (void *)(long)h.pending);
		stop_ended(since_us);
		return attach_fail(why, len, "pid %d: thread %d: its vector "
				   "registers (XSAVE): %s",
				   t->pid, tid, strerror(errno));
	}
	attach_timing.where = where;
	attach_timing.borrowed_us = attach_now_us();
	err = borrow(&h, t, ss->fn, ss->lib, data, why, len);
	attach_timing.borrowed_us = attach_now_us() - attach_timing.borrowed_us;
	attach_timing.borrowed_us += stopped_us;
	stop_ended(since_us);
	attach_timing.found_ms = attach_now_ms();
	return err;
}

/*
 * The target's threads tried in turn, pass after pass, until one is
 * borrowed or ATTACH_WAIT_MS passed: 0 (*data set), 1 (none found) or -1
 * with why.  ^C waits until the thread tried is back (it would otherwise
 * keep borrowed registers).
 */
static int find_and_borrow(struct target *t, const struct safe_search *ss, unsigned long *data,
			   char *why, size_t len)
{
	long long end = attach_now_ms() + attach_wait_ms();
	sigset_t stop, old;
	int err = 1;

	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGHUP);
	sigprocmask(SIG_BLOCK, &stop, &old);
	attach_boost_self_fifo(true);
	for (unsigned pass = 0; err > 0 && attach_now_ms() < end; pass++) {
		char tdir[64];
		struct dirent *de;
		DIR *dir;

		snprintf(tdir, sizeof(tdir), "/proc/%d/task", t->pid);
		dir = opendir(tdir);
		if (!dir) {
			err = attach_fail(why, len, "pid %d: no such process", t->pid);
			break;
		}
		while (err > 0 && (de = readdir(dir))) {
			int tid = atoi(de->d_name);

			if (tid > 0)
				err = try_thread(t, tid, ss, pass, data, why, len);
		}
		closedir(dir);
		if (err > 0)
			attach_sleep_ms(1);
	}
	attach_boost_self_fifo(false);
	sigprocmask(SIG_SETMASK, &old, NULL);
	return err;
}

/* The loader thread's dlopen and the runtime's start-up, until done (data: its page). */
static int wait_loaded(struct target *t, const char *lib, unsigned long data, char *why,
		       size_t len)
{
	for (long long stop_at = attach_now_ms() + LOAD_WAIT_MS;; attach_sleep_ms(1)) {
		struct blob_data d;

		if (pread(t->mem, &d, offsetof(struct blob_data, path), (off_t)data) !=
		    offsetof(struct blob_data, path))
			return attach_fail(why, len, "pid %d: ended while the runtime was loading", t->pid);
		if (d.done && d.handle) {
			attach_timing.loaded_ms = attach_now_ms();
			attach_timing.loader_cpu_us = d.cpu_sec * 1000000 + d.cpu_nsec / 1000;
			return 0;
		}
		if (d.done) {
			char msg[512] = "";

			if (d.error && pread(t->mem, msg, sizeof(msg) - 1, (off_t)d.error) <= 0)
				msg[0] = '\0';
			msg[sizeof(msg) - 1] = '\0';
			return attach_fail(why, len, "pid %d: dlopen(%s) failed in it: %s%s", t->pid, lib,
				    *msg ? msg : "no reason given", strstr(msg, "static TLS") ?
				    " (too little static TLS left for the runtime: start it with "
				    "GLIBC_TUNABLES=glibc.rtld.optional_static_tls=4096, or under "
				    "patchsite record)" : "");
		}
		if (attach_now_ms() > stop_at)
			return attach_fail(why, len, "pid %d: the runtime has not finished loading "
					   "after %d ms (its loader lock "
					   "held? its data page not made writable, mprotect "
					   "refused?)", t->pid, LOAD_WAIT_MS);
	}
}

/* Seize the threads in turn until one stops at a safe point, and borrow it. */
int attach_inject(struct target *t, const char *lib, char *why, size_t len)
{
	const struct map *libc = target_map_named(t, "libc.so.6");
	struct libc_fns fn = {
		.create = target_libc_function(t, "pthread_create"),
		.dlopen = target_libc_function(t, "dlopen"),
		.dlerror = target_libc_function(t, "dlerror"),
		.self = target_libc_function(t, "pthread_self"),
		.detach = target_libc_function(t, "pthread_detach"),
	};
	struct safe_search ss = { .libc = libc->path, .fn = &fn, .lib = lib };
	unsigned long data = 0;
	char path[64];
	int err;

	if (strlen(lib) >= sizeof(((struct blob_data *)0)->path))
		return attach_fail(why, len, "%s: path too long", lib);
	if (!fn.create || !fn.dlopen || !fn.dlerror || !fn.self || !fn.detach)
		return attach_fail(why, len, "pid %d: %s has no %s (glibc older than 2.34 without "
				   "libdl?)",
			    t->pid, libc->path, !fn.create ? "pthread_create" : !fn.dlopen ? "dlopen" :
			    "dlerror, pthread_self or pthread_detach");
	snprintf(path, sizeof(path), "/proc/%d/mem", t->pid);
	t->mem = open(path, O_RDWR | O_CLOEXEC);
	if (t->mem < 0)
		return errno == EACCES || errno == EPERM ? attach_why_no_ptrace(t->pid, why, len) :
			attach_fail(why, len, "%s: %s", path, strerror(errno));
	ss.syscall_insn = attach_find_syscall_insn(t, libc->path);
	ss.restorer = attach_find_restorer(t, libc->path);
	if (!ss.syscall_insn)
		return attach_fail(why, len, "pid %d: no syscall instruction in %s", t->pid, libc->path);
	err = find_and_borrow(t, &ss, &data, why, len);
	if (err > 0)
		return attach_fail(why, len, "pid %d: no thread stopped at a safe point (in the "
				   "program's code, or blocked in a system call) in %d ms: try "
				   "again", t->pid,
			    (int)attach_wait_ms());
	if (err)
		return err;
	return wait_loaded(t, lib, data, why, len);
}

#else /* !__x86_64__ */

/*
 * aarch64 would borrow a thread the same way (PTRACE_GETREGSET NT_PRSTATUS,
 * an svc #0 in the C library, a brk #0 to return onto); not written yet.
 * Under qemu-user, where this project tests aarch64, ptrace does not work
 * at all (qemu does not emulate it for its guest).
 */
int attach_inject(struct target *t, const char *lib, char *why, size_t len)
{
	(void)lib;
	return attach_fail(why, len, "pid %d: attach is implemented for x86-64 only (on aarch64 "
			   "start the program with patchsite record, or "
			   "LD_PRELOAD=libpatchsite.so; under qemu-user ptrace does not work at "
			   "all)", t->pid);
}

#endif /* __x86_64__ */
