/*
 * Error messages of PerfettoSQL statements, laid out as upstream's trace
 * processor lays them out, so that people and tools reading either see
 * the same thing:
 *
 *   Traceback (most recent call last):
 *     File "stdin" line 2 col 8
 *       select nosuch from slice
 *              ^
 *   no such column: nosuch
 *
 * An error inside an included module or a function body adds its own
 * frame under the caller's.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "psql_int.h"

#define TRACEBACK_HEAD	"Traceback (most recent call last):\n"

char *
psql_fmt(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) == -1)
		s = NULL;
	va_end(ap);
	return s;
}

/*
 * The frame of the statement stmt..stmt_end of the text at base, with
 * the caret at `at` (within the statement), followed by msg. msg may be
 * a traceback itself (from a nested statement): its frames follow ours.
 */
char *
psql_traceback(const char *file, const char *base, const char *at,
    const char *stmt, const char *stmt_end, const char *msg)
{
	const char *p, *ls, *le;
	size_t line = 1, col;
	char *s;

	for (p = base; p < at; p++)
		if (*p == '\n')
			line++;
	for (ls = at; ls > base && ls[-1] != '\n'; ls--)
		;
	col = (size_t)(at - ls) + 1;
	for (ls = at; ls > stmt && ls[-1] != '\n'; ls--)
		;
	for (le = at; le < stmt_end && *le != '\n'; le++)
		;
	if (msg == NULL)
		msg = "out of memory";
	if (strncmp(msg, TRACEBACK_HEAD, strlen(TRACEBACK_HEAD)) == 0)
		msg += strlen(TRACEBACK_HEAD);
	s = psql_fmt(TRACEBACK_HEAD "  File \"%s\" line %zu col %zu\n"
	    "    %.*s\n    %*s^\n%s", file, line, col, (int)(le - ls), ls,
	    (int)(at - ls), "", msg);
	return s;
}
