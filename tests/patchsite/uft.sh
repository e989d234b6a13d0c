#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Defects found by running uftrace's own test programs under patchsite (issue 40, 8.): each case
# a small program of the same shape, recorded by patchsite and by uftrace 0.13 (Debian's, the
# oracle) on the same binary, their replays compared.  usage: uft.sh BUILD_DIR plain|san
set -u
. "$PWD/tests/patchsite/lib.sh"
suite_init uft "$@"
SRC=$PWD/testdata/patchsite
command -v uftrace >/dev/null || { echo "FAIL uftrace not installed (scripts/deps.sh)"; exit 1; }
cd "$T" || exit 1

# by_task FILE: a replay's lines (uftrace's or ours) grouped by task, in the order the tasks
# first appear (uftrace interleaves them by time), each keyed by the last number before the
# first | (uftrace's [ TID], our TASK-PID), each task after a line " | ~task~".
by_task() {
	grep -v '^#' "$1" | awk -F'|' 'NF >= 2 { k = $1; sub(/[^0-9]*$/, "", k); sub(/.*[^0-9]/, "", k)
		if (!(k in n)) order[++tasks] = k; line[k, ++n[k]] = $0 }
		END { for (i = 1; i <= tasks; i++) { print " | ~task~"
			for (j = 1; j <= n[order[i]]; j++) print line[order[i], j] } }'
}

# same NAME DIR "OURS" "THEIRS" PROG [ARG...]: patchsite record OURS and uftrace record THEIRS
# (both without library calls) of PROG in DIR; their replays' nesting must be equal, task by
# task.
same() {
	name=$1 d=$2 ours=$3 theirs=$4
	shift 4
	# shellcheck disable=SC2086  # the options are words
	(cd "$d" && rm -rf uftrace.data p.data &&
	 uftrace record --no-libcall --no-event $theirs "$@" >u.out 2>u.err &&
	 uftrace replay --no-pager >u.replay 2>>u.err &&
	 record -d p.data --no-libcall $ours "$@" >p.out 2>p.err &&
	 "$PS" replay --no-sched -d p.data >p.replay 2>>p.err)
	same_trees "$name" "$d"
}

# same_trees NAME DIR: DIR's replays u.replay (uftrace's) and p.replay (ours) nest the same
# calls, task by task, and the program printed the same (u.out, p.out).  A call that another
# task's lines split in uftrace's ("waitpid() {" ... "}") is one line ("waitpid();") in both.
# SAME_FLAT=1: the calls in the same order, their depth not compared.
same_trees() {
	name=$1 d=$2
	by_task "$d/u.replay" >"$d/u.tasks"
	by_task "$d/p.replay" >"$d/p.tasks"
	for who in u p; do
		nesting "$d/$who.tasks" | awk '
			held != "" && $0 == d " }" { print held "();"; held = ""; next }
			held != "" { print held "() {"; held = "" }
			/\(\) \{$/ { d = $1; held = substr($0, 1, length($0) - 4); next }
			{ print }
			END { if (held != "") print held "() {" }' |
		if [ -n "${SAME_FLAT:-}" ]; then cut -d' ' -f2-; else cat; fi >"$d/$who.nest"
	done
	if [ -s "$d/u.nest" ] && cmp -s "$d/u.nest" "$d/p.nest" && cmp -s "$d/u.out" "$d/p.out"; then
		pass "$name: $(wc -l <"$d/p.nest") lines nested as uftrace's: $(cut -d' ' -f2- "$d/p.nest" | tr '\n' ' ' | cut -c1-70)"
	else
		{ echo "uftrace < > patchsite:"; diff "$d/u.nest" "$d/p.nest" | head -20
		  cat "$d/u.err" "$d/p.err"; } >"$d/why" 2>&1
		fail "$name against uftrace" "$d/why"
	fi
}

# values UFTRACE_REPLAY OUR_REPLAY [WRONG RIGHT]: the arguments ("FUNC args A, B") and return
# values ("FUNC = V") either replay shows, as numbers (uftrace prints them inline, patchsite as
# probe lines), must be the same; WRONG, one of uftrace's, is taken as RIGHT.
values() {
	python3 - "$@" <<'PY'
import re, sys

def values(path):
    out = set()
    for line in open(path):
        for f, a, r in re.findall(r"\b(\w+)\(([^)]*)\)(?: = ([^;* ]+))?", line.split("|")[-1]):
            if a:
                out.add(f"{f} args " + ", ".join(str(float(v.split("=")[-1])) for v in a.split(", ")))
            if r:
                out.add(f"{f} = {float(r)}")
        for r, f in re.findall(r"} = ([^;]+); /\* (\w+) \*/", line):	# uftrace's closing line
            out.add(f"{f} = {float(r)}")
        for f, r in re.findall(r"\(\S+ <- (\w+)\) \w+=([^ ]+) \*/", line):	# a return probe's line
            out.add(f"{f} = {float(r)}")
    return out

u, p = values(sys.argv[1]), values(sys.argv[2])
if len(sys.argv) > 4 and sys.argv[3] in u:
    u = u - {sys.argv[3]} | {sys.argv[4]}
print("uftrace:", sorted(u))
print("patchsite:", sorted(p))
sys.exit(u != p)
PY
}

# b. C++ names, demangled by the command whatever the process had loaded: a g++ program that
# --as-needed left without libstdc++, and the same code as a plugin a C program dlopens.
mkdir -p cxx
if g++ -O0 -pg -Wl,--as-needed -o cxx/prog "$SRC/mangled.cc" 2>cxx/build.log &&
   g++ -O0 -pg -fPIC -shared -Wl,--as-needed -o cxx/libmangled.so "$SRC/mangled.cc" 2>>cxx/build.log &&
   $CC -O0 -pg -o cxx/dlprog "$SRC/dlcxx.c" -ldl 2>>cxx/build.log; then
	if readelf -d cxx/prog cxx/libmangled.so | grep -q 'NEEDED.*libstdc++'; then
		fail "C++ without libstdc++: the build links libstdc++ (--as-needed ignored?)"
	else
		same "C++ names, no libstdc++ in the process" cxx "" "" ./prog
		(cd cxx && "$PS" report -d p.data >p.report 2>>p.err)
		if grep -q ' ns::S::get$' cxx/p.report && ! grep -q ' _Z' cxx/p.report; then
			pass "C++ names in report: ns::S::get, no mangled name"
		else
			fail "C++ names in report" cxx/p.report
		fi
		same "C++ names, a C program's dlopened plugin" cxx "" "" ./dlprog ./libmangled.so
	fi
else
	fail "build C++ programs" cxx/build.log
fi

# c. The runtime's own calls into a program that defines malloc/calloc/realloc/free (start-up,
# a forked child's new trace file, the end): none is the program's.  Each form, with a fork.
# Not under san: ASan, preloaded into the program, starts each thread by calling
# pthread_getattr_np, which calls the program's realloc with its lock held; that call's
# first event sets the thread up, which asks pthread_getattr_np again: a deadlock of two
# runtimes, each with a malloc the program replaced.  The calls are compared in order, not
# their depth: without library calls uftrace 0.13 draws a forked child's calls at depth 0,
# beside the "} /* main */" they are inside; patchsite nests them in main (i. below has the
# child's tree, against uftrace with fork traced, which nests them too).
[ "$MODE" = san ] && echo "SKIP program's malloc under san: ASan's thread start-up calls it"
for form in "-finstrument-functions" "-pg" "-pg -mfentry -mrecord-mcount"; do
	[ "$MODE" = san ] && break
	d=own$(echo "$form" | tr -d ' -')
	mkdir -p "$d"
	# shellcheck disable=SC2086  # the flags are words
	if $CC -O0 $form -o "$d/prog" "$SRC/ownmalloc.c" 2>"$d/build.log"; then
		SAME_FLAT=1 same "program's malloc, $form, forked" "$d" "" "" ./prog fork
	else
		fail "build ownmalloc $form" "$d/build.log"
	fi
done

# d. Values with -A/-R formats: signed 32-bit arguments and return values, a float and a
# double return value, two -A specs of one function merged.  Oracle: uftrace on the same
# binary (its values; it prints them inline, patchsite as probe lines), and for the float,
# whose value uftrace 0.13 prints as 0.000000, the program's own by construction (1.5).
mkdir -p val
if $CC -O0 -pg -o val/prog "$SRC/negret.c" 2>val/build.log; then
	(cd val && rm -rf uftrace.data &&
	 uftrace record --no-libcall --no-event -A neg@arg1/i32 -A neg@arg2/i32 -R neg@retval/i32 \
		-R half@retval/f32 -R twice@retval/f64 ./prog >/dev/null 2>u.err && uftrace replay --no-pager >u.replay 2>>u.err &&
	 record -d p.data --no-libcall -A neg@arg1/i32 -A neg@arg2/i32 -R neg@retval/i32 \
		-R half@retval/f32 -R twice@retval/f64 ./prog >/dev/null 2>p.err &&
	 "$PS" replay --no-sched -d p.data >p.replay 2>>p.err)
	values val/u.replay val/p.replay "half = 0.0" "half = 1.5" >val/cmp 2>&1
	if [ $? -eq 0 ] && [ ! -s val/p.err ]; then
		pass "-A/-R formats: $(tail -1 val/cmp)"
	else
		cat val/u.err val/p.err val/p.replay >>val/cmp
		fail "-A/-R formats against uftrace" val/cmp
	fi
else
	fail "build negret" val/build.log
fi

# e. record -a of a plain gcc -pg -g program (it calls mcount@GLIBC_2.2.5): its functions are
# traced with their arguments and return values, with or without library calls; the values
# as uftrace -a's on the same binary.
if $CC -O0 -g -pg -o val/pg "$SRC/negret.c" 2>val/build.log; then
	(cd val && rm -rf uftrace.data a.data &&
	 uftrace record --no-libcall --no-event -a ./pg >/dev/null 2>ua.err &&
	 uftrace replay --no-pager >ua.replay 2>>ua.err &&
	 record -d a.data --no-libcall -a ./pg >/dev/null 2>pa.err &&
	 "$PS" replay --no-sched -d a.data >pa.replay 2>>pa.err &&
	 record -d a2.data -a ./pg >/dev/null 2>pa2.err)
	values val/ua.replay val/pa.replay >val/acmp 2>&1
	if [ $? -eq 0 ] && [ ! -s val/pa.err ] && ! grep -q 'library calls only' val/pa2.err; then
		pass "record -a of a gcc -pg program, --no-libcall: $(tail -1 val/acmp)"
	else
		cat val/ua.err val/pa.err val/pa2.err val/pa.replay >>val/acmp
		fail "record -a of a gcc -pg program" val/acmp
	fi
else
	fail "build negret -g -pg" val/build.log
fi

# f. -G FUNC with tracing off at start and a traceon trigger inside FUNC (testdata's
# lto_main.c: main calls step 16 times, step calls lib_scale): the calls after the traceon
# are recorded as without -G.  Oracle: uftrace --disable -T lib_scale@traceon -F main on the
# -finstrument-functions build (uftrace keeps its depth while disabled; on a -pg build it
# also closes the step() open at the traceon, whose return patchsite did not hook: there the
# oracle is patchsite's own record without -G, which follows the same calls, and main's exit,
# whose return -G hooked, closes the -G record as it closes uftrace's).
mkdir -p trig
if PATCHSITE_CC=$CC "${PS%/*}/patchsite-cc" -O0 -finstrument-functions -o trig/cyg "$SRC/lto_main.c" \
	"$SRC/lto_lib.c" >trig/build.log 2>&1 &&
   $CC -O0 -pg -o trig/pg "$SRC/lto_main.c" "$SRC/lto_lib.c" 2>>trig/build.log; then
	export PATCHSITE_TRACING_ON=0 PATCHSITE_TRIGGER=lib_scale:traceon
	same "-G main, tracing off, traceon inside (-finstrument-functions)" trig "-G main" \
		"--disable -T lib_scale@traceon -F main" ./cyg
	(cd trig && record -d g.data --no-libcall -G main ./pg >/dev/null 2>g.err &&
	 record -d n.data --no-libcall ./pg >/dev/null 2>>g.err &&
	 "$PS" replay --no-sched -d g.data >g.replay 2>>g.err &&
	 "$PS" replay --no-sched -d n.data >n.replay 2>>g.err)
	unset PATCHSITE_TRACING_ON PATCHSITE_TRIGGER
	nesting trig/g.replay >trig/g.nest
	nesting trig/n.replay >trig/n.nest
	sed '$d' trig/g.nest >trig/g.body
	if [ "$(wc -l <trig/g.nest)" -gt 20 ] && cmp -s trig/g.body trig/n.nest &&
	   [ "$(tail -1 trig/g.nest)" = "0 }" ] && [ ! -s trig/g.err ]; then
		pass "-G main, tracing off, traceon inside (-pg): $(wc -l <trig/g.body) lines as without -G, then main's exit"
	else
		{ diff trig/n.nest trig/g.nest | head -20; cat trig/g.err; } >trig/why
		fail "-G main, tracing off, traceon inside (-pg)" trig/why
	fi
else
	fail "build lto_main" trig/build.log
fi

# g. tracing_thresh with -A: a call dropped as short takes its arguments' probe record with it
# (it is written before the call's entry).  Oracle: uftrace -t on the same binary, whose
# replay shows only the kept calls' arguments, in the call line as ours (no probe's line
# left: each went with its call; threshargs.c: quick() is never kept).
mkdir -p thr
if $CC -O0 -pg -o thr/prog "$SRC/threshargs.c" 2>thr/build.log; then
	(cd thr && rm -rf uftrace.data p.data &&
	 uftrace record --no-libcall --no-event -t 10ms -A quick@arg1 -A slow@arg1 ./prog \
		>/dev/null 2>u.err && uftrace replay --no-pager >u.replay 2>>u.err &&
	 PATCHSITE_THRESH=10000 record -d p.data --no-libcall -A quick@arg1 -A slow@arg1 ./prog \
		>/dev/null 2>p.err && "$PS" replay --no-sched -d p.data >p.replay 2>>p.err)
	values thr/u.replay thr/p.replay >thr/cmp 2>&1
	ok=$?
	if grep -q 'args:' thr/p.replay; then echo 'a probe line left' >>thr/cmp; ok=1; fi
	if [ $ok -eq 0 ] && ! grep -q quick thr/p.replay && [ "$(grep -c 'slow([0-9]*);' thr/p.replay)" -eq 3 ]; then
		pass "tracing_thresh with -A: no dropped call's arguments; $(tail -1 thr/cmp)"
	else
		cat thr/u.err thr/p.err thr/p.replay >>thr/cmp
		fail "tracing_thresh with -A against uftrace -t" thr/cmp
	fi
else
	fail "build threshargs" thr/build.log
fi

# h. -finstrument-functions -O2 with traceoff/traceon triggers: mem_alloc's exit hook, reached
# by a jump after its epilogue, has its frame where foo's enter hook had its own; it ended foo
# there (foo shown returning before mem_free, which it calls, and an extra `} /* main */`).
# Oracle: uftrace -T mem_alloc@traceoff -T mem_free@traceon on the same binary.
mkdir -p cygtail
if $CC -O2 -finstrument-functions -o cygtail/prog "$SRC/cygtail.c" 2>cygtail/build.log; then
	export PATCHSITE_TRIGGER="mem_alloc:traceoff mem_free:traceon"
	same "-finstrument-functions -O2, traceoff/traceon, exit hooks jumped to" cygtail "" \
		"-T mem_alloc@traceoff -T mem_free@traceon" ./prog
	unset PATCHSITE_TRIGGER
else
	fail "build cygtail" cygtail/build.log
fi

# i. A forked child's tree (issue 42; uftrace's own t008 fork and t009 daemon): the child
# returns from fork() or daemon() inside the calls open at the fork (its trace starts there:
# "} /* fork */" at their depth), its own calls nested inside them, then their returns.
# testdata's forktree.c knows its calls (its comment); oracle: uftrace -F main on the same
# binary, whose child tree is that.  Library calls recorded (fork and daemon are).  The
# output goes through a pipe: its reader ends when the daemon child does (it keeps stdout).
mkdir -p fork
if $CC -O0 -pg -o fork/prog "$SRC/forktree.c" 2>fork/build.log; then
	for how in fork daemon; do
		(cd fork && rm -rf uftrace.data p.data &&
		 { uftrace record --no-event -F main ./prog $how 2>u.err | cat >u.out; } &&
		 uftrace replay --no-pager >u.replay 2>>u.err &&
		 { record -d p.data -G main ./prog $how 2>p.err | cat >p.out; } &&
		 "$PS" replay --no-sched -d p.data >p.replay 2>>p.err)
		if grep -q "} /\* $how \*/" fork/u.replay; then
			same_trees "a forked child's tree ($how)" fork
		else
			fail "$how: uftrace shows no child returning from $how" fork/u.replay
		fi
	done
else
	fail "build forktree" fork/build.log
fi

echo "$PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
