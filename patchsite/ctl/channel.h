/* SPDX-License-Identifier: GPL-2.0-only */
/* The control channel's part of a fork (channel.c); the rest is in internal.h. */
#ifndef PS_CTL_CHANNEL_H
#define PS_CTL_CHANNEL_H

void ps_channel_before_fork(void);	/* a forked child's thread has started, or gave up */

#endif
