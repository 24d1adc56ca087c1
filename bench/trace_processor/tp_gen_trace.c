/*
 * tp_gen_trace: writes a large synthetic Perfetto trace for the
 * trace_processor benchmark.
 *
 *   tp_gen_trace trackevent|ftrace SIZE_MB OUT
 *
 * trackevent: 16 threads on their own sequences, nested slices with
 *   interned names and categories (as the SDK writes them), a debug
 *   annotation on one slice in four, a counter track sampled along.
 * ftrace: 8 cpus, bundles of 256 events: sched_switch, sched_waking and
 *   trace_marker prints among 300 tasks.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct buf {
	uint8_t	*p;
	size_t	 n, cap;
};

static void
put(struct buf *b, const void *d, size_t n)
{
	if (b->n + n > b->cap) {
		b->cap = (b->n + n) * 2 + 256;
		if ((b->p = realloc(b->p, b->cap)) == NULL) {
			perror("realloc");
			exit(1);
		}
	}
	memcpy(b->p + b->n, d, n);
	b->n += n;
}

static void
put_varint(struct buf *b, uint64_t v)
{
	uint8_t t[10];
	size_t n = 0;

	do {
		t[n] = v & 0x7f;
		v >>= 7;
		if (v)
			t[n] |= 0x80;
		n++;
	} while (v);
	put(b, t, n);
}

static void
put_u(struct buf *b, uint32_t id, uint64_t v)
{
	put_varint(b, (uint64_t)id << 3);
	put_varint(b, v);
}

static void
put_len(struct buf *b, uint32_t id, const void *d, size_t n)
{
	put_varint(b, (uint64_t)id << 3 | 2);
	put_varint(b, n);
	put(b, d, n);
}

static void
put_str(struct buf *b, uint32_t id, const char *s)
{
	put_len(b, id, s, strlen(s));
}

/* Appends m as field id of b and empties m. */
static void
put_msg(struct buf *b, uint32_t id, struct buf *m)
{
	put_len(b, id, m->p, m->n);
	m->n = 0;
}

static uint32_t rnd_state = 1;

static uint32_t
rnd(void)
{
	rnd_state = rnd_state * 1103515245 + 12345;
	return rnd_state >> 8;
}

static void
flush_out(FILE *f, struct buf *t, uint64_t *written)
{
	if (fwrite(t->p, 1, t->n, f) != t->n) {
		perror("fwrite");
		exit(1);
	}
	*written += t->n;
	t->n = 0;
}

#define NTHREADS	16
#define NNAMES		64

static void
gen_trackevent(FILE *f, uint64_t target)
{
	struct buf t = { 0 }, pk = { 0 }, m = { 0 }, s = { 0 }, e = { 0 };
	uint64_t written = 0, ts = 1000000;
	int depth[NTHREADS] = { 0 }, th, i;
	char name[64];

	for (th = 0; th < NTHREADS; th++) {
		put_u(&s, 1, 1000);
		put_u(&s, 2, 1000 + th);
		snprintf(name, sizeof(name), "worker-%d", th);
		put_str(&s, 5, name);
		put_u(&m, 1, 100 + th);			/* uuid */
		put_msg(&m, 4, &s);
		put_msg(&pk, 60, &m);
		put_msg(&t, 1, &pk);
		/* First packet of the sequence: interning and defaults. */
		put_u(&pk, 10, 1 + th);
		put_u(&pk, 13, 3);
		for (i = 1; i <= NNAMES; i++) {
			put_u(&e, 1, i);
			snprintf(name, sizeof(name), "Function%02d::Run", i);
			put_str(&e, 2, name);
			put_msg(&m, 2, &e);
			put_u(&e, 1, i);
			snprintf(name, sizeof(name), "cat%d", i % 8);
			put_str(&e, 2, name);
			put_msg(&m, 1, &e);
		}
		put_u(&e, 1, 1);
		put_str(&e, 2, "arg");
		put_msg(&m, 3, &e);
		put_msg(&pk, 12, &m);
		put_u(&e, 11, 100 + th);		/* default track */
		put_msg(&m, 11, &e);
		put_msg(&pk, 59, &m);
		put_msg(&t, 1, &pk);
	}
	put_u(&m, 1, 999);
	put_str(&m, 2, "queue length");
	put_len(&m, 8, "", 0);				/* counter {} */
	put_msg(&pk, 60, &m);
	put_msg(&t, 1, &pk);

	while (written + t.n < target) {
		th = (int)(rnd() % NTHREADS);
		ts += 1 + rnd() % 500;
		put_u(&pk, 8, ts);
		put_u(&pk, 10, 1 + th);
		put_u(&pk, 13, 2);
		if (rnd() % 16 == 0) {
			put_u(&m, 9, 4);		/* counter */
			put_u(&m, 11, 999);
			put_u(&m, 30, rnd() % 1000);
		} else if (depth[th] > 0 && (depth[th] >= 8 || rnd() % 2)) {
			put_u(&m, 9, 2);		/* end */
			depth[th]--;
		} else {
			put_u(&m, 9, 1);		/* begin */
			put_u(&m, 3, 1 + rnd() % NNAMES);
			put_u(&m, 10, 1 + rnd() % NNAMES);
			if (rnd() % 4 == 0) {
				put_u(&e, 1, 1);
				put_u(&e, 4, rnd());
				put_msg(&m, 4, &e);
			}
			depth[th]++;
		}
		put_msg(&pk, 11, &m);
		put_msg(&t, 1, &pk);
		if (t.n > (1 << 20))
			flush_out(f, &t, &written);
	}
	flush_out(f, &t, &written);
	free(t.p);
	free(pk.p);
	free(m.p);
	free(s.p);
	free(e.p);
}

#define NCPUS		8
#define NTASKS		300
#define PER_BUNDLE	256

static void
gen_ftrace(FILE *f, uint64_t target)
{
	struct buf t = { 0 }, pk = { 0 }, b = { 0 }, ev = { 0 }, m = { 0 };
	uint64_t written = 0, ts = 1000000000;
	int cur[NCPUS] = { 0 }, open[NTASKS + 100] = { 0 }, cpu, i;
	char comm[32], mark[64];

	while (written + t.n < target) {
		for (cpu = 0; cpu < NCPUS; cpu++) {
			put_u(&b, 1, (uint64_t)cpu);
			for (i = 0; i < PER_BUNDLE; i++) {
				int next = (int)(rnd() % NTASKS) + 100;
				uint32_t r = rnd() % 10;

				ts += 1 + rnd() % 2000;
				put_u(&ev, 1, ts);
				put_u(&ev, 2, cur[cpu] ? (uint64_t)cur[cpu] : 0);
				if (r < 6) {
					snprintf(comm, sizeof(comm), "task%d",
					    cur[cpu]);
					put_str(&m, 1, cur[cpu] ? comm :
					    "swapper");
					put_u(&m, 2, (uint64_t)cur[cpu]);
					put_u(&m, 3, 120);
					put_u(&m, 4, rnd() % 3);
					snprintf(comm, sizeof(comm), "task%d",
					    next);
					put_str(&m, 5, comm);
					put_u(&m, 6, (uint64_t)next);
					put_u(&m, 7, 120);
					put_msg(&ev, 4, &m);
					cur[cpu] = next;
				} else if (r < 9) {
					snprintf(comm, sizeof(comm), "task%d",
					    next);
					put_str(&m, 1, comm);
					put_u(&m, 2, (uint64_t)next);
					put_u(&m, 3, 120);
					put_u(&m, 4, 1);
					put_u(&m, 5, rnd() % NCPUS);
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
					put_u(&m, 1, 0xffffffff81000000ULL);
					put_str(&m, 2, mark);
					put_msg(&ev, 3, &m);
				}
				put_msg(&b, 2, &ev);
			}
			put_msg(&pk, 1, &b);
			put_u(&pk, 10, 1);
			put_msg(&t, 1, &pk);
			if (t.n > (1 << 20))
				flush_out(f, &t, &written);
		}
	}
	flush_out(f, &t, &written);
	free(t.p);
	free(pk.p);
	free(b.p);
	free(ev.p);
	free(m.p);
}

int
main(int argc, char *argv[])
{
	FILE *f;
	uint64_t target;

	if (argc != 4) {
		fprintf(stderr, "usage: tp_gen_trace trackevent|ftrace SIZE_MB"
		    " OUT\n");
		return 1;
	}
	target = strtoull(argv[2], NULL, 10) << 20;
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
