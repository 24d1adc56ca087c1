/* See cc_tp.h. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include <check.h>

#include "cc_tp.h"

long
cc_tp_query(const char *trace, const char *sql)
{
	char cmd[1024], line[256], last[256] = "";
	FILE *p;
	int st;

	snprintf(cmd, sizeof(cmd), "%s/daemons/trace_processor/trace_processor"
	    " -Q \"%s\" %s 2>/dev/null", getenv("top_builddir"), sql, trace);
	ck_assert_ptr_nonnull(p = popen(cmd, "r"));
	while (fgets(line, sizeof(line), p) != NULL)
		snprintf(last, sizeof(last), "%s", line);
	st = pclose(p);
	ck_assert_msg(st == 0, "trace_processor failed on: %s", sql);
	return strtol(last[0] == '"' ? last + 1 : last, NULL, 10);
}
