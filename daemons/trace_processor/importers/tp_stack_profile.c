/*
 * Callstacks of profiles (perf samples, heap dumps) as upstream's stack
 * profile tables: a sequence interns mappings, frames and callstacks
 * (InternedData); a sample names a callstack, whose frames become a chain
 * of callsites, each frame in its mapping.
 *
 * Mappings of a process with an address range are that process's own: a
 * row each time one is first named. Others (no range, no process) are
 * shared, one row per distinct mapping. Frames are one row per mapping,
 * rel_pc and name; callsites one per parent, frame and depth. What a
 * generation of a sequence resolved is remembered per process.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pbdec.h"
#include "tp_hash.h"
#include "tp_int.h"
#include "tp_proto.h"

/* InternedData fields. */
#define ID_FUNCTION_NAMES	5
#define ID_FRAMES		6
#define ID_CALLSTACKS		7
#define ID_BUILD_IDS		16
#define ID_MAPPING_PATHS	17
#define ID_MAPPINGS		19

#define PATH_MAX_LEN		4096
#define MAX_FRAMES		1024	/* deeper callstacks: cut */
#define MAX_PARTS		256	/* of a mapping's path */
#define TMP_DIR			"/data/local/tmp/"

/* What was resolved, keyed by generation, process and iid. */
enum { RES_MAPPING = 1, RES_FRAME, RES_CALLSTACK, RES_DUMMY };

struct tp_stackprof {
	struct tp_hash	 resolved;	/* resolve_key() -> row id */
	struct tp_hash	 mappings;	/* shared mappings: params -> id */
	struct tp_hash	 frames;	/* mapping, rel_pc, name -> id */
	struct tp_hash	 callsites;	/* parent, frame, depth -> id */
	int64_t		 nmappings, nframes, ncallsites, nsymbols;
};

static struct tp_stackprof *
sp_get(struct tp *tp)
{
	struct tp_stackprof *sp = tp->stackprof;

	if (sp == NULL && (sp = tp->stackprof = calloc(1,
	    sizeof(*sp))) != NULL) {
		tp_hash_init(&sp->resolved);
		tp_hash_init(&sp->mappings);
		tp_hash_init(&sp->frames);
		tp_hash_init(&sp->callsites);
	}
	return sp;
}

static uint64_t
resolve_key(int kind, const struct tp_gen *g, int64_t upid, uint64_t iid)
{
	uint64_t v[4] = { (uint64_t)kind, g->serial, (uint64_t)upid, iid };

	return tp_hash_bytes(0, v, sizeof(v));
}

/* An interned string: bytes field 2 of (field, iid). */
static int
interned_str(struct tp *tp, const struct tp_gen *g, uint32_t field,
    uint64_t iid, const char **s, size_t *len)
{
	if (tp_gen_string(g, field, iid, 2, s, len) == 0)
		return 0;
	tp_stat_inc(tp, ST_STACKPROFILE_INVALID_STRING_ID, 1);
	return -1;
}

/* A build id as upstream shows it: hex, unless it is one of Chrome's
 * 33-character module ids already in text. */
static void
build_id_hex(const char *raw, size_t len, char *out, size_t size)
{
	static const char hex[] = "0123456789abcdef";
	size_t i, o = 0;

	if (len == 33 && len < size) {
		memcpy(out, raw, len);
		out[len] = '\0';
		return;
	}
	for (i = 0; i < len && o + 2 < size; i++) {
		out[o++] = hex[(uint8_t)raw[i] >> 4];
		out[o++] = hex[(uint8_t)raw[i] & 0xf];
	}
	out[o] = '\0';
}

struct mapping {
	uint64_t	 exact_offset, start_offset, start, end, load_bias;
	char		 build_id[256];
	char		 name[PATH_MAX_LEN];
};

static int64_t
mapping_row(struct tp *tp, struct tp_stackprof *sp, const struct mapping *m)
{
	struct tp_val *r = tp_row_new(tp, SQ_SP_MAPPING);
	int64_t id = sp->nmappings++;

	tp_val_int(&r[0], id);
	(void)tp_val_str(tp, SQ_SP_MAPPING, &r[1], m->build_id,
	    strlen(m->build_id));
	tp_val_int(&r[2], (int64_t)m->exact_offset);
	tp_val_int(&r[3], (int64_t)m->start_offset);
	tp_val_int(&r[4], (int64_t)m->start);
	tp_val_int(&r[5], (int64_t)m->end);
	tp_val_int(&r[6], (int64_t)m->load_bias);
	(void)tp_val_str(tp, SQ_SP_MAPPING, &r[7], m->name, strlen(m->name));
	/* Binaries there cannot be symbolized without one (SELinux). */
	if (m->build_id[0] == '\0' &&
	    strncmp(m->name, TMP_DIR, strlen(TMP_DIR)) == 0)
		tp_stat_inc(tp, ST_SYMBOLIZATION_TMP_BUILD_ID_NOT_FOUND, 1);
	return id;
}

/* Mapping fields: build_id 2, start_offset 3, start 4, end 5, load_bias 6,
 * path_string_ids 7, exact_offset 8. */
static int64_t
mapping_get(struct tp *tp, struct tp_stackprof *sp, const struct tp_gen *g,
    int64_t upid, uint64_t iid)
{
	uint64_t key = resolve_key(RES_MAPPING, g, upid, iid), *v, bid = 0;
	uint64_t parts[MAX_PARTS];
	struct mapping *m;
	const uint8_t *msg;
	const char *s;
	size_t len, slen, nlen = 0, i, n;
	struct pb it;
	struct pb_field f;
	int64_t id;

	if ((v = tp_hash_get(&sp->resolved, key)) != NULL)
		return (int64_t)*v;
	if (tp_gen_lookup(g, ID_MAPPINGS, iid, &msg, &len) == -1) {
		tp_stat_inc(tp, ST_STACKPROFILE_INVALID_MAPPING_ID, 1);
		return -1;
	}
	if ((m = calloc(1, sizeof(*m))) == NULL)
		return -1;
	/* A missing part ends the path, as upstream. */
	n = pb_repeated_varint_untrusted(msg, len, 7, parts, MAX_PARTS);
	for (i = 0; i < n; i++) {
		if (interned_str(tp, g, ID_MAPPING_PATHS, parts[i], &s,
		    &slen) == -1)
			break;
		if (nlen + slen + 2 > sizeof(m->name))
			continue;
		m->name[nlen++] = '/';
		memcpy(m->name + nlen, s, slen);
		nlen += slen;
	}
	pb_init(&it, msg, len);
	while (pb_next_untrusted(&it, &f) == 1) {
		if (f.wire != PB_VARINT)
			continue;
		switch (f.id) {
		case 2: bid = f.u; break;
		case 3: m->start_offset = f.u; break;
		case 4: m->start = f.u; break;
		case 5: m->end = f.u; break;
		case 6: m->load_bias = f.u; break;
		case 8: m->exact_offset = f.u; break;
		}
	}
	m->name[nlen] = '\0';
	/* A single full path (Chrome's) would start with "//". */
	if (nlen > 1 && m->name[1] == '/')
		memmove(m->name, m->name + 1, nlen);
	/* build id 0: none, as upstream (for old producers). */
	if (bid != 0) {
		if (interned_str(tp, g, ID_BUILD_IDS, bid, &s, &slen) == -1) {
			free(m);
			return -1;
		}
		build_id_hex(s, slen, m->build_id, sizeof(m->build_id));
	}
	if (m->start != m->end && upid != TP_NULL) {
		id = mapping_row(tp, sp, m);
	} else {
		uint64_t h = tp_hash_bytes(0, m, sizeof(*m));

		if ((v = tp_hash_get(&sp->mappings, h)) != NULL) {
			id = (int64_t)*v;
		} else {
			id = mapping_row(tp, sp, m);
			(void)tp_hash_put(&sp->mappings, h, (uint64_t)id);
		}
	}
	free(m);
	(void)tp_hash_put(&sp->resolved, key, (uint64_t)id);
	return id;
}

int64_t
tp_stack_profile_dummy_mapping(struct tp *tp, const char *name)
{
	struct tp_stackprof *sp = sp_get(tp);
	struct mapping *m;
	int64_t id;

	if (sp == NULL || (m = calloc(1, sizeof(*m))) == NULL)
		return -1;
	m->end = UINT64_MAX;
	snprintf(m->name, sizeof(m->name), "%s", name);
	id = mapping_row(tp, sp, m);
	free(m);
	return id;
}

/* The generation's mapping for frames without one (mapping_id 0). */
static int64_t
dummy_mapping(struct tp *tp, struct tp_stackprof *sp, const struct tp_gen *g)
{
	uint64_t key = resolve_key(RES_DUMMY, g, 0, 0), *v;
	int64_t id;

	if ((v = tp_hash_get(&sp->resolved, key)) != NULL)
		return (int64_t)*v;
	if ((id = tp_stack_profile_dummy_mapping(tp, "")) >= 0)
		(void)tp_hash_put(&sp->resolved, key, (uint64_t)id);
	return id;
}

int64_t
tp_stack_profile_dummy_frame(struct tp *tp, int64_t mapping, const char *name,
    size_t len)
{
	struct tp_stackprof *sp = sp_get(tp);
	uint64_t h, *v;
	struct tp_val *r;
	int64_t id, sym;

	if (sp == NULL)
		return -1;
	/* Apart from the mapping's real frames: a symbol of its own. */
	h = tp_hash_bytes(tp_hash_bytes((uint64_t)mapping * 31 + 7, name, len),
	    "dummy", 6);
	if ((v = tp_hash_get(&sp->frames, h)) != NULL)
		return (int64_t)*v;
	sym = sp->nsymbols++;
	r = tp_row_new(tp, SQ_SP_SYMBOL);
	tp_val_int(&r[0], sym);
	tp_val_int(&r[1], sym);
	(void)tp_val_str(tp, SQ_SP_SYMBOL, &r[2], name, len);
	id = sp->nframes++;
	r = tp_row_new(tp, SQ_SP_FRAME);
	tp_val_int(&r[0], id);
	(void)tp_val_str(tp, SQ_SP_FRAME, &r[1], name, len);
	tp_val_int(&r[2], mapping);
	tp_val_int(&r[3], 0);
	tp_val_int(&r[5], sym);
	(void)tp_hash_put(&sp->frames, h, (uint64_t)id);
	return id;
}

static const char *const frame_kinds[] = {
	NULL, "native", "kernel", "interpreted", "jit", "gc", "runtime",
};

/* Frame fields: function_name_id 2, mapping_id 3, rel_pc 4, kind 7,
 * kind_str 8. */
static int64_t
frame_get(struct tp *tp, struct tp_stackprof *sp, const struct tp_gen *g,
    int64_t upid, uint64_t iid)
{
	uint64_t key = resolve_key(RES_FRAME, g, upid, iid), *v;
	uint64_t fname = 0, map = 0, rel_pc = 0, h;
	const char *name = "", *kind = NULL;
	size_t nlen = 0, klen = 0;
	const uint8_t *msg;
	struct tp_val *r;
	struct pb it;
	struct pb_field f;
	int64_t mapping, id;
	size_t len;

	if ((v = tp_hash_get(&sp->resolved, key)) != NULL)
		return (int64_t)*v;
	if (tp_gen_lookup(g, ID_FRAMES, iid, &msg, &len) == -1) {
		tp_stat_inc(tp, ST_STACKPROFILE_INVALID_FRAME_ID, 1);
		return -1;
	}
	pb_init(&it, msg, len);
	while (pb_next_untrusted(&it, &f) == 1) {
		if (f.id == 8 && f.wire == PB_LEN) {
			kind = (const char *)f.data;
			klen = f.len;
		} else if (f.wire == PB_VARINT) {
			if (f.id == 2)
				fname = f.u;
			else if (f.id == 3)
				map = f.u;
			else if (f.id == 4)
				rel_pc = f.u;
			else if (f.id == 7) {
				kind = f.u < sizeof(frame_kinds) /
				    sizeof(frame_kinds[0]) ? frame_kinds[f.u] :
				    NULL;
				klen = kind != NULL ? strlen(kind) : 0;
			}
		}
	}
	if (fname != 0 && interned_str(tp, g, ID_FUNCTION_NAMES, fname,
	    &name, &nlen) == -1)
		return -1;
	if (map == 0) {
		if ((mapping = dummy_mapping(tp, sp, g)) < 0 ||
		    (id = tp_stack_profile_dummy_frame(tp, mapping, name,
		    nlen)) < 0)
			return -1;
		(void)tp_hash_put(&sp->resolved, key, (uint64_t)id);
		return id;
	}
	if ((mapping = mapping_get(tp, sp, g, upid, map)) < 0)
		return -1;
	h = tp_hash_bytes(tp_hash_bytes((uint64_t)mapping * 31 + rel_pc, name,
	    nlen), "", 1);
	if ((v = tp_hash_get(&sp->frames, h)) != NULL) {
		id = (int64_t)*v;
	} else {
		id = sp->nframes++;
		r = tp_row_new(tp, SQ_SP_FRAME);
		tp_val_int(&r[0], id);
		(void)tp_val_str(tp, SQ_SP_FRAME, &r[1], name, nlen);
		tp_val_int(&r[2], mapping);
		tp_val_int(&r[3], (int64_t)rel_pc);
		if (kind != NULL)
			(void)tp_val_str(tp, SQ_SP_FRAME, &r[4], kind, klen);
		(void)tp_hash_put(&sp->frames, h, (uint64_t)id);
	}
	(void)tp_hash_put(&sp->resolved, key, (uint64_t)id);
	return id;
}

int64_t
tp_stack_profile_callsite_intern(struct tp *tp, int64_t parent, int64_t frame,
    int64_t depth)
{
	struct tp_stackprof *sp = sp_get(tp);
	int64_t k[3] = { parent, frame, depth }, id;
	uint64_t h = tp_hash_bytes(0, k, sizeof(k)), *v;
	struct tp_val *r;

	if (sp == NULL)
		return -1;
	if ((v = tp_hash_get(&sp->callsites, h)) != NULL)
		return (int64_t)*v;
	id = sp->ncallsites++;
	r = tp_row_new(tp, SQ_SP_CALLSITE);
	tp_val_int(&r[0], id);
	tp_val_int(&r[1], depth);
	tp_val_i64n(&r[2], parent);
	tp_val_int(&r[3], frame);
	(void)tp_hash_put(&sp->callsites, h, (uint64_t)id);
	return id;
}

int64_t
tp_stack_profile_callsite(struct tp *tp, const struct tp_gen *g, int64_t upid,
    uint64_t iid)
{
	struct tp_stackprof *sp;
	uint64_t key, *v, *fids;
	int64_t parent = TP_NULL, frame;
	const uint8_t *msg;
	size_t len, i, n;

	if (g == NULL || (sp = sp_get(tp)) == NULL)
		return -1;
	key = resolve_key(RES_CALLSTACK, g, upid, iid);
	if ((v = tp_hash_get(&sp->resolved, key)) != NULL)
		return (int64_t)*v;
	if (tp_gen_lookup(g, ID_CALLSTACKS, iid, &msg, &len) == -1) {
		tp_stat_inc(tp, ST_STACKPROFILE_INVALID_CALLSTACK_ID, 1);
		return -1;
	}
	/* frame_ids 2, outermost first */
	if ((fids = malloc(MAX_FRAMES * sizeof(*fids))) == NULL)
		return -1;
	n = pb_repeated_varint_untrusted(msg, len, 2, fids, MAX_FRAMES);
	for (i = 0; i < n; i++) {
		if ((frame = frame_get(tp, sp, g, upid, fids[i])) < 0) {
			free(fids);
			return -1;
		}
		if ((parent = tp_stack_profile_callsite_intern(tp, parent,
		    frame, (int64_t)i)) < 0) {
			free(fids);
			return -1;
		}
	}
	free(fids);
	if (parent == TP_NULL) {
		tp_stat_inc(tp, ST_STACKPROFILE_EMPTY_CALLSTACK, 1);
		return -1;
	}
	(void)tp_hash_put(&sp->resolved, key, (uint64_t)parent);
	return parent;
}

void
tp_stack_profile_free(struct tp *tp)
{
	struct tp_stackprof *sp = tp->stackprof;

	if (sp == NULL)
		return;
	tp_hash_free(&sp->resolved);
	tp_hash_free(&sp->mappings);
	tp_hash_free(&sp->frames);
	tp_hash_free(&sp->callsites);
	free(sp);
	tp->stackprof = NULL;
}
