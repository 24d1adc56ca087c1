/*
 * traced_perf's samples (PerfSample), as upstream: each sequence is a perf
 * session; each sample a perf_sample row with its thread, cpu, mode and
 * callstack, and its counter values on per-cpu counter tracks of the
 * session, named after what they count (the sequence's
 * PerfSampleDefaults: a timebase and its followers).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pbdec.h"
#include "tp_hash.h"
#include "tp_int.h"
#include "tp_proto.h"

#define NAME_LEN	160
#define MAX_FOLLOWERS	64

/* PerfEvents.Counter as the perf tool names them. */
static const char *const counter_names[] = {
	[1] = "cpu-clock", [2] = "page-faults", [3] = "task-clock",
	[4] = "context-switches", [5] = "cpu-migrations",
	[6] = "minor-faults", [7] = "major-faults", [8] = "alignment-faults",
	[9] = "emulation-faults", [10] = "cpu-cycles", [11] = "instructions",
	[12] = "cache-references", [13] = "cache-misses",
	[14] = "branch-instructions", [15] = "branch-misses",
	[16] = "bus-cycles", [17] = "stalled-cycles-frontend",
	[18] = "stalled-cycles-backend", [19] = "ref-cycles",
	[20] = "dummy",
};
#define NCOUNTERS	(sizeof(counter_names) / sizeof(counter_names[0]))

static const char *const cpu_modes[] = {
	"unknown", "kernel", "user", "hypervisor", "guest_kernel", "guest_user",
};
static const char *const unwind_errors[] = {
	"unknown", "none", "memory_invalid", "unwind_info", "unsupported",
	"invalid_map", "max_frames_exceeded", "repeated_frame", "invalid_elf",
	"system_call", "thread_timeout", "thread_does_not_exist", "bad_arch",
	"maps_parse", "invalid_parameter", "ptrace_call",
};

/* A sequence's stream on one cpu: its counters' tracks. */
struct stream {
	uint32_t	 seq, cpu;
	int64_t		 session;
	int64_t		 timebase;
	int64_t		*followers;
	size_t		 nfollowers;
};

struct tp_fperf {
	struct tp_hash	 sessions;	/* seq -> session id */
	int64_t		 nsessions;
	struct tp_hash	 by_cpu;	/* seq << 32 | cpu -> streams[] */
	struct stream	*streams;
	size_t		 nstreams, capstreams;
	int64_t		 nsamples;
};

static const char *
counter_name(uint64_t c)
{
	return c < NCOUNTERS && counter_names[c] != NULL ? counter_names[c] :
	    "unknown";
}

/*
 * What a timebase or follower counts, as upstream names it: its name if
 * given, else the counter, tracepoint or raw event; with the perf tool's
 * modifier suffix (":u", ":k", ":h"). The fields of each message: name,
 * counter, tracepoint, raw_event, modifiers.
 */
struct event_fields {
	uint32_t	 name, counter, tracepoint, raw, modifiers;
};
static const struct event_fields timebase_fields = { 10, 4, 3, 5, 12 };
static const struct event_fields follower_fields = { 4, 1, 2, 3, 5 };

static void
event_name(const uint8_t *buf, size_t len, const struct event_fields *ef,
    char *out, size_t size)
{
	struct pb it, sub;
	struct pb_field f, sf;
	uint64_t raw[4] = { 0 }, mv[8];
	const char *tp_name = NULL;
	size_t tp_len = 0, n, i, nmv;
	int has_counter = 0, has_tp = 0, has_raw = 0;
	uint64_t counter = 0;
	char mods[4] = { 0 };
	int nmods = 0, named = 0;

	out[0] = '\0';
	pb_init(&it, buf, len);
	while (pb_next_untrusted(&it, &f) == 1) {
		if (f.id == ef->name && f.wire == PB_LEN && f.len > 0) {
			snprintf(out, size, "%.*s", (int)f.len,
			    (const char *)f.data);
			named = 1;
		} else if (f.id == ef->counter && f.wire == PB_VARINT) {
			has_counter = 1;
			counter = f.u;
		} else if (f.id == ef->tracepoint && f.wire == PB_LEN) {
			/* Tracepoint: name 1 */
			has_tp = 1;
			pb_init(&sub, f.data, f.len);
			while (pb_next_untrusted(&sub, &sf) == 1)
				if (sf.id == 1 && sf.wire == PB_LEN) {
					tp_name = (const char *)sf.data;
					tp_len = sf.len;
				}
		} else if (f.id == ef->raw && f.wire == PB_LEN) {
			/* RawEvent: type 1, config 2, config1 3, config2 4 */
			has_raw = 1;
			pb_init(&sub, f.data, f.len);
			while (pb_next_untrusted(&sub, &sf) == 1)
				if (sf.id >= 1 && sf.id <= 4 &&
				    sf.wire == PB_VARINT)
					raw[sf.id - 1] = sf.u;
		}
	}
	/* EVENT_MODIFIER_COUNT_USERSPACE 1, _KERNEL 2, _HYPERVISOR 3 */
	nmv = pb_repeated_varint_untrusted(buf, len, ef->modifiers, mv, 8);
	for (i = 0; i < nmv && nmods < 3; i++)
		if (mv[i] >= 1 && mv[i] <= 3)
			mods[nmods++] = "ukh"[mv[i] - 1];
	if (!named) {
		if (has_counter)
			snprintf(out, size, "%s", counter_name(counter));
		else if (has_tp)
			snprintf(out, size, "%.*s", (int)tp_len,
			    tp_name != NULL ? tp_name : "");
		else if (has_raw)
			snprintf(out, size, "raw.0x%" PRIx32 ".0x%" PRIx64
			    ".0x%" PRIx64 ".0x%" PRIx64, (uint32_t)raw[0],
			    raw[1], raw[2], raw[3]);
		else
			snprintf(out, size, "unknown");
	}
	if (nmods > 0 && (n = strlen(out)) + 2 < size)
		snprintf(out + n, size - n, ":%s", mods);
}

static int64_t
counter_track(struct tp *tp, uint32_t cpu, int64_t session, const char *name,
    int timebase)
{
	struct tp_dim dims[2] = { { "perf_session_id", NULL, session },
	    { "name", name, 0 } };
	int64_t track = tp_track_intern_dimv(tp, TT_CPU_COUNTER, NULL, name, cpu,
	    dims, 2, NULL);
	struct tp_track *t;

	if (track < 0)
		return -1;
	tp_track_kind(tp, track, "perf_cpu_counter");
	t = &tp->tracks[track];
	if (t->source_arg_set_id == TP_NULL)
		tp_arg_int(tp, tp_track_source_set(tp, track), "is_timebase",
		    "is_timebase", timebase, "bool");
	return track;
}

static int64_t
session_get(struct tp *tp, struct tp_fperf *p, uint32_t seq)
{
	uint64_t *v = tp_hash_get(&p->sessions, seq);
	struct tp_val *r;
	int64_t id;

	if (v != NULL)
		return (int64_t)*v;
	id = p->nsessions++;
	r = tp_row_new(tp, SQ_PERF_SESSION);
	tp_val_int(&r[0], id);
	tp_val_int(&r[1], id);
	(void)tp_hash_put(&p->sessions, seq, (uint64_t)id);
	return id;
}

/* The sequence's stream on cpu, its tracks made from the defaults (none:
 * an old producer, whose timebase was the cpu timer). PerfSampleDefaults:
 * timebase 1, followers 4. */
static struct stream *
stream_get(struct tp *tp, struct tp_fperf *p, const struct tp_gen *g,
    uint32_t seq, uint32_t cpu)
{
	uint64_t key = (uint64_t)seq << 32 | cpu, *v;
	char name[NAME_LEN];
	struct stream *s;
	struct pb it;
	struct pb_field f;

	if ((v = tp_hash_get(&p->by_cpu, key)) != NULL)
		return &p->streams[*v];
	if (p->nstreams == p->capstreams) {
		size_t ncap = p->capstreams ? p->capstreams * 2 : 8;
		void *np = realloc(p->streams, ncap * sizeof(*p->streams));

		if (np == NULL)
			return NULL;
		p->streams = np;
		p->capstreams = ncap;
	}
	s = &p->streams[p->nstreams];
	memset(s, 0, sizeof(*s));
	s->seq = seq;
	s->cpu = cpu;
	s->session = session_get(tp, p, seq);
	snprintf(name, sizeof(name), "%s", counter_name(1));
	if (g != NULL && g->perf_defaults != NULL) {
		name[0] = '\0';
		pb_init(&it, g->perf_defaults, g->perf_defaults_len);
		while (pb_next_untrusted(&it, &f) == 1)
			if (f.id == 1 && f.wire == PB_LEN)
				event_name(f.data, f.len, &timebase_fields,
				    name, sizeof(name));
		if (name[0] == '\0')
			event_name(NULL, 0, &timebase_fields, name,
			    sizeof(name));
	}
	s->timebase = counter_track(tp, cpu, s->session, name, 1);
	if (g != NULL && g->perf_defaults != NULL) {
		pb_init(&it, g->perf_defaults, g->perf_defaults_len);
		while (pb_next_untrusted(&it, &f) == 1) {
			int64_t *nf;

			if (f.id != 4 || f.wire != PB_LEN ||
			    s->nfollowers == MAX_FOLLOWERS ||
			    (nf = realloc(s->followers, (s->nfollowers + 1) *
			    sizeof(*nf))) == NULL)
				continue;
			s->followers = nf;
			event_name(f.data, f.len, &follower_fields, name,
			    sizeof(name));
			nf[s->nfollowers++] = counter_track(tp, cpu,
			    s->session, name, 0);
		}
	}
	(void)tp_hash_put(&p->by_cpu, key, p->nstreams);
	return &p->streams[p->nstreams++];
}

/*
 * PerfSample: cpu 1, pid 2, tid 3, callstack_iid 4, cpu_mode 5,
 * timebase_count 6, follower_counts 7, unwind_error 16,
 * kernel_records_lost 17, sample_skipped_reason 18, producer_event 19.
 */
void
tp_perf_sample(struct tp *tp, const struct tp_gen *g, uint32_t seq,
    int64_t ts, const uint8_t *buf, size_t len)
{
	struct tp_fperf *p;
	struct stream *s;
	struct pb it;
	struct pb_field f;
	struct tp_val *r;
	uint64_t v[20] = { 0 }, has = 0, fc[MAX_FOLLOWERS];
	size_t nfc, i;
	int64_t utid, upid, callsite = TP_NULL;
	const char *mode, *uerr = NULL;

	if ((p = tp->fperf) == NULL) {
		if ((p = tp->fperf = calloc(1, sizeof(*p))) == NULL)
			return;
		tp_hash_init(&p->sessions);
		tp_hash_init(&p->by_cpu);
	}
	pb_init(&it, buf, len);
	while (pb_next_untrusted(&it, &f) == 1) {
		if (f.id < 20 && f.wire == PB_VARINT) {
			v[f.id] = f.u;
			has |= 1u << f.id;
		} else if (f.id == 19) {
			has |= 1u << 19;
		}
	}
	if (it.err) {
		tp_stat_inc(tp, ST_PROTO_DECODE_ERRORS, 1);
		return;
	}
	if ((s = stream_get(tp, p, g, seq, (uint32_t)v[1])) == NULL)
		return;
	/* Not samples: lost kernel records, and the profiler's events. */
	if (v[17] > 0) {
		int64_t lost = 0;

		(void)tp_stat_get_indexed(tp, ST_PERF_CPU_LOST_RECORDS,
		    (int64_t)(uint32_t)v[1], &lost);
		tp_stat_set_indexed(tp, ST_PERF_CPU_LOST_RECORDS,
		    (int64_t)(uint32_t)v[1], lost + (int64_t)v[17]);
		return;
	}
	if (has & (1u << 19))
		return;
	/* PROFILER_SKIP_READ_STAGE 1, _UNWIND_STAGE 2, _UNWIND_ENQUEUE 3 */
	if ((has & (1u << 18)) && (v[18] == 1 || v[18] == 2))
		tp_stat_inc(tp, ST_PERF_SAMPLES_SKIPPED, 1);
	else if ((has & (1u << 18)) && v[18] == 3)
		tp_stat_inc(tp, ST_PERF_SAMPLES_SKIPPED_DATALOSS, 1);
	if (has & (1u << 6))
		tp_counter_insert(tp, ts, s->timebase, (double)v[6], TP_NULL);
	nfc = pb_repeated_varint_untrusted(buf, len, 7, fc, s->nfollowers);
	for (i = 0; i < nfc; i++)
		tp_counter_insert(tp, ts, s->followers[i], (double)fc[i],
		    TP_NULL);
	utid = tp_thread_in_process(tp, (int64_t)(uint32_t)v[3],
	    (int64_t)(uint32_t)v[2]);
	upid = tp_process_get(tp, (int64_t)(uint32_t)v[2]);
	if (has & (1u << 4)) {
		callsite = tp_stack_profile_callsite(tp, g, upid, v[4]);
		if (callsite < 0)
			callsite = TP_NULL;
	}
	/* Upstream's perf_sample shows no mode as "unknown" too. */
	mode = v[5] < sizeof(cpu_modes) / sizeof(cpu_modes[0]) ?
	    cpu_modes[v[5]] : "unknown";
	if (has & (1u << 16))
		uerr = v[16] < sizeof(unwind_errors) /
		    sizeof(unwind_errors[0]) ? unwind_errors[v[16]] :
		    "unknown";
	r = tp_row_new(tp, SQ_PERF_SAMPLE);
	tp_val_int(&r[0], p->nsamples++);
	tp_val_int(&r[1], ts);
	tp_val_int(&r[2], utid);
	tp_val_int(&r[3], (int64_t)(uint32_t)v[1]);
	(void)tp_val_str(tp, SQ_PERF_SAMPLE, &r[4], mode, strlen(mode));
	tp_val_i64n(&r[5], callsite);
	if (uerr != NULL)
		(void)tp_val_str(tp, SQ_PERF_SAMPLE, &r[6], uerr, strlen(uerr));
	tp_val_int(&r[7], s->session);
}

void
tp_perf_sample_free(struct tp *tp)
{
	struct tp_fperf *p = tp->fperf;
	size_t i;

	if (p == NULL)
		return;
	for (i = 0; i < p->nstreams; i++)
		free(p->streams[i].followers);
	free(p->streams);
	tp_hash_free(&p->sessions);
	tp_hash_free(&p->by_cpu);
	free(p);
	tp->fperf = NULL;
}
