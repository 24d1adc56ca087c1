/*
 * TPM_REGISTER_SQL_PACKAGE: PerfettoSQL modules a client sends, as
 * --add-sql-package reads them from a directory. Every module's name is
 * "<package>.<path>"; a package that exists (the stdlib's too) is replaced
 * only with allow_override. The request is checked whole before anything
 * is registered, so a bad module leaves the engine as it was.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metrics/pbbuf.h"
#include "pbdec.h"
#include "psql/psql.h"
#include "rpc.h"

#define ARGS_PACKAGE	1
#define ARGS_MODULES	2
#define ARGS_OVERRIDE	3
#define MODULE_NAME	1
#define MODULE_SQL	2
#define RESULT_ERROR	1

static char *
err_fmt(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || (s = malloc((size_t)n + 1)) == NULL)
		return NULL;
	va_start(ap, fmt);
	vsnprintf(s, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return s;
}

/* A Module's name and SQL, pointing into the request. */
static int
module_decode(const struct pb_field *m, const uint8_t **name,
    size_t *namelen, const uint8_t **sql, size_t *sqllen)
{
	struct pb it;
	struct pb_field f;

	*name = *sql = NULL;
	*namelen = *sqllen = 0;
	pb_init(&it, m->data, m->len);
	while (pb_next_untrusted(&it, &f) == 1) {
		if (f.id == MODULE_NAME && f.wire == PB_LEN) {
			*name = f.data;
			*namelen = f.len;
		} else if (f.id == MODULE_SQL && f.wire == PB_LEN) {
			*sql = f.data;
			*sqllen = f.len;
		}
	}
	return it.err ? -1 : 0;
}

/* Checks (add == 0) or registers (add == 1) every module. */
static int
modules_walk(struct psql *ps, const void *args, size_t len, const char *pkg,
    int add, char **err)
{
	struct pb it;
	struct pb_field f;
	const uint8_t *name, *sql;
	size_t namelen, sqllen, plen = strlen(pkg);
	char *n = NULL, *s = NULL;
	int rc = 0;

	pb_init(&it, args, len);
	while (rc == 0 && pb_next_untrusted(&it, &f) == 1) {
		if (f.id != ARGS_MODULES || f.wire != PB_LEN)
			continue;
		if (module_decode(&f, &name, &namelen, &sql, &sqllen) == -1) {
			*err = strdup("malformed module");
			return -1;
		}
		if (namelen <= plen + 1 || memcmp(name, pkg, plen) != 0 ||
		    name[plen] != '.' || memchr(name, '\0', namelen) != NULL ||
		    (sql != NULL && memchr(sql, '\0', sqllen) != NULL)) {
			if ((n = strndup((const char *)name, namelen)) !=
			    NULL)
				*err = err_fmt("Module '%s' is not in"
				    " package '%s'", n, pkg);
			free(n);
			return -1;
		}
		if (!add)
			continue;
		n = strndup((const char *)name, namelen);
		s = strndup(sql ? (const char *)sql : "", sqllen);
		if (n == NULL || s == NULL) {
			*err = strdup("out of memory");
			rc = -1;
		} else
			rc = psql_module_add(ps, n, s, 0, err);
		free(n);
		free(s);
	}
	if (it.err) {
		*err = strdup("malformed RegisterSqlPackageArgs");
		return -1;
	}
	return rc;
}

void
rpc_register_sql_package_untrusted(struct rpc *r, const void *args,
    size_t len, struct pbbuf *out)
{
	struct psql *ps = psql_of(rpc_db(r));
	struct pb it;
	struct pb_field f;
	char *pkg = NULL, *err = NULL;
	int override = 0, ok = 0;

	pb_init(&it, args, len);
	while (pb_next_untrusted(&it, &f) == 1) {
		if (f.id == ARGS_PACKAGE && f.wire == PB_LEN) {
			free(pkg);
			pkg = strndup((const char *)f.data, f.len);
		} else if (f.id == ARGS_OVERRIDE && f.wire == PB_VARINT)
			override = f.u != 0;
	}
	if (ps == NULL)
		err = strdup("out of memory");
	else if (it.err)
		err = strdup("malformed RegisterSqlPackageArgs");
	else if (pkg == NULL || *pkg == '\0' || strchr(pkg, '.') != NULL)
		err = strdup("RegisterSqlPackageArgs: package_name must be"
		    " one name, without dots");
	else if (modules_walk(ps, args, len, pkg, 0, &err) == 0 &&
	    psql_package_begin(ps, pkg, override, &err) == 0 &&
	    modules_walk(ps, args, len, pkg, 1, &err) == 0 &&
	    psql_docs_fill(ps, &err) == 0)
		ok = 1;
	if (!ok)
		pbb_string(out, RESULT_ERROR, err ? err : "out of memory");
	free(err);
	free(pkg);
}
