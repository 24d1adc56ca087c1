/*
 * virtio-gpu virtqueue events (virtio_gpu_cmd_queue, _response), as
 * upstream draws them for the control and cursor queues: each command a
 * slice from its queueing to its response, on tracks the queue's
 * commands in flight share; the queue's free slots as a counter; and the
 * round trip of commands without a fence (the host answers those at
 * once) as a latency counter.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tp_hash.h"
#include "tp_int.h"

#define EV_CMD_QUEUE	468
#define EV_CMD_RESPONSE	469

/* VIRTIO_GPU_CMD_*, from 0x0100 (2D), 0x0200 (3D) and 0x0300 (cursor). */
static const char *const cmds_2d[] = {
	"GET_DISPLAY_INFO", "RESOURCE_CREATE_2D", "RESOURCE_UNREF",
	"SET_SCANOUT", "RESOURCE_FLUSH", "TRANSFER_TO_HOST_2D",
	"RESOURCE_ATTACH_BACKING", "RESOURCE_DETACH_BACKING",
	"GET_CAPSET_INFO", "GET_CAPSET", "GET_EDID", "RESOURCE_ASSIGN_UUID",
	"RESOURCE_CREATE_BLOB", "SET_SCANOUT_BLOB",
};
static const char *const cmds_3d[] = {
	"CTX_CREATE", "CTX_DESTROY", "CTX_ATTACH_RESOURCE",
	"CTX_DETACH_RESOURCE", "RESOURCE_CREATE_3D", "TRANSFER_TO_HOST_3D",
	"TRANSFER_FROM_HOST_3D", "SUBMIT_3D", "RESOURCE_MAP_BLOB",
	"RESOURCE_UNMAP_BLOB",
};
static const char *const cmds_cursor[] = { "UPDATE_CURSOR", "MOVE_CURSOR" };
#define NELEM(a)	(sizeof(a) / sizeof((a)[0]))

/* The queues upstream knows; others are ignored. */
static const char *const queues[] = { "control", "cursor" };
static const char *const queue_names[] = { "Control", "Cursor" };
#define NQUEUES		NELEM(queues)

struct tp_fvirtgpu {
	struct tp_hash	 start[NQUEUES];	/* seqno -> when queued */
};

static struct tp_fvirtgpu *
virtgpu_get(struct tp *tp)
{
	struct tp_fvirtgpu *vg = tp->fvirtgpu;
	unsigned q;

	if (vg == NULL && (vg = tp->fvirtgpu = calloc(1, sizeof(*vg))) != NULL)
		for (q = 0; q < NQUEUES; q++)
			tp_hash_init(&vg->start[q]);
	return vg;
}

static const char *
cmd_name(uint32_t type)
{
	uint32_t i = type & 0xff;

	switch (type >> 8) {
	case 1:
		return i < NELEM(cmds_2d) ? cmds_2d[i] : "";
	case 2:
		return i < NELEM(cmds_3d) ? cmds_3d[i] : "";
	case 3:
		return i < NELEM(cmds_cursor) ? cmds_cursor[i] : "";
	}
	return "";
}

static void
queue_counter(struct tp *tp, int64_t ts, unsigned q, const char *what,
    const char *kind, double v)
{
	struct tp_dim dim = { "virtgpu_name", queue_names[q], 0 };
	char name[64];
	int64_t track;

	snprintf(name, sizeof(name), "Virtgpu %s %s", queue_names[q], what);
	if ((track = tp_track_intern_dimv(tp, TT_COUNTER, NULL, name, TP_NULL, &dim,
	    1, NULL)) < 0)
		return;
	tp_track_kind(tp, track, kind);
	tp_counter_insert(tp, ts, track, v, TP_NULL);
}

static int64_t
queue_track(struct tp *tp, unsigned q, uint32_t seqno, int step)
{
	struct tp_dim dim = { "virtgpu_name", queue_names[q], 0 };
	struct tp_pool_key k = { .kind = "virtgpu_queue_event",
	    .upid = TP_NULL, .dims = &dim, .ndims = 1 };
	char name[64];

	snprintf(name, sizeof(name), "Virtgpu %s Queue", queue_names[q]);
	k.name = name;
	return tp_track_pool_take(tp, &k, seqno, step);
}

int
tp_ftrace_virtio_gpu_event(struct tp *tp, int64_t ts, uint32_t cpu,
    int64_t pid, uint32_t evid, const struct tp_ftrace_ev *e)
{
	struct tp_fvirtgpu *vg;
	uint32_t seqno;
	uint64_t *start;
	unsigned q;

	(void)cpu;
	(void)pid;
	if (evid != EV_CMD_QUEUE && evid != EV_CMD_RESPONSE)
		return 0;
	/* fence_id 3, name 5, num_free 6, seqno 7, type 8 */
	for (q = 0; q < NQUEUES; q++)
		if (e->s[5] != NULL && e->slen[5] == strlen(queues[q]) &&
		    memcmp(e->s[5], queues[q], e->slen[5]) == 0)
			break;
	if (q == NQUEUES || (vg = virtgpu_get(tp)) == NULL)
		return 1;
	seqno = (uint32_t)e->v[7];
	queue_counter(tp, ts, q, "Free", "virtgpu_num_free",
	    (double)(uint32_t)e->v[6]);
	if (evid == EV_CMD_QUEUE) {
		(void)tp_slice_begin(tp, queue_track(tp, q, seqno, 1), ts,
		    NULL, cmd_name((uint32_t)e->v[8]), TP_NULL, TP_NULL);
		/* A fenced command may wait on the host: no latency. */
		if (e->v[3] == 0)
			(void)tp_hash_put(&vg->start[q], seqno, (uint64_t)ts);
		return 1;
	}
	(void)tp_slice_end(tp, queue_track(tp, q, seqno, -1), ts, NULL,
	    TP_NULL, NULL);
	if ((start = tp_hash_get(&vg->start[q], seqno)) == NULL)
		return 1;
	queue_counter(tp, ts, q, "Latency", "virtgpu_latency",
	    (double)(ts - (int64_t)*start));
	(void)tp_hash_del(&vg->start[q], seqno);
	return 1;
}

void
tp_ftrace_virtio_gpu_free(struct tp *tp)
{
	unsigned q;

	if (tp->fvirtgpu == NULL)
		return;
	for (q = 0; q < NQUEUES; q++)
		tp_hash_free(&tp->fvirtgpu->start[q]);
	free(tp->fvirtgpu);
	tp->fvirtgpu = NULL;
}
