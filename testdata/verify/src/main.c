/* Links with sites.c: overrides its weak wfun, leaving a dead copy with a site. */
#include <stdio.h>
extern int gfun(int);
int wfun(int x) { return x * 100; }   /* overrides the weak one in t.c */
int main(int argc, char **argv) { (void)argv; printf("%d\n", gfun(argc) + wfun(argc)); return 0; }
