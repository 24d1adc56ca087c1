/*
 * TracePacket framing shared by the process_stats, sys_stats and
 * system_info data sources: every packet carries its CLOCK_BOOTTIME
 * timestamp, and the first packet after an SMB-full drop says so, so a
 * reader never mistakes a gap for a quiet system.
 */
#ifndef FARO_PROBE_PACKET_H
#define FARO_PROBE_PACKET_H

#include <stdint.h>

#include "libshm/pbw.h"
#include "libshm/shm_arbiter.h"

/* TracePacket field numbers. */
enum {
	TP_PROCESS_TREE = 2,
	TP_SYS_STATS = 7,
	TP_TIMESTAMP = 8,
	TP_PROCESS_STATS = 9,
	TP_INCREMENTAL_STATE_CLEARED = 41,
	TP_PREVIOUS_PACKET_DROPPED = 42,
	TP_SYSTEM_INFO = 45,
	TP_CPU_INFO = 67,
};

static inline struct pbw *
probe_packet_begin(struct shm_writer *sw, uint64_t ts)
{
	struct pbw *w = shm_writer_packet_begin(sw);

	pbw_varint(w, TP_TIMESTAMP, ts);
	if (shm_writer_take_dropped(sw))
		pbw_varint(w, TP_PREVIOUS_PACKET_DROPPED, 1);
	return w;
}

#endif
