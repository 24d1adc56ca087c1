/*
 * libfaro's own thread: an event loop that owns the producer connection
 * (libipc/producer_endpoint.c). App threads reach it only through
 * faro_loop_wake() and the commit queue, never by waiting on it.
 */
#include "config.h"

#include <sys/syscall.h>

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>
#include <event2/thread.h>

#include "faro_int.h"
#include "base/log.h"
#include "libipc/producer_endpoint.h"

#define COMMIT_TICK_MS	100	/* partial batches go out at least this often */

struct faro_global faro_g = { .mtx = PTHREAD_MUTEX_INITIALIZER };

static struct {
	struct event_base	*base;
	pthread_t		 thread;
	struct event		*ev_wake;
	struct event		*ev_tick;
	atomic_int		 quit;
} loop;

/* faro_loop_sync: housekeeping runs asked for and done. */
static struct {
	pthread_mutex_t		 mtx;
	pthread_cond_t		 cv;
	uint64_t		 asked, done;
} sync_ = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0 };

uint64_t
faro_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

struct producer_ep *
faro_ep(void)
{
	return faro_g.ep;
}

struct shm_arbiter *
faro_arbiter(void)
{
	if (faro_g.inproc)
		return inproc_arbiter();
	return faro_g.ep != NULL ? producer_ep_arbiter(faro_g.ep) : NULL;
}

void
faro_loop_wake(void)
{
	if (loop.ev_wake != NULL)
		event_active(loop.ev_wake, EV_TIMEOUT, 0);
}

/* Runs covering every faro_loop_sync asked for so far are done. */
static void
loop_sync_done(uint64_t upto)
{
	pthread_mutex_lock(&sync_.mtx);
	sync_.done = upto;
	pthread_cond_broadcast(&sync_.cv);
	pthread_mutex_unlock(&sync_.mtx);
}

static void
loop_on_wake(evutil_socket_t fd, short what, void *arg)
{
	uint64_t asked;

	pthread_mutex_lock(&sync_.mtx);
	asked = sync_.asked;
	pthread_mutex_unlock(&sync_.mtx);
	if (atomic_load(&loop.quit)) {
		faro_ds_teardown_all();
		if (faro_g.inproc)
			inproc_finish();
		event_base_loopbreak(loop.base);
		loop_sync_done(asked);
		return;
	}
	faro_ds_housekeep();
	if (faro_g.inproc)
		inproc_drain();
	loop_sync_done(asked);
}

/*
 * Wakes the libfaro thread and waits until its housekeeping has seen
 * what the caller did before (e.g. a data source registered, which the
 * in-process session starts there).
 */
void
faro_loop_sync(void)
{
	uint64_t mine;

	if (pthread_equal(pthread_self(), loop.thread)) {
		faro_ds_housekeep();
		return;
	}
	pthread_mutex_lock(&sync_.mtx);
	mine = ++sync_.asked;
	pthread_mutex_unlock(&sync_.mtx);
	faro_loop_wake();
	pthread_mutex_lock(&sync_.mtx);
	while (sync_.done < mine && !atomic_load(&loop.quit))
		pthread_cond_wait(&sync_.cv, &sync_.mtx);
	pthread_mutex_unlock(&sync_.mtx);
}

/* Commit what the writers left in a half-filled batch. */
static void
loop_on_tick(evutil_socket_t fd, short what, void *arg)
{
	struct shm_arbiter *arb;

	if ((arb = faro_arbiter()) != NULL)
		shm_arbiter_flush(arb, 0);
	if (faro_g.inproc)
		inproc_drain();
	faro_clock_tune();
}

/* faro_init waits on this for the endpoint made on the libfaro thread. */
struct loop_start {
	const struct producer_ep_config	*cfg;
	const char			*cause;
	int				 done;
	int				 ok;	/* the loop runs */
	pthread_mutex_t			 mtx;
	pthread_cond_t			 cv;
};

/*
 * The endpoint is created here, not in faro_init: it takes its creator
 * for the loop thread and sends commits made on that thread at once,
 * which from the application's thread would race this loop on the
 * connection.
 */
static void *
loop_main(void *arg)
{
	struct loop_start *ls = arg;
	struct producer_ep *ep = NULL;
	int ok = 1;

	if (!faro_g.inproc)
		ok = (ep = producer_ep_new(loop.base, ls->cfg, &ls->cause)) !=
		    NULL;
	pthread_mutex_lock(&ls->mtx);
	faro_g.ep = ep;
	ls->ok = ok;
	ls->done = 1;
	pthread_cond_signal(&ls->cv);
	pthread_mutex_unlock(&ls->mtx);
	if (!ok)
		return NULL;
	event_base_loop(loop.base, EVLOOP_NO_EXIT_ON_EMPTY);
	return NULL;
}

static uint64_t
mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	x ^= x >> 33;
	return x;
}

static void
process_name(char *buf, size_t len)
{
	FILE *f;

	snprintf(buf, len, "faro-%d", (int)getpid());
	if ((f = fopen("/proc/self/comm", "r")) == NULL)
		return;
	if (fgets(buf, (int)len, f) != NULL)
		buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}

int
faro_init(const struct faro_init_args *a, const char **cause)
{
	struct faro_init_args args;
	struct producer_ep_config cfg;
	struct timeval tick = { 0, COMMIT_TICK_MS * 1000 };
	struct loop_start ls = { .mtx = PTHREAD_MUTEX_INITIALIZER,
	    .cv = PTHREAD_COND_INITIALIZER };
	const char *why = NULL, *output;

	if (cause == NULL)
		cause = &why;
	memset(&args, 0, sizeof(args));
	if (a != NULL)
		memcpy(&args, a, a->struct_size < sizeof(args) ?
		    a->struct_size : sizeof(args));
	if (atomic_exchange(&faro_g.up, 1)) {
		*cause = "already initialized";
		return -1;
	}
	log_init("libfaro", 1, args.verbose ? 2 : 0);
	if (evthread_use_pthreads() == -1) {
		*cause = "libevent without thread support";
		goto fail;
	}
	faro_g.pid = getpid();
	process_name(faro_g.process_name, sizeof(faro_g.process_name));
	faro_g.process_uuid = mix64(((uint64_t)faro_g.pid << 32) ^
	    faro_now_ns()) | 1;
	atomic_store(&loop.quit, 0);
	faro_clock_init();
	faro_tls_asym_init();
	output = args.output != NULL ? args.output : getenv("FARO_OUTPUT");
	faro_g.inproc = output != NULL && *output != '\0';
	if (faro_g.inproc && inproc_open(output, &args, cause) == -1)
		goto fail;
	if ((loop.base = event_base_new()) == NULL) {
		*cause = "cannot create an event loop";
		goto fail;
	}
	loop.ev_wake = event_new(loop.base, -1, 0, loop_on_wake, NULL);
	loop.ev_tick = event_new(loop.base, -1, EV_PERSIST, loop_on_tick,
	    NULL);
	if (loop.ev_wake == NULL || loop.ev_tick == NULL) {
		*cause = "out of memory";
		goto fail;
	}
	evtimer_add(loop.ev_tick, &tick);
	memset(&cfg, 0, sizeof(cfg));
	cfg.name = args.producer_name ? args.producer_name :
	    faro_g.process_name;
	cfg.socket = args.socket;
	cfg.smb_size_hint = args.smb_size ? args.smb_size :
	    FARO_SMB_SIZE_DEFAULT;
	cfg.smb_page_size_hint = args.smb_page_size;
	cfg.commit_batch_chunks = args.commit_batch;
	cfg.stall_max_ms = args.stall_max_ms;
	cfg.ops = &faro_ds_ep_ops;
	ls.cfg = &cfg;
	if ((errno = pthread_create(&loop.thread, NULL, loop_main, &ls)) !=
	    0) {
		*cause = "cannot start the libfaro thread";
		goto fail_ls;
	}
	pthread_mutex_lock(&ls.mtx);
	while (!ls.done)
		pthread_cond_wait(&ls.cv, &ls.mtx);
	pthread_mutex_unlock(&ls.mtx);
	if (!ls.ok) {
		pthread_join(loop.thread, NULL);
		*cause = ls.cause;
		goto fail_ls;
	}
	pthread_mutex_destroy(&ls.mtx);
	pthread_cond_destroy(&ls.cv);
	return 0;
fail_ls:
	pthread_mutex_destroy(&ls.mtx);
	pthread_cond_destroy(&ls.cv);
fail:
	if (faro_g.inproc)
		inproc_free();
	faro_g.inproc = 0;
	if (loop.ev_wake != NULL)
		event_free(loop.ev_wake);
	if (loop.ev_tick != NULL)
		event_free(loop.ev_tick);
	if (loop.base != NULL)
		event_base_free(loop.base);
	memset(&loop, 0, sizeof(loop));
	atomic_store(&faro_g.up, 0);
	return -1;
}

void
faro_shutdown(void)
{
	if (!atomic_load(&faro_g.up))
		return;
	atomic_store(&loop.quit, 1);
	faro_loop_wake();
	pthread_join(loop.thread, NULL);
	if (faro_g.ep != NULL)
		producer_ep_free(faro_g.ep);
	faro_g.ep = NULL;
	event_free(loop.ev_wake);
	event_free(loop.ev_tick);
	event_base_free(loop.base);
	memset(&loop, 0, sizeof(loop));
	faro_ds_free_all();
	te_free_all();
	if (faro_g.inproc)
		inproc_free();
	faro_g.inproc = 0;
	atomic_store(&faro_g.up, 0);
}

int
faro_connected(void)
{
	return faro_g.ep != NULL && producer_ep_connected(faro_g.ep);
}

void
faro_get_stats(struct faro_stats *st)
{
	struct producer_ep_stats es;
	struct shm_arbiter_stats as;
	struct shm_arbiter *arb;
	struct faro_tls *t;

	memset(st, 0, sizeof(*st));
	if (!atomic_load(&faro_g.up))
		return;
	pthread_mutex_lock(&faro_g.mtx);
	if (faro_g.ep != NULL) {
		producer_ep_stats(faro_g.ep, &es);
		st->connects = es.connects;
		st->commits = es.commits;
	}
	if ((arb = faro_arbiter()) != NULL) {
		shm_arbiter_stats(arb, &as);
		st->chunks = as.chunks_committed;
		st->stalls = as.stalls;
	}
	st->dropped_packets = atomic_load(&faro_g.dropped);
	for (t = faro_g.tls; t != NULL; t = t->next)
		for (unsigned d = 0; d < FARO_MAX_DS; d++)
			for (unsigned i = 0; i < FARO_DS_MAX_INSTANCES; i++)
				if (t->w[d][i] != NULL && t->w[d][i]->sw != NULL)
					st->dropped_packets +=
					    shm_writer_dropped_packets(
					    t->w[d][i]->sw);
	pthread_mutex_unlock(&faro_g.mtx);
}
