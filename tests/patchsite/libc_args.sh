#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Arguments and return values of library calls (record -a's prototype list,
# names in --probe for a libc function): usage  libc_args.sh BUILD_DIR plain|san
#
# Oracles:
#   - an rtld-audit library (LD_AUDIT, la_x86_64_gnu_pltenter, written here)
#     prints the six argument registers of each PLT call of the executable,
#     and the string each one points to where it is readable; the
#     arguments the trace shows must be those registers: integers equal (an
#     int's low 32 bits), strings equal to what the register points to,
#     pointers into the non-PIE executable equal, other pointers (heap,
#     stack, libc's FILEs: they move when the runtime is preloaded) in the
#     same pattern of equalities as the audit's (free gets what realloc
#     got back);
#   - the program itself (testdata/patchsite/libc_args.c) prints each value
#     a call returned: the trace's return values must be those;
#   - the C standard's and POSIX's signatures for the names: a name the
#     prototype has not is refused by name, and so is a member or a void
#     function's $retval.
set -u
. tests/patchsite/lib.sh	# suite_init (TESTS too), record, pass, fail
suite_init libc_args "${1:-build}" "${2:-plain}"
SRC="$PWD/testdata/patchsite/libc_args.c"
TOP=$PWD

only_x86_64 libc_args.sh "the audit oracle is x86-64's"
cd "$T" || exit 1

cat > audit.c <<'AUDIT'
#define _GNU_SOURCE
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static FILE *out;
static int pipefd[2];

unsigned int la_version(unsigned int v)
{
	const char *p = getenv("AUDIT_OUT");

	if (p)
		out = fopen(p, "w");
	if (pipe(pipefd))
		out = NULL;
	return v < LAV_CURRENT ? v : LAV_CURRENT;
}

unsigned int la_objopen(struct link_map *map, Lmid_t lmid, uintptr_t *cookie)
{
	(void)lmid, (void)cookie;
	return map->l_name[0] == '\0' ? LA_FLG_BINDFROM | LA_FLG_BINDTO : LA_FLG_BINDTO;
}

/*
 * The string at v, when the memory there reads, else "-": each byte through a
 * pipe (write says EFAULT where a load would fault; qemu-user has no
 * process_vm_readv).
 */
static void string_at(unsigned long v)
{
	char buf[256];
	size_t n = 0;

	while (v >= 4096 && n < sizeof(buf) &&
	       write(pipefd[1], (const char *)v + n, 1) == 1 && read(pipefd[0], &buf[n], 1) == 1)
		if (!buf[n++])
			break;
	if (!n || buf[n - 1]) {
		fputs("\t-", out);
		return;
	}
	fputc('\t', out);
	for (char *c = buf; *c; c++)	/* one line a call: other bytes as '.' */
		fputc(*c >= ' ' && *c <= '~' ? *c : '.', out);
}

static void log_call(const char *symname, const unsigned long r[6])
{
	if (!out)
		return;
	fputs(symname, out);
	for (int i = 0; i < 6; i++)
		fprintf(out, "\t%#lx", r[i]);
	for (int i = 0; i < 6; i++)
		string_at(r[i]);
	fputc('\n', out);
	fflush(out);
}

#if defined(__aarch64__)	/* tests/patchsite-qemu/libc_args.sh's, under qemu */
ElfW(Addr) la_aarch64_gnu_pltenter(ElfW(Sym) *sym, unsigned int ndx, uintptr_t *refcook,
				   uintptr_t *defcook, La_aarch64_regs *regs, unsigned int *flags,
				   const char *symname, long int *framesizep)
{
	unsigned long r[6] = { regs->lr_xreg[0], regs->lr_xreg[1], regs->lr_xreg[2],
			       regs->lr_xreg[3], regs->lr_xreg[4], regs->lr_xreg[5] };

	(void)ndx, (void)refcook, (void)defcook, (void)flags, (void)framesizep;
	log_call(symname, r);
	return sym->st_value;
}
#else
Elf64_Addr la_x86_64_gnu_pltenter(Elf64_Sym *sym, unsigned int ndx, uintptr_t *refcook,
				  uintptr_t *defcook, La_x86_64_regs *regs, unsigned int *flags,
				  const char *symname, long *framesizep)
{
	unsigned long r[6] = { regs->lr_rdi, regs->lr_rsi, regs->lr_rdx, regs->lr_rcx,
			       regs->lr_r8, regs->lr_r9 };

	(void)ndx, (void)refcook, (void)defcook, (void)flags, (void)framesizep;
	log_call(symname, r);
	return sym->st_value;
}
#endif
AUDIT
gcc -shared -fPIC -O1 -o audit.so audit.c >build.log 2>&1 || { fail "build audit.so" build.log; exit 1; }


WANT="malloc calloc realloc free memcpy memset memcmp strlen strcmp strchr strstr strtol open read
close write fopen fclose puts snprintf printf pthread_mutex_lock pthread_mutex_unlock nanosleep
pthread_create pthread_join qsort fflush"
# build CC EXE: -O1 -g -pg -mfentry, non-PIE, lazy (the audit sees lazy PLT calls only);
# clang's mcount locations by our recordmcount, as make's own builds do.
build() {
	if [ "$1" = clang ]; then
		clang -O1 -g -pg -mfentry -fno-builtin -fno-PIE -c "$SRC" -o "$2.o" &&
			"$TOP/$B/recordmcount" "$2.o" &&
			clang -no-pie -Wl,-z,lazy -pthread -o "$2" "$2.o"
	else
		gcc -O1 -g -pg -mfentry -mrecord-mcount -fno-builtin -fno-PIE -no-pie -Wl,-z,lazy \
			-pthread -o "$2" "$SRC"
	fi
}
# audit EXE: the audit oracle's run of EXE into audit.txt.  Once in a CI run it missed the
# calls around pthread_create (the printf before and pthread_join): the program's calls are
# the same every run, so a run counts when the one before it saw the same calls (at most
# three runs, said when more than two).
audit() {
	for try in 1 2 3; do
		AUDIT_OUT="$T/audit.txt" LD_AUDIT="$T/audit.so" LD_PRELOAD="$SANPRE" ./$1 > audit.out
		cut -f1 audit.txt > "audit.names.$try"
		[ $try -gt 1 ] && cmp -s "audit.names.$try" "audit.names.$((try - 1))" && break
		[ $try -gt 1 ] && echo "NOTE audit oracle: runs $((try - 1)) and $try saw different calls; again"
	done
}
for cc in gcc clang; do
	if ! command -v $cc >/dev/null 2>&1; then
		echo "SKIP $cc: not installed"
		continue
	fi
	exe=la-$cc
	build $cc $exe >build.log 2>&1 || { fail "$cc: build" build.log; continue; }
	audit $exe
	for tracer in nop function_graph; do
		rm -rf d
		if ! record -d d --tracer=$tracer -a ./$exe > out 2>err; then
			fail "$cc $tracer: record -a" err
			continue
		fi
		"$PS" replay --no-sched -d d > trace 2>&1
		if python3 "$TESTS/oracles/libc_args_compare.py" audit.txt trace out "$WANT" "$WANT" \
			> cmp.txt; then
			pass "$cc $tracer: record -a's library calls equal the audit's registers and the program's returns: $(tail -1 cmp.txt)"
		else
			fail "$cc $tracer: record -a's library calls differ from the oracles" cmp.txt
		fi
	done
done
# Built without -pg: the program's functions have no sites, its library calls are traced;
# -a says so and gives the library calls their arguments all the same.
if gcc -O1 -g -fno-builtin -fno-PIE -no-pie -Wl,-z,lazy -pthread -o la-nopg "$SRC" \
	>build.log 2>&1; then
	audit la-nopg
	rm -rf d
	if ! record -d d --tracer=nop -a ./la-nopg > out 2>err; then
		fail "without -pg: record -a" err
	elif ! grep -q "its functions have no sites (built without -pg): library calls only" err; then
		fail "without -pg: record -a does not say the program's functions are left out" err
	else
		"$PS" replay --no-sched -d d > trace 2>&1
		if python3 "$TESTS/oracles/libc_args_compare.py" audit.txt trace out "$WANT" "$WANT" \
			> cmp.txt; then
			pass "without -pg: record -a said so, and its library calls equal the oracles': $(tail -1 cmp.txt)"
		else
			fail "without -pg: record -a's library calls differ from the oracles" cmp.txt
		fi
	fi
else
	fail "gcc without -pg: build" build.log
fi

# The rest on gcc's -pg build (audit.txt was another's: made again).
exe=la-gcc
audit $exe

# Names in --probe for a library function, and -R typed by its prototype.
rm -rf d
if record -d d --tracer=nop --probe='f:auto/strcmp strcmp s1 s2' \
	--probe='f:auto/open open path=pathname flags' --probe='f:auto/read read fd buf count:u16' \
	-R close@retval ./$exe > out 2>err; then
	"$PS" replay --no-sched -d d > trace 2>&1
	if python3 "$TESTS/oracles/libc_args_compare.py" audit.txt trace out "strcmp open read" > cmp.txt &&
	   grep -q '<- close) arg1=-1' trace; then
		pass "names of a libc function's parameters in --probe: $(tail -1 cmp.txt)"
	else
		fail "names of a libc function's parameters in --probe" cmp.txt
	fi
else
	fail "--probe with a libc function's parameter names" err
fi

# Conditions on a library call's arguments by name (-F 'malloc if size > 100'): the calls
# kept are those whose registers, as the audit saw them, meet the condition.
rm -rf d
if record -d d --tracer=function -F 'malloc if size > 100' -F 'realloc if size == 4000' \
	-F 'calloc if nmemb == 4' ./$exe > out 2>err; then
	"$PS" replay --no-sched -d d | sed -n 's/.*: \([a-z]*\) <-.*/\1/p' | sort | uniq -c > got
	python3 -c 'import sys
for l in open(sys.argv[1]):
    f = l.split("\t")
    r = [int(x, 16) for x in f[1:4]]
    if (f[0] == "malloc" and r[0] > 100) or (f[0] == "realloc" and r[1] == 4000) or \
       (f[0] == "calloc" and r[0] == 4):
        print(f[0])' audit.txt | sort | uniq -c > want
	if [ -s want ] && cmp -s got want; then
		pass "conditions on a libc function's arguments by name: $(tr -s ' \n' ' ' < got)as the audit's registers"
	else
		diff want got > diff.txt
		fail "conditions on a libc function's arguments by name" diff.txt
	fi
else
	fail "-F with conditions on a libc function's arguments" err
fi

# `patchsite ctl PID dynamic_events` with names: a library call's (write fd buf count, from
# the prototype list) and a function of the program's (emit word len, from its DWARF),
# resolved by the command before the runtime gets them, written while the program waits on
# its stdin.  Oracle: the audit's registers of the same program's write calls (emit passes
# its word and len on to write; non-PIE, so the addresses are the same in both runs).
cat > lw.c <<'EOF2'
#include <stdio.h>
#include <string.h>
#include <unistd.h>
__attribute__((noinline)) int emit(const char *word, unsigned len)
{
	return write(2, word, len) < 0;
}
int main(void)
{
	static const char *const words[] = { "alpha", "be", "gamma-delta" };
	char line[64];

	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))	/* the probes are written while this waits */
		return 1;
	for (int i = 0; i < 3; i++)
		if (emit(words[i], (unsigned)strlen(words[i])))
			return 1;
	return 0;
}
EOF2
# ctl_run DEF...: lw recorded; each DEF appended through ctl and enabled; lw let go.
ctl_run() {
	rm -rf d fifo lw.out
	mkfifo fifo
	record -d d --tracer=nop ./lw <fifo >lw.out 2>lw.err &
	rpid=$!
	exec 3>fifo
	for _ in $(seq 200); do grep -q '^ready' lw.out && break; sleep 0.1; done
	lpid=$(sed -n 's/^ready //p' lw.out)
	: >ctl.err
	for def in "$@"; do
		"$PS" ctl --append "$lpid" dynamic_events "$def" >>ctl.err 2>&1 ||
			echo "exit $? for $def" >>ctl.err
		ev=${def#f:}
		"$PS" ctl "$lpid" "events/${ev%% *}/enable" 1 >/dev/null 2>&1
	done
	echo go >&3
	exec 3>&-
	wait "$rpid"
}
if gcc -O1 -g -pg -mfentry -mrecord-mcount -fno-builtin -fno-PIE -no-pie -Wl,-z,lazy -o lw lw.c \
	>build.log 2>&1; then
	echo go | AUDIT_OUT="$T/lw.audit" LD_AUDIT="$T/audit.so" ./lw >/dev/null 2>&1
	awk -F'\t' '$1 == "write" { printf "write(fd=%d, buf=%s, count=%d)\n", $2, $3, $4
		printf "emit(word=\"%s\", len=%d)\n", $9, $4 }' lw.audit | sort >want
	ctl_run 'f:l/w write fd buf count' 'f:l/e emit word len'
	"$PS" replay --no-sched -d d 2>&1 | sed -n 's/.* l:[we]: //p' | sort >got
	if [ ! -s ctl.err ] && [ "$(wc -l <want)" = 6 ] && cmp -s want got; then
		pass "ctl PID dynamic_events with names (a libc call's, the program's from DWARF): $(wc -l <got) calls as the audit's registers"
	else
		{ cat ctl.err; diff want got; } >diff.txt
		fail "ctl PID dynamic_events with names" diff.txt
	fi
	ctl_run 'f:l/w write fd len'
	if grep -q "^patchsite: ctl: dynamic_events: 'f:l/w write fd len': .*has no 'len'" ctl.err &&
	   grep -q '^exit 1 for' ctl.err && [ "$(grep -c . ctl.err)" = 2 ] && grep -q 'gamma-delta' lw.err; then
		pass "ctl: a name the prototype has not refused in one line, exit 1; the program ran on"
	else
		fail "ctl: a bad name" ctl.err
	fi
else
	fail "lw: build" build.log
fi

# Refused by name: what the prototype does not have.
refused() {
	if record -d d --tracer=nop "$@" ./$exe > /dev/null 2>err; then
		fail "$1: not refused"
	elif grep -q "$REASON" err && [ "$(wc -l < err)" -eq 1 ]; then
		pass "refused in one line: $1"
	else
		fail "$1: refused without its reason ($REASON)" err
	fi
}
REASON="prototype (s) has no 'len'"; refused --probe='f strlen len'
REASON="members are not known"; refused --probe='f fclose stream->_flags'
REASON="returning void"; refused --probe='f free%return $retval'

echo "libc_args.sh: $PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
