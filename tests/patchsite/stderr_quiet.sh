# SPDX-License-Identifier: GPL-2.0-only
# Sourced by suites: only_switches_lost FILE is true when FILE (record's stderr) says
# nothing, or nothing but record's last line on scheduler switches the kernel could not
# give (record_lost.c; perf's count, PERF_RECORD_LOST, on a loaded machine), so that a
# test about events is not failed by a lost switch.  Any other line fails it, the
# "events lost" one too; the test checks `patchsite info`'s events lost itself.
only_switches_lost() {
	! grep -qv '^patchsite: .*: [0-9]* scheduler switches lost (per thread: patchsite info -d .*)$' "$1"
}
