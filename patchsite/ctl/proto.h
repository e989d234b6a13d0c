/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The control channel's wire format (patchsite(7)), shared by the runtime
 * (patchsite/channel.c) and the client (ctlclient.c).  One request and one
 * reply per connection, each a fixed 12-byte header then its bytes:
 *
 *   request  "PSCQ" | version u8 | op u8 | name length u16 | value length u32
 *            | name | value
 *   reply    "PSCR" | version u8 | status u8 | errno u16 | text length u32
 *            | text
 *
 * Integers little-endian.  A name is 1..PSCTL_MAX_NAME bytes, a value at
 * most PSCTL_MAX_VALUE, a reply's text at most PSCTL_MAX_TEXT; neither may
 * hold a NUL byte.  Nothing from the peer is trusted: every length is
 * checked against these bounds before anything is read or allocated.
 */
#ifndef PS_CTLPROTO_H
#define PS_CTLPROTO_H

#include <stddef.h>
#include <stdint.h>

#define PSCTL_VERSION		1
#define PSCTL_HDR		12
#define PSCTL_MAX_NAME		255
#define PSCTL_MAX_VALUE		(1u << 20)
#define PSCTL_MAX_TEXT		(64u << 20)
#define PSCTL_TIMEOUT_MS	2000	/* for the whole of a request, and of a reply */

enum psctl_op { PSCTL_READ = 1, PSCTL_WRITE, PSCTL_APPEND, PSCTL_LIST, PSCTL_OPS };
enum psctl_status { PSCTL_OK = 0, PSCTL_ERROR = 1, PSCTL_REFUSED = 2 };

struct psctl_hdr {
	unsigned op;			/* request: enum psctl_op; reply: enum psctl_status */
	unsigned err;			/* reply: a positive errno, or 0 */
	size_t len1, len2;		/* request: name, value; reply: text, 0 */
};

/*
 * A header's fields, or -EPROTO (not ours), -EPROTONOSUPPORT (another
 * version), -EINVAL (an unknown op or status), -EMSGSIZE (a length past
 * its bound).  reply selects which of the two headers p must be.
 */
int psctl_hdr_parse(const uint8_t p[PSCTL_HDR], int reply, struct psctl_hdr *h);
void psctl_hdr_make(uint8_t p[PSCTL_HDR], int reply, const struct psctl_hdr *h);

/* A request: op, and name and value NUL-terminated in one allocation (name first). */
struct psctl_req {
	unsigned op;
	char *name, *value;
};
/*
 * The h.len1 + h.len2 bytes after a parsed request header h, checked (no
 * NUL) and copied into r: 0, -EINVAL or -ENOMEM.  psctl_req_free frees.
 */
int psctl_req_body(const struct psctl_hdr *h, const uint8_t *body, struct psctl_req *r);
void psctl_req_free(struct psctl_req *r);

/* Now plus ms, for psctl_io. */
long long psctl_deadline(int ms);
/* All n bytes received (out 0) or sent (out 1) by deadline: 0, -ETIMEDOUT, -ECONNRESET, -errno. */
int psctl_io(int fd, void *buf, size_t n, int out, long long deadline);

#endif
