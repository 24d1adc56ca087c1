/*
 * Chrome JSON traces ({"traceEvents": [...]} or a bare array), read as a
 * stream: a byte scanner finds each event object of the traceEvents array
 * (strings and nesting tracked across chunk boundaries), a small parser
 * reads that one object, and the event goes through the sorter like any
 * other. Only the current object is ever held, never the file.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tp_int.h"
#include "tp_jdom.h"

#define MAX_OBJECT	(64u << 20)
#define MAX_SYSTRACE	(256u << 20)
#define KEY_MAX		512

/*
 * Where the scanner is in the document. As upstream's importer, the
 * structure around the events is checked strictly (a document that does
 * not parse is an error, not a partial import): an object with keys, or
 * an array of event objects; values of other keys are skipped with their
 * strings and brackets checked.
 */
enum jstate {
	JS_START,	/* '{' or '[' */
	JS_KEY,		/* a key, ',' or the closing '}' */
	JS_COLON,
	JS_VALUE,	/* the first byte of a key's value */
	JS_SKIP,	/* inside the value of a key we do not read */
	JS_EVENTS,	/* in the events array: '{', ',' or ']' */
	JS_DONE,	/* only white space may follow */
};

/* What a string being scanned is. */
enum jstr { STR_KEY, STR_VALUE, STR_SKIP };

struct tp_json {
	/* scanner */
	enum jstate	 state;
	int		 array_only;	/* the document is the events array */
	int		 comma;		/* events: a ',' since the last event */
	uint32_t	 braces, brackets;	/* JS_SKIP's nesting */
	uint64_t	 off;		/* bytes scanned before this piece */
	int		 in_str, esc;
	enum jstr	 str;
	char		 key[32];
	size_t		 keylen;
	int		 cur_key;	/* which top-level key the value is */
	/* the event object being gathered */
	char		*obj;
	size_t		 objlen, objcap;
	int		 in_obj, obj_depth, obj_in_str, obj_esc, obj_skip;
	int		 obj_meta;	/* the object is the metadata dict */
	/* a top-level string value being gathered */
	char		*sval;
	size_t		 svlen, svcap;
	int		 sv_capture;

	struct tp_jdom	 jp;
};

enum { K_OTHER, K_EVENTS, K_DISPLAY_UNIT, K_SYSTRACE, K_METADATA };

/* Parser ------------------------------------------------------------- */

/* Parses one object (tp_jdom.c). */
static int
json_parse(struct tp_jdom *j, const char *buf, size_t len)
{
	if (tp_jdom_parse(j, buf, len) == -1 || j->nodes[0].type != J_OBJ)
		return -1;
	return 0;
}

/*
 * Microseconds (possibly fractional, possibly a string) to nanoseconds,
 * decimally so that 1.001 us is 1001 ns exactly.
 */
static int
us_to_ns(const struct tp_jnode *n, int64_t *out)
{
	const char *p, *end;
	int64_t ip = 0, frac = 0;
	int neg = 0, digits = 0;

	if (n == NULL || (n->type != J_NUM && n->type != J_STR))
		return -1;
	p = n->s;
	end = n->s + n->slen;
	if (p < end && *p == '-') {
		neg = 1;
		p++;
	}
	if (p >= end || *p < '0' || *p > '9')
		return -1;
	while (p < end && *p >= '0' && *p <= '9') {
		if (ip > INT64_MAX / 10 / 1000)
			return -1;
		ip = ip * 10 + (*p++ - '0');
	}
	if (p < end && *p == '.') {
		p++;
		while (p < end && *p >= '0' && *p <= '9') {
			if (digits < 3) {
				frac = frac * 10 + (*p - '0');
				digits++;
			}
			p++;
		}
	}
	if (p < end && (*p == 'e' || *p == 'E')) {
		char num[64], *ep;
		double d;

		/* The whole text is the number ("1e3", never "1e3x"). */
		if (n->slen >= sizeof(num))
			return -1;
		memcpy(num, n->s, n->slen);
		num[n->slen] = '\0';
		d = strtod(num, &ep);
		if (*ep != '\0' || !isfinite(d) || fabs(d) > 9e15)
			return -1;
		*out = (int64_t)llround(d * 1000.0);
		return 0;
	}
	/* A string holds a number and nothing else ("100a" is no time). */
	if (p != end)
		return -1;
	while (digits++ < 3)
		frac *= 10;
	*out = (ip * 1000 + frac) * (neg ? -1 : 1);
	return 0;
}

static int
node_id(const struct tp_jnode *n, int64_t *v)
{
	if (n == NULL)
		return -1;
	if (n->type == J_NUM)
		return tp_jdom_int(n, v);
	if (n->type == J_STR) {
		struct tp_jnode t = *n;

		t.type = J_NUM;
		if (tp_jdom_int(&t, v) == 0)
			return 0;
		/* Hex ids are common ("0x1f"). */
		if (n->slen > 2 && n->s[0] == '0' && (n->s[1] == 'x' ||
		    n->s[1] == 'X')) {
			char buf[32];

			if (n->slen >= sizeof(buf))
				return -1;
			memcpy(buf, n->s, n->slen);
			buf[n->slen] = '\0';
			*v = (int64_t)strtoull(buf, NULL, 16);
			return 0;
		}
	}
	return -1;
}

static char *
node_str(const struct tp_jnode *n, char *buf, size_t size)
{
	if (n == NULL || (n->type != J_STR && n->type != J_NUM))
		return NULL;
	snprintf(buf, size, "%.*s", (int)n->slen, n->s);
	return buf;
}

/* Args --------------------------------------------------------------- */

static void
args_add(struct tp *tp, const struct tp_jdom *j, int64_t set, int node,
    char *flat, size_t flen, char *key, size_t klen, int depth)
{
	const struct tp_jnode *n = &j->nodes[node];
	int c, i = 0;
	int64_t v;

	if (depth > 16)
		return;
	switch (n->type) {
	case J_OBJ:
		for (c = n->child; c >= 0; c = j->nodes[c].next) {
			const struct tp_jnode *ch = &j->nodes[c];

			if (flen + ch->keylen + 2 >= KEY_MAX ||
			    klen + ch->keylen + 2 >= KEY_MAX)
				continue;
			flat[flen] = '.';
			memcpy(flat + flen + 1, ch->key, ch->keylen);
			flat[flen + 1 + ch->keylen] = '\0';
			key[klen] = '.';
			memcpy(key + klen + 1, ch->key, ch->keylen);
			key[klen + 1 + ch->keylen] = '\0';
			args_add(tp, j, set, c, flat, flen + 1 + ch->keylen,
			    key, klen + 1 + ch->keylen, depth + 1);
			flat[flen] = '\0';
			key[klen] = '\0';
		}
		break;
	case J_ARR:
		/* Nulls take no index, as upstream numbers entries. */
		for (c = n->child; c >= 0; c = j->nodes[c].next) {
			int l;

			if (j->nodes[c].type == J_NULL)
				continue;
			l = snprintf(key + klen, KEY_MAX - klen, "[%d]", i++);

			if (l < 0 || (size_t)l >= KEY_MAX - klen)
				break;
			args_add(tp, j, set, c, flat, flen, key, klen +
			    (size_t)l, depth + 1);
			key[klen] = '\0';
		}
		break;
	case J_STR:
		tp_arg_str(tp, set, flat, key, n->s, n->slen, NULL);
		break;
	case J_NUM:
		if (memchr(n->s, '.', n->slen) == NULL &&
		    memchr(n->s, 'e', n->slen) == NULL &&
		    memchr(n->s, 'E', n->slen) == NULL &&
		    tp_jdom_int(n, &v) == 0) {
			tp_arg_int(tp, set, flat, key, v, "int");
		} else {
			char buf[64];

			snprintf(buf, sizeof(buf), "%.*s", (int)(n->slen < 63 ?
			    n->slen : 63), n->s);
			tp_arg_real(tp, set, flat, key, strtod(buf, NULL));
		}
		break;
	case J_TRUE:
	case J_FALSE:
		tp_arg_int(tp, set, flat, key, n->type == J_TRUE, "bool");
		break;
	case J_NULL:
		break;
	}
}

int
tp_json_args(struct tp *tp, int64_t set, const char *flat, const char *key,
    const char *s, size_t len)
{
	struct tp_jdom j;
	char f[KEY_MAX], k[KEY_MAX];
	size_t fl = strlen(flat), kl = strlen(key);
	int rc = -1;

	if (fl >= KEY_MAX || kl >= KEY_MAX)
		return -1;
	memcpy(f, flat, fl + 1);
	memcpy(k, key, kl + 1);
	memset(&j, 0, sizeof(j));
	if (tp_jdom_parse(&j, s, len) == 0) {
		args_add(tp, &j, set, 0, f, fl, k, kl, 0);
		rc = 0;
	}
	tp_jdom_free(&j);
	return rc;
}

static int64_t
event_args(struct tp *tp, const struct tp_jdom *j, const struct tp_jnode *args,
    int64_t set)
{
	char flat[KEY_MAX] = "args", key[KEY_MAX] = "args";

	if (args == NULL || args->type != J_OBJ || args->child < 0)
		return set;
	if (set == TP_NULL)
		set = tp_arg_set_new(tp);
	args_add(tp, j, set, (int)(args - j->nodes), flat, 4, key, 4, 0);
	return set;
}

/* Events -------------------------------------------------------------- */

static struct tp_json *
json_get(struct tp *tp)
{
	if (tp->json == NULL)
		tp->json = calloc(1, sizeof(*tp->json));
	return tp->json;
}

/*
 * An event's error, logged as upstream logs one: the event's name and
 * phase, then (a complete event that overlaps one) what it overlaps.
 */
static void
event_error(struct tp *tp, int64_t ts, const char *name, char ph,
    enum tp_stat st, const struct tp_overlap *o)
{
	char phs[2] = { ph, '\0' };
	int64_t set = tp_arg_set_new(tp);

	tp_arg_cstr_fixed(tp, set, "event_name", name);
	tp_arg_cstr_fixed(tp, set, "event_phase", phs);
	if (o != NULL) {
		tp_arg_int_fixed(tp, set, "overlap_start", o->start, "int");
		tp_arg_int_fixed(tp, set, "overlap_end", o->end, "int");
		tp_arg_cstr_fixed(tp, set, "conflicting_slice_name", o->name);
		tp_arg_int_fixed(tp, set, "conflicting_slice_ts", o->ts,
		    "int");
		tp_arg_int_fixed(tp, set, "conflicting_slice_dur", o->dur,
		    "int");
	}
	tp_import_log(tp, st, ts, TP_NULL, set);
}

static void
metadata_event(struct tp *tp, const struct tp_jdom *j, const struct tp_jnode *r,
    int64_t pid, int64_t tid)
{
	const struct tp_jnode *name = tp_jdom_get(j, r, "name");
	const struct tp_jnode *args = tp_jdom_get(j, r, "args");
	const struct tp_jnode *v = tp_jdom_get(j, args, "name");
	int64_t idx, ts = 0;
	char nbuf[64];
	int pname;

	if (name == NULL || name->type != J_STR)
		return;
	/* As upstream: errors are logged at the event's time, else 0. */
	(void)us_to_ns(tp_jdom_get(j, r, "ts"), &ts);
	(void)node_str(name, nbuf, sizeof(nbuf));
	/* Sort index hints: numbers only, as upstream. */
	if ((name->slen == 18 && memcmp(name->s, "process_sort_index",
	    18) == 0) || (name->slen == 17 && memcmp(name->s,
	    "thread_sort_index", 17) == 0)) {
		const struct tp_jnode *si = tp_jdom_get(j, args, "sort_index");
		int64_t utid = tp_thread_in_process(tp, tid, pid);

		if (si == NULL)
			return;
		if (si->type != J_NUM || tp_jdom_int(si, &idx) == -1) {
			event_error(tp, ts, nbuf, 'M', ST_JSON_PARSER_FAILURE,
			    NULL);
			return;
		}
		idx = (int32_t)idx;
		if (name->s[0] == 'p')
			tp_process_set_sort_index(tp, tp_process_get(tp, pid),
			    idx, TP_SORT_OTHER);
		else
			tp_thread_set_sort_index(tp, utid, idx, TP_SORT_OTHER);
		return;
	}
	pname = strcmp(nbuf, "process_name") == 0;
	if (v == NULL || (!pname && strcmp(nbuf, "thread_name") != 0))
		return;
	/* A name that is no string, or empty, names nothing. */
	if (v->type != J_STR || v->slen == 0) {
		event_error(tp, ts, nbuf, 'M', ST_JSON_PARSER_FAILURE, NULL);
		return;
	}
	if (pname)
		tp_process_set_name(tp, tp_process_get(tp, pid), v->s, v->slen,
		    TP_PNAME_SYSTEM);
	else
		tp_thread_set_name(tp, tp_thread_in_process(tp, tid, pid), v->s,
		    v->slen, TP_NAME_TRACK);
}

/*
 * An async event's cookie: its id (or id2.global) on a global track, its
 * id2.local on its process's, as upstream keys them. -1: none, and
 * upstream drops such an event.
 */
static int
async_key(const struct tp_jdom *j, const struct tp_jnode *r, uint64_t *key,
    int *global)
{
	const struct tp_jnode *id = tp_jdom_get(j, r, "id");
	const struct tp_jnode *id2 = tp_jdom_get(j, r, "id2");
	const struct tp_jnode *cat = tp_jdom_get(j, r, "cat");
	uint64_t h;

	*global = 1;
	if (id == NULL && id2 != NULL) {
		if ((id = tp_jdom_get(j, id2, "global")) == NULL) {
			id = tp_jdom_get(j, id2, "local");
			*global = 0;
		}
	}
	if (id == NULL || (id->type != J_STR && id->type != J_NUM))
		return -1;
	h = tp_hash_bytes(1, id->s, id->slen);
	if (cat != NULL && cat->type == J_STR)
		h = tp_hash_bytes(h, cat->s, cat->slen);
	*key = h;
	return 0;
}

/*
 * A complete event that overlaps another on its thread goes, as upstream
 * spills it, to the thread's first track of overlapping slices where it
 * nests (tp_track_pool_nested); -1 (counted) when none can be had.
 */
static int64_t
overlap_track(struct tp *tp, int64_t utid, int64_t ts, int64_t dur)
{
	struct tp_pool_key k = { .kind = "thread_overlapping_slice",
	    .upid = TP_NULL, .utid = utid, .has_utid = 1 };
	int64_t track = tp_track_pool_nested(tp, &k, ts, dur);

	if (track < 0)
		tp_stat_inc(tp, ST_SLICE_DROP_OVERLAPPING_COMPLETE, 1);
	return track;
}

/*
 * Flow v1 (s, t, f with an id): s and t bind to the slice open on their
 * thread; f to the next slice that begins there, or with "bp":"e" to the
 * open one, and leaves the flow open for more ends, as upstream.
 */
static void
flow_v1(struct tp *tp, const struct tp_jdom *j, const struct tp_jnode *r,
    char ph, int64_t track, int64_t ts, const char *cat, const char *name)
{
	const struct tp_jnode *id = tp_jdom_get(j, r, "id");
	const struct tp_jnode *bp = tp_jdom_get(j, r, "bp");
	uint64_t key;
	int bind;

	if (id == NULL || (id->type != J_STR && id->type != J_NUM)) {
		tp_stat_inc(tp, ST_FLOW_INVALID_ID, 1);
		return;
	}
	key = tp_flow_v1_key(tp, tp_hash_bytes(7, id->s, id->slen), cat,
	    name);
	bind = bp != NULL && bp->type == J_STR && bp->slen == 1 &&
	    bp->s[0] == 'e';
	tp_flow_on_track(tp, ph == 's' ? TP_FLOW_BEGIN : ph == 't' ?
	    TP_FLOW_STEP : TP_FLOW_END, key, track, ts, bind);
}

static void
counter_event(struct tp *tp, const struct tp_jdom *j, const struct tp_jnode *r,
    int64_t ts, int64_t pid, const char *name)
{
	const struct tp_jnode *args = tp_jdom_get(j, r, "args");
	const struct tp_jnode *id = tp_jdom_get(j, r, "id");
	char prefix[512], cname[1024], idb[128];
	int c;

	if (args == NULL || args->type != J_OBJ || args->child < 0) {
		event_error(tp, ts, name, 'C', ST_JSON_PARSER_FAILURE,
		    NULL);
		return;
	}
	if (id != NULL && node_str(id, idb, sizeof(idb)) != NULL)
		snprintf(prefix, sizeof(prefix), "%.360s id: %s",
		    name ? name : "", idb);
	else
		snprintf(prefix, sizeof(prefix), "%.500s", name ? name : "");
	for (c = args->child; c >= 0; c = j->nodes[c].next) {
		const struct tp_jnode *v = &j->nodes[c];
		char buf[512];
		double d;
		char *end;

		/* A value counts only when it is a number, or a string that
		 * is all one ("2e+" is none); upstream counts the others as
		 * parser failures. */
		if ((v->type != J_NUM && v->type != J_STR) ||
		    v->slen >= sizeof(buf)) {
			event_error(tp, ts, name, 'C',
			    ST_JSON_PARSER_FAILURE, NULL);
			continue;
		}
		snprintf(buf, sizeof(buf), "%.*s", (int)v->slen, v->s);
		d = strtod(buf, &end);
		if (end == buf || *end != '\0') {
			event_error(tp, ts, name, 'C',
			    ST_JSON_PARSER_FAILURE, NULL);
			continue;
		}
		snprintf(cname, sizeof(cname), "%s %.*s", prefix,
		    (int)v->keylen, v->key);
		tp_counter_pending(tp, ts, tp_process_get(tp, pid), cname,
		    "json_counter", d);
	}
}

/*
 * A pid or tid given as a string, even one of digits: as upstream, it
 * names the process or thread, under an id of its own (a hash here, the
 * string's id in upstream's string pool there). NULL for other ids.
 */
static const struct tp_jnode *
name_id(const struct tp_jnode *n, int64_t *v)
{
	if (n == NULL || n->type != J_STR)
		return NULL;
	*v = (int64_t)(tp_hash_bytes(0x6a736f6e, n->s, n->slen) &
	    0x3fffffff) | 0x40000000;
	return n;
}

/* An integer written as one ("3", not "3.0" or "3e0"), as upstream
 * tells integers from other numbers. */
static int
int_literal(const struct tp_jnode *n, int64_t *v)
{
	if (n == NULL || n->type != J_NUM ||
	    memchr(n->s, '.', n->slen) != NULL ||
	    memchr(n->s, 'e', n->slen) != NULL ||
	    memchr(n->s, 'E', n->slen) != NULL)
		return -1;
	return tp_jdom_int(n, v);
}

/*
 * A thread state event ('T'): a thread_state row of its name, with args
 * io_wait and blocked_function; a Running one with a cpu arg is also a
 * sched slice on that cpu, as upstream.
 */
static void
thread_state_event(struct tp *tp, const struct tp_jdom *j,
    const struct tp_jnode *args, int64_t ts, int64_t dur, int64_t utid,
    const char *state)
{
	const struct tp_jnode *bf;
	int64_t cpu = TP_NULL, io = TP_NULL, v;
	char fn[512], *f = NULL;

	if (args != NULL && args->type == J_OBJ) {
		if (int_literal(tp_jdom_get(j, args, "cpu"), &v) == 0 &&
		    v >= 0 && v < 4096)
			cpu = v;
		if (int_literal(tp_jdom_get(j, args, "io_wait"), &v) == 0)
			io = (uint32_t)v;
		if ((bf = tp_jdom_get(j, args, "blocked_function")) != NULL &&
		    bf->type == J_STR)
			f = node_str(bf, fn, sizeof(fn));
	}
	tp_thread_state_insert(tp, tp->next_tstate++, ts, dur, TP_NULL, utid,
	    state, io, TP_NULL, TP_NULL, TP_NULL, f);
	if (cpu != TP_NULL && state != NULL && strcmp(state, "Running") == 0)
		(void)tp_sched_insert(tp, tp->next_sched++, ts, dur, cpu, utid,
		    NULL, 0);
}

/* An event's pid and tid; no tid (or 0) is the pid's, as upstream. The
 * nodes of those given as names, if asked for. */
static void
event_pid_tid(const struct tp_jdom *j, const struct tp_jnode *r, int64_t *pid,
    int64_t *tid, const struct tp_jnode **pname, const struct tp_jnode **tname)
{
	const struct tp_jnode *pn, *tn;

	*pid = *tid = 0;
	if ((pn = name_id(tp_jdom_get(j, r, "pid"), pid)) == NULL)
		(void)node_id(tp_jdom_get(j, r, "pid"), pid);
	if ((tn = name_id(tp_jdom_get(j, r, "tid"), tid)) == NULL)
		(void)node_id(tp_jdom_get(j, r, "tid"), tid);
	if (*tid == 0 && *pid != 0 && tn == NULL)
		*tid = *pid;
	if (pname != NULL)
		*pname = pn;
	if (tname != NULL)
		*tname = tn;
}

void
tp_json_parse_sorted(struct tp *tp, struct tp_sort_item *it)
{
	struct tp_json *js = json_get(tp);
	struct tp_jdom *j;
	const struct tp_jnode *r, *n, *pn, *tn;
	char name[1024], cat[512], phs[8], *pname, *pcat;
	const char *sname;
	int64_t ts = it->ts, pid = 0, tid = 0, dur = 0, tts = TP_NULL,
	    tdur = TP_NULL, set = TP_NULL, utid, track = -1, id = -1, bind;
	struct tp_overlap ov;
	char ph;
	int global;

	if (js == NULL)
		return;
	j = &js->jp;
	if (json_parse(j, (const char *)it->data, it->len) == -1) {
		tp_stat_inc(tp, ST_JSON_PARSER_FAILURE, 1);
		return;
	}
	r = &j->nodes[0];
	if (node_str(tp_jdom_get(j, r, "ph"), phs, sizeof(phs)) == NULL) {
		tp_stat_inc(tp, ST_JSON_PARSER_FAILURE, 1);
		return;
	}
	ph = phs[0];
	pname = node_str(tp_jdom_get(j, r, "name"), name, sizeof(name));
	/* What upstream names a thread's slice, an async begin and a
	 * thread state that have no name. */
	sname = pname != NULL ? pname : "[No name]";
	pcat = node_str(tp_jdom_get(j, r, "cat"), cat, sizeof(cat));
	event_pid_tid(j, r, &pid, &tid, &pn, &tn);
	if (pn != NULL)
		tp_process_set_name(tp, tp_process_get(tp, pid), pn->s,
		    pn->slen, TP_PNAME_DESCRIPTOR);
	if (tn != NULL)
		tp_thread_set_name(tp, tp_thread_get(tp, tid), tn->s, tn->slen,
		    TP_NAME_SCHED);
	if ((n = tp_jdom_get(j, r, "tts")) != NULL)
		(void)us_to_ns(n, &tts);
	if ((n = tp_jdom_get(j, r, "tdur")) != NULL)
		(void)us_to_ns(n, &tdur);
	utid = tp_thread_in_process(tp, tid, pid);
	/* As upstream, a thread's track is made only by events that go on
	 * it. */
	if (ph != '\0' && strchr("BEXIiRstf", ph) != NULL)
		track = tp_thread_track(tp, utid);

	switch (ph) {
	case 'B':
		set = event_args(tp, j, tp_jdom_get(j, r, "args"), TP_NULL);
		id = tp_slice_begin(tp, track, ts, pcat, sname, set, tts);
		break;
	case 'E':
		n = tp_jdom_get(j, r, "args");
		id = tp_slice_end(tp, track, ts, pname, tts,
		    n != NULL && n->child >= 0 ? &set : NULL);
		if (id >= 0 && set != TP_NULL)
			(void)event_args(tp, j, n, set);
		break;
	case 'X':
		if ((n = tp_jdom_get(j, r, "dur")) == NULL ||
		    us_to_ns(n, &dur) == -1)
			dur = 0;
		if (tp_slice_overlaps(tp, track, ts, dur, &ov)) {
			event_error(tp, ts, pname, 'X',
			    ST_SLICE_SPILL_OVERLAPPING_COMPLETE, &ov);
			if ((track = overlap_track(tp, utid, ts, dur)) < 0)
				break;
		}
		set = event_args(tp, j, tp_jdom_get(j, r, "args"), TP_NULL);
		id = tp_slice_complete(tp, track, ts, dur, pcat, sname, set,
		    tts, tdur);
		break;
	case 'I':
	case 'i':
	case 'R': {
		char sc[8] = "t";

		(void)node_str(tp_jdom_get(j, r, "s"), sc, sizeof(sc));
		if (sc[0] == 'g')
			track = tp_track_legacy_instants(tp, TP_NULL);
		else if (sc[0] == 'p')
			track = tp_track_legacy_instants(tp,
			    tp_process_get(tp, pid));
		set = event_args(tp, j, tp_jdom_get(j, r, "args"), TP_NULL);
		id = tp_slice_complete(tp, track, ts, 0, pcat,
		    sc[0] == 'g' || sc[0] == 'p' ? pname : sname, set, tts,
		    TP_NULL);
		break;
	}
	case 'T':
		if ((n = tp_jdom_get(j, r, "dur")) == NULL ||
		    us_to_ns(n, &dur) == -1) {
			event_error(tp, ts, pname, ph, ST_JSON_PARSER_FAILURE,
			    NULL);
			break;
		}
		thread_state_event(tp, j, tp_jdom_get(j, r, "args"), ts, dur,
		    utid, sname);
		break;
	case 'C':
		counter_event(tp, j, r, ts, pid, pname);
		return;
	case 'b':
	case 'e':
	case 'n': {
		struct tp_async a;
		uint64_t key;

		if (tp_jdom_get(j, r, "pid") == NULL ||
		    async_key(j, r, &key, &global) == -1) {
			event_error(tp, ts, pname, ph, ST_JSON_PARSER_FAILURE,
			    NULL);
			return;
		}
		a.cookie = key;
		a.process_scoped = !global;
		a.upid = tp->threads[utid].upid;
		a.name = pname;
		a.scope = NULL;
		if ((track = tp_track_async(tp, &a, ph == 'b' ? 1 :
		    ph == 'e' ? -1 : 0)) < 0)
			break;
		n = tp_jdom_get(j, r, "args");
		/* An end's args join the slice's, replacing its values of
		 * the same keys. */
		if (ph == 'e') {
			id = tp_slice_end(tp, track, ts, pname, TP_NULL,
			    n != NULL && n->child >= 0 ? &set : NULL);
			if (id >= 0 && set != TP_NULL)
				(void)event_args(tp, j, n, set);
			break;
		}
		set = event_args(tp, j, n, TP_NULL);
		if (ph == 'b')
			id = tp_slice_begin(tp, track, ts, pcat, sname, set,
			    TP_NULL);
		else
			id = tp_slice_complete(tp, track, ts, 0, pcat, pname,
			    set, TP_NULL, TP_NULL);
		break;
	}
	case 's':
	case 't':
	case 'f':
		flow_v1(tp, j, r, ph, track, ts, pcat, pname);
		return;
	default:
		return;
	}
	/* Flow v2: bind_id with flow_out / flow_in on the slice itself, of
	 * the phases upstream reads them on. */
	if (id >= 0 && strchr("BbnX", ph) != NULL &&
	    node_id(tp_jdom_get(j, r, "bind_id"), &bind) == 0) {
		const struct tp_jnode *fo = tp_jdom_get(j, r, "flow_out");
		const struct tp_jnode *fi = tp_jdom_get(j, r, "flow_in");
		int out = fo != NULL && fo->type == J_TRUE;
		int in = fi != NULL && fi->type == J_TRUE;

		if (out && in)
			tp_flow_step(tp, (uint64_t)bind, id, ts);
		else if (out)
			tp_flow_begin(tp, (uint64_t)bind, id, ts);
		else if (in)
			tp_flow_end(tp, (uint64_t)bind, id, ts, 0);
		else
			tp_stat_inc(tp, ST_FLOW_WITHOUT_DIRECTION, 1);
	}
}

/* Tokenizer ------------------------------------------------------------ */

/* Where an event goes among those of its timestamp (tp_sorter_push_json). */
static int64_t
json_order_key(char ph, const struct tp_jnode *dur)
{
	int64_t d = 0;

	if (ph == 'E')
		return TP_JSON_KEY_END;
	if (ph == 'X' && dur != NULL && us_to_ns(dur, &d) == 0 && d > 0)
		return TP_JSON_KEY_OTHER - d;
	return TP_JSON_KEY_OTHER;
}

/* An optional time field: absent, or a number of microseconds. As
 * upstream, an event with one that is neither is dropped whole. */
static int
time_ok(const struct tp_jnode *n)
{
	int64_t v;

	return n == NULL || us_to_ns(n, &v) == 0;
}

/* An event object upstream's tokenizer rejects whole: logged with its
 * text, at the byte after it. */
static void
object_error(struct tp *tp, const struct tp_json *js, uint64_t at)
{
	int64_t set = tp_arg_set_new(tp);

	tp_arg_str_fixed(tp, set, "raw_event", js->obj, js->objlen);
	tp_import_log(tp, ST_JSON_TOKENIZER_FAILURE, TP_NULL, (int64_t)at,
	    set);
}

/* A whole event object: -1 when it is no JSON (the trace is unusable). */
static int
object_done(struct tp *tp, struct tp_json *js, uint64_t at)
{
	struct tp_jdom *j = &js->jp;
	const struct tp_jnode *r;
	char phs[8];
	int64_t ts = 0, pid = 0, tid = 0;

	if (json_parse(j, js->obj, js->objlen) == -1)
		return tp_seterr(tp, "Failure parsing JSON: the event object "
		    "ending at byte %llu is not valid JSON",
		    (unsigned long long)at);
	r = &j->nodes[0];
	if (node_str(tp_jdom_get(j, r, "ph"), phs, sizeof(phs)) == NULL) {
		/* "{}" is a common filler (no trailing comma): no error. */
		if (r->child >= 0)
			object_error(tp, js, at);
		return 0;
	}
	/* Metadata events name things; they need no ordering. */
	if (phs[0] == 'M') {
		event_pid_tid(j, r, &pid, &tid, NULL, NULL);
		metadata_event(tp, j, r, pid, tid);
		return 0;
	}
	if (us_to_ns(tp_jdom_get(j, r, "ts"), &ts) == -1 ||
	    !time_ok(tp_jdom_get(j, r, "dur")) ||
	    !time_ok(tp_jdom_get(j, r, "tts")) ||
	    !time_ok(tp_jdom_get(j, r, "tdur"))) {
		/* Without a time, upstream logs the event whole; a bad value
		 * it logs with its own message: counted only, here. */
		if (tp_jdom_get(j, r, "ts") == NULL &&
		    time_ok(tp_jdom_get(j, r, "dur")) &&
		    time_ok(tp_jdom_get(j, r, "tts")) &&
		    time_ok(tp_jdom_get(j, r, "tdur")))
			object_error(tp, js, at);
		else
			tp_stat_inc(tp, ST_JSON_TOKENIZER_FAILURE, 1);
		return 0;
	}
	tp_sorter_push_json(tp, ts,
	    json_order_key(phs[0], tp_jdom_get(j, r, "dur")),
	    js->obj, js->objlen);
	return 0;
}

static int
buf_put(char **buf, size_t *len, size_t *cap, const char *s, size_t n,
    size_t max)
{
	if (*len + n > max)
		return -1;
	if (*len + n > *cap) {
		size_t ncap = *cap ? *cap : 4096;
		void *p;

		while (ncap < *len + n)
			ncap *= 2;
		if ((p = realloc(*buf, ncap)) == NULL)
			return -1;
		*buf = p;
		*cap = ncap;
	}
	memcpy(*buf + *len, s, n);
	*len += n;
	return 0;
}

/* Gathers the bytes of the current event object; 1 when it is complete. */
static size_t
object_scan(struct tp *tp, struct tp_json *js, const char *p, size_t len,
    int *complete)
{
	size_t i;

	*complete = 0;
	for (i = 0; i < len; i++) {
		char c = p[i];

		if (js->obj_in_str) {
			if (js->obj_esc)
				js->obj_esc = 0;
			else if (c == '\\')
				js->obj_esc = 1;
			else if (c == '"')
				js->obj_in_str = 0;
			continue;
		}
		if (c == '"')
			js->obj_in_str = 1;
		else if (c == '{' || c == '[')
			js->obj_depth++;
		else if (c == '}' || c == ']') {
			if (--js->obj_depth == 0) {
				*complete = 1;
				i++;
				break;
			}
		}
	}
	if (!js->obj_skip && buf_put(&js->obj, &js->objlen, &js->objcap, p, i,
	    MAX_OBJECT) == -1) {
		tp_stat_inc(tp, ST_JSON_TOKENIZER_FAILURE, 1);
		js->obj_skip = 1;
	}
	return i;
}

/* A '{' begins an object, read whole by object_scan(). */
static void
obj_start(struct tp_json *js)
{
	js->in_obj = 1;
	js->obj_depth = 1;
	js->obj_in_str = js->obj_esc = 0;
	js->obj_skip = 0;
	js->objlen = 0;
	if (buf_put(&js->obj, &js->objlen, &js->objcap, "{", 1,
	    MAX_OBJECT) == -1)
		js->obj_skip = 1;
}

/*
 * The trace's top-level "metadata" dictionary: each field of a scalar
 * value is a json_metadata.KEY metadata row, as upstream keeps it
 * (booleans and whole numbers as integers, other numbers as "%g" text,
 * objects and arrays as their text). Malformed: nothing.
 */
static void
metadata_dict(struct tp *tp, struct tp_json *js)
{
	struct tp_jdom *j = &js->jp;
	char key[256], val[4096];
	int64_t iv;
	double d;
	int c;

	if (json_parse(j, js->obj, js->objlen) == -1 ||
	    j->nodes[0].type != J_OBJ)
		return;
	for (c = j->nodes[0].child; c >= 0; c = j->nodes[c].next) {
		const struct tp_jnode *v = &j->nodes[c];

		if (v->keylen + 15 > sizeof(key))
			continue;
		snprintf(key, sizeof(key), "json_metadata.%.*s",
		    (int)v->keylen, v->key);
		switch (v->type) {
		case J_TRUE:
		case J_FALSE:
			tp_metadata_int(tp, key, v->type == J_TRUE);
			break;
		case J_NUM:
			if (v->slen >= sizeof(val))
				break;
			snprintf(val, sizeof(val), "%.*s", (int)v->slen, v->s);
			d = strtod(val, NULL);
			if (tp_jdom_int(v, &iv) == 0 && d == trunc(d) &&
			    fabs(d) < 9.2e18)
				tp_metadata_int(tp, key, iv);
			else {
				snprintf(val, sizeof(val), "%g", d);
				tp_metadata_str(tp, key, val);
			}
			break;
		case J_STR:
			if (node_str(v, val, sizeof(val)) != NULL)
				tp_metadata_str(tp, key, val);
			break;
		case J_OBJ:
		case J_ARR:
			/* Its text as written. */
			if (v->rawlen < sizeof(val)) {
				memcpy(val, v->raw, v->rawlen);
				val[v->rawlen] = '\0';
				tp_metadata_str(tp, key, val);
			}
			break;
		default:
			break;
		}
	}
}

static int
key_id(const struct tp_json *js)
{
	if (js->keylen == 11 && memcmp(js->key, "traceEvents", 11) == 0)
		return K_EVENTS;
	if (js->keylen == 15 && memcmp(js->key, "displayTimeUnit", 15) == 0)
		return K_DISPLAY_UNIT;
	if (js->keylen == 17 && memcmp(js->key, "systemTraceEvents", 17) == 0)
		return K_SYSTRACE;
	if (js->keylen == 8 && memcmp(js->key, "metadata", 8) == 0)
		return K_METADATA;
	return K_OTHER;
}

static void
sval_char(struct tp *tp, struct tp_json *js, char c)
{
	if (js->sv_capture && buf_put(&js->sval, &js->svlen, &js->svcap, &c,
	    1, MAX_SYSTRACE) == -1) {
		tp_stat_inc(tp, ST_JSON_TOKENIZER_FAILURE, 1);
		js->sv_capture = 0;
	}
}

/* The trace is not JSON: the byte at p (of this piece at base) says so. */
static int
json_fail(struct tp *tp, struct tp_json *js, const char *base, const char *p,
    const char *what)
{
	return tp_seterr(tp, "Failure parsing JSON: %s at byte %llu", what,
	    (unsigned long long)(js->off + (uint64_t)(p - base)));
}

static int
json_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* A string has ended: what it was decides what comes next. */
static void
string_done(struct tp *tp, struct tp_json *js)
{
	switch (js->str) {
	case STR_KEY:
		js->cur_key = key_id(js);
		js->state = JS_COLON;
		break;
	case STR_VALUE:
		if (js->cur_key == K_DISPLAY_UNIT)
			tp_stat_inc(tp, ST_JSON_DISPLAY_TIME_UNIT, 1);
		else if (js->cur_key == K_SYSTRACE && js->svlen > 0)
			/* Text ftrace inside JSON. */
			(void)tp_systrace_feed(tp, (const uint8_t *)js->sval,
			    js->svlen);
		js->sv_capture = 0;
		js->svlen = 0;
		js->state = JS_KEY;
		break;
	case STR_SKIP:
		break;
	}
}

static void
string_start(struct tp_json *js, enum jstr what)
{
	js->in_str = 1;
	js->esc = 0;
	js->str = what;
	js->keylen = 0;
	js->svlen = 0;
	js->sv_capture = what == STR_VALUE && js->cur_key == K_SYSTRACE;
}

int
tp_json_feed(struct tp *tp, const uint8_t *ubuf, size_t len)
{
	struct tp_json *js = json_get(tp);
	const char *base = (const char *)ubuf, *p = base, *end = p + len;

	if (js == NULL)
		return tp_seterr(tp, "%s: out of memory", __func__);
	while (p < end) {
		char c;

		if (js->in_obj) {
			int complete;

			p += object_scan(tp, js, p, (size_t)(end - p),
			    &complete);
			if (complete && js->obj_meta) {
				js->in_obj = js->obj_meta = 0;
				if (!js->obj_skip)
					metadata_dict(tp, js);
				js->objlen = 0;
			} else if (complete) {
				js->in_obj = 0;
				if (!js->obj_skip && object_done(tp, js,
				    js->off + (uint64_t)(p - base)) == -1)
					return -1;
				js->objlen = 0;
				tp_sorter_drain(tp, 0);
			}
			continue;
		}
		c = *p;
		if (js->in_str) {
			p++;
			if (js->esc) {
				js->esc = 0;
				if (js->sv_capture)
					sval_char(tp, js, c == 'n' ? '\n' :
					    c == 't' ? '\t' : c);
				continue;
			}
			if (c == '\\') {
				js->esc = 1;
				continue;
			}
			if (c == '"') {
				js->in_str = 0;
				string_done(tp, js);
				continue;
			}
			if (js->str == STR_KEY && js->keylen < sizeof(js->key))
				js->key[js->keylen++] = c;
			else if (js->sv_capture)
				sval_char(tp, js, c);
			continue;
		}
		if (json_space(c) && js->state != JS_SKIP) {
			p++;
			continue;
		}
		switch (js->state) {
		case JS_START:
			if (c != '{' && c != '[')
				return json_fail(tp, js, base, p,
				    "the first character is not [ or {");
			js->array_only = c == '[';
			js->state = js->array_only ? JS_EVENTS : JS_KEY;
			break;
		case JS_KEY:
			if (c == '}')
				js->state = JS_DONE;
			else if (c == '"')
				string_start(js, STR_KEY);
			else if (c != ',')
				return json_fail(tp, js, base, p,
				    "expected a key");
			break;
		case JS_COLON:
			if (c != ':')
				return json_fail(tp, js, base, p,
				    "expected ':' after a key");
			js->state = JS_VALUE;
			break;
		case JS_VALUE:
			if (js->cur_key == K_METADATA && c == '{') {
				/* Read whole, as an event is. */
				js->state = JS_KEY;
				js->obj_meta = 1;
				obj_start(js);
			} else if (js->cur_key == K_METADATA) {
				js->cur_key = K_OTHER;
				continue;	/* JS_VALUE skips it */
			} else if (js->cur_key == K_EVENTS) {
				if (c != '[')
					return json_fail(tp, js, base, p,
					    "traceEvents is not an array");
				js->state = JS_EVENTS;
				js->comma = 0;
			} else if (js->cur_key != K_OTHER) {
				if (c != '"')
					return json_fail(tp, js, base, p,
					    js->cur_key == K_SYSTRACE ?
					    "systemTraceEvents is not a "
					    "string" : "displayTimeUnit is "
					    "not a string");
				string_start(js, STR_VALUE);
			} else if (c == '[' || c == '{' || c == '"' ||
			    c == '-' || (c >= '0' && c <= '9') || c == 't' ||
			    c == 'f' || c == 'n') {
				js->state = JS_SKIP;
				js->braces = js->brackets = 0;
				continue;	/* JS_SKIP reads c */
			} else
				return json_fail(tp, js, base, p,
				    "expected a value");
			break;
		case JS_SKIP:
			if (js->braces == 0 && js->brackets == 0 &&
			    (c == ',' || c == '}')) {
				js->state = JS_KEY;
				continue;	/* JS_KEY reads c */
			}
			if (c == '"')
				string_start(js, STR_SKIP);
			else if (c == '[')
				js->brackets++;
			else if (c == '{')
				js->braces++;
			else if (c == ']' && js->brackets-- == 0)
				return json_fail(tp, js, base, p,
				    "unbalanced ']'");
			else if (c == '}')
				js->braces--;	/* > 0: checked above */
			break;
		case JS_EVENTS:
			if (c == ']') {
				js->state = js->array_only ? JS_DONE : JS_KEY;
			} else if (c == ',' && !js->comma) {
				js->comma = 1;
			} else if (c == '{') {
				js->comma = 0;
				obj_start(js);
			} else
				return json_fail(tp, js, base, p,
				    "expected an event object");
			break;
		case JS_DONE:
			return json_fail(tp, js, base, p,
			    "data after the end of the trace");
		}
		p++;
	}
	js->off += len;
	return 0;
}

int
tp_json_end(struct tp *tp)
{
	struct tp_json *js = tp->json;

	if (tp->systrace != NULL)
		(void)tp_systrace_end(tp);
	if (js == NULL)
		return 0;
	/*
	 * A bare events array may stop anywhere (Chrome writes no closing
	 * ']' when it is killed): what came whole is kept, as upstream does.
	 * A document that opened with '{' must be whole.
	 */
	if (js->array_only && js->state == JS_EVENTS) {
		if (js->in_obj)
			tp_stat_inc(tp, ST_JSON_TOKENIZER_FAILURE, 1);
		return 0;
	}
	if (js->state != JS_DONE)
		return tp_seterr(tp, "JSON trace file is incomplete at byte "
		    "%llu", (unsigned long long)js->off);
	return 0;
}

void
tp_json_free(struct tp *tp)
{
	struct tp_json *js = tp->json;

	if (js == NULL)
		return;
	free(js->obj);
	free(js->sval);
	tp_jdom_free(&js->jp);
	free(js);
	tp->json = NULL;
}
