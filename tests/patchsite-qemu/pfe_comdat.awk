# SPDX-License-Identifier: GPL-2.0-only
# g++ 12's assembly for -fpatchable-function-entry (Debian 12's aarch64-linux-gnu-g++):
# every function's entry goes into one __patchable_function_entries section, linked
# (SHF_LINK_ORDER, "o") to the unit's first function and in no COMDAT group, so ld
# refuses the entries of inline and template functions whose copy it discards ("defined
# in discarded section").  This puts each entry in a section linked to its own function
# (the label before it) and, for a function of a COMDAT group, in that group, as gcc 13
# does.  Used by realprobes.sh between g++ -S and the assembler; nothing else changes.
/^\t\.text$/ || /^\t\.section\t\.text/ { sec = $0 }
/^[A-Za-z_$][^ \t]*:$/ { fn = substr($0, 1, length($0) - 1) }
/^\t\.section\t__patchable_function_entries,"awo",@progbits,/ {
	n = split(sec, a, ",")
	if (n == 5 && a[5] == "comdat")
		print "\t.section\t__patchable_function_entries,\"awoG\",@progbits," fn "," a[4] ",comdat"
	else
		print "\t.section\t__patchable_function_entries,\"awo\",@progbits," fn
	next
}
{ print }
