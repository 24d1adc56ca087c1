/*
 * libfaro internals shared by its files: the process-wide state, data
 * source instances and the per-thread writers.
 *
 * Who touches what:
 *   libfaro thread  instance lifecycle (setup/start/stop/flush/clear),
 *                   frees writers of stopped instances and dead threads
 *   app threads     their own struct faro_tls: writers created lazily
 *                   from the started instance's arbiter
 *
 * A thread holds its faro_tls lock while it writes; the libfaro thread
 * takes the same lock (spinning: the holder is only writing packets)
 * before it frees or flushes that thread's writers. An instance's 'gen'
 * changes whenever it stops, so a thread notices that its cached writer
 * belongs to an old session.
 */
#ifndef FARO_INT_H
#define FARO_INT_H

#include <sys/types.h>

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>

#include "faro/data_source.h"
#include "faro/track_event.h"

#include "libshm/pbw.h"
#include "libshm/shm_arbiter.h"

#define FARO_MAX_DS		32

/*
 * The SMB size libfaro asks for unless told otherwise. Upstream's SDK
 * asks for nothing and gets the service's 256 KiB; a burst of TrackEvent
 * slices written without pause (64 processes x 5000 slices with an
 * argument, 335 KiB each) fills that before traced is scheduled to read
 * any of it, and the drop policy loses 3%. 1 MiB keeps such a burst; the
 * stall policy keeps any.
 */
#define FARO_SMB_SIZE_DEFAULT	(1024u * 1024)

enum inst_state { INST_FREE, INST_SETUP, INST_STARTED, INST_STOPPING };

struct faro_ds_inst {
	enum inst_state		 state;
	uint64_t		 id;		/* the service's instance id */
	uint32_t		 target_buffer;
	enum shm_exhausted_policy policy;
	struct shm_arbiter	*arb;
	void			*data;		/* on_setup's result */
	atomic_uint		 gen;		/* bumped at every stop */
	atomic_uint		 clear_gen;	/* ClearIncrementalState count */
	atomic_int		 stop_done;	/* faro_ds_stop_done was called */
};

struct faro_ds {
	char			*name;
	unsigned		 index;
	struct faro_ds_args	 args;
	atomic_uint		 active;	/* bit per started instance */
	int			 registered;	/* told to the endpoint */
	struct faro_ds_inst	 inst[FARO_DS_MAX_INSTANCES];
};

/* Interning and track state of one TrackEvent sequence. */
#define TE_INTERN_SLOTS		1024
#define TE_INTERN_MAX		768	/* then start the sequence over */
#define TE_SEEN_TRACKS		32

struct te_intern_ent {
	const void	*key;
	uint32_t	 iid;
	uint32_t	 kind;
};

struct te_seq {
	uint64_t		 last_ts;	/* incremental clock's value */
	int64_t			 last_cpu_ns;	/* thread time sent so far */
	uint32_t		 used;
	uint32_t		 next_iid[4];
	unsigned		 nseen;
	uint64_t		 seen[TE_SEEN_TRACKS];
	struct te_intern_ent	 tab[TE_INTERN_SLOTS];
};

struct faro_tls;

/* One thread's writer for one instance: the public faro_ds_ctx. */
struct faro_ds_ctx {
	struct shm_writer	*sw;
	struct pbw		*pbw;		/* packet being written */
	struct faro_ds		*ds;
	unsigned		 slot;
	unsigned		 gen;		/* instance gen of sw */
	unsigned		 clear_gen;
	int			 first;		/* no packet written yet */
	int			 reset;		/* incremental state is gone */
	unsigned		 name_gen;	/* tls name_gen described */
	struct faro_tls		*tls;
	struct te_seq		*te;		/* TrackEvent writers only */
};

struct faro_tls {
	atomic_int		 busy;		/* the thread is writing */
	atomic_int		 seized;	/* the libfaro thread has it */
	int			 dead;		/* thread exited */
	pid_t			 tid;
	unsigned		 name_gen;	/* bumped by a new track_name */
	char			 track_name[64];
	struct faro_tls		*next;
	struct faro_ds_ctx	*w[FARO_MAX_DS][FARO_DS_MAX_INSTANCES];
};

struct faro_global {
	pthread_mutex_t		 mtx;		/* ds table, tls list */
	struct faro_ds		*ds[FARO_MAX_DS];
	unsigned		 nds;
	struct faro_tls		*tls;
	struct producer_ep	*ep;
	pid_t			 pid;
	uint64_t		 process_uuid;
	char			 process_name[64];
	atomic_ullong		 dropped;	/* of freed writers */
	atomic_int		 up;
	int			 inproc;	/* in-process mode (inproc.c) */
};

extern struct faro_global faro_g;

/* clock.c: the event clock (see there); 'tsc' 0: BOOTTIME read. */
struct faro_clock {
	atomic_uint		 seq;		/* odd while being changed */
	atomic_int		 tsc;
	_Atomic uint64_t	 base_tsc, base_ns, mult;
};
extern struct faro_clock faro_clk;
void		 faro_clock_init(void);
void		 faro_clock_tune(void);		/* libfaro thread */

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

static inline uint64_t
faro_clock_now(void)
{
#if defined(__x86_64__) || defined(__i386__)
	uint64_t bt, bn, m;
	int64_t d;
	unsigned s;

	if (atomic_load_explicit(&faro_clk.tsc, memory_order_relaxed)) {
		do {
			s = atomic_load_explicit(&faro_clk.seq,
			    memory_order_acquire);
			bt = atomic_load_explicit(&faro_clk.base_tsc,
			    memory_order_relaxed);
			bn = atomic_load_explicit(&faro_clk.base_ns,
			    memory_order_relaxed);
			m = atomic_load_explicit(&faro_clk.mult,
			    memory_order_relaxed);
			atomic_thread_fence(memory_order_acquire);
		} while ((s & 1) || s != atomic_load_explicit(&faro_clk.seq,
		    memory_order_relaxed));
		/* Read before the base was taken (another core): base. */
		if ((d = (int64_t)(__rdtsc() - bt)) < 0)
			d = 0;
		return bn + (uint64_t)(((unsigned __int128)d * m) >> 32);
	}
#endif
	return faro_now_ns();
}

/* faro.c: the libfaro thread. */
void		 faro_loop_wake(void);	/* run faro_ds_housekeep soon */
void		 faro_loop_sync(void);	/* ... and wait until it ran */
struct producer_ep *faro_ep(void);
/* The arbiter of the SMB writers write into now (either mode), or NULL. */
struct shm_arbiter *faro_arbiter(void);

/* inproc.c: the in-process mode's service side. */
int		 inproc_open(const char *path, const struct faro_init_args *,
		    const char **cause);
struct shm_arbiter *inproc_arbiter(void);
int		 inproc_ds_start(struct faro_ds *);	/* libfaro thread */
void		 inproc_drain(void);			/* libfaro thread */
void		 inproc_finish(void);			/* libfaro thread */
void		 inproc_free(void);

/* ds.c */
struct faro_tls	*faro_tls_get(void);
/*
 * A thread's writers are used by the thread itself at every event
 * (faro_tls_enter/leave) and now and then by the libfaro thread, to flush
 * or free them (faro_tls_seize/release, with faro_g.mtx held). The common
 * side pays no atomic read-modify-write: it marks itself busy with a
 * plain store and then looks at 'seized'; the seizer sets 'seized', runs
 * membarrier(2), which puts a full fence on every thread of the process,
 * and only then reads 'busy' (Dekker's algorithm with both fences on the
 * rare side). Where membarrier is missing both sides fence.
 */
extern int	 faro_tls_asym;		/* membarrier registered */
void		 faro_tls_asym_init(void);
static inline void
faro_tls_enter(struct faro_tls *t)
{
	for (;;) {
		if (faro_tls_asym) {
			atomic_store_explicit(&t->busy, 1,
			    memory_order_relaxed);
			atomic_signal_fence(memory_order_seq_cst);
		} else
			atomic_store(&t->busy, 1);
		if (!atomic_load_explicit(&t->seized, memory_order_acquire))
			return;
		atomic_store_explicit(&t->busy, 0, memory_order_release);
		while (atomic_load_explicit(&t->seized, memory_order_acquire))
			sched_yield();
	}
}
static inline void
faro_tls_leave(struct faro_tls *t)
{
	atomic_store_explicit(&t->busy, 0, memory_order_release);
}
/* wait 0: give up (-1) when the thread is writing right now. */
int		 faro_tls_seize(struct faro_tls *, int wait);
void		 faro_tls_release(struct faro_tls *);
struct faro_ds_ctx *faro_ds_writer(struct faro_tls *, struct faro_ds *,
		    unsigned slot);
void		 faro_ds_housekeep(void);	/* libfaro thread */
void		 faro_ds_teardown_all(void);	/* libfaro thread */
void		 faro_ds_free_all(void);
extern const struct producer_ep_ops faro_ds_ep_ops;

/* te.c */
void		 te_seq_clear(struct te_seq *);
void		 te_free_all(void);

/* te_match.c: does a TrackEventConfig enable this category? */
struct Perfetto__Protos__TrackEventConfig;
int		 te_category_enabled(
		    const struct Perfetto__Protos__TrackEventConfig *,
		    const char *name, const char *tags);

#endif
