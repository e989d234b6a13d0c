// SPDX-License-Identifier: GPL-2.0-only
/* The control channel's headers (proto.h): made and checked in one place. */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "proto.h"

static const char magic[2][4] = { { 'P', 'S', 'C', 'Q' }, { 'P', 'S', 'C', 'R' } };

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> 8 * i);
}

int psctl_hdr_parse(const uint8_t p[PSCTL_HDR], int reply, struct psctl_hdr *h)
{
	reply = reply != 0;
	if (memcmp(p, magic[reply], 4))
		return -EPROTO;
	if (p[4] != PSCTL_VERSION)
		return -EPROTONOSUPPORT;
	h->op = p[5];
	h->err = reply ? (unsigned)(p[6] | p[7] << 8) : 0;
	h->len1 = reply ? get32(p + 8) : (size_t)(p[6] | p[7] << 8);
	h->len2 = reply ? 0 : get32(p + 8);
	if (reply ? h->op > PSCTL_REFUSED : h->op < PSCTL_READ || h->op >= PSCTL_OPS)
		return -EINVAL;
	if (reply ? h->len1 > PSCTL_MAX_TEXT
		  : !h->len1 || h->len1 > PSCTL_MAX_NAME || h->len2 > PSCTL_MAX_VALUE)
		return h->op == PSCTL_LIST && !reply && !h->len1 && !h->len2 ? 0 : -EMSGSIZE;
	return 0;
}

void psctl_hdr_make(uint8_t p[PSCTL_HDR], int reply, const struct psctl_hdr *h)
{
	reply = reply != 0;
	memcpy(p, magic[reply], 4);
	p[4] = PSCTL_VERSION;
	p[5] = (uint8_t)h->op;
	if (reply) {
		p[6] = (uint8_t)h->err;
		p[7] = (uint8_t)(h->err >> 8);
		put32(p + 8, (uint32_t)h->len1);
	} else {
		p[6] = (uint8_t)h->len1;
		p[7] = (uint8_t)(h->len1 >> 8);
		put32(p + 8, (uint32_t)h->len2);
	}
}

/* 0 when n bytes at p hold no NUL, else -EINVAL. */
static int psctl_text_check(const char *p, size_t n)
{
	return n && memchr(p, '\0', n) ? -EINVAL : 0;
}

int psctl_req_body(const struct psctl_hdr *h, const uint8_t *body, struct psctl_req *r)
{
	char *p;

	*r = (struct psctl_req){ .op = h->op };
	if (h->len1 > PSCTL_MAX_NAME || h->len2 > PSCTL_MAX_VALUE)
		return -EMSGSIZE;
	if (psctl_text_check((const char *)body, h->len1) ||
	    psctl_text_check((const char *)body + h->len1, h->len2))
		return -EINVAL;
	p = malloc(h->len1 + h->len2 + 2);
	if (!p)
		return -ENOMEM;
	memcpy(p, body, h->len1);
	p[h->len1] = '\0';
	memcpy(p + h->len1 + 1, body + h->len1, h->len2);
	p[h->len1 + 1 + h->len2] = '\0';
	r->name = p;
	r->value = p + h->len1 + 1;
	return 0;
}

void psctl_req_free(struct psctl_req *r)
{
	free(r->name);
	r->name = r->value = NULL;
}

static long long mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

long long psctl_deadline(int ms)
{
	return mono_ms() + ms;
}

int psctl_io(int fd, void *buf, size_t n, int out, long long deadline)
{
	uint8_t *p = buf;

	while (n) {
		struct pollfd pfd = { .fd = fd, .events = out ? POLLOUT : POLLIN };
		long long left = deadline - mono_ms();
		ssize_t k;

		if (left <= 0)
			return -ETIMEDOUT;
		k = poll(&pfd, 1, (int)(left > 60000 ? 60000 : left));
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -errno;
		if (!k)
			continue;
		k = out ? send(fd, p, n, MSG_NOSIGNAL | MSG_DONTWAIT) : recv(fd, p, n, MSG_DONTWAIT);
		if (k < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (k < 0)
			return -errno;
		if (!k)
			return -ECONNRESET;	/* the peer closed before the message was whole */
		p += k;
		n -= (size_t)k;
	}
	return 0;
}
