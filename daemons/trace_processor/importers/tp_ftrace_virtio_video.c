/*
 * virtio-video events, as upstream draws them: a resource's slice from
 * its queueing (virtio_video_resource_queue) to its return (_done) on
 * tracks of its stream and queue, with the returned buffer's fields as
 * args; and each command and its response (virtio_video_cmd, _cmd_done)
 * as a slice of a fixed 100 us on the stream's "Requests" or "Responses"
 * tracks.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "tp_int.h"

#define EV_CMD			439
#define EV_CMD_DONE		440
#define EV_RESOURCE_QUEUE	441
#define EV_RESOURCE_QUEUE_DONE	442

#define QUEUE_TYPE_INPUT	0x100
#define QUEUE_TYPE_OUTPUT	0x101
#define CMD_DUR			100000

/* VIRTIO_VIDEO_CMD_*, from 0x100. */
static const char *const cmds[] = {
	"QUERY_CAPABILITY", "STREAM_CREATE", "STREAM_DESTROY", "STREAM_DRAIN",
	"RESOURCE_CREATE", "RESOURCE_QUEUE", "RESOURCE_DESTROY_ALL",
	"QUEUE_CLEAR", "GET_PARAMS", "SET_PARAMS", "QUERY_CONTROL",
	"GET_CONTROL", "SET_CONTROL", "GET_PARAMS_EXT", "SET_PARAMS_EXT",
};

static const char *
queue_type_name(uint32_t t)
{
	return t == QUEUE_TYPE_INPUT ? "INPUT" : t == QUEUE_TYPE_OUTPUT ?
	    "OUTPUT" : "Unknown";
}

/* The pool of a stream's queue: the resource's begin (step 1) or end. */
static int64_t
queue_track(struct tp *tp, uint32_t stream, uint32_t qtype, int32_t resource,
    int step)
{
	struct tp_dim dims[2] = { { "virtio_stream_id", NULL, stream },
	    { "virtio_queue_type", NULL, qtype } };
	struct tp_pool_key k = { .kind = "virtio_video_queue_event",
	    .upid = TP_NULL, .dims = dims, .ndims = 2 };
	char name[64];

	snprintf(name, sizeof(name), "virtio_video stream #%" PRIu32 " %s",
	    stream, queue_type_name(qtype));
	k.name = name;
	return tp_track_pool_take(tp, &k, (uint64_t)(int64_t)resource, step);
}

static void
command(struct tp *tp, int64_t ts, uint32_t stream, uint32_t type,
    int response)
{
	struct tp_dim dims[2] = { { "virtio_stream_id", NULL, stream },
	    { "is_response", NULL, response } };
	struct tp_pool_key k = { .kind = "virtio_video_command",
	    .upid = TP_NULL, .dims = dims, .ndims = 2 };
	char name[64];

	snprintf(name, sizeof(name), "virtio_video stream #%" PRIu32 " %s",
	    stream, response ? "Responses" : "Requests");
	k.name = name;
	(void)tp_slice_complete(tp, tp_track_pool_scoped(tp, &k, ts, CMD_DUR),
	    ts, CMD_DUR, NULL, type - 0x100 < sizeof(cmds) / sizeof(cmds[0]) ?
	    cmds[type - 0x100] : "Unknown", TP_NULL, TP_NULL, TP_NULL);
}

/* The returned buffer: data_size0..3 1-4, queue_type 5, resource_id 6,
 * stream_id 7, timestamp 8. */
static void
resource_args(struct tp *tp, int64_t set, const struct tp_ftrace_ev *e)
{
	static const char *const sizes[] = { "data_size0", "data_size1",
	    "data_size2", "data_size3" };
	const char *qt = queue_type_name((uint32_t)e->v[5]);
	int i;

	tp_arg_int(tp, set, "stream_id", "stream_id", (int32_t)e->v[7],
	    "int");
	tp_arg_int(tp, set, "resource_id", "resource_id", (int32_t)e->v[6],
	    "int");
	tp_arg_str(tp, set, "queue_type", "queue_type", qt, strlen(qt), NULL);
	for (i = 0; i < 4; i++)
		tp_arg_int(tp, set, sizes[i], sizes[i], (uint32_t)e->v[1 + i],
		    "int");
	tp_arg_int(tp, set, "timestamp", "timestamp", e->v[8], "uint");
}

int
tp_ftrace_virtio_video_event(struct tp *tp, int64_t ts, uint32_t cpu,
    int64_t pid, uint32_t evid, const struct tp_ftrace_ev *e)
{
	char name[64];
	int64_t set = TP_NULL;

	(void)cpu;
	(void)pid;
	switch (evid) {
	case EV_RESOURCE_QUEUE:
		snprintf(name, sizeof(name), "Resource #%" PRId32,
		    (int32_t)e->v[6]);
		(void)tp_slice_begin(tp, queue_track(tp, (uint32_t)e->v[7],
		    (uint32_t)e->v[5], (int32_t)e->v[6], 1), ts, NULL, name,
		    TP_NULL, TP_NULL);
		return 1;
	case EV_RESOURCE_QUEUE_DONE:
		if (tp_slice_end(tp, queue_track(tp, (uint32_t)e->v[7],
		    (uint32_t)e->v[5], (int32_t)e->v[6], -1), ts, NULL, TP_NULL,
		    &set) >= 0)
			resource_args(tp, set, e);
		return 1;
	case EV_CMD:
	case EV_CMD_DONE:
		/* stream_id 1, type 2 */
		command(tp, ts, (uint32_t)e->v[1], (uint32_t)e->v[2],
		    evid == EV_CMD_DONE);
		return 1;
	}
	return 0;
}
