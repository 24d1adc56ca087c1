/*
 * Scheduler load for the ftrace benchmarks: pairs of processes that bounce
 * one byte over two pipes, so every round trip is two context switches
 * (sched_switch and sched_waking events) and little else.
 */
#ifndef FARO_BENCH_PINGPONG_H
#define FARO_BENCH_PINGPONG_H

#define PINGPONG_PAIRS_MAX	32

/* Starts pairs (at most PINGPONG_PAIRS_MAX) more pairs; exits on failure. */
void	pingpong_start(int pairs);
/* Kills and reaps every pair started so far. */
void	pingpong_stop(void);

#endif
