/*
 * traced under load: see tt_load.h. Each producer is a child process
 * talking to the parent over a socketpair:
 *
 *   child                               parent
 *   data source started  -- 'R' -->
 *                        <-- 'G' --     all ready: go
 *   writes everything
 *   {written, dropped}   ------->       all done: Flush, Disable, read
 *                        <-- EOF --     exit
 *
 * Early producers say 'R' once registered, before the session exists,
 * and write as soon as it starts them (no 'G').
 */
#include "config.h"

#include <sys/socket.h>
#include <sys/wait.h>

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#include <faro/faro.h>
#include <faro/track_event.h>

#include "libshm/shm_arbiter.h"
#include "traced_test.h"
#include "tt_load.h"
#include "protos/perfetto/ipc/consumer_port.pb-c.h"

#define LOAD_CATEGORIES(C)	C(load, "load", "tt_load slices", NULL)

FARO_TE_CATEGORIES_DECLARE(LOAD_CATEGORIES)
FARO_TE_CATEGORIES_DEFINE(LOAD_CATEGORIES)

#define LOAD_WAIT_MS	30000
#define LOAD_RAW_BATCH	32
#define LOAD_RAW_PAD	100

struct load_report {
	uint64_t	written;
	uint64_t	dropped;
};

static double
load_now(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Reads one byte or a report from the other side; -1 on EOF/timeout. */
static int
load_recv(int fd, void *buf, size_t len, int timeout_ms)
{
	struct pollfd	pfd = { fd, POLLIN, 0 };
	size_t		off = 0;
	ssize_t		n;

	while (off < len) {
		if (poll(&pfd, 1, timeout_ms) != 1)
			return -1;
		n = read(fd, (char *)buf + off, len - off);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		off += (size_t)n;
	}
	return 0;
}

static void
load_child_faro(int fd, const char *sock, const struct tt_load_opts *o)
{
	struct faro_init_args	 a = { .struct_size = sizeof(a) };
	struct faro_stats	 st;
	struct load_report	 r;
	const char		*cause;
	char			 c;
	uint32_t		 i;

	a.producer_name = "tt_load.faro";
	a.socket = sock;
	a.smb_size = o->smb_kb * 1024;
	if (faro_init(&a, &cause) == -1 ||
	    FARO_TE_REGISTER(LOAD_CATEGORIES) == -1)
		_exit(2);
	for (i = 0; i < LOAD_WAIT_MS && faro_cat_load.enabled == 0; i++)
		usleep(1000);
	if (faro_cat_load.enabled == 0 || write(fd, "R", 1) != 1 ||
	    load_recv(fd, &c, 1, LOAD_WAIT_MS) == -1)
		_exit(3);
	/* Without a pause, as the burst of the issue. */
	for (i = 0; i < o->slices; i++) {
		switch (o->args) {
		case 0:
			FARO_TE_BEGIN(load, "slice");
			break;
		case 1:
			FARO_TE_BEGIN(load, "slice", FARO_ARG_INT("i", i));
			break;
		case 2:
			FARO_TE_BEGIN(load, "slice", FARO_ARG_INT("i", i),
			    FARO_ARG_STRING("s", "a string argument"));
			break;
		default:
			FARO_TE_BEGIN(load, "slice", FARO_ARG_INT("i", i),
			    FARO_ARG_STRING("s", "a string argument"),
			    FARO_ARG_DOUBLE("d", i * 0.5));
			break;
		}
		FARO_TE_END(load);
	}
	faro_get_stats(&st);
	r.written = 2 * (uint64_t)o->slices;
	r.dropped = st.dropped_packets;
	if (write(fd, &r, sizeof(r)) != (ssize_t)sizeof(r))
		_exit(4);
	/* Stay until the session is read: its flush reaches this writer. */
	(void)load_recv(fd, &c, 1, -1);
	faro_shutdown();
	_exit(0);
}

static void
load_tick(evutil_socket_t fd, short ev, void *arg)
{
	(void)fd; (void)ev; (void)arg;
}

/*
 * An early producer until its data source is started: one loop turn at a
 * time (a turn handles everything one wake-up read), as the SDK's thread
 * reads the socket while the app's threads write. Returns the turns that
 * ended set up but not started: the writes the SDK would have lost.
 */
static uint64_t
load_early_wait(struct tt_producer *p, struct tt_instance **inp)
{
	struct timeval	 tv = { 0, 1000 };
	struct event	*tick;
	struct tt_instance *in = NULL;
	uint64_t	 lost = 0;
	double		 end = load_now() + LOAD_WAIT_MS / 1000.0;

	if ((tick = evtimer_new(p->base, load_tick, NULL)) == NULL)
		_exit(3);
	while ((in == NULL || !in->started || p->arb == NULL) &&
	    load_now() < end) {
		evtimer_add(tick, &tv);
		event_base_loop(p->base, EVLOOP_ONCE);
		in = tt_producer_instance(p, "tt.load");
		if (in != NULL && in->setup && !in->started)
			lost++;
	}
	event_free(tick);
	*inp = in;
	return lost;
}

static void
load_child_raw(int fd, const char *sock, const struct tt_load_opts *o,
    int early)
{
	struct event_base	*base = event_base_new();
	struct tt_producer	 p;
	struct tt_instance	*in = NULL;
	struct shm_writer	*w;
	struct load_report	 r;
	uint64_t		 lost = 0;
	uint32_t		 seq, n, late;
	int			 i, announced = 0;
	char			 c;

	if (base == NULL || tt_producer_connect(&p, base, sock,
	    early ? "tt_load.early" : "tt_load.raw") == -1 ||
	    tt_producer_register(&p, "tt.load", 0, 0) == -1)
		_exit(2);
	if (early) {
		if (write(fd, "R", 1) != 1)
			_exit(3);
		lost = load_early_wait(&p, &in);
	} else
		for (i = 0; i < LOAD_WAIT_MS / 5 && (in == NULL ||
		    !in->started || p.arb == NULL); i++) {
			tt_spin(base, 5);
			in = tt_producer_instance(&p, "tt.load");
		}
	if (in == NULL || !in->started || p.arb == NULL)
		_exit(3);
	if (!early && (write(fd, "R", 1) != 1 ||
	    load_recv(fd, &c, 1, LOAD_WAIT_MS) == -1))
		_exit(3);
	/* Waits for chunks rather than losing them; commits go out anyway. */
	p.stall_writers = 1;
	if ((w = tt_producer_writer_unannounced(&p, in->target_buffer)) ==
	    NULL)
		_exit(4);
	/* RegisterTraceWriter once a tenth has been committed. */
	late = o->packets / 10;
	for (seq = 0; seq < o->packets; seq += n) {
		n = o->packets - seq < LOAD_RAW_BATCH ? o->packets - seq :
		    LOAD_RAW_BATCH;
		tt_write_packets(w, "load", seq, n, LOAD_RAW_PAD);
		if (!announced && seq + n >= late) {
			shm_writer_flush(w);
			if (tt_producer_writer_announce(&p, shm_writer_id(w),
			    in->target_buffer) == -1)
				_exit(5);
			announced = 1;
		}
		event_base_loop(base, EVLOOP_NONBLOCK);
		while (p.pending_calls > 32)
			event_base_loop(base, EVLOOP_ONCE);
	}
	tt_producer_commit(&p, w);
	/* Lost before the start: written, and the writer never knew. */
	r.written = o->packets + lost;
	r.dropped = shm_writer_dropped_packets(w);
	if (write(fd, &r, sizeof(r)) != (ssize_t)sizeof(r))
		_exit(6);
	/* Answer the session's flush until told to go. */
	for (;;) {
		struct pollfd pfd = { fd, POLLIN, 0 };

		if (poll(&pfd, 1, 0) == 1)
			break;
		tt_spin(base, 10);
	}
	tt_producer_close(&p);
	event_base_free(base);
	_exit(0);
}

static void
load_child_hog(void)
{
	volatile uint64_t	x = 0;

	for (;;)
		x++;
}

/* ---- counting the trace ------------------------------------------ */

static int
load_varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	int	shift = 0;

	*v = 0;
	while (*p < end && shift < 64) {
		*v |= (uint64_t)(**p & 0x7f) << shift;
		if (!(*(*p)++ & 0x80))
			return 0;
		shift += 7;
	}
	return -1;
}

/* Next field of a message: its number, wire type, value or bytes. */
static int
load_field(const uint8_t **p, const uint8_t *end, uint32_t *num, int *wt,
    uint64_t *v, const uint8_t **data)
{
	uint64_t	key;

	if (load_varint(p, end, &key) == -1)
		return -1;
	*num = (uint32_t)(key >> 3);
	*wt = (int)(key & 7);
	switch (*wt) {
	case 0:
		return load_varint(p, end, v);
	case 1:
		if (end - *p < 8)
			return -1;
		*p += 8;
		return 0;
	case 2:
		if (load_varint(p, end, v) == -1 || *v > (uint64_t)(end - *p))
			return -1;
		*data = *p;
		*p += *v;
		return 0;
	case 5:
		if (end - *p < 4)
			return -1;
		*p += 4;
		return 0;
	}
	return -1;
}

/* The first varint field num of a message, or -1. */
static int64_t
load_inner_varint(const uint8_t *p, const uint8_t *end, uint32_t want)
{
	const uint8_t	*d;
	uint64_t	 v;
	uint32_t	 num;
	int		 wt;

	while (p < end) {
		if (load_field(&p, end, &num, &wt, &v, &d) == -1)
			return -1;
		if (num == want && wt == 0)
			return (int64_t)v;
	}
	return -1;
}

static void
load_buffer_stats(struct tt_load_result *res, const uint8_t *p, size_t len)
{
	Perfetto__Protos__TraceStats	*st;
	Perfetto__Protos__TraceStats__BufferStats *b;

	if ((st = perfetto__protos__trace_stats__unpack(NULL, len, p)) ==
	    NULL)
		return;
	res->trace_chunks_discarded = st->chunks_discarded;
	if (st->n_buffer_stats > 0) {
		b = st->buffer_stats[0];
		res->chunks_written = b->chunks_written;
		res->chunks_read = b->chunks_read;
		res->chunks_overwritten = b->chunks_overwritten;
		res->chunks_discarded = b->chunks_discarded;
		res->chunks_rewritten = b->chunks_rewritten;
		res->chunks_committed_out_of_order =
		    b->chunks_committed_out_of_order;
		res->writer_loss_marks = b->trace_writer_packet_loss;
	}
	perfetto__protos__trace_stats__free_unpacked(st, NULL);
}

static int
load_count(struct tt_load_result *res, const uint8_t *t, size_t len,
    uint8_t **seen)
{
	const uint8_t	*p = t, *end = t + len, *pk, *pe, *d, *te, *ft;
	uint64_t	 v;
	uint32_t	 num;
	int		 wt, i;
	int64_t		 pid, type, sv;
	size_t		 tlen = 0, flen = 0;

	while (p < end) {
		if (load_field(&p, end, &num, &wt, &v, &pk) == -1)
			return -1;
		if (num != 1 || wt != 2)
			continue;
		pe = pk + v;
		pid = -1;
		te = ft = NULL;
		while (pk < pe) {
			if (load_field(&pk, pe, &num, &wt, &v, &d) == -1)
				return -1;
			if (num == 79 && wt == 0)		/* trusted_pid */
				pid = (int64_t)v;
			else if (num == 11 && wt == 2) {	/* track_event */
				te = d;
				tlen = v;
			} else if (num == 900 && wt == 2) {	/* for_testing */
				ft = d;
				flen = v;
			} else if (num == 35 && wt == 2)	/* trace_stats */
				load_buffer_stats(res, d, v);
		}
		if (te == NULL && ft == NULL)
			continue;
		if (pid == -1) {
			res->bad_trusted++;
			continue;
		}
		for (i = 0; i < res->nproducers; i++)
			if (res->p[i].pid == (pid_t)pid)
				break;
		if (i == res->nproducers)
			continue;
		if (te != NULL && !res->p[i].raw) {
			type = load_inner_varint(te, te + tlen, 9);
			if (type == 1 || type == 2)	/* SLICE_BEGIN, _END */
				res->p[i].found++;
		}
		if (ft != NULL && res->p[i].raw) {
			sv = load_inner_varint(ft, ft + flen, 2);
			if (sv < 0 || (uint64_t)sv >= res->p[i].written)
				continue;
			if (seen[i][sv])
				res->duplicates++;
			else
				res->p[i].found++;
			seen[i][sv] = 1;
		}
	}
	return 0;
}

/* ---- the run --------------------------------------------------------- */

static Perfetto__Protos__TraceConfig *
load_config(const struct tt_load_opts *o,
    Perfetto__Protos__TrackEventConfig *tec, char **cats)
{
	static const char *const names[] = { "track_event", "tt.load", NULL };
	Perfetto__Protos__TraceConfig *cfg;
	Perfetto__Protos__DataSourceConfig *dc;

	cfg = tt_config_new(o->buffer_kb, !o->ring, names);
	perfetto__protos__track_event_config__init(tec);
	cats[0] = (char *)"load";
	tec->n_enabled_categories = 1;
	tec->enabled_categories = cats;
	dc = cfg->data_sources[0]->config;
	dc->track_event_config = tec;
	if (o->stall) {
		dc->has_buffer_exhausted_policy = 1;
		dc->buffer_exhausted_policy =
		    PERFETTO__PROTOS__DATA_SOURCE_CONFIG__BUFFER_EXHAUSTED_POLICY__BUFFER_EXHAUSTED_STALL_THEN_DROP;
	}
	return cfg;
}

/*
 * Forks producers [from, to) (their kind by index: libfaro, raw, early),
 * each with a socketpair whose parent end is fds[i]; -1 with err set.
 */
static int
load_fork(struct tt_traced *td, const struct tt_load_opts *o,
    struct tt_load_result *res, int *fds, int from, int to, char *err,
    size_t errlen)
{
	int	i, j, sp[2];

	for (i = from; i < to; i++) {
		if (socketpair(AF_UNIX, SOCK_STREAM, 0, sp) == -1) {
			snprintf(err, errlen, "socketpair: %s",
			    strerror(errno));
			return -1;
		}
		res->p[i].raw = i >= o->nfaro;
		res->p[i].early = i >= o->nfaro + o->nraw;
		res->p[i].pid = fork();
		if (res->p[i].pid == 0) {
			/* Only its own end: the others' EOF is their cue. */
			for (j = 0; j < TT_LOAD_MAX_PRODUCERS; j++)
				if (fds[j] != -1)
					close(fds[j]);
			close(sp[0]);
			if (res->p[i].raw)
				load_child_raw(sp[1], td->producer_sock, o,
				    res->p[i].early);
			load_child_faro(sp[1], td->producer_sock, o);
		}
		close(sp[1]);
		fds[i] = sp[0];
		res->nproducers++;
		if (res->p[i].pid == -1) {
			snprintf(err, errlen, "fork: %s", strerror(errno));
			return -1;
		}
	}
	return 0;
}

/* Waits for the 'R' of producers [from, to). */
static int
load_ready(const int *fds, int from, int to, char *err, size_t errlen)
{
	char	ch;
	int	i;

	for (i = from; i < to; i++)
		if (load_recv(fds[i], &ch, 1, LOAD_WAIT_MS) == -1) {
			snprintf(err, errlen, "producer %d did not start", i);
			return -1;
		}
	return 0;
}

int
tt_load_run(struct tt_traced *td, const struct tt_load_opts *o,
    struct tt_load_result *res, char *err, size_t errlen)
{
	Perfetto__Protos__TrackEventConfig tec;
	Perfetto__Protos__TraceConfig *cfg;
	Perfetto__Protos__FlushRequest fr = PERFETTO__PROTOS__FLUSH_REQUEST__INIT;
	struct event_base	*base = NULL;
	struct tt_consumer	 c;
	struct load_report	 r;
	uint8_t			*trace = NULL, *seen[TT_LOAD_MAX_PRODUCERS];
	char			*cats[1];
	int			 fds[TT_LOAD_MAX_PRODUCERS];
	pid_t			 hogs[64];
	int			 i, n = o->nfaro + o->nraw + o->nearly, nh = 0;
	int			 rc = -1, st, m = o->nfaro + o->nraw;
	double			 t0, t1, c0;
	size_t			 len = 0;

	memset(res, 0, sizeof(*res));
	memset(seen, 0, sizeof(seen));
	memset(&c, 0, sizeof(c));
	for (i = 0; i < TT_LOAD_MAX_PRODUCERS; i++)
		fds[i] = -1;
	if (n > TT_LOAD_MAX_PRODUCERS || o->nhogs > 64) {
		snprintf(err, errlen, "too many processes");
		return -1;
	}
	cfg = load_config(o, &tec, cats);
	t0 = load_now();
	c0 = tt_proc_cpu_s(td->pid);
	if ((base = event_base_new()) == NULL ||
	    tt_consumer_connect(&c, base, td->consumer_sock) == -1) {
		snprintf(err, errlen, "no consumer");
		goto out;
	}
	for (nh = 0; nh < o->nhogs; nh++)
		if ((hogs[nh] = fork()) == 0)
			load_child_hog();
	/* Early producers are there first: the session starts them all. */
	if (load_fork(td, o, res, fds, m, n, err, errlen) == -1 ||
	    load_ready(fds, m, n, err, errlen) == -1)
		goto reap;
	if (tt_consumer_enable(&c, cfg, -1) == -1) {
		snprintf(err, errlen, "no session");
		goto reap;
	}
	if (load_fork(td, o, res, fds, 0, m, err, errlen) == -1 ||
	    load_ready(fds, 0, m, err, errlen) == -1)
		goto reap;
	t1 = load_now();
	for (i = 0; i < m; i++)
		if (write(fds[i], "G", 1) != 1) {
			snprintf(err, errlen, "producer %d gone", i);
			goto reap;
		}
	for (i = 0; i < n; i++) {
		if (load_recv(fds[i], &r, sizeof(r), 4 * LOAD_WAIT_MS) ==
		    -1) {
			snprintf(err, errlen, "producer %d did not finish", i);
			goto reap;
		}
		res->p[i].written = r.written;
		res->p[i].dropped = r.dropped;
		res->written += r.written;
		res->dropped += r.dropped;
	}
	res->write_s = load_now() - t1;
	fr.has_timeout_ms = 1;
	fr.timeout_ms = 10000;
	if (tt_consumer_call(&c, CM_FLUSH, &fr.base, -1, NULL, 0) == -1 ||
	    tt_consumer_call(&c, CM_DISABLE, NULL, -1, NULL, 0) == -1 ||
	    tt_wait(base, &c.enable_done, LOAD_WAIT_MS) == -1 ||
	    tt_consumer_read(&c, &trace, &len) == -1) {
		snprintf(err, errlen, "flush, stop or read failed");
		goto reap;
	}
	res->total_s = load_now() - t0;
	res->traced_cpu_s = tt_proc_cpu_s(td->pid) - c0;
	res->traced_rss_kb = tt_proc_rss_kb(td->pid);
	res->trace_bytes = len;
	for (i = 0; i < n; i++)
		if (res->p[i].raw &&
		    (seen[i] = calloc(res->p[i].written + 1, 1)) == NULL)
			goto reap;
	if (load_count(res, trace, len, seen) == -1) {
		snprintf(err, errlen, "the trace does not parse");
		goto reap;
	}
	for (i = 0; i < n; i++)
		res->found += res->p[i].found;
	rc = 0;
reap:
	for (i = 0; i < n; i++) {
		if (fds[i] != -1)
			close(fds[i]);
		if (fds[i] != -1 && res->p[i].pid > 0)
			waitpid(res->p[i].pid, &st, 0);
		free(seen[i]);
	}
	for (i = 0; i < nh; i++) {
		kill(hogs[i], SIGKILL);
		waitpid(hogs[i], &st, 0);
	}
out:
	free(trace);
	if (c.cl != NULL)
		tt_consumer_close(&c);
	if (base != NULL)
		event_base_free(base);
	cfg->data_sources[0]->config->track_event_config = NULL;
	tt_config_free(cfg);
	return rc;
}
