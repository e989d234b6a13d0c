#!/bin/sh
# The layer check of libpatchsite and its readers (issue #22; the layer map: patchsite/internal.h).
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
# With SRC set to the sources' folder (patchsite, whose objects ROOT holds), two more:
#   include  a source file of SRC includes a header of a higher layer, found the way the
#            compiler finds it: beside the file, in INC (dirs outside SRC, default
#            "include lib/arch": not judged), in SRC, SRC/arch, SRC/arch/* (host.h);
#   map      a .c file is not named ("name.c") in its folder's map header (MAPS below).
# report: print the findings, exit 0.  fail: print them, exit 1 when there is one.
#
# The one declared exception: the arch trampolines call the C entry points listed in
# ROOT-relative patchsite/arch/entry.h (ENTRY_H overrides the path), as every tracer's
# trampoline calls back into its core.
set -u
# Not a suite (no suite_init): the checker itself, which tests/layers/selftest.sh (a suite)
# runs on fixture trees and judges by its status and lines.

# The layers, one folder a line, lowest first in each order. A folder may use a folder of its own
# order with a lower or equal level, and the folders named in its last column.
# core/ includes data/format.h, the trace format every layer writes or reads (types only).
# verify/ (patchverify) is a chain of its own: only its loops are looked for.
LAYERS='
runtime core   1 data
runtime arch   2
runtime sites  3
runtime record 4 data render
runtime events 4 data render
runtime api    5 data render
runtime ctl    6 data render
runtime hooks  7 data render
reader  data   1
reader  render 2
cmd     cmd    1 *
tool    verify 1
'

# The header that maps each folder's files, longest folder first wins; a folder not listed uses
# its parent's.  internal.h, the header of api/, ctl/ and hooks/, counts as the lowest of
# them (api).
MAPS='
api internal.h
hooks internal.h
core core/core.h
arch arch/arch.h
sites sites/sites.h
record record/record.h
events events/event.h
ctl ctl/control.h
data data/psread.h
render render/render.h
cmd cmd/cmd.h
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

# The layers in awk: a file's layer by its path (an object, or a source with its extension),
# whether layer a may use layer b.
judge='
function layer(f,   d, b) {
	if (f ~ /\//) {
		d = f; sub(/\/.*/, "", d)
		return (d == "x86_64" || d == "aarch64") ? "arch" : d
	}
	return f ~ /^internal\.h$/ ? "api" : ""
}
function may_use(a, b) {
	if (a == b || index(also[a] " ", " * ") || index(also[a] " ", " " b " ")) return 1
	return chain[a] == chain[b] && level[a] >= level[b]
}
function load_layers(   n, i, j, row, w) {
	n = split(layers, row, "\n")
	for (i = 1; i <= n; i++) {
		if (split(row[i], w, " ") < 3) continue
		chain[w[2]] = w[1]; level[w[2]] = w[3]; also[w[2]] = ""
		for (j = 4; j in w; j++) also[w[2]] = also[w[2]] " " w[j]
	}
}
'

# up and place: judge each pair by the layers of its two files.
awk -v layers="$LAYERS" -v entries="$tmp/entry" -v objs="$(printf '%s\n' "$@" | sed "s|^$root/||; s|\.o\$||")" "$judge"'
BEGIN {
	load_layers()
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

# include: "file header" pairs, SRC-relative, for each #include "..." that resolves inside SRC.
if [ -n "${SRC-}" ]; then
	(cd "$SRC" && find . -name '*.[chS]' | sed 's|^\./||' | sort) >"$tmp/src"
	srcinc=". arch $(cd "$SRC" && find arch -mindepth 1 -maxdepth 1 -type d 2>/dev/null | sort)"
	while read -r f; do
		d=$(dirname "$f")
		sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$SRC/$f" |
		while read -r h; do
			# beside the file; outside SRC (not judged); in SRC's own include dirs
			hit=
			[ -f "$SRC/$d/$h" ] && hit=$d/$h
			if [ -z "$hit" ]; then
				for c in ${INC-include lib/arch}; do [ -f "$c/$h" ] && continue 2; done
				for c in $srcinc; do [ -f "$SRC/$c/$h" ] && { hit=$c/$h; break; }; done
			fi
			[ -n "$hit" ] || continue
			# dir/../x -> x
			hit=$(printf '%s\n' "$hit" | sed -e 's|^\./||' -e ':a' -e 's|[^/.][^/]*/\.\./||' -e 'ta')
			printf '%s %s\n' "$f" "$hit"
		done
	done <"$tmp/src" >"$tmp/incl"
	awk -v layers="$LAYERS" "$judge"'
	BEGIN { load_layers() }
	# arch/ARCH/host.h, the host inline primitives (the event clock), includes only system
	# headers: below every layer, core/clock.c reads the clock through it.
	$2 ~ /^arch\/[^\/]*\/host\.h$/ { next }
	{
		a = layer($1); b = layer($2)
		if (!(a in chain) || !(b in chain) || may_use(a, b)) next
		printf "include %s (%s) -> %s (%s)\n", $1, a, $2, b
	}' "$tmp/incl" >>"$tmp/found"

	# map: each .c against the map header of its folder.
	grep '\.c$' "$tmp/src" | while read -r f; do
		d=$(dirname "$f"); k=$d
		while :; do
			m=$(printf '%s\n' "$MAPS" | awk -v k="$k" '$1 == k { print $2 }')
			[ -n "$m" ] || [ "$k" = . ] || { k=$(dirname "$k"); continue; }
			break
		done
		if [ -z "$m" ]; then
			echo "map     $f: folder $d has no map header (MAPS in tests/layers.sh)"
		elif [ ! -f "$SRC/$m" ]; then
			echo "map     $f: its map $m is missing"
		elif ! grep -qwF "$(basename "$f")" "$SRC/$m"; then
			echo "map     $f is not named in $m"
		fi
	done >>"$tmp/found"
fi

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
	"$(grep -c '^place ' "$tmp/found") place, $(grep -c '^include ' "$tmp/found") include," \
	"$(grep -c '^map ' "$tmp/found") map"
[ "$mode" = fail ] && [ "$count" -gt 0 ] && exit 1
exit 0
