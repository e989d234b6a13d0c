// SPDX-License-Identifier: GPL-2.0-only
/*
 * nfquick-check: the sweep's quick decoder (verify/noflag_quick.c) against
 * Capstone (nfquick_agree.c) over every opcode of the one-byte and 0F maps,
 * every ModRM byte, SIB bytes with and without a base, REX forms and the
 * prefix runs below (more than the decoder takes: what it declines costs
 * nothing here), with the displacement and immediate bytes once positive
 * (after a SIB byte with a base) and once negative (without one).  Prints how many encodings it took; each one answered
 * otherwise than Capstone is printed, and the exit status is 1.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nfquick_agree.h"

static const char *const runs[] = {
	"", "\x66", "\xf2", "\xf3", "\xf0", "\x64", "\x65", "\x2e", "\x3e", "\x66\x2e", "\x66\x66\x2e",
	"\x66\x66\x66\x2e", "\x66\x66\x66\x66\x2e", "\x66\x66\x66\x66\x66\x2e", "\x66\xf0", "\xf0\x66",
	"\x64\x66", "\x66\xf2", "\xf2\x66", "\x66\xf3", "\xf3\x66", "\x66\x66", "\xf3\xf3", "\x67",
};
/* Every REX byte (and none) after no prefix; after a prefix run, none, W and W+R+B. */
static const uint8_t rexes[] = { 0, 0x48, 0x4d, 0x40, 0x41, 0x42, 0x43, 0x44, 0x45, 0x46, 0x47,
				 0x49, 0x4a, 0x4b, 0x4c, 0x4e, 0x4f };
static const uint8_t tails[2][12] = {
	{ 0x12, 0x34, 0x56, 0x78, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x08 },
	{ 0xf0, 0xff, 0xee, 0x80, 0x90, 0xa0, 0xb0, 0xc0, 0xd0, 0xe0, 0xf0, 0x81 },
};

int main(void)
{
	unsigned long taken = 0, bad = 0;
	uint8_t b[32];
	char why[200];

	for (size_t r = 0; r < sizeof(runs) / sizeof(runs[0]); r++)
	for (size_t x = 0; x < (r ? 3 : sizeof(rexes)); x++)
	for (unsigned op = 0; op < 512; op++)
	for (unsigned modrm = 0; modrm < 256; modrm++)
	for (unsigned v = 0; v < 2; v++) {
		size_t n = strlen(runs[r]);
		memcpy(b, runs[r], n);
		if (rexes[x])
			b[n++] = rexes[x];
		if (op >= 256)
			b[n++] = 0x0f;
		b[n++] = (uint8_t)op;
		b[n++] = (uint8_t)modrm;
		b[n++] = v ? 0x25 : 0xe4;	/* SIB: no base (with mod 0), or rsp */
		memcpy(b + n, tails[v], sizeof(tails[0]));
		n += sizeof(tails[0]);
		int got = nfq_agree(b, n, 0x401000, why, sizeof(why));
		taken += got != 0;
		if (got < 0 && bad++ < (getenv("NFQ_ALL") ? ~0ul : 50)) {
			printf("differs:");
			for (size_t i = 0; i < n; i++)
				printf(" %02x", b[i]);
			printf(": %s\n", why);
		}
	}
	printf("nfquick-check: %lu encodings taken, %lu answered otherwise than Capstone\n", taken, bad);
	return bad != 0;
}
