/*
 * The demo's sample: functions in the sections a kernel object has.  ftrace
 * traces .text and .init.text; calls in .exit.text are turned into NOPs.
 */
#define __init __attribute__((section(".init.text")))
#define __exit __attribute__((section(".exit.text")))

static int scale(int x)
{
	return x * 3 + 1;
}

int work(int x)
{
	return scale(x) + 2;
}

int __attribute__((weak)) hook_point(int x)
{
	return x - 1;
}

int __init setup(int x)
{
	return work(x) + 5;
}

void __exit teardown(void)
{
	hook_point(0);
}
