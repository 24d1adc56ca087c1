/*
 * android_fs data reads: an "android_fs_data_read" slice from
 * android_fs_dataread_start to the end event of the same inode and
 * offset, on the "android_fs" tracks (reads of different threads
 * overlap, so they share a pool of tracks, one per reading thread).
 */
#include <stdlib.h>

#include "tp_int.h"

#define EV_DATAREAD_END		431
#define EV_DATAREAD_START	432

struct tp_fandroidfs {
	struct tp_hash	 reads;		/* inode and offset -> tid */
};

static uint64_t
read_key(const struct tp_ftrace_ev *e, unsigned ino, unsigned off)
{
	uint64_t k[2] = { (uint64_t)e->v[ino], (uint64_t)e->v[off] };

	return tp_hash_bytes(0, k, sizeof(k));
}

int
tp_ftrace_androidfs_event(struct tp *tp, int64_t ts, uint32_t cpu,
    int64_t pid, uint32_t evid, const struct tp_ftrace_ev *e)
{
	struct tp_fandroidfs *fs = tp->fandroidfs;
	int64_t track, set = TP_NULL;
	uint64_t key, *tid;

	(void)cpu;
	if (evid != EV_DATAREAD_START && evid != EV_DATAREAD_END)
		return 0;
	if (fs == NULL) {
		if ((fs = tp->fandroidfs = calloc(1, sizeof(*fs))) == NULL)
			return 1;
		tp_hash_init(&fs->reads);
	}
	if (evid == EV_DATAREAD_START) {
		/* bytes 1, ino 4, offset 5, pathbuf 6 */
		if (tp_hash_put(&fs->reads, read_key(e, 4, 5),
		    (uint64_t)pid) == -1)
			return 1;
		track = tp_track_pool_begin(tp, "android_fs", "android_fs",
		    (uint64_t)pid);
		set = tp_arg_set_new(tp);
		tp_arg_str(tp, set, "file_path", "file_path", e->s[6],
		    e->slen[6], NULL);
		tp_arg_int(tp, set, "offset_start", "offset_start", e->v[5],
		    "int");
		tp_arg_int(tp, set, "bytes_read_start", "bytes_read_start",
		    (int32_t)e->v[1], "int");
		(void)tp_slice_begin(tp, track, ts, NULL,
		    "android_fs_data_read", set, TP_NULL);
		return 1;
	}
	/* bytes 1, ino 2, offset 3: a read whose start was not seen is
	 * left out. */
	key = read_key(e, 2, 3);
	if ((tid = tp_hash_get(&fs->reads, key)) == NULL)
		return 1;
	track = tp_track_pool_end(tp, "android_fs", "android_fs", *tid);
	(void)tp_hash_del(&fs->reads, key);
	if (tp_slice_end(tp, track, ts, NULL, TP_NULL, &set) < 0 ||
	    set == TP_NULL)
		return 1;
	tp_arg_int(tp, set, "offset_end", "offset_end", e->v[3], "int");
	tp_arg_int(tp, set, "bytes_read_end", "bytes_read_end",
	    (int32_t)e->v[1], "int");
	return 1;
}

void
tp_ftrace_androidfs_free(struct tp *tp)
{
	if (tp->fandroidfs == NULL)
		return;
	tp_hash_free(&tp->fandroidfs->reads);
	free(tp->fandroidfs);
	tp->fandroidfs = NULL;
}
