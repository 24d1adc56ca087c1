/*
 * traced under load (tt_load.h): libfaro producers writing TrackEvent
 * slices without pause and raw producers whose writers register late,
 * beside CPU-bound processes, into one session.
 *
 *   bench_load [-f faro] [-r raw] [-H hogs] [-s slices] [-p packets]
 *              [-b buffer_kb] [-R] [-m smb_kb] [-S] [-a args] [-n runs]
 *
 * -R: ring buffer (default discard); -S: libfaro stall policy (default
 * drop, as upstream's TrackEvent); -m: libfaro's SMB hint; -a: debug
 * annotations per slice (0-3). Reports
 * events/s, traced's CPU and RSS, and the accounting: in discard mode
 * with room, loss must be 0; in ring mode the buffer's chunks written
 * must equal chunks read + overwritten. Build without ASan for figures.
 */
#include "config.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "traced_test.h"
#include "tt_load.h"

int
main(int argc, char *argv[])
{
	struct tt_load_opts	 o = { .nfaro = 64, .nhogs = 4, .slices = 5000,
				     .buffer_kb = 128 * 1024, .args = 1 };
	struct tt_load_result	 r;
	struct tt_traced	 td;
	char			 err[256];
	int			 ch, runs = 1, i, k, bad = 0;
	uint64_t		 lost, worst;

	while ((ch = getopt(argc, argv, "f:r:H:s:p:b:Rm:Sn:a:")) != -1)
		switch (ch) {
		case 'f': o.nfaro = atoi(optarg); break;
		case 'r': o.nraw = atoi(optarg); break;
		case 'H': o.nhogs = atoi(optarg); break;
		case 's': o.slices = (uint32_t)atoi(optarg); break;
		case 'p': o.packets = (uint32_t)atoi(optarg); break;
		case 'b': o.buffer_kb = (uint32_t)atoi(optarg); break;
		case 'R': o.ring = 1; break;
		case 'm': o.smb_kb = (uint32_t)atoi(optarg); break;
		case 'S': o.stall = 1; break;
		case 'n': runs = atoi(optarg); break;
		case 'a': o.args = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: bench_load [-f faro] [-r raw] "
			    "[-H hogs] [-s slices] [-p packets] [-b buffer_kb] "
			    "[-R] [-m smb_kb] [-S] [-a args] [-n runs]\n");
			return 1;
		}
	signal(SIGPIPE, SIG_IGN);
	if (getenv("top_builddir") == NULL)
		setenv("top_builddir", ".", 1);
	printf("bench_load: %d libfaro x %u slices, %d raw x %u packets, "
	    "%d hogs, %s buffer %u KiB, SMB %s, %s policy, %d args\n", o.nfaro,
	    o.slices, o.nraw, o.packets, o.nhogs, o.ring ? "ring" : "discard",
	    o.buffer_kb, o.smb_kb ? "hinted" : "default",
	    o.stall ? "stall" : "drop", o.args);
	for (k = 0; k < runs; k++) {
		if (tt_traced_start(&td, NULL) == -1) {
			fprintf(stderr, "bench_load: cannot start traced\n");
			return 1;
		}
		if (tt_load_run(&td, &o, &r, err, sizeof(err)) == -1) {
			fprintf(stderr, "bench_load: %s\n", err);
			tt_traced_stop(&td);
			return 1;
		}
		tt_traced_stop(&td);
		worst = 0;
		for (i = 0; i < r.nproducers; i++) {
			lost = r.p[i].written - r.p[i].found;
			if (lost > worst)
				worst = lost;
			/*
			 * What a producer says it lost is what is missing
			 * (in a ring, overwritten data is missing too).
			 */
			if (!o.ring && lost != r.p[i].dropped)
				bad++;
		}
		printf("run %d: events written %llu, in the trace %llu, lost "
		    "%llu (producers say %llu, worst producer %llu)\n", k + 1,
		    (unsigned long long)r.written, (unsigned long long)r.found,
		    (unsigned long long)(r.written - r.found),
		    (unsigned long long)r.dropped, (unsigned long long)worst);
		printf("  write %.3f s = %.0f events/s; total %.2f s; trace "
		    "%.1f MB; traced CPU %.2f s, RSS %ld KiB\n", r.write_s,
		    r.write_s > 0 ? (double)r.written / r.write_s : 0.0,
		    r.total_s, (double)r.trace_bytes / 1e6, r.traced_cpu_s,
		    r.traced_rss_kb);
		printf("  buffer chunks: written %llu read %llu overwritten "
		    "%llu discarded %llu rewritten %llu; writer loss marks "
		    "%llu; rejected commits %llu, duplicates %llu\n",
		    (unsigned long long)r.chunks_written,
		    (unsigned long long)r.chunks_read,
		    (unsigned long long)r.chunks_overwritten,
		    (unsigned long long)r.chunks_discarded,
		    (unsigned long long)r.chunks_rewritten,
		    (unsigned long long)r.writer_loss_marks,
		    (unsigned long long)r.trace_chunks_discarded,
		    (unsigned long long)r.duplicates);
		if (o.ring && r.chunks_written != r.chunks_read +
		    r.chunks_overwritten) {
			printf("  RING ACCOUNTING MISMATCH\n");
			bad++;
		}
	}
	if (bad)
		printf("bench_load: %d accounting mismatches\n", bad);
	return bad ? 2 : 0;
}
