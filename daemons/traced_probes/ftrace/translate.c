/*
 * Record -> FtraceEvent translation (see translate.h).
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "event_table.h"
#include "ksyms.h"
#include "translate.h"

enum plan_kind {
	PLAN_TYPED,
	PLAN_GENERIC,
	PLAN_COMPACT_SWITCH,
	PLAN_COMPACT_WAKING,
	PLAN_KPROBE,
};

/* How to encode one record field. */
struct plan_field {
	uint16_t	 offset;
	uint16_t	 size;
	uint16_t	 elem_size;
	uint8_t		 kind;		/* enum ftrace_field_kind */
	uint8_t		 is_signed;
	uint8_t		 is_string;
	uint8_t		 ptype;		/* enum ftrace_proto_type (typed) */
	uint8_t		 symaddr;	/* a kernel address: write its index */
	uint32_t	 proto_id;	/* typed only */
	char		*name;		/* generic only */
};

struct plan {
	uint8_t			 kind;
	uint8_t			 kprobe_type;
	uint8_t			 is_print;	/* ftrace/print: filterable */
	struct plan_field	 buf;		/* print's buf field */
	uint32_t		 proto_id;	/* field of FtraceEvent */
	char			*name;		/* generic event_name */
	struct plan_field	 pid;		/* common_pid; size 0 if none */
	struct plan_field	 flags;		/* common_flags; size 0 if none */
	struct plan_field	*fields;
	unsigned int		 nfields;
	unsigned int		 nsymaddr;	/* fields with symaddr */
	/* compact_sched: offsets of the columns' sources */
	struct plan_field	 c[5];
};

struct print_rule {
	char	*prefix;
	char	*atrace_type;
	int	 allow;
};

/*
 * Kernel address -> symbol index, for one drain. order[i - 1] is the
 * address of index i; indexes up to written are named already.
 */
struct symtab {
	uint64_t	*keys;
	uint32_t	*vals;		/* 0: empty slot */
	uint32_t	 cap;		/* power of two */
	uint64_t	*order;
	uint32_t	 n;
	uint32_t	 written;
	int		 cleared;	/* this drain's CLEARED was sent */
};

struct ftrace_translator {
	struct ftrace_xlate_opts	 opts;
	struct print_rule		*rules;
	size_t				 nrules;
	struct plan			**plans;	/* by event id */
	uint32_t			 nplans;
	struct symtab			 syms;
};

/* Compact columns, in ftrace_bundle.col[] order, and their field numbers. */
enum {
	C_SW_TS, C_SW_PREV_STATE, C_SW_NEXT_PID, C_SW_NEXT_PRIO, C_SW_COMM,
	C_WK_TS, C_WK_PID, C_WK_TARGET_CPU, C_WK_PRIO, C_WK_COMM, C_WK_FLAGS,
	C_NCOLS
};
static const uint32_t compact_field_ids[C_NCOLS] = {
	1, 2, 3, 4, 6, 7, 8, 9, 10, 11, 12
};
#define COMPACT_INTERN_TABLE	5

/* TracePacket and InternedData fields for the symbol names. */
#define PACKET_INTERNED_DATA		12
#define PACKET_SEQUENCE_FLAGS		13
#define SEQ_INCREMENTAL_STATE_CLEARED	1
#define INTERNED_KERNEL_SYMBOLS		26
#define INTERNED_STRING_IID		1
#define INTERNED_STRING_STR		2

const struct ftrace_proto_event *
ftrace_proto_event_find(const char *group, const char *name)
{
	for (unsigned int i = 0; i < ftrace_proto_nevents; i++)
		if (strcmp(ftrace_proto_events[i].name, name) == 0 &&
		    strcmp(ftrace_proto_events[i].group, group) == 0)
			return &ftrace_proto_events[i];
	return NULL;
}

int
ftrace_event_is_typed(const char *group, const char *name)
{
	return ftrace_proto_event_find(group, name) != NULL;
}

struct ftrace_translator *
ftrace_translator_new(const struct ftrace_xlate_opts *opts)
{
	struct ftrace_translator *xl;

	if ((xl = calloc(1, sizeof(*xl))) == NULL)
		return NULL;
	if (opts == NULL)
		return xl;
	xl->opts = *opts;
	xl->opts.print_rules = NULL;
	xl->opts.nprint_rules = 0;
	if (opts->nprint_rules > 0 && (xl->rules = calloc(opts->nprint_rules,
	    sizeof(*xl->rules))) == NULL)
		goto fail;
	for (size_t i = 0; i < opts->nprint_rules; i++) {
		const struct ftrace_print_rule *r = &opts->print_rules[i];
		struct print_rule *c = &xl->rules[xl->nrules++];

		c->allow = r->allow;
		if ((c->prefix = strdup(r->prefix ? r->prefix : "")) == NULL ||
		    (r->atrace_type != NULL && (c->atrace_type =
		    strdup(r->atrace_type)) == NULL))
			goto fail;
	}
	return xl;
fail:
	ftrace_translator_free(xl);
	return NULL;
}

static void
plan_free(struct plan *pl)
{
	if (pl == NULL)
		return;
	for (unsigned int i = 0; i < pl->nfields; i++)
		free(pl->fields[i].name);
	free(pl->fields);
	free(pl->name);
	free(pl);
}

void
ftrace_translator_free(struct ftrace_translator *xl)
{
	if (xl == NULL)
		return;
	for (size_t i = 0; i < xl->nrules; i++) {
		free(xl->rules[i].prefix);
		free(xl->rules[i].atrace_type);
	}
	free(xl->rules);
	for (uint32_t i = 0; i < xl->nplans; i++)
		plan_free(xl->plans[i]);
	free(xl->plans);
	free(xl->syms.keys);
	free(xl->syms.vals);
	free(xl->syms.order);
	free(xl);
}

static void
plan_field_set(struct plan_field *pf, const struct ftrace_field *f)
{
	pf->offset = f->offset;
	pf->size = f->size;
	pf->elem_size = f->elem_size;
	pf->kind = f->kind;
	pf->is_signed = f->is_signed;
	pf->is_string = f->is_string;
}

static int
is_funcgraph(const struct ftrace_format *fmt)
{
	return strcmp(fmt->group, "ftrace") == 0 &&
	    (strcmp(fmt->name, "funcgraph_entry") == 0 ||
	    strcmp(fmt->name, "funcgraph_exit") == 0);
}

/*
 * A field that holds a kernel address: `void *` (the format parser may
 * have split "void *name" into type "void" and name), or the `func` of
 * the function graph events, which the kernel declares unsigned long.
 */
static int
is_symaddr(const struct ftrace_format *fmt, const struct ftrace_field *f)
{
	if (f->kind != FTRACE_FIELD_INT || (f->size != 4 && f->size != 8))
		return 0;
	if (strcmp(f->type, "void *") == 0 || strcmp(f->type, "void*") == 0 ||
	    strcmp(f->type, "void") == 0)
		return 1;
	return is_funcgraph(fmt) && strcmp(f->name, "func") == 0;
}

/* A typed proto field can take a kernel field of a matching shape. */
static int
typed_compatible(uint8_t ptype, const struct ftrace_field *f)
{
	if (ptype == PT_STRING)
		return f->kind == FTRACE_FIELD_CHARS ||
		    f->kind == FTRACE_FIELD_TAIL ||
		    (f->kind == FTRACE_FIELD_DATALOC && f->is_string);
	return f->kind == FTRACE_FIELD_INT ||
	    f->kind == FTRACE_FIELD_INT_ARRAY;
}

static int
plan_compact(struct plan *pl, const struct ftrace_format *fmt)
{
	static const char *sw[] = { "prev_state", "next_pid", "next_prio",
	    "next_comm" };
	static const char *wk[] = { "pid", "target_cpu", "prio", "comm" };
	const char **names;
	const struct ftrace_field *f;

	if (strcmp(fmt->group, "sched") != 0)
		return 0;
	if (strcmp(fmt->name, "sched_switch") == 0)
		names = sw;
	else if (strcmp(fmt->name, "sched_waking") == 0)
		names = wk;
	else
		return 0;
	for (int i = 0; i < 4; i++) {
		f = ftrace_format_field(fmt, names[i]);
		if (f == NULL)
			return 0;
		if (i == 3 ? f->kind != FTRACE_FIELD_CHARS :
		    f->kind != FTRACE_FIELD_INT)
			return 0;
		plan_field_set(&pl->c[i], f);
	}
	pl->kind = names == sw ? PLAN_COMPACT_SWITCH : PLAN_COMPACT_WAKING;
	return 1;
}

int
ftrace_translator_add(struct ftrace_translator *xl,
    const struct ftrace_format *fmt, const char **cause)
{
	const struct ftrace_proto_event *pe;
	const struct ftrace_field *buf;
	struct plan *pl, **np;
	unsigned int i, j;

	if (fmt->id >= xl->nplans) {
		np = reallocarray(xl->plans, fmt->id + 1, sizeof(*np));
		if (np == NULL)
			goto nomem;
		memset(np + xl->nplans, 0,
		    (fmt->id + 1 - xl->nplans) * sizeof(*np));
		xl->plans = np;
		xl->nplans = fmt->id + 1;
	}
	if (xl->plans[fmt->id] != NULL)
		return 0;	/* already planned */
	pe = ftrace_proto_event_find(fmt->group, fmt->name);
	if (pe == NULL && xl->opts.disable_generic) {
		*cause = "no typed proto and generic events are disabled";
		return -1;
	}
	if ((pl = calloc(1, sizeof(*pl))) == NULL)
		goto nomem;
	if (fmt->common_pid != NULL)
		plan_field_set(&pl->pid, fmt->common_pid);
	if (fmt->common_flags != NULL)
		plan_field_set(&pl->flags, fmt->common_flags);
	if (xl->opts.compact_sched && plan_compact(pl, fmt)) {
		xl->plans[fmt->id] = pl;
		return 0;
	}
	pl->fields = calloc(fmt->nfields, sizeof(*pl->fields));
	if (pl->fields == NULL)
		goto nomem_pl;
	if (strcmp(fmt->group, "ftrace") == 0 &&
	    strcmp(fmt->name, "print") == 0 &&
	    (buf = ftrace_format_field(fmt, "buf")) != NULL &&
	    buf->kind == FTRACE_FIELD_TAIL) {
		pl->is_print = 1;
		plan_field_set(&pl->buf, buf);
	}
	if (pe != NULL) {
		pl->kind = PLAN_TYPED;
		pl->proto_id = pe->id;
		for (i = fmt->ncommon; i < fmt->nfields; i++) {
			const struct ftrace_field *f = &fmt->fields[i];

			for (j = 0; j < pe->nfields; j++)
				if (strcmp(pe->fields[j].name, f->name) == 0)
					break;
			if (j == pe->nfields ||
			    !typed_compatible(pe->fields[j].type, f))
				continue;
			plan_field_set(&pl->fields[pl->nfields], f);
			pl->fields[pl->nfields].ptype = pe->fields[j].type;
			pl->fields[pl->nfields].proto_id = pe->fields[j].id;
			if (is_symaddr(fmt, f)) {
				pl->fields[pl->nfields].symaddr = 1;
				pl->nsymaddr++;
			}
			pl->nfields++;
		}
	} else {
		pl->kind = PLAN_GENERIC;
		pl->proto_id = EVENT_GENERIC;
		if ((pl->name = strdup(fmt->name)) == NULL)
			goto nomem_pl;
		for (i = fmt->ncommon; i < fmt->nfields; i++) {
			struct plan_field *pf = &pl->fields[pl->nfields];

			/* funcgraph-args: raw argument words, addresses
			 * among them: never copied out. */
			if (is_funcgraph(fmt) &&
			    strcmp(fmt->fields[i].name, "args") == 0)
				continue;
			plan_field_set(pf, &fmt->fields[i]);
			if (is_symaddr(fmt, &fmt->fields[i])) {
				pf->symaddr = 1;
				pl->nsymaddr++;
			}
			if ((pf->name = strdup(fmt->fields[i].name)) == NULL)
				goto nomem_pl;
			pl->nfields++;
		}
	}
	xl->plans[fmt->id] = pl;
	return 0;
nomem_pl:
	plan_free(pl);
nomem:
	*cause = "out of memory";
	return -1;
}

int
ftrace_translator_add_kprobe(struct ftrace_translator *xl,
    const struct ftrace_format *fmt, int type, const char **cause)
{
	struct plan *pl;
	int saved = xl->opts.disable_generic, rc;

	/* A kprobe is never a generic event, whatever the config says. */
	xl->opts.disable_generic = 0;
	rc = ftrace_translator_add(xl, fmt, cause);
	xl->opts.disable_generic = saved;
	if (rc == -1)
		return -1;
	pl = xl->plans[fmt->id];
	if (pl->name == NULL && (pl->name = strdup(fmt->name)) == NULL) {
		*cause = "out of memory";
		return -1;
	}
	pl->kind = PLAN_KPROBE;
	pl->proto_id = EVENT_KPROBE;
	pl->kprobe_type = (uint8_t)type;
	return 0;
}

/* ---- kernel addresses -> symbol indexes ---- */

static uint32_t
sym_slot(uint64_t addr, uint32_t cap)
{
	return (uint32_t)((addr * 0x9e3779b97f4a7c15ull) >> 32) & (cap - 1);
}

static int
sym_grow(struct symtab *st)
{
	uint32_t cap = st->cap ? st->cap * 2 : 256, i, k;
	uint64_t *keys, *order;
	uint32_t *vals;

	if ((order = reallocarray(st->order, cap / 2, sizeof(*order))) ==
	    NULL)
		return -1;
	st->order = order;
	keys = calloc(cap, sizeof(*keys));
	vals = calloc(cap, sizeof(*vals));
	if (keys == NULL || vals == NULL) {
		free(keys);
		free(vals);
		return -1;
	}
	for (i = 0; i < st->cap; i++) {
		if (st->vals[i] == 0)
			continue;
		for (k = sym_slot(st->keys[i], cap); vals[k] != 0;
		    k = (k + 1) & (cap - 1))
			;
		keys[k] = st->keys[i];
		vals[k] = st->vals[i];
	}
	free(st->keys);
	free(st->vals);
	st->keys = keys;
	st->vals = vals;
	st->cap = cap;
	return 0;
}

/*
 * The index of a kernel address (1, 2, ... in first-seen order). The
 * caller made room (translate_record); 0, which names nothing, only if
 * memory runs out.
 */
static uint32_t
sym_index(struct symtab *st, uint64_t addr)
{
	uint32_t k;

	if ((st->n + 1) * 2 > st->cap && (st->n >= FTRACE_SYMS_MAX ||
	    sym_grow(st) == -1))
		return 0;
	for (k = sym_slot(addr, st->cap); st->vals[k] != 0;
	    k = (k + 1) & (st->cap - 1))
		if (st->keys[k] == addr)
			return st->vals[k];
	st->keys[k] = addr;
	st->vals[k] = ++st->n;
	st->order[st->n - 1] = addr;
	return st->n;
}

static void
sym_reset(struct symtab *st)
{
	if (st->n > 0)
		memset(st->vals, 0, st->cap * sizeof(*st->vals));
	st->n = 0;
	st->written = 0;
	st->cleared = 0;
}

void
ftrace_translator_drain_end(struct ftrace_translator *xl)
{
	sym_reset(&xl->syms);
}

uint32_t
ftrace_translator_nsyms(const struct ftrace_translator *xl)
{
	return xl->syms.n;
}

/*
 * After a bundle: the names of the indexes it introduced, and the
 * drain's CLEARED flag if no packet carried it yet.
 */
static void
sym_write_names(struct ftrace_bundle *b)
{
	struct symtab *st = &b->xl->syms;
	const struct ksyms *ks = b->xl->opts.ksyms;
	char name[KSYMS_NAME_MAX];
	int len, open = 0;

	if (ks == NULL || st->written == st->n) {
		st->written = st->n;
		return;
	}
	if (!st->cleared) {
		pbw_varint(b->w, PACKET_SEQUENCE_FLAGS,
		    SEQ_INCREMENTAL_STATE_CLEARED);
		st->cleared = 1;
	}
	for (uint32_t i = st->written; i < st->n; i++) {
		if ((len = ksyms_lookup(ks, st->order[i], name,
		    sizeof(name))) < 0) {
			b->ctr->syms_unnamed++;
			continue;
		}
		if (!open) {
			pbw_nested_begin(b->w, PACKET_INTERNED_DATA);
			open = 1;
		}
		pbw_nested_begin(b->w, INTERNED_KERNEL_SYMBOLS);
		pbw_varint(b->w, INTERNED_STRING_IID, i + 1);
		pbw_bytes(b->w, INTERNED_STRING_STR, name, (size_t)len);
		pbw_nested_end(b->w);
		b->ctr->syms_named++;
	}
	if (open)
		pbw_nested_end(b->w);
	st->written = st->n;
}

/* ---- the per-record loop ---- */

static inline uint64_t
rd_uint(const uint8_t *p, unsigned int size)
{
	uint8_t v8;
	uint16_t v16;
	uint32_t v32;
	uint64_t v64;

	switch (size) {
	case 1:
		memcpy(&v8, p, 1);
		return v8;
	case 2:
		memcpy(&v16, p, 2);
		return v16;
	case 4:
		memcpy(&v32, p, 4);
		return v32;
	default:
		memcpy(&v64, p, 8);
		return v64;
	}
}

/* Reads an integer field, sign-extended when the kernel says signed. */
static inline uint64_t
rd_int(const uint8_t *p, unsigned int size, int is_signed)
{
	uint64_t v = rd_uint(p, size);

	if (is_signed && size < 8) {
		uint64_t sign = 1ull << (size * 8 - 1);

		v = (v ^ sign) - sign;
	}
	return v;
}

/*
 * Finds the bytes of a string-like field inside the record. Returns 0 and
 * sets *s, *n (trailing NULs trimmed), or -1 if out of bounds.
 */
static int
field_str(const struct plan_field *pf, const uint8_t *rec, uint32_t reclen,
    const uint8_t **s, size_t *n)
{
	uint32_t loc, off, len;

	switch (pf->kind) {
	case FTRACE_FIELD_CHARS:
	case FTRACE_FIELD_OTHER:
		if ((uint32_t)pf->offset + pf->size > reclen)
			return -1;
		off = pf->offset;
		len = pf->size;
		break;
	case FTRACE_FIELD_TAIL:
		if (pf->offset > reclen)
			return -1;
		off = pf->offset;
		len = reclen - pf->offset;
		break;
	case FTRACE_FIELD_DATALOC:
		if ((uint32_t)pf->offset + 4 > reclen)
			return -1;
		loc = (uint32_t)rd_uint(rec + pf->offset, 4);
		off = loc & 0xffff;
		len = loc >> 16;
		/* Newer kernels can make the offset relative to the field. */
		if (off + len > reclen)
			return -1;
		break;
	default:
		return -1;
	}
	*s = rec + off;
	if (pf->kind == FTRACE_FIELD_OTHER ||
	    (pf->kind == FTRACE_FIELD_DATALOC && !pf->is_string)) {
		*n = len;
		return 0;
	}
	*n = strnlen((const char *)*s, len);
	return 0;
}

static void
put_hex(struct pbw *w, uint32_t field, const uint8_t *s, size_t n)
{
	static const char digits[] = "0123456789abcdef";
	char buf[2 * 256];
	size_t i;

	if (n > 256)
		n = 256;
	for (i = 0; i < n; i++) {
		buf[2 * i] = digits[s[i] >> 4];
		buf[2 * i + 1] = digits[s[i] & 0xf];
	}
	pbw_bytes(w, field, buf, 2 * n);
}

static void
emit_typed(struct pbw *w, struct symtab *st, const struct plan *pl,
    const uint8_t *rec, uint32_t reclen)
{
	const struct plan_field *pf;
	const uint8_t *s;
	size_t n;
	uint64_t v;

	for (unsigned int i = 0; i < pl->nfields; i++) {
		pf = &pl->fields[i];
		if (pf->ptype == PT_STRING) {
			if (field_str(pf, rec, reclen, &s, &n) == 0)
				pbw_bytes(w, pf->proto_id, s, n);
			continue;
		}
		if ((uint32_t)pf->offset + pf->size > reclen)
			continue;
		if (pf->kind == FTRACE_FIELD_INT_ARRAY) {
			for (unsigned int k = 0; k < pf->size / pf->elem_size;
			    k++)
				pbw_varint(w, pf->proto_id, rd_int(rec +
				    pf->offset + k * pf->elem_size,
				    pf->elem_size, pf->is_signed));
			continue;
		}
		v = rd_int(rec + pf->offset, pf->size, pf->is_signed);
		if (pf->symaddr)
			v = sym_index(st, rd_uint(rec + pf->offset, pf->size));
		if (pf->ptype == PT_UINT32)
			v = (uint32_t)v;
		else if (pf->ptype == PT_INT32)
			v = (uint64_t)(int64_t)(int32_t)v;
		pbw_varint(w, pf->proto_id, v);
	}
}

static void
emit_generic_int(struct pbw *w, const struct plan_field *pf,
    const uint8_t *p, unsigned int size)
{
	pbw_nested_begin(w, GENERIC_FIELD);
	pbw_string(w, GENERIC_FIELD_NAME, pf->name);
	pbw_varint(w, pf->is_signed ? GENERIC_FIELD_INT : GENERIC_FIELD_UINT,
	    rd_int(p, size, pf->is_signed));
	pbw_nested_end(w);
}

static void
emit_generic(struct pbw *w, struct symtab *st, const struct plan *pl,
    const uint8_t *rec, uint32_t reclen)
{
	const struct plan_field *pf;
	const uint8_t *s;
	size_t n;

	pbw_string(w, GENERIC_EVENT_NAME, pl->name);
	for (unsigned int i = 0; i < pl->nfields; i++) {
		pf = &pl->fields[i];
		switch (pf->kind) {
		case FTRACE_FIELD_INT:
			if ((uint32_t)pf->offset + pf->size > reclen)
				break;
			if (pf->symaddr) {
				pbw_nested_begin(w, GENERIC_FIELD);
				pbw_string(w, GENERIC_FIELD_NAME, pf->name);
				pbw_varint(w, GENERIC_FIELD_UINT, sym_index(st,
				    rd_uint(rec + pf->offset, pf->size)));
				pbw_nested_end(w);
			} else
				emit_generic_int(w, pf, rec + pf->offset,
				    pf->size);
			break;
		case FTRACE_FIELD_INT_ARRAY:
			if ((uint32_t)pf->offset + pf->size > reclen)
				break;
			/* One field per element, in order, same name. */
			for (unsigned int k = 0; k < pf->size / pf->elem_size;
			    k++)
				emit_generic_int(w, pf, rec + pf->offset +
				    k * pf->elem_size, pf->elem_size);
			break;
		default:
			if (field_str(pf, rec, reclen, &s, &n) == -1)
				break;
			pbw_nested_begin(w, GENERIC_FIELD);
			pbw_string(w, GENERIC_FIELD_NAME, pf->name);
			if (pf->kind == FTRACE_FIELD_OTHER ||
			    (pf->kind == FTRACE_FIELD_DATALOC &&
			    !pf->is_string))
				put_hex(w, GENERIC_FIELD_STR, s, n);
			else
				pbw_bytes(w, GENERIC_FIELD_STR, s, n);
			pbw_nested_end(w);
			break;
		}
	}
}

/* ---- bundles ---- */

int
ftrace_bundle_init(struct ftrace_bundle *b, struct ftrace_translator *xl,
    const struct ftrace_page_layout *layout, uint32_t cpu,
    struct ftrace_sink sink, struct ftrace_cpu_counters *ctr)
{
	memset(b, 0, sizeof(*b));
	if (xl->opts.compact_sched && (b->cols = malloc(C_NCOLS *
	    FTRACE_COMPACT_COL_CAP)) == NULL)
		return -1;
	b->xl = xl;
	b->layout = layout;
	b->cpu = cpu;
	b->sink = sink;
	b->ctr = ctr;
	return 0;
}

void
ftrace_bundle_free(struct ftrace_bundle *b)
{
	ftrace_bundle_finish(b);
	free(b->cols);
	b->cols = NULL;
}

/*
 * A clock other than boot: a (ftrace clock, boot clock) pair taken now, so
 * the reader can align. Only mono_raw is a clock userspace can read.
 */
static void
clock_pair(struct pbw *w, int clock)
{
	struct timespec raw, boot;

	if (clock != FTRACE_CLOCK_MONO_RAW ||
	    clock_gettime(CLOCK_MONOTONIC_RAW, &raw) == -1 ||
	    clock_gettime(CLOCK_BOOTTIME, &boot) == -1)
		return;
	pbw_varint(w, BUNDLE_FTRACE_TIMESTAMP, (uint64_t)raw.tv_sec *
	    1000000000u + (uint64_t)raw.tv_nsec);
	pbw_varint(w, BUNDLE_BOOT_TIMESTAMP, (uint64_t)boot.tv_sec *
	    1000000000u + (uint64_t)boot.tv_nsec);
}

static void
bundle_open(struct ftrace_bundle *b)
{
	b->w = b->sink.packet_begin(b->sink.arg);
	pbw_nested_begin(b->w, TRACE_PACKET_FTRACE_EVENTS);
	pbw_varint(b->w, BUNDLE_CPU, b->cpu);
	if (b->xl->opts.clock != 0) {
		pbw_varint(b->w, BUNDLE_FTRACE_CLOCK,
		    (uint64_t)b->xl->opts.clock);
		clock_pair(b->w, b->xl->opts.clock);
	}
	if (b->prev_end_ts != 0)
		pbw_varint(b->w, BUNDLE_PREV_END_TS, b->prev_end_ts);
	b->nevents = 0;
	b->nswitch = b->nwaking = b->nintern = 0;
	memset(b->col_len, 0, sizeof(b->col_len));
}

static void
pids_flush(struct ftrace_bundle *b)
{
	if (b->npids > 0 && b->sink.pids != NULL)
		b->sink.pids(b->sink.arg, b->pids, b->npids);
	b->npids = 0;
}

/* Remembers a pid for the sink's pids hook (deduplicated per bundle). */
static void
pid_seen(struct ftrace_bundle *b, int32_t pid)
{
	if (b->sink.pids == NULL || pid <= 0)
		return;
	for (uint32_t i = b->npids; i-- > 0;)
		if (b->pids[i] == pid)
			return;
	if (b->npids == FTRACE_PIDS_MAX)
		pids_flush(b);
	b->pids[b->npids++] = pid;
}

void
ftrace_bundle_finish(struct ftrace_bundle *b)
{
	struct pbw *w = b->w;

	if (w == NULL)
		return;
	if (b->nswitch + b->nwaking > 0) {
		pbw_nested_begin(w, BUNDLE_COMPACT_SCHED);
		for (uint32_t i = 0; i < b->nintern; i++)
			pbw_bytes(w, COMPACT_INTERN_TABLE, b->intern[i],
			    strnlen(b->intern[i], sizeof(b->intern[i])));
		for (int i = 0; i < C_NCOLS; i++)
			if (b->col_len[i] > 0)
				pbw_bytes(w, compact_field_ids[i], b->cols +
				    i * FTRACE_COMPACT_COL_CAP, b->col_len[i]);
		pbw_nested_end(w);
	}
	if (b->lost)
		pbw_varint(w, BUNDLE_LOST_EVENTS, 1);
	pbw_nested_end(w);
	sym_write_names(b);
	b->sink.packet_end(b->sink.arg);
	b->w = NULL;
	pids_flush(b);
	b->lost = 0;
	if (b->nevents > 0)
		b->prev_end_ts = b->last_ts;
	b->ctr->packets++;
}

static uint32_t
intern_comm(struct ftrace_bundle *b, const uint8_t *comm, size_t size)
{
	char c[16];
	size_t n = size < sizeof(c) ? size : sizeof(c);

	memset(c, 0, sizeof(c));
	memcpy(c, comm, strnlen((const char *)comm, n));
	for (uint32_t i = 0; i < b->nintern; i++)
		if (memcmp(b->intern[i], c, sizeof(c)) == 0)
			return i;
	memcpy(b->intern[b->nintern], c, sizeof(c));
	return b->nintern++;
}

static int
compact_full(const struct ftrace_bundle *b)
{
	if (b->nintern >= FTRACE_INTERN_MAX)
		return 1;
	for (int i = 0; i < C_NCOLS; i++)
		if (FTRACE_COMPACT_COL_CAP - b->col_len[i] < 10)
			return 1;
	return 0;
}

static inline void
col_put(struct ftrace_bundle *b, int col, uint64_t v)
{
	uint8_t *p = b->cols + col * FTRACE_COMPACT_COL_CAP + b->col_len[col];

	b->col_len[col] += (uint32_t)(pbw_put_varint(p, v) - p);
}

static void
emit_compact(struct ftrace_bundle *b, const struct plan *pl, uint64_t ts,
    const uint8_t *rec, uint32_t reclen)
{
	const struct plan_field *c = pl->c;
	uint64_t v[3];

	for (int i = 0; i < 4; i++)
		if ((uint32_t)c[i].offset + c[i].size > reclen) {
			b->ctr->dropped++;
			return;
		}
	for (int i = 0; i < 3; i++)
		v[i] = rd_int(rec + c[i].offset, c[i].size, c[i].is_signed);
	if (pl->kind == PLAN_COMPACT_SWITCH) {
		col_put(b, C_SW_TS, b->nswitch == 0 ? ts :
		    ts - b->switch_last_ts);
		b->switch_last_ts = ts;
		b->nswitch++;
		col_put(b, C_SW_PREV_STATE, v[0]);
		col_put(b, C_SW_NEXT_PID, (uint64_t)(int64_t)(int32_t)v[1]);
		col_put(b, C_SW_NEXT_PRIO, (uint64_t)(int64_t)(int32_t)v[2]);
		col_put(b, C_SW_COMM, intern_comm(b, rec + c[3].offset,
		    c[3].size));
	} else {
		col_put(b, C_WK_TS, b->nwaking == 0 ? ts :
		    ts - b->waking_last_ts);
		b->waking_last_ts = ts;
		b->nwaking++;
		col_put(b, C_WK_PID, (uint64_t)(int64_t)(int32_t)v[0]);
		col_put(b, C_WK_TARGET_CPU, (uint64_t)(int64_t)(int32_t)v[1]);
		col_put(b, C_WK_PRIO, (uint64_t)(int64_t)(int32_t)v[2]);
		col_put(b, C_WK_FLAGS, pl->flags.size != 0 &&
		    (uint32_t)pl->flags.offset + pl->flags.size <= reclen ?
		    rd_uint(rec + pl->flags.offset, pl->flags.size) : 0);
		col_put(b, C_WK_COMM, intern_comm(b, rec + c[3].offset,
		    c[3].size));
	}
}

static void
emit_event(struct ftrace_bundle *b, const struct plan *pl, uint64_t ts,
    const uint8_t *rec, uint32_t reclen)
{
	struct pbw *w = b->w;

	pbw_nested_begin(w, BUNDLE_EVENT);
	pbw_varint(w, EVENT_TIMESTAMP, ts);
	if (pl->pid.size != 0 && (uint32_t)pl->pid.offset + pl->pid.size <=
	    reclen)
		pbw_varint(w, EVENT_PID, (uint32_t)rd_uint(rec +
		    pl->pid.offset, pl->pid.size));
	pbw_nested_begin(w, pl->proto_id);
	if (pl->kind == PLAN_TYPED)
		emit_typed(w, &b->xl->syms, pl, rec, reclen);
	else if (pl->kind == PLAN_KPROBE) {
		pbw_string(w, KPROBE_EVENT_NAME, pl->name);
		pbw_varint(w, KPROBE_EVENT_TYPE, pl->kprobe_type);
	} else
		emit_generic(w, &b->xl->syms, pl, rec, reclen);
	pbw_nested_end(w);
	pbw_nested_end(w);
}

/* print_filter: 1 to keep the record. */
static int
print_allowed(const struct ftrace_translator *xl, const struct plan *pl,
    const uint8_t *rec, uint32_t reclen)
{
	const struct print_rule *r;
	const uint8_t *s, *bar;
	size_t n, tl, pl_len;

	if (field_str(&pl->buf, rec, reclen, &s, &n) == -1)
		return 1;
	for (size_t i = 0; i < xl->nrules; i++) {
		r = &xl->rules[i];
		pl_len = strlen(r->prefix);
		if (r->atrace_type == NULL) {
			if (n >= pl_len && memcmp(s, r->prefix, pl_len) == 0)
				return r->allow;
			continue;
		}
		/* "<type>|<pid>|<message>" */
		tl = strlen(r->atrace_type);
		if (n <= tl || memcmp(s, r->atrace_type, tl) != 0 ||
		    s[tl] != '|')
			continue;
		if ((bar = memchr(s + tl + 1, '|', n - tl - 1)) == NULL)
			continue;
		bar++;
		if ((size_t)(s + n - bar) >= pl_len &&
		    memcmp(bar, r->prefix, pl_len) == 0)
			return r->allow;
	}
	return 1;
}

static void
translate_record(struct ftrace_bundle *b, const struct ring_record *r)
{
	struct ftrace_translator *xl = b->xl;
	const struct plan *pl;
	uint16_t id;

	if (r->len < 2) {
		b->ctr->dropped++;
		return;
	}
	memcpy(&id, r->data, sizeof(id));
	if (id >= xl->nplans || (pl = xl->plans[id]) == NULL) {
		b->ctr->unknown_ids++;
		return;
	}
	if (pl->is_print && xl->nrules > 0 &&
	    !print_allowed(xl, pl, r->data, r->len)) {
		b->ctr->filtered++;
		return;
	}
	if (b->w != NULL && (pbw_written(b->w) >= FTRACE_BUNDLE_MAX ||
	    (b->cols != NULL && compact_full(b))))
		ftrace_bundle_finish(b);
	/* The drain's index table is full: name what this bundle used,
	 * then number again from 1 (the next packet clears). */
	if (pl->nsymaddr > 0 && xl->syms.n + pl->nsymaddr > FTRACE_SYMS_MAX) {
		ftrace_bundle_finish(b);
		sym_reset(&xl->syms);
	}
	if (b->w == NULL)
		bundle_open(b);
	if (pl->kind == PLAN_COMPACT_SWITCH || pl->kind == PLAN_COMPACT_WAKING)
		emit_compact(b, pl, r->ts, r->data, r->len);
	else
		emit_event(b, pl, r->ts, r->data, r->len);
	if (b->sink.pids != NULL && pl->pid.size == 4 &&
	    (uint32_t)pl->pid.offset + 4 <= r->len)
		pid_seen(b, (int32_t)rd_uint(r->data + pl->pid.offset, 4));
	b->nevents++;
	b->last_ts = r->ts;
	b->ctr->events++;
}

int
ftrace_bundle_add_page_untrusted(struct ftrace_bundle *b,
    const uint8_t *page, size_t len)
{
	struct ring_page rp;
	struct ring_record r;
	int rc;

	b->ctr->pages++;
	b->ctr->bytes_read += len;
	if ((rc = ring_page_open_untrusted(&rp, b->layout, page, len)) != 0) {
		b->ctr->bad_pages++;
		b->ctr->last_status = rc;
		return rc;
	}
	if (rp.lost) {
		/* Data before this page is gone: say so in the bundle
		 * that holds what follows. */
		b->ctr->lost_pages++;
		if (rp.lost_count > 0)
			b->ctr->lost_events += (uint64_t)rp.lost_count;
		if (b->w != NULL && b->nevents > 0)
			ftrace_bundle_finish(b);
		if (b->w == NULL)
			bundle_open(b);
		b->lost = 1;
	}
	while ((rc = ring_page_next_untrusted(&rp, &r)) == 1)
		translate_record(b, &r);
	if (rc != 0) {
		b->ctr->bad_pages++;
		b->ctr->last_status = rc;
		return rc;
	}
	return 0;
}
