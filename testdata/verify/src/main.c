/*
 * Links with sites.c: overrides its weak wfun, leaving a dead copy with a
 * site (stale-weak).  With -DNO_OVERRIDE the weak wfun is the one linked in
 * and the file is clean: the twin that stale-weak's test compares with.
 */
#include <stdio.h>
extern int gfun(int);
extern int wfun(int);
#ifndef NO_OVERRIDE
int wfun(int x) { return x * 100; }   /* overrides the weak one in sites.c */
#endif
int main(int argc, char **argv) { (void)argv; printf("%d\n", gfun(argc) + wfun(argc)); return 0; }
