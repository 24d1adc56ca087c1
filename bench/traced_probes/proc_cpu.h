/*
 * CPU time of another process, for the daemon benchmarks: what the kernel
 * charged it (utime + stime), read from the host's /proc/PID/stat.
 */
#ifndef FARO_BENCH_PROC_CPU_H
#define FARO_BENCH_PROC_CPU_H

#include <sys/types.h>

/* utime + stime of pid in seconds (clock-tick resolution), or -1. */
double	proc_cpu(pid_t pid);

#endif
