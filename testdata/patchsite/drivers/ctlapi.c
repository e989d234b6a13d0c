// SPDX-License-Identifier: GPL-2.0-only
/*
 * The control files and getters from inside a program (ctl.sh builds it
 * with -pg -mfentry -mrecord-mcount and libpatchsite.so).  Oracles: the
 * values the setters were given; the program's own call counts against
 * what the built-in tracer patched (enabled_functions); ftrace's text for
 * an empty filter.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

static int failures;

__attribute__((noinline)) int ctl_one(int x) { return x + 1; }
__attribute__((noinline)) int ctl_two(int x) { return x + 2; }

int main(void)
{
	char buf[4096], small[8];
	long n;

	CHECK(!strcmp(patchsite_get_tracer(), "nop"), "get_tracer: nop at start");
	CHECK(patchsite_get_graph_max_depth() == 1024 && patchsite_get_buffer_kb() == 1024,
	      "getters: depth %u, buffer %lu KB (defaults 1024, 1024)",
	      patchsite_get_graph_max_depth(), patchsite_get_buffer_kb());
	CHECK(!patchsite_ctl_write("max_graph_depth", "7\n", 0) && patchsite_get_graph_max_depth() == 7,
	      "max_graph_depth written as echo does ('7\\n'): the getter says 7");
	CHECK(!patchsite_ctl_write("buffer_size_kb", "64", 0) && patchsite_get_buffer_kb() == 64,
	      "buffer_size_kb 64: the getter says 64");
	n = patchsite_ctl_read("set_ftrace_filter", small, sizeof(small));
	CHECK(n == (long)strlen("#### all functions enabled ####\n") && !strcmp(small, "#### al"),
	      "ctl_read cuts to its buffer and returns the whole length (%ld)", n);
	CHECK(patchsite_ctl_write("current_tracer", "blk", 0) == -EINVAL &&
	      strstr(patchsite_last_error(), "no tracer named 'blk'"),
	      "current_tracer blk: -EINVAL, '%s'", patchsite_last_error());
	CHECK(patchsite_ctl_read("no_such", buf, sizeof(buf)) == -ENOENT &&
	      patchsite_ctl_write("enabled_functions", "x", 0) == -EACCES,
	      "unknown file -ENOENT, read-only file -EACCES");

	/* A filter set while function_graph runs holds for function after a switch too. */
	CHECK(!patchsite_set_tracer("function_graph") && !strcmp(patchsite_get_tracer(), "function_graph"),
	      "function_graph set: the getter says so");
	CHECK(!patchsite_set_filter(NULL, "ctl_two", 1), "filter ctl_two under function_graph");
	CHECK(!patchsite_set_tracer("function"), "switched to function");
	n = patchsite_ctl_read("enabled_functions", buf, sizeof(buf));
	CHECK(n > 0 && strstr(buf, "ctl_two [") && !strstr(buf, "ctl_one [") &&
	      strstr(buf, "(1)\tfunction\n"),
	      "enabled_functions after the switch: ctl_two alone, by function ('%.*s')",
	      (int)(n > 0 ? n - 1 : 0), buf);
	CHECK(patchsite_stat("enabled") == 1, "one site enabled (patchsite_stat)");
	patchsite_set_tracer("nop");
	CHECK(ctl_one(1) + ctl_two(1) == 5, "the functions still compute");
	printf("ctlapi: %s\n", failures ? "FAILED" : "ok");
	return failures;
}
