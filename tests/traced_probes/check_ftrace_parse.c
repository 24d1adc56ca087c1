/*
 * check_ftrace_parse: format files, ring-buffer pages and their
 * translation, on pages recorded from a real kernel (data/, see
 * data/capture.sh) and on pages built here for the rare layouts (time
 * extends, absolute timestamps, padding, lost events, broken records).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protos/perfetto/trace/ftrace/ftrace_event.pb-c.h"

#include "event_table.h"
#include "format.h"
#include "ftrace_util.h"
#include "ring_page.h"
#include "translate.h"

/* ---- format files ---- */

static void
load_format(const char *file, const char *group, struct ftrace_format *fmt)
{
	const char *cause = NULL;
	size_t len;
	char *text = test_data(file, &len);

	ck_assert_msg(ftrace_format_parse_untrusted(text, len, group, fmt,
	    &cause) == 0, "%s: %s", file, cause);
	free(text);
}

START_TEST(format_sched_switch)
{
	struct ftrace_format fmt;
	const struct ftrace_field *f;

	load_format("sched_sched_switch.format", "sched", &fmt);
	ck_assert_str_eq(fmt.name, "sched_switch");
	ck_assert_uint_gt(fmt.id, 0);
	ck_assert_uint_eq(fmt.ncommon, 4);
	ck_assert_ptr_nonnull(fmt.common_pid);
	ck_assert_uint_eq(fmt.common_pid->offset, 4);
	ck_assert_uint_eq(fmt.common_pid->size, 4);
	ck_assert_uint_eq(fmt.common_pid->is_signed, 1);
	f = ftrace_format_field(&fmt, "prev_comm");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(f->kind, FTRACE_FIELD_CHARS);
	ck_assert_uint_eq(f->offset, 8);
	ck_assert_uint_eq(f->size, 16);
	f = ftrace_format_field(&fmt, "prev_state");
	ck_assert_int_eq(f->kind, FTRACE_FIELD_INT);
	ck_assert_uint_eq(f->size, 8);
	ck_assert_uint_eq(f->is_signed, 1);
	f = ftrace_format_field(&fmt, "next_pid");
	ck_assert_uint_eq(f->offset, 56);
	ck_assert_uint_eq(f->is_common, 0);
	ftrace_format_free(&fmt);
}
END_TEST

START_TEST(format_tail_and_dataloc)
{
	struct ftrace_format fmt;
	const struct ftrace_field *f;

	load_format("ftrace_print.format", "ftrace", &fmt);
	f = ftrace_format_field(&fmt, "buf");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(f->kind, FTRACE_FIELD_TAIL);
	ftrace_format_free(&fmt);

	load_format("sched_sched_process_exec.format", "sched", &fmt);
	f = ftrace_format_field(&fmt, "filename");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(f->kind, FTRACE_FIELD_DATALOC);
	ck_assert_int_eq(f->is_string, 1);
	ck_assert_uint_eq(f->size, 4);
	ftrace_format_free(&fmt);
}
END_TEST

START_TEST(format_header_page)
{
	struct ftrace_page_layout pl;
	const char *cause;
	size_t len;
	char *text = test_data("header_page", &len);

	ck_assert_int_eq(ftrace_page_layout_parse_untrusted(text, len, &pl,
	    &cause), 0);
	ck_assert_uint_eq(pl.ts_offset, 0);
	ck_assert_uint_eq(pl.commit_offset, 8);
	ck_assert_uint_eq(pl.commit_size, 8);
	ck_assert_uint_eq(pl.data_offset, 16);
	ck_assert_uint_eq(pl.page_size, 4096);
	free(text);
}
END_TEST

START_TEST(format_malformed)
{
	static const char *bad[] = {
		"",
		"name: x\nformat:\n\tfield:int a;\toffset:0;\tsize:4;\n",
		"name: x\nID: 70000\nformat:\n"
		    "\tfield:int a;\toffset:0;\tsize:4;\tsigned:1;\n",
		"name: x\nID: 7\nformat:\n"
		    "\tfield:int a;\toffset:65535;\tsize:4;\tsigned:1;\n",
		"name: x\nID: 7\nformat:\n\tfield:int a;\toffset:x;\n",
		"name: x\nID: 7\nformat:\n\tfield:;\toffset:0;\tsize:4;\n",
		"name: x\nID: 7\nformat:\n"
		    "\tfield:__data_loc char[] s;\toffset:8;\tsize:8;\n",
		"name: x\nID: 7\nformat:\n",
	};
	struct ftrace_format fmt;
	struct ftrace_page_layout pl;
	const char *cause;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cause = NULL;
		ck_assert_msg(ftrace_format_parse_untrusted(bad[i],
		    strlen(bad[i]), "g", &fmt, &cause) == -1, "case %zu", i);
		ck_assert_ptr_nonnull(cause);
	}
	ck_assert_int_eq(ftrace_page_layout_parse_untrusted("x", 1, &pl,
	    &cause), -1);
}
END_TEST

/* ---- pages built by hand ---- */

static const struct ftrace_page_layout layout64 = {
	.ts_offset = 0, .commit_offset = 8, .commit_size = 8,
	.data_offset = 16, .page_size = 4096,
};

struct pagebuf {
	uint8_t		page[4096];
	size_t		len;	/* data bytes so far */
};

static void
pg_init(struct pagebuf *pg, uint64_t ts)
{
	memset(pg, 0, sizeof(*pg));
	memcpy(pg->page, &ts, 8);
}

static void
pg_u32(struct pagebuf *pg, uint32_t v)
{
	memcpy(pg->page + 16 + pg->len, &v, 4);
	pg->len += 4;
}

static void
pg_commit(struct pagebuf *pg, uint32_t flags)
{
	uint64_t c = (uint64_t)pg->len | flags;

	memcpy(pg->page + 8, &c, 8);
}

/* A data record with a 4-byte-aligned payload of n words. */
static void
pg_record(struct pagebuf *pg, uint32_t delta, const uint32_t *w, uint32_t n,
    int long_form)
{
	if (long_form) {
		pg_u32(pg, delta << 5);
		pg_u32(pg, n * 4 + 4);
	} else
		pg_u32(pg, delta << 5 | n);
	for (uint32_t i = 0; i < n; i++)
		pg_u32(pg, w[i]);
}

START_TEST(page_timestamps)
{
	struct pagebuf pg;
	struct ring_page rp;
	struct ring_record r;
	uint32_t payload[2] = { 0x1234, 0x5678 };
	uint64_t abs = (3ull << 59) | 123456789ull, expect;

	pg_init(&pg, 1000);
	pg_record(&pg, 10, payload, 2, 0);		/* ts 1010 */
	pg_u32(&pg, (5u << 5) | 30);			/* extend */
	pg_u32(&pg, 2);					/* hi bits */
	pg_record(&pg, 7, payload, 2, 1);		/* long form */
	pg_u32(&pg, 0u << 5 | 29);			/* padding... */
	pg.len -= 4;
	pg_u32(&pg, (1u << 5) | 29);			/* discarded rec */
	pg_u32(&pg, 12);				/* len incl. word */
	pg_u32(&pg, 0xdead);
	pg_u32(&pg, 0xbeef);
	pg_u32(&pg, (uint32_t)(abs & ((1u << 27) - 1)) << 5 | 31);
	pg_u32(&pg, (uint32_t)((abs & ((1ull << 59) - 1)) >> 27));
	pg_record(&pg, 1, payload, 1, 0);
	pg_u32(&pg, 29);				/* null padding */
	pg_u32(&pg, 0);
	pg_commit(&pg, 0);

	ck_assert_int_eq(ring_page_open_untrusted(&rp, &layout64, pg.page,
	    sizeof(pg.page)), 0);
	ck_assert_int_eq(rp.lost, 0);
	ck_assert_int_eq(ring_page_next_untrusted(&rp, &r), 1);
	ck_assert_uint_eq(r.ts, 1010);
	ck_assert_uint_eq(r.len, 8);
	ck_assert_int_eq(ring_page_next_untrusted(&rp, &r), 1);
	expect = 1010 + ((2ull << 27) | 5) + 7;
	ck_assert_uint_eq(r.ts, expect);
	ck_assert_uint_eq(r.len, 8);
	ck_assert_uint_eq(*(const uint32_t *)(const void *)r.data, 0x1234);
	ck_assert_int_eq(ring_page_next_untrusted(&rp, &r), 1);
	/* Top bits come from the running clock (0 here). */
	ck_assert_uint_eq(r.ts, (abs & ((1ull << 59) - 1)) + 1);
	ck_assert_uint_eq(r.len, 4);
	ck_assert_int_eq(ring_page_next_untrusted(&rp, &r), 0);
}
END_TEST

START_TEST(page_lost_events)
{
	struct pagebuf pg;
	struct ring_page rp;
	uint32_t w = 1;
	uint64_t count = 42;

	pg_init(&pg, 5);
	pg_record(&pg, 1, &w, 1, 0);
	pg_commit(&pg, (1u << 31) | (1u << 30));
	memcpy(pg.page + 16 + pg.len, &count, 8);
	ck_assert_int_eq(ring_page_open_untrusted(&rp, &layout64, pg.page,
	    sizeof(pg.page)), 0);
	ck_assert_int_eq(rp.lost, 1);
	ck_assert_int_eq(rp.lost_count, 42);
}
END_TEST

START_TEST(page_broken)
{
	struct pagebuf pg;
	struct ring_page rp;
	struct ring_record r;
	uint32_t w[4] = { 0 };

	/* commit larger than the page */
	pg_init(&pg, 0);
	pg.len = 5000;
	pg_commit(&pg, 0);
	ck_assert_int_eq(ring_page_open_untrusted(&rp, &layout64, pg.page,
	    sizeof(pg.page)), FTRACE_STATUS_ABI_INVALID_PAGE_HEADER);
	/* short read */
	ck_assert_int_eq(ring_page_open_untrusted(&rp, &layout64, pg.page, 8),
	    FTRACE_STATUS_PARTIAL_PAGE_READ);
	/* record running past the commit */
	pg_init(&pg, 0);
	pg_record(&pg, 1, w, 4, 0);
	pg.len -= 8;
	pg_commit(&pg, 0);
	ck_assert_int_eq(ring_page_open_untrusted(&rp, &layout64, pg.page,
	    sizeof(pg.page)), 0);
	ck_assert_int_eq(ring_page_next_untrusted(&rp, &r),
	    FTRACE_STATUS_ABI_END_OVERFLOW);
	/* long form with a zero length */
	pg_init(&pg, 0);
	pg_u32(&pg, 1u << 5);
	pg_u32(&pg, 0);
	pg_commit(&pg, 0);
	ring_page_open_untrusted(&rp, &layout64, pg.page, sizeof(pg.page));
	ck_assert_int_eq(ring_page_next_untrusted(&rp, &r),
	    FTRACE_STATUS_ABI_ZERO_DATA_LENGTH);
	/* time extend cut short */
	pg_init(&pg, 0);
	pg_u32(&pg, 30);
	pg_commit(&pg, 0);
	ring_page_open_untrusted(&rp, &layout64, pg.page, sizeof(pg.page));
	ck_assert_int_eq(ring_page_next_untrusted(&rp, &r),
	    FTRACE_STATUS_ABI_SHORT_TIME_EXTEND);
	/* padding longer than the rest */
	pg_init(&pg, 0);
	pg_u32(&pg, 1u << 5 | 29);
	pg_u32(&pg, 4000);
	pg_commit(&pg, 0);
	ring_page_open_untrusted(&rp, &layout64, pg.page, sizeof(pg.page));
	ck_assert_int_eq(ring_page_next_untrusted(&rp, &r),
	    FTRACE_STATUS_ABI_INVALID_PADDING_LENGTH);
}
END_TEST

/* ---- the recorded page, translated ---- */

static const char *golden_events[][2] = {
	{ "sched_sched_switch.format", "sched" },
	{ "sched_sched_waking.format", "sched" },
	{ "sched_sched_process_exec.format", "sched" },
	{ "sched_sched_process_exit.format", "sched" },
	{ "signal_signal_generate.format", "signal" },
	{ "ftrace_print.format", "ftrace" },
};

static struct ftrace_page_layout golden_layout;

static struct ftrace_translator *
golden_translator(int compact)
{
	struct ftrace_xlate_opts o = { .compact_sched = compact };
	struct ftrace_translator *xl = ftrace_translator_new(&o);
	struct ftrace_format fmt;
	const char *cause;
	size_t len;
	char *text;

	ck_assert_ptr_nonnull(xl);
	for (size_t i = 0; i < sizeof(golden_events) /
	    sizeof(golden_events[0]); i++) {
		load_format(golden_events[i][0], golden_events[i][1], &fmt);
		ck_assert_int_eq(ftrace_translator_add(xl, &fmt, &cause), 0);
		ftrace_format_free(&fmt);
	}
	text = test_data("header_page", &len);
	ck_assert_int_eq(ftrace_page_layout_parse_untrusted(text, len,
	    &golden_layout, &cause), 0);
	free(text);
	return xl;
}

struct golden_seen {
	int		 marker_pid;
	int		 prints, marker_ok, switches, execs, generics, events;
	int		 generic_named;
	uint64_t	 last_ts;
	int		 monotonic;
};

static void
golden_visit(const Perfetto__Protos__FtraceEventBundle *b,
    const Perfetto__Protos__FtraceEvent *ev, void *arg)
{
	struct golden_seen *s = arg;
	const Perfetto__Protos__GenericFtraceEvent__Field *f;

	s->events++;
	if (ev->timestamp < s->last_ts)
		s->monotonic = 0;
	s->last_ts = ev->timestamp;
	switch (ev->event_case) {
	case PERFETTO__PROTOS__FTRACE_EVENT__EVENT_PRINT:
		s->prints++;
		if (strcmp(ev->print->buf, "faro-golden-marker\n") == 0 &&
		    (int)ev->pid == s->marker_pid)
			s->marker_ok++;
		break;
	case PERFETTO__PROTOS__FTRACE_EVENT__EVENT_SCHED_SWITCH:
		if (ev->sched_switch->prev_comm != NULL &&
		    ev->sched_switch->next_comm != NULL &&
		    ev->sched_switch->has_next_pid)
			s->switches++;
		break;
	case PERFETTO__PROTOS__FTRACE_EVENT__EVENT_SCHED_PROCESS_EXEC:
		if (ev->sched_process_exec->filename != NULL &&
		    strcmp(ev->sched_process_exec->filename, "/bin/true") == 0)
			s->execs++;
		break;
	case PERFETTO__PROTOS__FTRACE_EVENT__EVENT_GENERIC:
		s->generics++;
		if (strcmp(ev->generic->event_name, "signal_generate") == 0 &&
		    (f = test_generic_field(ev->generic, "sig")) != NULL &&
		    f->value_case ==
		    PERFETTO__PROTOS__GENERIC_FTRACE_EVENT__FIELD__VALUE_INT_VALUE &&
		    test_generic_field(ev->generic, "comm") != NULL &&
		    test_generic_field(ev->generic, "comm")->value_case ==
		    PERFETTO__PROTOS__GENERIC_FTRACE_EVENT__FIELD__VALUE_STR_VALUE)
			s->generic_named++;
		break;
	default:
		break;
	}
}

START_TEST(golden_page_translates)
{
	struct ftrace_translator *xl = golden_translator(0);
	struct ftrace_cpu_counters ctr = { 0 };
	struct ftrace_bundle b;
	struct test_sink ts;
	struct golden_seen seen = { .monotonic = 1 };
	size_t len;
	uint8_t *page = (uint8_t *)test_data("cpu0.raw", &len);
	char *pid = test_data("marker.pid", NULL);

	seen.marker_pid = atoi(pid);
	ck_assert_int_eq(ftrace_bundle_init(&b, xl, &golden_layout, 0,
	    test_sink_init(&ts), &ctr), 0);
	for (size_t off = 0; off + 4096 <= len; off += 4096)
		ck_assert_int_eq(ftrace_bundle_add_page_untrusted(&b,
		    page + off, 4096), 0);
	ftrace_bundle_finish(&b);
	ck_assert_uint_eq(ts.bad, 0);
	ck_assert_uint_ge(ts.npkts, 1);
	ck_assert_int_eq(ts.pkts[0]->ftrace_events->cpu, 0);
	test_sink_events(&ts, golden_visit, &seen);
	ck_assert_int_eq(seen.events, (int)ctr.events);
	ck_assert_int_eq(seen.marker_ok, 1);
	ck_assert_int_gt(seen.switches, 0);
	ck_assert_int_eq(seen.execs, 1);
	ck_assert_int_gt(seen.generic_named, 0);
	ck_assert_int_eq(seen.monotonic, 1);
	ck_assert_uint_eq(ctr.unknown_ids, 0);
	ck_assert_uint_eq(ctr.bad_pages, 0);
	/* The pids hook saw the marker's writer, once per bundle. */
	{
		int n = 0;

		for (size_t i = 0; i < ts.npids; i++)
			n += ts.pids[i] == seen.marker_pid;
		ck_assert_int_eq(n, (int)ts.npkts);
	}
	ftrace_bundle_free(&b);
	test_sink_free(&ts);
	ftrace_translator_free(xl);
	free(page);
	free(pid);
}
END_TEST

static void
count_switch(const Perfetto__Protos__FtraceEventBundle *b,
    const Perfetto__Protos__FtraceEvent *ev, void *arg)
{
	if (ev->event_case == PERFETTO__PROTOS__FTRACE_EVENT__EVENT_SCHED_SWITCH)
		(*(int *)arg)++;
}

START_TEST(golden_page_compact)
{
	struct ftrace_translator *full = golden_translator(0);
	struct ftrace_translator *xl = golden_translator(1);
	struct ftrace_cpu_counters c1 = { 0 }, c2 = { 0 };
	struct ftrace_bundle b1, b2;
	struct test_sink t1, t2;
	const Perfetto__Protos__FtraceEventBundle__CompactSched *cs;
	size_t len, nsw = 0;
	int switches = 0;
	uint8_t *page = (uint8_t *)test_data("cpu0.raw", &len);

	ftrace_bundle_init(&b1, full, &golden_layout, 0, test_sink_init(&t1),
	    &c1);
	ftrace_bundle_init(&b2, xl, &golden_layout, 0, test_sink_init(&t2),
	    &c2);
	ftrace_bundle_add_page_untrusted(&b1, page, 4096);
	ftrace_bundle_add_page_untrusted(&b2, page, 4096);
	ftrace_bundle_finish(&b1);
	ftrace_bundle_finish(&b2);
	test_sink_events(&t1, count_switch, &switches);
	ck_assert_int_gt(switches, 0);
	for (size_t i = 0; i < t2.npkts; i++) {
		cs = t2.pkts[i]->ftrace_events->compact_sched;
		if (cs == NULL)
			continue;
		ck_assert_uint_eq(cs->n_switch_next_pid, cs->n_switch_timestamp);
		ck_assert_uint_eq(cs->n_switch_next_comm_index,
		    cs->n_switch_timestamp);
		for (size_t k = 0; k < cs->n_switch_next_comm_index; k++)
			ck_assert_uint_lt(cs->switch_next_comm_index[k],
			    cs->n_intern_table);
		ck_assert_uint_eq(cs->n_waking_pid, cs->n_waking_timestamp);
		nsw += cs->n_switch_timestamp;
		/* The first timestamp is absolute and matches the page. */
		if (cs->n_switch_timestamp > 0)
			ck_assert_uint_gt(cs->switch_timestamp[0], 1000000);
	}
	ck_assert_uint_eq(nsw, (size_t)switches);
	ck_assert_uint_eq(c1.events, c2.events);
	ftrace_bundle_free(&b1);
	ftrace_bundle_free(&b2);
	test_sink_free(&t1);
	test_sink_free(&t2);
	ftrace_translator_free(full);
	ftrace_translator_free(xl);
	free(page);
}
END_TEST

/* A kprobe's record becomes a KprobeEvent with its name and type. */
START_TEST(kprobe_record)
{
	static const char fmt_text[] =
	    "name: do_sys_openat2\nID: 1500\nformat:\n"
	    "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	    "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	    "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	    "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
	    "\tfield:unsigned long __probe_ip;\toffset:8;\tsize:8;\tsigned:0;\n";
	struct ftrace_xlate_opts o = { .disable_generic = 1 };
	struct ftrace_translator *xl = ftrace_translator_new(&o);
	struct ftrace_cpu_counters ctr = { 0 };
	struct ftrace_format fmt;
	struct ftrace_bundle b;
	struct test_sink ts;
	struct pagebuf pg;
	const Perfetto__Protos__FtraceEvent *ev;
	const char *cause;
	uint32_t rec[4] = { 1500 | (0u << 16), 4321, 0xabc, 0 };

	ck_assert_int_eq(ftrace_format_parse_untrusted(fmt_text,
	    strlen(fmt_text), "perfetto_kprobes", &fmt, &cause), 0);
	ck_assert_int_eq(ftrace_translator_add_kprobe(xl, &fmt, KPROBE_BEGIN,
	    &cause), 0);
	ftrace_format_free(&fmt);
	pg_init(&pg, 5000);
	pg_record(&pg, 10, rec, 4, 0);
	pg_commit(&pg, 0);
	ftrace_bundle_init(&b, xl, &layout64, 1, test_sink_init(&ts), &ctr);
	ck_assert_int_eq(ftrace_bundle_add_page_untrusted(&b, pg.page,
	    sizeof(pg.page)), 0);
	ftrace_bundle_finish(&b);
	ck_assert_uint_eq(ts.npkts, 1);
	ck_assert_uint_eq(ts.pkts[0]->ftrace_events->n_event, 1);
	ev = ts.pkts[0]->ftrace_events->event[0];
	ck_assert_int_eq(ev->event_case,
	    PERFETTO__PROTOS__FTRACE_EVENT__EVENT_KPROBE_EVENT);
	ck_assert_str_eq(ev->kprobe_event->name, "do_sys_openat2");
	ck_assert_int_eq(ev->kprobe_event->type,
	    PERFETTO__PROTOS__KPROBE_EVENT__KPROBE_TYPE__KPROBE_TYPE_BEGIN);
	ck_assert_uint_eq(ev->pid, 4321);
	ck_assert_uint_eq(ev->timestamp, 5010);
	ftrace_bundle_free(&b);
	test_sink_free(&ts);
	ftrace_translator_free(xl);
}
END_TEST

/* Flipped bits anywhere in a real page: errors, never bad reads. */
START_TEST(golden_page_mutated)
{
	struct ftrace_translator *xl = golden_translator(_i & 1);
	struct ftrace_cpu_counters ctr = { 0 };
	struct ftrace_bundle b;
	struct test_sink ts;
	size_t len;
	uint8_t *orig = (uint8_t *)test_data("cpu0.raw", &len);
	uint8_t page[4096];

	srandom(1234);
	ftrace_bundle_init(&b, xl, &golden_layout, 0, test_sink_init(&ts),
	    &ctr);
	for (int iter = 0; iter < 3000; iter++) {
		memcpy(page, orig, sizeof(page));
		for (int k = 0; k < 1 + iter % 8; k++)
			page[random() % 3000] ^= (uint8_t)(1u << (random() % 8));
		(void)ftrace_bundle_add_page_untrusted(&b, page,
		    (size_t)(random() % 2 ? 4096 : random() % 4097));
		if (iter % 50 == 0) {
			ftrace_bundle_finish(&b);
			test_sink_free(&ts);
			b.sink = test_sink_init(&ts);
		}
	}
	ftrace_bundle_finish(&b);
	ck_assert_uint_eq(ts.bad, 0);
	ck_assert_uint_gt(ctr.events, 0);
	ftrace_bundle_free(&b);
	test_sink_free(&ts);
	ftrace_translator_free(xl);
	free(orig);
}
END_TEST

/*
 * The generated table and our .proto files must agree on every name and
 * number they share (the table comes from upstream's protos).
 */
START_TEST(table_matches_protos)
{
	const ProtobufCMessageDescriptor *ev =
	    &perfetto__protos__ftrace_event__descriptor, *md;
	const ProtobufCFieldDescriptor *fd, *ff;
	unsigned int missing = 0, checked = 0;

	for (unsigned int i = 0; i < ftrace_proto_nevents; i++) {
		const struct ftrace_proto_event *pe = &ftrace_proto_events[i];

		fd = protobuf_c_message_descriptor_get_field(ev, pe->id);
		if (fd == NULL) {
			missing++;	/* trimmed from our protos: still valid */
			continue;
		}
		ck_assert_msg(strcmp(fd->name, pe->name) == 0,
		    "FtraceEvent field %u is %s in our protos, %s in the table",
		    pe->id, fd->name, pe->name);
		md = fd->descriptor;
		for (unsigned int k = 0; k < pe->nfields; k++) {
			ff = protobuf_c_message_descriptor_get_field_by_name(md,
			    pe->fields[k].name);
			if (ff == NULL)
				continue;
			ck_assert_msg(ff->id == pe->fields[k].id,
			    "%s.%s: %u vs %u", pe->name, pe->fields[k].name,
			    ff->id, pe->fields[k].id);
			ck_assert_msg((ff->type == PROTOBUF_C_TYPE_STRING) ==
			    (pe->fields[k].type == PT_STRING), "%s.%s type",
			    pe->name, pe->fields[k].name);
			checked++;
		}
	}
	ck_assert_uint_gt(checked, 100);
	fprintf(stderr, "event table: %u events, %u fields checked, %u events "
	    "not in our protos\n", ftrace_proto_nevents, checked, missing);
	/* The generic event's slot and the bundle framing. */
	fd = protobuf_c_message_descriptor_get_field(ev, EVENT_GENERIC);
	ck_assert_ptr_nonnull(fd);
	ck_assert_str_eq(fd->name, "generic");
}
END_TEST

static Suite *
ftrace_parse_suite(void)
{
	Suite *s = suite_create("ftrace_parse");
	TCase *tc = tcase_create("format");

	tcase_add_test(tc, format_sched_switch);
	tcase_add_test(tc, format_tail_and_dataloc);
	tcase_add_test(tc, format_header_page);
	tcase_add_test(tc, format_malformed);
	tcase_add_test(tc, table_matches_protos);
	suite_add_tcase(s, tc);
	tc = tcase_create("page");
	tcase_add_test(tc, page_timestamps);
	tcase_add_test(tc, page_lost_events);
	tcase_add_test(tc, page_broken);
	suite_add_tcase(s, tc);
	tc = tcase_create("translate");
	tcase_add_test(tc, golden_page_translates);
	tcase_add_test(tc, golden_page_compact);
	tcase_add_test(tc, kprobe_record);
	tcase_add_loop_test(tc, golden_page_mutated, 0, 2);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(ftrace_parse_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
