/*
 * libfaro through the real path: a private traced, libfaro in this
 * process on its own thread, a test consumer reading the trace back and
 * decoding it with our protos. Checks TrackEvent structure (interning,
 * nesting, counters, flows, annotations, descriptors), category
 * filtering, custom data sources with several sessions at once,
 * reconnection after traced restarts, and the drop policy.
 */
#include "config.h"

#include <sys/wait.h>

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <check.h>
#include <event2/event.h>

#include <faro/faro.h>
#include <faro/data_source.h>
#include <faro/track_event.h>

#include "protos/perfetto/ipc/consumer_port.pb-c.h"
#include "cc_tp.h"
#include "traced_test.h"

#define TEST_CATEGORIES(C)						\
	C(ta, "test.a", "enabled by name", NULL)			\
	C(tb, "test.b", "disabled by name", NULL)			\
	C(tslow, "test.slow", "tagged slow", "slow")			\
	C(other, "other.x", "matched by a pattern", NULL)

FARO_TE_CATEGORIES_DECLARE(TEST_CATEGORIES)
FARO_TE_CATEGORIES_DEFINE(TEST_CATEGORIES)

static struct tt_traced		 td;
static struct event_base	*base;
static char			 linkdir[64], sockpath[128];

/* libfaro reaches traced through a symlink, so a restarted traced (new
 * directory) is found at the same path. */
static void
point_link(void)
{
	unlink(sockpath);
	ck_assert_int_eq(symlink(td.producer_sock, sockpath), 0);
}

static void
setup(void)
{
	signal(SIGPIPE, SIG_IGN);
	ck_assert_int_eq(tt_traced_start(&td, NULL), 0);
	base = event_base_new();
	snprintf(linkdir, sizeof(linkdir), "/tmp/faro-client.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(linkdir));
	snprintf(sockpath, sizeof(sockpath), "%s/producer", linkdir);
	point_link();
}

static void
teardown(void)
{
	if (td.pid > 0)
		(void)kill(td.pid, SIGCONT);	/* a test failed while paused */
	faro_shutdown();
	unlink(sockpath);
	rmdir(linkdir);
	event_base_free(base);
	ck_assert_int_eq(tt_traced_stop(&td), 0);
}

static void
init_faro(uint32_t smb_size, uint32_t stall_max_ms)
{
	struct faro_init_args a = { .struct_size = sizeof(a) };
	const char *cause = NULL;

	a.producer_name = "check_client";
	a.socket = sockpath;
	a.smb_size = smb_size;
	a.stall_max_ms = stall_max_ms;
	ck_assert_msg(faro_init(&a, &cause) == 0, "faro_init: %s", cause);
	ck_assert_int_eq(FARO_TE_REGISTER(TEST_CATEGORIES), 0);
}

static int
wait_cond(int (*fn)(void), int ms)
{
	for (int i = 0; i < ms / 10; i++) {
		if (fn())
			return 0;
		tt_spin(base, 10);
	}
	return -1;
}

static int cat_a_on(void) { return faro_cat_ta.enabled != 0; }
static int cat_a_off(void) { return faro_cat_ta.enabled == 0; }
static int cat_a_both(void) { return faro_cat_ta.enabled == 3; }
static int is_connected(void) { return faro_connected(); }

/* A session with track_event (enabled/disabled categories) and extras. */
static Perfetto__Protos__TraceConfig *
te_config(uint32_t kb, const char *const *enabled, const char *const *disabled)
{
	static const char *const names[] = { "track_event", NULL };
	Perfetto__Protos__TraceConfig *cfg = tt_config_new(kb, 1, names);
	Perfetto__Protos__TrackEventConfig *te = calloc(1, sizeof(*te));
	size_t n;

	perfetto__protos__track_event_config__init(te);
	for (n = 0; enabled != NULL && enabled[n] != NULL; n++)
		;
	te->n_enabled_categories = n;
	te->enabled_categories = (char **)enabled;
	for (n = 0; disabled != NULL && disabled[n] != NULL; n++)
		;
	te->n_disabled_categories = n;
	te->disabled_categories = (char **)disabled;
	cfg->data_sources[0]->config->track_event_config = te;
	return cfg;
}

static void
config_free(Perfetto__Protos__TraceConfig *cfg)
{
	for (size_t i = 0; i < cfg->n_data_sources; i++) {
		free(cfg->data_sources[i]->config->track_event_config);
		cfg->data_sources[i]->config->track_event_config = NULL;
	}
	tt_config_free(cfg);
}

/* ---- decoding ---- */

#define MAXSEQ	16
#define MAXIID	64

struct seqstate {
	uint32_t	 id;
	char		*names[MAXIID], *cats[MAXIID], *dnames[MAXIID];
	int		 depth, maxdepth, cleared;
};

struct summary {
	struct seqstate	 seq[MAXSEQ];
	int		 nseq;
	int		 begins, ends, instants, counters_int, counters_dbl;
	int		 flows, term_flows, unresolved, bad_nesting;
	int		 named[8];	/* counts of the names below */
	int		 cat_b, cat_slow, cat_other;
	int		 dict_ok, ann_int, ann_str, ann_ptr, ann_bool, ann_dbl;
	int		 thread_desc, process_desc, custom_desc, counter_desc;
	int		 first_on_seq, dropped_marks;
	int64_t		 last_int_counter;
	int		 test_packets;
	int		 before_state;
	int		 resets;	/* SEQ_INCREMENTAL_STATE_CLEARED */
};

static const char *const watch[] = { "outer", "inner", "instant",
    "complete", "scoped", "dyn-7", NULL };

static struct seqstate *
seq_of(struct summary *s, uint32_t id)
{
	for (int i = 0; i < s->nseq; i++)
		if (s->seq[i].id == id)
			return &s->seq[i];
	ck_assert_int_lt(s->nseq, MAXSEQ);
	s->seq[s->nseq].id = id;
	return &s->seq[s->nseq++];
}

static void
summarize(struct summary *s, const Perfetto__Protos__Trace *t)
{
	memset(s, 0, sizeof(*s));
	for (size_t i = 0; i < t->n_packet; i++) {
		const Perfetto__Protos__TracePacket *p = t->packet[i];
		const Perfetto__Protos__InternedData *in = p->interned_data;
		const Perfetto__Protos__TrackEvent *e;
		struct seqstate *q;
		const char *name = NULL, *cat = NULL;

		if (p->data_case ==
		    PERFETTO__PROTOS__TRACE_PACKET__DATA_FOR_TESTING) {
			s->test_packets++;
			continue;
		}
		if (p->optional_trusted_packet_sequence_id_case !=
		    PERFETTO__PROTOS__TRACE_PACKET__OPTIONAL_TRUSTED_PACKET_SEQUENCE_ID_TRUSTED_PACKET_SEQUENCE_ID)
			continue;
		q = seq_of(s, p->trusted_packet_sequence_id);
		if (p->has_first_packet_on_sequence &&
		    p->first_packet_on_sequence)
			s->first_on_seq++;
		if (p->has_previous_packet_dropped &&
		    p->previous_packet_dropped)
			s->dropped_marks++;
		if (p->has_sequence_flags && (p->sequence_flags & 1)) {
			s->resets++;
			memset(q->names, 0, sizeof(q->names));
			memset(q->cats, 0, sizeof(q->cats));
			memset(q->dnames, 0, sizeof(q->dnames));
			q->cleared = 1;
		}
		if (in != NULL) {
			for (size_t k = 0; k < in->n_event_names; k++)
				if (in->event_names[k]->iid < MAXIID)
					q->names[in->event_names[k]->iid] =
					    in->event_names[k]->name;
			for (size_t k = 0; k < in->n_event_categories; k++)
				if (in->event_categories[k]->iid < MAXIID)
					q->cats[in->event_categories[k]->iid] =
					    in->event_categories[k]->name;
			for (size_t k = 0; k < in->n_debug_annotation_names;
			    k++)
				if (in->debug_annotation_names[k]->iid <
				    MAXIID)
					q->dnames[in->debug_annotation_names[k]->iid] =
					    in->debug_annotation_names[k]->name;
		}
		if (p->data_case ==
		    PERFETTO__PROTOS__TRACE_PACKET__DATA_TRACK_DESCRIPTOR) {
			const Perfetto__Protos__TrackDescriptor *d =
			    p->track_descriptor;

			if (d->thread != NULL)
				s->thread_desc++;
			else if (d->process != NULL)
				s->process_desc++;
			else if (d->counter != NULL)
				s->counter_desc++;
			else
				s->custom_desc++;
			continue;
		}
		if (p->data_case != PERFETTO__PROTOS__TRACE_PACKET__DATA_TRACK_EVENT)
			continue;
		e = p->track_event;
		if (!q->cleared) {
			/* State lost to a ring buffer's wrap: unreadable. */
			s->before_state++;
			continue;
		}
		if (e->name_field_case ==
		    PERFETTO__PROTOS__TRACK_EVENT__NAME_FIELD_NAME_IID) {
			name = e->name_iid < MAXIID ? q->names[e->name_iid] :
			    NULL;
			if (name == NULL)
				s->unresolved++;
		} else if (e->name_field_case ==
		    PERFETTO__PROTOS__TRACK_EVENT__NAME_FIELD_NAME)
			name = e->name;
		if (e->n_category_iids > 0) {
			cat = e->category_iids[0] < MAXIID ?
			    q->cats[e->category_iids[0]] : NULL;
			if (cat == NULL)
				s->unresolved++;
		}
		if (cat != NULL && strcmp(cat, "test.b") == 0)
			s->cat_b++;
		if (cat != NULL && (strcmp(cat, "test.slow") == 0 ||
		    strcmp(cat, "example.verbose") == 0))
			s->cat_slow++;
		if (cat != NULL && strcmp(cat, "other.x") == 0)
			s->cat_other++;
		for (int k = 0; name != NULL && watch[k] != NULL; k++)
			if (strcmp(name, watch[k]) == 0)
				s->named[k]++;
		switch (e->type) {
		case PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_BEGIN:
			s->begins++;
			if (!e->has_track_uuid && ++q->depth > q->maxdepth)
				q->maxdepth = q->depth;
			break;
		case PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_END:
			s->ends++;
			if (!e->has_track_uuid && --q->depth < 0) {
				s->bad_nesting++;	/* an end without begin */
				q->depth = 0;
			}
			break;
		case PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_INSTANT:
			s->instants++;
			break;
		case PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_COUNTER:
			if (e->counter_value_field_case ==
			    PERFETTO__PROTOS__TRACK_EVENT__COUNTER_VALUE_FIELD_COUNTER_VALUE) {
				s->counters_int++;
				s->last_int_counter = e->counter_value;
			} else
				s->counters_dbl++;
			break;
		default:
			break;
		}
		s->flows += (int)e->n_flow_ids;
		s->term_flows += (int)e->n_terminating_flow_ids;
		for (size_t k = 0; k < e->n_debug_annotations; k++) {
			const Perfetto__Protos__DebugAnnotation *a =
			    e->debug_annotations[k];
			const char *an = NULL;

			if (a->name_field_case ==
			    PERFETTO__PROTOS__DEBUG_ANNOTATION__NAME_FIELD_NAME_IID)
				an = a->name_iid < MAXIID ?
				    q->dnames[a->name_iid] : NULL;
			if (an == NULL) {
				s->unresolved++;
				continue;
			}
			if (strcmp(an, "n") == 0 && a->value_case ==
			    PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_INT_VALUE)
				s->ann_int++;
			if (strcmp(an, "s") == 0 && a->value_case ==
			    PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_STRING_VALUE &&
			    strcmp(a->string_value, "str") == 0)
				s->ann_str++;
			if (strcmp(an, "p") == 0 && a->value_case ==
			    PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_POINTER_VALUE)
				s->ann_ptr++;
			if (strcmp(an, "b") == 0 && a->value_case ==
			    PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_BOOL_VALUE)
				s->ann_bool++;
			if (strcmp(an, "d") == 0 && a->value_case ==
			    PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_DOUBLE_VALUE &&
			    a->double_value == 2.5)
				s->ann_dbl++;
			if (strcmp(an, "dict") == 0 && a->n_dict_entries == 2 &&
			    strcmp(a->dict_entries[0]->name, "k") == 0 &&
			    a->dict_entries[0]->uint_value == 9 &&
			    a->dict_entries[1]->n_dict_entries == 1)
				s->dict_ok++;
		}
	}
}

static int
nseq_te(const struct summary *s)
{
	int n = 0;

	for (int i = 0; i < s->nseq; i++)
		n += s->seq[i].cleared;
	return n;
}

static struct faro_track	 custom_track, ctr_int, ctr_dbl;

static void
emit_events(int rounds)
{
	char dyn[16];
	uint64_t t1;

	for (int i = 0; i < rounds; i++) {
		FARO_TE_BEGIN(ta, "outer", FARO_ARG_INT("n", i),
		    FARO_ARG_STRING("s", "str"), FARO_ARG_PTR("p", &dyn),
		    FARO_ARG_BOOL("b", 1), FARO_ARG_DOUBLE("d", 2.5),
		    FARO_ARG_DICT_BEGIN("dict"), FARO_ARG_UINT("k", 9),
		    FARO_ARG_DICT_BEGIN("sub"), FARO_ARG_INT("z", -1),
		    FARO_ARG_DICT_END(), FARO_ARG_DICT_END(), FARO_FLOW(1000 + i));
		FARO_TE_BEGIN(ta, "inner");
		{
			FARO_TE_SCOPED(ta, "scoped");
			FARO_TE_INSTANT(ta, "instant",
			    FARO_TERMINATING_FLOW(1000 + i));
		}
		FARO_TE_END(ta);
		FARO_TE_END(ta);
		/* A complete slice in the gap before the next event. */
		t1 = faro_now_ns();
		FARO_TE_COMPLETE(ta, "complete", t1, 1);
		while (faro_now_ns() <= t1 + 1)
			;
		snprintf(dyn, sizeof(dyn), "dyn-%d", 7);
		FARO_TE_INSTANT(ta, dyn, FARO_DYNAMIC_NAME());
		FARO_TE_INSTANT(tb, "disabled");
		FARO_TE_INSTANT(tslow, "slow");
		FARO_TE_INSTANT(other, "pattern");
		FARO_TE_BEGIN(ta, "on_track", FARO_ON_TRACK(&custom_track));
		FARO_TE_END(ta, FARO_ON_TRACK(&custom_track));
		FARO_TE_COUNTER_INT(ta, &ctr_int, i);
		FARO_TE_COUNTER_DOUBLE(ta, &ctr_dbl, i * 0.5);
	}
}

static void *
emit_thread(void *arg)
{
	emit_events((int)(intptr_t)arg);
	return NULL;
}

static void
record(Perfetto__Protos__TraceConfig *cfg, struct tt_consumer *c)
{
	ck_assert_int_eq(tt_consumer_connect(c, base, td.consumer_sock), 0);
	ck_assert_int_eq(tt_consumer_enable(c, cfg, -1), 0);
}

static void
stop_and_read(struct tt_consumer *c, struct tt_trace *t)
{
	uint8_t *data;
	size_t len;

	ck_assert_int_eq(tt_consumer_call(c, CM_DISABLE, NULL, -1, NULL,
	    0), 0);
	ck_assert_int_eq(tt_wait(base, &c->enable_done, 10000), 0);
	ck_assert_int_eq(tt_consumer_read(c, &data, &len), 0);
	ck_assert_int_eq(tt_trace_parse(t, data, len), 0);
	free(data);
}

/*
 * traced frozen (SIGSTOP) frees no chunk, so a small SMB runs out at the
 * writer's pace whatever the scheduler does: the exhausted policies are
 * then exercised on every run, not only when traced happens to be slow.
 * Returns once the kernel reports traced stopped.
 */
static void
traced_pause(void)
{
	int status;

	ck_assert_int_eq(kill(td.pid, SIGSTOP), 0);
	ck_assert_int_eq(waitpid(td.pid, &status, WUNTRACED), td.pid);
	ck_assert(WIFSTOPPED(status));
}

static void
traced_resume(void)
{
	ck_assert_int_eq(kill(td.pid, SIGCONT), 0);
}

/* From a thread: the test thread is stuck in a stalled writer. */
static void *
traced_resume_later(void *arg)
{
	usleep((useconds_t)(intptr_t)arg * 1000);
	(void)kill(td.pid, SIGCONT);
	return NULL;
}

/*
 * A flush round trip: traced answers only after it has taken the
 * producer's earlier commits, so every committed chunk is free again.
 */
static void
flush_session(struct tt_consumer *c)
{
	Perfetto__Protos__FlushRequest fr = PERFETTO__PROTOS__FLUSH_REQUEST__INIT;

	fr.has_timeout_ms = 1;
	fr.timeout_ms = 20000;
	ck_assert_int_eq(tt_consumer_call(c, CM_FLUSH, &fr.base, -1, NULL,
	    30000), 0);
}

static uint64_t
mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

START_TEST(test_track_event)
{
	static const char *const en[] = { "test.a", "other*", NULL };
	static const char *const dis[] = { "test.b", NULL };
	Perfetto__Protos__TraceConfig *cfg = te_config(4096, en, dis);
	struct tt_consumer c;
	struct tt_trace t;
	struct summary s;
	pthread_t th[3];

	init_faro(0, 0);
	faro_track_init(&custom_track, "custom", NULL);
	faro_counter_track_init(&ctr_int, "ints", "count");
	faro_counter_track_init(&ctr_dbl, "doubles", NULL);
	memset(&c, 0, sizeof(c));
	record(cfg, &c);
	ck_assert_int_eq(wait_cond(cat_a_on, 5000), 0);
	ck_assert_uint_eq(faro_cat_tb.enabled, 0);
	ck_assert_uint_eq(faro_cat_tslow.enabled, 0);
	ck_assert_uint_ne(faro_cat_other.enabled, 0);
	emit_events(50);
	for (int i = 0; i < 3; i++)
		pthread_create(&th[i], NULL, emit_thread, (void *)(intptr_t)20);
	for (int i = 0; i < 3; i++)
		pthread_join(th[i], NULL);
	stop_and_read(&c, &t);
	ck_assert_int_eq(wait_cond(cat_a_off, 5000), 0);
	summarize(&s, t.trace);
	ck_assert_int_eq(s.unresolved, 0);
	ck_assert_int_eq(s.bad_nesting, 0);
	/* 4 sequences: this thread and three workers (+ the service's). */
	ck_assert_int_eq(nseq_te(&s), 4);
	ck_assert_int_eq(s.first_on_seq, 4);
	ck_assert_int_eq(s.thread_desc, 4);
	ck_assert_int_ge(s.process_desc, 1);
	ck_assert_int_eq(s.custom_desc, 4);
	ck_assert_int_eq(s.counter_desc, 8);
	for (int i = 0; i < s.nseq; i++) {
		if (!s.seq[i].cleared)
			continue;
		ck_assert_int_eq(s.seq[i].depth, 0);
		ck_assert_int_eq(s.seq[i].maxdepth, 3);
	}
	/* Per round: outer, inner, scoped, complete, on_track begin. */
	ck_assert_int_eq(s.begins, 110 * 5);
	ck_assert_int_eq(s.ends, 110 * 5);
	ck_assert_int_eq(s.named[0], 110);	/* outer */
	ck_assert_int_eq(s.named[2], 110);	/* instant */
	ck_assert_int_eq(s.named[3], 110);	/* complete */
	ck_assert_int_eq(s.named[4], 110);	/* scoped */
	ck_assert_int_eq(s.named[5], 110);	/* dynamic name */
	ck_assert_int_eq(s.instants, 110 * 3);	/* instant, dyn, pattern */
	ck_assert_int_eq(s.cat_b, 0);
	ck_assert_int_eq(s.cat_slow, 0);
	ck_assert_int_eq(s.cat_other, 110);
	ck_assert_int_eq(s.counters_int, 110);
	ck_assert_int_eq(s.counters_dbl, 110);
	ck_assert_int_eq(s.flows, 110);
	ck_assert_int_eq(s.term_flows, 110);
	ck_assert_int_eq(s.ann_int, 110);
	ck_assert_int_eq(s.ann_str, 110);
	ck_assert_int_eq(s.ann_ptr, 110);
	ck_assert_int_eq(s.ann_bool, 110);
	ck_assert_int_eq(s.ann_dbl, 110);
	ck_assert_int_eq(s.dict_ok, 110);
	ck_assert_int_eq(s.dropped_marks, 0);
	tt_trace_free(&t);
	tt_consumer_close(&c);
	config_free(cfg);
}
END_TEST

/* ---- the same trace through our trace_processor ---- */

/* Writes a trace for trace_processor: $CC_KEEPDIR/name, else linkdir's. */
static void
save_trace(const uint8_t *data, size_t len, const char *name, char *path,
    size_t pathlen)
{
	FILE *f;

	snprintf(path, pathlen, "%s/%s", getenv("CC_KEEPDIR") ?
	    getenv("CC_KEEPDIR") : linkdir, name);
	ck_assert_ptr_nonnull(f = fopen(path, "w"));
	ck_assert_uint_eq(fwrite(data, 1, len, f), len);
	fclose(f);
}

START_TEST(test_trace_processor)
{
	static const char *const en[] = { "test.a", NULL };
	Perfetto__Protos__TraceConfig *cfg = te_config(4096, en, NULL);
	struct tt_consumer c;
	char path[128];
	uint8_t *data;
	size_t len;
	pthread_t th;

	init_faro(0, 0);
	faro_track_init(&custom_track, "custom", NULL);
	faro_counter_track_init(&ctr_int, "ints", "count");
	faro_counter_track_init(&ctr_dbl, "doubles", NULL);
	memset(&c, 0, sizeof(c));
	record(cfg, &c);
	ck_assert_int_eq(wait_cond(cat_a_on, 5000), 0);
	emit_events(10);
	pthread_create(&th, NULL, emit_thread, (void *)(intptr_t)10);
	pthread_join(th, NULL);
	ck_assert_int_eq(tt_consumer_call(&c, CM_DISABLE, NULL, -1, NULL,
	    0), 0);
	ck_assert_int_eq(tt_wait(base, &c.enable_done, 10000), 0);
	ck_assert_int_eq(tt_consumer_read(&c, &data, &len), 0);
	save_trace(data, len, "trace.pb", path, sizeof(path));
	free(data);

	/* Slices nest: scoped inside inner inside outer, on thread tracks. */
	ck_assert_int_eq(cc_tp_query(path, "select count(*) from slice s join "
	    "slice p on s.parent_id = p.id join slice g on p.parent_id = g.id "
	    "where s.name = 'scoped' and p.name = 'inner' and "
	    "g.name = 'outer' and s.depth = 2"), 20);
	ck_assert_int_eq(cc_tp_query(path, "select count(*) from slice where "
	    "name = 'outer' and category = 'test.a' and dur > 0"), 20);
	ck_assert_int_eq(cc_tp_query(path, "select count(distinct utid) from "
	    "thread_track t join slice s on s.track_id = t.id"), 2);
	ck_assert_int_eq(cc_tp_query(path, "select count(*) from slice s join "
	    "track t on s.track_id = t.id where t.name = 'custom' and "
	    "s.name = 'on_track'"), 20);
	ck_assert_int_eq(cc_tp_query(path, "select count(*) from counter c "
	    "join counter_track t on c.track_id = t.id where t.name = 'ints'"),
	    20);
	ck_assert_int_eq(cc_tp_query(path, "select count(*) from flow"), 20);
	ck_assert_int_eq(cc_tp_query(path, "select count(*) from slice where "
	    "name = 'dyn-7'"), 20);
	ck_assert_int_eq(cc_tp_query(path, "select count(*) from args a join "
	    "slice s using(arg_set_id) where s.name = 'outer' and "
	    "a.key = 'debug.dict.k' and a.int_value = 9"), 20);
	ck_assert_int_eq(cc_tp_query(path, "select count(*) from process where "
	    "name = 'check_client'"), 1);
	if (getenv("CC_KEEPDIR") == NULL)
		unlink(path);
	tt_consumer_close(&c);
	config_free(cfg);
}
END_TEST

/* ---- disable_incremental_timestamps ---- */

#define ABS_ROUNDS	50
#define ABS_EVENTS	6	/* track events per round (abs_events) */

static void
abs_events(int rounds)
{
	for (int i = 0; i < rounds; i++) {
		uint64_t t = faro_now_ns();

		FARO_TE_BEGIN(ta, "abs");
		FARO_TE_INSTANT(ta, "abs_i");
		FARO_TE_END(ta);
		FARO_TE_COMPLETE(ta, "abs_c", t, 1);
		FARO_TE_COUNTER_INT(ta, &ctr_int, i);
	}
}

static void *
abs_thread(void *arg)
{
	abs_events(ABS_ROUNDS);
	return NULL;
}

struct times {
	int	events, in_range;	/* track events; with ts in [t0, t1] */
	int	boot_defaults;		/* sequences defaulting to BOOTTIME */
	int	inc_defaults;		/* ... to the incremental clock 64 */
	int	inc_clocks;		/* snapshots of a sequence clock */
	int	other_clock;		/* packets naming a clock not BOOTTIME */
};

/* What the producer sequences of a trace say about their times. */
static void
times_of(const Perfetto__Protos__Trace *t, uint64_t t0, uint64_t t1,
    struct times *r)
{
	memset(r, 0, sizeof(*r));
	for (size_t i = 0; i < t->n_packet; i++) {
		const Perfetto__Protos__TracePacket *p = t->packet[i];
		const Perfetto__Protos__TracePacketDefaults *d =
		    p->trace_packet_defaults;

		if (p->trusted_packet_sequence_id <= 1)	/* the service's */
			continue;
		if (d != NULL && d->has_timestamp_clock_id)
			d->timestamp_clock_id == 6 ? r->boot_defaults++ :
			    r->inc_defaults++;
		if (p->data_case ==
		    PERFETTO__PROTOS__TRACE_PACKET__DATA_CLOCK_SNAPSHOT)
			for (size_t k = 0; k < p->clock_snapshot->n_clocks; k++)
				if (p->clock_snapshot->clocks[k]->clock_id >= 64)
					r->inc_clocks++;
		if (p->has_timestamp_clock_id && p->timestamp_clock_id != 6)
			r->other_clock++;
		if (p->data_case !=
		    PERFETTO__PROTOS__TRACE_PACKET__DATA_TRACK_EVENT)
			continue;
		r->events++;
		if (p->has_timestamp && p->timestamp >= t0 &&
		    p->timestamp <= t1)
			r->in_range++;
	}
}

/*
 * Two sessions at once, one with disable_incremental_timestamps: that
 * one gets BOOTTIME times whole on every packet (no clock 64, no
 * snapshot of it), the other one deltas as usual.
 */
START_TEST(test_absolute_timestamps)
{
	static const char *const en[] = { "test.a", NULL };
	Perfetto__Protos__TraceConfig *ca = te_config(4096, en, NULL);
	Perfetto__Protos__TraceConfig *ci = te_config(4096, en, NULL);
	Perfetto__Protos__TrackEventConfig *tec =
	    ca->data_sources[0]->config->track_event_config;
	struct tt_consumer ka, ki;
	struct tt_trace ta, ti;
	struct times r;
	char path[128], sql[256];
	uint64_t t0, t1;
	uint8_t *data;
	size_t len;
	pthread_t th;

	tec->has_disable_incremental_timestamps = 1;
	tec->disable_incremental_timestamps = 1;
	init_faro(0, 0);
	faro_counter_track_init(&ctr_int, "ints", "count");
	memset(&ka, 0, sizeof(ka));
	memset(&ki, 0, sizeof(ki));
	record(ca, &ka);
	record(ci, &ki);
	ck_assert_int_eq(wait_cond(cat_a_both, 5000), 0);
	t0 = faro_now_ns();
	abs_events(ABS_ROUNDS);
	pthread_create(&th, NULL, abs_thread, NULL);
	pthread_join(th, NULL);
	t1 = faro_now_ns();

	ck_assert_int_eq(tt_consumer_call(&ka, CM_DISABLE, NULL, -1, NULL,
	    0), 0);
	ck_assert_int_eq(tt_wait(base, &ka.enable_done, 10000), 0);
	ck_assert_int_eq(tt_consumer_read(&ka, &data, &len), 0);
	save_trace(data, len, "absolute.pb", path, sizeof(path));
	ck_assert_int_eq(tt_trace_parse(&ta, data, len), 0);
	free(data);
	times_of(ta.trace, t0, t1, &r);
	ck_assert_int_eq(r.events, 2 * ABS_ROUNDS * ABS_EVENTS);
	ck_assert_int_eq(r.in_range, r.events);
	ck_assert_int_eq(r.boot_defaults, 2);
	ck_assert_int_eq(r.inc_defaults, 0);
	ck_assert_int_eq(r.inc_clocks, 0);
	ck_assert_int_eq(r.other_clock, 0);
	tt_trace_free(&ta);

	stop_and_read(&ki, &ti);
	times_of(ti.trace, t0, t1, &r);
	ck_assert_int_eq(r.events, 2 * ABS_ROUNDS * ABS_EVENTS);
	ck_assert_int_eq(r.inc_defaults, 2);
	ck_assert_int_eq(r.boot_defaults, 0);
	ck_assert_int_ge(r.inc_clocks, 2);
	/* Deltas, but the app's own times (FARO_TE_COMPLETE). */
	ck_assert_int_eq(r.in_range, 2 * ABS_ROUNDS * 2);
	tt_trace_free(&ti);

	/* trace_processor places them where they happened. */
	snprintf(sql, sizeof(sql), "select count(*) from slice where name "
	    "like 'abs%%' and ts >= %llu and ts + dur <= %llu",
	    (unsigned long long)t0, (unsigned long long)t1);
	ck_assert_int_eq(cc_tp_query(path, sql), 2 * ABS_ROUNDS * 3);
	ck_assert_int_eq(cc_tp_query(path, "select count(*) from counter c "
	    "join counter_track t on c.track_id = t.id where t.name = 'ints'"),
	    2 * ABS_ROUNDS);
	if (getenv("CC_KEEPDIR") == NULL)
		unlink(path);
	tt_consumer_close(&ka);
	tt_consumer_close(&ki);
	config_free(ca);
	config_free(ci);
}
END_TEST

/* ---- arrays, dynamic categories, thread time, thread track names ---- */

static struct faro_te_category *dyn_on, *dyn_off;
static int dyn_on_enabled(void) { return dyn_on->enabled != 0; }

/* Burns some CPU so the thread time between begin and end is > 0. */
static void
burn_cpu(void)
{
	uint64_t end = faro_now_ns() + 200000;

	while (faro_now_ns() < end)
		;
}

static void *
named_thread(void *arg)
{
	faro_thread_track_name((const char *)arg);
	FARO_TE_BEGIN(ta, "worker_slice");
	burn_cpu();
	FARO_TE_END(ta);
	return NULL;
}

/* Thread time values on the sequences' events and counter descriptors. */
static void
check_thread_time(const Perfetto__Protos__Trace *t)
{
	int defaults = 0, descs = 0, values = 0;
	int64_t sum = 0;

	for (size_t i = 0; i < t->n_packet; i++) {
		const Perfetto__Protos__TracePacket *p = t->packet[i];

		if (p->trace_packet_defaults != NULL &&
		    p->trace_packet_defaults->track_event_defaults != NULL &&
		    p->trace_packet_defaults->track_event_defaults->
		    n_extra_counter_track_uuids == 1)
			defaults++;
		if (p->data_case ==
		    PERFETTO__PROTOS__TRACE_PACKET__DATA_TRACK_DESCRIPTOR &&
		    p->track_descriptor->counter != NULL &&
		    p->track_descriptor->counter->type ==
		    PERFETTO__PROTOS__COUNTER_DESCRIPTOR__BUILTIN_COUNTER_TYPE__COUNTER_THREAD_TIME_NS &&
		    p->track_descriptor->counter->is_incremental)
			descs++;
		if (p->data_case ==
		    PERFETTO__PROTOS__TRACE_PACKET__DATA_TRACK_EVENT &&
		    p->track_event->n_extra_counter_values == 1) {
			values++;
			sum += p->track_event->extra_counter_values[0];
		}
	}
	ck_assert_int_eq(defaults, 2);	/* this thread and the worker */
	ck_assert_int_eq(descs, 2);
	ck_assert_int_ge(values, 4);
	ck_assert_int_gt(sum, 0);
}

START_TEST(test_api_extras)
{
	static const char *const en[] = { "test.a", "dyn*", NULL };
	static const char *const dis[] = { "dyn.off", NULL };
	Perfetto__Protos__TraceConfig *cfg = te_config(4096, en, dis);
	Perfetto__Protos__TrackEventConfig *tec =
	    cfg->data_sources[0]->config->track_event_config;
	struct tt_consumer c;
	struct tt_trace t;
	char path[128];
	uint8_t *data;
	size_t len;
	pthread_t th;

	tec->has_enable_thread_time_sampling = 1;
	tec->enable_thread_time_sampling = 1;
	init_faro(0, 0);
	ck_assert_ptr_null(faro_te_category_dynamic(NULL));
	ck_assert_ptr_nonnull(dyn_on = faro_te_category_dynamic("dyn.on"));
	ck_assert_ptr_nonnull(dyn_off = faro_te_category_dynamic("dyn.off"));
	ck_assert_ptr_eq(faro_te_category_dynamic("dyn.on"), dyn_on);
	memset(&c, 0, sizeof(c));
	record(cfg, &c);
	ck_assert_int_eq(wait_cond(cat_a_on, 5000), 0);
	ck_assert_int_eq(wait_cond(dyn_on_enabled, 5000), 0);
	ck_assert_uint_eq(dyn_off->enabled, 0);
	faro_thread_track_name("main track");
	for (int i = 0; i < 3; i++) {
		FARO_TE_BEGIN(ta, "arrays",
		    FARO_ARG_ARRAY_BEGIN("list"),
			FARO_ARG_INT(NULL, 1), FARO_ARG_INT(NULL, 2),
			FARO_ARG_DICT_BEGIN(NULL),
			    FARO_ARG_STRING("k", "v"),
			FARO_ARG_DICT_END(),
		    FARO_ARG_ARRAY_END(),
		    FARO_ARG_DICT_BEGIN("d"),
			FARO_ARG_ARRAY_BEGIN("xs"),
			    FARO_ARG_BOOL(NULL, 1),
			FARO_ARG_ARRAY_END(),
		    FARO_ARG_DICT_END(),
		    FARO_ARG_INT(NULL, 99),	/* no name: left out */
		    FARO_ARG_INT("after", 7));
		burn_cpu();
		FARO_TE_END(ta);
		FARO_TE_INSTANT_C(dyn_on, "dyn_event", FARO_ARG_INT("i", i));
		FARO_TE_INSTANT_C(dyn_off, "never");
	}
	pthread_create(&th, NULL, named_thread, (void *)"worker track");
	pthread_join(th, NULL);
	ck_assert_int_eq(tt_consumer_call(&c, CM_DISABLE, NULL, -1, NULL,
	    0), 0);
	ck_assert_int_eq(tt_wait(base, &c.enable_done, 10000), 0);
	ck_assert_int_eq(tt_consumer_read(&c, &data, &len), 0);
	ck_assert_int_eq(tt_trace_parse(&t, data, len), 0);
	check_thread_time(t.trace);
	tt_trace_free(&t);
	save_trace(data, len, "extras.pb", path, sizeof(path));
	free(data);

	/* Each of the 3 slices: every nested value, not the nameless one. */
	ck_assert_int_eq(cc_tp_query(path, "select count(*) from args a join "
	    "slice s using(arg_set_id) where s.name = 'arrays' and ("
	    "(a.key = 'debug.list[0]' and a.int_value = 1) or "
	    "(a.key = 'debug.list[1]' and a.int_value = 2) or "
	    "(a.key = 'debug.list[2].k' and a.string_value = 'v') or "
	    "(a.key = 'debug.d.xs[0]' and a.int_value = 1) or "
	    "(a.key = 'debug.after' and a.int_value = 7))"), 15);
	ck_assert_int_eq(cc_tp_query(path, "select count(*) from args a join "
	    "slice s using(arg_set_id) where s.name = 'arrays' and "
	    "a.int_value = 99"), 0);
	ck_assert_int_eq(cc_tp_query(path, "select count(*) from slice where "
	    "name = 'dyn_event' and category = 'dyn.on'"), 3);
	ck_assert_int_eq(cc_tp_query(path, "select count(*) from slice where "
	    "name = 'never'"), 0);
	ck_assert_int_eq(cc_tp_query(path, "select count(*) from thread where "
	    "name in ('main track', 'worker track')"), 2);
	ck_assert_int_eq(cc_tp_query(path, "select count(*) from slice s join "
	    "thread_track t on s.track_id = t.id join thread using(utid) "
	    "where thread.name = 'worker track' and s.name = "
	    "'worker_slice'"), 1);
	/* Thread time: the slices' CPU time, from the extra counter. */
	ck_assert_int_eq(cc_tp_query(path, "select count(*) from slice where "
	    "name in ('arrays', 'worker_slice') and thread_dur > 0"), 4);
	if (getenv("CC_KEEPDIR") == NULL)
		unlink(path);
	tt_consumer_close(&c);
	config_free(cfg);
}
END_TEST

/* ---- the stall policy: writers wait for chunks instead of dropping ---- */

#define STALL_MAX_MS	3000	/* the bound under test */
#define STALL_PAUSE_MS	200	/* traced frozen, well within the bound */

START_TEST(test_stall_policy)
{
	static const char *const en[] = { "test.a", NULL };
	Perfetto__Protos__TraceConfig *cfg = te_config(4096, en, NULL);
	Perfetto__Protos__DataSourceConfig *dc = cfg->data_sources[0]->config;
	struct tt_consumer c;
	struct tt_trace t;
	struct summary s;
	struct faro_stats st;
	pthread_t th;
	uint64_t t0, waited;

	dc->has_buffer_exhausted_policy = 1;
	dc->buffer_exhausted_policy =
	    PERFETTO__PROTOS__DATA_SOURCE_CONFIG__BUFFER_EXHAUSTED_POLICY__BUFFER_EXHAUSTED_STALL_THEN_DROP;
	init_faro(16 * 1024, STALL_MAX_MS);

	/*
	 * Within the bound: 300 rounds do not fit in 16 KiB, so the writer
	 * must wait for traced, which comes back after STALL_PAUSE_MS.
	 */
	memset(&c, 0, sizeof(c));
	record(cfg, &c);
	ck_assert_int_eq(wait_cond(cat_a_on, 5000), 0);
	traced_pause();
	ck_assert_int_eq(pthread_create(&th, NULL, traced_resume_later,
	    (void *)(intptr_t)STALL_PAUSE_MS), 0);
	emit_events(300);
	pthread_join(th, NULL);
	faro_get_stats(&st);
	ck_assert_uint_gt(st.stalls, 0);
	ck_assert_uint_eq(st.dropped_packets, 0);
	stop_and_read(&c, &t);
	summarize(&s, t.trace);
	ck_assert_int_eq(s.named[0], 300);
	ck_assert_int_eq(s.dropped_marks, 0);
	ck_assert_int_eq(s.unresolved, 0);
	tt_trace_free(&t);
	tt_consumer_close(&c);
	ck_assert_int_eq(wait_cond(cat_a_off, 5000), 0);

	/*
	 * Past the bound: traced stays frozen, the writer gives up after
	 * STALL_MAX_MS (not before, not never), drops, and marks the loss
	 * on its next packet once chunks are back.
	 */
	memset(&c, 0, sizeof(c));
	record(cfg, &c);
	ck_assert_int_eq(wait_cond(cat_a_on, 5000), 0);
	traced_pause();
	t0 = mono_ms();
	emit_events(300);
	waited = mono_ms() - t0;
	faro_get_stats(&st);
	ck_assert_uint_gt(st.dropped_packets, 0);
	/* The deadline counts whole ms from the first stall. */
	ck_assert_uint_ge(waited, STALL_MAX_MS - 1);
	traced_resume();
	flush_session(&c);
	emit_events(1);
	stop_and_read(&c, &t);
	summarize(&s, t.trace);
	ck_assert_int_gt(s.named[0], 1);
	ck_assert_int_lt(s.named[0], 301);
	ck_assert_int_eq(s.dropped_marks, 1);
	ck_assert_int_eq(s.unresolved, 0);
	tt_trace_free(&t);
	tt_consumer_close(&c);
	config_free(cfg);
}
END_TEST

/* ---- shutdown and init again while a tracing thread lives on ---- */

static pthread_barrier_t bar;

static void *
survivor(void *arg)
{
	pthread_barrier_wait(&bar);	/* first session on */
	emit_events(1);			/* its writer, in the first libfaro */
	pthread_barrier_wait(&bar);
	pthread_barrier_wait(&bar);	/* shutdown, init, second session */
	emit_events(3);
	return NULL;
}

START_TEST(test_reinit)
{
	static const char *const en[] = { "test.a", NULL };
	Perfetto__Protos__TraceConfig *cfg = te_config(1024, en, NULL);
	struct tt_consumer c1, c2;
	struct tt_trace t1, t2;
	struct summary s;
	pthread_t th;

	pthread_barrier_init(&bar, NULL, 2);
	pthread_create(&th, NULL, survivor, NULL);
	init_faro(0, 0);
	memset(&c1, 0, sizeof(c1));
	record(cfg, &c1);
	ck_assert_int_eq(wait_cond(cat_a_on, 5000), 0);
	pthread_barrier_wait(&bar);
	pthread_barrier_wait(&bar);
	stop_and_read(&c1, &t1);
	summarize(&s, t1.trace);
	ck_assert_int_eq(s.named[0], 1);
	faro_shutdown();	/* the survivor's writer state goes */
	ck_assert_int_eq(faro_connected(), 0);
	init_faro(0, 0);
	memset(&c2, 0, sizeof(c2));
	record(cfg, &c2);
	ck_assert_int_eq(wait_cond(cat_a_on, 5000), 0);
	pthread_barrier_wait(&bar);
	pthread_join(th, NULL);	/* its exit must not touch the old state */
	stop_and_read(&c2, &t2);
	summarize(&s, t2.trace);
	ck_assert_int_eq(s.named[0], 3);
	ck_assert_int_eq(s.first_on_seq, 1);
	ck_assert_int_eq(s.unresolved, 0);
	tt_trace_free(&t1);
	tt_trace_free(&t2);
	tt_consumer_close(&c1);
	tt_consumer_close(&c2);
	config_free(cfg);
	pthread_barrier_destroy(&bar);
}
END_TEST

/* ---- ClearIncrementalState from the service ---- */

START_TEST(test_clear_incremental_state)
{
	static const char *const en[] = { "test.a", NULL };
	Perfetto__Protos__TraceConfig *cfg = te_config(1024, en, NULL);
	Perfetto__Protos__TraceConfig__IncrementalStateConfig isc;
	struct tt_consumer c;
	struct tt_trace t;
	struct summary s;

	perfetto__protos__trace_config__incremental_state_config__init(&isc);
	isc.has_clear_period_ms = 1;
	isc.clear_period_ms = 50;
	cfg->incremental_state_config = &isc;
	init_faro(0, 0);
	memset(&c, 0, sizeof(c));
	record(cfg, &c);
	ck_assert_int_eq(wait_cond(cat_a_on, 5000), 0);
	emit_events(1);
	tt_spin(base, 300);	/* several clears */
	emit_events(1);		/* starts the sequence over once */
	stop_and_read(&c, &t);
	summarize(&s, t.trace);
	ck_assert_int_eq(nseq_te(&s), 1);
	ck_assert_int_eq(s.resets, 2);
	ck_assert_int_eq(s.first_on_seq, 1);
	ck_assert_int_eq(s.thread_desc, 2);
	ck_assert_int_eq(s.named[0], 2);
	ck_assert_int_eq(s.unresolved, 0);
	cfg->incremental_state_config = NULL;
	tt_trace_free(&t);
	tt_consumer_close(&c);
	config_free(cfg);
}
END_TEST

/* ---- the example app, as the demo records it ---- */

START_TEST(test_example)
{
	static const char *const names[] = { "track_event",
	    "com.example.heartbeat", NULL };
	Perfetto__Protos__TraceConfig *cfg = tt_config_new(4096, 1, names);
	struct tt_consumer c;
	struct tt_trace t;
	struct summary s;
	char bin[512];
	pid_t pid;
	int st;

	memset(&c, 0, sizeof(c));
	record(cfg, &c);
	snprintf(bin, sizeof(bin), "%s/client/examples/faro_example",
	    getenv("top_builddir"));
	if ((pid = fork()) == 0) {
		setenv("PERFETTO_PRODUCER_SOCK_NAME", td.producer_sock, 1);
		execl(bin, bin, "--seconds", "2", "--threads", "3",
		    (char *)NULL);
		_exit(127);
	}
	ck_assert_int_gt(pid, 0);
	while (waitpid(pid, &st, WNOHANG) == 0)
		tt_spin(base, 50);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	    "faro_example failed: %d", st);
	stop_and_read(&c, &t);
	summarize(&s, t.trace);
	ck_assert_int_eq(s.unresolved, 0);
	/*
	 * Threads inside a scoped slice when the session reached the app
	 * end it without having begun it: one per thread at most.
	 */
	ck_assert_int_le(s.bad_nesting, 4);
	ck_assert_int_ge(nseq_te(&s), 4);	/* main + 3 workers */
	ck_assert_int_gt(s.begins, 100);
	ck_assert_int_gt(s.counters_int, 10);
	ck_assert_int_gt(s.counters_dbl, 10);
	ck_assert_int_gt(s.flows, 10);
	ck_assert_int_gt(s.term_flows, 10);
	ck_assert_int_gt(s.custom_desc, 0);
	ck_assert_int_eq(s.cat_slow, 0);	/* "slow" tag: off by default */
	ck_assert_uint_gt(tt_trace_count(&t, "heartbeat", NULL, 0), 50);
	tt_trace_free(&t);
	tt_consumer_close(&c);
	tt_config_free(cfg);
}
END_TEST

/* ---- a custom data source, two sessions at once ---- */

static atomic_int setups, starts, stops, destroys, chrome_seen;

static void *
ds_setup(struct faro_ds *ds, unsigned inst, const struct faro_ds_config *c,
    void *user)
{
	char *tag = strdup(c->legacy_config);
	Perfetto__Protos__DataSourceConfig *d;

	atomic_fetch_add(&setups, 1);
	ck_assert_ptr_nonnull(c->raw);
	/*
	 * libfaro's DataSourceConfig lacks chrome_config (protos/Makefile.inc):
	 * the app still gets it, in the raw config.
	 */
	d = perfetto__protos__data_source_config__unpack(NULL, c->raw_len,
	    c->raw);
	if (d != NULL && d->chrome_config != NULL &&
	    d->chrome_config->trace_config != NULL &&
	    strcmp(d->chrome_config->trace_config, "chrome-one") == 0)
		atomic_fetch_add(&chrome_seen, 1);
	if (d != NULL)
		perfetto__protos__data_source_config__free_unpacked(d, NULL);
	return tag;
}

static void
ds_start(struct faro_ds *ds, unsigned inst, void *data, void *user)
{
	atomic_fetch_add(&starts, 1);
}

static int
ds_stop(struct faro_ds *ds, unsigned inst, void *data, void *user)
{
	atomic_fetch_add(&stops, 1);
	/* Completes later, from another thread's point of view. */
	faro_ds_stop_done(ds, inst);
	return FARO_DS_STOP_ASYNC;
}

static void
ds_destroy(struct faro_ds *ds, unsigned inst, void *data, void *user)
{
	atomic_fetch_add(&destroys, 1);
	free(data);
}

static void
ds_write(struct faro_ds_ctx *ctx, void *arg)
{
	uint32_t n = *(uint32_t *)arg;
	struct faro_msg *p = faro_ctx_packet_begin(ctx);

	faro_msg_uint(p, 8, faro_now_ns());
	faro_msg_nested_begin(p, 900);			/* for_testing */
	faro_msg_string(p, 1, (const char *)faro_ctx_data(ctx)); /* str */
	faro_msg_uint(p, 2, n);				/* seq_value */
	faro_msg_nested_begin(p, 5);			/* payload */
	faro_msg_string(p, 1, "x");			/* str */
	faro_msg_int(p, 5, -5);				/* single_int */
	faro_msg_nested_begin(p, 2);			/* nested */
	faro_msg_bytes(p, 4, "bytes", 5);		/* single_string */
	faro_msg_nested_end(p);
	faro_msg_nested_end(p);
	faro_msg_nested_end(p);
	faro_ctx_packet_end(ctx);
}

static struct faro_ds *test_ds;
static int both_active(void) { return faro_ds_active(test_ds) == 3; }

START_TEST(test_data_source_two_sessions)
{
	static const char *const names[] = { "test.ds", NULL };
	struct faro_ds_args a = { .struct_size = sizeof(a) };
	Perfetto__Protos__TraceConfig *c1, *c2;
	struct tt_consumer k1, k2;
	struct tt_trace t1, t2;
	const char *cause;

	init_faro(0, 0);
	a.on_setup = ds_setup;
	a.on_start = ds_start;
	a.on_stop = ds_stop;
	a.on_destroy = ds_destroy;
	test_ds = faro_ds_register("test.ds", &a, &cause);
	ck_assert_ptr_nonnull(test_ds);
	ck_assert_ptr_null(faro_ds_register("test.ds", &a, &cause));
	c1 = tt_config_new(1024, 1, names);
	c1->data_sources[0]->config->legacy_config = strdup("one");
	c1->data_sources[0]->config->chrome_config =
	    calloc(1, sizeof(Perfetto__Protos__ChromeConfig));
	ck_assert_ptr_nonnull(c1->data_sources[0]->config->chrome_config);
	perfetto__protos__chrome_config__init(
	    c1->data_sources[0]->config->chrome_config);
	c1->data_sources[0]->config->chrome_config->trace_config =
	    strdup("chrome-one");
	c2 = tt_config_new(1024, 1, names);
	c2->data_sources[0]->config->legacy_config = strdup("two");
	memset(&k1, 0, sizeof(k1));
	memset(&k2, 0, sizeof(k2));
	record(c1, &k1);
	record(c2, &k2);
	ck_assert_int_eq(wait_cond(both_active, 5000), 0);
	for (uint32_t i = 0; i < 300; i++)
		faro_ds_trace(test_ds, ds_write, &i);
	stop_and_read(&k1, &t1);
	stop_and_read(&k2, &t2);
	ck_assert_uint_eq(tt_trace_count(&t1, "one", NULL, 0), 300);
	ck_assert_uint_eq(tt_trace_count(&t1, "two", NULL, 0), 0);
	ck_assert_uint_eq(tt_trace_count(&t2, "two", NULL, 0), 300);
	ck_assert_uint_eq(tt_trace_count(&t2, "one", NULL, 0), 0);
	ck_assert_int_eq(t1.bad_trusted, 0);
	ck_assert_int_eq(atomic_load(&setups), 2);
	ck_assert_int_eq(atomic_load(&chrome_seen), 1);
	ck_assert_int_eq(atomic_load(&starts), 2);
	ck_assert_int_eq(atomic_load(&stops), 2);
	tt_spin(base, 200);
	ck_assert_int_eq(atomic_load(&destroys), 2);
	ck_assert_uint_eq(faro_ds_active(test_ds), 0);
	tt_trace_free(&t1);
	tt_trace_free(&t2);
	tt_consumer_close(&k1);
	tt_consumer_close(&k2);
	tt_config_free(c1);
	tt_config_free(c2);
}
END_TEST

/* ---- traced goes away and comes back ---- */

START_TEST(test_reconnect)
{
	static const char *const en[] = { "test.a", NULL };
	Perfetto__Protos__TraceConfig *cfg;
	struct tt_consumer c;
	struct tt_trace t;
	struct summary s;
	struct faro_stats st;

	init_faro(0, 0);
	ck_assert_int_eq(wait_cond(is_connected, 5000), 0);
	ck_assert_int_eq(tt_traced_stop(&td), 0);
	ck_assert_int_eq(wait_cond(cat_a_off, 1000), 0);
	for (int i = 0; i < 100 && faro_connected(); i++)
		tt_spin(base, 10);
	ck_assert_int_eq(faro_connected(), 0);
	emit_events(5);		/* nobody listens: nothing happens */
	ck_assert_int_eq(tt_traced_start(&td, NULL), 0);
	point_link();
	ck_assert_int_eq(wait_cond(is_connected, 5000), 0);
	faro_get_stats(&st);
	ck_assert_uint_eq(st.connects, 2);
	cfg = te_config(2048, en, NULL);
	memset(&c, 0, sizeof(c));
	record(cfg, &c);
	ck_assert_int_eq(wait_cond(cat_a_on, 5000), 0);
	emit_events(10);
	stop_and_read(&c, &t);
	summarize(&s, t.trace);
	ck_assert_int_eq(s.named[0], 10);
	ck_assert_int_eq(s.unresolved, 0);
	tt_trace_free(&t);
	tt_consumer_close(&c);
	config_free(cfg);
}
END_TEST

/* ---- a tiny SMB and the drop policy ---- */

START_TEST(test_drop_policy)
{
	static const char *const en[] = { "test.a", NULL };
	Perfetto__Protos__TraceConfig *cfg = te_config(256, en, NULL);
	struct tt_consumer c;
	struct tt_trace t;
	struct summary s;
	struct faro_stats st;
	Perfetto__Protos__TraceConfig__IncrementalStateConfig *isc;

	/* A ring: the packets after the drop (with the mark) must stay. */
	cfg->buffers[0]->fill_policy =
	    PERFETTO__PROTOS__TRACE_CONFIG__BUFFER_CONFIG__FILL_POLICY__RING_BUFFER;
	/* Periodic ClearIncrementalState, so the tail decodes again. */
	isc = calloc(1, sizeof(*isc));
	perfetto__protos__trace_config__incremental_state_config__init(isc);
	isc->has_clear_period_ms = 1;
	isc->clear_period_ms = 100;
	cfg->incremental_state_config = isc;
	init_faro(16 * 1024, 0);	/* 4 pages of 4 KiB */
	memset(&c, 0, sizeof(c));
	record(cfg, &c);
	ck_assert_int_eq(wait_cond(cat_a_on, 5000), 0);
	/* traced frozen: the SMB runs out early in the burst, every run. */
	traced_pause();
	emit_events(3000);
	traced_resume();
	faro_get_stats(&st);
	ck_assert_uint_gt(st.dropped_packets, 0);
	flush_session(&c);	/* chunks free again */
	emit_events(5);		/* after a drop the sequence starts over */
	stop_and_read(&c, &t);
	summarize(&s, t.trace);
	/* One loss, one mark; first packet and the mark both reset state. */
	ck_assert_int_eq(s.dropped_marks, 1);
	ck_assert_int_ge(s.resets, 2);
	ck_assert_int_gt(s.named[0], 5);
	ck_assert_int_lt(s.named[0], 3005);
	ck_assert_int_eq(s.unresolved, 0);
	tt_trace_free(&t);
	tt_consumer_close(&c);
	cfg->incremental_state_config = NULL;
	free(isc);
	config_free(cfg);
}
END_TEST

static Suite *
client_suite(void)
{
	Suite *s = suite_create("client");
	TCase *tc = tcase_create("e2e");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_track_event);
	tcase_add_test(tc, test_trace_processor);
	tcase_add_test(tc, test_absolute_timestamps);
	tcase_add_test(tc, test_api_extras);
	tcase_add_test(tc, test_example);
	tcase_add_test(tc, test_clear_incremental_state);
	tcase_add_test(tc, test_data_source_two_sessions);
	tcase_add_test(tc, test_reconnect);
	tcase_add_test(tc, test_drop_policy);
	tcase_add_test(tc, test_stall_policy);
	tcase_add_test(tc, test_reinit);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(client_suite());
	int nfail;

	srunner_run_all(sr, CK_NORMAL);
	nfail = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nfail == 0 ? 0 : 1;
}
