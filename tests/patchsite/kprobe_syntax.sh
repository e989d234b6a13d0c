#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The kernel's probe syntax, definition by definition: usage  kprobe_syntax.sh BUILD_DIR plain|san
#
# The oracle is the kernel's own probe selftests and documentation (Linux 6.12:
# tools/testing/selftests/ftrace/test.d/kprobe/kprobe_args_string.tc, kprobe_args_char.tc,
# kprobe_args_user.tc, kprobe_args_type.tc, kprobe_args_symbol.tc, kprobe_args_comm.tc,
# kprobe_args_syntax.tc, kprobe_args.tc, kretprobe_args.tc, kprobe_syntax_errors.tc,
# uprobe_syntax_errors.tc, test.d/dynevent/fprobe_syntax_errors.tc;
# Documentation/trace/kprobetrace.rst and fprobetrace.rst; kernel/trace/trace_probe.c for
# what each form fetches).  Each row below is one of their definitions, written on a
# function of testdata/patchsite/kprobe_forms.c instead of a kernel function, with the
# kernel's verdict: "ok", and the text its trace line must show where the selftest reads a
# value (the value our program holds, known from its source); or the kernel's error
# (trace_probe.h's names), and a word our one-line refusal must say.  "unsupported": the
# kernel takes it and we do not, refused by name.  The kernel's forms map to user space as:
#   kernel function (vfs_read, tracefs_create_dir)  ->  send_msg, many, nothing
#   its char * argument (%di, $arg1 of tracefs_create_dir)  ->  send_msg's host, $arg3
#   a register (%ax, GOODREG) -> %rdi; a bad one (%ex, BADREG) -> %ex
#   a kernel symbol (linux_proc_banner, _sdata) -> the program's greeting (-rdynamic)
#   the symbol's address (@0x... from /proc/kallsyms) -> greeting's from nm (-no-pie)
#   $FUNCTION_FORK's caller -> main
# Out of scope, with no row: kprobes' p/r with an offset into a function (BAD_INSN_BNDRY,
# probes here are at a function's entry or return), maxactive (every return is hooked),
# uprobes' PATH:OFFSET places (FILE_NOT_FOUND, NO_REGULAR_FILE, BAD_UPROBE_OFFS, the
# reference counter forms): a probe here names a function of the process, not a file;
# tracepoint probes (t), eprobes; appending a probe to an existing event (Create/append:
# DIFF_ARG_TYPE): a definition here is one event, and a second of the same name is
# refused, as SAME_PROBE; $argN past a function's parameters (NO_BTFARG on $arg10 of
# kfree): $argN here is read by the ABI, DWARF is not asked.  Limits that differ: the
# nesting of +OFF( ) is at most 4 here (TOO_MANY_OPS and ARG_TOO_LONG rows are refused for
# it), a definition has at most 8 fields (the kernel 128), and no 63-character limit on a
# FETCHARG (the kernel's MAX_ARGSTR_LEN): the listed form of a definition, which may be
# longer than the one written (an address in decimal, the type x64 named), must be taken
# back as it is listed.
set -u

. tests/patchsite/lib.sh
suite_init kprobe_syntax "$@"

only_x86_64 kprobe_syntax.sh "the rows name x86-64's registers and stack layout"
EXE="$T/kf"
if ! $CC -O2 -g -pg -mfentry -mrecord-mcount -no-pie -rdynamic \
	testdata/patchsite/kprobe_forms.c -o "$EXE" >"$T/build.log" 2>&1; then
	fail "build kprobe_forms.c" "$T/build.log"
	echo "kprobe_syntax.sh: $PASS passed, $FAIL failed"
	exit 1
fi
GREETING=$(nm "$EXE" | awk '$3 == "greeting" { print "0x" $1 }')
MAINSZ=$(nm -S "$EXE" | awk '$4 == "main" { sub(/^0+/, "", $2); print $2 }')
L65=12345678901234567890123456789012345678901234567890123456789012345

# One row: FILE, the kernel's verdict, the definition(s) (several: ";" between them), what
# we must show (ok: text of the event's line; refused: text of the one line).
row() {
	file=$1 verdict=$2 defs=$3 want=$4
	set --
	old_ifs=$IFS
	IFS=';'
	for d in $defs; do
		d=$(printf '%s\n' "$d" | sed 's/^ *//')
		set -- "$@" "--probe=$d"
	done
	IFS=$old_ifs
	rm -rf "$T/rec"
	record -d "$T/rec" --tracer=nop "$@" "$EXE" >/dev/null 2>"$T/err"
	rc=$?
	case $verdict in
	ok)
		"$PS" replay --no-sched -d "$T/rec" 2>>"$T/err" | grep ' t:' >"$T/line"
		if [ $rc -eq 0 ] && only_switches_lost "$T/err" && grep -qF -- "$want" "$T/line"
		then
			pass "$file: $defs -> $want"
		else
			cat "$T/line" >>"$T/err"
			fail "$file: $defs: want '$want' (rc $rc)" "$T/err"
		fi ;;
	*)
		if [ $rc -ne 0 ] && [ "$(grep -c . "$T/err")" -eq 1 ] && grep -qF -- "$want" "$T/err"
		then
			pass "$file: $defs refused ($verdict): $(cut -c1-150 "$T/err")"
		else
			fail "$file: $defs: want refused ($verdict) saying '$want' (rc $rc)" "$T/err"
		fi ;;
	esac
}

# FILE			VERDICT		DEFINITION			WANT
while IFS='	' read -r file verdict def want; do
	case $file in '#'*|'') continue ;; esac
	def=$(printf '%s\n' "$def" | sed "s/@GREETING/@$GREETING/; s/L65/$L65/")
	want=$(printf '%s\n' "$want" | sed "s/MAINSZ/$MAINSZ/")
	row "$file" "$verdict" "$def" "$want"
done <<'EOF'
# +OFFS(FETCHARG):string is the string AT FETCHARG+OFFS (trace_probe.c: :string turns the last dereference into the string's fetch)
kprobe_args_string.tc	ok	f:t/a send_msg arg1=+0($arg3):string	arg1="example.org"
kprobe_args_string.tc	ok	f:t/a send_msg arg1=+0($arg3):string arg2=+0($arg3):string	arg1="example.org", arg2="example.org"
kprobetrace.rst	ok	f:t/a send_msg name=+0(+0($arg1)):string	name="alpha"
kprobetrace.rst	ok	f:t/a send_msg tag=+12($arg1):string	tag="tagA"
kprobetrace.rst	ok	f:t/a send_msg peer=+0(+0(+24($arg1))):string	peer="beta"
kprobetrace.rst	ok	f:t/a send_msg port=+8($arg1):s32 len=$arg2:s32	port=-2, len=-7
kprobetrace.rst	ok	f:t/a send_msg x=+8($arg1):x16 u=+8($arg1):u16	x=0xfffe, u=65534
kprobe_args_char.tc	ok	f:t/a send_msg arg1=+0($arg3):char	arg1='e'
kprobe_args_char.tc	unsupported	f:t/a send_msg arg2=+0($arg3):char[4]	an array type
kprobe_args_user.tc	ok	f:t/a send_msg path=+0($arg3):ustring path2=+u0($arg3):string	path="example.org", path2="example.org"
# :string of a value that is no address the fetch ends at (a register, a stack slot)
kprobe_syntax_errors.tc	BAD_STRING	f:t/a send_msg $stack0:string	a string is read at an address
fprobetrace.rst	BAD_STRING	f:t/a send_msg $arg3:string	+0($arg3):string is the one it points to
# BTF's names (here DWARF's): a char * is read through, a char array in place, anything else refused
fprobetrace.rst	ok	f:t/a send_msg n=c->name:string t=c->tag:string	n="alpha", t="tagA"
fprobetrace.rst	ok	f:t/a send_msg c->peer->name	c_peer_name="beta"
fprobe_syntax_errors.tc	BAD_TYPE4STR	f:t/a send_msg c:string	its type is not char *
fprobe_syntax_errors.tc	NO_BTFARG	f:t/a send_msg hoge	no parameter 'hoge'
fprobe_syntax_errors.tc	NO_BTF_FIELD	f:t/a send_msg c->foo	no member 'foo'
fprobe_syntax_errors.tc	BAD_HYPHEN	f:t/a send_msg c-.foo	not a fetch argument
fprobe_syntax_errors.tc	NO_PTR_STRCT	f:t/a send_msg%return $retval->foo	no such variable
fprobe_syntax_errors.tc	NO_RETVAL	f:t/a nothing%return $retval	returns void
# kretprobe_args.tc: an unnamed $retval is arg1, after "(caller <- func)"; named, its name
kretprobe_args.tc	ok	f:t/a send_msg%return $retval	<- send_msg) arg1=2000
kretprobe_args.tc	ok	f:t/a send_msg%return ret=$retval:s32	(main+0x
kretprobe_args.tc	ok	f:t/a send_msg%return ret=$retval:s32	/0xMAINSZ <- send_msg) ret=2000
fprobetrace.rst	ok	f:t/a send_msg%return len=$arg2:s32 h=+0($arg3):string $retval	<- send_msg) len=-7 h="example.org" arg3=2000
# kprobe_args_type.tc: one stack word in each type and width (many's a7 = -70 is $stack1)
kprobe_args_type.tc	ok	f:t/a many $stack1:s64 $stack1:u64 $stack1:x64 $stack1:b4@4/64	arg1=-70, arg2=18446744073709551546, arg3=0xffffffffffffffba, arg4=11
kprobe_args_type.tc	ok	f:t/a many $stack1:s32 $stack1:u32 $stack1:x32 $stack1:b4@4/32	arg1=-70, arg2=4294967226, arg3=0xffffffba, arg4=11
kprobe_args_type.tc	ok	f:t/a many $stack1:s16 $stack1:u16 $stack1:x16 $stack1:b4@4/16	arg1=-70, arg2=65466, arg3=0xffba, arg4=11
kprobe_args_type.tc	ok	f:t/a many $stack1:s8 $stack1:u8 $stack1:x8 $stack1:b4@4/8	arg1=-70, arg2=186, arg3=0xba, arg4=11
kprobe_args.tc	ok	f:t/a many $stack $stack0 +0($stack) $stack2:s32	arg4=80
# kprobe_args_symbol.tc: a symbol's memory in each type, a bitfield of it, its string
kprobe_args_symbol.tc	ok	f:t/a send_msg arg1=@greeting:u64 arg2=@greeting:u32 arg3=@greeting:u16 arg4=@greeting:u8	arg1=478560413032, arg2=1819043176, arg3=25960, arg4=104
kprobe_args_symbol.tc	ok	f:t/a send_msg arg1=@greeting:s64 arg2=@greeting:s32 arg3=@greeting:s16 arg4=@greeting:s8	arg1=478560413032, arg2=1819043176, arg3=25960, arg4=104
kprobe_args_symbol.tc	ok	f:t/a send_msg arg1=@greeting:x64 arg2=@greeting:x32 arg3=@greeting:x16 arg4=@greeting:x8	arg1=0x6f6c6c6568, arg2=0x6c6c6568, arg3=0x6568, arg4=0x68
kprobe_args_symbol.tc	ok	f:t/a send_msg arg1=@greeting:b8@4/32	arg1=86
kprobe_args_symbol.tc	ok	f:t/a send_msg arg1=@greeting:string	arg1="hello"
kprobetrace.rst	ok	f:t/a send_msg m=+0(@motd):string c=@counter:s64	m="message of the day", c=-5
kprobe_args_comm.tc	ok	f:t/a send_msg comm=$comm	comm="kpforms"
kprobe_syntax_errors.tc	COMM_CANT_DEREF	f:t/a send_msg +0($comm)	$comm cannot be dereferenced
kprobetrace.rst	BAD_TYPE	f:t/a send_msg $comm:u32	$comm is a string
kprobetrace.rst	ok	f:t/a send_msg i=\-3:s8 j=\16:u32	i=-3, j=16
# kprobe_args_syntax.tc: good and bad arguments
kprobe_args_syntax.tc	ok	f:t/a send_msg %rdi:x64 %rsi:s32	arg2=-7
kprobe_args_syntax.tc	BAD_REG_NAME	f:t/a send_msg %ex	not a register
kprobe_args_syntax.tc	ok	f:t/a send_msg @greeting:string @GREETING:string @greeting+1:string	arg1="hello", arg2="hello", arg3="ello"
kprobe_args_syntax.tc	ok	f:t/a send_msg @counter-8:x8	arg1=0x
kprobe_args_syntax.tc	BAD_MEM_ADDR	f:t/a send_msg @	expected @ADDR or @SYM
kprobe_args_syntax.tc	BAD_MEM_ADDR	f:t/a send_msg @deaqswdefr	no such symbol
kprobe_args_syntax.tc	BAD_MEM_ADDR	f:t/a send_msg @greeting*10	expected @ADDR or @SYM
kprobe_args_syntax.tc	BAD_MEM_ADDR	f:t/a send_msg @greeting/10	expected @ADDR or @SYM
kprobe_args_syntax.tc	BAD_MEM_ADDR	f:t/a send_msg @greeting%10	expected @ADDR or @SYM
kprobe_args_syntax.tc	BAD_MEM_ADDR	f:t/a send_msg @greeting&10	expected @ADDR or @SYM
kprobe_args_syntax.tc	BAD_MEM_ADDR	f:t/a send_msg @greeting|10	expected @ADDR or @SYM
kprobe_args_syntax.tc	BAD_VAR	f:t/a send_msg $stackp	no such variable
kprobe_args_syntax.tc	BAD_VAR	f:t/a send_msg $stack0+10	no such variable
kprobe_args_syntax.tc	BAD_VAR	f:t/a send_msg $stack1-10	no such variable
kprobe_args_syntax.tc	RETVAL_ON_PROBE	f:t/a send_msg $retval	only for a FUNC%return probe
# kprobe_syntax_errors.tc and fprobe_syntax_errors.tc, error by error
fprobe_syntax_errors.tc	MAXACT_NO_KPROBE	f100 send_msg	MAXACTIVE
fprobe_syntax_errors.tc	BAD_MAXACT	f1a111 send_msg	MAXACTIVE
fprobe_syntax_errors.tc	BAD_PROBE_ADDR	f:t/a non_exist_func	no traceable function matches
fprobe_syntax_errors.tc	BAD_PROBE_ADDR	f send_msg+10	no offset
kprobe_syntax_errors.tc	BAD_RETPROBE	f send_msg+10%return	no offset
kprobe_syntax_errors.tc	NO_GROUP_NAME	f:/bar send_msg	the group is not a name
kprobe_syntax_errors.tc	GROUP_TOO_LONG	f:L65/bar send_msg	the group is not a name
kprobe_syntax_errors.tc	BAD_GROUP_NAME	f:foo.1/bar send_msg	the group is not a name
kprobe_syntax_errors.tc	NO_EVENT_NAME	f: send_msg	no event name
kprobe_syntax_errors.tc	EVENT_TOO_LONG	f:foo/L65 send_msg	the event is not a name
kprobe_syntax_errors.tc	BAD_EVENT_NAME	f:foo/bar.1 send_msg	the event is not a name
kprobe_syntax_errors.tc	BAD_STACK_NUM	f:t/a send_msg $stack10000	no such variable
kprobe_syntax_errors.tc	BAD_ARG_NUM	f:t/a send_msg $arg10000	$arg1 .. $arg64
kprobe_syntax_errors.tc	BAD_VAR	f:t/a send_msg $none_var	no such variable
kprobe_syntax_errors.tc	BAD_REG_NAME	f:t/a send_msg %none_reg	not a register
kprobe_syntax_errors.tc	BAD_MEM_ADDR	f:t/a send_msg @12345678abcde	expected @ADDR or @SYM
kprobe_syntax_errors.tc	FILE_ON_KPROBE	f:t/a send_msg @+10	a file offset
kprobe_syntax_errors.tc	BAD_IMM	f:t/a send_msg arg1=\x	expected \IMM
kprobe_syntax_errors.tc	IMMSTR_NO_CLOSE	f:t/a send_msg arg1=\"abcd	an immediate string
kprobe_syntax_errors.tc	DEREF_NEED_BRACE	f:t/a send_msg +0@0)	expected +|-OFF(FETCHARG)
kprobe_syntax_errors.tc	BAD_DEREF_OFFS	f:t/a send_msg +0ab1(@0)	the offset is not a number
kprobe_syntax_errors.tc	DEREF_OPEN_BRACE	f:t/a send_msg +0(+0(@0)	expected +|-OFF(FETCHARG)
kprobe_syntax_errors.tc	BAD_FETCH_ARG	f:t/a send_msg &1	not a fetch argument
kprobe_syntax_errors.tc	TOO_MANY_OPS	f:t/a send_msg +0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(@0))))))))))))))	more than 4 nested
kprobe_syntax_errors.tc	ARRAY_NO_CLOSE	f:t/a send_msg +0(@11):u8[10	an array type
kprobe_syntax_errors.tc	BAD_ARRAY_SUFFIX	f:t/a send_msg +0(@11):u8[10]a	an array type
kprobe_syntax_errors.tc	BAD_ARRAY_NUM	f:t/a send_msg +0(@11):u8[10a]	an array type
kprobe_syntax_errors.tc	ARRAY_TOO_BIG	f:t/a send_msg +0(@11):u8[256]	an array type
kprobe_syntax_errors.tc	BAD_TYPE	f:t/a send_msg @11:unknown_type	no such type 'unknown_type'
kprobe_syntax_errors.tc	BAD_BITFIELD	f:t/a send_msg @11:b10@a/16	not a bitfield
kprobe_syntax_errors.tc	ARG_NAME_TOO_LONG	f:t/a send_msg arg123456789012345678901234567890=@11	longer than 32
kprobe_syntax_errors.tc	NO_ARG_NAME	f:t/a send_msg =@11	is not a name
kprobe_syntax_errors.tc	BAD_ARG_NAME	f:t/a send_msg var.1=@11	is not a name
kprobe_syntax_errors.tc	USED_ARG_NAME	f:t/a send_msg var1=@11 var1=@12	two arguments named var1
kprobe_syntax_errors.tc	ARG_TOO_LONG	f:t/a send_msg +1234567(+1234567(+1234567(+1234567(+1234567(+1234567(@1234))))))	more than 4 nested
kprobe_syntax_errors.tc	NO_ARG_BODY	f:t/a send_msg arg1=	fetches nothing
kprobe_syntax_errors.tc	SAME_PROBE	f:t/a send_msg; f:t/a send_msg	defined already
kprobe_syntax_errors.tc	DIFF_PROBE_TYPE	f:t/a send_msg; f:t/a send_msg%return	defined already
kprobe_syntax_errors.tc	BAD_ADDR_SUFFIX	f send_msg%hoge	expected FUNC or FUNC%return
uprobe_syntax_errors.tc	BAD_FILE_OFFS	f:t/a send_msg @+ab	a file offset
uprobe_syntax_errors.tc	BAD_TYPE	f:t/a send_msg $stack0:symstr	symbol and symstr
# the kernel's forms not done here: refused by name
kprobetrace.rst	unsupported	p:t/a send_msg	a kprobe
kprobetrace.rst	unsupported	f:t/a send_msg @greeting:symbol	symbol and symstr
fprobe_syntax_errors.tc	unsupported	f:t/a send_msg $arg*	every argument from BTF
kprobetrace.rst	unsupported	f:t/a send_msg s=\"text"	an immediate string
EOF

# dynamic_events lists a definition back in the kernel's form (kretprobe_args.tc: an
# unnamed $retval is 'arg1=$retval'), written through the runtime's control file.
cat >"$T/list.c" <<'EOF2'
#include <stdio.h>
#include "patchsite.h"
int main(int argc, char **argv)
{
	char buf[4096];

	for (int i = 1; i < argc; i++)
		if (patchsite_ctl_write("dynamic_events", argv[i], 1))
			return 1;
	if (patchsite_ctl_read("dynamic_events", buf, sizeof(buf)) < 0)
		return 2;
	fputs(buf, stdout);
	return 0;
}
EOF2
cat >"$T/list.want" <<'EOF2'
f:t/a send_msg%return arg1=$retval:x64
f:t/b send_msg c=+0(+0($arg1)):string f=+32($arg1):b4@4/32 u=+0($arg3):string
EOF2
if $CC -O2 -g -pg -mfentry -mrecord-mcount -Dmain=forms_main -c testdata/patchsite/kprobe_forms.c \
	-o "$T/forms.o" >"$T/build.log" 2>&1 &&
   $CC -O2 -g -pg -mfentry -mrecord-mcount -no-pie -Iinclude "$T/list.c" "$T/forms.o" \
	-o "$T/list" "$PATCHSITE_LIB" -Wl,-rpath,"$PWD/$B" >>"$T/build.log" 2>&1 &&
   PATCHSITE_TRACER=nop PATCHSITE_DATA="$T/listrec" LD_PRELOAD="$SANPRE" "$T/list" \
	'f:t/a send_msg%return $retval' \
	'f:t/b send_msg c=+0(+0($arg1)):string f=+32($arg1):b4@4/32 u=+0($arg3):ustring' \
	>"$T/list.out" 2>"$T/err" && diff -u "$T/list.want" "$T/list.out" >"$T/diff"; then
	pass "dynamic_events lists the definitions in the kernel's form (ustring as string)"
else
	cat "$T/build.log" "$T/diff" >>"$T/err" 2>/dev/null
	fail "dynamic_events lists the definitions in the kernel's form" "$T/err"
fi

# The man pages' examples, run as printed on testdata/patchsite/probes.c (its send_msg is
# called with len 1500 on a struct host { 80, "a.b" } and returns len % 7): patchsite(1)
# --probe, patchsite(7) dynamic_events' return line (under function_graph, record's
# default tracer, replay shows it as a comment: /* ... */).
man_example() {
	want=$1
	shift
	rm -rf patchsite.data
	record "$@" ./probes >/dev/null 2>man.err
	if "$PS" replay --no-sched 2>>man.err | grep -q -- "$want"; then
		pass "man page: patchsite record $* shows $want"
	else
		fail "man page: patchsite record $*: no line $want" man.err
	fi
}
if $CC -O2 -g -pg -mfentry -mrecord-mcount testdata/patchsite/probes.c -o "$T/probes" \
	>"$T/build.log" 2>&1 && cd "$T"; then
	man_example 'net:send: send_msg(len=1500, host="a.b")' \
		--probe='f:net/send send_msg len=$arg2:u32 host=+0(+8($arg1)):string'
	man_example 'fprobes:send_msg__exit: (main+0x[0-9a-f]*/0x[0-9a-f]* <- send_msg) len=1500 arg2=2\( \*/\)\{0,1\}$' \
		--probe='f send_msg%return len=$arg2:u32 $retval'
	man_example 'fprobes:send_msg__exit: (main+0x[0-9a-f]*/0x[0-9a-f]* <- send_msg) ret=2\( \*/\)\{0,1\}$' \
		--probe='f send_msg%return ret=$retval:s32'
	cd - >/dev/null || exit 1
else
	fail "build probes.c" "$T/build.log"
fi

echo "kprobe_syntax.sh: $PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
