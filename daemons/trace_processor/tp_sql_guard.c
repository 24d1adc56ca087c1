/*
 * What SQL may do in an engine's database: see tp_sql_guard.h.
 *
 * Whoever reaches a trace processor runs any SQL on it: a page from an
 * allowed origin through --httpd, a query shared in a bug report, a
 * metric extension. The SQLite we link is the system's, built with
 * extras no trace query needs (Debian's: FTS3/4/5 with the two-argument
 * fts3_tokenizer() that makes SQLite call a pointer taken from SQL, R*Tree,
 * dbstat, load_extension). So the database is confined three ways:
 *
 *   1. connection flags: no fts3_tokenizer pointers, no extension
 *      loading, defensive mode (no writes to the schema or raw pages),
 *      no attached databases;
 *   2. an authorizer that allows, of what SQLite itself brings, only the
 *      functions, pragmas and virtual-table modules reviewed below. What
 *      the engine registers (operators, metrics helpers) is allowed: the
 *      set of SQLite's own names is taken when the database opens, before
 *      the engine adds anything, and a name of that set not reviewed here
 *      is refused, so a newer SQLite's additions stay off until reviewed;
 *   3. files: ATTACH, and VACUUM (which attaches), are refused.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "tp_sql_guard.h"

/*
 * SQLite's own functions a trace query may use: the core scalar,
 * aggregate and window functions, date and time, math, JSON. Left out
 * (refused): fts3_tokenizer, load_extension, the FTS and R*Tree helpers
 * (their tables are refused), match, sqlite_log (writes to the error
 * log).
 */
static const char *const guard_functions[] = {
	/* core scalars */
	"abs", "changes", "char", "coalesce", "format", "glob", "hex",
	"ifnull", "iif", "instr", "last_insert_rowid", "length", "like",
	"likelihood", "likely", "lower", "ltrim", "max", "min", "nullif",
	"printf", "quote", "random", "randomblob", "replace", "round",
	"rtrim", "sign", "soundex", "sqlite_compileoption_get",
	"sqlite_compileoption_used", "sqlite_source_id", "sqlite_version",
	"substr", "substring", "subtype", "total_changes", "trim", "typeof",
	"unicode", "unlikely", "upper", "zeroblob",
	/* aggregates and windows */
	"avg", "count", "group_concat", "sum", "total", "cume_dist",
	"dense_rank", "first_value", "lag", "last_value", "lead",
	"nth_value", "ntile", "percent_rank", "rank", "row_number",
	/* date and time */
	"current_date", "current_time", "current_timestamp", "date",
	"datetime", "julianday", "strftime", "time", "unixepoch",
	/* math */
	"acos", "acosh", "asin", "asinh", "atan", "atan2", "atanh", "ceil",
	"ceiling", "cos", "cosh", "degrees", "exp", "floor", "ln", "log",
	"log10", "log2", "mod", "pi", "pow", "power", "radians", "sin",
	"sinh", "sqrt", "tan", "tanh", "trunc",
	/* JSON */
	"->", "->>", "json", "json_array", "json_array_length",
	"json_extract", "json_group_array", "json_group_object",
	"json_insert", "json_object", "json_patch", "json_quote",
	"json_remove", "json_replace", "json_set", "json_type", "json_valid",
	NULL
};

/* SQLite's own virtual-table modules a query may use: JSON walking. */
static const char *const guard_modules[] = {
	"json_each", "json_tree", NULL
};

/*
 * Pragmas that only describe the database. Those marked with an argument
 * take a table or index name (table_info(slice)); the others must be
 * asked, never set ("PRAGMA page_size" yes, "PRAGMA page_size=1" no).
 */
static const struct guard_pragma {
	const char	*name;
	int		 takes_arg;
} guard_pragmas[] = {
	{ "collation_list", 0 },	{ "compile_options", 0 },
	{ "data_version", 0 },		{ "database_list", 0 },
	{ "encoding", 0 },		{ "foreign_key_list", 1 },
	{ "freelist_count", 0 },	{ "function_list", 0 },
	{ "index_info", 1 },		{ "index_list", 1 },
	{ "index_xinfo", 1 },		{ "module_list", 0 },
	{ "page_count", 0 },		{ "page_size", 0 },
	{ "pragma_list", 0 },		{ "schema_version", 0 },
	{ "table_info", 1 },		{ "table_list", 1 },
	{ "table_xinfo", 1 },		{ "user_version", 0 },
};

struct tp_sql_guard {
	char	**denied_functions;	/* SQLite's, not reviewed */
	size_t	  ndenied_functions;
	char	**denied_modules;
	size_t	  ndenied_modules;
};

static int
guard_listed(const char *const *list, const char *name)
{
	for (; *list != NULL; list++)
		if (strcasecmp(*list, name) == 0)
			return 1;
	return 0;
}

static int
guard_in(char *const *set, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcasecmp(set[i], name) == 0)
			return 1;
	return 0;
}

/* The pragma, asked with arg (NULL: none), only describes the database. */
static int
guard_pragma_allowed(const char *name, const char *arg)
{
	size_t i;

	for (i = 0; i < sizeof(guard_pragmas) / sizeof(guard_pragmas[0]);
	    i++)
		if (strcasecmp(guard_pragmas[i].name, name) == 0)
			return arg == NULL || guard_pragmas[i].takes_arg;
	return 0;
}

/*
 * The names SQL (the pragma function_list or module_list) lists now,
 * less those in reviewed: what SQLite brings that stays refused.
 */
static int
guard_collect(sqlite3 *db, const char *sql, const char *const *reviewed,
    char ***set, size_t *n)
{
	sqlite3_stmt *st;
	const char *name;
	char **ns;
	int rc;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		name = (const char *)sqlite3_column_text(st, 0);
		/* pragma_* tables answer as their pragma: checked as such. */
		if (name == NULL || guard_listed(reviewed, name) ||
		    strncmp(name, "pragma_", 7) == 0 ||
		    guard_in(*set, *n, name))
			continue;
		if ((ns = realloc(*set, (*n + 1) * sizeof(*ns))) == NULL)
			break;
		*set = ns;
		if ((ns[*n] = strdup(name)) == NULL)
			break;
		(*n)++;
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : -1;
}

static int
guard_authorize(void *arg, int action, const char *a1, const char *a2,
    const char *db, const char *trigger)
{
	struct tp_sql_guard *g = arg;

	(void)db;
	(void)trigger;
	switch (action) {
	case SQLITE_FUNCTION:
		return a2 != NULL && guard_in(g->denied_functions,
		    g->ndenied_functions, a2) ? SQLITE_DENY : SQLITE_OK;
	case SQLITE_PRAGMA:
		return a1 != NULL && guard_pragma_allowed(a1, a2) ?
		    SQLITE_OK : SQLITE_DENY;
	case SQLITE_CREATE_VTABLE:
	case SQLITE_DROP_VTABLE:
		return a2 != NULL && guard_in(g->denied_modules,
		    g->ndenied_modules, a2) ? SQLITE_DENY : SQLITE_OK;
	case SQLITE_READ:
		/* Eponymous tables of refused modules (dbstat, sqlite_stmt). */
		return a1 != NULL && guard_in(g->denied_modules,
		    g->ndenied_modules, a1) ? SQLITE_DENY : SQLITE_OK;
	case SQLITE_ATTACH:	/* also VACUUM and VACUUM INTO */
	case SQLITE_DETACH:
		return SQLITE_DENY;
	default:
		return SQLITE_OK;
	}
}

void
tp_sql_guard_free(struct tp_sql_guard *g)
{
	size_t i;

	if (g == NULL)
		return;
	for (i = 0; i < g->ndenied_functions; i++)
		free(g->denied_functions[i]);
	for (i = 0; i < g->ndenied_modules; i++)
		free(g->denied_modules[i]);
	free(g->denied_functions);
	free(g->denied_modules);
	free(g);
}

struct tp_sql_guard *
tp_sql_guard_install(sqlite3 *db, const char **cause)
{
	static const int off[] = {
		SQLITE_DBCONFIG_ENABLE_FTS3_TOKENIZER,
		SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION,
	};
	struct tp_sql_guard *g;
	size_t i;

	if ((g = calloc(1, sizeof(*g))) == NULL) {
		*cause = "out of memory";
		return NULL;
	}
	for (i = 0; i < sizeof(off) / sizeof(off[0]); i++)
		if (sqlite3_db_config(db, off[i], 0, NULL) != SQLITE_OK) {
			*cause = "sqlite3_db_config (fts3_tokenizer, "
			    "load_extension)";
			goto fail;
		}
	/*
	 * Defensive: no writable_schema, no raw page writes. The schema is
	 * still trusted (SQLITE_DBCONFIG_TRUSTED_SCHEMA stays on): the
	 * engine's views call its own functions, and nothing in the schema
	 * comes from outside this process.
	 */
	if (sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL) !=
	    SQLITE_OK) {
		*cause = "sqlite3_db_config (defensive)";
		goto fail;
	}
	sqlite3_limit(db, SQLITE_LIMIT_ATTACHED, 0);
	if (guard_collect(db, "SELECT name FROM pragma_function_list",
	    guard_functions, &g->denied_functions,
	    &g->ndenied_functions) == -1 ||
	    guard_collect(db, "SELECT name FROM pragma_module_list",
	    guard_modules, &g->denied_modules, &g->ndenied_modules) == -1) {
		*cause = "listing SQLite's functions and modules";
		goto fail;
	}
	if (sqlite3_set_authorizer(db, guard_authorize, g) != SQLITE_OK) {
		*cause = "sqlite3_set_authorizer";
		goto fail;
	}
	return g;
fail:
	tp_sql_guard_free(g);
	return NULL;
}
