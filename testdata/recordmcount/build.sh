#!/bin/sh
# Builds the committed inputs of tests/recordmcount that need a cross
# compiler or serve as fuzzing seeds (make check does not run this).  Versions: see VERSIONS.
set -e
cd "$(dirname "$0")"
riscv64-linux-gnu-gcc -O1 -pg -fno-pie -c relax.c -o relax-riscv64.o
g++ -O1 -fno-pie -pg -mfentry -c comdat.cc -o comdat-x86_64.o
{
	echo "relax-riscv64.o: riscv64-linux-gnu-gcc -O1 -pg -fno-pie -c relax.c"
	riscv64-linux-gnu-gcc --version | head -1
	riscv64-linux-gnu-as --version | head -1
	echo "comdat-x86_64.o: g++ -O1 -fno-pie -pg -mfentry -c comdat.cc"
	g++ --version | head -1
	as --version | head -1
} > VERSIONS
