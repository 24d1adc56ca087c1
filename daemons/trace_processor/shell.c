/*
 * Query execution and output for the trace_processor program.
 */
#include <sys/time.h>

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "shell.h"
#include "psql/psql.h"

#define HISTORY_MAX	1000
#define COL_MAX		80

/* One result set, every cell already formatted. */
struct result {
	int	 ncols;
	char	**names;
	char	**cells;	/* row-major */
	size_t	 nrows, caprows;
};

static void
result_free(struct result *r)
{
	size_t i;

	for (i = 0; i < (size_t)r->ncols; i++)
		free(r->names[i]);
	for (i = 0; i < r->nrows * (size_t)r->ncols; i++)
		free(r->cells[i]);
	free(r->names);
	free(r->cells);
	memset(r, 0, sizeof(*r));
}

/* A cell as upstream's CSV writes it: strings quoted, NULL as "[NULL]". */
static char *
cell_format(sqlite3_stmt *st, int col, int csv)
{
	char buf[256];		/* upstream's: "%f" cut at 255 bytes */
	const unsigned char *s;
	char *out;
	size_t len;

	switch (sqlite3_column_type(st, col)) {
	case SQLITE_NULL:
		return strdup(csv ? "\"[NULL]\"" : "[NULL]");
	case SQLITE_INTEGER:
		snprintf(buf, sizeof(buf), "%" PRId64,
		    (int64_t)sqlite3_column_int64(st, col));
		return strdup(buf);
	case SQLITE_FLOAT:
		snprintf(buf, sizeof(buf), "%f", sqlite3_column_double(st, col));
		return strdup(buf);
	case SQLITE_BLOB:
		return strdup(csv ? "\"<raw bytes>\"" : "<raw bytes>");
	default:
		s = sqlite3_column_text(st, col);
		len = s ? strlen((const char *)s) : 0;
		if ((out = malloc(len + 3)) == NULL)
			return NULL;
		if (csv)
			snprintf(out, len + 3, "\"%s\"", s ? (const char *)s : "");
		else
			snprintf(out, len + 3, "%s", s ? (const char *)s : "");
		return out;
	}
}

static int
result_add_row(struct result *r, sqlite3_stmt *st, int csv)
{
	int c;

	if (r->nrows == r->caprows) {
		size_t ncap = r->caprows ? r->caprows * 2 : 64;
		void *p = realloc(r->cells, ncap * (size_t)r->ncols *
		    sizeof(char *));

		if (p == NULL)
			return -1;
		r->cells = p;
		r->caprows = ncap;
	}
	for (c = 0; c < r->ncols; c++)
		r->cells[r->nrows * (size_t)r->ncols + (size_t)c] =
		    cell_format(st, c, csv);
	r->nrows++;
	return 0;
}

/*
 * Runs the statements of sql; the last one with columns fills *last, or,
 * with each, every one with columns goes to each as it completes.
 * Returns -1 with *err set on the first failing statement.
 */
static int
run_statements(sqlite3 *db, const char *sql, struct result *last, int csv,
    void (*each)(const struct result *, void *), void *arg, char **err)
{
	struct psql *ps = psql_of(db);
	struct psql_iter it;
	sqlite3_stmt *st;
	int rc, c, ran = 0, quiet;

	if (ps == NULL) {
		*err = strdup("out of memory");
		return -1;
	}
	psql_iter_init(&it, "stdin", sql, strlen(sql));
	while ((rc = psql_next(ps, &it, &st, err)) == 1) {
		ran = 1;
		if (st == NULL)		/* a PerfettoSQL statement, run */
			continue;
		rc = sqlite3_step(st);
		quiet = psql_stmt_is_void(st, rc == SQLITE_ROW);
		if (sqlite3_column_count(st) > 0 && !quiet) {
			result_free(last);
			last->ncols = sqlite3_column_count(st);
			last->names = calloc((size_t)last->ncols,
			    sizeof(char *));
			for (c = 0; c < last->ncols && last->names; c++)
				last->names[c] = strdup(sqlite3_column_name(st,
				    c));
		}
		for (; rc == SQLITE_ROW; rc = sqlite3_step(st))
			if (!quiet && result_add_row(last, st, csv) == -1) {
				rc = SQLITE_NOMEM;
				break;
			}
		if (rc != SQLITE_DONE) {
			*err = psql_step_error(ps, rc == SQLITE_NOMEM ?
			    "out of memory" : sqlite3_errmsg(db));
			sqlite3_finalize(st);
			return -1;
		}
		if (each != NULL && sqlite3_column_count(st) > 0 && !quiet) {
			each(last, arg);
			result_free(last);
		}
		sqlite3_finalize(st);
	}
	if (rc == -1)
		return -1;
	if (!ran) {
		*err = strdup("No valid SQL to run");
		return -1;
	}
	return 0;
}

struct csv_out {
	FILE	*out;
	int	 sets;
};

/* One result set as CSV; a blank line between sets, as upstream. */
static void
csv_print(const struct result *r, void *arg)
{
	struct csv_out *o = arg;
	size_t i;
	int c;

	if (o->sets++ > 0)
		fputc('\n', o->out);
	for (c = 0; c < r->ncols; c++)
		fprintf(o->out, "%s\"%s\"", c ? "," : "", r->names[c]);
	fputc('\n', o->out);
	for (i = 0; i < r->nrows; i++) {
		for (c = 0; c < r->ncols; c++)
			fprintf(o->out, "%s%s", c ? "," : "",
			    r->cells[i * (size_t)r->ncols + (size_t)c]);
		fputc('\n', o->out);
	}
}

int
shell_run_csv(sqlite3 *db, const char *sql, FILE *out, char **err)
{
	struct result r;
	struct csv_out o = { out, 0 };
	int rc;

	memset(&r, 0, sizeof(r));
	rc = run_statements(db, sql, &r, 1, csv_print, &o, err);
	result_free(&r);
	return rc;
}

static void
print_table(const struct result *r, FILE *out)
{
	size_t w[256], i;
	int c, n = r->ncols < 256 ? r->ncols : 256;

	if (n == 0)
		return;
	for (c = 0; c < n; c++) {
		w[c] = strlen(r->names[c]);
		for (i = 0; i < r->nrows; i++) {
			const char *s = r->cells[i * (size_t)r->ncols +
			    (size_t)c];
			size_t l = s ? strlen(s) : 0;

			if (l > w[c])
				w[c] = l;
		}
		if (w[c] > COL_MAX)
			w[c] = COL_MAX;
	}
	for (c = 0; c < n; c++)
		fprintf(out, "%-*.*s%s", (int)w[c], (int)w[c], r->names[c],
		    c + 1 < n ? " " : "\n");
	for (c = 0; c < n; c++) {
		for (i = 0; i < w[c]; i++)
			fputc('-', out);
		fputs(c + 1 < n ? " " : "\n", out);
	}
	for (i = 0; i < r->nrows; i++)
		for (c = 0; c < n; c++) {
			const char *s = r->cells[i * (size_t)r->ncols +
			    (size_t)c];

			fprintf(out, "%-*.*s%s", (int)w[c], (int)w[c],
			    s ? s : "", c + 1 < n ? " " : "\n");
		}
	fprintf(out, "\n%zu row%s\n", r->nrows, r->nrows == 1 ? "" : "s");
}

static double
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void
shell_help(FILE *out)
{
	fputs("Statements end with ';'. Commands:\n"
	    "  .help             this text\n"
	    "  .tables           list tables and views\n"
	    "  .schema TABLE     columns of a table or view\n"
	    "  .history          statements run so far\n"
	    "  !N                run statement N of .history again\n"
	    "  .timing on|off    print the time of each statement\n"
	    "  .quit             leave (also Ctrl-D)\n", out);
}

static void
shell_query(sqlite3 *db, const char *sql, FILE *out, int timing)
{
	struct result r;
	char *err = NULL;
	double t0 = now_ms();

	memset(&r, 0, sizeof(r));
	if (run_statements(db, sql, &r, 0, NULL, NULL, &err) == -1) {
		fprintf(out, "Error: %s\n", err ? err : "?");
		free(err);
	} else {
		print_table(&r, out);
	}
	if (timing)
		fprintf(out, "Query executed in %.3f ms\n\n", now_ms() - t0);
	result_free(&r);
}

void
shell_interactive(sqlite3 *db, FILE *in, FILE *out)
{
	char *hist[HISTORY_MAX];
	size_t nhist = 0, i;
	char line[8192], *stmt = NULL;
	size_t stmtlen = 0;
	int timing = 1;

	fputs("faro trace_processor: SQL on the loaded trace; .help for help\n",
	    out);
	for (;;) {
		const char *p;
		size_t l;

		fputs(stmtlen ? "   ...> " : "> ", out);
		fflush(out);
		if (fgets(line, sizeof(line), in) == NULL)
			break;
		l = strlen(line);
		while (l > 0 && (line[l - 1] == '\n' || line[l - 1] == '\r'))
			line[--l] = '\0';
		for (p = line; *p == ' ' || *p == '\t'; p++)
			;
		if (stmtlen == 0 && *p == '\0')
			continue;
		if (stmtlen == 0 && *p == '.') {
			if (strncmp(p, ".quit", 5) == 0 ||
			    strncmp(p, ".exit", 5) == 0)
				break;
			if (strncmp(p, ".help", 5) == 0)
				shell_help(out);
			else if (strncmp(p, ".tables", 7) == 0)
				shell_query(db, "SELECT name FROM sqlite_schema"
				    " WHERE type IN ('table', 'view') AND name"
				    " NOT LIKE 'sqlite_%' AND name NOT LIKE"
				    " '\\_%' ESCAPE '\\' ORDER BY name", out, 0);
			else if (strncmp(p, ".schema ", 8) == 0) {
				char *q = sqlite3_mprintf("SELECT name, type"
				    " FROM pragma_table_info(%Q)", p + 8);

				if (q != NULL)
					shell_query(db, q, out, 0);
				sqlite3_free(q);
			} else if (strncmp(p, ".history", 8) == 0) {
				for (i = 0; i < nhist; i++)
					fprintf(out, "%4zu  %s\n", i + 1,
					    hist[i]);
			} else if (strncmp(p, ".timing", 7) == 0)
				timing = strstr(p, "off") == NULL;
			else
				fprintf(out, "Unknown command %s; .help\n", p);
			continue;
		}
		if (stmtlen == 0 && *p == '!') {
			size_t n = (size_t)strtoul(p + 1, NULL, 10);

			if (n >= 1 && n <= nhist) {
				fprintf(out, "%s\n", hist[n - 1]);
				shell_query(db, hist[n - 1], out, timing);
			} else {
				fprintf(out, "No statement %s in history\n",
				    p + 1);
			}
			continue;
		}
		/* Gather lines until the statement ends with ';'. */
		{
			char *n = realloc(stmt, stmtlen + l + 2);

			if (n == NULL)
				break;
			stmt = n;
			if (stmtlen > 0)
				stmt[stmtlen++] = ' ';
			memcpy(stmt + stmtlen, line, l + 1);
			stmtlen += l;
		}
		if (!sqlite3_complete(stmt))
			continue;
		if (nhist == HISTORY_MAX) {
			free(hist[0]);
			memmove(hist, hist + 1, (HISTORY_MAX - 1) *
			    sizeof(hist[0]));
			nhist--;
		}
		hist[nhist++] = strdup(stmt);
		shell_query(db, stmt, out, timing);
		stmtlen = 0;
	}
	fputc('\n', out);
	free(stmt);
	for (i = 0; i < nhist; i++)
		free(hist[i]);
}

void
shell_print_import_errors(sqlite3 *db, FILE *out)
{
	sqlite3_stmt *st;
	int header = 0;

	if (sqlite3_prepare_v2(db, "SELECT name, idx, severity, value FROM"
	    " stats WHERE severity IN ('error', 'data_loss') AND value > 0"
	    " ORDER BY name, idx", -1, &st, NULL) != SQLITE_OK)
		return;
	while (sqlite3_step(st) == SQLITE_ROW) {
		if (!header) {
			fputs("Import errors and data losses (from the stats"
			    " table):\n", out);
			header = 1;
		}
		if (sqlite3_column_type(st, 1) == SQLITE_NULL)
			fprintf(out, "  %-45s %-9s %lld\n",
			    sqlite3_column_text(st, 0),
			    sqlite3_column_text(st, 2),
			    (long long)sqlite3_column_int64(st, 3));
		else
			fprintf(out, "  %-40s[%lld] %-9s %lld\n",
			    sqlite3_column_text(st, 0),
			    (long long)sqlite3_column_int64(st, 1),
			    sqlite3_column_text(st, 2),
			    (long long)sqlite3_column_int64(st, 3));
	}
	sqlite3_finalize(st);
}
