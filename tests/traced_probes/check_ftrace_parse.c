/*
 * check_ftrace_parse: format files, ring-buffer pages and their
 * translation, on pages recorded from a real kernel (data/, see
 * data/capture.sh) and on pages built here for the rare layouts (time
 * extends, absolute timestamps, padding, lost events, broken records).
 */
#include <sys/stat.h>

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "protos/perfetto/trace/ftrace/ftrace_event.pb-c.h"

#include "controller.h"

#include "event_table.h"
#include "format.h"
#include "ftrace_util.h"
#include "ksyms.h"
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

/* ---- kernel symbols: kallsyms and the indexes that replace addresses ---- */

#define K(x)	(0xffffffff00000000ull | (x))
#define HEAP1	0xffff888012345678ull
#define HEAP2	0xffff888000000040ull

static struct ksyms *
fixture_ksyms(struct ksyms_parse_stats *st)
{
	const char *cause = NULL;
	size_t len;
	char *text = test_data("kallsyms.txt", &len);
	struct ksyms *k = ksyms_parse_untrusted(text, len, st, &cause);

	ck_assert_msg(k != NULL, "kallsyms.txt: %s", cause);
	free(text);
	return k;
}

static void
expect_sym(const struct ksyms *k, uint64_t addr, const char *want)
{
	char name[KSYMS_NAME_MAX];
	int n = ksyms_lookup(k, addr, name, sizeof(name));

	if (want == NULL) {
		ck_assert_msg(n == -1, "%#llx resolved to %s",
		    (unsigned long long)addr, n >= 0 ? name : "");
		return;
	}
	ck_assert_msg(n >= 0, "%#llx: no symbol, want %s",
	    (unsigned long long)addr, want);
	ck_assert_str_eq(name, want);
	ck_assert_int_eq(n, (int)strlen(want));
}

static void
check_fixture_table(const struct ksyms *k)
{
	/* 12 text symbols, _text an alias of _stext at one address. */
	ck_assert_uint_eq(ksyms_count(k), 11);
	expect_sym(k, K(0x81000000), "_stext");
	expect_sym(k, K(0x81000900), "early_unsorted_fn");	/* sorted in */
	expect_sym(k, K(0x81001008), "__pfx_do_one_initcall");
	expect_sym(k, K(0x81001010), "do_one_initcall");
	expect_sym(k, K(0x81001404), "__pfx_run_init_process");
	expect_sym(k, K(0x81001410), "run_init_process");
	expect_sym(k, K(0x81002123), "process_one_work");
	expect_sym(k, K(0x81006000) + KSYMS_MAX_SPAN - 1, "vfs_read");
	expect_sym(k, K(0x81006000) + KSYMS_MAX_SPAN, NULL);
	expect_sym(k, K(0x82000000), NULL);	/* data, past the last text */
	expect_sym(k, K(0xc0a00010), "mod_work_fn");	/* module tail cut */
	expect_sym(k, K(0xc0201000), "ftrace_trampoline");
	expect_sym(k, K(0x80ffffff), NULL);	/* below the first */
	expect_sym(k, HEAP1, NULL);
	expect_sym(k, 0, NULL);
	expect_sym(k, UINT64_MAX, NULL);
}

START_TEST(ksyms_fixture)
{
	struct ksyms_parse_stats st;
	struct ksyms *k = fixture_ksyms(&st);
	char small[8];

	ck_assert_uint_eq(st.lines, 24);
	ck_assert_uint_eq(st.malformed, 8);
	ck_assert_uint_eq(st.skipped, 4);	/* D, r, W, $x */
	ck_assert_uint_eq(st.zero, 0);
	check_fixture_table(k);
	/* A small buffer truncates, NUL-terminated. */
	ck_assert_int_eq(ksyms_lookup(k, K(0x81001008), small, sizeof(small)),
	    7);
	ck_assert_str_eq(small, "__pfx_d");
	/* __pfx_X and X share one string: the pool holds each name once. */
	ck_assert_uint_lt(ksyms_mem_bytes(k), 512);
	ksyms_free(k);
}
END_TEST

/* Any split of the text into chunks parses the same. */
START_TEST(ksyms_chunked)
{
	struct ksyms_parse_stats st;
	const char *cause = NULL;
	size_t len, off, n;
	char *text = test_data("kallsyms.txt", &len);

	for (size_t chunk = 1; chunk <= 41; chunk += 4) {
		struct ksyms_builder *b = ksyms_builder_new();
		struct ksyms *k;

		for (off = 0; off < len; off += n) {
			n = len - off < chunk ? len - off : chunk;
			ksyms_builder_feed_untrusted(b, text + off, n);
		}
		k = ksyms_builder_finish(b, &st, &cause);
		ck_assert_ptr_nonnull(k);
		ck_assert_uint_eq(st.malformed, 8);
		check_fixture_table(k);
		ksyms_free(k);
	}
	free(text);
}
END_TEST

START_TEST(ksyms_malformed)
{
	static const char *bad[] = {
		"",
		"\n\n\n",
		"ffffffff81000000\n",
		"ffffffff81000000 T \n",
		"ffffffff81000000 T\tname\n",
		"ffffffff81000000\tT name\n",
		"  ffffffff81000000 T name\n",
		"ffffffff81000000 T na\001me\n",
		"ffffffff81000000 T name\xff\n",
		"12345678123456781 T toolong_addr\n",
		"\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0 T nul\n",
		"ffffffff81000000 T name extra\n",
		"-1 T minus\n",
		"0x81000000 T hexprefix\n",
	};
	struct ksyms_parse_stats st;
	const char *cause = NULL;
	struct ksyms *k;
	char *big;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		size_t len = i == 10 ? 23 : strlen(bad[i]);

		k = ksyms_parse_untrusted(bad[i], len, &st, &cause);
		ck_assert_msg(k != NULL, "case %zu: %s", i, cause);
		ck_assert_msg(ksyms_count(k) == 0, "case %zu kept a symbol", i);
		ck_assert_msg(st.malformed == st.lines, "case %zu", i);
		expect_sym(k, K(0x81000000), NULL);
		ksyms_free(k);
	}
	/* A name at the kernel's limit is refused; one below is kept. An
	 * overlong line is skipped whole, the next line still parses. */
	big = malloc(4096);
	ck_assert_ptr_nonnull(big);
	memset(big, 'a', 4096);
	memcpy(big, "ffffffff81000000 T ", 19);
	big[19 + KSYMS_NAME_MAX] = '\n';
	k = ksyms_parse_untrusted(big, 20 + KSYMS_NAME_MAX, &st, &cause);
	ck_assert_uint_eq(ksyms_count(k), 0);
	ck_assert_uint_eq(st.malformed, 1);
	ksyms_free(k);
	big[19 + KSYMS_NAME_MAX - 1] = '\n';
	k = ksyms_parse_untrusted(big, 19 + KSYMS_NAME_MAX, &st, &cause);
	ck_assert_uint_eq(ksyms_count(k), 1);
	ksyms_free(k);
	memset(big, 'b', 4096);
	memcpy(big + 4000, "\nffffffff81000000 t after_long\n", 31);
	k = ksyms_parse_untrusted(big, 4031, &st, &cause);
	ck_assert_uint_eq(st.lines, 2);
	ck_assert_uint_eq(st.malformed, 1);
	expect_sym(k, K(0x81000010), "after_long");
	ksyms_free(k);
	free(big);
	/* No newline at the end: the last line still counts. */
	k = ksyms_parse_untrusted("ffffffff81000000 T last", 23, &st, &cause);
	expect_sym(k, K(0x81000000), "last");
	ksyms_free(k);
	/* kptr_restrict: every address reads 0. No symbol, never a wrong
	 * one. */
	k = ksyms_parse_untrusted("0000000000000000 T a\n"
	    "0000000000000000 T b\n0000000000000000 t c\n", 63, &st, &cause);
	ck_assert_uint_eq(ksyms_count(k), 0);
	ck_assert_uint_eq(st.zero, 3);
	expect_sym(k, 0, NULL);
	expect_sym(k, K(0x81000000), NULL);
	ksyms_free(k);
	/* Addresses over 4 GiB apart take the 64-bit table. */
	k = ksyms_parse_untrusted("0000000000001000 T low\n"
	    "ffffffff81000000 T high\n", 47, &st, &cause);
	expect_sym(k, 0x1010, "low");
	expect_sym(k, K(0x81000001), "high");
	ksyms_free(k);
}
END_TEST

struct xl_case {
	struct ftrace_translator	*xl;
	struct ftrace_cpu_counters	 ctr;
	struct ftrace_bundle		 b[2];
	struct test_sink		 ts;
	struct ksyms			*ks;
};

static void
xl_case_init(struct xl_case *c, int symbolize, const char *const *files,
    size_t nfiles)
{
	struct ftrace_xlate_opts o = { 0 };
	struct ftrace_format fmt;
	const char *cause = NULL;
	struct ftrace_sink sink;

	memset(c, 0, sizeof(*c));
	c->ks = fixture_ksyms(NULL);
	o.ksyms = symbolize ? c->ks : NULL;
	c->xl = ftrace_translator_new(&o);
	for (size_t i = 0; i < nfiles; i++) {
		char group[64];

		snprintf(group, sizeof(group), "%.*s",
		    (int)strcspn(files[i], "_"), files[i]);
		load_format(files[i], group, &fmt);
		ck_assert_int_eq(ftrace_translator_add(c->xl, &fmt, &cause), 0);
		ftrace_format_free(&fmt);
	}
	sink = test_sink_init(&c->ts);
	for (int cpu = 0; cpu < 2; cpu++)
		ftrace_bundle_init(&c->b[cpu], c->xl, &layout64,
		    (uint32_t)cpu, sink, &c->ctr);
}

static void
xl_case_free(struct xl_case *c)
{
	for (int cpu = 0; cpu < 2; cpu++)
		ftrace_bundle_free(&c->b[cpu]);
	test_sink_free(&c->ts);
	ftrace_translator_free(c->xl);
	ksyms_free(c->ks);
}

/* workqueue_execute_start (ID 335 in the format file): work, function. */
static void
pg_workqueue(struct pagebuf *pg, uint64_t work, uint64_t fn)
{
	uint32_t w[6] = { 335, 77, (uint32_t)work, (uint32_t)(work >> 32),
	    (uint32_t)fn, (uint32_t)(fn >> 32) };

	pg_record(pg, 10, w, 6, 0);
}

static void
translate_pg(struct xl_case *c, int cpu, struct pagebuf *pg)
{
	pg_commit(pg, 0);
	ck_assert_int_eq(ftrace_bundle_add_page_untrusted(&c->b[cpu],
	    pg->page, sizeof(pg->page)), 0);
	ftrace_bundle_finish(&c->b[cpu]);
}

static int
has_bytes(const uint8_t *h, size_t hn, const uint8_t *n, size_t nn)
{
	for (size_t i = 0; i + nn <= hn; i++)
		if (memcmp(h + i, n, nn) == 0)
			return 1;
	return 0;
}

/* Neither the 8 little-endian bytes nor the varint of addr, anywhere. */
static void
assert_no_leak(struct test_sink *ts, const uint64_t *addrs, size_t n)
{
	uint8_t le[8], vi[10], *buf;
	size_t len, vlen;

	for (size_t p = 0; p < ts->npkts; p++) {
		len = perfetto__protos__trace_packet__get_packed_size(
		    ts->pkts[p]);
		buf = malloc(len + 1);
		ck_assert_ptr_nonnull(buf);
		perfetto__protos__trace_packet__pack(ts->pkts[p], buf);
		for (size_t i = 0; i < n; i++) {
			memcpy(le, &addrs[i], 8);
			vlen = (size_t)(pbw_put_varint(vi, addrs[i]) - vi);
			ck_assert_msg(!has_bytes(buf, len, le, 8) &&
			    !has_bytes(buf, len, vi, vlen),
			    "address %#llx in packet %zu",
			    (unsigned long long)addrs[i], p);
			/* Nor its low 32 bits, when they are distinctive. */
			if ((uint32_t)addrs[i] >= 0x01000000)
				ck_assert_msg(!has_bytes(buf, len, le, 4),
				    "low half of %#llx in packet %zu",
				    (unsigned long long)addrs[i], p);
		}
		free(buf);
	}
}

static const Perfetto__Protos__WorkqueueExecuteStartFtraceEvent *
wq_event(struct test_sink *ts, size_t pkt, size_t i)
{
	const Perfetto__Protos__FtraceEventBundle *b;

	ck_assert_uint_lt(pkt, ts->npkts);
	b = ts->pkts[pkt]->ftrace_events;
	ck_assert_ptr_nonnull(b);
	ck_assert_uint_lt(i, b->n_event);
	ck_assert_int_eq(b->event[i]->event_case,
	    PERFETTO__PROTOS__FTRACE_EVENT__EVENT_WORKQUEUE_EXECUTE_START);
	return b->event[i]->workqueue_execute_start;
}

/* The kernel_symbols of a packet, as "iid=name,iid=name". */
static void
interned(const Perfetto__Protos__TracePacket *p, char *out, size_t outsz)
{
	size_t off = 0;

	out[0] = '\0';
	if (p->interned_data == NULL)
		return;
	for (size_t i = 0; i < p->interned_data->n_kernel_symbols; i++) {
		const Perfetto__Protos__InternedString *s =
		    p->interned_data->kernel_symbols[i];

		off += (size_t)snprintf(out + off, outsz - off, "%s%llu=%.*s",
		    i ? "," : "", (unsigned long long)s->iid,
		    (int)s->str.len, (const char *)s->str.data);
	}
}

static int
cleared(const Perfetto__Protos__TracePacket *p)
{
	return p->has_sequence_flags && (p->sequence_flags &
	    PERFETTO__PROTOS__TRACE_PACKET__SEQUENCE_FLAGS__SEQ_INCREMENTAL_STATE_CLEARED);
}

START_TEST(ksyms_workqueue_indexes)
{
	static const char *const files[] = {
	    "workqueue_workqueue_execute_start.format" };
	static const uint64_t addrs[] = { HEAP1, HEAP2, K(0x81002000),
	    K(0xc0a00000), K(0x81001010), K(0x81006000) };
	const Perfetto__Protos__WorkqueueExecuteStartFtraceEvent *e;
	struct xl_case c;
	struct pagebuf pg;
	char s[256];
	int symbolize = _i;

	xl_case_init(&c, symbolize, files, 1);
	/* Drain 1, cpu 0: two heap pointers, two functions, one reused. */
	pg_init(&pg, 1000);
	pg_workqueue(&pg, HEAP1, K(0x81002000));
	pg_workqueue(&pg, HEAP1, K(0xc0a00000));
	pg_workqueue(&pg, HEAP2, K(0x81002000));
	translate_pg(&c, 0, &pg);
	/* cpu 1: one index from cpu 0 again, one new. */
	pg_init(&pg, 2000);
	pg_workqueue(&pg, HEAP2, K(0x81001010));
	translate_pg(&c, 1, &pg);
	/* cpu 0 again: nothing new to name. */
	pg_init(&pg, 3000);
	pg_workqueue(&pg, HEAP1, K(0xc0a00000));
	translate_pg(&c, 0, &pg);
	ftrace_translator_drain_end(c.xl);
	/* Drain 2: numbering starts again, and so does the reader. */
	pg_init(&pg, 4000);
	pg_workqueue(&pg, HEAP2, K(0x81006000));
	translate_pg(&c, 0, &pg);

	ck_assert_uint_eq(c.ts.bad, 0);
	ck_assert_uint_eq(c.ts.npkts, 4);
	e = wq_event(&c.ts, 0, 0);
	ck_assert_uint_eq(e->work, 1);
	ck_assert_uint_eq(e->function, 2);
	e = wq_event(&c.ts, 0, 1);
	ck_assert_uint_eq(e->work, 1);
	ck_assert_uint_eq(e->function, 3);
	e = wq_event(&c.ts, 0, 2);
	ck_assert_uint_eq(e->work, 4);
	ck_assert_uint_eq(e->function, 2);
	e = wq_event(&c.ts, 1, 0);
	ck_assert_uint_eq(e->work, 4);
	ck_assert_uint_eq(e->function, 5);
	e = wq_event(&c.ts, 2, 0);
	ck_assert_uint_eq(e->work, 1);
	ck_assert_uint_eq(e->function, 3);
	e = wq_event(&c.ts, 3, 0);
	ck_assert_uint_eq(e->work, 1);
	ck_assert_uint_eq(e->function, 2);
	assert_no_leak(&c.ts, addrs, sizeof(addrs) / sizeof(addrs[0]));
	if (!symbolize) {
		/* Indexes only: no names, no state for the reader. */
		for (size_t p = 0; p < c.ts.npkts; p++) {
			ck_assert_ptr_null(c.ts.pkts[p]->interned_data);
			ck_assert(!c.ts.pkts[p]->has_sequence_flags);
		}
		ck_assert_uint_eq(c.ctr.syms_named, 0);
		xl_case_free(&c);
		return;
	}
	/* Heap pointers (1, 4) name nothing and are left out. */
	interned(c.ts.pkts[0], s, sizeof(s));
	ck_assert_str_eq(s, "2=process_one_work,3=mod_work_fn");
	ck_assert(cleared(c.ts.pkts[0]));
	interned(c.ts.pkts[1], s, sizeof(s));
	ck_assert_str_eq(s, "5=do_one_initcall");
	ck_assert(!c.ts.pkts[1]->has_sequence_flags);
	ck_assert_ptr_null(c.ts.pkts[2]->interned_data);
	ck_assert(!c.ts.pkts[2]->has_sequence_flags);
	interned(c.ts.pkts[3], s, sizeof(s));
	ck_assert_str_eq(s, "2=vfs_read");
	ck_assert(cleared(c.ts.pkts[3]));
	ck_assert_uint_eq(c.ctr.syms_named, 4);
	ck_assert_uint_eq(c.ctr.syms_unnamed, 3);
	xl_case_free(&c);
}
END_TEST

/* The first packet of a drain that uses an index clears the reader's
 * table even when no name resolves: an index never meets a stale name. */
START_TEST(ksyms_clear_without_names)
{
	static const char *const files[] = {
	    "workqueue_workqueue_execute_start.format" };
	struct xl_case c;
	struct pagebuf pg;
	char s[256];

	xl_case_init(&c, 1, files, 1);
	pg_init(&pg, 1000);
	pg_workqueue(&pg, HEAP1, HEAP2);
	translate_pg(&c, 0, &pg);
	pg_init(&pg, 2000);
	pg_workqueue(&pg, HEAP1, K(0x81002000));
	translate_pg(&c, 1, &pg);
	ck_assert_uint_eq(c.ts.npkts, 2);
	ck_assert(cleared(c.ts.pkts[0]));
	ck_assert_ptr_null(c.ts.pkts[0]->interned_data);
	ck_assert(!c.ts.pkts[1]->has_sequence_flags);
	interned(c.ts.pkts[1], s, sizeof(s));
	ck_assert_str_eq(s, "3=process_one_work");
	xl_case_free(&c);
}
END_TEST

/* More distinct addresses than a drain's table holds: the bundle is
 * closed with its names and numbering restarts, with a new CLEARED. */
START_TEST(ksyms_table_full)
{
	static const char *const files[] = {
	    "workqueue_workqueue_execute_start.format" };
	struct xl_case c;
	struct pagebuf pg;
	uint64_t max_iid = 0, next = K(0x81002000);
	size_t ncleared = 0, nev = 0;

	xl_case_init(&c, 1, files, 1);
	for (int p = 0; p < FTRACE_SYMS_MAX / 100 + 2; p++) {
		pg_init(&pg, 1000);
		for (int i = 0; i < 100; i++) {
			pg_workqueue(&pg, HEAP1, next);
			next += 16;
		}
		pg_commit(&pg, 0);
		ck_assert_int_eq(ftrace_bundle_add_page_untrusted(&c.b[0],
		    pg.page, sizeof(pg.page)), 0);
	}
	ftrace_bundle_finish(&c.b[0]);
	for (size_t p = 0; p < c.ts.npkts; p++) {
		const Perfetto__Protos__TracePacket *pk = c.ts.pkts[p];

		ncleared += cleared(pk);
		for (size_t i = 0; pk->interned_data &&
		    i < pk->interned_data->n_kernel_symbols; i++)
			if (pk->interned_data->kernel_symbols[i]->iid > max_iid)
				max_iid = pk->interned_data->kernel_symbols[i]->iid;
		nev += pk->ftrace_events ? pk->ftrace_events->n_event : 0;
	}
	ck_assert_uint_eq(c.ts.bad, 0);
	ck_assert_uint_eq(nev, (FTRACE_SYMS_MAX / 100 + 2) * 100);
	ck_assert_uint_eq(ncleared, 2);
	ck_assert_uint_le(max_iid, FTRACE_SYMS_MAX);
	ck_assert_uint_le(ftrace_translator_nsyms(c.xl), FTRACE_SYMS_MAX);
	xl_case_free(&c);
}
END_TEST

/*
 * function_graph records: func is an index (typed once the event table
 * has funcgraph_*, generic before), named in kernel_symbols; the raw
 * argument words (funcgraph-args) are never copied.
 */
START_TEST(ksyms_funcgraph)
{
	static const char *const files[] = { "ftrace_funcgraph_entry.format",
	    "ftrace_funcgraph_exit.format" };
	static const uint64_t addrs[] = { K(0x81001010), K(0x81006000) };
	uint64_t fn = K(0x81001010), arg = K(0x81006000);
	uint32_t entry[8] = { 11, 99, (uint32_t)fn, (uint32_t)(fn >> 32), 1,
	    0, (uint32_t)arg, (uint32_t)(arg >> 32) };
	uint32_t exit_[10] = { 10, 99, (uint32_t)fn, (uint32_t)(fn >> 32), 1,
	    0, 100, 0, 200, 0 };
	const Perfetto__Protos__FtraceEventBundle *b;
	struct xl_case c;
	struct pagebuf pg;
	char s[256];

	xl_case_init(&c, 1, files, 2);
	pg_init(&pg, 1000);
	pg_record(&pg, 1, entry, 8, 0);
	pg_record(&pg, 1, exit_, 10, 0);
	translate_pg(&c, 0, &pg);
	ck_assert_uint_eq(c.ts.npkts, 1);
	b = c.ts.pkts[0]->ftrace_events;
	ck_assert_uint_eq(b->n_event, 2);
	for (int i = 0; i < 2; i++) {
		const Perfetto__Protos__FtraceEvent *ev = b->event[i];
		const Perfetto__Protos__GenericFtraceEvent__Field *f;

		if (ev->event_case ==
		    PERFETTO__PROTOS__FTRACE_EVENT__EVENT_FUNCGRAPH_ENTRY) {
			ck_assert_uint_eq(ev->funcgraph_entry->func, 1);
			ck_assert_int_eq(ev->funcgraph_entry->depth, 1);
			continue;
		}
		if (ev->event_case ==
		    PERFETTO__PROTOS__FTRACE_EVENT__EVENT_FUNCGRAPH_EXIT) {
			ck_assert_uint_eq(ev->funcgraph_exit->func, 1);
			ck_assert_uint_eq(ev->funcgraph_exit->rettime, 200);
			continue;
		}
		ck_assert_int_eq(ev->event_case,
		    PERFETTO__PROTOS__FTRACE_EVENT__EVENT_GENERIC);
		f = test_generic_field(ev->generic, "func");
		ck_assert_ptr_nonnull(f);
		ck_assert_uint_eq(f->uint_value, 1);
		ck_assert_ptr_null(test_generic_field(ev->generic, "args"));
	}
	interned(c.ts.pkts[0], s, sizeof(s));
	ck_assert_str_eq(s, "1=do_one_initcall");
	ck_assert(cleared(c.ts.pkts[0]));
	assert_no_leak(&c.ts, addrs, 2);
	xl_case_free(&c);
}
END_TEST

/* Any event's `void *` field, 4 or 8 bytes, typed or generic: an index. */
START_TEST(ksyms_generic_void_ptr)
{
	static const char fmt_text[] =
	    "name: fuzz_ptrs\nID: 900\nformat:\n"
	    "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	    "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	    "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	    "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
	    "\tfield:void * p32;\toffset:8;\tsize:4;\tsigned:0;\n"
	    "\tfield:void *p64;\toffset:12;\tsize:8;\tsigned:0;\n"
	    "\tfield:unsigned long plain;\toffset:20;\tsize:8;\tsigned:0;\n";
	struct xl_case c;
	struct ftrace_format fmt;
	struct pagebuf pg;
	const char *cause = NULL;
	const Perfetto__Protos__GenericFtraceEvent *g;
	uint64_t p64 = K(0x81006000);
	uint32_t rec[7] = { 900, 1, 0x81001010, (uint32_t)p64,
	    (uint32_t)(p64 >> 32), 12345, 0 };
	char s[256];

	xl_case_init(&c, 1, NULL, 0);
	ck_assert_int_eq(ftrace_format_parse_untrusted(fmt_text,
	    strlen(fmt_text), "fuzz", &fmt, &cause), 0);
	ck_assert_int_eq(ftrace_translator_add(c.xl, &fmt, &cause), 0);
	ftrace_format_free(&fmt);
	pg_init(&pg, 100);
	pg_record(&pg, 1, rec, 7, 0);
	translate_pg(&c, 0, &pg);
	ck_assert_uint_eq(c.ts.npkts, 1);
	g = c.ts.pkts[0]->ftrace_events->event[0]->generic;
	ck_assert_ptr_nonnull(g);
	ck_assert_uint_eq(test_generic_field(g, "p32")->uint_value, 1);
	ck_assert_uint_eq(test_generic_field(g, "p64")->uint_value, 2);
	ck_assert_uint_eq(test_generic_field(g, "plain")->uint_value, 12345);
	/* A 4-byte address cannot be a 64-bit kernel symbol: unnamed. */
	interned(c.ts.pkts[0], s, sizeof(s));
	ck_assert_str_eq(s, "2=vfs_read");
	xl_case_free(&c);
}
END_TEST

/* ---- function graph settings, on a directory that stands in for tracefs ---- */

struct fake_fs {
	char	top[64];
	char	state[64];
};

static void
fake_put(const struct fake_fs *f, const char *rel, const char *val)
{
	char path[256];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", f->top, rel);
	fp = fopen(path, "w");
	ck_assert_ptr_nonnull(fp);
	fputs(val, fp);
	fclose(fp);
}

static char *
fake_get(const struct fake_fs *f, const char *rel)
{
	static char buf[4][256];
	static int k;
	char path[256], *b = buf[k++ & 3];
	size_t n;
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", f->top, rel);
	fp = fopen(path, "r");
	ck_assert_ptr_nonnull(fp);
	n = fread(b, 1, 255, fp);
	fclose(fp);
	/* Lines as one line, as the controller writes them back. */
	while (n > 0 && b[n - 1] == '\n')
		n--;
	b[n] = '\0';
	for (char *p = b; (p = strchr(p, '\n')) != NULL;)
		*p = ' ';
	return b;
}

static void
fake_init(struct fake_fs *f)
{
	snprintf(f->top, sizeof(f->top), "/tmp/faro-fakefs.XXXXXX");
	snprintf(f->state, sizeof(f->state), "/tmp/faro-fakest.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(f->top));
	ck_assert_ptr_nonnull(mkdtemp(f->state));
	fake_put(f, "tracing_on", "1\n");
	fake_put(f, "current_tracer", "nop\n");
	fake_put(f, "trace_clock", "[local] global boot\n");
	fake_put(f, "buffer_size_kb", "1408\n");
	fake_put(f, "trace", "");
	fake_put(f, "available_tracers", "blk function_graph function nop\n");
	fake_put(f, "set_ftrace_filter", "#### all functions enabled ####\n");
	fake_put(f, "set_graph_function", "old_root\nother_root\n");
	fake_put(f, "max_graph_depth", "0\n");
}

static void
fake_free(struct fake_fs *f)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "rm -rf %s %s", f->top, f->state);
	ck_assert_int_eq(system(cmd), 0);
}

/*
 * The values a function graph session must leave as it found them. An
 * unset filter reads "#### all functions enabled ####" and is put back
 * by clearing it: filter is what it reads as now.
 */
static void
fake_unchanged(const struct fake_fs *f, const char *filter)
{
	ck_assert_str_eq(fake_get(f, "tracing_on"), "1");
	ck_assert_str_eq(fake_get(f, "current_tracer"), "nop");
	ck_assert_str_eq(fake_get(f, "set_ftrace_filter"), filter);
	ck_assert_str_eq(fake_get(f, "set_graph_function"),
	    "old_root other_root");
	ck_assert_str_eq(fake_get(f, "max_graph_depth"), "0");
}

START_TEST(function_graph_settings)
{
	static const char *filters[] = { "vfs_*", "do_sys_open" };
	static const char *roots[] = { "do_sys_openat2" };
	static const char *bad[] = { "ok_name", "x;rm" };
	struct ftrace_ctl_req req = { 0 }, plain = { 0 };
	const char *cause = NULL;
	struct ftrace_ctl *ctl;
	struct fake_fs f;
	char err[256];
	int h1, h2;

	fake_init(&f);
	ctl = ftrace_ctl_new(f.top, NULL, f.state, &cause);
	ck_assert_ptr_nonnull(ctl);
	req.function_graph = 1;
	req.function_filters = filters;
	req.nfunction_filters = 2;
	req.graph_roots = roots;
	req.ngraph_roots = 1;
	req.graph_max_depth = 3;

	/* A name that is not a function or glob: refused, nothing written. */
	req.function_filters = bad;
	ck_assert_int_eq(ftrace_ctl_add(ctl, &req, NULL, err, sizeof(err)), -1);
	ck_assert_msg(strstr(err, "x;rm") != NULL, "%s", err);
	fake_unchanged(&f, "#### all functions enabled ####");
	req.function_filters = filters;

	/* The owner: filters, roots, depth, then the tracer. */
	h1 = ftrace_ctl_add(ctl, &req, NULL, err, sizeof(err));
	ck_assert_msg(h1 > 0, "%s", err);
	ck_assert_int_eq(ftrace_ctl_function_graph(ctl), 1);
	ck_assert_str_eq(fake_get(&f, "set_ftrace_filter"), "vfs_* do_sys_open");
	ck_assert_str_eq(fake_get(&f, "set_graph_function"), "do_sys_openat2");
	ck_assert_str_eq(fake_get(&f, "max_graph_depth"), "3");
	ck_assert_str_eq(fake_get(&f, "current_tracer"), "function_graph");
	/* A second session asking for it is refused; one without joins. */
	ck_assert_int_eq(ftrace_ctl_add(ctl, &req, NULL, err, sizeof(err)), -1);
	ck_assert_msg(strstr(err, "to itself") != NULL, "%s", err);
	h2 = ftrace_ctl_add(ctl, &plain, NULL, err, sizeof(err));
	ck_assert_msg(h2 > 0, "%s", err);
	/* The owner leaves: the tracer stays for the other's open readers. */
	ftrace_ctl_remove(ctl, h1);
	ck_assert_str_eq(fake_get(&f, "current_tracer"), "function_graph");
	ftrace_ctl_remove(ctl, h2);
	ck_assert_int_eq(ftrace_ctl_function_graph(ctl), 0);
	/* What "all functions" reads as is put back by clearing it. */
	fake_unchanged(&f, "");

	ftrace_ctl_free(ctl);
	fake_free(&f);

	/* A crash: the state file puts every value back. */
	fake_init(&f);
	ctl = ftrace_ctl_new(f.top, NULL, f.state, &cause);
	h1 = ftrace_ctl_add(ctl, &req, NULL, err, sizeof(err));
	ck_assert_msg(h1 > 0, "%s", err);
	ck_assert_int_eq(ftrace_ctl_cleanup(f.state, &cause), 1);
	fake_unchanged(&f, "");
	ftrace_ctl_free(ctl);
	fake_free(&f);

	/* The kernel refuses the tracer (lockdown gives EPERM; here the
	 * file cannot be written at all): everything is put back. */
	fake_init(&f);
	ctl = ftrace_ctl_new(f.top, NULL, f.state, &cause);
	ck_assert_int_eq(unlink(strcat(strcpy(err, f.top),
	    "/current_tracer")), 0);
	ck_assert_int_eq(mkdir(err, 0700), 0);
	ck_assert_int_eq(ftrace_ctl_add(ctl, &req, NULL, err, sizeof(err)), -1);
	ck_assert_msg(strstr(err, "current_tracer") != NULL, "%s", err);
	ck_assert_str_eq(fake_get(&f, "tracing_on"), "1");
	ck_assert_str_eq(fake_get(&f, "set_ftrace_filter"), "");
	ck_assert_str_eq(fake_get(&f, "set_graph_function"),
	    "old_root other_root");
	ck_assert_str_eq(fake_get(&f, "max_graph_depth"), "0");
	ck_assert_int_eq(ftrace_ctl_function_graph(ctl), 0);
	rmdir(strcat(strcpy(err, f.top), "/current_tracer"));
	ftrace_ctl_free(ctl);
	fake_free(&f);

	/* No function_graph in available_tracers: refused up front. */
	fake_init(&f);
	ctl = ftrace_ctl_new(f.top, NULL, f.state, &cause);
	fake_put(&f, "available_tracers", "blk function nop\n");
	ck_assert_int_eq(ftrace_ctl_add(ctl, &req, NULL, err, sizeof(err)), -1);
	ck_assert_msg(strstr(err, "no function_graph tracer") != NULL, "%s",
	    err);
	fake_unchanged(&f, "#### all functions enabled ####");
	/* A filter we could not put back (a filter command): refused. */
	fake_put(&f, "available_tracers", "function_graph nop\n");
	fake_put(&f, "set_ftrace_filter", "schedule:traceoff:unlimited\n");
	ck_assert_int_eq(ftrace_ctl_add(ctl, &req, NULL, err, sizeof(err)), -1);
	ck_assert_msg(strstr(err, "put back") != NULL, "%s", err);
	ck_assert_str_eq(fake_get(&f, "current_tracer"), "nop");
	ftrace_ctl_free(ctl);
	fake_free(&f);
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
	tc = tcase_create("ksyms");
	tcase_add_test(tc, ksyms_fixture);
	tcase_add_test(tc, ksyms_chunked);
	tcase_add_test(tc, ksyms_malformed);
	tcase_add_loop_test(tc, ksyms_workqueue_indexes, 0, 2);
	tcase_add_test(tc, ksyms_clear_without_names);
	tcase_add_test(tc, ksyms_table_full);
	tcase_add_test(tc, ksyms_funcgraph);
	tcase_add_test(tc, ksyms_generic_void_ptr);
	suite_add_tcase(s, tc);
	tc = tcase_create("controller");
	tcase_add_test(tc, function_graph_settings);
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
