#!/bin/sh
# make bench: recordmcount against the kernel's scripts/recordmcount
# (Debian linux-kbuild-6.1), in one run, on the same inputs, alternating the
# two tools.  Prints ratios (ours / kernel's: below 1 is faster).
#   per object  - real objects, one process per object as Kbuild runs it
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

# Time one tool over every object, one process each, on fresh copies:
# "wall_ns cpu_ns" (CPU: user + sys of the loop's children, by time(1)).
per_object() {
	rm -rf "$W/run"; mkdir "$W/run"; cp $objs "$W/run/"
	t0=$(now)
	/usr/bin/time -f '%U %S' -o "$W/cpu" sh -c \
		'for o in "$2"/run/*.o; do "$1" "$o" >/dev/null 2>&1 || true; done' sh "$1" "$W"
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
FLOORS="floor-dyn-0 floor-static-0 floor-dyn-n floor-static-a floor-static-i"
tk=0; to=0; ck=0; co=0
for f in $FLOORS; do eval "w_${f##*-}_$(echo $f | cut -d- -f2)=0 c_${f##*-}_$(echo $f | cut -d- -f2)=0"; done
for r in $(seq "$ROUNDS"); do	# every tool once a round, so that a busy moment hits them all
	set -- $(per_object "$KERN"); tk=$((tk + $1)); ck=$((ck + $2))
	set -- $(per_object "$OURS"); to=$((to + $1)); co=$((co + $2))
	for f in $FLOORS; do
		k=${f##*-}_$(echo $f | cut -d- -f2)
		set -- $(per_object "$W/$f")
		eval "w_$k=\$((w_$k + $1)); c_$k=\$((c_$k + $2))"
	done
done
echo "recordmcount benchmark: ours vs the kernel's (linux-kbuild-6.1), ratio = ours / kernel's"
echo
printf '%-34s %10s %10s %6s   %-30s\n' "case" "kernel" "ours" "ratio" "(cpu: kernel, ours, ratio)"
printf '%-34s %8sms %8sms %6s   cpu %8sms %8sms %6s\n' "per object ($nobj objs x $ROUNDS rounds)" \
	"$(ms $tk)" "$(ms $to)" "$(ratio $to $tk)" "$(ms $ck)" "$(ms $co)" "$(ratio $co $ck)"

# Where the time per object goes: the same loop with tools that do less
# (bench/recordmcount/floor.c): start-up alone (static, and dynamic as the
# kernel's tool is linked), then the least an atomic rewrite costs.  What
# ours spends above "atomic rewrite, static" is its own work.
floor_line() {	# label key: a floor's totals and its ratios to the kernel's tool
	eval "fw=\$w_$2 fc=\$c_$2"
	printf '  %-32s %8sms %6s   cpu %8sms %6s\n' "$1" "$(ms $fw)" "$(ratio $fw $tk)" \
		"$(ms $fc)" "$(ratio $fc $ck)"
}
echo
echo "where the time per object goes (same loop; ratio to the kernel's tool):"
floor_line "start-up only, dynamic" 0_dyn
floor_line "start-up only, static" 0_static
floor_line "rewrite as the kernel's, dynamic" n_dyn
floor_line "atomic rewrite, static" a_static
floor_line "in place (not atomic), static" i_static
printf '  %-32s %8sms %6s   cpu %8sms %6s\n' "ours" "$(ms $to)" "$(ratio $to $tk)" "$(ms $co)" "$(ratio $co $ck)"

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
