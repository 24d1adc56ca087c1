/*
 * CpuInfo packets: each cpu's processor name and capacity for the cpu
 * table, and its cluster, worked out as upstream's does: cpus ranked by
 * capacity when every cpu has one, else by their highest frequency, a
 * new cluster at each step up; 0 for all when neither is known.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pbdec.h"
#include "tp_int.h"

/* The feature bits upstream names, by bit (an append-only list). */
static const char *const features[] = { "mte", "mte3" };
#define NFEATURES	(sizeof(features) / sizeof(features[0]))

struct cpu_in {
	const uint8_t	*proc;
	size_t		 proclen;
	const uint8_t	*arm_id;	/* ArmCpuIdentifier, NULL: none */
	size_t		 arm_idlen;
	uint64_t	 features;
	int64_t		 capacity;	/* -1: none */
	uint32_t	 max_freq;	/* 0: no frequencies */
	int64_t		 key;		/* what the clusters rank by */
	size_t		 cpu;
	int64_t		 args;		/* arg set, TP_NULL: none */
};

static int
cpu_in_cmp(const void *a, const void *b)
{
	const struct cpu_in *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return (x->cpu > y->cpu) - (x->cpu < y->cpu);
}

/*
 * A cpu's args, as upstream keeps them: its Arm MIDR fields, each known
 * feature bit and the raw feature bitmap. TP_NULL when it has none.
 */
static int64_t
cpu_args(struct tp *tp, const struct cpu_in *c)
{
	static const char *const midr[] = { NULL, "arm_cpu_implementer",
	    "arm_cpu_architecture", "arm_cpu_variant", "arm_cpu_part",
	    "arm_cpu_revision" };
	int64_t vals[6] = { 0 };
	struct pb it;
	struct pb_field f;
	char key[64];
	int64_t set = TP_NULL;
	size_t i;

	if (c->arm_id != NULL) {
		pb_init(&it, c->arm_id, c->arm_idlen);
		while (pb_next_untrusted(&it, &f) == 1)
			if (f.id >= 1 && f.id <= 5 && f.wire == PB_VARINT)
				vals[f.id] = (uint32_t)f.u;
		set = tp_arg_set_new(tp);
		for (i = 1; i <= 5; i++)
			tp_arg_int(tp, set, midr[i], midr[i], vals[i], "uint");
	}
	for (i = 0; i < NFEATURES; i++) {
		if (!(c->features & (1ULL << i)))
			continue;
		if (set == TP_NULL)
			set = tp_arg_set_new(tp);
		snprintf(key, sizeof(key), "cpu_features.%s", features[i]);
		tp_arg_int(tp, set, key, key, 1, "bool");
	}
	if (c->features != 0) {
		if (set == TP_NULL)
			set = tp_arg_set_new(tp);
		tp_arg_int(tp, set, "cpu_features.raw_bitmap",
		    "cpu_features.raw_bitmap", (int64_t)c->features, "uint");
	}
	if ((c->features >> NFEATURES) != 0)
		tp_import_log(tp, ST_CPU_INFO_UNKNOWN_CPU_FEATURES, TP_NULL,
		    TP_NULL, TP_NULL);
	return set;
}

void
tp_cpu_info_untrusted(struct tp *tp, const uint8_t *buf, size_t len)
{
	struct cpu_in *v = NULL, *nv;
	struct pb it, ct;
	struct pb_field f, cf;
	struct pb_packed fp;
	uint64_t fv;
	size_t n = 0, i;
	int caps = 1, freqs = 1;
	int64_t cluster = 0, prev;

	pb_init(&it, buf, len);
	while (pb_next_untrusted(&it, &f) == 1) {
		if (f.id != 1 || f.wire != PB_LEN)
			continue;
		if (n == TP_MAX_CPUS || (nv = realloc(v, (n + 1) *
		    sizeof(*v))) == NULL)
			break;
		v = nv;
		memset(&v[n], 0, sizeof(v[n]));
		v[n].capacity = -1;
		v[n].cpu = n;
		pb_init(&ct, f.data, f.len);
		while (pb_next_untrusted(&ct, &cf) == 1) {
			if (cf.id == 1 && cf.wire == PB_LEN) {
				v[n].proc = cf.data;
				v[n].proclen = cf.len;
			} else if (cf.id == 2 && cf.wire == PB_VARINT) {
				if ((uint32_t)cf.u > v[n].max_freq)
					v[n].max_freq = (uint32_t)cf.u;
			} else if (cf.id == 2 && cf.wire == PB_LEN) {
				/* packed frequencies */
				pb_packed_init(&fp, &cf);
				while (pb_packed_varint_untrusted(&fp, &fv) == 1)
					if ((uint32_t)fv > v[n].max_freq)
						v[n].max_freq = (uint32_t)fv;
			} else if (cf.id == 3 && cf.wire == PB_VARINT) {
				v[n].capacity = (uint32_t)cf.u;
			} else if (cf.id == 4 && cf.wire == PB_LEN) {
				v[n].arm_id = cf.data;
				v[n].arm_idlen = cf.len;
			} else if (cf.id == 5 && cf.wire == PB_VARINT)
				v[n].features = cf.u;
		}
		caps &= v[n].capacity >= 0;
		freqs &= v[n].max_freq > 0;
		n++;
	}
	if (n == 0 || it.err) {
		free(v);
		return;
	}
	for (i = 0; i < n; i++) {
		v[i].key = caps ? v[i].capacity : freqs ? v[i].max_freq : 0;
		v[i].args = cpu_args(tp, &v[i]);
	}
	qsort(v, n, sizeof(*v), cpu_in_cmp);
	prev = v[0].key;
	for (i = 0; i < n; i++) {
		if (v[i].key > prev) {
			prev = v[i].key;
			cluster++;
		}
		tp_cpu_set_info(tp, (int64_t)v[i].cpu, (const char *)v[i].proc,
		    v[i].proclen, cluster, v[i].capacity,
		    tp_arg_set_done(tp, v[i].args));
	}
	free(v);
}
