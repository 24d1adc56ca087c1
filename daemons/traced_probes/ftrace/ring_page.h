/*
 * Iteration over one ring-buffer page as read from trace_pipe_raw.
 *
 *   page:  +-----------+--------+-----------------------------------+
 *          | timestamp | commit | records ...            | [missed] |
 *          +-----------+--------+-----------------------------------+
 *           (offsets from events/header_page; usually 0, 8, data 16)
 *
 *   commit: bits 0-26 length of the record data, bit 31 events were lost
 *   before this page, bit 30 the count of lost events is stored as a long
 *   right after the data.
 *
 *   record: u32 header, type_len:5 (low bits) time_delta:27, then
 *     type_len 1..28  data of type_len * 4 bytes
 *     type_len 0      u32 length (includes itself), then data
 *     29 padding      u32 length; time_delta 0 means the rest of the page
 *     30 time extend  u32 high bits of the delta: delta = hi << 27 | lo
 *     31 time stamp   u32 high bits of an absolute timestamp
 *
 * The page comes from the kernel but every length is checked against the
 * page end: a broken page stops with a status, never a bad read.
 */
#ifndef FARO_RING_PAGE_H
#define FARO_RING_PAGE_H

#include <stddef.h>
#include <stdint.h>

#include "format.h"

/* Values of FtraceParseStatus (ftrace_stats.proto) we report. */
enum ftrace_status {
	FTRACE_STATUS_OK = 1,
	FTRACE_STATUS_PARTIAL_PAGE_READ = 3,
	FTRACE_STATUS_ABI_INVALID_PAGE_HEADER = 4,
	FTRACE_STATUS_ABI_SHORT_EVENT_HEADER = 5,
	FTRACE_STATUS_ABI_NULL_PADDING = 6,
	FTRACE_STATUS_ABI_SHORT_PADDING_LENGTH = 7,
	FTRACE_STATUS_ABI_INVALID_PADDING_LENGTH = 8,
	FTRACE_STATUS_ABI_SHORT_TIME_EXTEND = 9,
	FTRACE_STATUS_ABI_SHORT_TIME_STAMP = 10,
	FTRACE_STATUS_ABI_SHORT_DATA_LENGTH = 11,
	FTRACE_STATUS_ABI_ZERO_DATA_LENGTH = 12,
	FTRACE_STATUS_ABI_INVALID_DATA_LENGTH = 13,
	FTRACE_STATUS_ABI_SHORT_EVENT_ID = 14,
	FTRACE_STATUS_ABI_END_OVERFLOW = 15,
};

struct ring_page {
	const uint8_t	*p;		/* next record */
	const uint8_t	*end;		/* end of committed data */
	uint64_t	 ts;		/* time of the last record */
	uint64_t	 base_ts;	/* page timestamp */
	uint32_t	 data_len;
	int		 lost;		/* events lost before this page */
	int64_t		 lost_count;	/* -1 when not stored */
};

struct ring_record {
	uint64_t	 ts;
	const uint8_t	*data;
	uint32_t	 len;
};

/*
 * Opens a page of len bytes. Returns 0, or an ftrace_status when the
 * header cannot describe a valid page.
 */
int	ring_page_open_untrusted(struct ring_page *rp,
	    const struct ftrace_page_layout *pl, const uint8_t *page,
	    size_t len);

/*
 * Steps to the next data record: returns 1 with *rec filled, 0 at the end
 * of the page, or an ftrace_status (> 1) on a malformed record.
 */
int	ring_page_next_untrusted(struct ring_page *rp, struct ring_record *rec);

#endif
