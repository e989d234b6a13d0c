#!/bin/sh
# The layer check checked: tests/layers.sh over tiny objects laid out like the runtime, so that
# the check is seen to fail on an upward reference and on a loop inside a folder, to pass on a
# downward one, and to let the arch trampolines call the entry points a header declares; and,
# over fixture sources (SRC), to fail on an #include of a higher folder and on a .c file its
# folder's map header does not name.
#   sh tests/layers/selftest.sh    (CC: the compiler, gcc by default)
set -u

. tests/patchsite/lib.sh	# suite_init (CC, gcc by default), pass, fail, summary
suite_init layers-selftest
here=$(pwd)

# obj DIR/NAME 'C source': compile one fixture object under the case's tree.
obj() {
	mkdir -p "$T/o/$(dirname "$1")" && printf '%s\n' "$2" >"$T/src.c" &&
		$CC -c -o "$T/o/$1.o" "$T/src.c"
}

# expect CASE STATUS [PATTERN]: run the check in fail mode; its status must be STATUS and its
# output hold PATTERN (a fixed string).
expect() {
	mkdir -p "$T/o"
	out=$(cd "$T" && ENTRY_H=${ENTRY_H-entry.h} sh "$here/tests/layers.sh" fail o 2>&1)
	st=$?
	if [ "$st" -eq "$2" ] && { [ $# -lt 3 ] || printf '%s\n' "$out" | grep -qF -- "$3"; }; then
		pass
	else
		printf '%s\n' "$out" >"$T/layers.out"
		fail "$1: status $st, wanted $2${3+ and '$3'}" "$T/layers.out"
	fi
	rm -rf "$T/o" "$T/entry.h" "$T/s"
	unset SRC
}

# src FILE 'text': one fixture source or header under the case's source tree (SRC=s).
src() {
	mkdir -p "$T/s/$(dirname "$1")" && printf '%s\n' "$2" >"$T/s/$1" && export SRC=s
}

obj core/clock 'int ps_clock(void) { return 1; }'
obj ctl/value 'int ps_clock(void); int ps_ctl_word(void) { return ps_clock(); }'
expect down 0

obj core/clock 'int ps_ctl_word(void); int ps_clock(void) { return ps_ctl_word(); }'
obj ctl/value 'int ps_ctl_word(void) { return 2; }'
expect up 1 'up     core/clock (core) -> ctl/value (ctl): ps_ctl_word'

obj data/read 'int render_x(void); int psr_x(void) { return render_x(); }'
obj render/text 'int render_x(void) { return 3; }'
expect reader-up 1 'up     data/read (data) -> render/text (render): render_x'

obj sites/patch 'int ps_b(void); int ps_a(void) { return ps_b(); }'
obj sites/dispatch 'int ps_a(void); int ps_b(void) { return ps_a(); }'
expect loop 1 'loop   sites/'

obj sites/dispatch 'int ps_dispatch(void) { return 4; }'
obj arch/x86_64/arch 'int ps_dispatch(void); int tramp(void) { return ps_dispatch(); }'
printf 'int ps_dispatch(void);\n' >"$T/entry.h"
expect entry 0

obj sites/dispatch 'int ps_dispatch(void) { return 4; }'
obj arch/x86_64/arch 'int ps_dispatch(void); int tramp(void) { return ps_dispatch(); }'
expect undeclared-entry 1 'up     arch/x86_64/arch (arch) -> sites/dispatch (sites): ps_dispatch'

obj loader 'int f(void) { return 5; }'
expect unplaced 1 'place  loader is in no layer folder'

obj cmd/main 'int render_x(void); int main(void) { return render_x(); }'
obj render/text 'int render_x(void) { return 3; }'
expect cmd 0

# includes, resolved as the compiler does (beside the file, then SRC): down passes, up fails,
# a header including a higher one fails, a name found beside the file first is that file.
src core/core.h '/* core/: clock.c the clock */'
src core/clock.c '#include "core/core.h"'
src ctl/control.h '/* control.c */'
src ctl/control.c '#include "core/core.h"
#include "control.h"'
expect include-down 0

src core/core.h '/* core/: clock.c the clock */'
src core/clock.c '#include "ctl/control.h"'
src ctl/control.h '/* control.c */'
expect include-up 1 'include core/clock.c (core) -> ctl/control.h (ctl)'

src core/core.h '/* core/: clock.c the clock */
#include "../ctl/control.h"'
src ctl/control.h '/* control.c */'
expect include-header-up 1 'include core/core.h (core) -> ctl/control.h (ctl)'

src core/core.h '/* core/: clock.c, control.c */'
src core/control.h '/* beside the file: core/control.h, not ctl/ */'
src core/clock.c '#include "control.h"'
src ctl/control.h '/* control.c */'
expect include-beside 0

src core/core.h '/* core/: clock.c the clock */'
src core/clock.c '#include "frame.h"'
src arch/arch.h '/* each arch: arch.c */'
src arch/x86_64/frame.h '/* found through SRC/arch/x86_64, as -Ipatchsite/arch/$(ARCH) finds it */'
expect include-arch-dir 1 'include core/clock.c (core) -> arch/x86_64/frame.h (arch)'

# arch/ARCH/host.h (the clock, system headers only) is below every layer.
src core/core.h '/* core/: clock.c the clock */'
src core/clock.c '#include "host.h"'
src arch/x86_64/host.h '/* the event clock */'
expect include-host 0

# a header found first outside SRC (include/, as -Iinclude comes first) is not judged.
mkdir -p "$T/include" && printf '/* the public header */\n' >"$T/include/frame.h"
src core/core.h '/* core/: clock.c the clock */'
src core/clock.c '#include "frame.h"'
src arch/x86_64/frame.h '/* shadowed by include/frame.h */'
expect include-outside 0
rm -rf "$T/include"

# maps: every .c named as "name.c" in its folder's map header (a subfolder uses its parent's).
src core/core.h '/* core/: clock.c the clock */'
src core/clock.c 'int c;'
src core/log.c 'int l;'
expect map-missing 1 'map     core/log.c is not named in core/core.h'

src arch/arch.h '/* each arch: arch.c, regs.c */'
src arch/x86_64/arch.c 'int a;'
src arch/x86_64/regs.c 'int r;'
expect map-sub 0

src core/clock.c 'int c;'
expect map-no-header 1 'map     core/clock.c: its map core/core.h is missing'

# report mode prints the same finding and succeeds.
obj core/clock 'int ps_ctl_word(void); int ps_clock(void) { return ps_ctl_word(); }'
obj ctl/value 'int ps_ctl_word(void) { return 2; }'
if (cd "$T" && sh "$here/tests/layers.sh" report o | grep -q '^up '); then
	pass
else
	fail "report: not printed, or not status 0"
fi

summary layers/selftest.sh
