/*
 * Block layer ftrace events: each request from block_io_start to
 * block_io_done is a "block_io" slice on its device's track, with the
 * sector it starts at.
 */
#include "tp_int.h"

#define EV_BLOCK_IO_START	546
#define EV_BLOCK_IO_DONE	547

int
tp_ftrace_block_event(struct tp *tp, int64_t ts, uint32_t cpu, int64_t pid,
    uint32_t evid, const struct tp_ftrace_ev *e)
{
	int64_t track, set;

	(void)cpu;
	(void)pid;
	if (evid != EV_BLOCK_IO_START && evid != EV_BLOCK_IO_DONE)
		return 0;
	/* dev 1, sector 2 */
	track = tp_track_intern_idim(tp, TT_TRACK, NULL, TP_NULL,
	    "block_device", (int64_t)(uint64_t)e->v[1]);
	tp_track_kind(tp, track, "block_io");
	if (evid == EV_BLOCK_IO_START) {
		set = tp_arg_set_new(tp);
		tp_arg_int(tp, set, "sector", "sector", e->v[2], "uint");
		(void)tp_slice_begin(tp, track, ts, NULL, "block_io", set,
		    TP_NULL);
	} else
		(void)tp_slice_end_matching(tp, track, ts, NULL,
		    "block_io", TP_NULL, NULL);
	return 1;
}
