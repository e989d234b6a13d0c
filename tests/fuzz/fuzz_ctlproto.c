// SPDX-License-Identifier: GPL-2.0-only
/*
 * The control channel's request and reply parsing (patchsite/ctl/proto.c)
 * on arbitrary bytes, as the runtime's channel thread and the client meet
 * them.  The first 12 bytes are read as a request header and as a reply
 * header; what follows as a request's body.  Checked: no memory error or
 * undefined behaviour; a header that parses is one the maker writes back
 * byte for byte, within every bound; an accepted body yields a name and a
 * value of exactly the announced lengths.
 */
#include <stdlib.h>
#include <string.h>

#include "../../patchsite/ctl/proto.h"

static void check_request(const uint8_t *data, size_t size)
{
	struct psctl_hdr h;
	struct psctl_req r;
	uint8_t again[PSCTL_HDR];

	if (psctl_hdr_parse(data, 0, &h))
		return;
	if (h.op < PSCTL_READ || h.op >= PSCTL_OPS || h.len1 > PSCTL_MAX_NAME ||
	    h.len2 > PSCTL_MAX_VALUE)
		abort();
	psctl_hdr_make(again, 0, &h);
	if (memcmp(again, data, PSCTL_HDR))
		abort();
	if (size - PSCTL_HDR < h.len1 + h.len2)
		return;		/* the channel would wait for the rest, then time out */
	if (!psctl_req_body(&h, data + PSCTL_HDR, &r)) {
		if (strlen(r.name) != h.len1 || strlen(r.value) != h.len2 ||
		    memcmp(r.name, data + PSCTL_HDR, h.len1))
			abort();
		psctl_req_free(&r);
	}
}

static void check_reply(const uint8_t *data)
{
	struct psctl_hdr h;
	uint8_t again[PSCTL_HDR];

	if (psctl_hdr_parse(data, 1, &h))
		return;
	if (h.op > PSCTL_REFUSED || h.len1 > PSCTL_MAX_TEXT || h.err > 0xffff)
		abort();
	psctl_hdr_make(again, 1, &h);
	if (memcmp(again, data, PSCTL_HDR))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < PSCTL_HDR)
		return 0;
	check_request(data, size);
	check_reply(data);
	return 0;
}
