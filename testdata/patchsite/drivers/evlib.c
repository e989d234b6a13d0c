// SPDX-License-Identifier: GPL-2.0-only
/* A library with an event, loaded with dlopen by evprog.c (events.sh). */
#include "events.h"

int evlib_evals;

static int arg(int x)
{
	evlib_evals++;
	return x;
}

void evlib_run(int n)
{
	for (int i = 0; i < n; i++)
		patchsite_trace(evlib, hello, arg(i));
}
