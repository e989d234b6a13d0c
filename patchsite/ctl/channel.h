/* SPDX-License-Identifier: GPL-2.0-only */
/* ctl/channel.c: the control channel's socket and thread (`patchsite ctl`). */
#ifndef PS_CHANNEL_H
#define PS_CHANNEL_H

/* channel.c */
void ps_channel_start(void);
void ps_channel_forked(void);
void ps_channel_stop(void);
void ps_channel_before_fork(void);	/* a forked child's thread has started, or gave up */

#endif
