/*
 * The trace_processor shell: running SQL text statement by statement and
 * printing results as upstream trace_processor_shell does (CSV for -q/-Q,
 * an aligned table at the prompt), and the interactive prompt itself.
 */
#ifndef FARO_TP_SHELL_H
#define FARO_TP_SHELL_H

#include <stdio.h>

#include <sqlite3.h>

/*
 * Runs every statement of sql; prints the result of each statement that
 * has columns as CSV on out, a blank line between them, as upstream's
 * shell does. -1 with *err (malloc'd) on failure.
 */
int	shell_run_csv(sqlite3 *, const char *sql, FILE *out, char **err);

/* Reads statements from in until EOF or .quit. */
void	shell_interactive(sqlite3 *, FILE *in, FILE *out);

/* Lists error and data-loss stats (the import summary), if any. */
void	shell_print_import_errors(sqlite3 *, FILE *out);

#endif
