#!/bin/sh
# The layer check of libpatchsite and its readers (issue #22, notes/runtime-layout.md 3.2).
#
#   sh tests/layers.sh report|fail ROOT [OBJ...]
#
# Reads the built objects (all of ROOT/**.o when no OBJ is given: pass the build's own list so
# that objects left behind by a renamed source do not count), maps each object to the folder
# it sits in under ROOT, and pairs every undefined symbol (nm -u) with the object defining it
# (nm --defined-only). Two kinds of finding, each printed with the pair and the symbol:
#   up     a file in a lower layer names one in a higher layer (LAYERS below);
#   loop   files inside one folder name each other in a circle (tsort);
# and, because a file outside every folder cannot be judged:
#   place  an object in no layer folder.
# report: print the findings, exit 0.  fail: print them, exit 1 when there is one.
#
# The one declared exception: the arch trampolines call the C entry points listed in
# ROOT-relative patchsite/arch/entry.h (ENTRY_H overrides the path), as every tracer's
# trampoline calls back into its core.
set -u

# The layers, one folder a line, lowest first in each order. A folder may use a folder of its own
# order with a lower or equal level, and the folders named in its last column.
# "api" is the top-level api*.c files, "top" the top-level start.c, dl.c, gprof.c, exit.c and spawn.c (interposers).
LAYERS='
runtime core   1
runtime arch   2
runtime sites  3
runtime record 4 data render
runtime events 4 data render
runtime api    5 data render
runtime ctl    6 data render
runtime top    7 data render
reader  data   1
reader  render 2
cmd     cmd    1 *
'

mode=${1-}
root=${2-}
case $mode in report|fail) ;; *) echo "usage: layers.sh report|fail ROOT [OBJ...]" >&2; exit 2;; esac
[ -d "$root" ] || { echo "layers.sh: $root: no such directory" >&2; exit 2; }
shift 2
[ $# -gt 0 ] || set -- $(find "$root" -name '*.o' | sort)
entry_h=${ENTRY_H-patchsite/arch/entry.h}

tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT

# "object symbol" for the globals each object defines, then for the ones it uses.
nm -A -P --defined-only "$@" | awk '$3 ~ /^[A-Z]$/ { sub(/:$/, "", $1); print $1, $2 }' \
	| sort -k2 >"$tmp/def" || exit 2
nm -A -P -u "$@" | awk '{ sub(/:$/, "", $1); print $1, $2 }' | sort -k2 >"$tmp/use" || exit 2
# "user definer symbol", files named relative to ROOT without .o.
join -1 2 -2 2 -o 1.1,2.1,0 "$tmp/use" "$tmp/def" \
	| awk -v r="$root/" '{ for (i = 1; i <= 2; i++) { sub("^" r, "", $i); sub(/\.o$/, "", $i) }
	                        if ($1 != $2) print }' | sort -u >"$tmp/pairs"

# The declared entry points, one a line (words of the header that some object defines).
: >"$tmp/entry"
[ -f "$entry_h" ] && tr -c 'A-Za-z0-9_' '\n' <"$entry_h" | sort -u >"$tmp/entry"

# up and place: judge each pair by the layers of its two files.
awk -v layers="$LAYERS" -v entries="$tmp/entry" -v objs="$(printf '%s\n' "$@" | sed "s|^$root/||; s|\.o\$||")" '
function layer(f,   d, b) {
	if (f ~ /\//) {
		d = f; sub(/\/.*/, "", d)
		return (d == "x86_64" || d == "aarch64") ? "arch" : d
	}
	b = f
	if (b ~ /^api/) return "api"
	if (b == "start" || b == "dl" || b == "gprof" || b == "exit" || b == "spawn") return "top"
	return ""
}
function may_use(a, b) {
	if (a == b || index(also[a] " ", " * ") || index(also[a] " ", " " b " ")) return 1
	return chain[a] == chain[b] && level[a] >= level[b]
}
BEGIN {
	n = split(layers, row, "\n")
	for (i = 1; i <= n; i++) {
		if (split(row[i], w, " ") < 3) continue
		chain[w[2]] = w[1]; level[w[2]] = w[3]; also[w[2]] = ""
		for (j = 4; j in w; j++) also[w[2]] = also[w[2]] " " w[j]
	}
	while ((getline s < entries) > 0) entry[s] = 1
	n = split(objs, o, "\n")
	for (i = 1; i <= n; i++)
		if (o[i] != "" && !(layer(o[i]) in chain))
			printf "place  %s is in no layer folder\n", o[i]
}
{
	a = layer($1); b = layer($2)
	if (!(a in chain) || !(b in chain) || may_use(a, b)) next
	if (a == "arch" && ($3 in entry)) next
	printf "up     %s (%s) -> %s (%s): %s\n", $1, a, $2, b, $3
}' "$tmp/pairs" >"$tmp/found"

# loop: the pairs inside each folder through tsort; a loop it reports is printed edge by edge.
awk '{ a = $1; b = $2; sub(/[^\/]*$/, "", a); sub(/[^\/]*$/, "", b); if (a == b) print $1, $2 }' \
	"$tmp/pairs" | sort -u >"$tmp/inner"
tsort "$tmp/inner" 2>&1 >/dev/null | sed -n 's/^tsort: //p' | awk -v pairs="$tmp/pairs" '
BEGIN { while ((getline l < pairs) > 0) { split(l, w, " "); if (!((w[1], w[2]) in sym)) sym[w[1], w[2]] = w[3] } }
function flush(   i, nx) {
	for (i = 1; i <= n; i++) {
		nx = (i < n) ? m[i + 1] : m[1]
		if ((m[i], nx) in sym) printf "loop   %s -> %s: %s\n", m[i], nx, sym[m[i], nx]
	}
	n = 0
}
/input contains a loop:/ { flush(); next }
{ m[++n] = $0 }
END { flush() }' | awk '!seen[$0]++' >>"$tmp/found"

count=$(wc -l <"$tmp/found")
cat "$tmp/found"
echo "layers.sh: $count finding(s) in $# objects under $root ($mode mode):" \
	"$(grep -c '^up ' "$tmp/found") up, $(grep -c '^loop ' "$tmp/found") loop," \
	"$(grep -c '^place ' "$tmp/found") place"
[ "$mode" = fail ] && [ "$count" -gt 0 ] && exit 1
exit 0
