/*
 * CPU time of another process (proc_cpu.h).
 */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "proc_cpu.h"

double
proc_cpu(pid_t pid)
{
	char path[64], buf[2048], *p;
	unsigned long ut = 0, st = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if ((f = fopen(path, "r")) == NULL)
		return -1;
	/* the name in parentheses may hold spaces: fields after the last ')' */
	if (fgets(buf, sizeof(buf), f) == NULL || (p = strrchr(buf, ')')) ==
	    NULL || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u "
	    "%*u %lu %lu", &ut, &st) != 2) {
		fclose(f);
		return -1;
	}
	fclose(f);
	return (double)(ut + st) / sysconf(_SC_CLK_TCK);
}
