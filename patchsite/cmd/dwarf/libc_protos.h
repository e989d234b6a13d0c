/* SPDX-License-Identifier: GPL-2.0-only */
/* Prototypes of common C library functions (libc_protos.c), for probes on library calls. */
#ifndef PS_CMD_LIBC_PROTOS_H
#define PS_CMD_LIBC_PROTOS_H

struct libc_proto {
	const char *name;
	const char *args;	/* fetch arguments, "NAME=$argN:TYPE ...", in the probe syntax */
	const char *ret;	/* the return value's type (u64, s32, x64...), or NULL: void */
};

/* name's prototype, or NULL when the list has none. */
const struct libc_proto *libc_proto_find(const char *name);
/*
 * The probe fetch argument for parameter pname of proto ("$arg1:u64"),
 * copied into out: 0, or -1 when proto has no parameter of that name.
 */
int libc_proto_param(const struct libc_proto *proto, const char *pname, char *out, size_t len);

#endif
