/*
 * Columnar tables (see cs_table.h): blocks of typed cells per column, a
 * bitmap of absent rows per block, and the lookup helpers computed on
 * demand and dropped when the table's version moves.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cs_pool.h"
#include "cs_radix.h"
#include "cs_table.h"
#include "cs_vtab.h"

#define NULL_I32	INT32_MIN
#define BLK(r)		((r) >> CS_BLOCK_SHIFT)
#define OFF(r)		((r) & (CS_BLOCK - 1))

/*
 * A block of an integer column: offsets from a base in 32 bits while
 * every value fits (times of one stretch of a trace, ids, counts), full
 * 64-bit values from the first one that does not.
 */
struct int_blk {
	int64_t		 base;
	uint32_t	 wide;
	uint32_t	 pad;
	unsigned char	 cells[];	/* int32_t or int64_t [CS_BLOCK] */
};

#define IBLK_BYTES(wide)	(sizeof(struct int_blk) + CS_BLOCK * \
				    ((wide) ? 8u : 4u))

static int
is_int(enum cs_type type)
{
	return type == CS_I32 || type == CS_I64;
}

static inline int64_t
iblk_get(const struct int_blk *b, size_t off)
{
	int32_t n;

	if (b->wide)
		return ((const int64_t *)(const void *)b->cells)[off];
	n = ((const int32_t *)(const void *)b->cells)[off];
	return n == NULL_I32 ? CS_NULL_I64 : b->base + n;
}

struct cs_col {
	enum cs_type	 type;		/* as stored: never CS_ALIAS */
	void		**blocks;	/* NULL: every cell NULL */
	uint64_t	 sorted_ver;	/* version sorted was found at */
	int		 sorted;
	struct cs_index	*idx;
};

struct cs_table {
	char			*name;
	const struct cs_coldef	*defs;
	size_t			 ncols;
	struct cs_col		*cols;
	struct cs_pool		*pool;
	uint32_t		 nrows;
	size_t			 nblocks, capblocks;
	uint64_t		**absent;	/* per block; NULL: none */
	uint16_t		*nabsent;
	uint64_t		 version;
	size_t			 bytes;
	int			 failed;
	struct cs_table		*ref;		/* what CS_REF columns read */
	int			 sized;
};

/* Whether column c has cells of its own. */
static int
col_stored(const struct cs_table *t, size_t c)
{
	return t->defs[c].type != CS_ALIAS && t->defs[c].type != CS_ID &&
	    t->defs[c].type != CS_REF && t->defs[c].type != CS_VARIANT;
}

/* The column an alias shows: inlined on every cell's path. */
static inline size_t
col_base(const struct cs_table *t, size_t col)
{
	return t->defs[col].type == CS_ALIAS ? (size_t)t->defs[col].alias :
	    col;
}

struct cs_table *
cs_table_new(const char *name, const struct cs_coldef *defs, size_t ncols,
    struct cs_pool *pool)
{
	struct cs_table *t = calloc(1, sizeof(*t));
	size_t i;

	if (t == NULL)
		return NULL;
	if ((t->name = strdup(name)) == NULL ||
	    (t->cols = calloc(ncols, sizeof(*t->cols))) == NULL) {
		cs_table_free(t);
		return NULL;
	}
	t->defs = defs;
	t->ncols = ncols;
	t->pool = pool;
	t->version = 1;
	for (i = 0; i < ncols; i++)
		t->cols[i].type = defs[i].type;
	return t;
}

void
cs_table_free(struct cs_table *t)
{
	size_t c, b;

	if (t == NULL)
		return;
	for (c = 0; c < t->ncols && t->cols != NULL; c++) {
		cs_index_unref(t->cols[c].idx);
		if (!col_stored(t, c))
			continue;
		for (b = 0; b < t->nblocks && t->cols[c].blocks; b++)
			free(t->cols[c].blocks[b]);
		free(t->cols[c].blocks);
	}
	for (b = 0; b < t->nblocks; b++)
		free(t->absent[b]);
	free(t->absent);
	free(t->nabsent);
	free(t->cols);
	free(t->name);
	free(t);
}

const char *
cs_table_name(const struct cs_table *t)
{
	return t->name;
}

size_t
cs_table_ncols(const struct cs_table *t)
{
	return t->ncols;
}

const struct cs_coldef *
cs_table_col(const struct cs_table *t, size_t col)
{
	return &t->defs[col];
}

struct cs_pool *
cs_table_pool(const struct cs_table *t)
{
	return t->pool;
}

size_t
cs_table_rows(const struct cs_table *t)
{
	return t->nrows;
}

int
cs_table_failed(const struct cs_table *t)
{
	return t->failed;
}

size_t
cs_table_bytes(const struct cs_table *t)
{
	return t->bytes;
}

void
cs_table_set_ref(struct cs_table *t, struct cs_table *ref)
{
	t->ref = ref;
}

void
cs_table_set_sized(struct cs_table *t)
{
	t->sized = 1;
}

int
cs_table_sized(const struct cs_table *t)
{
	return t->sized;
}

enum cs_type
cs_col_type(const struct cs_table *t, size_t c)
{
	c = col_base(t, c);
	if (t->defs[c].type == CS_REF)
		return t->ref != NULL ? cs_col_type(t->ref,
		    (size_t)t->defs[c].ref_col) : CS_I64;
	if (t->defs[c].type == CS_VARIANT)
		return t->defs[c].ref_col == CS_KIND_STR ? CS_STR :
		    t->defs[c].ref_col == CS_KIND_REAL ? CS_F64 : CS_I64;
	return t->cols[c].type;
}

/* The row of the reference a CS_REF cell reads, or -1. */
static int64_t
ref_row(const struct cs_table *t, size_t c, uint32_t r)
{
	int64_t k = cs_get_int(t, (size_t)t->defs[c].alias, r);

	return t->ref == NULL || k < 0 || k >= t->ref->nrows ? -1 : k;
}

/* A version that moves when the column's values may have: a reference
 * column's move with its reference. */
static uint64_t
col_version(const struct cs_table *t, size_t c)
{
	return t->version + ((t->defs[c].type == CS_REF ||
	    t->defs[c].type == CS_VARIANT) && t->ref != NULL ?
	    t->ref->version * 0x9e3779b97f4a7c15ULL : 0);
}

size_t
cs_col_base(const struct cs_table *t, size_t col)
{
	return col_base(t, col);
}

/* Bytes of a block of the column (an integer one as it stands). */
static size_t
block_size(const struct cs_col *col, const void *blk)
{
	if (is_int(col->type))
		return IBLK_BYTES(((const struct int_blk *)blk)->wide);
	return CS_BLOCK * (col->type == CS_STR ? 4u : 8u);
}

/* Room for the blocks of rows up to r in every per-block array. */
static int
blocks_grow(struct cs_table *t, uint32_t r)
{
	size_t need = BLK((size_t)r) + 1, cap, c;
	void *p;

	if (need <= t->nblocks)
		return 0;
	if (need > t->capblocks) {
		cap = t->capblocks ? t->capblocks : 16;
		while (cap < need)
			cap *= 2;
		for (c = 0; c < t->ncols; c++) {
			if (!col_stored(t, c))
				continue;
			if ((p = realloc(t->cols[c].blocks,
			    cap * sizeof(void *))) == NULL)
				return -1;
			t->cols[c].blocks = p;
		}
		if ((p = realloc(t->absent, cap * sizeof(*t->absent))) == NULL)
			return -1;
		t->absent = p;
		if ((p = realloc(t->nabsent, cap * sizeof(*t->nabsent))) ==
		    NULL)
			return -1;
		t->nabsent = p;
		t->capblocks = cap;
	}
	for (; t->nblocks < need; t->nblocks++) {
		for (c = 0; c < t->ncols; c++)
			if (col_stored(t, c))
				t->cols[c].blocks[t->nblocks] = NULL;
		t->absent[t->nblocks] = NULL;
		t->nabsent[t->nblocks] = 0;
	}
	return 0;
}

static void
absent_set(struct cs_table *t, uint32_t r, int absent)
{
	uint64_t **bm = &t->absent[BLK(r)], bit = 1ULL << (OFF(r) % 64);
	uint64_t *w;

	if (*bm == NULL) {
		if (!absent)
			return;
		if ((*bm = calloc(CS_BLOCK / 64, sizeof(uint64_t))) == NULL) {
			t->failed = 1;
			return;
		}
		t->bytes += CS_BLOCK / 8;
	}
	w = &(*bm)[OFF(r) / 64];
	if (absent && !(*w & bit)) {
		*w |= bit;
		t->nabsent[BLK(r)]++;
	} else if (!absent && (*w & bit)) {
		*w &= ~bit;
		t->nabsent[BLK(r)]--;
	}
}

int
cs_row_present(const struct cs_table *t, uint32_t r)
{
	const uint64_t *bm;

	if (r >= t->nrows)
		return 0;
	bm = t->absent[BLK(r)];
	return bm == NULL || !(bm[OFF(r) / 64] & (1ULL << (OFF(r) % 64)));
}

uint32_t
cs_present_until(const struct cs_table *t, uint32_t r)
{
	const uint64_t *bm;
	uint32_t end, off;
	uint64_t w;

	if (!cs_row_present(t, r))
		return r;
	end = (BLK(r) + 1) << CS_BLOCK_SHIFT;
	if (end > t->nrows)
		end = t->nrows;
	bm = t->absent[BLK(r)];
	if (bm == NULL || t->nabsent[BLK(r)] == 0)
		return end;
	/* The next absent row of the block's bitmap, word by word. */
	off = OFF(r);
	w = bm[off / 64] & (~0ULL << (off % 64));
	while (w == 0) {
		off = (off / 64 + 1) * 64;
		if (off >= CS_BLOCK)
			return end;
		w = bm[off / 64];
	}
	off = (off / 64) * 64 + (uint32_t)__builtin_ctzll(w);
	r = (BLK(r) << CS_BLOCK_SHIFT) + off;
	return r < end ? r : end;
}

int
cs_row_put(struct cs_table *t, uint32_t r)
{
	t->version++;
	if (r < t->nrows) {
		absent_set(t, r, 0);
		return 0;
	}
	if (r == UINT32_MAX || blocks_grow(t, r) == -1) {
		t->failed = 1;
		return -1;
	}
	while (t->nrows < r)
		absent_set(t, t->nrows++, 1);
	t->nrows = r + 1;
	return 0;
}

void
cs_row_delete(struct cs_table *t, uint32_t r)
{
	if (r < t->nrows) {
		absent_set(t, r, 1);
		t->version++;
	}
}

void
cs_table_compact(struct cs_table *t)
{
	size_t b, c;

	/* The last block may still grow. */
	for (b = 0; b + 1 < t->nblocks; b++) {
		if (t->nabsent[b] != CS_BLOCK)
			continue;
		for (c = 0; c < t->ncols; c++) {
			struct cs_col *col = &t->cols[c];

			if (!col_stored(t, c) || col->blocks[b] == NULL)
				continue;
			t->bytes -= block_size(col, col->blocks[b]);
			free(col->blocks[b]);
			col->blocks[b] = NULL;
			t->version++;
		}
	}
}

/* The block of row r of a column, made (all NULL) if it was not; an
 * integer block is made narrow, around base. */
static void *
col_block(struct cs_table *t, struct cs_col *col, uint32_t r, int64_t base)
{
	void **bp = &col->blocks[BLK(r)];
	size_t i, sz;

	if (*bp != NULL)
		return *bp;
	sz = is_int(col->type) ? IBLK_BYTES(0) : CS_BLOCK *
	    (col->type == CS_STR ? 4u : 8u);
	if ((*bp = malloc(sz)) == NULL) {
		t->failed = 1;
		return NULL;
	}
	t->bytes += sz;
	switch (col->type) {
	case CS_I32:
	case CS_I64:
		((struct int_blk *)*bp)->base = base;
		((struct int_blk *)*bp)->wide = 0;
		for (i = 0; i < CS_BLOCK; i++)
			((int32_t *)(void *)((struct int_blk *)*bp)->cells)[i] =
			    NULL_I32;
		break;
	case CS_F64:
		for (i = 0; i < CS_BLOCK; i++)
			((double *)*bp)[i] = NAN;
		break;
	default:
		memset(*bp, 0, sz);
		break;
	}
	return *bp;
}

/* A narrow block given a value it cannot hold becomes a wide one. */
static struct int_blk *
iblk_widen(struct cs_table *t, struct cs_col *col, uint32_t r)
{
	struct int_blk *old = col->blocks[BLK(r)], *nb;
	size_t i;

	if ((nb = malloc(IBLK_BYTES(1))) == NULL) {
		t->failed = 1;
		return NULL;
	}
	nb->base = 0;
	nb->wide = 1;
	for (i = 0; i < CS_BLOCK; i++)
		((int64_t *)(void *)nb->cells)[i] = iblk_get(old, i);
	t->bytes += IBLK_BYTES(1) - IBLK_BYTES(0);
	free(old);
	col->blocks[BLK(r)] = nb;
	return nb;
}

/* cs_set_int's rarer cases: not an integer column, no block yet, a NULL,
 * a wide block, a value a narrow block cannot hold. Never inlined: in
 * cs_set_int it made the common case save six registers first. */
static __attribute__((noinline)) void
set_int_slow(struct cs_table *t, size_t c, uint32_t r, int64_t v)
{
	struct cs_col *col = &t->cols[c];
	struct int_blk *blk;
	int64_t d;

	if (r >= t->nrows || !is_int(col->type)) {
		if (r < t->nrows && col->type == CS_F64)
			cs_set_real(t, c, r, v == CS_NULL_I64 ? NAN :
			    (double)v);
		return;
	}
	t->version++;
	if ((blk = col->blocks[BLK(r)]) == NULL) {
		if (v == CS_NULL_I64 || (blk = col_block(t, col, r, v)) ==
		    NULL)
			return;
	}
	if (!blk->wide && v != CS_NULL_I64 &&
	    (__builtin_sub_overflow(v, blk->base, &d) || d <= NULL_I32 ||
	    d > INT32_MAX) && (blk = iblk_widen(t, col, r)) == NULL)
		return;
	if (blk->wide)
		((int64_t *)(void *)blk->cells)[OFF(r)] = v;
	else
		((int32_t *)(void *)blk->cells)[OFF(r)] = v == CS_NULL_I64 ?
		    NULL_I32 : (int32_t)(v - blk->base);
}

/* Small enough for link-time optimisation to inline where rows are
 * written: a value that fits the row's narrow block. */
void
cs_set_int(struct cs_table *t, size_t c, uint32_t r, int64_t v)
{
	struct cs_col *col = &t->cols[c];
	struct int_blk *blk;
	int64_t d;

	if (r < t->nrows && is_int(col->type) &&
	    (blk = col->blocks[BLK(r)]) != NULL && !blk->wide &&
	    v != CS_NULL_I64 && !__builtin_sub_overflow(v, blk->base, &d) &&
	    d > NULL_I32 && d <= INT32_MAX) {
		t->version++;
		((int32_t *)(void *)blk->cells)[OFF(r)] = (int32_t)d;
		return;
	}
	set_int_slow(t, c, r, v);
}

void
cs_set_real(struct cs_table *t, size_t c, uint32_t r, double v)
{
	struct cs_col *col = &t->cols[c];
	void *blk;

	if (r >= t->nrows || col->type != CS_F64)
		return;
	t->version++;
	if (isnan(v) && col->blocks[BLK(r)] == NULL)
		return;
	if ((blk = col_block(t, col, r, 0)) != NULL)
		((double *)blk)[OFF(r)] = v;
}

void
cs_set_str(struct cs_table *t, size_t c, uint32_t r, const char *s,
    size_t len)
{
	struct cs_col *col = &t->cols[c];
	uint32_t id = 0;
	void *blk;

	if (r >= t->nrows || col->type != CS_STR)
		return;
	t->version++;
	if (s != NULL && (id = cs_pool_intern(t->pool, s, len)) == 0) {
		t->failed = 1;
		return;
	}
	if (id == 0 && col->blocks[BLK(r)] == NULL)
		return;
	if ((blk = col_block(t, col, r, 0)) != NULL)
		((uint32_t *)blk)[OFF(r)] = id;
}

static int64_t key_at(const struct cs_table *, size_t, uint32_t);
static inline int64_t cell_key(const struct cs_table *,
    const struct cs_col *, uint32_t);

/* A CS_VARIANT cell: its value if the row's kind is the column's. */
static int
variant_get(const struct cs_table *t, size_t c, uint32_t r, int64_t *i,
    double *d, const char **s, size_t *len)
{
	const struct cs_coldef *def = &t->defs[c];
	int64_t v;

	if (key_at(t, (size_t)def->kind_col, r) != def->ref_col ||
	    (v = cell_key(t, &t->cols[def->alias], r)) == CS_NULL_I64)
		return -1;
	switch (def->ref_col) {
	case CS_KIND_STR:
		*s = cs_pool_get(t->pool, (uint32_t)v, len);
		return *s == NULL ? -1 : CS_STR;
	case CS_KIND_REAL:
		memcpy(d, &v, sizeof(*d));
		return CS_F64;
	default:
		*i = v;
		return CS_I64;
	}
}

void
cs_set_variant(struct cs_table *t, size_t c, uint32_t r, enum cs_kind k,
    int64_t i, const char *s, size_t len, double d)
{
	int64_t v = CS_NULL_I64;
	uint32_t id;

	switch (k) {
	case CS_KIND_STR:
		if (s != NULL) {
			if ((id = cs_pool_intern(t->pool, s, len)) == 0) {
				t->failed = 1;
				return;
			}
			v = id;
		}
		break;
	case CS_KIND_REAL:
		/* NaN is SQLite's NULL; -0.0 would be the NULL pattern. */
		if (!isnan(d)) {
			if (d == 0)
				d = 0;
			memcpy(&v, &d, sizeof(v));
		}
		break;
	default:
		v = i;
		break;
	}
	cs_set_int(t, c, r, v);
}

int
cs_get(const struct cs_table *t, size_t c, uint32_t r, int64_t *i,
    double *d, const char **s, size_t *len)
{
	const struct cs_col *col = &t->cols[col_base(t, c)];
	const void *blk;
	int64_t rr;

	if (col->type == CS_VARIANT)
		return variant_get(t, col_base(t, c), r, i, d, s, len);
	if (col->type == CS_REF) {
		if ((rr = ref_row(t, col_base(t, c), r)) < 0)
			return -1;
		return cs_get(t->ref, (size_t)t->defs[col_base(t, c)].ref_col,
		    (uint32_t)rr, i, d, s, len);
	}
	if (col->type == CS_ID && r < t->nrows) {
		*i = r;
		return CS_I64;
	}
	if (r >= t->nrows || (blk = col->blocks[BLK(r)]) == NULL)
		return -1;
	switch (col->type) {
	case CS_I32:
	case CS_I64:
		if ((*i = iblk_get(blk, OFF(r))) == CS_NULL_I64)
			return -1;
		return CS_I64;
	case CS_F64:
		if (isnan(*d = ((const double *)blk)[OFF(r)]))
			return -1;
		return CS_F64;
	default:
		*s = cs_pool_get(t->pool, ((const uint32_t *)blk)[OFF(r)], len);
		return *s == NULL ? -1 : CS_STR;
	}
}

/*
 * A cell as SQLite's result (cs_vtab.h): a stored column's cell through
 * a view of its block; the others through cs_get.
 */
void
cs_result(sqlite3_context *ctx, const struct cs_table *t, size_t c,
    uint32_t r)
{
	struct cs_view v;
	const char *s;
	size_t len;
	int64_t i;
	double d;

	cs_view_get(t, c, r, &v);
	if (cs_view_result(ctx, &v, r) == 0)
		return;
	switch (cs_get(t, c, r, &i, &d, &s, &len)) {
	case CS_I64:
		sqlite3_result_int64(ctx, i);
		break;
	case CS_F64:
		sqlite3_result_double(ctx, d);
		break;
	case CS_STR:
		/* Pool strings outlive every statement. */
		sqlite3_result_text(ctx, s, (int)len, SQLITE_STATIC);
		break;
	default:
		sqlite3_result_null(ctx);
		break;
	}
}

void
cs_view_get(const struct cs_table *t, size_t c, uint32_t r,
    struct cs_view *v)
{
	const struct cs_col *col = &t->cols[col_base(t, c)];
	const struct int_blk *ib;
	const void *blk;

	v->start = BLK(r) << CS_BLOCK_SHIFT;
	v->n = t->nrows > v->start ? t->nrows - v->start : 0;
	if (v->n > CS_BLOCK)
		v->n = CS_BLOCK;
	v->version = t->version;
	v->ver = &t->version;
	v->pool = t->pool;
	v->cells = NULL;
	v->base = 0;
	v->kind = CS_VIEW_OTHER;
	if (r >= t->nrows)
		return;
	switch (col->type) {
	case CS_ID:
		v->kind = CS_VIEW_ID;
		return;
	case CS_I32:
	case CS_I64:
	case CS_F64:
	case CS_STR:
		break;
	default:
		return;
	}
	if ((blk = col->blocks[BLK(r)]) == NULL) {
		v->kind = CS_VIEW_NULL;
		return;
	}
	switch (col->type) {
	case CS_F64:
		v->kind = CS_VIEW_F64;
		v->cells = blk;
		return;
	case CS_STR:
		v->kind = CS_VIEW_STR;
		v->cells = blk;
		return;
	default:
		ib = blk;
		v->kind = ib->wide ? CS_VIEW_I64 : CS_VIEW_I32;
		v->base = ib->base;
		v->cells = ib->cells;
		return;
	}
}

/* An integer cell, or a string cell's pool id; CS_NULL_I64 for NULL. */
static inline int64_t
cell_key(const struct cs_table *t, const struct cs_col *col, uint32_t r)
{
	const void *blk;
	int32_t v;

	if (col->type == CS_ID)
		return r;
	if ((blk = col->blocks[BLK(r)]) == NULL)
		return CS_NULL_I64;
	switch (col->type) {
	case CS_I32:
	case CS_I64:
		return iblk_get(blk, OFF(r));
	case CS_STR:
		v = (int32_t)((const uint32_t *)blk)[OFF(r)];
		return v == 0 ? CS_NULL_I64 : (int64_t)(uint32_t)v;
	default:
		(void)t;
		return CS_NULL_I64;
	}
}

int64_t
cs_get_int(const struct cs_table *t, size_t c, uint32_t r)
{
	const struct cs_col *col = &t->cols[col_base(t, c)];

	if (r >= t->nrows || col->type == CS_STR || col->type == CS_F64)
		return CS_NULL_I64;
	return cell_key(t, col, r);
}

/* The first present row from r on, or hi. */
static uint32_t
next_present(const struct cs_table *t, uint32_t r, uint32_t hi)
{
	while (r < hi && !cs_row_present(t, r)) {
		/* A block with none present is passed over whole. */
		if (OFF(r) == 0 && t->nabsent[BLK(r)] == CS_BLOCK)
			r += CS_BLOCK;
		else
			r++;
	}
	return r < hi ? r : hi;
}

int
cs_col_sorted(struct cs_table *t, size_t c)
{
	struct cs_col *col = &t->cols[col_base(t, c)];
	int64_t prev = INT64_MIN, v;
	uint32_t r;

	if (col->type == CS_ID)
		return 1;
	if (col->type != CS_I32 && col->type != CS_I64)
		return 0;
	if (col->sorted_ver == t->version)
		return col->sorted;
	col->sorted_ver = t->version;
	col->sorted = 1;
	/*
	 * Deleted rows count (an index still lists them, and binary searches
	 * step on them); only the NULL of a row never written (or freed)
	 * does not.
	 */
	for (r = 0; r < t->nrows; r++) {
		v = cell_key(t, col, r);
		if (v == CS_NULL_I64 && !cs_row_present(t, r))
			continue;
		if (v == CS_NULL_I64 || v < prev) {
			col->sorted = 0;
			break;
		}
		prev = v;
	}
	return col->sorted;
}

/* The first row of [lo, hi) from which every present row's value is
 * >= x (> x if strict). */
static uint32_t
lower_bound(const struct cs_table *t, const struct cs_col *col, int64_t x,
    int strict, uint32_t lo, uint32_t hi)
{
	uint32_t mid, m;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if ((m = next_present(t, mid, hi)) == hi) {
			hi = mid;
			continue;
		}
		if (strict ? cell_key(t, col, m) <= x : cell_key(t, col, m) < x)
			lo = m + 1;
		else
			hi = mid;
	}
	return lo;
}

void
cs_col_range(const struct cs_table *t, size_t c, int64_t min, int64_t max,
    uint32_t *lo, uint32_t *hi)
{
	const struct cs_col *col = &t->cols[col_base(t, c)];
	uint32_t from = *lo, to = *hi < t->nrows ? *hi : t->nrows;

	*lo = lower_bound(t, col, min, 0, from, to);
	*hi = lower_bound(t, col, max, 1, *lo, to);
}

void
cs_index_unref(struct cs_index *idx)
{
	if (idx != NULL && --idx->refs == 0)
		free(idx);
}

/* cell_key of any column, references followed. */
static int64_t
key_at(const struct cs_table *t, size_t c, uint32_t r)
{
	int64_t rr;

	c = col_base(t, c);
	/* Integers as themselves, strings by pool id. */
	if (t->defs[c].type == CS_VARIANT)
		return key_at(t, (size_t)t->defs[c].kind_col, r) ==
		    t->defs[c].ref_col ? cell_key(t,
		    &t->cols[t->defs[c].alias], r) : CS_NULL_I64;
	if (t->defs[c].type != CS_REF)
		return cell_key(t, &t->cols[c], r);
	if ((rr = ref_row(t, c, r)) < 0)
		return CS_NULL_I64;
	return key_at(t->ref, (size_t)t->defs[c].ref_col, (uint32_t)rr);
}

static const struct cs_pool *sort_pool;	/* for qsort's comparison */

static int
pool_order(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	size_t ylen;
	const char *ys = cs_pool_get(sort_pool, y, &ylen);

	return cs_pool_cmp(sort_pool, x, ys, ylen);
}

/*
 * Ranks of the strings a text column holds, in BINARY order, by pool id
 * (others 0): the keys that sort its rows. NULL when out of memory.
 */
static uint32_t *
str_ranks(const struct cs_table *t, size_t c)
{
	size_t np = cs_pool_count(t->pool), nd = 0, i;
	uint32_t *rank = calloc(np + 1, sizeof(*rank)), *ids, r;

	if (rank == NULL)
		return NULL;
	for (r = 0; r < t->nrows; r++) {
		int64_t id = key_at(t, c, r);

		if (id != CS_NULL_I64 && rank[id] == 0) {
			rank[id] = 1;
			nd++;
		}
	}
	if ((ids = malloc((nd + 1) * sizeof(*ids))) == NULL) {
		free(rank);
		return NULL;
	}
	for (i = 0, nd = 0; i < np; i++)
		if (rank[i])
			ids[nd++] = (uint32_t)i;
	sort_pool = t->pool;
	qsort(ids, nd, sizeof(*ids), pool_order);
	for (i = 0; i < nd; i++)
		rank[ids[i]] = (uint32_t)i;
	free(ids);
	return rank;
}

struct cs_index *
cs_col_index(struct cs_table *t, size_t c)
{
	struct cs_col *col = &t->cols[col_base(t, c)];
	uint64_t ver = col_version(t, col_base(t, c));
	struct cs_index *idx;
	uint64_t *k = NULL, *k2 = NULL;
	uint32_t *r2 = NULL, *rank = NULL, r;
	size_t n = 0, nnull = 0;

	if (col->idx != NULL && col->idx->version == ver) {
		col->idx->refs++;
		return col->idx;
	}
	if (cs_col_type(t, c) == CS_F64)
		return NULL;
	idx = malloc(sizeof(*idx) + (t->nrows + 1) * sizeof(uint32_t));
	k = malloc((t->nrows + 1) * sizeof(*k));
	k2 = malloc((t->nrows + 1) * sizeof(*k2));
	r2 = malloc((t->nrows + 1) * sizeof(*r2));
	if (idx == NULL || k == NULL || k2 == NULL || r2 == NULL ||
	    (cs_col_type(t, c) == CS_STR && (rank = str_ranks(t, c)) ==
	    NULL)) {
		free(idx);
		idx = NULL;
		goto out;
	}
	/* NULLs first, in id order: they equal nothing, but group. */
	for (r = 0; r < t->nrows; r++)
		if (key_at(t, c, r) == CS_NULL_I64)
			idx->rows[nnull++] = r;
	for (r = 0; r < t->nrows; r++) {
		int64_t v = key_at(t, c, r);

		if (v == CS_NULL_I64)
			continue;
		k[n] = rank != NULL ? rank[v] : (uint64_t)v ^ (1ULL << 63);
		r2[n++] = r;
	}
	if (n > 0) {
		uint32_t *sorted = cs_radix_sort(k, r2, k2, idx->rows + nnull, n);

		if (sorted != idx->rows + nnull)
			memcpy(idx->rows + nnull, sorted, n * sizeof(*sorted));
	}
	idx->n = nnull + n;
	idx->nnull = nnull;
	idx->refs = 1;
	idx->version = ver;
	cs_index_unref(col->idx);
	col->idx = idx;
	idx->refs++;
out:
	free(rank);
	free(k);
	free(k2);
	free(r2);
	return idx;
}

/* Row r's value against the one sought: <0, 0, >0. */
static int
cmp_at(const struct cs_table *t, size_t c, uint32_t r, int64_t v,
    const char *s, size_t len)
{
	int64_t k = key_at(t, c, r);

	if (s != NULL)
		return cs_pool_cmp(t->pool, (uint32_t)k, s, len);
	return k < v ? -1 : k > v;
}

void
cs_index_find(const struct cs_table *t, size_t c, const struct cs_index *idx,
    int64_t v, const char *s, size_t len, size_t *lo, size_t *hi)
{
	size_t a = idx->nnull, b = idx->n, m;

	while (a < b) {
		m = a + (b - a) / 2;
		if (cmp_at(t, c, idx->rows[m], v, s, len) < 0)
			a = m + 1;
		else
			b = m;
	}
	*lo = a;
	b = idx->n;
	while (a < b) {
		m = a + (b - a) / 2;
		if (cmp_at(t, c, idx->rows[m], v, s, len) <= 0)
			a = m + 1;
		else
			b = m;
	}
	*hi = a;
}

void
cs_index_narrow(const struct cs_table *t, size_t c,
    const struct cs_index *idx, int64_t min, int64_t max, size_t *lo,
    size_t *hi)
{
	size_t a = *lo, b = *hi, m;

	while (a < b) {
		m = a + (b - a) / 2;
		if (key_at(t, c, idx->rows[m]) < min)
			a = m + 1;
		else
			b = m;
	}
	*lo = a;
	b = *hi;
	while (a < b) {
		m = a + (b - a) / 2;
		if (key_at(t, c, idx->rows[m]) <= max)
			a = m + 1;
		else
			b = m;
	}
	*hi = a;
}

int64_t
cs_get_key(const struct cs_table *t, size_t c, uint32_t r)
{
	return r < t->nrows ? key_at(t, c, r) : CS_NULL_I64;
}
