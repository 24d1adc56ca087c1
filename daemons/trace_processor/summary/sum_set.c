/*
 * A set of byte strings for the summary's checks (dimensions unique in a
 * bundle, interned keys seen): open addressing on an FNV-1a hash.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "sum_int.h"

struct sum_key {
	uint8_t		*p;
	size_t		 n;
};

struct sum_set {
	struct sum_key	*slot;		/* p == NULL: free */
	size_t		 cap;
	size_t		 n;
};

static uint64_t
set_hash(const void *p, size_t n)
{
	const uint8_t *b = p;
	uint64_t h = 0xcbf29ce484222325ULL;

	while (n-- > 0) {
		h ^= *b++;
		h *= 0x100000001b3ULL;
	}
	return h;
}

struct sum_set *
sum_set_new(void)
{
	return calloc(1, sizeof(struct sum_set));
}

static struct sum_key *
set_find(const struct sum_set *s, const void *p, size_t n)
{
	size_t i;

	if (s->cap == 0)
		return NULL;
	for (i = set_hash(p, n) & (s->cap - 1);; i = (i + 1) & (s->cap - 1)) {
		struct sum_key *k = &s->slot[i];

		if (k->p == NULL || (k->n == n && memcmp(k->p, p, n) == 0))
			return k;
	}
}

static int
set_grow(struct sum_set *s)
{
	struct sum_set ns;
	struct sum_key *k;
	size_t i;

	ns.cap = s->cap ? s->cap * 2 : 64;
	ns.n = s->n;
	if ((ns.slot = calloc(ns.cap, sizeof(*ns.slot))) == NULL)
		return -1;
	for (i = 0; i < s->cap; i++)
		if (s->slot[i].p != NULL) {
			k = set_find(&ns, s->slot[i].p, s->slot[i].n);
			*k = s->slot[i];
		}
	free(s->slot);
	*s = ns;
	return 0;
}

int
sum_set_add(struct sum_set *s, const void *p, size_t n)
{
	struct sum_key *k;

	if ((s->n + 1) * 2 > s->cap && set_grow(s) == -1)
		return -1;
	k = set_find(s, p, n);
	if (k->p != NULL)
		return 0;
	if ((k->p = malloc(n ? n : 1)) == NULL)
		return -1;
	memcpy(k->p, p, n);
	k->n = n;
	s->n++;
	return 1;
}

int
sum_set_has(const struct sum_set *s, const void *p, size_t n)
{
	struct sum_key *k = set_find(s, p, n);

	return k != NULL && k->p != NULL;
}

void
sum_set_free(struct sum_set *s)
{
	size_t i;

	if (s == NULL)
		return;
	for (i = 0; i < s->cap; i++)
		free(s->slot[i].p);
	free(s->slot);
	free(s);
}
