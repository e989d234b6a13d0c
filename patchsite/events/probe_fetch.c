// SPDX-License-Identifier: GPL-2.0-only
/*
 * A probe's fetch program: each fetch argument compiled once, when the
 * probe is defined, into a base (a saved register, a stack word, an
 * address, an immediate), up to PS_PROBE_MAX_DEREF reads at an offset, and
 * a type; run at every hit on the registers the generic trampoline saved.
 * Nothing is resolved at a hit: no names, no symbols, no debug info.
 *
 * Memory is read with process_vm_readv on the process itself (or through a
 * pipe where that call is refused), never through a plain pointer: a wrong
 * address (a stale pointer, an argument that is not a pointer) gives
 * -EFAULT, not a crash of the traced program.
 * A string that cannot be read up to its NUL (or the cap) is recorded as
 * "(fault)", as the kernel's probes do; a NULL one as "(null)".
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/uio.h>
#include <unistd.h>

#include "arch/regs.h"
#include "record/record.h"
#include "probe_fetch.h"

/* Code of a base that reads an argument from the stack (PF_ARG beyond the registers). */
#define PF_STACK_ARG	100

/* One argument: 0, or -EINVAL with the reason. */
static int compile_arg(const struct ps_probe_arg *a, struct ps_fetch_arg *f, char *err,
		       size_t errlen)
{
	memset(f, 0, sizeof(*f));
	f->base = a->base;
	f->type = a->type;
	f->size = a->size;
	f->nderef = a->nderef;
	f->bw = a->bw;
	f->bo = a->bo;
	memcpy(f->deref, a->deref, sizeof(f->deref));
	f->v = a->n;
	switch (a->base) {
	case PF_ARG:
		if (a->n < ps.arch->arg_regs) {
			f->base = PF_REG;	/* one load at a hit */
			f->reg = ps_regs_arg_index((unsigned)a->n);
			return 0;
		}
		if (ps_regs_stack_arg((unsigned)a->n) < 0 || !ps_regs_stack_known) {
			snprintf(err, errlen, "%s: $arg%u is not in a register of %s and its stack "
				 "slot is not known here", a->name, (unsigned)a->n + 1,
				 ps.arch->name);
			return -EINVAL;
		}
		f->base = PF_STACK_ARG;
		f->v = (uint64_t)ps_regs_stack_arg((unsigned)a->n);
		return 0;
	case PF_STACK:
	case PF_STACKADDR:
		if (ps_regs_stack_known)
			return 0;
		snprintf(err, errlen, "%s: $stack is not known on %s", a->name, ps.arch->name);
		return -EINVAL;
	case PF_REG:
		f->reg = ps_regs_index(a->sym);
		if (f->reg >= 0)
			return 0;
		snprintf(err, errlen, "%s: %%%s is not a register saved at a function's entry on "
			 "%s (%s)", a->name, a->sym, ps.arch->name, ps_regs_known);
		return -EINVAL;
	case PF_SYM:
		dlerror();
		f->v = (uint64_t)(uintptr_t)dlsym(RTLD_DEFAULT, a->sym);
		if (f->v) {
			f->v += (uint64_t)a->off;
			return 0;
		}
		snprintf(err, errlen, "%s: @%s: no such symbol in the dynamic symbol tables "
			 "(a program's own symbols need -rdynamic)", a->name, a->sym);
		return -EINVAL;
	case PF_RETVAL:
		if (a->type != PT_STRING || a->nderef)
			return 0;
		snprintf(err, errlen, "%s: $retval:string is read through a char * the command "
			 "finds in DWARF (record --probe); here, write +0($retval):string", a->name);
		return -EINVAL;
	case PF_NAME:
		snprintf(err, errlen, "%s: '%s' names a variable: names are resolved from DWARF "
			 "by the patchsite command (record --probe), which writes the fetch "
			 "arguments here; write those, or $argN", a->name, a->sym);
		return -EINVAL;
	default:
		return 0;
	}
}

int ps_fetch_compile(const struct ps_probe_def *d, struct ps_fetch_prog *p, char *err,
		     size_t errlen)
{
	memset(p, 0, sizeof(*p));
	if (!ps.arch->arg_regs) {
		snprintf(err, errlen, "probes are not done on %s", ps.arch->name);
		return -ENOTSUP;
	}
	p->regs_only = !d->ret;
	for (unsigned i = 0; i < d->nargs; i++) {
		if (compile_arg(&d->a[i], &p->a[i], err, errlen))
			return -EINVAL;
		p->a[i].ent = -1;
		if (d->ret && ps_probe_arg_at_entry(&d->a[i])) {
			if (p->nent == PS_FS_EDATA) {
				snprintf(err, errlen, "%s: more than %d entry values in a %%return "
					 "probe", d->a[i].name, PS_FS_EDATA);
				return -EINVAL;
			}
			p->a[i].ent = (int8_t)p->nent++;
			/* An argument in its stack slot: the caller may reuse it by the return. */
			p->a[i].ent_derefs = p->a[i].base == PF_STACKADDR &&
					     p->a[i].nderef > (p->a[i].type == PT_STRING);
		}
		p->regs_only &= p->a[i].base == PF_REG && !p->a[i].nderef && !p->a[i].bw &&
				(p->a[i].type == PT_S || p->a[i].type == PT_U || p->a[i].type == PT_X);
	}
	p->n = d->nargs;
	return 0;
}

/*
 * Where process_vm_readv is not there (ENOSYS: qemu-user; EPERM: a seccomp
 * policy), a pipe: write() from addr fails with EFAULT instead of faulting,
 * and read() gives the bytes back.  One pipe, taken with a trylock: a
 * thread finding it busy (another, or a signal handler on this one) counts
 * that value as unreadable rather than wait inside a traced function.
 */
static _Atomic int vm_readv_ok = 1;
static pthread_mutex_t pipe_lock = PTHREAD_MUTEX_INITIALIZER;
static int pipe_fd[2] = { -1, -1 };

static size_t read_pipe(uintptr_t addr, void *out, size_t n, size_t page)
{
	size_t at = 0;

	if (pthread_mutex_trylock(&pipe_lock))
		return 0;
	if (pipe_fd[0] < 0 && pipe2(pipe_fd, O_CLOEXEC | O_NONBLOCK))
		pipe_fd[0] = pipe_fd[1] = -1;
	while (pipe_fd[0] >= 0 && at < n) {
		size_t room = page - ((addr + at) & (page - 1)), m = n - at < room ? n - at : room;
		ssize_t w = write(pipe_fd[1], (const void *)(addr + at), m);

		if (w <= 0)
			break;
		if (read(pipe_fd[0], (char *)out + at, (size_t)w) != w)
			break;	/* never seen: the pipe holds what was just written */
		at += (size_t)w;
		if ((size_t)w < m)
			break;
	}
	pthread_mutex_unlock(&pipe_lock);
	return at;
}

/*
 * n bytes at addr of this process: how many could be read (a read stops at
 * the first fault: each page is its own iovec).  The program's errno is
 * kept: a tracer never changes what the program sees.
 */
static size_t read_mem(uintptr_t addr, void *out, size_t n)
{
	struct iovec local = { out, n }, remote[3];
	size_t page = 4096, k = 0, at = 0;
	int saved = errno;
	ssize_t got = -1;

	while (at < n && k < 3) {
		size_t room = page - ((addr + at) & (page - 1)), m = n - at < room ? n - at : room;

		remote[k++] = (struct iovec){ (void *)(addr + at), m };
		at += m;
	}
	if (at < n)
		return 0;
	if (atomic_load_explicit(&vm_readv_ok, memory_order_relaxed)) {
		got = process_vm_readv(getpid(), &local, 1, remote, k, 0);
		if (got < 0 && (errno == ENOSYS || errno == EPERM))
			atomic_store_explicit(&vm_readv_ok, 0, memory_order_relaxed);
	}
	if (!atomic_load_explicit(&vm_readv_ok, memory_order_relaxed))
		got = (ssize_t)read_pipe(addr, out, n, page);
	errno = saved;
	return got > 0 ? (size_t)got : 0;
}

/* n bytes at addr of this process, without faulting: false when any is unreadable. */
static bool ps_fetch_read(uintptr_t addr, void *out, size_t n)
{
	return addr && read_mem(addr, out, n) == n;
}

/* The string at v into buf (PATCHSITE_EVENT_STR_MAX + 1 bytes): what the recorder is given. */
static uint64_t fetch_string(uint64_t v, char *buf)
{
	static const char fault[] = "(fault)";
	size_t got;

	if (!v)
		return 0;	/* the recorder's "(null)" */
	got = read_mem((uintptr_t)v, buf, PS_FETCH_STR_BYTES - 1);
	if (!memchr(buf, '\0', got) && got < PS_FETCH_STR_BYTES - 1) {
		memcpy(buf, fault, sizeof(fault));	/* unreadable before its end */
		return (uint64_t)(uintptr_t)buf;
	}
	buf[got] = '\0';	/* longer than the cap: the recorder cuts and says so */
	return (uint64_t)(uintptr_t)buf;
}

/* $comm: the calling thread's name (the kernel's: the task's comm), into buf. */
static uint64_t fetch_comm(char *buf)
{
	char name[16] = "";	/* the kernel's TASK_COMM_LEN */
	int saved = errno;

	if (prctl(PR_GET_NAME, name, 0, 0, 0))
		snprintf(name, sizeof(name), "(fault)");
	errno = saved;
	snprintf(buf, PS_FETCH_STR_BYTES, "%.15s", name);
	return (uint64_t)(uintptr_t)buf;
}

/* A float's bits (the low 32) as the double's bits probes are handed. */
static uint64_t float_bits_to_double(uint64_t v)
{
	uint32_t b = (uint32_t)v;
	float x;
	double d;

	memcpy(&x, &b, 4);
	d = x;
	memcpy(&v, &d, 8);
	return v;
}

static bool base_value(const struct ps_fetch_arg *f, const struct patchsite_regs *r,
		       const uint64_t *ret, uint64_t *v)
{
	uintptr_t sp;

	switch (f->base) {
	case PF_RETVAL:		/* a float or double is in the vector register, unless dereferenced */
		*v = ret[(f->type == PT_FLOAT || f->type == PT_DOUBLE) && !f->nderef];
		return true;
	case PF_REG:
		*v = ps_regs_get(r, f->reg);
		return true;
	case PF_STACKADDR:
		*v = ps_regs_entry_sp(r);
		return true;
	case PF_STACK:
	case PF_STACK_ARG:
		sp = ps_regs_entry_sp(r);
		return ps_fetch_read(sp + 8 * f->v, v, 8);
	case PF_ADDR:
	case PF_SYM:	/* memory at the address; a string is the one there (no read) */
		if (f->type == PT_STRING && !f->nderef) {
			*v = f->v;
			return true;
		}
		return ps_fetch_read((uintptr_t)f->v, v, 8);
	default:	/* PF_IMM; PF_COMM's string is fetched by run() */
		*v = f->v;
		return true;
	}
}

/* Integer registers only (the common probe): no memory, no fault. */
static void run_regs(const struct ps_fetch_prog *p, const struct patchsite_regs *r, uint64_t *out)
{
	for (unsigned i = 0; i < p->n; i++) {
		const struct ps_fetch_arg *f = &p->a[i];
		unsigned sh = 64 - 8 * f->size;
		uint64_t v = ps_regs_get(r, f->reg) << sh;

		out[i] = f->type == PT_S ? (uint64_t)((int64_t)v >> sh) : v >> sh;
	}
}

/*
 * f's dereferences from the kth on, v the value so far.  Every one reads a
 * pointer but the last, which reads the value itself at its size; a
 * string's last is its address, not read (the kernel's: +8($arg1):string
 * is the string at $arg1 + 8).
 */
static bool deref(const struct ps_fetch_arg *f, unsigned k, unsigned last, uint64_t *v)
{
	for (; k < last; k++) {
		size_t sz = k + 1 < f->nderef ? 8 : f->size;
		uint64_t x = 0;

		if (k + 1 == f->nderef && f->type == PT_STRING) {
			*v += (uint64_t)f->deref[k];
			continue;
		}
		if (!ps_fetch_read((uintptr_t)(*v + (uint64_t)f->deref[k]), &x, sz))
			return false;
		*v = x;
	}
	return true;
}

int ps_fetch_entry(const struct ps_fetch_prog *p, const struct patchsite_regs *r, uint64_t *edata)
{
	for (unsigned i = 0; i < p->n; i++) {
		const struct ps_fetch_arg *f = &p->a[i];
		uint64_t v = 0;

		if (f->ent < 0)
			continue;
		if (!base_value(f, r, NULL, &v) || !deref(f, 0, f->ent_derefs, &v))
			return -EFAULT;
		edata[f->ent] = v;
	}
	return 0;
}

static int run(const struct ps_fetch_prog *p, const struct patchsite_regs *r, const uint64_t *ret,
	       const uint64_t *edata, uint64_t *out, char (*strs)[PS_FETCH_STR_BYTES])
{
	for (unsigned i = 0; i < p->n; i++) {
		const struct ps_fetch_arg *f = &p->a[i];
		bool kept = edata && f->ent >= 0;
		uint64_t v = kept ? edata[f->ent] : 0;

		if (!kept && !base_value(f, r, ret, &v))
			return -EFAULT;
		if (!deref(f, kept ? f->ent_derefs : 0, f->nderef, &v))
			return -EFAULT;
		if (f->base == PF_COMM)
			v = fetch_comm(strs[i]);
		else if (f->type == PT_STRING)
			v = fetch_string(v, strs[i]);
		else if (f->type == PT_FLOAT)
			v = float_bits_to_double(v);
		else if (f->size < 8 && f->type == PT_S)
			v = (uint64_t)((int64_t)(v << (64 - 8 * f->size)) >> (64 - 8 * f->size));
		else if (f->size < 8)
			v &= (1ull << (8 * f->size)) - 1;
		if (f->bw)	/* the kernel's: the container's bits bo .. bo + bw - 1 */
			v = (v >> f->bo) & (f->bw == 64 ? ~0ull : (1ull << f->bw) - 1);
		out[i] = v;
	}
	return 0;
}

int ps_fetch_run(const struct ps_fetch_prog *p, const struct patchsite_regs *r, uint64_t *out,
		 char (*strs)[PS_FETCH_STR_BYTES])
{
	static const uint64_t none[2];

	if (p->regs_only) {
		run_regs(p, r, out);
		return 0;
	}
	return run(p, r, none, NULL, out, strs);
}

int ps_fetch_run_ret(const struct ps_fetch_prog *p, const uint64_t ret[2], const uint64_t *edata,
		     uint64_t *out, char (*strs)[PS_FETCH_STR_BYTES])
{
	return run(p, NULL, ret, edata, out, strs);
}
