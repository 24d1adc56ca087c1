/*
 * The event clock: nanoseconds that track CLOCK_BOOTTIME, read from the
 * TSC where the kernel itself trusts it (its clocksource is "tsc"), at a
 * third of clock_gettime's cost. Traces stay exact: each sequence starts
 * with a ClockSnapshot of this clock (as the incremental clock 64)
 * against the real BOOTTIME, and trace_processor converts with it.
 *
 * Conversion: ns = base_ns + ((tsc - base_tsc) * mult) >> 32, published
 * under a sequence count. The libfaro thread retunes it every tick: mult
 * is the TSC rate seen since the first sample, nudged so that the clock
 * meets BOOTTIME again within a second (at most 500 ppm off the rate),
 * so it never jumps back and stays within microseconds of BOOTTIME.
 * Until the first tick, and without a usable TSC, events read BOOTTIME.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "faro_int.h"

#define TUNE_PERIOD_NS	1000000000ll	/* meet BOOTTIME again within */
#define SLEW_MAX_PPM	500
#define JUMP_NS		1000000ll	/* further off: start over (resume) */

struct faro_clock faro_clk;

static struct {
	int		 usable;
	uint64_t	 tsc0, ns0;	/* the first sample */
} tune;

#if defined(__x86_64__) || defined(__i386__)
/* A (tsc, BOOTTIME) pair taken as close together as a few tries allow. */
static void
clock_sample(uint64_t *tsc, uint64_t *ns)
{
	uint64_t a, b, n, best = UINT64_MAX;

	*tsc = *ns = 0;
	for (int i = 0; i < 4; i++) {
		a = __rdtsc();
		n = faro_now_ns();
		b = __rdtsc();
		if (b - a < best) {
			best = b - a;
			*tsc = a + (b - a) / 2;
			*ns = n;
		}
	}
}

static int
clock_tsc_trusted(void)
{
	char buf[32] = "";
	FILE *f;

	if ((f = fopen("/sys/devices/system/clocksource/clocksource0/"
	    "current_clocksource", "r")) == NULL)
		return 0;
	if (fgets(buf, sizeof(buf), f) == NULL)
		buf[0] = '\0';
	fclose(f);
	return strcmp(buf, "tsc\n") == 0;
}
#else
static void
clock_sample(uint64_t *tsc, uint64_t *ns)
{
	*tsc = 0;
	*ns = faro_now_ns();
}

static int
clock_tsc_trusted(void)
{
	return 0;
}
#endif

static void
clock_publish(uint64_t base_tsc, uint64_t base_ns, uint64_t mult)
{
	unsigned s = atomic_load_explicit(&faro_clk.seq, memory_order_relaxed);

	atomic_store_explicit(&faro_clk.seq, s + 1, memory_order_relaxed);
	atomic_thread_fence(memory_order_release);
	atomic_store_explicit(&faro_clk.base_tsc, base_tsc,
	    memory_order_relaxed);
	atomic_store_explicit(&faro_clk.base_ns, base_ns, memory_order_relaxed);
	atomic_store_explicit(&faro_clk.mult, mult, memory_order_relaxed);
	atomic_store_explicit(&faro_clk.seq, s + 2, memory_order_release);
	atomic_store_explicit(&faro_clk.tsc, 1, memory_order_release);
}

/* The clock's value at a TSC reading (this thread alone publishes). */
static uint64_t
clock_at(uint64_t tsc)
{
	uint64_t bt = atomic_load_explicit(&faro_clk.base_tsc,
	    memory_order_relaxed);
	uint64_t bn = atomic_load_explicit(&faro_clk.base_ns,
	    memory_order_relaxed);
	uint64_t m = atomic_load_explicit(&faro_clk.mult, memory_order_relaxed);

	if (tsc < bt)
		return bn;
	return bn + (uint64_t)(((unsigned __int128)(tsc - bt) * m) >> 32);
}

void
faro_clock_init(void)
{
	atomic_store(&faro_clk.tsc, 0);
	memset(&tune, 0, sizeof(tune));
	if (getenv("FARO_NO_TSC") != NULL || !clock_tsc_trusted())
		return;
	tune.usable = 1;
	clock_sample(&tune.tsc0, &tune.ns0);
}

/* libfaro thread, every tick. */
void
faro_clock_tune(void)
{
	uint64_t tsc, ns, now, mult;
	unsigned __int128 rate;
	int64_t err, slew;

	if (!tune.usable)
		return;
	clock_sample(&tsc, &ns);
	if (tsc <= tune.tsc0 || ns <= tune.ns0)
		return;
	rate = ((unsigned __int128)(ns - tune.ns0) << 32) / (tsc - tune.tsc0);
	if (!atomic_load_explicit(&faro_clk.tsc, memory_order_relaxed)) {
		clock_publish(tsc, ns, (uint64_t)rate);
		return;
	}
	now = clock_at(tsc);
	err = (int64_t)(ns - now);
	if (err > JUMP_NS) {
		/* BOOTTIME went on without the TSC (suspend): catch up. */
		clock_publish(tsc, ns, (uint64_t)rate);
		return;
	}
	/* err / period, in parts per million, bounded. */
	slew = err / (TUNE_PERIOD_NS / 1000000);
	if (slew > SLEW_MAX_PPM)
		slew = SLEW_MAX_PPM;
	if (slew < -SLEW_MAX_PPM)
		slew = -SLEW_MAX_PPM;
	mult = (uint64_t)((__int128)rate + (__int128)rate * slew / 1000000);
	clock_publish(tsc, now, mult);
}
