/*
 * PerfettoSQL: the statements upstream's trace processor adds to SQLite's
 * dialect, run on an engine's database.
 *
 *   INCLUDE PERFETTO MODULE a.b.c;          (or a.b.*, or *)
 *   CREATE [OR REPLACE] PERFETTO TABLE t[(col TYPE, ...)] AS SELECT ...;
 *   CREATE [OR REPLACE] PERFETTO VIEW v[(col TYPE, ...)] AS SELECT ...;
 *   CREATE [OR REPLACE] PERFETTO INDEX i ON t(col, ...);
 *   CREATE [OR REPLACE] PERFETTO FUNCTION f(arg TYPE, ...)
 *       RETURNS TYPE | TABLE(col TYPE, ...) AS SELECT ... $arg ...;
 *   CREATE [OR REPLACE] PERFETTO MACRO m(arg KIND, ...) RETURNS KIND AS
 *       tokens ... $arg ...;                 used as m!(x, y)
 *   DROP PERFETTO TABLE|VIEW|INDEX|FUNCTION|MACRO name [ON t];
 *
 * Everything else is SQLite's. Callers walk SQL text statement by
 * statement with psql_next(): it expands macros, runs PerfettoSQL
 * statements itself and hands back a prepared statement for the rest.
 * Modules come from the built-in standard library (stdlib/) and from
 * packages added at start (--add-sql-package): a package's module a.b is
 * the file a/b.sql under the package's directory, named after it.
 *
 * Errors carry the statement's position the way upstream prints them
 * (a traceback with line, column and a caret).
 */
#ifndef FARO_TP_PSQL_H
#define FARO_TP_PSQL_H

#include <stddef.h>

#include <sqlite3.h>

struct psql;

/* The PerfettoSQL state of db, created on first use; NULL: no memory. */
struct psql	*psql_of(sqlite3 *db);
/* Forgets db's state (before sqlite3_close). */
void		 psql_forget(sqlite3 *db);
/* Back to a new connection's functions, macros and includes. */
int		 psql_reset(sqlite3 *db, char **err);

/*
 * Adds module name (dotted) with its SQL text. An existing module is an
 * error unless override is set. 0, or -1 with *err (malloc'd).
 */
int	psql_module_add(struct psql *, const char *name, const char *sql,
	    int override, char **err);
/*
 * Lists what every module defines in __intrinsic_stdlib_objects (after
 * packages are added). 0, or -1 with *err (malloc'd).
 */
int	psql_docs_fill(struct psql *, char **err);
/*
 * Makes room for package pkg, whose modules the caller then adds: a
 * package that exists (the stdlib's too) is an error unless override is
 * set, and then its modules go. 0, or -1 with *err (malloc'd).
 */
int	psql_package_begin(struct psql *, const char *pkg, int override,
	    char **err);
/*
 * Packages read from directories: every DIR/a/b.sql as module PKG.a.b,
 * PKG being name, or DIR's last component when name is NULL. Read them
 * before a sandbox closes the file system, then add the set to each
 * database. Adding a package that exists fails unless it overrides
 * (then its modules replace the package's, as for the stdlib).
 */
struct psql_pkgs;

int	psql_pkgs_read(struct psql_pkgs **, const char *dir, const char *name,
	    int override, char **err);
int	psql_pkgs_add(struct psql *, const struct psql_pkgs *, char **err);
void	psql_pkgs_free(struct psql_pkgs *);

/* A walk over SQL text; file names it in errors ("stdin", a module). */
struct psql_iter {
	const char	*file;
	const char	*base;
	const char	*p;
	const char	*end;
};

void	psql_iter_init(struct psql_iter *, const char *file, const char *sql,
	    size_t len);
/*
 * Takes the next statement of the walk. 1: a statement to step is in
 * *st (NULL when it was a PerfettoSQL statement, already run); 0: only
 * blanks and comments were left; -1: error, *err (malloc'd) says where
 * and why. The text must stay valid until the statement is stepped.
 */
int	psql_next(struct psql *, struct psql_iter *, sqlite3_stmt **st,
	    char **err);
/*
 * An error from stepping the statement psql_next() gave last, with its
 * position, malloc'd.
 */
char	*psql_step_error(struct psql *, const char *msg);
/*
 * Is the statement one to print nothing for: a single column named
 * suppress_query_output, or (has_row: judged on the current row) the
 * "void" value of a function run for its effect (IMPORT(), ...)?
 */
int	psql_stmt_is_void(sqlite3_stmt *, int has_row);
/* Runs all of sql, discarding rows. 0, or -1 with *err (malloc'd). */
int	psql_exec(sqlite3 *, const char *sql, char **err);

#endif
