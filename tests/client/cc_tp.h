/*
 * libfaro's suites and our trace_processor: a trace the suite wrote,
 * queried with the trace_processor of this build ($top_builddir).
 */
#ifndef FARO_CC_TP_H
#define FARO_CC_TP_H

/* The single number a query prints (CSV: header line, value line). */
long	cc_tp_query(const char *trace, const char *sql);

#endif
