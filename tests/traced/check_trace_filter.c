/*
 * check_trace_filter: traced's trace filter (trace_filter.c) on bytecode
 * assembled here word by word, as upstream's proto_filter would emit it,
 * and on packets built here byte by byte: what is kept, what is dropped,
 * nested messages, lengths, string rules, and bytecode that must be
 * refused.
 */
#include "config.h"

#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "traced.h"

/* ---- assembling bytecode and packets ------------------------------- */

struct buf {
	uint8_t	 b[4096];
	size_t	 len;
};

static void
put_varint(struct buf *b, uint64_t v)
{
	do {
		b->b[b->len++] = (uint8_t)((v & 0x7f) | (v >= 0x80 ? 0x80 : 0));
		v >>= 7;
	} while (v != 0);
}

/* Words, then their checksum. */
static struct buf
bytecode(const uint32_t *w, size_t n)
{
	struct buf	 b = { .len = 0 };

	for (size_t i = 0; i < n; i++)
		put_varint(&b, w[i]);
	put_varint(&b, trace_filter_checksum(w, n));
	return b;
}

/* The checksum is upstream's: FNV-1a 64 of the words' LE bytes, cut. */
START_TEST(test_checksum)
{
	static const uint32_t	w[] = { 11, 1, 0 };

	ck_assert_uint_eq(trace_filter_checksum(NULL, 0), 0x84222325u);
	/* 0xcbf29ce484222325 ^ 11, * prime, then 3 zero bytes, ... */
	{
		uint64_t h = 0xcbf29ce484222325ull;
		const uint8_t bytes_[] = { 11, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0 };

		for (size_t i = 0; i < sizeof(bytes_); i++) {
			h ^= bytes_[i];
			h *= 0x100000001b3ull;
		}
		ck_assert_uint_eq(trace_filter_checksum(w, 3), (uint32_t)h);
	}
}
END_TEST

#define BC(...) ({							\
	static const uint32_t w_[] = { __VA_ARGS__ };			\
	bytecode(w_, sizeof(w_) / sizeof(w_[0]));			\
})

#define F(id, op)	((uint32_t)(id) << 3 | (op))

/*
 * 0 Trace:       packet(1) -> 1
 * 1 TracePacket: trusted_uid(3), timestamp(8), trusted_sequence_id(10),
 *                for_testing(900) -> 2, big(5000) simple
 * 2 TestEvent:   str(1) filtered string, payload(5) -> 3
 * 3 TestPayload: single_string(4), [5, 7)
 */
static const uint32_t prog[] = {
	F(1, 3), 1, 0,
	F(3, 1), F(8, 1), F(10, 1), F(900, 3), 2, F(5000, 1), 0,
	F(1, 4), F(5, 3), 3, 0,
	F(4, 1), F(5, 2), 2, 0,
};

static struct trace_filter *
load(const struct buf *bc, const struct buf *ov)
{
	struct trace_filter	*tf = trace_filter_new_empty();
	const char		*cause = NULL;

	ck_assert_ptr_nonnull(tf);
	ck_assert_msg(trace_filter_load_untrusted(tf, bc->b, bc->len,
	    ov ? ov->b : NULL, ov ? ov->len : 0, &cause) == 0, "%s", cause);
	return tf;
}

static void
tag(struct buf *b, uint32_t id, int wt)
{
	put_varint(b, (uint64_t)id << 3 | (uint64_t)wt);
}

static void
bytes(struct buf *b, uint32_t id, const void *p, size_t len)
{
	tag(b, id, 2);
	put_varint(b, len);
	memcpy(b->b + b->len, p, len);
	b->len += len;
}

static void
varint(struct buf *b, uint32_t id, uint64_t v)
{
	tag(b, id, 0);
	put_varint(b, v);
}

static void
sub(struct buf *b, uint32_t id, const struct buf *m)
{
	bytes(b, id, m->b, m->len);
}

static ssize_t
run(struct trace_filter *tf, const struct buf *in, struct buf *out)
{
	const uint8_t	*o;
	ssize_t		 n;

	n = trace_filter_packet_untrusted(tf, in->b, in->len, NULL, 0, &o);
	if (n > 0) {
		memcpy(out->b, o, (size_t)n);
		out->len = (size_t)n;
	}
	return n;
}

static void
assert_bytes(const struct buf *got, const struct buf *want)
{
	ck_assert_uint_eq(got->len, want->len);
	ck_assert_mem_eq(got->b, want->b, want->len);
}

/* ---- tests ---------------------------------------------------------- */

START_TEST(test_keep_and_drop)
{
	struct buf	 bc = bytecode(prog, sizeof(prog) / sizeof(prog[0]));
	struct trace_filter *tf = load(&bc, NULL);
	struct buf	 in = { .len = 0 }, ev = { .len = 0 }, pl = { .len = 0 },
			 want = { .len = 0 }, wev = { .len = 0 },
			 wpl = { .len = 0 }, out = { .len = 0 };
	uint8_t		 fixed[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };

	/* payload: str "x" (dropped), single_string (kept), 5 and 6 (range) */
	bytes(&pl, 1, "x", 1);
	bytes(&pl, 4, "keep", 4);
	varint(&pl, 5, 77);
	tag(&pl, 6, 1);
	memcpy(pl.b + pl.len, fixed, 8);
	pl.len += 8;
	tag(&pl, 7, 5);				/* fixed32, not allowed */
	memcpy(pl.b + pl.len, fixed, 4);
	pl.len += 4;
	bytes(&ev, 1, "abc", 3);
	varint(&ev, 2, 7);			/* seq_value: dropped */
	sub(&ev, 5, &pl);
	varint(&in, 8, 12345);
	varint(&in, 77, 1);			/* unknown: dropped */
	sub(&in, 900, &ev);
	varint(&in, 5000, 9);			/* a big id, kept */
	bytes(&in, 6001, "zz", 2);		/* a big id, dropped */
	varint(&in, 3, 1000);

	bytes(&wpl, 4, "keep", 4);
	varint(&wpl, 5, 77);
	tag(&wpl, 6, 1);
	memcpy(wpl.b + wpl.len, fixed, 8);
	wpl.len += 8;
	bytes(&wev, 1, "abc", 3);
	sub(&wev, 5, &wpl);
	varint(&want, 8, 12345);
	sub(&want, 900, &wev);
	varint(&want, 5000, 9);
	varint(&want, 3, 1000);

	ck_assert_int_eq(run(tf, &in, &out), (ssize_t)want.len);
	assert_bytes(&out, &want);
	trace_filter_free(tf);
}
END_TEST

/* Body and trailer are filtered as one packet. */
START_TEST(test_trailer)
{
	struct buf	 bc = bytecode(prog, sizeof(prog) / sizeof(prog[0]));
	struct trace_filter *tf = load(&bc, NULL);
	struct buf	 body = { .len = 0 }, tr = { .len = 0 },
			 want = { .len = 0 };
	const uint8_t	*o;

	varint(&body, 8, 5);
	varint(&tr, 3, 1000);
	varint(&tr, 79, 42);			/* trusted_pid: not allowed */
	varint(&tr, 10, 2);
	varint(&want, 8, 5);
	varint(&want, 3, 1000);
	varint(&want, 10, 2);
	ck_assert_int_eq(trace_filter_packet_untrusted(tf, body.b, body.len,
	    tr.b, tr.len, &o), (ssize_t)want.len);
	ck_assert_mem_eq(o, want.b, want.len);
	trace_filter_free(tf);
}
END_TEST

/*
 * A submessage keeps the width of its input length; padded (non-minimal)
 * input varints come out minimal.
 */
START_TEST(test_lengths)
{
	struct buf	 bc = bytecode(prog, sizeof(prog) / sizeof(prog[0]));
	struct trace_filter *tf = load(&bc, NULL);
	struct buf	 in = { .len = 0 }, ev = { .len = 0 }, out = { .len = 0 };
	char		 big[300];
	const uint8_t	 padded[] = {
		0x40, 0x85, 0x80, 0x80, 0x00,	/* timestamp = 5, padded */
		0xa2, 0x38, 0x85, 0x80, 0x80, 0x00,	/* 900, len 5 padded */
		0x0a, 0x01, 'q',		/* str "q" */
		0x10, 0x01,			/* seq_value: dropped */
	};
	const uint8_t	 padded_want[] = {
		0x40, 0x05,
		0xa2, 0x38, 0x03, 0x0a, 0x01, 'q',
	};

	memset(big, 'y', sizeof(big));
	bytes(&ev, 1, "s", 1);
	bytes(&ev, 2, big, sizeof(big));	/* 300 bytes to drop */
	sub(&in, 900, &ev);
	ck_assert_int_gt(run(tf, &in, &out), 0);
	/* tag 900 (2 bytes), then a 2-byte length holding 3: 0x83 0x00 */
	ck_assert_uint_eq(out.len, 2 + 2 + 3);
	ck_assert_uint_eq(out.b[2], 0x83);
	ck_assert_uint_eq(out.b[3], 0x00);
	ck_assert_uint_eq(out.b[4], 0x0a);

	memcpy(in.b, padded, sizeof(padded));
	in.len = sizeof(padded);
	ck_assert_int_eq(run(tf, &in, &out), (ssize_t)sizeof(padded_want));
	ck_assert_mem_eq(out.b, padded_want, sizeof(padded_want));
	trace_filter_free(tf);
}
END_TEST

START_TEST(test_malformed_packets)
{
	struct buf	 bc = bytecode(prog, sizeof(prog) / sizeof(prog[0]));
	struct trace_filter *tf = load(&bc, NULL);
	struct buf	 out = { .len = 0 };
	static const struct {
		uint8_t	 b[16];
		size_t	 len;
	} bad[] = {
		{ { 0x40 }, 1 },			/* varint cut short */
		{ { 0x40, 0x80 }, 2 },
		{ { 0x0b, 0x00 }, 2 },			/* group wire type */
		{ { 0x0e, 0x00 }, 2 },			/* wire type 6 */
		{ { 0x02, 0x00 }, 2 },			/* field 0 */
		{ { 0x49, 1, 2, 3 }, 4 },		/* fixed64 cut short */
		{ { 0xa2, 0x38, 0x05, 0x0a, 0x01 }, 5 },/* past the packet */
		/* a string longer than its parent message */
		{ { 0xa2, 0x38, 0x03, 0x0a, 0x05, 'a', 'b', 'c', 'd', 'e' },
		  10 },
		/* a varint cut by its submessage's end */
		{ { 0xa2, 0x38, 0x02, 0x10, 0x80, 0x01 }, 6 },
		/* 11-byte varint */
		{ { 0x40, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
		    0x80, 0x80, 0x01 }, 12 },
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct buf in = { .len = bad[i].len };

		memcpy(in.b, bad[i].b, bad[i].len);
		ck_assert_msg(run(tf, &in, &out) == -1, "bad[%zu]", i);
	}
	/* An empty packet is fine, and empty submessages are kept. */
	{
		struct buf in = { .len = 0 }, e = { .len = 0 };

		ck_assert_int_eq(run(tf, &in, &out), 0);
		sub(&in, 900, &e);
		ck_assert_int_eq(run(tf, &in, &out), 3);
	}
	trace_filter_free(tf);
}
END_TEST

/* Nesting deeper than the filter follows is an error, never a crash. */
START_TEST(test_deep_nesting)
{
	/* 0: packet -> 1; 1: field 1 -> 1 (recursive) */
	struct buf	 bc = BC(F(1, 3), 1, 0, F(1, 3), 1, 0);
	struct trace_filter *tf = load(&bc, NULL);
	static uint8_t	 in[4000];
	const uint8_t	*o;
	size_t		 n, i;

	/* 60 levels of field 1 with one-byte lengths, innermost empty */
	n = 60;
	for (i = 0; i < n; i++) {
		in[2 * i] = 0x0a;
		in[2 * i + 1] = (uint8_t)(2 * (n - 1 - i));
	}
	ck_assert_int_eq(trace_filter_packet_untrusted(tf, in, 2 * n, NULL,
	    0, &o), (ssize_t)(2 * n));
	ck_assert_mem_eq(o, in, 2 * n);
	trace_filter_free(tf);
	/* 200 levels, each length two bytes: deeper than the filter's stack */
	tf = load(&bc, NULL);
	{
		size_t	len = 0, k;

		n = 200;
		for (i = 0; i < n; i++) {
			k = 3 * (n - 1 - i);
			in[len++] = 0x0a;
			in[len++] = (uint8_t)((k & 0x7f) | 0x80);
			in[len++] = (uint8_t)(k >> 7);
		}
		ck_assert_int_eq(trace_filter_packet_untrusted(tf, in, len,
		    NULL, 0, &o), -1);
	}
	trace_filter_free(tf);
}
END_TEST

/* Bytecode that upstream refuses is refused, with a cause. */
START_TEST(test_bad_bytecode)
{
	struct buf	 good = bytecode(prog, sizeof(prog) / sizeof(prog[0]));
	struct buf	 bad[12];
	struct trace_filter *tf = trace_filter_new_empty();
	const char	*cause;
	size_t		 n = 0, i;

	bad[n] = good;
	bad[n++].b[good.len - 1] ^= 0x01;	/* checksum */
	bad[n] = good;
	bad[n++].b[3] ^= 0x08;			/* a word changed */
	bad[n++] = BC(F(1, 3), 1);		/* unterminated message */
	bad[n++] = BC(F(1, 3), 5, 0);		/* nested index out of range */
	bad[n++] = BC(F(0, 1), 0);		/* field 0 */
	bad[n++] = BC(F(1, 3), 1, 0, F(3, 6), 0);	/* opcode 6 */
	bad[n++] = BC(F(1, 1), 0);		/* packet is not nested */
	bad[n++] = BC(F(1, 3));			/* argument missing */
	bad[n++] = BC(F(1, 3), 1, 0, F(200, 1), F(150, 2), 60, 0);	/* overlap */
	bad[n++] = BC(F(1, 3), 1, 0, F(5, 2), 0x20000000, 0);	/* range past max */
	bad[n].len = 0;				/* empty */
	n++;
	memcpy(bad[n].b, "\x8b\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80", 11);
	bad[n++].len = 11;			/* varint too long */

	for (i = 0; i < n; i++) {
		cause = NULL;
		ck_assert_msg(trace_filter_load_untrusted(tf, bad[i].b,
		    bad[i].len, NULL, 0, &cause) == -1, "bad[%zu] loaded", i);
		ck_assert_ptr_nonnull(cause);
		ck_assert_msg(strstr(cause, "invalid") != NULL, "%s", cause);
	}
	/* A failed load leaves nothing behind: packets are refused. */
	{
		const uint8_t	 pk[] = { 0x40, 0x01 };
		const uint8_t	*o;

		ck_assert_int_eq(trace_filter_packet_untrusted(tf, pk, 2, NULL,
		    0, &o), -1);
	}
	ck_assert_int_eq(trace_filter_load_untrusted(tf, good.b, good.len,
	    NULL, 0, &cause), 0);
	trace_filter_free(tf);
}
END_TEST

/* bytecode_overlay_v54 adds fields and upgrades existing ones. */
START_TEST(test_overlay)
{
	struct buf	 bc = bytecode(prog, sizeof(prog) / sizeof(prog[0]));
	/* TestEvent: seq_value(2) added; TestPayload: big field 300 added */
	struct buf	 ov = BC(2, F(2, 1), 0, 3, F(300, 1), 0);
	struct buf	 bad_order = BC(2, F(2, 1), 0, 2, F(1, 1), 0);
	struct buf	 bad_msg = BC(9, F(2, 1), 0);
	struct buf	 bad_op = BC(2, F(2, 3), 1);
	struct trace_filter *tf = load(&bc, &ov);
	struct buf	 in = { .len = 0 }, ev = { .len = 0 }, pl = { .len = 0 },
			 out = { .len = 0 };
	const char	*cause;

	varint(&pl, 300, 1);
	varint(&ev, 2, 7);
	sub(&ev, 5, &pl);
	sub(&in, 900, &ev);
	ck_assert_int_eq(run(tf, &in, &out), (ssize_t)in.len);
	assert_bytes(&out, &in);
	ck_assert_int_eq(trace_filter_load_untrusted(tf, bc.b, bc.len,
	    bad_order.b, bad_order.len, &cause), -1);
	ck_assert_int_eq(trace_filter_load_untrusted(tf, bc.b, bc.len,
	    bad_msg.b, bad_msg.len, &cause), -1);
	ck_assert_int_eq(trace_filter_load_untrusted(tf, bc.b, bc.len,
	    bad_op.b, bad_op.len, &cause), -1);
	trace_filter_free(tf);
}
END_TEST

typedef Perfetto__Protos__TraceConfig__TraceFilter TraceFilter;
typedef Perfetto__Protos__TraceConfig__TraceFilter__StringFilterRule Rule;

/* A TraceFilter config with prog as bytecode_v2 and the given rules. */
static struct trace_filter *
load_rules(Rule **rules, size_t n, const char **cause)
{
	static struct buf	 bc;
	TraceFilter		 tfc = PERFETTO__PROTOS__TRACE_CONFIG__TRACE_FILTER__INIT;
	Perfetto__Protos__TraceConfig__TraceFilter__StringFilterChain ch =
	    PERFETTO__PROTOS__TRACE_CONFIG__TRACE_FILTER__STRING_FILTER_CHAIN__INIT;

	bc = bytecode(prog, sizeof(prog) / sizeof(prog[0]));
	tfc.has_bytecode_v2 = 1;
	tfc.bytecode_v2.data = bc.b;
	tfc.bytecode_v2.len = bc.len;
	ch.rules = rules;
	ch.n_rules = n;
	tfc.string_filter_chain = &ch;
	return trace_filter_new(&tfc, cause);
}

static void
rule_init(Rule *r, int policy, const char *re, const char *atrace)
{
	perfetto__protos__trace_config__trace_filter__string_filter_rule__init(
	    r);
	r->has_policy = 1;
	r->policy = policy;
	r->regex_pattern = (char *)re;
	r->atrace_payload_starts_with = (char *)atrace;
}

/* The string TestEvent.str after filtering s. */
static void
filter_str(struct trace_filter *tf, const char *s, char *res)
{
	struct buf	 in = { .len = 0 }, ev = { .len = 0 }, out = { .len = 0 };

	bytes(&ev, 1, s, strlen(s));
	sub(&in, 900, &ev);
	ck_assert_int_eq(run(tf, &in, &out), (ssize_t)in.len);
	/* tag (2), len (1), str tag (1), str len (1) */
	memcpy(res, out.b + 5, strlen(s));
	res[strlen(s)] = '\0';
}

START_TEST(test_string_rules)
{
	Rule		 r[4], *rp[4] = { &r[0], &r[1], &r[2], &r[3] };
	struct trace_filter *tf;
	const char	*cause = NULL;
	char		 res[128];
	static const struct {
		const char	*in, *want;
	} cases[] = {
		{ "keep=1234", "keep=1234" },		/* break: kept */
		{ "foo=1234", "foo=P60R" },
		{ "foo=123456789012345", "foo=P60REDACTED----" },
		{ "foo=12a", "foo=12a" },		/* no full match */
		{ "B|12|login pw=abc pw=hunter2",
		  "B|12|login pw=P60 pw=P60REDA" },	/* every match */
		{ "B|12|other pw=abc", "B|12|other pw=abc" },
		{ "E|12|login pw=abc", "E|12|login pw=abc" },	/* no payload */
		{ "B|7|secret stuff", "B|7|P60REDACTED-" },
	};

	rule_init(&r[0], 3, "keep=(\\d+)", NULL);		/* MATCH_BREAK */
	rule_init(&r[1], 1, "[a-z]+=(\\d+)", NULL);	/* MATCH_REDACT */
	rule_init(&r[2], 5, "pw=(\\w+)", "login");	/* ATRACE_SEARCH */
	rule_init(&r[3], 2, "B\\|[0-9]+\\|(.*)", "secret");	/* ATRACE_MATCH */
	tf = load_rules(rp, 4, &cause);
	ck_assert_msg(tf != NULL, "%s", cause);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		filter_str(tf, cases[i].in, res);
		ck_assert_str_eq(res, cases[i].want);
	}
	trace_filter_free(tf);

	/* A rule typed for another semantic type does not apply. */
	rule_init(&r[0], 1, "(.*)", NULL);
	r[0].n_semantic_type = 1;
	r[0].semantic_type = (Perfetto__Protos__SemanticType[]){ 5 };
	tf = load_rules(rp, 1, &cause);
	ck_assert_ptr_nonnull(tf);
	filter_str(tf, "abc", res);
	ck_assert_str_eq(res, "abc");
	trace_filter_free(tf);

	/* Rules that cannot work refuse the filter with a cause. */
	rule_init(&r[0], 0, "x", NULL);
	ck_assert_ptr_null(load_rules(rp, 1, &cause));
	ck_assert_str_eq(cause, "Trace filter has invalid string filtering "
	    "rules");
	rule_init(&r[0], 1, "(unbalanced", NULL);
	ck_assert_ptr_null(load_rules(rp, 1, &cause));
	ck_assert_ptr_nonnull(strstr(cause, "regex"));
	rule_init(&r[0], 1, "(a)\\1", NULL);
	ck_assert_ptr_null(load_rules(rp, 1, &cause));
	ck_assert_ptr_nonnull(strstr(cause, "back-references"));
	rule_init(&r[0], 1, "x", NULL);
	r[0].n_semantic_type = 1;
	r[0].semantic_type = (Perfetto__Protos__SemanticType[]){ 200 };
	ck_assert_ptr_null(load_rules(rp, 1, &cause));
	ck_assert_ptr_nonnull(strstr(cause, "semantic"));
}
END_TEST

static Suite *
trace_filter_suite(void)
{
	Suite	*s = suite_create("trace_filter");
	TCase	*tc = tcase_create("filter");

	tcase_add_test(tc, test_checksum);
	tcase_add_test(tc, test_keep_and_drop);
	tcase_add_test(tc, test_trailer);
	tcase_add_test(tc, test_lengths);
	tcase_add_test(tc, test_malformed_packets);
	tcase_add_test(tc, test_deep_nesting);
	tcase_add_test(tc, test_bad_bytecode);
	tcase_add_test(tc, test_overlay);
	tcase_add_test(tc, test_string_rules);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner	*sr = srunner_create(trace_filter_suite());
	int	 failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
