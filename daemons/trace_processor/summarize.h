/*
 * The summarize command (and the classic --summary flags): spec files are
 * read before the program is confined, the summary is computed once the
 * trace is loaded and printed as text (the default) or binary.
 *
 *   trace_processor summarize --metrics-v2 all TRACE spec.textproto
 *   trace_processor --summary --summary-spec spec.pb \
 *       --summary-metrics-v2 a,b --summary-format binary TRACE
 */
#ifndef FARO_TP_SUMMARIZE_H
#define FARO_TP_SUMMARIZE_H

#include <stdio.h>

#include "args.h"
#include "summary/summary.h"
#include "tp.h"

struct summarize_files {
	struct summary_spec	*specs;
	size_t			 nspecs;
};

/* Reads a's spec files. 0, or -1 after printing why. */
int	summarize_open(const struct tp_args *, struct summarize_files *);
void	summarize_close(struct summarize_files *);
/*
 * Computes the summary on tp and prints it to out (nothing when a
 * --post-query is given, as upstream). Returns the exit status.
 */
int	summarize_run(struct tp *, const struct tp_args *,
	    const struct summarize_files *, FILE *out);

#endif
