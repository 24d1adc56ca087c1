/*
 * Internal interfaces shared by the files of libtpops: the registration
 * entry of each file, small containers, a statement cache that survives
 * re-entrant use, and the slice hierarchy walks the flow operators reuse.
 */
#ifndef FARO_TP_OPS_INT_H
#define FARO_TP_OPS_INT_H

#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

struct tp_ops_hooks;
/* The hooks tp_ops_register was given for db, or NULL. */
const struct tp_ops_hooks *ops_hooks_of(sqlite3 *);

/* Per-file registration; each returns 0 or -1 with *errmsg set. */
int	ops_funcs_register(sqlite3 *, char **);
int	ops_span_join_register(sqlite3 *, char **);
int	ops_slice_fns_register(sqlite3 *, char **);
int	ops_flow_fns_register(sqlite3 *, char **);
int	ops_clock_fns_register(sqlite3 *, char **);
int	ops_mipmap_register(sqlite3 *, char **);
int	ops_slice_layout_register(sqlite3 *, char **);
int	ops_meta_fns_register(sqlite3 *, char **);
int	ops_window_fns_register(sqlite3 *, char **);
int	ops_args_json_register(sqlite3 *, char **);

/* Growable array of int64 ids. */
struct ops_ids {
	int64_t		*v;
	size_t		 n, cap;
};
int	ops_ids_push(struct ops_ids *, int64_t);
void	ops_ids_clear(struct ops_ids *);
void	ops_ids_free(struct ops_ids *);
void	ops_ids_sort(struct ops_ids *);

/* Set of int64 ids (open addressing). */
struct ops_idset {
	int64_t		*slot;
	unsigned char	*used;
	size_t		 n, cap;
};
/* Returns 1 if added, 0 if already present, -1 on allocation failure. */
int	ops_idset_add(struct ops_idset *, int64_t);
int	ops_idset_has(const struct ops_idset *, int64_t);
void	ops_idset_free(struct ops_idset *);

/*
 * A prepared statement kept for the life of a virtual table and lent out
 * while not in use; a nested user gets a private statement instead. The
 * owner finalizes it from xDisconnect, which SQLite runs before it checks
 * for unfinalized statements on close.
 */
struct ops_stmt {
	const char	*sql;
	sqlite3_stmt	*stmt;
	int		 busy;
};
sqlite3_stmt	*ops_stmt_get(sqlite3 *, struct ops_stmt *, char **);
void		 ops_stmt_put(struct ops_stmt *, sqlite3_stmt *);
void		 ops_stmt_fini(struct ops_stmt *);

/* Sets *err (sqlite3_malloc'd, replacing any previous one). */
void	ops_seterr(char **, const char *, ...)
	    __attribute__((format(printf, 2, 3)));
/* Writes the identifier quoted with "" into the string. */
void	ops_str_ident(sqlite3_str *, const char *);

/*
 * The statements the slice hierarchy walks need; one set per virtual table.
 * Tables are read through SQL: slice(id, ts, dur, track_id, depth,
 * parent_id, stack_id) and flow(id, slice_out, slice_in).
 */
enum {
	OPS_Q_SLICE_INFO,	/* ts, dur, track_id, depth of one slice */
	OPS_Q_SLICE_PARENT,	/* parent_id, depth of one slice */
	OPS_Q_SLICE_DESC,	/* descendant candidates, by id */
	OPS_Q_SLICE_STACK,	/* slices of one stack_id, by id */
	OPS_Q_FLOW_OUT,		/* flows leaving a slice, by id */
	OPS_Q_FLOW_IN,		/* flows entering a slice, by id */
	OPS_Q_COUNT
};
struct ops_walk {
	sqlite3			*db;
	struct ops_stmt		 q[OPS_Q_COUNT];
	const struct tp_ops_hooks *hooks;	/* the engine's, or NULL */
};
void	ops_walk_init(struct ops_walk *, sqlite3 *);
void	ops_walk_fini(struct ops_walk *);

/* Each returns 1 if the slice exists, 0 if not, -1 on error. */
int	ops_slice_exists(struct ops_walk *, int64_t, char **);
/* Appends the ancestors of id, root first. */
int	ops_slice_ancestors(struct ops_walk *, int64_t, struct ops_ids *,
	    char **);
/* Appends the descendants of id in id order. */
int	ops_slice_descendants(struct ops_walk *, int64_t, struct ops_ids *,
	    char **);

#endif
