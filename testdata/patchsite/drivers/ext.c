// SPDX-License-Identifier: GPL-2.0-only
/*
 * Extended ring records (data/format.h PSD_EXT_*) from the writer in record/ring.c
 * to the one reader (patchsite/data/).  The oracle is the payload written:
 *   ext write DIR   records kind 1 "hello, world", kind 6 {7, 0, 0} (zero
 *                   words at the end of the data), kind 200 with no payload,
 *                   and refuses a record of PSD_EXT_MAX_WORDS + 1 words;
 *   ext read DIR    finds exactly those three records, in order, with
 *                   their payloads, between the function events around them.
 * Linked with libpatchsite.a: ps_ring_ext and psr_* are the library's own
 * (hidden, so reached from a static link only).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "../../../patchsite/data/format.h"
#include "../../../patchsite/data/psread.h"

bool ps_ring_ext(unsigned kind, const uint64_t *payload, unsigned words);
long work_count(long a);

static int failures;
static const char text[] = "hello, world";

static int write_side(void)
{
	uint64_t w[2] = { 0 }, z[3] = { 7, 0, 0 }, *big = calloc(PSD_EXT_MAX_WORDS + 1, 8);

	memcpy(w, text, sizeof(text));
	work_count(1);
	CHECK(ps_ring_ext(PSD_EXT_MARKER, w, 2), "a two-word record is written");
	CHECK(ps_ring_ext(6, z, 3), "a record ending in zero words is written");
	CHECK(ps_ring_ext(200, NULL, 0), "a record with no payload is written");
	CHECK(big && !ps_ring_ext(7, big, PSD_EXT_MAX_WORDS + 1), "a record over the limit is refused");
	CHECK(!ps_ring_ext(0, z, 1), "kind 0 (a plain mark) is refused");
	work_count(2);
	free(big);
	return failures;
}

static int read_side(const char *dir)
{
	struct psr_session *s;
	struct psr_cursor c;
	struct psr_event ev;
	unsigned ext = 0, funcs = 0, bad = 0;

	if (psr_open(dir, stderr, &s)) {
		CHECK(0, "open %s", dir);
		return failures;
	}
	CHECK(s->nprocs == 1 && s->procs[0].nthreads == 1, "one process, one thread");
	if (s->nprocs != 1 || s->procs[0].nthreads != 1)
		goto out;
	psr_cursor_init(&c, &s->procs[0], &s->procs[0].threads[0]);
	while (psr_next(&c, &ev)) {
		if (ev.type != PSR_EXT) {
			funcs += ev.type == PSR_FUNC;
			/* work_count(1) before the records, work_count(2) after them */
			bad += ev.type == PSR_FUNC && funcs == 2 && ext != 3;
			continue;
		}
		switch (ext++) {
		case 0:
			CHECK(ev.ext_kind == PSD_EXT_MARKER && ev.nwords == 2 && !ev.truncated &&
			      !memcmp(ev.payload, text, sizeof(text)), "record 1: kind 1, the text");
			break;
		case 1:
			CHECK(ev.ext_kind == 6 && ev.nwords == 3 && ev.payload[0] == 7 &&
			      !ev.payload[1] && !ev.payload[2], "record 2: kind 6, 7 0 0");
			break;
		case 2:
			CHECK(ev.ext_kind == 200 && ev.nwords == 0, "record 3: kind 200, empty");
			break;
		}
		CHECK(ev.tsc && ev.tsc >= s->procs[0].tsc0, "record %u: time stamp after the start", ext);
	}
	CHECK(ext == 3, "three extended records (%u)", ext);
	CHECK(funcs == 2 && !bad, "the function events on either side (%u)", funcs);
	CHECK(s->procs[0].threads[0].ext == 3, "counted as extended records");
out:
	psr_close(s);
	return failures;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "write"))
		return write_side();
	if (argc == 3 && !strcmp(argv[1], "read"))
		return read_side(argv[2]);
	fprintf(stderr, "usage: ext write|read DIR\n");
	return 2;
}
