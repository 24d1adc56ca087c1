/*
 * The trace filter's cost: MB/s of packets read out with and without
 * TraceConfig.trace_filter, in process, on the stage readback runs per
 * packet (packet_validate_untrusted, then a copy to the sink, or the
 * filter, whose output goes to the sink).
 *
 *   bench_trace_filter [seconds_per_case]
 *
 * Packets: 4096 TracePackets of about 300 bytes (timestamp, a TestEvent
 * with a string, varints and a payload of strings, ints and a nested
 * message), each with the service's trusted trailer. Filters: one that
 * keeps every field (the worst case: everything is rewritten), one that
 * keeps the top level and drops the payload, and one with a string rule
 * on TestEvent.str. Build without ASan (configure CFLAGS=-O2) for figures.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "libshm/pbw.h"
#include "traced.h"

#define NPACKETS	4096

struct buf {
	uint8_t	*b;
	size_t	 len, cap;
};

static void
put(struct buf *b, const void *p, size_t n)
{
	if (b->len + n > b->cap) {
		b->cap = (b->len + n) * 2;
		b->b = realloc(b->b, b->cap);
	}
	memcpy(b->b + b->len, p, n);
	b->len += n;
}

static void
put_varint(struct buf *b, uint64_t v)
{
	uint8_t	 t[10];

	put(b, t, (size_t)(pbw_put_varint(t, v) - t));
}

static void
put_bytes(struct buf *b, uint32_t id, const void *p, size_t n)
{
	put_varint(b, id << 3 | 2);
	put_varint(b, n);
	put(b, p, n);
}

static void
put_int(struct buf *b, uint32_t id, uint64_t v)
{
	put_varint(b, id << 3);
	put_varint(b, v);
}

static void
put_sub(struct buf *b, uint32_t id, struct buf *m)
{
	put_bytes(b, id, m->b, m->len);
	m->len = 0;
}

static double
now_s(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static ProtobufCBinaryData
bytecode(const uint32_t *w, size_t n)
{
	ProtobufCBinaryData	 d;
	struct buf		 b = { 0 };

	for (size_t i = 0; i < n; i++)
		put_varint(&b, w[i]);
	put_varint(&b, trace_filter_checksum(w, n));
	d.data = b.b;
	d.len = b.len;
	return d;
}

#define F(id, op)	((uint32_t)(id) << 3 | (op))

static const uint32_t keep_all[] = {
	F(1, 3), 1, 0,
	F(3, 1), F(8, 1), F(10, 1), F(79, 1), F(900, 3), 2, 0,
	F(1, 1), F(2, 1), F(3, 1), F(5, 3), 3, 0,
	F(1, 1), F(2, 3), 3, F(4, 1), F(5, 1), F(6, 1), 0,
};
static const uint32_t drop_payload[] = {
	F(1, 3), 1, 0,
	F(3, 1), F(8, 1), F(10, 1), F(79, 1), F(900, 3), 2, 0,
	F(1, 1), F(2, 1), 0,
};
static const uint32_t string_rule[] = {
	F(1, 3), 1, 0,
	F(3, 1), F(8, 1), F(10, 1), F(79, 1), F(900, 3), 2, 0,
	F(1, 4), F(2, 1), F(3, 1), F(5, 3), 3, 0,
	F(1, 1), F(2, 3), 3, F(4, 1), F(5, 1), F(6, 1), 0,
};

static uint8_t	*pk[NPACKETS], *sinkbuf;
static size_t	 pklen[NPACKETS], total;
static uint8_t	 trailer[PBW_PACKET_TRAILER_MAX];
static size_t	 tlen;

static double
run(struct trace_filter *tf, double seconds, size_t *outbytes)
{
	const uint8_t	*o;
	double		 t0 = now_s(), t;
	size_t		 bytes = 0, i, rounds = 0;
	ssize_t		 n;

	*outbytes = 0;
	do {
		for (i = 0; i < NPACKETS; i++) {
			if (packet_validate_untrusted(pk[i], pklen[i]) == -1)
				abort();
			if (tf == NULL) {
				memcpy(sinkbuf, pk[i], pklen[i]);
				memcpy(sinkbuf + pklen[i], trailer, tlen);
				n = (ssize_t)(pklen[i] + tlen);
			} else if ((n = trace_filter_packet_untrusted(tf,
			    pk[i], pklen[i], trailer, tlen, &o)) == -1)
				abort();
			else
				memcpy(sinkbuf, o, (size_t)n);
			*outbytes += (size_t)n;
			bytes += pklen[i] + tlen;
		}
		rounds++;
	} while ((t = now_s() - t0) < seconds);
	*outbytes /= rounds;
	return bytes / t / 1e6;
}

int
main(int argc, char **argv)
{
	Perfetto__Protos__TraceConfig__TraceFilter cfg =
	    PERFETTO__PROTOS__TRACE_CONFIG__TRACE_FILTER__INIT;
	Perfetto__Protos__TraceConfig__TraceFilter__StringFilterRule rule =
	    PERFETTO__PROTOS__TRACE_CONFIG__TRACE_FILTER__STRING_FILTER_RULE__INIT;
	Perfetto__Protos__TraceConfig__TraceFilter__StringFilterRule *rp = &rule;
	Perfetto__Protos__TraceConfig__TraceFilter__StringFilterChain chain =
	    PERFETTO__PROTOS__TRACE_CONFIG__TRACE_FILTER__STRING_FILTER_CHAIN__INIT;
	static const struct {
		const char	*name;
		const uint32_t	*w;
		size_t		 n;
		int		 rule;
	} cases[] = {
		{ "keep every field", keep_all,
		  sizeof(keep_all) / sizeof(keep_all[0]), 0 },
		{ "drop the payload", drop_payload,
		  sizeof(drop_payload) / sizeof(drop_payload[0]), 0 },
		{ "string rule on str", string_rule,
		  sizeof(string_rule) / sizeof(string_rule[0]), 1 },
	};
	struct buf	 b = { 0 }, ev = { 0 }, pl = { 0 }, nest = { 0 };
	struct trace_filter *tf;
	const char	*cause;
	char		 str[120];
	double		 secs = argc > 1 ? atof(argv[1]) : 2, base, mbs;
	size_t		 i, out, k;

	for (i = 0; i < NPACKETS; i++) {
		b.len = 0;
		snprintf(str, sizeof(str), "B|%zu|slice_name_%zu", 1000 + i % 7,
		    i % 50);
		put_bytes(&nest, 1, "nested-string", 13);
		put_bytes(&pl, 1, "a payload string of some length", 31);
		put_bytes(&pl, 1, "another one", 11);
		put_sub(&pl, 2, &nest);
		put_bytes(&pl, 4, "single string value, longer than the others "
		    "and then some more text", 68);
		put_int(&pl, 5, i * 31);
		for (k = 0; k < 10; k++)
			put_int(&pl, 6, i + k * 1000);
		put_bytes(&ev, 1, str, strlen(str));
		put_int(&ev, 2, i);
		put_int(&ev, 3, i * 1234567);
		put_sub(&ev, 5, &pl);
		put_int(&b, 8, 123456789000ull + i * 1000);
		put_sub(&b, 900, &ev);
		pk[i] = malloc(b.len);
		memcpy(pk[i], b.b, b.len);
		pklen[i] = b.len;
		total += b.len;
	}
	tlen = pbw_packet_trailer(trailer, 1000, 5, 4242, 0);
	sinkbuf = malloc(1 << 20);
	printf("%d packets, %.0f bytes each with the trailer\n", NPACKETS,
	    (double)(total + NPACKETS * tlen) / NPACKETS);
	base = run(NULL, secs, &out);
	printf("%-22s %8.1f MB/s\n", "no filter (copy)", base);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		cfg.has_bytecode_v2 = 1;
		cfg.bytecode_v2 = bytecode(cases[i].w, cases[i].n);
		cfg.string_filter_chain = NULL;
		if (cases[i].rule) {
			rule.has_policy = 1;
			rule.policy = PERFETTO__PROTOS__TRACE_CONFIG__TRACE_FILTER__STRING_FILTER_POLICY__SFP_ATRACE_MATCH_REDACT_GROUPS;
			rule.regex_pattern = (char *)"B\\|[0-9]+\\|slice_name_(1[0-9])";
			rule.atrace_payload_starts_with = (char *)"slice";
			chain.rules = &rp;
			chain.n_rules = 1;
			cfg.string_filter_chain = &chain;
		}
		if ((tf = trace_filter_new(&cfg, &cause)) == NULL) {
			fprintf(stderr, "%s\n", cause);
			return 1;
		}
		mbs = run(tf, secs, &out);
		printf("%-22s %8.1f MB/s  %.2fx of no filter, output %.0f%% "
		    "of input\n", cases[i].name, mbs, mbs / base,
		    100.0 * out / (total + NPACKETS * tlen));
		trace_filter_free(tf);
		free(cfg.bytecode_v2.data);
	}
	return 0;
}
