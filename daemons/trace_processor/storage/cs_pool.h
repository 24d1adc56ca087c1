/*
 * The string pool of the columnar tables (cs_table.h): each distinct
 * string is stored once and named by a 32-bit id, so a text cell costs
 * four bytes and equal strings compare by id. Id 0 is NULL; the empty
 * string is a string like any other. Strings never move once interned:
 * SQLite may be handed them without a copy.
 */
#ifndef FARO_CS_POOL_H
#define FARO_CS_POOL_H

#include <stddef.h>
#include <stdint.h>

struct cs_pool;

struct cs_pool	*cs_pool_new(void);
void		 cs_pool_free(struct cs_pool *);
/* The id of s (len bytes, NULs allowed), added on first use; 0 when out
 * of memory. */
uint32_t	 cs_pool_intern(struct cs_pool *, const char *s, size_t len);
/* The id of s if interned, else 0. */
uint32_t	 cs_pool_find(const struct cs_pool *, const char *s, size_t len);
/* The string of id (NUL-terminated), with its length; NULL for id 0. */
const char	*cs_pool_get(const struct cs_pool *, uint32_t id, size_t *len);
size_t		 cs_pool_bytes(const struct cs_pool *);
/* Ids given so far: every id is below it. */
size_t		 cs_pool_count(const struct cs_pool *);
/* Compares two pooled strings as SQLite's BINARY collation does. */
int		 cs_pool_cmp(const struct cs_pool *, uint32_t a, const char *b,
		    size_t blen);

#endif
