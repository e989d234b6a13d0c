#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The control channel and `patchsite ctl`: usage  ctl.sh BUILD_DIR plain|san
#
# A threaded sample (testdata/patchsite/ctlspin.c) is started untraced but
# ready (libpatchsite preloaded, no PATCHSITE_TRACER) and driven from
# outside.  The oracle for every count is the sample itself: it counts
# its own calls of alpha(), beta() and gamma_leaf() per phase ("done A B
# C"); the trace must hold exactly those calls of the functions selected
# and none of the others.  The list of control files is the one the
# task names (ftrace's tracefs names); error cases check the exit status
# and that the program runs on.
set -u
. tests/patchsite/lib.sh	# suite_init, pass, fail
suite_init ctl "${1:-build}" "${2:-plain}"
trap '' PIPE	# a sample that died is a failure to report, not a signal that ends this script
POKE="python3 $PWD/tests/patchsite/oracles/ctlpoke.py"
PRELOAD="$PATCHSITE_LIB"
SANFLAGS=
NTH=4
if [ "$MODE" = san ]; then
	SANFLAGS="-fsanitize=address,undefined -fno-sanitize-recover=all"
	PRELOAD="$SANPRE $PRELOAD"
fi


$CC -O2 -g -pg -mfentry -mrecord-mcount $SANFLAGS -c testdata/patchsite/ctlspin.c -o "$T/ctlspin.o" \
	>"$T/build.log" 2>&1 && $CC $SANFLAGS -o "$T/ctlspin" "$T/ctlspin.o" -pthread >>"$T/build.log" 2>&1 ||
	{ fail "build ctlspin" "$T/build.log"; echo "0 passed, 1 failed"; exit 1; }
$CC -O1 -g -pg -mfentry -mrecord-mcount -Iinclude -Itestdata/patchsite/drivers $SANFLAGS -c testdata/patchsite/drivers/ctlapi.c \
	-o "$T/ctlapi.o" >"$T/build.log" 2>&1 &&
	$CC $SANFLAGS -o "$T/ctlapi" "$T/ctlapi.o" "$PWD/$B/libpatchsite.so" -Wl,-rpath,"$PWD/$B" >>"$T/build.log" 2>&1 ||
	{ fail "build ctlapi" "$T/build.log"; echo "0 passed, 1 failed"; exit 1; }
$CC -O2 -shared -fPIC testdata/patchsite/ctlgate.c -o "$T/libgate.so" >"$T/build.log" 2>&1 ||
	{ fail "build libgate.so" "$T/build.log"; echo "0 passed, 1 failed"; exit 1; }
cd "$T" || exit 1
mkdir -m 700 xdg

# The files and getters from inside a program.
if ./ctlapi >api.out 2>&1 && grep -q '^ctlapi: ok' api.out; then
	pass "API: $(grep -c '^PASS' api.out) checks (getters, patchsite_ctl_read/write, a filter kept across a tracer switch)"
else
	fail "API" api.out
fi

# wait_for FILE PATTERN: up to 20 s for a line matching PATTERN.
ctl() { if [ "$1" = --append ]; then shift; "$PS" ctl --append "$SPID" "$@"; else "$PS" ctl "$SPID" "$@"; fi; }
alive() { kill -0 "$SPID" 2>/dev/null; }

mkfifo in
XDG_RUNTIME_DIR=$T/xdg LD_PRELOAD="$PRELOAD" ./ctlspin $NTH <in >out 2>err &
SPID=$!
exec 3>in
SOCK=$T/xdg/patchsite/$SPID.sock
if wait_for out '^ready' && for _ in $(seq 100); do [ -S "$SOCK" ] && break; sleep 0.1; done &&
   [ -S "$SOCK" ] && [ "$(stat -c %a xdg/patchsite)" = 700 ] && [ "$(stat -c %a "$SOCK")" = 600 ]; then
	pass "untraced but ready: $SOCK (socket 0600 in a 0700 directory)"
else
	fail "no control socket at $SOCK" err
	echo "$PASS passed, $FAIL failed"
	exit 1
fi

# Every file of the core table, listed with a description.
ctl_files="current_tracer available_tracers tracing_on set_ftrace_filter set_ftrace_notrace
set_graph_function max_graph_depth buffer_size_kb available_filter_functions enabled_functions
trace_dir"
"$PS" ctl --list "$SPID" >list 2>lerr
miss=
for f in $ctl_files; do grep -q "^$f	..*" list || miss="$miss $f"; done
if [ -z "$miss" ]; then pass "--list: all $(echo $ctl_files | wc -w) core files with a description"
else fail "--list misses$miss" list; fi

# Defaults, read.
got="$(ctl current_tracer)|$(ctl tracing_on)|$(ctl set_ftrace_filter)|$(ctl set_ftrace_notrace)|$(ctl set_graph_function)|$(ctl max_graph_depth)|$(ctl buffer_size_kb)|$(ctl available_tracers)|$(ctl trace_dir)"
want="nop|1|#### all functions enabled ####||#### all functions enabled ####|1024|1024|latency function_profile function_graph function nop|"
if [ "$got" = "$want" ]; then pass "defaults: $got"; else echo "$got" >got; fail "defaults" got; fi

# trace_options takes ftrace's names (Documentation/trace/ftrace.rst: sleep-time,
# funcgraph-tail, ... with no before to clear): the same table as replay --options (live.sh,
# sched.sh check what each does); graph-time, ftrace's and not taken here, refused by name.
ctl trace_options 'nosleep-time funcgraph-tail nofuncgraph-cpu' 2>terr; rc1=$?
t1=$(ctl trace_options | tr '\n' ' ')
ctl trace_options nograph-time 2>terr2; rc2=$?
ctl trace_options 'sleep-time nofuncgraph-tail funcgraph-cpu' 2>>terr; rc3=$?
t2=$(ctl trace_options | tr '\n' ' ')
if [ $rc1 = 0 ] && [ $rc3 = 0 ] && [ ! -s terr ] && [ $rc2 != 0 ] &&
   [ "$t1" = "print-parent nosym-offset funcgraph-proc nofuncgraph-abstime nosleep-time nofuncgraph-cpu funcgraph-duration funcgraph-overhead funcgraph-tail nooverwrite " ] &&
   [ "$t2" = "print-parent nosym-offset funcgraph-proc nofuncgraph-abstime sleep-time funcgraph-cpu funcgraph-duration funcgraph-overhead nofuncgraph-tail nooverwrite " ] &&
   grep -q "'nograph-time': no such option (print-parent, sym-offset, funcgraph-proc, funcgraph-abstime, sleep-time, funcgraph-cpu, funcgraph-duration, funcgraph-overhead, funcgraph-tail, overwrite" terr2; then
	pass "trace_options: ftrace's names set and cleared (nosleep-time, funcgraph-tail, nofuncgraph-cpu); $(head -1 terr2)"
else
	{ echo "rc $rc1 $rc2 $rc3"; echo "$t1"; echo "$t2"; cat terr terr2; } >tout
	fail "trace_options" tout
fi

# available_filter_functions: every name is a function symbol of the program (nm is the oracle).
ctl available_filter_functions >aff
nm ctlspin | awk '$2 ~ /^[Tt]$/ { print $3 }' | sort -u >syms
sed -n 's/ \[ctlspin\]$//p' aff | sort -u >affsyms
if grep -qx 'alpha' affsyms && grep -qx 'beta' affsyms && grep -qx 'gamma_leaf' affsyms &&
   [ -z "$(comm -23 affsyms syms)" ]; then
	pass "available_filter_functions: $(wc -l <affsyms) functions of ctlspin, all in its symbol table"
else
	fail "available_filter_functions" aff
fi

# Filter editing: write replaces, append adds, !glob removes, a typo changes nothing.
ctl set_ftrace_filter 'alpha beta' && ctl --append set_ftrace_filter 'gamma*' && s1=$(ctl set_ftrace_filter | sort | tr '\n' ' ')
ctl --append set_ftrace_filter '!beta' && s2=$(ctl set_ftrace_filter | sort | tr '\n' ' ')
ctl set_ftrace_filter 'nosuch_function' 2>typo; rc=$?
s3=$(ctl set_ftrace_filter | sort | tr '\n' ' ')
if [ "$s1" = "alpha [ctlspin] beta [ctlspin] gamma_leaf [ctlspin] " ] &&
   [ "$s2" = "alpha [ctlspin] gamma_leaf [ctlspin] " ] && [ $rc -eq 1 ] && [ "$s3" = "$s2" ] &&
   grep -q "pid $SPID: .*no traceable function matches 'nosuch_function'" typo; then
	pass "set_ftrace_filter: replace, append, !glob, typo refused and nothing changed"
else
	printf '%s\n%s\n%s\nrc %s\n' "$s1" "$s2" "$s3" "$rc" >got; cat typo >>got; fail "filter editing" got
fi
# A filter command through set_ftrace_filter (trigger.c): listed as ftrace lists it, removed
# with !, the function filter untouched (ftrace's documented syntax is the oracle).
ctl --append set_ftrace_filter 'alpha:traceon:2' 2>fcmd && f1=$(ctl set_ftrace_filter | sort | tr '\n' ' ') &&
ctl --append set_ftrace_filter '!alpha:traceon' 2>>fcmd && f2=$(ctl set_ftrace_filter | sort | tr '\n' ' ')
if [ "$(printf '%s' "${f1:-}" | sed 's/alpha:traceon:count=2 //')" = "$s2" ] &&
   [ "${f1:-}" != "$s2" ] && [ "${f2:-}" = "$s2" ]; then
	pass "set_ftrace_filter: alpha:traceon:2 listed as alpha:traceon:count=2, !alpha:traceon removes it"
else
	printf '%s\n%s\n' "${f1:-}" "${f2:-}" >>fcmd; fail "filter command" fcmd
fi

# A condition on arguments (events/filter_if.c; tests/patchsite/filter_if.sh counts the calls
# against gdb): listed as written with its fields, the function out of the plain selection;
# a plain write takes it away again.
ctl set_ftrace_filter 'alpha if arg1 < 3' 2>cond && c1=$(ctl set_ftrace_filter | tr '\n' ' ') &&
ctl set_ftrace_filter 'alpha gamma*' 2>>cond && c2=$(ctl set_ftrace_filter | sort | tr '\n' ' ')
case ${c1:-} in
"alpha arg1:s64 arg2:s64 arg3:s64 arg4:s64 arg5:s64 arg6:s64 if arg1 < 3 ")
	if [ "${c2:-}" = "$s2" ]; then
		pass "set_ftrace_filter 'alpha if arg1 < 3': listed with its fields; a plain write removes it"
	else
		printf '%s\n' "${c2:-}" >>cond; fail "filter condition removed" cond
	fi ;;
*) printf '%s\n' "${c1:-}" >>cond; fail "filter condition listed" cond ;;
esac

# Every file written: good values take, bad ones are refused with one line, exit 1.
bad=0
for kv in "tracing_on:x" "tracing_on:-1" "max_graph_depth:2000" "max_graph_depth:a" \
	  "buffer_size_kb:1" "current_tracer:blk" "available_tracers:nop" \
	  "available_filter_functions:x" "enabled_functions:x" "no_such_file:1" \
	  "set_ftrace_notrace:alpha:traceon" "set_graph_function:nosuch"; do
	f=${kv%%:*} v=${kv#*:}
	ctl "$f" "$v" 2>e1 >/dev/null
	rc=$?
	[ $rc -eq 1 ] && [ "$(wc -l <e1)" -eq 1 ] && grep -q "^patchsite: ctl: pid $SPID: " e1 || { bad=$((bad + 1)); echo "$f $v: rc $rc: $(cat e1)" >>bad; }
done
ctl max_graph_depth 5 && d5=$(ctl max_graph_depth) && ctl max_graph_depth 0 && d0=$(ctl max_graph_depth)
ctl buffer_size_kb 64 && kb=$(ctl buffer_size_kb)
ctl tracing_on 0 && t0=$(ctl tracing_on) && ctl tracing_on 1 && t1=$(ctl tracing_on)
ctl set_ftrace_notrace 'gamma_leaf' && nt=$(ctl set_ftrace_notrace) && ctl set_ftrace_notrace '' && nt0=$(ctl set_ftrace_notrace)
ctl set_graph_function 'beta' && gf=$(ctl set_graph_function) && ctl set_graph_function '' && gf0=$(ctl set_graph_function)
ctl trace_dir "$T/data" && td=$(ctl trace_dir)
if [ $bad -eq 0 ] && [ "$d5 $d0 $kb $t0 $t1" = "5 1024 64 0 1" ] && [ "$nt" = "gamma_leaf [ctlspin]" ] &&
   [ -z "$nt0" ] && [ "$gf" = "beta [ctlspin]" ] && [ "$gf0" = "#### all functions enabled ####" ] &&
   [ "$td" = "" ] && alive; then
	pass "every file written: good values read back, 12 bad writes refused in one line each"
else
	printf 'bad %s: %s %s %s %s %s [%s] [%s] [%s] [%s] [%s]\n' "$bad" "$d5" "$d0" "$kb" "$t0" "$t1" "$nt" "$nt0" "$gf" "$gf0" "$td" >got
	[ -f bad ] && cat bad >>got
	fail "writing every file" got
fi

# Phase 1: function tracer on alpha alone, into the directory trace_dir named.
ctl set_ftrace_filter alpha && ctl current_tracer function && en=$(ctl enabled_functions) &&
	tdir=$(ctl trace_dir) && phase "run 1000" done && ctl current_tracer nop
A1=$A
ctl trace_dir "$T/other" 2>busy; rc=$?
if [ "$en" = "alpha [ctlspin] (1)	function" ] && [ "$tdir" = "$T/data" ] && [ $rc -eq 1 ] &&
   grep -q "already recording into '$T/data'" busy && [ "$(ctl enabled_functions)" = "" ]; then
	pass "function on alpha: enabled_functions names it and the tracer; trace_dir $T/data"
else
	printf '[%s] [%s] %s\n' "$en" "$tdir" "$rc" >got; cat busy >>got; fail "phase 1" got
fi

# Phase 2: function_graph on beta and gamma_leaf.
ctl set_ftrace_filter 'beta gamma_leaf' && ctl current_tracer function_graph &&
	phase "run 300" done && ctl current_tracer nop
B2=$BB C2=$C
"$PS" replay --no-sched -d data --no-sched >replay1 2>rerr	# the calls, nothing else: no switches
na=$(grep -c ' alpha();' replay1) nb=$(grep -c ' beta() {' replay1) nc=$(grep -c ' gamma_leaf();' replay1)
others=$(grep -v '^#\|^ *$\|alpha\|beta\|gamma_leaf\|| *} *$\|------\|=>' replay1 | head -3)
if [ "$na" -eq "$A1" ] && [ "$A1" -eq $((NTH * 1000)) ] && [ "$nb" -eq "$B2" ] && [ "$nc" -eq "$C2" ] &&
   [ "$B2" -eq $((NTH * 300)) ] && [ -z "$others" ] && [ ! -s rerr ]; then
	pass "replay: exactly the sample's $A1 alpha calls (function), $B2 beta and $C2 gamma_leaf (function_graph), nothing else"
else
	printf 'alpha %s/%s beta %s/%s gamma %s/%s others [%s]\n' "$na" "$A1" "$nb" "$B2" "$nc" "$C2" "$others" >got
	cat rerr >>got; fail "replay of phases 1 and 2" got
fi
# `patchsite pipe PID`: the directory found through the channel's trace_dir, the tracer set at
# run time rendered event by event (function lines, then function_graph's), while it runs.
timeout -s INT 5 "$PS" pipe --from-start --no-sched "$SPID" >pipe1 2>perr	# counts leaves: no switches
pa=$(grep -c ': alpha <-' pipe1) pc=$(grep -c ' gamma_leaf();' pipe1)
if [ "$pa" -eq "$A1" ] && [ "$pc" -eq "$C2" ]; then
	pass "pipe $SPID (while it runs): $pa alpha function lines and $pc gamma_leaf graph lines, as replay"
else
	echo "alpha $pa/$A1 gamma_leaf $pc/$C2" >got; head -5 pipe1 >>got; cat perr >>got
	fail "pipe PID" got
fi

# Phase 3: tracers, filters and the switch changed 60 times while the threads call without end.
ctl set_ftrace_notrace gamma_leaf
echo spin >&3
ok=0
for i in $(seq 20); do
	ctl set_ftrace_filter alpha && ctl current_tracer function && ok=$((ok + 1))
	ctl set_ftrace_filter 'beta' && ctl current_tracer function_graph && ctl tracing_on 0 && ok=$((ok + 1))
	ctl set_ftrace_filter '' && ctl tracing_on 1 && ctl current_tracer nop && ok=$((ok + 1))
done
phase stop stopped
if [ $ok -eq 60 ] && alive && [ "$A" -gt 0 ]; then
	pass "60 switches of tracer, filter and tracing_on while $NTH threads made $A + $BB calls"
else
	fail "switching while running ($ok of 60)" err
fi

# Phase 4, steady: gamma_leaf alone (never traced above): exactly the sample's count.
ctl set_ftrace_notrace '' && ctl set_ftrace_filter gamma_leaf && ctl current_tracer function &&
	phase "run 500" done && ctl current_tracer nop
C4=$C
"$PS" replay --no-sched -d data >replay2 2>rerr
nc=$(grep -c 'gamma_leaf' replay2)
if [ "$nc" -eq $((C2 + C4)) ] && [ "$C4" -eq $((NTH * 500)) ] && [ ! -s rerr ]; then
	pass "after the switching: gamma_leaf $C2 + $C4 calls in the trace, as the sample counted"
else
	echo "gamma_leaf $nc, want $C2 + $C4" >got; cat rerr >>got; fail "steady phase after switching" got
fi

# Tracers switched live (issue 23): gamma_leaf ran under function_graph (phase 2, timed) and under
# function (phase 4, no times). report counts both and keeps the untimed ones out of the time
# columns (its average is over its timed calls, a leaf: total / timed calls), saying so; info lists each tracer with when it was switched on and off
# (phase 1 function, phase 2 function_graph, 20 rounds of both in phase 3, phase 4 function).
"$PS" report -d data --json >rep.json 2>rerr && "$PS" report -d data >rep.txt 2>>rerr &&
	"$PS" info -d data >info5 2>>rerr
g=$(python3 -c 'import json; x = [r for r in json.load(open("rep.json")) if r["name"] == "gamma_leaf"][0]
print(x["calls"], x.get("untimed_calls", 0), int(x["avg_ns"] == x["total_ns"] // (x["calls"] - x.get("untimed_calls", 0))))')
names=$(sed -n 's/^    \([a-z_]*\) *on  *[0-9.]* s, .*/\1/p' info5 | tr '\n' ' ')
if [ "$g" = "$((C2 + C4)) $C4 1" ] && [ ! -s rerr ] &&
   grep -q "^# [0-9]* of [0-9]* calls were recorded by the function tracer, which takes no times" rep.txt &&
   [ "$(echo $names | wc -w)" -eq 43 ] && [ "${names%% function *}" = "function function_graph" ] &&
   [ "$(echo $names | awk '{ print $NF }')" = function ]; then
	pass "function_graph then function: gamma_leaf $((C2 + C4)) calls, $C4 untimed kept out of the times; info lists 43 tracer periods"
else
	echo "gamma_leaf: $g (want $((C2 + C4)) $C4 1); tracers: $names" >got; cat rerr >>got
	grep '^#' rep.txt >>got; fail "live tracer switch in report and info" got
fi

# Another user: the client says whose process it is; the peer check refuses a connection.
if [ "$(id -u)" = 0 ] && command -v runuser >/dev/null && id nobody >/dev/null 2>&1; then
	# Copies nobody can reach: the tree may be where only root can (a clone in /root).
	cp "$PS" ps-nobody && cp "${POKE#python3 }" poke-nobody.py && chmod 755 ps-nobody poke-nobody.py
	chmod 711 "$T"
	runuser -u nobody -- "$T/ps-nobody" ctl "$SPID" current_tracer >nb 2>nberr
	rc=$?
	chmod 711 xdg xdg/patchsite && chmod 666 "$SOCK"
	runuser -u nobody -- python3 "$T/poke-nobody.py" "$SOCK" request read current_tracer >peer 2>&1
	chmod 700 "$T" xdg xdg/patchsite && chmod 600 "$SOCK"
	if [ $rc -eq 1 ] && grep -q "pid $SPID: runs as uid 0: only that user or root" nberr &&
	   [ "$(head -1 peer)" = "2 1" ] && grep -q "refused: only its own user or root" peer &&
	   alive && [ "$(ctl current_tracer)" = nop ]; then
		pass "nobody: refused by the client (uid 0's process) and by SO_PEERCRED (status 2, EPERM); the program runs on"
	else
		cat nberr peer >got; fail "another user" got
	fi
else
	echo "SKIP another user: needs root, runuser and a user nobody"
fi

# Hostile bytes: every bad request gets an error or a close; the channel stays usable.
$POKE "$SOCK" hostile 14 >hostile 2>&1
if grep -q '^random [0-9]' hostile && grep -q '^oversized 1 90$' hostile &&
   grep -q '^version 1 93$' hostile && grep -q '^op 1 22$' hostile && grep -q '^nul 1 22$' hostile &&
   grep -q '^truncated noreply$' hostile && grep -q '^after-stall 0 1 waited<5s$' hostile &&
   alive && [ "$(ctl tracing_on)" = 1 ]; then
	pass "hostile requests: $(sed -n 's/^random //p' hostile)/200 random ones answered with an error, oversized/version/op/NUL refused, truncated and stalled ones dropped; still served"
else
	fail "hostile requests" hostile
fi

# fork: the child listens on a socket of its own; killed, its file is stale until a client or a start removes it.
ctl set_ftrace_filter alpha
echo fork >&3
wait_for out '^child ' && CPID=$(sed -n 's/^child //p' out | tail -1)
for _ in $(seq 100); do [ -S "xdg/patchsite/${CPID:-x}.sock" ] && break; sleep 0.1; done
ctl set_ftrace_filter beta
c1=$("$PS" ctl "${CPID:-0}" set_ftrace_filter) p1=$(ctl set_ftrace_filter)
kill -9 "${CPID:-0}" 2>/dev/null; sleep 0.3
stale=$([ -S "xdg/patchsite/$CPID.sock" ] && echo yes)
"$PS" ctl "${CPID:-0}" current_tracer 2>cgone; rc=$?
# The next process to start a channel there removes it (a client only looks in its own directories).
XDG_RUNTIME_DIR=$T/xdg LD_PRELOAD="$PRELOAD" sh -c 'sleep 1' &
for _ in $(seq 50); do [ -e "xdg/patchsite/$CPID.sock" ] || break; sleep 0.1; done
wait $!
if [ "$c1" = "alpha [ctlspin]" ] && [ "$p1" = "beta [ctlspin]" ] && [ "$stale" = yes ] && [ $rc -eq 1 ] &&
   grep -q "pid $CPID: no such process" cgone && [ ! -e "xdg/patchsite/$CPID.sock" ] && alive; then
	pass "fork: child $CPID answers on its own socket with the filter it inherited; killed, its stale socket is removed by the next start"
else
	printf '[%s] [%s] stale %s rc %s\n' "$c1" "$p1" "$stale" "$rc" >got; cat cgone >>got; fail "fork" got
fi

# PATCHSITE_CTL=0: no channel, and the client says so.
PATCHSITE_CTL=0 XDG_RUNTIME_DIR=$T/xdg LD_PRELOAD="$PRELOAD" ./ctlspin 1 </dev/null >out0 2>err0
PATCHSITE_CTL=0 XDG_RUNTIME_DIR=$T/xdg LD_PRELOAD="$PRELOAD" sh -c 'echo $$ >pid0; exec sleep 2' &
sleep 0.5
"$PS" ctl "$(cat pid0)" current_tracer 2>off; rc=$?
if [ $rc -eq 1 ] && [ "$(wc -l <off)" -eq 1 ] && grep -q "control channel does not answer (PATCHSITE_CTL=0" off &&
   [ ! -e "xdg/patchsite/$(cat pid0).sock" ]; then
	pass "PATCHSITE_CTL=0: no socket, the client says so in one line, at once"
else
	fail "PATCHSITE_CTL=0" off
fi

# exec: the new image answers under the same name, with its own (fresh) settings.
before=$(ctl current_tracer)
echo exec >&3
for _ in $(seq 100); do [ "$(grep -c '^ready' out)" -ge 2 ] && break; sleep 0.1; done
for _ in $(seq 50); do [ "$(ctl current_tracer 2>/dev/null)" = nop ] && break; sleep 0.1; done
if [ "$(grep -c '^ready' out)" -eq 2 ] && [ "$(ctl set_ftrace_filter)" = "#### all functions enabled ####" ] &&
   [ "$(ctl trace_dir)" = "" ] && ctl set_ftrace_filter beta && [ "$(ctl set_ftrace_filter)" = "beta [ctlspin]" ]; then
	pass "exec: the new image (pid $SPID) answers on $SPID.sock with fresh settings"
else
	fail "exec (before: $before)" err
fi

# Exit: the socket goes; a pid without a channel is named.
echo quit >&3
for _ in $(seq 100); do alive || break; sleep 0.1; done
wait "$SPID"; st=$?
"$PS" ctl "$SPID" current_tracer 2>gone; rc=$?
if ! alive && [ $st -eq 0 ] && [ ! -e "$SOCK" ] && [ $rc -eq 1 ] && grep -q "pid $SPID: no such process" gone; then
	pass "exit: status 0, socket removed; ctl on the pid says it is gone"
else
	echo "exit status $st" >>gone; fail "exit" gone
fi
SPID=
"$PS" ctl $$ current_tracer 2>none; rc=$?
if [ $rc -eq 1 ] && [ "$(wc -l <none)" -eq 1 ] && grep -q "pid $$ (.*): no object in it has patchable sites" none; then
	pass "a process without the runtime: '$(sed 's/^patchsite: ctl: //' none)'"
else
	fail "no channel" none
fi

# record --tracer=nop: started with nothing traced, its trace directory ready, then switched on
# from outside.  Oracle: the sample's own counts; only the calls made while function_graph ran
# (beta and its gamma_leaf) are in the replay, none of the ones made before.
mkfifo in2
XDG_RUNTIME_DIR=$T/xdg LD_PRELOAD="$SANPRE" "$PS" record --tracer=nop -d nopdata -- ./ctlspin $NTH \
	<in2 >out 2>err2 &
RPID=$!
exec 3>in2
wait_for out '^ready'
SPID=$(awk 'NR == 1 { print $1 }' nopdata/session 2>/dev/null)
phase "run 200" done; A0=$A
ctl set_ftrace_filter "beta gamma_leaf" && ctl current_tracer function_graph && phase "run 100" done &&
	ctl current_tracer nop
B2=$BB C2=$C
echo quit >&3
wait "$RPID"; st=$?
SPID=
"$PS" replay --no-sched -d nopdata >nopreplay 2>nopr
nb=$(grep -c ' beta() {' nopreplay) nc=$(grep -c ' gamma_leaf();' nopreplay) na=$(grep -c 'alpha' nopreplay)
if [ $st -eq 0 ] && [ "$A0" -eq $((NTH * 200)) ] && [ "$nb" -eq "$B2" ] && [ "$B2" -eq $((NTH * 100)) ] &&
   [ "$nc" -eq "$C2" ] && [ "$na" -eq 0 ] && [ ! -s nopr ]; then
	pass "record --tracer=nop: exit 0, nothing of the $A0 calls before; $nb beta, $nc gamma_leaf after ctl current_tracer function_graph"
else
	printf 'status %s beta %s/%s gamma %s/%s alpha %s\n' "$st" "$nb" "$B2" "$nc" "$C2" "$na" >got
	cat nopr err2 >>got; fail "record --tracer=nop then ctl" got
fi

# set_graph_function written while the threads are inside their loop (issue 42: it was stored
# and listed, never applied: the threads' open worker() frames let every call through).
# Oracle: ftrace's set_graph_function (Documentation/trace/ftrace.rst: function_graph then
# traces only the function and what it calls) and the sample's counts: before the write its
# alpha() calls are recorded; after it (a trace_marker written once the write returned) only
# beta() and the gamma_leaf() it calls; beta and gamma_leaf every time (worker's callees
# before, the graph function's subtree after), alpha fewer times than it ran.
mkfifo in3
XDG_RUNTIME_DIR=$T/xdg LD_PRELOAD="$SANPRE" "$PS" record -d gfdata -- ./ctlspin 1 <in3 >out 2>err3 &
RPID=$!
exec 3>in3
wait_for out '^ready'
SPID=$(awk 'NR == 1 { print $1 }' gfdata/session 2>/dev/null)
# seen PATTERN [AFTER]: up to 20 s for a replay line matching PATTERN (after a line matching AFTER).
seen() {
	for _ in $(seq 200); do
		"$PS" replay --no-sched -d gfdata 2>/dev/null | sed -n "/${2:-.}/,\$p" 2>/dev/null | grep -q "$1" && return 0
		sleep 0.1
	done
	return 1
}
echo spin >&3
seen ' alpha();' && ctl set_graph_function beta && ctl trace_marker 'set_graph_function beta' &&
	gfl=$(ctl set_graph_function) && seen ' beta() {' 'set_graph_function beta'; ok=$?
phase stop stopped
echo quit >&3
wait "$RPID"; st=$?
SPID=
"$PS" replay --no-sched -d gfdata >gfreplay 2>gfr
sed -n '/set_graph_function beta/,$p' gfreplay >gfafter
na=$(grep -c ' alpha();' gfreplay) nb=$(grep -c ' beta() {' gfreplay) nc=$(grep -c ' gamma_leaf();' gfreplay)
aa=$(grep -c 'alpha' gfafter) ab=$(grep -c ' beta() {' gfafter)
others=$(grep -v '^#\|^ *$\|alpha\|beta\|gamma_leaf\|| *} *$\|------\|=>\|set_graph_function beta' gfafter | head -3)
if [ $ok -eq 0 ] && [ $st -eq 0 ] && [ "$gfl" = "beta [ctlspin]" ] && [ "$na" -gt 0 ] &&
   [ "$na" -lt "$A" ] && [ "$nb" -eq "$BB" ] && [ "$nc" -eq "$C" ] && [ "$aa" -eq 0 ] &&
   [ "$ab" -gt 0 ] && [ -z "$others" ] && [ ! -s gfr ]; then
	pass "ctl set_graph_function beta while running: $na of $A alpha calls before it, none after; all $nb beta and $nc gamma_leaf calls; $ab beta calls after it"
else
	printf 'ok %s status %s [%s] alpha %s/%s after %s; beta %s/%s after %s; gamma %s/%s; others [%s]\n' \
		"$ok" "$st" "${gfl:-}" "$na" "$A" "$aa" "$nb" "$BB" "$ab" "$nc" "$C" "$others" >got
	cat gfr err3 >>got; fail "ctl set_graph_function while running" got
fi
# `prog & patchsite ctl $! ...` (patchsite-ctl(1)): $! is the shell's fork until it execs prog.
# A fork that sleeps a second before its exec: ctl must wait for prog (the process's own
# executable after the exec is the oracle), not attach to the shell.
if [ "$MODE" = plain ]; then
	rm -f in2 && mkfifo in2
	XDG_RUNTIME_DIR=$T/xdg sh -c 'sleep 1; exec ./ctlspin 1' <in2 >out2 2>err2 &
	FPID=$!
	exec 4>in2
	"$PS" ctl "$FPID" current_tracer >fork.out 2>fork.err; st=$?
	exe=$(readlink "/proc/$FPID/exe")
	echo quit >&4
	exec 4>&-
	wait "$FPID"
	if [ $st -eq 0 ] && [ "$(cat fork.out)" = nop ] && [ "${exe##*/}" = ctlspin ]; then
		pass "ctl \$! while it is still the shell's fork: waited for its exec, attached to ctlspin"
	else
		echo "status $st, exe $exe" >>fork.err; cat fork.out >>fork.err
		fail "ctl \$! before the shell's exec" fork.err
	fi
fi

# ctl just after the program started: its runtime is mapped, its control channel not open yet.
# testdata/patchsite/ctlgate.c, preloaded after the runtime, holds the process in its constructor
# (run before the runtime's) until the fifo gate is opened.  Oracle: the process's maps hold
# the runtime and it has no socket when ctl starts; opened 1.5 s later (after the 1 s that
# attach waited before), ctl must have waited and read the tracer, nop.  Held for good, ctl
# says so in one line once its 5 s are up.
gated() {
	rm -f in3 gate && mkfifo in3 gate
	XDG_RUNTIME_DIR=$T/xdg CTLGATE=$T/gate LD_PRELOAD="$PRELOAD $T/libgate.so" ./ctlspin 1 \
		<in3 >out3 2>err3g &
	GPID=$!
	exec 5>in3
	for _ in $(seq 200); do grep -q libpatchsite "/proc/$GPID/maps" 2>/dev/null && break; sleep 0.1; done
	held=$(grep -c libpatchsite "/proc/$GPID/maps")
	[ -S "$T/xdg/patchsite/$GPID.sock" ] && held=no
}
open_gate() { timeout 20 sh -c ': >gate'; }
quit_gated() {
	echo quit >&5
	exec 5>&-
	wait "$GPID"
}
gated
"$PS" ctl "$GPID" current_tracer >gate.out 2>gate.err &
CPID=$!
sleep 1.5
open_gate
wait "$CPID"; st=$?
quit_gated; gst=$?
if [ "$held" != no ] && [ "$held" -gt 0 ] && [ $st -eq 0 ] && [ "$(cat gate.out)" = nop ] &&
   [ ! -s gate.err ] && [ $gst -eq 0 ]; then
	pass "ctl before the runtime opened its channel: waited for it, read current_tracer"
else
	echo "held $held, ctl $st, sample $gst" >>gate.err; cat gate.out err3g >>gate.err
	fail "ctl before the runtime opened its channel" gate.err
fi
gated
"$PS" ctl "$GPID" current_tracer >gate.out 2>gate.err; st=$?
open_gate
quit_gated
if [ $st -eq 1 ] && [ "$(wc -l <gate.err)" -eq 1 ] && [ ! -s gate.out ] &&
   grep -q "^patchsite: ctl: pid $GPID has the runtime, but its control channel did not open in 5000 ms" gate.err
then
	pass "a channel that never opens: $(cat gate.err)"
else
	echo "ctl $st" >>gate.err
	fail "ctl to a runtime whose channel never opens" gate.err
fi

if [ "$MODE" = san ] && grep -q 'Sanitizer' err; then fail "sanitizer report" err; fi

echo "$PASS passed, $FAIL failed"
[ $FAIL -eq 0 ]
