#!/bin/sh
# make demo: compile the sample as Kbuild would, record its call sites, show the result.
set -e
B=${1:-build}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
flags="-O2 -fno-pie -mcmodel=kernel -mno-red-zone -pg -mfentry"
echo "\$ gcc $flags -c testdata/demo/sample.c -o sample.o"
gcc $flags -c testdata/demo/sample.c -o "$out/sample.o"
echo
echo "\$ recordmcount --list sample.o      # what will be recorded"
(cd "$out" && "$OLDPWD/$B/recordmcount" --list sample.o)
echo
echo "\$ recordmcount -w sample.o"
(cd "$out" && "$OLDPWD/$B/recordmcount" -w sample.o)
echo
echo "\$ readelf -rW sample.o               # the new table"
readelf -rW "$out/sample.o" | sed -n '/__mcount_loc/,$p'
echo
echo "\$ objdump -d -j .exit.text sample.o  # the untraced call is now a NOP"
objdump -dr -j .exit.text "$out/sample.o" | sed -n '/<teardown>:/,$p' | head -4
