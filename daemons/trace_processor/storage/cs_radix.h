/*
 * Stable LSD radix sort of 64-bit keys carrying 32-bit values: the
 * columnar tables' indexes and the sorter's late records both sort
 * millions of keys, where it beats comparison sorts by far and keeps
 * equal keys in their order.
 */
#ifndef FARO_CS_RADIX_H
#define FARO_CS_RADIX_H

#include <stddef.h>
#include <stdint.h>

/* Sorts k (with v alongside) using k2 and v2, n long each, as scratch;
 * returns the value array that holds the result (v or v2), whose keys
 * are in the matching key array. */
uint32_t	*cs_radix_sort(uint64_t *k, uint32_t *v, uint64_t *k2, uint32_t *v2,
		    size_t n);

#endif
