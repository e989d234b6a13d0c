#!/bin/sh
# make bench: recordmcount against the kernel's scripts/recordmcount
# (Debian linux-kbuild-6.1), in one run, on the same inputs, alternating the
# two tools.  Prints ratios (ours / kernel's: below 1 is faster).
#   per object  - real objects, one process per object as Kbuild runs it:
#                 our own C sources compiled as kernel code, and the Linux
#                 6.1 objects make check-kernel keeps (KSAVE=DIR for others)
#   one big .o  - all of them joined with ld -r (as objtool sees vmlinux.o)
#   scale       - N one-line functions, each in its own section
set -e
B=${1:-build}
OURS=$(cd "$B" && pwd)/recordmcount
KERN=/usr/lib/linux-kbuild-6.1/scripts/recordmcount
ROUNDS=${ROUNDS:-5}
SCALE=${SCALE:-17000 34000 68000}
if [ ! -x "$KERN" ]; then
	[ "$(id -u)" = 0 ] || { echo "bench: needs $KERN (apt-get install linux-kbuild-6.1)" >&2; exit 2; }
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q linux-kbuild-6.1 >/dev/null
fi
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
CFLAGS="-O2 -fno-pie -mcmodel=kernel -mno-red-zone -pg -mfentry -Iinclude -Ilib/arch"

now() { date +%s%N; }
ms() { awk -v n="$1" 'BEGIN { printf "%.1f", n / 1e6 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else printf "-" }'; }

# Real objects: this project's own C sources, compiled as kernel code is.
mkdir -p "$W/src"
n=0
for f in lib/*.c lib/arch/*.c recordmcount/*.c verify/*.c testdata/src/*.c testdata/demo/*.c; do
	[ -f "$f" ] || continue
	n=$((n + 1))
	gcc $CFLAGS $(pkg-config --cflags libelf capstone 2>/dev/null) -c "$f" -o "$W/src/$n.o" 2>/dev/null || rm -f "$W/src/$n.o"
done
objs=$(ls "$W/src"/*.o)
nobj=$(echo "$objs" | wc -w)

# Real kernel objects, where `make check-kernel` left them (its wrapper keeps
# each C object as Kbuild compiled it, before any recordmcount ran): a
# second set, numbered (names repeat across directories).  x86_64's come
# with gcc's own table (-mrecord-mcount), removed here so that both tools
# have the work to do.
KSAVE=${KSAVE:-$B/kernel/save}
kobjs= nk=0 karches=
if [ -d "$KSAVE" ]; then
	mkdir -p "$W/kobj"
	for f in $(find "$KSAVE" -path '*/in/*.o' | sort); do
		nk=$((nk + 1))
		a=${f#"$KSAVE"/}; a=${a%%/*}
		case " $karches " in *" $a "*) ;; *) karches="$karches $a" ;; esac
		if [ "$a" = x86_64 ]; then
			objcopy -R __mcount_loc -R .rela__mcount_loc "$f" "$W/kobj/$nk.o"
		else
			cp "$f" "$W/kobj/$nk.o"
		fi
	done
	kobjs=$(ls "$W/kobj"/*.o)
fi

# Time one tool over every object of a set, one process each, on fresh
# copies: "wall_ns cpu_ns" (CPU: user + sys of the loop's children, by time(1)).
#   per_object SET TOOL [OPTION]
per_object() {
	set_objs=$1; shift
	rm -rf "$W/run"; mkdir "$W/run"; cp $set_objs "$W/run/"
	t0=$(now)
	/usr/bin/time -f '%U %S' -o "$W/cpu" sh -c \
		'w=$1; shift; for o in "$w"/run/*.o; do "$@" "$o" >/dev/null 2>&1 || true; done' \
		sh "$W" "$@"
	t1=$(now)
	awk -v w=$((t1 - t0)) '{ printf "%.0f %.0f\n", w, ($1 + $2) * 1e9 }' "$W/cpu"
}
# The floors (bench/recordmcount/floor.c): tools that do less than ours,
# to show where the time per object goes.  One binary per mode, so that
# the loop runs each as it runs the tools, with the object alone.
for m in 0:-0 n:-n a: i:-i; do
	gcc -O2 -static -DFLOOR_MODE="\"${m#*:}\"" bench/recordmcount/floor.c -o "$W/floor-static-${m%%:*}"
	gcc -O2 -DFLOOR_MODE="\"${m#*:}\"" bench/recordmcount/floor.c -o "$W/floor-dyn-${m%%:*}"
done
# Every tool of the loop: key, then the command.
TOOLS="kern:$KERN ours:$OURS replace:$OURS:--replace 0_dyn:$W/floor-dyn-0 0_static:$W/floor-static-0
n_dyn:$W/floor-dyn-n a_static:$W/floor-static-a i_static:$W/floor-static-i"
# Each round runs every tool once, so that a busy moment hits them all.
#   loop SETNAME OBJECTS: totals in w_SETNAME_KEY, c_SETNAME_KEY
loop() {
	for t in $TOOLS; do eval "w_$1_${t%%:*}=0 c_$1_${t%%:*}=0"; done
	for r in $(seq "$ROUNDS"); do
		for t in $TOOLS; do
			k=${t%%:*}
			set -- "$1" "$2" $(per_object "$2" $(echo "${t#*:}" | tr : ' '))
			eval "w_$1_$k=\$((w_$1_$k + $3)); c_$1_$k=\$((c_$1_$k + $4))"
		done
	done
}
line() {	# label set key: a tool's totals and its ratios to the kernel's tool
	eval "fw=\$w_$2_$3 fc=\$c_$2_$3 kw=\$w_$2_kern kc=\$c_$2_kern"
	printf '  %-38s %9sms %6s   cpu %9sms %6s\n' "$1" "$(ms $fw)" "$(ratio $fw $kw)" \
		"$(ms $fc)" "$(ratio $fc $kc)"
}
# Where the time per object goes: the same loop with tools that do less
# (floor.c): start-up alone (static, and dynamic as the kernel's tool is
# linked), the least a rewrite costs, and the least writing in place costs.
set_report() {	# set label
	echo "per object, $2 (ratio = time / the kernel tool's):"
	line "kernel's recordmcount" "$1" kern
	line "ours (in place)" "$1" ours
	line "ours --replace" "$1" replace
	line "floor: start-up only, dynamic" "$1" 0_dyn
	line "floor: start-up only, static" "$1" 0_static
	line "floor: rewrite as the kernel's, dyn." "$1" n_dyn
	line "floor: atomic rewrite, static" "$1" a_static
	line "floor: in place, static" "$1" i_static
	echo
}
loop src "$objs"
[ -n "$kobjs" ] && loop kern "$kobjs"
echo "recordmcount benchmark: ours vs the kernel's (linux-kbuild-6.1), ratio = ours / kernel's"
echo
set_report src "this project's C sources compiled as kernel code ($nobj objs x $ROUNDS rounds)"
if [ -n "$kobjs" ]; then
	set_report kern "Linux 6.1 objects from make check-kernel ($nk objs:$karches; x $ROUNDS rounds)"
else
	echo "per object, Linux 6.1 objects: none ($KSAVE missing: run make check-kernel first)"
	echo
fi
printf '%-34s %10s %10s %6s   %-30s\n' "case" "kernel" "ours" "ratio" "(cpu: kernel, ours, ratio)"

# Run a tool on a copy of one file; print "wall_ns cpu_ns max_rss_kb".
# CPU time (user + sys) is what a loaded machine does not blur.
one() {
	cp "$2" "$W/one.o"
	t0=$(now)
	/usr/bin/time -f '%U %S %M' -o "$W/rss" "$1" "$W/one.o" >/dev/null 2>&1 || true
	t1=$(now)
	awk -v w=$((t1 - t0)) '{ printf "%.0f %.0f %d\n", w, ($1 + $2) * 1e9, $3 }' "$W/rss"
}
best() {	# tool file: the best of ROUNDS runs, by CPU time, then wall time
	tool=$1; file=$2; b=""	# (CPU time ticks in 10 ms: small files tie at 0)
	for r in $(seq "$ROUNDS"); do
		set -- $(one "$tool" "$file")
		if [ -z "$b" ] || [ "$2" -lt "$bc" ] || { [ "$2" -eq "$bc" ] && [ "$1" -lt "$b" ]; }
		then b=$1; bc=$2; rss=$3; fi
	done
	echo "$b $bc $rss"
}
report() {	# label file
	set -- "$1" "$2" $(best "$KERN" "$2") $(best "$OURS" "$2")
	printf '%-34s %8sms %8sms %6s   cpu %8sms %8sms %6s   max RSS %s KB vs %s KB\n' \
		"$1" "$(ms $3)" "$(ms $6)" "$(ratio $6 $3)" "$(ms $4)" "$(ms $7)" "$(ratio $7 $4)" \
		"$5" "$8"
}

ld -r --allow-multiple-definition -o "$W/big.o" $objs
ROUNDS=$((ROUNDS * 4)) report "one big .o (ld -r of all)" "$W/big.o"

for nf in $SCALE; do
	python3 -c "
for i in range($nf): print(f'int f{i}(int x){{return x+{i};}}')" > "$W/scale.c"
	gcc -O1 -fno-pie -mcmodel=kernel -fno-asynchronous-unwind-tables -ffunction-sections \
		-pg -mfentry -c "$W/scale.c" -o "$W/scale.o"
	ROUNDS=3 report "scale: $nf functions, own sections" "$W/scale.o"
done
