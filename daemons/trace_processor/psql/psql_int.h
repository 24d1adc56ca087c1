/*
 * PerfettoSQL internals shared by psql_*.c: the SQL scanner, the state
 * of a database (modules, macros, functions) and error formatting.
 */
#ifndef FARO_TP_PSQL_INT_H
#define FARO_TP_PSQL_INT_H

#include <stddef.h>

#include <sqlite3.h>

#include "psql.h"

/* Statements a module may nest through INCLUDE and macros expand. */
#define PSQL_DEPTH_MAX	64
/* Arguments of one macro invocation, items of one intrinsic list. */
#define PSQL_MACRO_ARGS_MAX	64

/* A cursor over SQL text: p moves, end stays. */
struct psql_cur {
	const char	*p;
	const char	*end;
};

/* name TYPE pairs of an argument list or a schema. */
struct psql_arg {
	char	*name;
	char	*type;		/* as written, upper case: LONG, JOINID(x.y) */
};

struct psql_args {
	struct psql_arg	*v;
	size_t		 n;
};

struct psql_module {
	char	*name;
	char	*sql;
	int	 included;
};

struct psql_macro {
	char			*name;
	struct psql_args	 args;
	char			*body;
	struct psql_macro	*next;
};

/* A function defined with CREATE PERFETTO FUNCTION, by name. */
struct psql_fnname {
	char			*name;
	int			 nargs;
	int			 table;
	struct fn		*fn;		/* owned by SQLite */
	struct psql_fnname	*next;
};

struct psql {
	sqlite3			*db;
	struct psql_module	*mods;
	size_t			 nmods;
	struct psql_macro	*macros;
	struct psql_fnname	*fns;
	int			 depth;		/* INCLUDE nesting */
	/* Where the statement psql_next() gave last is, as a traceback. */
	char			*last_frame;
	struct psql		*next;
};

/* psql_lex.c: the scanner. */
const char	*psql_skip_blank(const char *, const char *end);
const char	*psql_token_end(const char *, const char *end);
const char	*psql_stmt_end(const char *, const char *end);
int		 psql_ident_char(int);
int		 psql_accept(struct psql_cur *, const char *word);
int		 psql_accept_char(struct psql_cur *, char);
char		*psql_name(struct psql_cur *);
char		*psql_module_name(struct psql_cur *);
char		*psql_type_parse(struct psql_cur *);
int		 psql_args_parse(struct psql_cur *, struct psql_args *,
		    char **err);
void		 psql_args_free(struct psql_args *);
char		*psql_strndup(const char *, size_t);
char		*psql_trim(const char *, const char *end);

/* psql_err.c: messages. */
char		*psql_fmt(const char *, ...)
		    __attribute__((format(printf, 1, 2)));
char		*psql_traceback(const char *file, const char *base,
		    const char *at, const char *stmt, const char *stmt_end,
		    const char *msg);

/* psql_macro.c */
int		 psql_macro_define(struct psql *, struct psql_cur *, int,
		    char **err);
int		 psql_macro_drop(struct psql *, const char *name);
char		*psql_macro_expand(struct psql *, const char *,
		    const char *end, char **err);

/* psql_fn.c */
int		 psql_fn_define(struct psql *, struct psql_cur *, int,
		    char **err);
int		 psql_fn_drop(struct psql *, const char *name, char **err);
void		 psql_fns_free(struct psql *);
void		 psql_fns_drop(struct psql *);
int		 psql_fn_memoize(struct psql *, const char *name, char **err);

/* psql_legacy.c */
int		 psql_legacy_register(struct psql *);

/* psql_create.c: CREATE/DROP PERFETTO TABLE, VIEW, INDEX. */
int		 psql_create(struct psql *, struct psql_cur *, int replace,
		    char **err);
int		 psql_drop(struct psql *, struct psql_cur *, char **err);
int		 psql_columns_check(struct psql *, const char *what,
		    const char *select, const struct psql_args *, int ordered,
		    char **err);

/* psql_module.c */
int		 psql_include(struct psql *, const char *pattern,
		    char **err);
void		 psql_modules_free(struct psql *);
void		 psql_modules_forget(struct psql *);
int		 psql_package_exists(struct psql *, const char *pkg);
void		 psql_package_drop(struct psql *, const char *pkg);
int		 psql_stdlib_add(struct psql *, char **err);

/* psql.c: runs a module's or a function's text. */
int		 psql_run(struct psql *, const char *file, const char *sql,
		    char **err);

#endif
