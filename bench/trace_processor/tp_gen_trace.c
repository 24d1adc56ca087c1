/*
 * tp_gen_trace: writes a large synthetic Perfetto trace for the
 * trace_processor benchmark.
 *
 *   tp_gen_trace trackevent|ftrace SIZE_MB OUT [MARK_MB]
 *
 * trackevent: 16 threads on their own sequences, nested slices with
 *   interned names and categories (as the SDK writes them), a debug
 *   annotation on one slice in four, a counter track sampled along.
 * ftrace: 8 cpus, bundles of 256 events: sched_switch, sched_waking and
 *   trace_marker prints among 300 tasks.
 * MARK_MB: every MARK_MB of packets, a service event saying all data
 *   sources flushed, then one saying a read of the buffers completed, as
 *   a write_into_file session with periodic flushes writes them: the
 *   sorter then releases during the load instead of sorting all at the
 *   end (a ring-buffer trace, the default here).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metrics/pbbuf.h"

/* Appends m as field id of b and empties m, keeping its allocation. */
static void
put_msg(struct pbbuf *b, uint32_t id, struct pbbuf *m)
{
	pbb_bytes(b, id, m->buf, m->len);
	m->len = 0;
}

static uint32_t rnd_state = 1;

static uint32_t
rnd(void)
{
	rnd_state = rnd_state * 1103515245 + 12345;
	return rnd_state >> 8;
}

static uint64_t mark_every, next_mark;

/* TracePackets of service_event (69): all_data_sources_flushed (3), then
 * read_tracing_buffers_completed (4). */
static void
write_marks(FILE *f, uint64_t *written)
{
	static const uint8_t marks[] = {
		0x0a, 0x05, 0xaa, 0x04, 0x02, 0x18, 0x01,
		0x0a, 0x05, 0xaa, 0x04, 0x02, 0x20, 0x01,
	};

	if (fwrite(marks, 1, sizeof(marks), f) != sizeof(marks)) {
		perror("fwrite");
		exit(1);
	}
	*written += sizeof(marks);
}

static void
flush_out(FILE *f, struct pbbuf *t, uint64_t *written)
{
	if (t->oom) {
		fprintf(stderr, "tp_gen_trace: out of memory\n");
		exit(1);
	}
	if (fwrite(t->buf, 1, t->len, f) != t->len) {
		perror("fwrite");
		exit(1);
	}
	*written += t->len;
	t->len = 0;
	if (mark_every > 0 && *written >= next_mark) {
		write_marks(f, written);
		next_mark = *written + mark_every;
	}
}

#define NTHREADS	16
#define NNAMES		64

static void
gen_trackevent(FILE *f, uint64_t target)
{
	struct pbbuf t = { 0 }, pk = { 0 }, m = { 0 }, s = { 0 }, e = { 0 };
	uint64_t written = 0, ts = 1000000;
	int depth[NTHREADS] = { 0 }, th, i;
	char name[64];

	for (th = 0; th < NTHREADS; th++) {
		pbb_uint(&s, 1, 1000);
		pbb_uint(&s, 2, 1000 + th);
		snprintf(name, sizeof(name), "worker-%d", th);
		pbb_string(&s, 5, name);
		pbb_uint(&m, 1, 100 + th);			/* uuid */
		put_msg(&m, 4, &s);
		put_msg(&pk, 60, &m);
		put_msg(&t, 1, &pk);
		/* First packet of the sequence: interning and defaults. */
		pbb_uint(&pk, 10, 1 + th);
		pbb_uint(&pk, 13, 3);
		for (i = 1; i <= NNAMES; i++) {
			pbb_uint(&e, 1, i);
			snprintf(name, sizeof(name), "Function%02d::Run", i);
			pbb_string(&e, 2, name);
			put_msg(&m, 2, &e);
			pbb_uint(&e, 1, i);
			snprintf(name, sizeof(name), "cat%d", i % 8);
			pbb_string(&e, 2, name);
			put_msg(&m, 1, &e);
		}
		pbb_uint(&e, 1, 1);
		pbb_string(&e, 2, "arg");
		put_msg(&m, 3, &e);
		put_msg(&pk, 12, &m);
		pbb_uint(&e, 11, 100 + th);		/* default track */
		put_msg(&m, 11, &e);
		put_msg(&pk, 59, &m);
		put_msg(&t, 1, &pk);
	}
	pbb_uint(&m, 1, 999);
	pbb_string(&m, 2, "queue length");
	pbb_bytes(&m, 8, "", 0);				/* counter {} */
	put_msg(&pk, 60, &m);
	put_msg(&t, 1, &pk);

	while (written + t.len < target) {
		th = (int)(rnd() % NTHREADS);
		ts += 1 + rnd() % 500;
		pbb_uint(&pk, 8, ts);
		pbb_uint(&pk, 10, 1 + th);
		pbb_uint(&pk, 13, 2);
		if (rnd() % 16 == 0) {
			pbb_uint(&m, 9, 4);		/* counter */
			pbb_uint(&m, 11, 999);
			pbb_uint(&m, 30, rnd() % 1000);
		} else if (depth[th] > 0 && (depth[th] >= 8 || rnd() % 2)) {
			pbb_uint(&m, 9, 2);		/* end */
			depth[th]--;
		} else {
			pbb_uint(&m, 9, 1);		/* begin */
			pbb_uint(&m, 3, 1 + rnd() % NNAMES);
			pbb_uint(&m, 10, 1 + rnd() % NNAMES);
			if (rnd() % 4 == 0) {
				pbb_uint(&e, 1, 1);
				pbb_uint(&e, 4, rnd());
				put_msg(&m, 4, &e);
			}
			depth[th]++;
		}
		put_msg(&pk, 11, &m);
		put_msg(&t, 1, &pk);
		if (t.len > (1 << 20))
			flush_out(f, &t, &written);
	}
	flush_out(f, &t, &written);
	free(t.buf);
	free(pk.buf);
	free(m.buf);
	free(s.buf);
	free(e.buf);
}

#define NCPUS		8
#define NTASKS		300
#define PER_BUNDLE	256

static void
gen_ftrace(FILE *f, uint64_t target)
{
	struct pbbuf t = { 0 }, pk = { 0 }, b = { 0 }, ev = { 0 }, m = { 0 };
	uint64_t written = 0, ts = 1000000000;
	int cur[NCPUS] = { 0 }, open[NTASKS + 100] = { 0 }, cpu, i;
	char comm[32], mark[64];

	while (written + t.len < target) {
		for (cpu = 0; cpu < NCPUS; cpu++) {
			pbb_uint(&b, 1, (uint64_t)cpu);
			for (i = 0; i < PER_BUNDLE; i++) {
				int next = (int)(rnd() % NTASKS) + 100;
				uint32_t r = rnd() % 10;

				ts += 1 + rnd() % 2000;
				pbb_uint(&ev, 1, ts);
				pbb_uint(&ev, 2, cur[cpu] ? (uint64_t)cur[cpu] : 0);
				if (r < 6) {
					snprintf(comm, sizeof(comm), "task%d",
					    cur[cpu]);
					pbb_string(&m, 1, cur[cpu] ? comm :
					    "swapper");
					pbb_uint(&m, 2, (uint64_t)cur[cpu]);
					pbb_uint(&m, 3, 120);
					pbb_uint(&m, 4, rnd() % 3);
					snprintf(comm, sizeof(comm), "task%d",
					    next);
					pbb_string(&m, 5, comm);
					pbb_uint(&m, 6, (uint64_t)next);
					pbb_uint(&m, 7, 120);
					put_msg(&ev, 4, &m);
					cur[cpu] = next;
				} else if (r < 9) {
					snprintf(comm, sizeof(comm), "task%d",
					    next);
					pbb_string(&m, 1, comm);
					pbb_uint(&m, 2, (uint64_t)next);
					pbb_uint(&m, 3, 120);
					pbb_uint(&m, 4, 1);
					pbb_uint(&m, 5, rnd() % NCPUS);
					put_msg(&ev, 20, &m);
				} else {
					/* Ends only close what began. */
					if (open[cur[cpu]] == 0 || rnd() % 2) {
						snprintf(mark, sizeof(mark),
						    "B|%d|frame %u\n", cur[cpu],
						    rnd() % 16);
						open[cur[cpu]]++;
					} else {
						snprintf(mark, sizeof(mark),
						    "E|%d\n", cur[cpu]);
						open[cur[cpu]]--;
					}
					pbb_uint(&m, 1, 0xffffffff81000000ULL);
					pbb_string(&m, 2, mark);
					put_msg(&ev, 3, &m);
				}
				put_msg(&b, 2, &ev);
			}
			put_msg(&pk, 1, &b);
			pbb_uint(&pk, 10, 1);
			put_msg(&t, 1, &pk);
			if (t.len > (1 << 20))
				flush_out(f, &t, &written);
		}
	}
	flush_out(f, &t, &written);
	free(t.buf);
	free(pk.buf);
	free(b.buf);
	free(ev.buf);
	free(m.buf);
}

int
main(int argc, char *argv[])
{
	FILE *f;
	uint64_t target;

	if (argc != 4 && argc != 5) {
		fprintf(stderr, "usage: tp_gen_trace trackevent|ftrace SIZE_MB"
		    " OUT [MARK_MB]\n");
		return 1;
	}
	target = strtoull(argv[2], NULL, 10) << 20;
	if (argc == 5)
		next_mark = mark_every = strtoull(argv[4], NULL, 10) << 20;
	if ((f = fopen(argv[3], "w")) == NULL) {
		perror(argv[3]);
		return 1;
	}
	if (strcmp(argv[1], "trackevent") == 0)
		gen_trackevent(f, target);
	else if (strcmp(argv[1], "ftrace") == 0)
		gen_ftrace(f, target);
	else {
		fprintf(stderr, "tp_gen_trace: unknown kind %s\n", argv[1]);
		return 1;
	}
	if (fclose(f) != 0) {
		perror("fclose");
		return 1;
	}
	return 0;
}
