/*
 * Firefox profiler ("Gecko") JSON profiles, as upstream imports them: the
 * whole document is read at the end. Per thread, its stack samples (the
 * frame, func and stack tables, in the processed format's column arrays or
 * the legacy schema and data rows) become stack_sample rows on callsites
 * of dummy mappings named after the library in "func (in lib)"; its
 * markers become slices on a track per category and name of the thread,
 * their data flattened into args under "data". A shared thread may hold
 * the strings and tables of all. Times are milliseconds.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tp_hash.h"
#include "tp_int.h"
#include "tp_jdom.h"

#define MAX_GECKO	(1u << 30)	/* bytes of document held */
#define MAX_NODES	(64u << 20)

enum { PH_INSTANT, PH_INTERVAL, PH_START, PH_END };
enum { EV_META, EV_SAMPLE, EV_MARKER };

struct tp_gecko {
	char		*buf;
	size_t		 len, cap;
};

/* An array's elements, for access by index. */
struct jarr {
	const struct tp_jnode	**v;
	size_t			 n;
};

struct callsite {
	int64_t		 id, depth;
};

struct gthread {
	const struct tp_jnode	*obj;
	const char		*name;
	size_t			 namelen;
	uint32_t		 tid, pid;
	struct jarr		 strings;
	int			 preprocessed;
	struct callsite		*cs;
	size_t			 ncs;
};

struct gevent {
	int64_t		 ts;
	size_t		 seq;
	int		 kind;
	struct gthread	*t;
	int64_t		 a;		/* callsite, or marker index */
};

struct import {
	struct tp		*tp;
	struct tp_jdom		 j;
	struct jarr		 categories;	/* meta.categories */
	int64_t			 gecko_mapping;	/* -1: not made yet */
	struct tp_hash		 mappings;	/* library name -> mapping */
	struct tp_hash		 task_ctx;	/* utid -> task context id */
	int64_t			 ntask_ctx, nsamples;
	struct gevent		*ev;
	size_t			 nev, capev;
};

int
tp_gecko_feed(struct tp *tp, const uint8_t *buf, size_t len)
{
	struct tp_gecko *g = tp->gecko;

	if (g == NULL && (g = tp->gecko = calloc(1, sizeof(*g))) == NULL)
		return tp_seterr(tp, "gecko: out of memory");
	if (len > MAX_GECKO - g->len)
		return tp_seterr(tp, "gecko: profile larger than %u bytes",
		    MAX_GECKO);
	if (g->len + len > g->cap) {
		size_t ncap = g->cap ? g->cap : 1 << 16;
		void *p;

		while (ncap < g->len + len)
			ncap *= 2;
		if ((p = realloc(g->buf, ncap)) == NULL)
			return tp_seterr(tp, "gecko: out of memory");
		g->buf = p;
		g->cap = ncap;
	}
	memcpy(g->buf + g->len, buf, len);
	g->len += len;
	return 0;
}

static const struct tp_jnode *
get(const struct import *im, const struct tp_jnode *obj, const char *key)
{
	return tp_jdom_get(&im->j, obj, key);
}

/* Elements of array node a (none when a is no array). */
static int
arr_of(const struct import *im, const struct tp_jnode *a, struct jarr *out)
{
	size_t n = 0;
	int c;

	out->v = NULL;
	out->n = 0;
	if (a == NULL || a->type != J_ARR)
		return 0;
	for (c = a->child; c >= 0; c = im->j.nodes[c].next)
		n++;
	if (n == 0)
		return 0;
	if ((out->v = calloc(n, sizeof(*out->v))) == NULL)
		return -1;
	for (c = a->child; c >= 0; c = im->j.nodes[c].next)
		out->v[out->n++] = &im->j.nodes[c];
	return 0;
}

static int
double_of(const struct tp_jnode *n, double *v)
{
	char buf[64];
	char *end;

	if (n == NULL || n->type != J_NUM || n->slen >= sizeof(buf))
		return -1;
	memcpy(buf, n->s, n->slen);
	buf[n->slen] = '\0';
	*v = strtod(buf, &end);
	return *end == '\0' ? 0 : -1;
}

/* A number not below 0 as upstream's reader takes it for an index: an
 * integer modulo 2^32, a fraction truncated. */
static int
u32_of(const struct tp_jnode *n, uint32_t *v)
{
	int64_t x;
	double d;

	if (n == NULL || n->type != J_NUM)
		return -1;
	if (memchr(n->s, '.', n->slen) == NULL &&
	    memchr(n->s, 'e', n->slen) == NULL &&
	    memchr(n->s, 'E', n->slen) == NULL && tp_jdom_int(n, &x) == 0) {
		if (x < 0)
			return -1;
		*v = (uint32_t)x;
		return 0;
	}
	if (double_of(n, &d) == -1 || !(d >= 0) || d >= 4294967296.0)
		return -1;
	*v = (uint32_t)d;
	return 0;
}

/*
 * Columns as upstream collects them: the elements that read as the
 * column's type (an index, a number), the others left out (those after
 * move up); an optional index column (a stack's prefix, a sample's stack)
 * keeps every element, -1 for none. Indexes fit a double exactly.
 */
enum { COL_INDEX, COL_NUMBER, COL_OPT_INDEX };

struct col {
	double		*v;
	size_t		 n;
};

static int
col_of(const struct import *im, const struct tp_jnode *a, int kind,
    struct col *out)
{
	struct jarr e;
	size_t i;
	uint32_t u;
	double d;
	int ok;

	out->v = NULL;
	out->n = 0;
	if (arr_of(im, a, &e) == -1)
		return -1;
	if (e.n > 0 && (out->v = calloc(e.n, sizeof(*out->v))) == NULL) {
		free(e.v);
		return -1;
	}
	for (i = 0; i < e.n; i++) {
		if (kind == COL_NUMBER) {
			ok = double_of(e.v[i], &d) == 0;
		} else {
			ok = u32_of(e.v[i], &u) == 0;
			d = ok ? (double)u : -1;
			ok = ok || kind == COL_OPT_INDEX;
		}
		if (ok)
			out->v[out->n++] = d;
	}
	free(e.v);
	return 0;
}

/* The strings of an array, the others left out. */
static int
strings_of(const struct import *im, const struct tp_jnode *a,
    struct jarr *out)
{
	size_t i, j = 0;

	if (arr_of(im, a, out) == -1)
		return -1;
	for (i = 0; i < out->n; i++)
		if (out->v[i]->type == J_STR)
			out->v[j++] = out->v[i];
	out->n = j;
	return 0;
}

/* A pid or tid: a number, or a number in a string; else 0. */
static uint32_t
id_of(const struct tp_jnode *n)
{
	char buf[16];
	char *end;
	unsigned long v;
	uint32_t u;

	if (u32_of(n, &u) == 0)
		return u;
	if (n == NULL || n->type != J_STR || n->slen == 0 ||
	    n->slen >= sizeof(buf))
		return 0;
	memcpy(buf, n->s, n->slen);
	buf[n->slen] = '\0';
	v = strtoul(buf, &end, 10);
	return *end == '\0' && v <= UINT32_MAX ? (uint32_t)v : 0;
}

/* Element i of a column: NULL beyond its end. */
static const struct tp_jnode *
at(const struct jarr *a, size_t i)
{
	return i < a->n ? a->v[i] : NULL;
}

/* A legacy table's column for key: its index in the rows (schema). */
static int
schema_col(const struct import *im, const struct tp_jnode *table,
    const char *key, uint32_t *col)
{
	return u32_of(get(im, get(im, table, "schema"), key), col);
}

/* A legacy table's rows, or the column arrays of the processed format. */
static const struct tp_jnode *
row_cell(const struct import *im, const struct tp_jnode *row, uint32_t col)
{
	struct jarr cells;
	const struct tp_jnode *n;

	if (arr_of(im, row, &cells) == -1)
		return NULL;
	n = at(&cells, col);
	free(cells.v);
	return n;
}

/* A frame named "func (in lib)" is func in a mapping named lib; others
 * are in the one "gecko" mapping. */
static int64_t
frame_intern(struct import *im, const char *name, size_t len)
{
	static const char in[] = " (in ";
	const char *p = NULL, *lib, *end;
	size_t i, liblen;
	uint64_t h, *v;
	int64_t m;
	char lname[256];

	for (i = 0; i + sizeof(in) - 1 <= len; i++)
		if (memcmp(name + i, in, sizeof(in) - 1) == 0) {
			p = name + i;
			break;
		}
	if (p == NULL) {
		if (im->gecko_mapping < 0)
			im->gecko_mapping = tp_stack_profile_dummy_mapping(
			    im->tp, "gecko");
		return im->gecko_mapping < 0 ? -1 :
		    tp_stack_profile_dummy_frame(im->tp, im->gecko_mapping,
		    name, len);
	}
	lib = p + sizeof(in) - 1;
	end = memchr(lib, ')', (size_t)(name + len - lib));
	liblen = (size_t)((end != NULL ? end : name + len) - lib);
	snprintf(lname, sizeof(lname), "%.*s", (int)liblen, lib);
	h = tp_hash_bytes(0, lname, strlen(lname));
	if ((v = tp_hash_get(&im->mappings, h)) != NULL) {
		m = (int64_t)*v;
	} else {
		if ((m = tp_stack_profile_dummy_mapping(im->tp, lname)) < 0)
			return -1;
		(void)tp_hash_put(&im->mappings, h, (uint64_t)m);
	}
	return tp_stack_profile_dummy_frame(im->tp, m, name,
	    (size_t)(p - name));
}

static const struct tp_jnode *
string_at(const struct jarr *strings, uint32_t i)
{
	return at(strings, i);
}

/* The thread's frames, then its callsites from the stack table. As
 * upstream, an entry that does not resolve is left out and the ones
 * after it move up. */
static int
callsites_make(struct import *im, const struct gthread *t,
    const struct jarr *strings, struct callsite **out, size_t *nout)
{
	const struct tp_jnode *ft = get(im, t->obj, "frameTable");
	const struct tp_jnode *st = get(im, t->obj, "stackTable");
	struct col funcs = { 0 }, fnames = { 0 }, frame = { 0 };
	struct col prefix = { 0 };
	struct jarr rows = { 0 }, frows = { 0 };
	const struct tp_jnode *s;
	int64_t *frames = NULL, fid, pi;
	struct callsite *cs = NULL;
	size_t nframes = 0, n = 0, nf = 0, i;
	uint32_t loc, pcol, fcol, u;
	int legacy = 0, rc = -1;

	if (t->preprocessed) {
		if (col_of(im, get(im, ft, "func"), COL_INDEX, &funcs) ==
		    -1 || col_of(im, get(im, get(im, t->obj, "funcTable"),
		    "name"), COL_INDEX, &fnames) == -1)
			goto out;
		nf = funcs.n;
	} else if (schema_col(im, ft, "location", &loc) == 0 &&
	    schema_col(im, st, "prefix", &pcol) == 0 &&
	    schema_col(im, st, "frame", &fcol) == 0) {
		legacy = 1;
		if (arr_of(im, get(im, ft, "data"), &frows) == -1)
			goto out;
		nf = frows.n;
	}
	if (nf > 0 && (frames = calloc(nf, sizeof(*frames))) == NULL)
		goto out;
	for (i = 0; i < nf; i++) {
		if (t->preprocessed)
			s = (size_t)funcs.v[i] < fnames.n ? string_at(strings,
			    (uint32_t)fnames.v[(size_t)funcs.v[i]]) : NULL;
		else
			s = u32_of(row_cell(im, frows.v[i], loc), &u) == 0 ?
			    string_at(strings, u) : NULL;
		if (s == NULL)
			continue;
		if ((fid = frame_intern(im, s->s, s->slen)) < 0)
			goto out;
		frames[nframes++] = fid;
	}
	if (t->preprocessed) {
		if (col_of(im, get(im, st, "prefix"), COL_OPT_INDEX,
		    &prefix) == -1 || col_of(im, get(im, st, "frame"),
		    COL_INDEX, &frame) == -1)
			goto out;
		n = prefix.n < frame.n ? prefix.n : frame.n;
	} else if (legacy) {
		if (arr_of(im, get(im, st, "data"), &rows) == -1)
			goto out;
		n = rows.n;
	}
	if (n > 0 && (cs = calloc(n, sizeof(*cs))) == NULL)
		goto out;
	*nout = 0;
	for (i = 0; i < n; i++) {
		const struct tp_jnode *pn = NULL, *fn = NULL;
		int64_t parent = TP_NULL, depth = 0;

		if (!t->preprocessed) {
			pn = row_cell(im, rows.v[i], pcol);
			fn = row_cell(im, rows.v[i], fcol);
			if (pn == NULL || fn == NULL)
				continue;
		}
		if (t->preprocessed)
			pi = (int64_t)prefix.v[i];
		else
			pi = u32_of(pn, &u) == 0 ? (int64_t)u : -1;
		if (pi >= 0 && (size_t)pi < *nout) {
			parent = cs[pi].id;
			depth = cs[pi].depth + 1;
		}
		if (t->preprocessed)
			u = (uint32_t)frame.v[i];
		else if (u32_of(fn, &u) == -1)
			continue;
		if (u >= nframes)
			continue;
		if ((cs[*nout].id = tp_stack_profile_callsite_intern(im->tp,
		    parent, frames[u], depth)) < 0)
			goto out;
		cs[(*nout)++].depth = depth;
	}
	*out = cs;
	cs = NULL;
	rc = 0;
out:
	free(cs);
	free(frames);
	free(funcs.v);
	free(fnames.v);
	free(frame.v);
	free(prefix.v);
	free(rows.v);
	free(frows.v);
	return rc;
}

static int
event_add(struct import *im, int64_t ts, int kind, struct gthread *t,
    int64_t a)
{
	struct gevent *e;

	if (im->nev == im->capev) {
		size_t ncap = im->capev ? im->capev * 2 : 256;
		void *p = realloc(im->ev, ncap * sizeof(*im->ev));

		if (p == NULL)
			return -1;
		im->ev = p;
		im->capev = ncap;
	}
	e = &im->ev[im->nev];
	e->ts = ts;
	e->seq = im->nev++;
	e->kind = kind;
	e->t = t;
	e->a = a;
	return 0;
}

/* The samples of thread t: stack and time, as columns or legacy rows
 * (where a time reads as an index would: whole milliseconds). */
static int
samples_add(struct import *im, struct gthread *t, const struct callsite *cs,
    size_t ncs)
{
	const struct tp_jnode *sm = get(im, t->obj, "samples"), *tn;
	struct col stack = { 0 };
	struct col time = { 0 };
	struct jarr rows = { 0 };
	uint32_t scol, tcol, u;
	size_t i, n = 0;
	int64_t si, ts;
	int meta = 0, rc = -1;
	double ms;

	if (t->preprocessed) {
		if (col_of(im, get(im, sm, "stack"), COL_OPT_INDEX,
		    &stack) == -1 || col_of(im, get(im, sm, "time"),
		    COL_NUMBER, &time) == -1)
			goto out;
		n = stack.n < time.n ? stack.n : time.n;
	} else if (schema_col(im, sm, "stack", &scol) == 0 &&
	    schema_col(im, sm, "time", &tcol) == 0) {
		if (arr_of(im, get(im, sm, "data"), &rows) == -1)
			goto out;
		n = rows.n;
	}
	for (i = 0; i < n; i++) {
		if (t->preprocessed) {
			si = (int64_t)stack.v[i];
			ms = time.v[i];
		} else {
			if ((tn = row_cell(im, rows.v[i], tcol)) == NULL)
				continue;
			si = u32_of(row_cell(im, rows.v[i], scol), &u) == 0 ?
			    (int64_t)u : -1;
			if (u32_of(tn, &u) == 0)
				ms = u;
			else if (double_of(tn, &ms) == -1)
				ms = 0;
		}
		if (si < 0 || (size_t)si >= ncs)
			continue;
		/* As upstream rounds: milliseconds * 1000 * 1000. */
		ts = (int64_t)(ms * 1000 * 1000);
		if (!meta && event_add(im, ts, EV_META, t, 0) == -1)
			goto out;
		meta = 1;
		if (event_add(im, ts, EV_SAMPLE, t, cs[si].id) == -1)
			goto out;
	}
	rc = 0;
out:
	free(stack.v);
	free(time.v);
	free(rows.v);
	return rc;
}

/* The marker columns of a thread (markers.name, startTime, endTime,
 * phase, category; data index-aligned, objects and arrays only). */
struct markers {
	struct col	 name, phase, cat;
	struct col	 start, end;
	struct jarr	 data;
	size_t		 n;
};

static void
markers_free(struct markers *m)
{
	free(m->name.v);
	free(m->phase.v);
	free(m->cat.v);
	free(m->start.v);
	free(m->end.v);
	free(m->data.v);
}

static int
markers_get(struct import *im, const struct gthread *t, struct markers *m)
{
	const struct tp_jnode *mk = get(im, t->obj, "markers");
	size_t n;

	memset(m, 0, sizeof(*m));
	if (col_of(im, get(im, mk, "name"), COL_INDEX, &m->name) == -1 ||
	    col_of(im, get(im, mk, "startTime"), COL_NUMBER,
	    &m->start) == -1 ||
	    col_of(im, get(im, mk, "endTime"), COL_NUMBER, &m->end) == -1 ||
	    col_of(im, get(im, mk, "phase"), COL_INDEX, &m->phase) == -1 ||
	    col_of(im, get(im, mk, "category"), COL_INDEX, &m->cat) == -1 ||
	    arr_of(im, get(im, mk, "data"), &m->data) == -1)
		return -1;
	n = m->name.n;
	n = m->start.n < n ? m->start.n : n;
	n = m->end.n < n ? m->end.n : n;
	n = m->phase.n < n ? m->phase.n : n;
	m->n = m->cat.n < n ? m->cat.n : n;
	return 0;
}

static int
markers_add(struct import *im, struct gthread *t, const struct markers *m,
    const struct jarr *strings)
{
	size_t i;
	int meta = 0;
	int64_t ts;

	for (i = 0; i < m->n; i++) {
		if (string_at(strings, (uint32_t)m->name.v[i]) == NULL)
			continue;
		/* An end is at its end time, the others at their start. */
		ts = (int64_t)((m->phase.v[i] == PH_END ? m->end.v[i] :
		    m->start.v[i]) * 1000 * 1000);
		if (!meta && event_add(im, ts, EV_META, t, 0) == -1)
			return -1;
		meta = 1;
		if (event_add(im, ts, EV_MARKER, t, (int64_t)i) == -1)
			return -1;
	}
	return 0;
}

static int
event_cmp(const void *a, const void *b)
{
	const struct gevent *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void
sample_apply(struct import *im, const struct gevent *e)
{
	struct tp *tp = im->tp;
	int64_t utid = tp_thread_get(tp, e->t->tid), ctx;
	uint64_t *v;
	struct tp_val *r;

	if ((v = tp_hash_get(&im->task_ctx, (uint64_t)utid)) != NULL) {
		ctx = (int64_t)*v;
	} else {
		ctx = im->ntask_ctx++;
		r = tp_row_new(tp, SQ_SAMPLE_TASK_CTX);
		tp_val_int(&r[0], ctx);
		tp_val_int(&r[1], utid);
		(void)tp_hash_put(&im->task_ctx, (uint64_t)utid, (uint64_t)ctx);
	}
	r = tp_row_new(tp, SQ_STACK_SAMPLE);
	tp_val_int(&r[0], im->nsamples++);
	tp_val_int(&r[1], e->ts);
	(void)tp_val_str(tp, SQ_STACK_SAMPLE, &r[2], "gecko", 5);
	tp_val_int(&r[3], ctx);
	tp_val_int(&r[4], e->a);
}

/* A marker: on its thread's track of its category and name; an end
 * closes the innermost open marker of its name there. */
static void
marker_apply(struct import *im, const struct gevent *e,
    const struct markers *m, const struct jarr *strings)
{
	struct tp *tp = im->tp;
	size_t i = (size_t)e->a;
	const struct tp_jnode *d = at(&m->data, i), *nn, *cn = NULL;
	char name[512], cat[256];
	const char *catp = NULL;
	int64_t utid, track, set = TP_NULL, dur;
	struct tp_dim dims[2];

	nn = string_at(strings, (uint32_t)m->name.v[i]);
	snprintf(name, sizeof(name), "%.*s", (int)nn->slen, nn->s);
	cn = get(im, at(&im->categories, (size_t)m->cat.v[i]), "name");
	if (cn != NULL && cn->type == J_STR) {
		snprintf(cat, sizeof(cat), "%.*s", (int)cn->slen, cn->s);
		catp = cat;
	}
	utid = tp_thread_get(tp, e->t->tid);
	dims[0].key = "firefox_marker_category";
	dims[0].s = catp != NULL ? catp : TP_DIM_NULL_STR;
	dims[0].v = 0;
	dims[1].key = "firefox_marker_name";
	dims[1].s = name;
	dims[1].v = 0;
	if ((track = tp_track_intern_dimv(tp, TT_THREAD, NULL, name, utid, dims,
	    2, NULL)) < 0)
		return;
	tp_track_kind(tp, track, "firefox_marker");
	if (d != NULL && d->type != J_OBJ && d->type != J_ARR)
		d = NULL;
	switch ((uint32_t)m->phase.v[i]) {
	case PH_INSTANT:
	case PH_INTERVAL:
		dur = m->phase.v[i] == PH_INTERVAL ? (int64_t)((m->end.v[i] -
		    m->start.v[i]) * 1000 * 1000) : 0;
		if (d != NULL)
			set = tp_arg_set_new(tp);
		if (d != NULL)
			(void)tp_json_args(tp, set, "data", "data", d->raw,
			    d->rawlen);
		(void)tp_slice_complete(tp, track, e->ts, dur < 0 ? 0 : dur,
		    catp, name, set, TP_NULL, TP_NULL);
		break;
	case PH_START:
		if (d != NULL)
			set = tp_arg_set_new(tp);
		if (d != NULL)
			(void)tp_json_args(tp, set, "data", "data", d->raw,
			    d->rawlen);
		(void)tp_slice_begin(tp, track, e->ts, catp, name, set,
		    TP_NULL);
		break;
	case PH_END:
		(void)tp_slice_end_matching(tp, track, e->ts, catp, name,
		    TP_NULL, &set);
		if (set != TP_NULL && d != NULL)
			(void)tp_json_args(tp, set, "data", "data", d->raw,
			    d->rawlen);
		break;
	}
}

static int
thread_get(struct import *im, const struct tp_jnode *obj, struct gthread *t)
{
	const struct tp_jnode *n, *ft, *st, *sm;

	memset(t, 0, sizeof(*t));
	t->obj = obj;
	if ((n = get(im, obj, "name")) != NULL && n->type == J_STR) {
		t->name = n->s;
		t->namelen = n->slen;
	}
	t->tid = id_of(get(im, obj, "tid"));
	t->pid = id_of(get(im, obj, "pid"));
	n = get(im, obj, "stringArray");
	t->preprocessed = n != NULL && n->type == J_ARR;
	if (n == NULL || n->type != J_ARR)
		n = get(im, obj, "stringTable");
	ft = get(im, obj, "frameTable");
	st = get(im, obj, "stackTable");
	sm = get(im, obj, "samples");
	/* The processed format's column arrays. */
	if (get(im, ft, "func") != NULL || get(im, st, "prefix") != NULL ||
	    get(im, sm, "stack") != NULL)
		t->preprocessed = 1;
	return strings_of(im, n, &t->strings);
}

/* The thread's frames: whether it has any of either format. */
static int
has_frames(const struct import *im, const struct gthread *t)
{
	const struct tp_jnode *ft = get(im, t->obj, "frameTable"), *a;

	return ((a = get(im, ft, "func")) != NULL && a->child >= 0) ||
	    ((a = get(im, ft, "data")) != NULL && a->child >= 0);
}

static int
import_run(struct import *im)
{
	const struct tp_jnode *root = &im->j.nodes[0], *sh;
	struct gthread *threads = NULL, shared;
	struct jarr tnodes;
	struct markers *mk = NULL;
	struct callsite *scs = NULL;
	size_t nscs = 0, i, nt = 0;
	int has_shared = 0, use_shared = 0, rc = -1;

	memset(&shared, 0, sizeof(shared));
	memset(&tnodes, 0, sizeof(tnodes));
	if (arr_of(im, get(im, get(im, root, "meta"), "categories"),
	    &im->categories) == -1)
		goto out;
	if ((sh = get(im, root, "shared")) != NULL && sh->type == J_OBJ) {
		if (thread_get(im, sh, &shared) == -1)
			goto out;
		has_shared = 1;
		/* Its tables, when it has frames, serve every thread. */
		if ((use_shared = has_frames(im, &shared)) &&
		    callsites_make(im, &shared, &shared.strings, &scs,
		    &nscs) == -1)
			goto out;
	}
	if (arr_of(im, get(im, root, "threads"), &tnodes) == -1)
		goto out;
	if (tnodes.n > 0 && ((threads = calloc(tnodes.n,
	    sizeof(*threads))) == NULL || (mk = calloc(tnodes.n,
	    sizeof(*mk))) == NULL))
		goto out;
	for (i = 0; i < tnodes.n; i++) {
		struct gthread *t = &threads[nt];
		const struct jarr *strings;

		if (tnodes.v[i]->type != J_OBJ)
			continue;
		if (thread_get(im, tnodes.v[i], t) == -1)
			goto out;
		nt++;
		strings = t->strings.n > 0 || !has_shared ? &t->strings :
		    &shared.strings;
		if (!use_shared && callsites_make(im, t, strings, &t->cs,
		    &t->ncs) == -1)
			goto out;
		if (use_shared && shared.preprocessed)
			t->preprocessed = 1;
		if (samples_add(im, t, use_shared ? scs : t->cs, use_shared ?
		    nscs : t->ncs) == -1 || markers_get(im, t,
		    &mk[nt - 1]) == -1 || markers_add(im, t, &mk[nt - 1],
		    strings) == -1)
			goto out;
	}
	if (im->nev > 0)
		qsort(im->ev, im->nev, sizeof(*im->ev), event_cmp);
	for (i = 0; i < im->nev; i++) {
		struct gevent *e = &im->ev[i];
		size_t ti = (size_t)(e->t - threads);
		int64_t utid;

		switch (e->kind) {
		case EV_META:
			utid = tp_thread_in_process(im->tp, e->t->tid,
			    e->t->pid);
			tp_thread_set_name(im->tp, utid, e->t->name,
			    e->t->namelen, 0);
			break;
		case EV_SAMPLE:
			sample_apply(im, e);
			break;
		case EV_MARKER:
			marker_apply(im, e, &mk[ti], e->t->strings.n > 0 ||
			    !has_shared ? &e->t->strings : &shared.strings);
			break;
		}
	}
	rc = 0;
out:
	for (i = 0; i < nt; i++) {
		free(threads[i].strings.v);
		free(threads[i].cs);
		markers_free(&mk[i]);
	}
	free(threads);
	free(mk);
	free(scs);
	free(shared.strings.v);
	free(tnodes.v);
	return rc;
}

int
tp_gecko_end(struct tp *tp)
{
	struct tp_gecko *g = tp->gecko;
	struct import im;
	int rc;

	if (g == NULL)
		return 0;
	memset(&im, 0, sizeof(im));
	im.tp = tp;
	im.gecko_mapping = -1;
	tp_hash_init(&im.mappings);
	tp_hash_init(&im.task_ctx);
	/* A node takes two bytes of text at the least. */
	im.j.max_nodes = g->len / 2 + 2 < MAX_NODES ? g->len / 2 + 2 :
	    MAX_NODES;
	if (tp_jdom_parse(&im.j, g->buf, g->len) == -1 ||
	    im.j.nodes[0].type != J_OBJ)
		rc = tp_seterr(tp, "Syntactic error while parsing Gecko trace;"
		    " use a JSON tool (e.g. jq) to find it");
	else if ((rc = import_run(&im)) == -1)
		rc = tp_seterr(tp, "gecko: out of memory");
	free(im.ev);
	free(im.categories.v);
	tp_hash_free(&im.mappings);
	tp_hash_free(&im.task_ctx);
	tp_jdom_free(&im.j);
	return rc;
}

void
tp_gecko_free(struct tp *tp)
{
	if (tp->gecko == NULL)
		return;
	free(tp->gecko->buf);
	free(tp->gecko);
	tp->gecko = NULL;
}
