/*
 * The engine's bulk tables, held as columnar tables (cs_table.h) and
 * served to SQLite (cs_vtab.h), and their typed writers: an importer
 * hands a row's values, never SQL or a column number.
 *
 * Row ids are the table's ids. A row written again under its id (a
 * slice, sched or thread state shown open at a checkpoint, then closed;
 * an arg updated in place) replaces the one there.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tp_int.h"
#include "cs_pool.h"
#include "cs_table.h"
#include "cs_vtab.h"
#include "ops/tp_ops.h"

#define ID(n)		{ n, CS_ID, 0, 0, 0 }
#define I32(n)		{ n, CS_I32, 0, 0, 0 }
#define I64(n)		{ n, CS_I64, 0, 0, 0 }
#define F64(n)		{ n, CS_F64, 0, 0, 0 }
#define STR(n)		{ n, CS_STR, 0, 0, 0 }
#define ALIAS(n, c)	{ n, CS_ALIAS, c, 0, 0 }
#define REF(n, c, rc)	{ n, CS_REF, c, rc, 0 }
#define VARIANT(n, v, k, kc)	{ n, CS_VARIANT, v, k, kc }

/* Columns in upstream's order; the comments name the index. */
enum { SL_ID, SL_TS, SL_DUR, SL_TRACK, SL_CAT, SL_NAME, SL_DEPTH,
	SL_STACK, SL_PSTACK, SL_PARENT, SL_ARGS, SL_TTS, SL_TDUR, SL_TIC,
	SL_TICD };
static const struct cs_coldef slice_cols[] = {
	ID("id"), I64("ts"), I64("dur"), I32("track_id"), STR("category"),
	STR("name"), I32("depth"), I64("stack_id"), I64("parent_stack_id"),
	I32("parent_id"), I32("arg_set_id"), I64("thread_ts"),
	I64("thread_dur"), I64("thread_instruction_count"),
	I64("thread_instruction_delta"),
	/* upstream's aliases */
	ALIAS("cat", SL_CAT), ALIAS("slice_id", SL_ID),
};
enum { CT_ID, CT_TS, CT_TRACK, CT_VALUE, CT_ARGS };
static const struct cs_coldef counter_cols[] = {
	ID("id"), I64("ts"), I32("track_id"), F64("value"), I32("arg_set_id"),
};
/* Keys and value types repeat on every arg: each (flat_key, key,
 * value_type) is a row of __arg_keys, which args read through key_id. */
enum { AK_ID, AK_FLAT, AK_KEY, AK_TYPE, AK_KIND };
static const struct cs_coldef arg_key_cols[] = {
	ID("id"), STR("flat_key"), STR("key"), STR("value_type"),
	I32("value_kind"),
};
/*
 * An arg holds an int, a string or a real, never two: one 8-byte cell
 * (value) shows as int_value, string_value or real_value as its key's
 * value_kind says.
 */
enum { AR_ID, AR_SET, AR_KEY, AR_VALUE, AR_KIND, AR_INT, AR_STR, AR_REAL,
	AR_FLAT, AR_KEYNAME, AR_TYPE };
static const struct cs_coldef arg_cols[] = {
	ID("id"), I32("arg_set_id"), I32("key_id"), I64("value"),
	REF("value_kind", AR_KEY, AK_KIND),
	VARIANT("int_value", AR_VALUE, CS_KIND_INT, AR_KIND),
	VARIANT("string_value", AR_VALUE, CS_KIND_STR, AR_KIND),
	VARIANT("real_value", AR_VALUE, CS_KIND_REAL, AR_KIND),
	REF("flat_key", AR_KEY, AK_FLAT), REF("key", AR_KEY, AK_KEY),
	REF("value_type", AR_KEY, AK_TYPE),
};
enum { FL_ID, FL_OUT, FL_IN, FL_TRACE, FL_ARGS };
static const struct cs_coldef flow_cols[] = {
	ID("id"), I32("slice_out"), I32("slice_in"), I64("trace_id"),
	I32("arg_set_id"),
};
enum { SC_ID, SC_TS, SC_DUR, SC_CPU, SC_UTID, SC_END_STATE, SC_PRIO };
static const struct cs_coldef sched_cols[] = {
	ID("id"), I64("ts"), I64("dur"), I32("cpu"), I32("utid"),
	STR("end_state"), I32("priority"), ALIAS("ucpu", SC_CPU),
};
enum { TS_ID, TS_TS, TS_DUR, TS_CPU, TS_UTID, TS_STATE, TS_IO_WAIT,
	TS_BLOCKED, TS_WAKER_UTID, TS_WAKER_ID, TS_IRQ };
static const struct cs_coldef tstate_cols[] = {
	ID("id"), I64("ts"), I64("dur"), I32("cpu"), I32("utid"),
	STR("state"), I32("io_wait"), STR("blocked_function"),
	I32("waker_utid"), I32("waker_id"), I32("irq_context"),
	ALIAS("ucpu", TS_CPU),
};
enum { FT_ID, FT_TS, FT_NAME, FT_CPU, FT_UTID, FT_ARGS, FT_FLAGS };
static const struct cs_coldef ftrace_cols[] = {
	ID("id"), I64("ts"), STR("name"), I32("cpu"), I32("utid"),
	I32("arg_set_id"), I32("common_flags"), ALIAS("ucpu", FT_CPU),
};
/* machine_id: 0 the traced host, as upstream's; else a remote one. */
enum { TH_UTID, TH_ID, TH_TID, TH_NAME, TH_START, TH_END, TH_UPID, TH_MAIN,
	TH_IDLE, TH_MACHINE, TH_ARGS };
static const struct cs_coldef thread_cols[] = {
	ID("utid"), ALIAS("id", TH_UTID), I64("tid"), STR("name"),
	I64("start_ts"), I64("end_ts"), I32("upid"), I32("is_main_thread"),
	I32("is_idle"), I32("machine_id"), I32("arg_set_id"),
};
enum { PR_UPID, PR_ID, PR_PID, PR_NAME, PR_START, PR_END, PR_PARENT, PR_UID,
	PR_APPID, PR_USERID, PR_CMDLINE, PR_ARGS, PR_MACHINE };
static const struct cs_coldef process_cols[] = {
	ID("upid"), ALIAS("id", PR_UPID), I64("pid"), STR("name"),
	I64("start_ts"), I64("end_ts"), I32("parent_upid"), I64("uid"),
	I64("android_appid"), I64("android_user_id"), STR("cmdline"),
	I32("arg_set_id"), I32("machine_id"),
};
/* As upstream v58: type says what a track holds ("cpu_frequency"), its
 * dimensions (utid, upid, cpu) are args. */
enum { TR_ID, TR_NAME, TR_TYPE, TR_DIM, TR_PARENT, TR_SRC, TR_MACHINE,
	TR_GROUP, TR_EVENT_TYPE, TR_UTID, TR_UPID, TR_CPU, TR_UNIT, TR_DESC };
static const struct cs_coldef track_cols[] = {
	ID("id"), STR("name"), STR("type"), I32("dimension_arg_set_id"),
	I32("parent_id"), I32("source_arg_set_id"), I32("machine_id"),
	I32("track_group_id"), STR("event_type"), I32("utid"), I32("upid"),
	I32("cpu"), STR("counter_unit"), STR("description"),
};

static const struct {
	const char		*name;
	const struct cs_coldef	*cols;
	size_t			 ncols;
} table_defs[TB_COUNT] = {
#define DEF(k, n, c)	[k] = { n, c, sizeof(c) / sizeof(c[0]) }
	DEF(TB_SLICE, "__intrinsic_slice", slice_cols),
	DEF(TB_COUNTER, "counter", counter_cols),
	DEF(TB_ARGS, "__args", arg_cols),
	DEF(TB_ARG_KEYS, "__arg_keys", arg_key_cols),
	DEF(TB_FLOW, "flow", flow_cols),
	DEF(TB_SCHED, "sched_slice", sched_cols),
	DEF(TB_TSTATE, "thread_state", tstate_cols),
	DEF(TB_FTRACE, "ftrace_event", ftrace_cols),
	DEF(TB_THREAD, "thread", thread_cols),
	DEF(TB_PROCESS, "process", process_cols),
	DEF(TB_TRACK, "__intrinsic_track", track_cols),
#undef DEF
};

int
tp_tables_create(struct tp *tp)
{
	size_t i;

	if ((tp->pool = cs_pool_new()) == NULL ||
	    (tp->cdb = calloc(1, sizeof(*tp->cdb))) == NULL)
		return tp_seterr(tp, "%s: out of memory", __func__);
	for (i = 0; i < TB_COUNT; i++)
		if ((tp->tab[i] = cs_table_new(table_defs[i].name,
		    table_defs[i].cols, table_defs[i].ncols, tp->pool)) ==
		    NULL)
			return tp_seterr(tp, "%s: out of memory", __func__);
	cs_table_set_ref(tp->tab[TB_ARGS], tp->tab[TB_ARG_KEYS]);
	cs_table_set_sized(tp->tab[TB_THREAD]);
	cs_table_set_sized(tp->tab[TB_PROCESS]);
	cs_table_set_sized(tp->tab[TB_TRACK]);
	tp->cdb->tables = tp->tab;
	tp->cdb->ntables = TB_COUNT;
	if (cs_vtab_register(tp->db, tp->cdb) != SQLITE_OK)
		return tp_seterr(tp, "%s: %s", __func__,
		    sqlite3_errmsg(tp->db));
	return 0;
}

void
tp_tables_free(struct tp *tp)
{
	size_t i;

	for (i = 0; i < TB_COUNT; i++)
		cs_table_free(tp->tab[i]);
	cs_pool_free(tp->pool);
	free(tp->cdb);
	for (i = 0; i < sizeof(tp->xa_keys) / sizeof(tp->xa_keys[0]); i++) {
		free(tp->xa_keys[i].key);
		free(tp->xa_keys[i].match);
	}
	free(tp->xa_cache);
}

/* A write that failed for want of memory is reported once, here. */
int
tp_tables_check(struct tp *tp)
{
	size_t i;

	for (i = 0; i < TB_COUNT; i++)
		if (tp->tab[i] != NULL && cs_table_failed(tp->tab[i]))
			return tp_seterr(tp, "table %s: out of memory",
			    cs_table_name(tp->tab[i]));
	return 0;
}

size_t
tp_tables_bytes(const struct tp *tp)
{
	size_t i, n = tp->pool != NULL ? cs_pool_bytes(tp->pool) : 0;

	for (i = 0; i < TB_COUNT; i++)
		if (tp->tab[i] != NULL)
			n += cs_table_bytes(tp->tab[i]);
	return n;
}

void
tp_tables_deletable(struct tp *tp, int on)
{
	size_t i;

	tp->cdb->deletable = on;
	if (!on)
		for (i = 0; i < TB_COUNT; i++)
			cs_table_compact(tp->tab[i]);
}

/* Row id of table k, present; NULL-filled when new. */
static struct cs_table *
row_put(struct tp *tp, enum tp_table k, int64_t id)
{
	struct cs_table *t = tp->tab[k];

	if (id < 0 || id >= UINT32_MAX || cs_row_put(t, (uint32_t)id) == -1)
		return NULL;
	return t;
}

static void
set_cstr(struct cs_table *t, size_t col, uint32_t r, const char *s)
{
	cs_set_str(t, col, r, s, s != NULL ? strlen(s) : 0);
}

void
tp_slice_write(struct tp *tp, const struct tp_slice_row *s)
{
	struct cs_table *t = row_put(tp, TB_SLICE, s->id);
	uint32_t r = (uint32_t)s->id;

	if (t == NULL)
		return;
	tp_bounds_add(tp, s->ts, s->dur);
	cs_set_int(t, SL_TS, r, s->ts);
	cs_set_int(t, SL_DUR, r, s->dur);
	cs_set_int(t, SL_TRACK, r, s->track_id);
	set_cstr(t, SL_CAT, r, s->cat);
	set_cstr(t, SL_NAME, r, s->name);
	cs_set_int(t, SL_DEPTH, r, s->depth);
	cs_set_int(t, SL_STACK, r, s->stack_id);
	cs_set_int(t, SL_PSTACK, r, s->parent_stack_id);
	cs_set_int(t, SL_PARENT, r, s->parent_id);
	cs_set_int(t, SL_ARGS, r, s->arg_set_id);
	cs_set_int(t, SL_TTS, r, s->thread_ts);
	cs_set_int(t, SL_TDUR, r, s->thread_dur);
	cs_set_int(t, SL_TIC, r, s->thread_ic);
	cs_set_int(t, SL_TICD, r, s->thread_icd);
}

void
tp_thread_row_write(struct tp *tp, int64_t utid, const struct tp_thread *th,
    int64_t is_main, int64_t arg_set_id)
{
	struct cs_table *t = row_put(tp, TB_THREAD, utid);
	uint32_t r = (uint32_t)utid;

	if (t == NULL)
		return;
	cs_set_int(t, TH_TID, r, th->tid);
	set_cstr(t, TH_NAME, r, th->name);
	cs_set_int(t, TH_START, r, th->start_ts);
	cs_set_int(t, TH_END, r, th->end_ts);
	cs_set_int(t, TH_UPID, r, th->upid);
	cs_set_int(t, TH_MAIN, r, is_main);
	cs_set_int(t, TH_IDLE, r, th->is_idle);
	cs_set_int(t, TH_MACHINE, r, th->machine);
	cs_set_int(t, TH_ARGS, r, arg_set_id);
}

void
tp_process_row_write(struct tp *tp, int64_t upid, const struct tp_process *p,
    int64_t arg_set_id)
{
	struct cs_table *t = row_put(tp, TB_PROCESS, upid);
	uint32_t r = (uint32_t)upid;
	int known = p->uid != TP_NULL;

	if (t == NULL)
		return;
	cs_set_int(t, PR_PID, r, p->pid);
	set_cstr(t, PR_NAME, r, p->name);
	cs_set_int(t, PR_START, r, p->start_ts);
	cs_set_int(t, PR_END, r, p->end_ts);
	cs_set_int(t, PR_PARENT, r, p->parent_upid);
	cs_set_int(t, PR_UID, r, p->uid);
	/* Android's app and user of a uid (UserHandle's arithmetic), as
	 * upstream derives them once the uid is known. */
	cs_set_int(t, PR_APPID, r, known ? p->uid % 100000 : TP_NULL);
	cs_set_int(t, PR_USERID, r, known ? p->uid / 100000 : TP_NULL);
	set_cstr(t, PR_CMDLINE, r, p->cmdline);
	cs_set_int(t, PR_ARGS, r, arg_set_id);
	cs_set_int(t, PR_MACHINE, r, p->machine);
}

void
tp_track_row_write(struct tp *tp, int64_t id, const struct tp_track *tr,
    const char *kind, const char *event_type, int64_t src, int64_t dim)
{
	struct cs_table *t = row_put(tp, TB_TRACK, id);
	uint32_t r = (uint32_t)id;

	if (t == NULL)
		return;
	set_cstr(t, TR_NAME, r, tr->name);
	set_cstr(t, TR_TYPE, r, kind);
	cs_set_int(t, TR_DIM, r, dim);
	cs_set_int(t, TR_PARENT, r, tr->parent_id);
	cs_set_int(t, TR_SRC, r, src);
	cs_set_int(t, TR_MACHINE, r, tr->machine);
	cs_set_int(t, TR_GROUP, r, tr->group);
	set_cstr(t, TR_EVENT_TYPE, r, event_type);
	cs_set_int(t, TR_UTID, r, tr->utid);
	cs_set_int(t, TR_UPID, r, tr->upid);
	cs_set_int(t, TR_CPU, r, tr->cpu);
	set_cstr(t, TR_UNIT, r, tr->unit);
	set_cstr(t, TR_DESC, r, tr->desc);
}

void
tp_counter_insert(struct tp *tp, int64_t ts, int64_t track, double v,
    int64_t arg_set_id)
{
	int64_t id = tp->next_counter++, set = tp_arg_set_done(tp, arg_set_id);
	struct cs_table *t = row_put(tp, TB_COUNTER, id);

	tp_seen_ts(tp, ts);
	tp_bounds_add(tp, ts, 0);
	if (t == NULL)
		return;
	cs_set_int(t, CT_TS, (uint32_t)id, ts);
	cs_set_int(t, CT_TRACK, (uint32_t)id, track);
	cs_set_real(t, CT_VALUE, (uint32_t)id, v);
	cs_set_int(t, CT_ARGS, (uint32_t)id, set);
}

void
tp_counter_set_track(struct tp *tp, int64_t id, int64_t track)
{
	if (id >= 0 && cs_row_present(tp->tab[TB_COUNTER], (uint32_t)id))
		cs_set_int(tp->tab[TB_COUNTER], CT_TRACK, (uint32_t)id, track);
}

int64_t
tp_sched_insert(struct tp *tp, int64_t id, int64_t ts, int64_t dur,
    int64_t cpu, int64_t utid, const char *end_state, int64_t prio)
{
	struct cs_table *t = row_put(tp, TB_SCHED, id);
	uint32_t r = (uint32_t)id;

	tp_cpu_seen(tp, cpu);
	tp_bounds_add(tp, ts, dur);
	if (t == NULL)
		return -1;
	cs_set_int(t, SC_TS, r, ts);
	cs_set_int(t, SC_DUR, r, dur);
	cs_set_int(t, SC_CPU, r, tp_ucpu(tp, cpu));
	cs_set_int(t, SC_UTID, r, utid);
	set_cstr(t, SC_END_STATE, r, end_state);
	cs_set_int(t, SC_PRIO, r, prio);
	return 0;
}

void
tp_thread_state_insert(struct tp *tp, int64_t id, int64_t ts, int64_t dur,
    int64_t cpu, int64_t utid, const char *state, int64_t io_wait,
    int64_t waker_utid, int64_t waker_id, int64_t irq_context,
    const char *blocked_function)
{
	struct cs_table *t = row_put(tp, TB_TSTATE, id);
	uint32_t r = (uint32_t)id;

	tp_bounds_add(tp, ts, dur);
	if (t == NULL)
		return;
	cs_set_int(t, TS_TS, r, ts);
	cs_set_int(t, TS_DUR, r, dur);
	cs_set_int(t, TS_CPU, r, tp_ucpu(tp, cpu));
	cs_set_int(t, TS_UTID, r, utid);
	set_cstr(t, TS_STATE, r, state);
	cs_set_int(t, TS_IO_WAIT, r, io_wait);
	set_cstr(t, TS_BLOCKED, r, blocked_function);
	cs_set_int(t, TS_WAKER_UTID, r, waker_utid);
	cs_set_int(t, TS_WAKER_ID, r, waker_id);
	cs_set_int(t, TS_IRQ, r, irq_context);
}

int64_t
tp_ftrace_insert(struct tp *tp, int64_t ts, const char *name, int64_t cpu,
    int64_t utid, int64_t arg_set_id, int64_t flags)
{
	int64_t id = tp->next_ftrace++, set = tp_arg_set_done(tp, arg_set_id);
	struct cs_table *t = row_put(tp, TB_FTRACE, id);
	uint32_t r = (uint32_t)id;

	tp_seen_ts(tp, ts);
	tp_bounds_add(tp, ts, 0);
	tp_cpu_seen(tp, cpu);
	if (t == NULL)
		return id;
	cs_set_int(t, FT_TS, r, ts);
	set_cstr(t, FT_NAME, r, name);
	cs_set_int(t, FT_CPU, r, tp_ucpu(tp, cpu));
	cs_set_int(t, FT_UTID, r, utid);
	cs_set_int(t, FT_ARGS, r, set);
	/* Not given is 0, as upstream's column has no NULL. */
	cs_set_int(t, FT_FLAGS, r, flags != TP_NULL ? flags : 0);
	return id;
}

void
tp_flow_insert(struct tp *tp, int64_t out, int64_t in, int64_t trace_id,
    int64_t arg_set_id)
{
	int64_t id = tp->next_flow++, set = tp_arg_set_done(tp, arg_set_id);
	struct cs_table *t = row_put(tp, TB_FLOW, id);

	if (t == NULL)
		return;
	cs_set_int(t, FL_OUT, (uint32_t)id, out);
	cs_set_int(t, FL_IN, (uint32_t)id, in);
	cs_set_int(t, FL_TRACE, (uint32_t)id, trace_id);
	cs_set_int(t, FL_ARGS, (uint32_t)id, set);
}

int64_t
tp_arg_row_set(struct tp *tp, int64_t id)
{
	struct cs_table *t = tp->tab[TB_ARGS];
	int64_t set;

	if (id < 0 || id >= UINT32_MAX || !cs_row_present(t, (uint32_t)id))
		return -1;
	set = cs_get_int(t, AR_SET, (uint32_t)id);
	return set == CS_NULL_I64 ? -1 : set;
}

/*
 * Whether stored arg row id has key kid and the value given (an int iv,
 * a string s of slen bytes, or a real *rv, as tp_arg_row_write takes
 * them): what tells two sets with one digest apart.
 */
int
tp_arg_row_same(struct tp *tp, int64_t id, int64_t kid, int64_t iv,
    const char *s, size_t slen, const double *rv)
{
	struct cs_table *t = tp->tab[TB_ARGS];
	uint32_t r = (uint32_t)id;
	int64_t raw, want;
	const char *ss;
	size_t len;
	double d;

	if (id < 0 || id >= UINT32_MAX || !cs_row_present(t, r) ||
	    cs_get_int(t, AR_KEY, r) != kid)
		return 0;
	/* The value cell as cs_set_variant wrote it (the key says which
	 * kind it is, and the keys are equal). */
	raw = cs_get_int(t, AR_VALUE, r);
	if (s != NULL) {
		ss = raw == CS_NULL_I64 ? NULL :
		    cs_pool_get(tp->pool, (uint32_t)raw, &len);
		return ss != NULL && len == slen && memcmp(ss, s, len) == 0;
	}
	if (rv != NULL) {
		if (isnan(*rv))
			return raw == CS_NULL_I64;
		d = *rv == 0 ? 0 : *rv;
		memcpy(&want, &d, sizeof(want));
		return raw == want;
	}
	return raw == iv;
}

int
tp_arg_kind(const char *str, const double *rv)
{
	return str != NULL ? CS_KIND_STR : rv != NULL ? CS_KIND_REAL :
	    CS_KIND_INT;
}

/* The key's kind is the value's (tp_arg_kind): the key id says both. */
void
tp_arg_row_write(struct tp *tp, int64_t id, int64_t set, int64_t key_id,
    int64_t iv, const char *str, size_t slen, const double *rv)
{
	struct cs_table *t = row_put(tp, TB_ARGS, id);
	uint32_t r = (uint32_t)id;

	if (t == NULL)
		return;
	cs_set_int(t, AR_SET, r, set);
	cs_set_int(t, AR_KEY, r, key_id);
	cs_set_variant(t, AR_VALUE, r, (enum cs_kind)tp_arg_kind(str, rv),
	    iv, str, slen,
	    rv != NULL ? *rv : NAN);
}

void
tp_arg_key_write(struct tp *tp, int64_t id, const char *flat,
    const char *key, const char *type, int kind)
{
	struct cs_table *t = row_put(tp, TB_ARG_KEYS, id);

	if (t == NULL)
		return;
	set_cstr(t, AK_FLAT, (uint32_t)id, flat);
	set_cstr(t, AK_KEY, (uint32_t)id, key);
	set_cstr(t, AK_TYPE, (uint32_t)id, type);
	cs_set_int(t, AK_KIND, (uint32_t)id, kind);
}

/* The rows of arg set `set`, as a range of rows or a slice of an index. */
static void
args_of_set(struct tp *tp, int64_t set, uint32_t *lo, uint32_t *hi,
    struct cs_index **idx, size_t *ilo, size_t *ihi)
{
	struct cs_table *t = tp->tab[TB_ARGS];
	uint32_t r;

	*idx = NULL;
	*lo = 0;
	*hi = (uint32_t)cs_table_rows(t);
	/* A set's id is its first row's, and its rows follow one another
	 * (tp_argset.c): read from there while they are the set's. */
	if (set < *hi && cs_get_int(t, AR_SET, (uint32_t)set) == set) {
		*lo = (uint32_t)set;
		for (r = *lo + 1; r < *hi && cs_get_int(t, AR_SET, r) == set;
		    r++)
			;
		*hi = r;
		return;
	}
	if (cs_col_sorted(t, AR_SET)) {
		cs_col_range(t, AR_SET, set, set, lo, hi);
	} else if ((*idx = cs_col_index(t, AR_SET)) != NULL) {
		cs_index_find(t, AR_SET, *idx, set, NULL, 0, ilo, ihi);
	} else {
		*hi = 0;
	}
}

/*
 * Which rows of __arg_keys are the key of slot x, with their value
 * kinds: a row's key id then says whether it is the key. Kept until the
 * number of keys changes. -1 if out of memory.
 */
static int
extract_arg_keys(struct tp *tp, struct tp_xa_key *x)
{
	struct cs_table *k = tp->tab[TB_ARG_KEYS];
	size_t n = cs_table_rows(k), i;
	int64_t kind;

	if (x->match != NULL && x->nkeys == n)
		return 0;
	free(x->match);
	x->nkeys = 0;
	if ((x->match = calloc(n + 1, 1)) == NULL)
		return -1;
	for (i = 0; i < n; i++) {
		if (!cs_row_present(k, (uint32_t)i) ||
		    cs_get_key(k, AK_KEY, (uint32_t)i) != x->kid)
			continue;
		kind = cs_get_int(k, AK_KIND, (uint32_t)i);
		/* A kind no value column shows: the key, and no value. */
		x->match[i] = kind >= 0 && kind <= CS_KIND_REAL ?
		    (unsigned char)(1 + kind) : 255;
	}
	x->nkeys = n;
	return 0;
}

/* The slot of key (made, or taken from the oldest), or NULL. */
static struct tp_xa_key *
extract_arg_key(struct tp *tp, const char *key, size_t keylen)
{
	const size_t nslots = sizeof(tp->xa_keys) / sizeof(tp->xa_keys[0]);
	struct tp_xa_key *x;
	size_t i;

	for (i = 0; i < nslots; i++) {
		x = &tp->xa_keys[i];
		if (x->key != NULL && x->keylen == keylen &&
		    memcmp(x->key, key, keylen) == 0)
			break;
	}
	if (i == nslots) {
		x = &tp->xa_keys[tp->xa_next++ % nslots];
		free(x->key);
		free(x->match);
		memset(x, 0, sizeof(*x));
		if ((x->key = malloc(keylen + 1)) == NULL)
			return NULL;
		memcpy(x->key, key, keylen);
		x->keylen = keylen;
	}
	/* A text not interned yet may be later; an id never changes. */
	if (x->kid == 0) {
		free(x->match);
		x->match = NULL;
		x->kid = cs_pool_find(tp->pool, key, keylen);
	}
	if (x->kid == 0 || extract_arg_keys(tp, x) == -1)
		return NULL;
	return x;
}

/* The arg row r's value if its key is slot x's: 1, else 0. */
static int
extract_arg_row(struct tp *tp, const struct tp_xa_key *x, uint32_t r,
    sqlite3_context *out)
{
	static const int kind_col[] = { [CS_KIND_INT] = AR_INT,
	    [CS_KIND_STR] = AR_STR, [CS_KIND_REAL] = AR_REAL };
	struct cs_table *t = tp->tab[TB_ARGS];
	int64_t kid = cs_get_int(t, AR_KEY, r);
	unsigned char m;

	if (kid < 0 || (uint64_t)kid >= x->nkeys ||
	    (m = x->match[kid]) == 0 || !cs_row_present(t, r))
		return 0;
	if (m != 255)
		cs_result(out, t, (size_t)kind_col[m - 1], r);
	return 1;
}

/*
 * Sets repeat (events with the same fields share one): a set's answer
 * for a key is kept in a table by set and key, dropped when the number
 * of args changes.
 */
#define XA_CACHE	(1u << 16)

static struct tp_xa_ent *
extract_arg_slot(struct tp *tp, int64_t set, int64_t kid)
{
	return &tp->xa_cache[((uint64_t)set * 0x9e3779b97f4a7c15ULL ^
	    (uint64_t)kid) & (XA_CACHE - 1)];
}

/* The cached row of set's answer for kid (UINT32_MAX: none), or -1. */
static int64_t
extract_arg_cached(struct tp *tp, int64_t set, int64_t kid)
{
	size_t n = cs_table_rows(tp->tab[TB_ARGS]);
	const struct tp_xa_ent *e;

	if (set >= UINT32_MAX || kid >= UINT32_MAX)
		return -1;
	if (tp->xa_cache == NULL || tp->xa_rows != n) {
		if (tp->xa_cache == NULL && (tp->xa_cache = calloc(XA_CACHE,
		    sizeof(*tp->xa_cache))) == NULL)
			return -1;
		memset(tp->xa_cache, 0, XA_CACHE * sizeof(*tp->xa_cache));
		tp->xa_rows = n;
		return -1;
	}
	e = extract_arg_slot(tp, set, kid);
	if (e->set1 != (uint64_t)set + 1 || e->kid != (uint64_t)kid)
		return -1;
	return e->row1 == 0 ? UINT32_MAX : (int64_t)e->row1 - 1;
}

static void
extract_arg_keep(struct tp *tp, int64_t set, int64_t kid, int64_t row)
{
	struct tp_xa_ent *e;

	if (tp->xa_cache == NULL || set >= UINT32_MAX || kid >= UINT32_MAX)
		return;
	e = extract_arg_slot(tp, set, kid);
	e->set1 = (uint32_t)set + 1;
	e->kid = (uint32_t)kid;
	e->row1 = row < 0 ? 0 : (uint32_t)row + 1;
}

/* EXTRACT_ARG: the first arg of the set with that key, in id order. */
static void
hook_extract_arg(void *ctx, int64_t set, const char *key, size_t keylen,
    sqlite3_context *out)
{
	struct tp *tp = ctx;
	struct cs_table *t = tp->tab[TB_ARGS];
	struct tp_xa_key *x;
	struct cs_index *idx;
	uint32_t lo, hi, r, n = (uint32_t)cs_table_rows(t);
	size_t ilo = 0, ihi = 0, i;
	int64_t c;

	if (set < 0 || (x = extract_arg_key(tp, key, keylen)) == NULL)
		return;
	/* A set's id is its first row's, and its rows follow one another
	 * (tp_argset.c): read from there while they are the set's. */
	if ((c = extract_arg_cached(tp, set, x->kid)) >= 0) {
		/* A row gone since (evicted): looked for again. */
		if (c == UINT32_MAX || extract_arg_row(tp, x, (uint32_t)c,
		    out))
			return;
	}
	if (set < n && cs_get_int(t, AR_SET, (uint32_t)set) == set) {
		for (r = (uint32_t)set; r < n; r++) {
			if (r != set && cs_get_int(t, AR_SET, r) != set)
				break;
			if (extract_arg_row(tp, x, r, out)) {
				extract_arg_keep(tp, set, x->kid, r);
				return;
			}
		}
		extract_arg_keep(tp, set, x->kid, -1);
		return;
	}
	args_of_set(tp, set, &lo, &hi, &idx, &ilo, &ihi);
	if (idx != NULL) {
		for (i = ilo; i < ihi; i++)
			if (extract_arg_row(tp, x, idx->rows[i], out))
				break;
	} else {
		for (r = lo; r < hi; r++)
			if (extract_arg_row(tp, x, r, out))
				break;
	}
	cs_index_unref(idx);
}

static int
hook_slice_parent(void *ctx, int64_t id, int64_t *parent, int64_t *depth)
{
	struct tp *tp = ctx;
	struct cs_table *t = tp->tab[TB_SLICE];

	if (id < 0 || id >= UINT32_MAX || !cs_row_present(t, (uint32_t)id))
		return 0;
	*parent = cs_get_int(t, SL_PARENT, (uint32_t)id);
	*depth = cs_get_int(t, SL_DEPTH, (uint32_t)id);
	if (*parent == CS_NULL_I64)
		*parent = TP_OPS_NONE;
	return 1;
}

/* Handles are the table's number times 64 plus the column's. */
#define HANDLE_COLS	64

static int
hook_col_handle(void *ctx, const char *table, const char *col)
{
	struct tp *tp = ctx;
	struct cs_table *t;
	size_t c;
	int k;

	/* The views the table functions read, by their tables. */
	if (strcmp(table, "slice") == 0)
		k = TB_SLICE;
	else if (strcmp(table, "flow") == 0)
		k = TB_FLOW;
	else
		return -1;
	t = tp->tab[k];
	for (c = 0; c < cs_table_ncols(t) && c < HANDLE_COLS; c++)
		if (strcmp(cs_table_col(t, c)->name, col) == 0)
			return k * HANDLE_COLS + (int)c;
	return -1;
}

static int
hook_row_exists(void *ctx, int handle, int64_t id)
{
	struct tp *tp = ctx;

	return id >= 0 && id < UINT32_MAX &&
	    cs_row_present(tp->tab[handle / HANDLE_COLS], (uint32_t)id);
}

static void
hook_cell(void *ctx, int handle, int64_t id, sqlite3_context *out)
{
	struct tp *tp = ctx;

	cs_result(out, tp->tab[handle / HANDLE_COLS],
	    (size_t)(handle % HANDLE_COLS), (uint32_t)id);
}

const struct tp_ops_hooks *
tp_tables_hooks(struct tp *tp)
{
	tp->hooks.ctx = tp;
	tp->hooks.extract_arg = hook_extract_arg;
	tp->hooks.slice_parent = hook_slice_parent;
	tp->hooks.col_handle = hook_col_handle;
	tp->hooks.row_exists = hook_row_exists;
	tp->hooks.cell = hook_cell;
	return &tp->hooks;
}
