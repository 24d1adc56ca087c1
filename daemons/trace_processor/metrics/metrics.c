/*
 * Metrics: the registry of metric definitions and their computation. See
 * metrics.h.
 */
#include "config.h"

#include <sys/stat.h>

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "metrics.h"
#include "mproto.h"
#include "pbbuf.h"
#include "daemons/trace_processor/psql/psql.h"

/* A user's file may be at most this big. */
#define METRICS_MAX_FILE	(4u << 20)
/* RUN_METRIC may nest this deep. */
#define METRICS_MAX_NEST	8

struct mdef {
	char	*name;		/* file name without .sql */
	char	*sql;
};

struct metrics {
	struct mp_pool	 pool;
	struct mdef	*defs;
	size_t		 ndefs;
	const char	**names;	/* metrics_names() */
};

static int
errf(char **err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int
errf(char **err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(err, fmt, ap) == -1)
		*err = NULL;
	va_end(ap);
	return -1;
}

static int
metrics_add_sql(struct metrics *mx, const char *fname, const char *text,
    size_t len)
{
	struct mdef *nd;
	const char *dot = strrchr(fname, '/');
	char *name, *sql;
	size_t i, n;

	fname = dot ? dot + 1 : fname;
	n = strlen(fname);
	if (n > 4 && strcmp(fname + n - 4, ".sql") == 0)
		n -= 4;
	if ((name = strndup(fname, n)) == NULL ||
	    (sql = strndup(text, len)) == NULL) {
		free(name);
		return -1;
	}
	for (i = 0; i < mx->ndefs; i++)
		if (strcmp(mx->defs[i].name, name) == 0) {
			/* A user's file replaces one of the same name. */
			free(mx->defs[i].sql);
			mx->defs[i].sql = sql;
			free(name);
			return 0;
		}
	if ((nd = reallocarray(mx->defs, mx->ndefs + 1, sizeof(*nd))) ==
	    NULL) {
		free(name);
		free(sql);
		return -1;
	}
	mx->defs = nd;
	nd[mx->ndefs].name = name;
	nd[mx->ndefs].sql = sql;
	mx->ndefs++;
	free(mx->names);
	mx->names = NULL;
	return 0;
}

static int
has_suffix(const char *s, const char *suf)
{
	size_t a = strlen(s), b = strlen(suf);

	return a > b && strcmp(s + a - b, suf) == 0;
}

struct metrics *
metrics_new(char **err)
{
	struct metrics *mx;
	const struct metrics_file *f;
	char e[256];

	*err = NULL;
	if ((mx = calloc(1, sizeof(*mx))) == NULL) {
		*err = strdup("out of memory");
		return NULL;
	}
	mp_pool_init(&mx->pool);
	for (f = metrics_builtin_files; f->name != NULL; f++) {
		if (has_suffix(f->name, ".proto")) {
			if (mp_parse_untrusted(&mx->pool, f->text,
			    strlen(f->text), f->name, e, sizeof(e)) == -1) {
				*err = strdup(e);
				goto fail;
			}
		} else if (metrics_add_sql(mx, f->name, f->text,
		    strlen(f->text)) == -1) {
			*err = strdup("out of memory");
			goto fail;
		}
	}
	if (mp_resolve(&mx->pool, e, sizeof(e)) == -1) {
		*err = strdup(e);
		goto fail;
	}
	return mx;
fail:
	metrics_free(mx);
	return NULL;
}

void
metrics_free(struct metrics *mx)
{
	size_t i;

	if (mx == NULL)
		return;
	mp_pool_free(&mx->pool);
	for (i = 0; i < mx->ndefs; i++) {
		free(mx->defs[i].name);
		free(mx->defs[i].sql);
	}
	free(mx->defs);
	free(mx->names);
	free(mx);
}

struct mp_pool *
metrics_pool(struct metrics *mx)
{
	return &mx->pool;
}

const char *const *
metrics_names(struct metrics *mx)
{
	size_t i;

	if (mx->names == NULL) {
		if ((mx->names = calloc(mx->ndefs + 1,
		    sizeof(*mx->names))) == NULL)
			return NULL;
		for (i = 0; i < mx->ndefs; i++)
			mx->names[i] = mx->defs[i].name;
	}
	return mx->names;
}

static char *
read_small_file(const char *path, size_t *len, char **err)
{
	struct stat st;
	char *buf;
	ssize_t n;
	size_t got = 0;
	int fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1) {
		errf(err, "%s: %s", path, strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode) ||
	    (uint64_t)st.st_size > METRICS_MAX_FILE) {
		errf(err, "%s: not a regular file of at most %u bytes", path,
		    METRICS_MAX_FILE);
		close(fd);
		return NULL;
	}
	if ((buf = malloc((size_t)st.st_size + 1)) == NULL) {
		close(fd);
		errf(err, "out of memory");
		return NULL;
	}
	while (got < (size_t)st.st_size &&
	    (n = read(fd, buf + got, (size_t)st.st_size - got)) > 0)
		got += (size_t)n;
	close(fd);
	buf[got] = '\0';
	*len = got;
	return buf;
}

/* Loads every file with suffix from dir, in name order. */
static int
load_dir(struct metrics *mx, const char *dir, const char *suffix, char **err)
{
	struct dirent **ents = NULL;
	char path[4096], e[256], *text;
	size_t len;
	int i, n, rc = 0;

	if ((n = scandir(dir, &ents, NULL, alphasort)) == -1)
		return errf(err, "%s: %s", dir, strerror(errno));
	for (i = 0; i < n; i++) {
		if (rc == 0 && ents[i]->d_name[0] != '.' &&
		    has_suffix(ents[i]->d_name, suffix)) {
			snprintf(path, sizeof(path), "%s/%s", dir,
			    ents[i]->d_name);
			if ((text = read_small_file(path, &len, err)) == NULL)
				rc = -1;
			else if (*suffix == '.' && suffix[1] == 'p') {
				if (mp_parse_untrusted(&mx->pool, text, len,
				    path, e, sizeof(e)) == -1)
					rc = errf(err, "%s", e);
			} else if (metrics_add_sql(mx, path, text, len) == -1)
				rc = errf(err, "out of memory");
			free(text);
		}
		free(ents[i]);
	}
	free(ents);
	return rc;
}

static int
is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int
metrics_add_extension(struct metrics *mx, const char *arg, char **err)
{
	char dir[4096], sub[4200], e[256], *at;

	*err = NULL;
	/* Upstream's DISK_PATH@VIRTUAL_PATH: the virtual part is unused. */
	snprintf(dir, sizeof(dir), "%s", arg);
	if ((at = strchr(dir, '@')) != NULL)
		*at = '\0';
	if (!is_dir(dir))
		return errf(err, "%s: not a directory", dir);
	snprintf(sub, sizeof(sub), "%s/protos", dir);
	if (load_dir(mx, is_dir(sub) ? sub : dir, ".proto", err) == -1)
		return -1;
	snprintf(sub, sizeof(sub), "%s/sql", dir);
	if (load_dir(mx, is_dir(sub) ? sub : dir, ".sql", err) == -1)
		return -1;
	if (mp_resolve(&mx->pool, e, sizeof(e)) == -1)
		return errf(err, "%s: %s", dir, e);
	return 0;
}

int
metrics_register_sql(struct metrics *mx, sqlite3 *db, char **err)
{
	return metrics_register_sql_pool(&mx->pool, db, err);
}

static struct mdef *
metrics_find(struct metrics *mx, const char *name)
{
	size_t i;

	for (i = 0; i < mx->ndefs; i++)
		if (strcmp(mx->defs[i].name, name) == 0)
			return &mx->defs[i];
	return NULL;
}

/* ---- upstream SQL dialect ------------------------------------------ */

/* The expanded SQL is built in an SQLite string (sqlite3_str). */
static void
sb_add(sqlite3_str *b, const char *p, size_t n)
{
	sqlite3_str_append(b, p, (int)n);
}

static int
word_at(const char *p, const char *end, const char *w)
{
	size_t n = strlen(w);

	return (size_t)(end - p) >= n && strncasecmp(p, w, n) == 0 &&
	    (p + n == end || !(isalnum((unsigned char)p[n]) || p[n] == '_'));
}

static const char *
skip_ws(const char *p, const char *end)
{
	while (p < end && isspace((unsigned char)*p))
		p++;
	return p;
}

/* A quoted SQL string at p into out; returns the end or NULL. */
static const char *
sql_string(const char *p, const char *end, char *out, size_t outlen)
{
	size_t n = 0;

	if (p >= end || *p != '\'')
		return NULL;
	for (p++; p < end; p++) {
		if (*p == '\'') {
			if (p + 1 < end && p[1] == '\'')
				p++;
			else
				break;
		}
		if (n + 1 < outlen)
			out[n++] = *p;
	}
	out[n] = '\0';
	return p < end ? p + 1 : NULL;
}

static int	expand_sql(struct metrics *, const char *, const char *const *,
		    size_t, sqlite3_str *, int, char **);

/*
 * "SELECT RUN_METRIC('x.sql', 'k', 'v', ...);" becomes x's statements
 * with {{k}} replaced by v.
 */
static const char *
expand_run_metric(struct metrics *mx, const char *p, const char *end,
    sqlite3_str *out, int depth, char **err)
{
	char file[256], args[16][256];
	const char *argv[16];
	size_t nargs = 0, n;
	struct mdef *d;

	p = skip_ws(p + strlen("RUN_METRIC"), end);
	if (p >= end || *p != '(')
		return NULL;
	p = skip_ws(p + 1, end);
	if ((p = sql_string(p, end, file, sizeof(file))) == NULL)
		return NULL;
	for (;;) {
		p = skip_ws(p, end);
		if (p < end && *p == ')')
			break;
		if (p >= end || *p != ',' || nargs >= 16)
			return NULL;
		p = skip_ws(p + 1, end);
		if ((p = sql_string(p, end, args[nargs], sizeof(args[0]))) ==
		    NULL)
			return NULL;
		argv[nargs] = args[nargs];
		nargs++;
	}
	p = skip_ws(p + 1, end);
	if (p < end && *p == ';')
		p++;
	n = strlen(file);
	if (n > 4 && strcmp(file + n - 4, ".sql") == 0)
		file[n - 4] = '\0';
	if (strrchr(file, '/') != NULL)
		memmove(file, strrchr(file, '/') + 1,
		    strlen(strrchr(file, '/')));
	if ((d = metrics_find(mx, file)) == NULL) {
		errf(err, "RUN_METRIC: no metric file %s.sql", file);
		return NULL;
	}
	if (expand_sql(mx, d->sql, argv, nargs, out, depth + 1, err) == -1)
		return NULL;
	sb_add(out, ";\n", 2);
	return p;
}

/*
 * Inlines RUN_METRIC (the metric files' own include) and substitutes
 * {{arg}}; PerfettoSQL (INCLUDE, CREATE PERFETTO ...) is run as such.
 */
static int
expand_sql(struct metrics *mx, const char *sql, const char *const *args,
    size_t nargs, sqlite3_str *out, int depth, char **err)
{
	const char *p = sql, *end = sql + strlen(sql), *q;
	size_t i;
	int fresh = 1;	/* nothing but blanks since the last statement */

	if (depth > METRICS_MAX_NEST)
		return errf(err, "RUN_METRIC nested too deep");
	while (p < end) {
		if (*p == '\'' || *p == '"') {
			char c = *p;

			for (q = p + 1; q < end && *q != c; q++)
				;
			q = q < end ? q + 1 : end;
			sb_add(out, p, (size_t)(q - p));
			p = q;
			fresh = 0;
			continue;
		}
		if (p + 1 < end && p[0] == '-' && p[1] == '-') {
			for (q = p; q < end && *q != '\n'; q++)
				;
			p = q;
			continue;
		}
		if (p + 1 < end && p[0] == '{' && p[1] == '{') {
			for (i = 0; i + 1 < nargs; i += 2) {
				size_t n = strlen(args[i]);

				if ((size_t)(end - p) >= n + 4 &&
				    strncmp(p + 2, args[i], n) == 0 &&
				    strncmp(p + 2 + n, "}}", 2) == 0) {
					sb_add(out, args[i + 1],
					    strlen(args[i + 1]));
					p += n + 4;
					break;
				}
			}
			if (i + 1 < nargs)
				continue;
		}
		if (p == sql || !(isalnum((unsigned char)p[-1]) ||
		    p[-1] == '_')) {
			if (fresh && word_at(p, end, "SELECT")) {
				q = skip_ws(p + 6, end);
				if (word_at(q, end, "RUN_METRIC")) {
					q = expand_run_metric(mx, q, end, out,
					    depth, err);
					if (q == NULL)
						return *err ? -1 : errf(err,
						    "bad RUN_METRIC call");
					p = q;
					continue;
				}
			}
		}
		sb_add(out, p, 1);
		if (*p == ';')
			fresh = 1;
		else if (!isspace((unsigned char)*p))
			fresh = 0;
		p++;
	}
	return sqlite3_str_errcode(out) != SQLITE_OK ?
	    errf(err, "out of memory") : 0;
}

/* ---- computing ------------------------------------------------------ */

struct req {
	const char		*name;
	const struct mp_field	*field;
	struct mdef		*def;
};

static int
req_cmp(const void *a, const void *b)
{
	const struct req *x = a, *y = b;

	return (x->field->number > y->field->number) -
	    (x->field->number < y->field->number);
}

static int
metrics_run_one(struct metrics *mx, sqlite3 *db, struct req *r,
    struct pbbuf *out, char **err)
{
	sqlite3_str *sql = sqlite3_str_new(db);
	sqlite3_stmt *st;
	char *emsg = NULL, *q, *text;
	int rc;

	/* The output view is the metric's by convention: start afresh. */
	q = sqlite3_mprintf("DROP VIEW IF EXISTS \"%w_output\"", r->name);
	sqlite3_exec(db, q, NULL, NULL, NULL);
	sqlite3_free(q);
	rc = expand_sql(mx, r->def->sql, NULL, 0, sql, 0, err);
	text = sqlite3_str_finish(sql);
	if (rc == -1) {
		sqlite3_free(text);
		return -1;
	}
	/* Metric SQL may use PerfettoSQL (INCLUDE PERFETTO MODULE, ...). */
	rc = psql_exec(db, text ? text : "", &emsg);
	sqlite3_free(text);
	if (rc != 0) {
		errf(err, "metric %s: %s", r->name, emsg ? emsg : "?");
		free(emsg);
		return -1;
	}
	q = sqlite3_mprintf("SELECT * FROM \"%w_output\"", r->name);
	rc = sqlite3_prepare_v2(db, q, -1, &st, NULL);
	sqlite3_free(q);
	if (rc != SQLITE_OK)
		return errf(err, "metric %s: %s", r->name, sqlite3_errmsg(db));
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		int t = sqlite3_column_type(st, 0);

		if (t == SQLITE_BLOB) {
			const void *b = sqlite3_column_blob(st, 0);
			int n = sqlite3_column_bytes(st, 0);

			pbb_bytes(out, r->field->number, b ? b : "",
			    (size_t)n);
		} else if (t != SQLITE_NULL) {
			sqlite3_finalize(st);
			return errf(err, "metric %s: %s_output does not hold "
			    "a message (the first column should be a proto "
			    "built with %s(...))", r->name, r->name,
			    r->field->msg->short_name);
		}
	} else if (rc != SQLITE_DONE) {
		errf(err, "metric %s: %s", r->name, sqlite3_errmsg(db));
		sqlite3_finalize(st);
		return -1;
	}
	sqlite3_finalize(st);
	return 0;
}

int
metrics_compute(struct metrics *mx, sqlite3 *db, const char *const *names,
    size_t nnames, struct pbbuf *out, char **err)
{
	struct mp_msg *tm;
	struct req *reqs;
	size_t i;
	int rc = 0;

	*err = NULL;
	if ((tm = mp_find_msg(&mx->pool, "perfetto.protos.TraceMetrics")) ==
	    NULL)
		return errf(err, "no TraceMetrics message");
	if (nnames == 0)
		return errf(err, "no metric named");
	if ((reqs = calloc(nnames, sizeof(*reqs))) == NULL)
		return errf(err, "out of memory");
	for (i = 0; i < nnames && rc == 0; i++) {
		reqs[i].name = names[i];
		if ((reqs[i].def = metrics_find(mx, names[i])) == NULL)
			rc = errf(err, "unknown metric: %s", names[i]);
		else if ((reqs[i].field = mp_field_by_name(tm, names[i])) ==
		    NULL || reqs[i].field->type != MP_MESSAGE)
			rc = errf(err, "metric %s: TraceMetrics has no message "
			    "field %s (declare it with extend TraceMetrics)",
			    names[i], names[i]);
	}
	if (rc == 0)
		rc = metrics_register_sql(mx, db, err);
	if (rc == 0)
		qsort(reqs, nnames, sizeof(*reqs), req_cmp);
	for (i = 0; i < nnames && rc == 0; i++) {
		if (i > 0 && reqs[i].field == reqs[i - 1].field)
			continue;
		rc = metrics_run_one(mx, db, &reqs[i], out, err);
	}
	free(reqs);
	if (rc == 0 && out->oom)
		rc = errf(err, "out of memory");
	return rc;
}

char **
metrics_split_names(const char *list, size_t *n)
{
	char **v = NULL, **nv, *copy, *tok, *save = NULL;

	*n = 0;
	if ((copy = strdup(list)) == NULL)
		return NULL;
	for (tok = strtok_r(copy, ", ", &save); tok != NULL;
	    tok = strtok_r(NULL, ", ", &save)) {
		if ((nv = reallocarray(v, *n + 1, sizeof(*v))) == NULL)
			break;
		v = nv;
		if ((v[*n] = strdup(tok)) == NULL)
			break;
		(*n)++;
	}
	free(copy);
	return v;
}

void
metrics_names_free(char **v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}
