/* Containers, statement cache and error helpers shared by libtpops. */
#include "config.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "ops_int.h"

int
ops_ids_push(struct ops_ids *a, int64_t id)
{
	int64_t	*nv;
	size_t	 ncap;

	if (a->n == a->cap) {
		ncap = a->cap ? a->cap * 2 : 16;
		if ((nv = realloc(a->v, ncap * sizeof(*nv))) == NULL)
			return -1;
		a->v = nv;
		a->cap = ncap;
	}
	a->v[a->n++] = id;
	return 0;
}

void
ops_ids_clear(struct ops_ids *a)
{
	a->n = 0;
}

void
ops_ids_free(struct ops_ids *a)
{
	free(a->v);
	memset(a, 0, sizeof(*a));
}

static int
ids_cmp(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

void
ops_ids_sort(struct ops_ids *a)
{
	if (a->n > 1)
		qsort(a->v, a->n, sizeof(a->v[0]), ids_cmp);
}

static size_t
idset_hash(int64_t id, size_t cap)
{
	uint64_t h = (uint64_t)id * 0x9e3779b97f4a7c15ULL;

	return (size_t)(h >> 17) & (cap - 1);
}

static int
idset_grow(struct ops_idset *s)
{
	struct ops_idset	 ns;
	size_t			 i, j;

	ns.cap = s->cap ? s->cap * 2 : 64;
	ns.n = 0;
	ns.slot = calloc(ns.cap, sizeof(*ns.slot));
	ns.used = calloc(ns.cap, 1);
	if (ns.slot == NULL || ns.used == NULL) {
		free(ns.slot);
		free(ns.used);
		return -1;
	}
	for (i = 0; i < s->cap; i++) {
		if (!s->used[i])
			continue;
		for (j = idset_hash(s->slot[i], ns.cap); ns.used[j];
		    j = (j + 1) & (ns.cap - 1))
			;
		ns.used[j] = 1;
		ns.slot[j] = s->slot[i];
		ns.n++;
	}
	ops_idset_free(s);
	*s = ns;
	return 0;
}

int
ops_idset_add(struct ops_idset *s, int64_t id)
{
	size_t	 j;

	if ((s->n + 1) * 2 > s->cap && idset_grow(s) == -1)
		return -1;
	for (j = idset_hash(id, s->cap); s->used[j]; j = (j + 1) & (s->cap - 1))
		if (s->slot[j] == id)
			return 0;
	s->used[j] = 1;
	s->slot[j] = id;
	s->n++;
	return 1;
}

int
ops_idset_has(const struct ops_idset *s, int64_t id)
{
	size_t	 j;

	if (s->cap == 0)
		return 0;
	for (j = idset_hash(id, s->cap); s->used[j]; j = (j + 1) & (s->cap - 1))
		if (s->slot[j] == id)
			return 1;
	return 0;
}

void
ops_idset_free(struct ops_idset *s)
{
	free(s->slot);
	free(s->used);
	memset(s, 0, sizeof(*s));
}

sqlite3_stmt *
ops_stmt_get(sqlite3 *db, struct ops_stmt *c, char **err)
{
	sqlite3_stmt	*st;

	if (!c->busy && c->stmt != NULL) {
		c->busy = 1;
		return c->stmt;
	}
	if (sqlite3_prepare_v3(db, c->sql, -1, SQLITE_PREPARE_PERSISTENT, &st,
	    NULL) != SQLITE_OK) {
		ops_seterr(err, "%s", sqlite3_errmsg(db));
		return NULL;
	}
	if (!c->busy) {
		c->stmt = st;
		c->busy = 1;
	}
	return st;
}

void
ops_stmt_put(struct ops_stmt *c, sqlite3_stmt *st)
{
	if (st == NULL)
		return;
	if (st == c->stmt) {
		sqlite3_reset(st);
		c->busy = 0;
	} else
		sqlite3_finalize(st);
}

void
ops_stmt_fini(struct ops_stmt *c)
{
	sqlite3_finalize(c->stmt);
	c->stmt = NULL;
	c->busy = 0;
}

void
ops_seterr(char **err, const char *fmt, ...)
{
	va_list	 ap;

	if (err == NULL)
		return;
	sqlite3_free(*err);
	va_start(ap, fmt);
	*err = sqlite3_vmprintf(fmt, ap);
	va_end(ap);
}

void
ops_str_ident(sqlite3_str *s, const char *id)
{
	sqlite3_str_appendf(s, "\"%w\"", id);
}
