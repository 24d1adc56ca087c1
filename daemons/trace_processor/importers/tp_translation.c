/*
 * Translation tables (TracePacket.translation_table): a trace carries the
 * real names of what it recorded obfuscated or hashed, and the importers
 * show the real ones, as upstream does: slice names, names of process
 * tracks, and Chrome study (trigger) hashes. Rules are read as packets
 * come, before the sorted parse, so they apply to the whole trace.
 * Histogram, user event and performance mark hashes name args faro does
 * not produce: their tables are read and left unused.
 */
#include <stdlib.h>
#include <string.h>

#include "pbdec.h"
#include "tp_int.h"

enum tr_kind { TR_SLICE_NAME, TR_PROCESS_TRACK_NAME, TR_CHROME_STUDY };

struct tr_rule {
	enum tr_kind	 kind;
	char		*from;		/* a name; NULL for a hash */
	uint64_t	 hash;
	char		*to;
};

struct tp_translation {
	struct tr_rule	*r;
	size_t		 n, cap;
	struct tp_hash	 by_key;	/* rule_key() -> index */
};

static uint64_t
rule_key(enum tr_kind kind, const char *from, size_t fromlen, uint64_t hash)
{
	uint64_t h = tp_hash_bytes((uint64_t)kind * 0x9e3779b97f4a7c15ULL,
	    &hash, sizeof(hash));

	return from == NULL ? h : tp_hash_bytes(h, from, fromlen);
}

static int
rule_is(const struct tr_rule *r, enum tr_kind kind, const char *from,
    size_t fromlen, uint64_t hash)
{
	if (r->kind != kind)
		return 0;
	if (from == NULL)
		return r->from == NULL && r->hash == hash;
	return r->from != NULL && strlen(r->from) == fromlen &&
	    memcmp(r->from, from, fromlen) == 0;
}

static struct tr_rule *
rule_find(const struct tp_translation *t, enum tr_kind kind, const char *from,
    size_t fromlen, uint64_t hash)
{
	uint64_t *v;
	size_t i;

	if (t == NULL || (v = tp_hash_get(&t->by_key, rule_key(kind, from,
	    fromlen, hash))) == NULL)
		return NULL;
	if (rule_is(&t->r[*v], kind, from, fromlen, hash))
		return &t->r[*v];
	/* Two keys of one hash: rare, a scan. */
	for (i = 0; i < t->n; i++)
		if (rule_is(&t->r[i], kind, from, fromlen, hash))
			return &t->r[i];
	return NULL;
}

/* As upstream: a name's rule given again replaces the old one, a hash's
 * first rule stays. */
static void
rule_add(struct tp *tp, enum tr_kind kind, const uint8_t *from,
    size_t fromlen, uint64_t hash, const uint8_t *to, size_t tolen)
{
	struct tp_translation *t = tp->translation;
	struct tr_rule *r;

	if (t == NULL && (t = tp->translation = calloc(1, sizeof(*t))) ==
	    NULL)
		return;
	if ((r = rule_find(t, kind, (const char *)from, fromlen, hash)) !=
	    NULL) {
		if (from != NULL)
			tp_setstr(&r->to, (const char *)to, tolen);
		return;
	}
	if (tp_grow((void **)&t->r, &t->cap, t->n, sizeof(*t->r)) == -1)
		return;
	r = &t->r[t->n];
	memset(r, 0, sizeof(*r));
	r->kind = kind;
	r->hash = hash;
	if (from != NULL)
		r->from = tp_strndup((const char *)from, fromlen);
	r->to = tp_strndup((const char *)to, tolen);
	if ((from != NULL && r->from == NULL) || r->to == NULL ||
	    tp_hash_put(&t->by_key, rule_key(kind, r->from, fromlen, hash),
	    t->n) == -1) {
		free(r->from);
		free(r->to);
		return;
	}
	t->n++;
}

/* The entries of one map<K, string> (key 1, value 2): string keys when
 * by_name, else integer ones. */
static void
rules_untrusted(struct tp *tp, enum tr_kind kind, int by_name,
    const uint8_t *buf, size_t len)
{
	struct pb it, e;
	struct pb_field f, ef;

	pb_init(&it, buf, len);
	while (pb_next_untrusted(&it, &f) == 1) {
		const uint8_t *from = NULL, *to = (const uint8_t *)"";
		size_t fromlen = 0, tolen = 0;
		uint64_t hash = 0;

		if (f.id != 1 || f.wire != PB_LEN)
			continue;
		pb_init(&e, f.data, f.len);
		while (pb_next_untrusted(&e, &ef) == 1) {
			if (ef.id == 1 && by_name && ef.wire == PB_LEN) {
				from = ef.data;
				fromlen = ef.len;
			} else if (ef.id == 1 && !by_name &&
			    ef.wire == PB_VARINT)
				hash = ef.u;
			else if (ef.id == 2 && ef.wire == PB_LEN) {
				to = ef.data;
				tolen = ef.len;
			}
		}
		if (e.err) {
			tp_stat_inc(tp, ST_PROTO_DECODE_ERRORS, 1);
			continue;
		}
		/* A map's absent key is its default: "" or 0. */
		rule_add(tp, kind, by_name && from == NULL ?
		    (const uint8_t *)"" : from, fromlen, hash, to, tolen);
	}
}

void
tp_translation_untrusted(struct tp *tp, const uint8_t *buf, size_t len)
{
	struct pb it;
	struct pb_field f, table[7];

	/* One table a packet (a oneof); upstream takes the first of its
	 * list that is set. */
	memset(table, 0, sizeof(table));
	pb_init(&it, buf, len);
	while (pb_next_untrusted(&it, &f) == 1)
		if (f.id >= 1 && f.id <= 6 && f.wire == PB_LEN)
			table[f.id] = f;
	if (table[1].id != 0 || table[2].id != 0 || table[3].id != 0)
		return;
	if (table[4].id != 0)
		rules_untrusted(tp, TR_SLICE_NAME, 1, table[4].data,
		    table[4].len);
	else if (table[5].id != 0)
		rules_untrusted(tp, TR_PROCESS_TRACK_NAME, 1, table[5].data,
		    table[5].len);
	else if (table[6].id != 0)
		rules_untrusted(tp, TR_CHROME_STUDY, 0, table[6].data,
		    table[6].len);
}

static const char *
name_translate(struct tp *tp, enum tr_kind kind, const char *name)
{
	struct tr_rule *r;

	if (name == NULL || tp->translation == NULL)
		return name;
	r = rule_find(tp->translation, kind, name, strlen(name), 0);
	return r != NULL ? r->to : name;
}

const char *
tp_translate_slice_name(struct tp *tp, const char *name)
{
	return name_translate(tp, TR_SLICE_NAME, name);
}

const char *
tp_translate_process_track_name(struct tp *tp, const char *name)
{
	return name_translate(tp, TR_PROCESS_TRACK_NAME, name);
}

const char *
tp_translate_chrome_study(struct tp *tp, uint64_t hash)
{
	struct tr_rule *r = rule_find(tp->translation, TR_CHROME_STUDY, NULL,
	    0, hash);

	return r != NULL ? r->to : NULL;
}

void
tp_translation_free(struct tp *tp)
{
	struct tp_translation *t = tp->translation;

	if (t == NULL)
		return;
	while (t->n > 0) {
		t->n--;
		free(t->r[t->n].from);
		free(t->r[t->n].to);
	}
	free(t->r);
	tp_hash_free(&t->by_key);
	free(t);
	tp->translation = NULL;
}
