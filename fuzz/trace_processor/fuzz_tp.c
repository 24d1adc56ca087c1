/*
 * libFuzzer target for the trace_processor importers. FUZZ_FORMAT (set per
 * binary) pins the format with a first byte: 0 a proto trace ("\x0a"), 1 a
 * JSON array ("["), 2 ftrace text ("#"), 3 a Gecko profile ('{"meta":').
 * The first input byte picks the chunk size, so records that
 * straddle chunks are exercised; tables are then queried once, as the
 * shell would after loading.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "tp.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const prefixes[] = { "\x0a", "[", "#\n",
	    "{\"meta\":" };
	const char *prefix = prefixes[FUZZ_FORMAT];
	struct tp_config cfg;
	struct tp *tp;
	char *err = NULL;
	size_t chunk, off;
	sqlite3_stmt *st;

	if (size < 1)
		return 0;
	chunk = (size_t)data[0] % 64 + 1;
	data++;
	size--;
	tp_config_init(&cfg);
	/* A small window makes the sorter release (and drop) early too. */
	cfg.sort_window_bytes = 4096;
	if ((tp = tp_new(&cfg, &err)) == NULL)
		return 0;
	if (tp_parse(tp, prefix, strlen(prefix)) == 0) {
		for (off = 0; off < size; off += chunk)
			if (tp_parse(tp, data + off, size - off < chunk ?
			    size - off : chunk) == -1)
				break;
	}
	(void)tp_eof(tp);
	if (sqlite3_prepare_v2(tp_db(tp), "SELECT COUNT(*), SUM(dur) FROM"
	    " slice JOIN thread_track ON slice.track_id = thread_track.id",
	    -1, &st, NULL) == SQLITE_OK) {
		while (sqlite3_step(st) == SQLITE_ROW)
			;
		sqlite3_finalize(st);
	}
	tp_free(tp);
	return 0;
}
