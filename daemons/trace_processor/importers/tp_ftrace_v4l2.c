/*
 * Video4Linux2 buffer events (v4l2_qbuf, v4l2_dqbuf and the videobuf2
 * vb2_v4l2_*), as upstream draws them: an instant on the thread, category
 * "Video 4 Linux 2", named after the ioctl and the buffer, with the
 * buffer's fields as args spelt as <linux/videodev2.h> names them; a
 * buffer's dequeue flows from where it was queued.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tp_hash.h"
#include "tp_int.h"

#define EV_QBUF		422
#define EV_DQBUF	423
#define EV_VB2_BUF_QUEUE 424
#define EV_VB2_BUF_DONE	425
#define EV_VB2_QBUF	426
#define EV_VB2_DQBUF	427

#define CATEGORY	"Video 4 Linux 2"
#define NAME_LEN	64	/* upstream's name buffer, NUL included */

/* Where each kind of event keeps its fields (0: it has none such). The
 * timecode fields follow each other from timecode_flags on. */
struct layout {
	unsigned	 bytesused, field, flags, index, minor, sequence, tc,
			 timestamp, type;
};
static const struct layout v4l2_layout = { 1, 2, 3, 4, 5, 6, 7, 17, 18 };
static const struct layout vb2_layout = { 0, 1, 2, 0, 3, 4, 5, 15, 0 };

/* timecode_flags, _frames, _hours, _minutes, _seconds, _type,
 * _userbits0..3, relative to timecode_flags. */
enum { TC_FLAGS, TC_FRAMES, TC_HOURS, TC_MINUTES, TC_SECONDS, TC_TYPE,
    TC_USERBITS0 };

static const char *const buf_types[] = {
	NULL, "VIDEO_CAPTURE", "VIDEO_OUTPUT", "VIDEO_OVERLAY", "VBI_CAPTURE",
	"VBI_OUTPUT", "SLICED_VBI_CAPTURE", "SLICED_VBI_OUTPUT",
	"VIDEO_OUTPUT_OVERLAY", "VIDEO_CAPTURE_MPLANE", "VIDEO_OUTPUT_MPLANE",
	"SDR_CAPTURE", "SDR_OUTPUT", "META_CAPTURE", "META_OUTPUT",
};
static const char *const buf_fields[] = {
	"ANY", "NONE", "TOP", "BOTTOM", "INTERLACED", "SEQ_TB", "SEQ_BT",
	"ALTERNATE", "INTERLACED_TB", "INTERLACED_BT",
};
static const char *const tc_types[] = {
	NULL, "24FPS", "25FPS", "30FPS", "50FPS", "60FPS",
};
#define NELEM(a)	(sizeof(a) / sizeof((a)[0]))

struct tp_fv4l2 {
	struct tp_hash	 queued;	/* buffer_key() -> its qbuf slice */
};

/* V4L2_BUF_FLAG_*: a bit set (mask) or, for the "none set" names, the
 * whole word equal to 0 (mask 0). */
static const struct flag {
	uint32_t	 mask;
	const char	*name;
} buf_flags[] = {
	{ 0x00000001, "MAPPED" }, { 0x00000002, "QUEUED" },
	{ 0x00000004, "DONE" }, { 0x00000008, "KEYFRAME" },
	{ 0x00000010, "PFRAME" }, { 0x00000020, "BFRAME" },
	{ 0x00000040, "ERROR" }, { 0x00000080, "IN_REQUEST" },
	{ 0x00000100, "TIMECODE" }, { 0x00000200, "M2M_HOLD_CAPTURE_BUF" },
	{ 0x00000400, "PREPARED" }, { 0x00000800, "NO_CACHE_INVALIDATE" },
	{ 0x00001000, "NO_CACHE_CLEAN" }, { 0x0000e000, "TIMESTAMP_MASK" },
	{ 0, "TIMESTAMP_UNKNOWN" }, { 0x00002000, "TIMESTAMP_MONOTONIC" },
	{ 0x00004000, "TIMESTAMP_COPY" }, { 0x00070000, "TSTAMP_SRC_MASK" },
	{ 0, "TSTAMP_SRC_EOF" }, { 0x00010000, "TSTAMP_SRC_SOE" },
	{ 0x00100000, "LAST" }, { 0x00800000, "REQUEST_FD" },
};

static void
add_name(char *buf, size_t size, size_t *len, const char *name)
{
	int n = snprintf(buf + *len, size - *len, "%s%s", *len ? "|" : "",
	    name);

	if (n > 0 && (size_t)n < size - *len)
		*len += (size_t)n;
}

static void
buf_flags_str(uint32_t v, char *buf, size_t size)
{
	size_t i, len = 0;

	buf[0] = '\0';
	for (i = 0; i < NELEM(buf_flags); i++)
		if (buf_flags[i].mask ? (v & buf_flags[i].mask) != 0 : v == 0)
			add_name(buf, size, &len, buf_flags[i].name);
}

/* V4L2_TC_FLAG_* and V4L2_TC_USERBITS_*. */
static void
tc_flags_str(uint32_t v, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	if (v == 0)
		add_name(buf, size, &len, "USERBITS_USERDEFINED");
	if (v & 0x1)
		add_name(buf, size, &len, "FLAG_DROPFRAME");
	if (v & 0x2)
		add_name(buf, size, &len, "FLAG_COLORFRAME");
	if ((v & 0xc) == 0x4)
		add_name(buf, size, &len, "USERBITS_field(01)");
	if ((v & 0xc) == 0x8)
		add_name(buf, size, &len, "USERBITS_field(10)");
	if ((v & 0xc) == 0xc)
		add_name(buf, size, &len, "USERBITS_field(11)");
	if (v & 0x8)
		add_name(buf, size, &len, "USERBITS_8BITCHARS");
}

/* An enum's name as a string arg; NULL (unknown value) a null one. */
static void
enum_arg(struct tp *tp, int64_t set, const char *key, const char *const *names,
    size_t n, uint32_t v)
{
	const char *s = v < n ? names[v] : NULL;

	if (v == 0x80 && names == buf_types)
		s = "PRIVATE";
	if (s != NULL)
		tp_arg_str(tp, set, key, key, s, strlen(s), NULL);
	else
		tp_arg_str_null(tp, set, key);
}

static void
int_arg(struct tp *tp, int64_t set, const char *key, int64_t v)
{
	tp_arg_int(tp, set, key, key, v, "int");
}

static int64_t
buffer_args(struct tp *tp, const struct tp_ftrace_ev *e,
    const struct layout *l)
{
	static const char *const userbits[] = { "timecode_userbits0",
	    "timecode_userbits1", "timecode_userbits2",
	    "timecode_userbits3" };
	int64_t set = tp_arg_set_new(tp);
	char flags[256];
	unsigned i;

	int_arg(tp, set, "minor", (int32_t)e->v[l->minor]);
	if (l->index)
		int_arg(tp, set, "index", (uint32_t)e->v[l->index]);
	if (l->type)
		enum_arg(tp, set, "type", buf_types, NELEM(buf_types),
		    (uint32_t)e->v[l->type]);
	if (l->bytesused)
		int_arg(tp, set, "bytesused", (uint32_t)e->v[l->bytesused]);
	buf_flags_str((uint32_t)e->v[l->flags], flags, sizeof(flags));
	tp_arg_str(tp, set, "flags", "flags", flags, strlen(flags), NULL);
	enum_arg(tp, set, "field", buf_fields, NELEM(buf_fields),
	    (uint32_t)e->v[l->field]);
	int_arg(tp, set, "timestamp", e->v[l->timestamp]);
	enum_arg(tp, set, "timecode_type", tc_types, NELEM(tc_types),
	    (uint32_t)e->v[l->tc + TC_TYPE]);
	tc_flags_str((uint32_t)e->v[l->tc + TC_FLAGS], flags, sizeof(flags));
	tp_arg_str(tp, set, "timecode_flags", "timecode_flags", flags,
	    strlen(flags), NULL);
	int_arg(tp, set, "timecode_frames", (uint32_t)e->v[l->tc + TC_FRAMES]);
	int_arg(tp, set, "timecode_seconds",
	    (uint32_t)e->v[l->tc + TC_SECONDS]);
	int_arg(tp, set, "timecode_minutes",
	    (uint32_t)e->v[l->tc + TC_MINUTES]);
	int_arg(tp, set, "timecode_hours", (uint32_t)e->v[l->tc + TC_HOURS]);
	for (i = 0; i < 4; i++)
		int_arg(tp, set, userbits[i],
		    (uint32_t)e->v[l->tc + TC_USERBITS0 + i]);
	int_arg(tp, set, "sequence", (uint32_t)e->v[l->sequence]);
	return set;
}

/* What identifies a queued buffer until it is dequeued. */
static uint64_t
buffer_key(const struct tp_ftrace_ev *e)
{
	uint32_t k[4];

	k[0] = (uint32_t)e->v[v4l2_layout.minor];
	k[1] = (uint32_t)e->v[v4l2_layout.sequence];
	k[2] = (uint32_t)e->v[v4l2_layout.type];
	k[3] = (uint32_t)e->v[v4l2_layout.index];
	return tp_hash_bytes(0x76346c32, k, sizeof(k));
}

int
tp_ftrace_v4l2_event(struct tp *tp, int64_t ts, uint32_t cpu, int64_t pid,
    uint32_t evid, const struct tp_ftrace_ev *e)
{
	const struct layout *l = &v4l2_layout;
	struct tp_fv4l2 *v;
	const char *what;
	char name[NAME_LEN];
	uint64_t key, *out;
	int64_t track, id;

	(void)cpu;
	switch (evid) {
	case EV_QBUF:
		what = "VIDIOC_QBUF";
		break;
	case EV_DQBUF:
		what = "VIDIOC_DQBUF";
		break;
	case EV_VB2_BUF_QUEUE:
		what = "vb2_v4l2_buf_queue";
		break;
	case EV_VB2_BUF_DONE:
		what = "vb2_v4l2_buf_done";
		break;
	case EV_VB2_QBUF:
	case EV_VB2_DQBUF:	/* upstream names both so */
		what = "vb2_v4l2_qbuf";
		break;
	default:
		return 0;
	}
	if (evid >= EV_VB2_BUF_QUEUE)
		l = &vb2_layout;
	snprintf(name, sizeof(name), "%s minor=%" PRId32 " seq=%" PRIu32
	    " type=%" PRIu32 " index=%" PRIu32, what, (int32_t)e->v[l->minor],
	    (uint32_t)e->v[l->sequence],
	    l->type ? (uint32_t)e->v[l->type] : 0,
	    l->index ? (uint32_t)e->v[l->index] : 0);
	track = tp_thread_track(tp, tp_thread_get(tp, pid));
	id = tp_slice_complete(tp, track, ts, 0, CATEGORY, name,
	    buffer_args(tp, e, l), TP_NULL, TP_NULL);
	if (evid != EV_QBUF && evid != EV_DQBUF)
		return 1;
	if ((v = tp->fv4l2) == NULL) {
		if ((v = tp->fv4l2 = calloc(1, sizeof(*v))) == NULL)
			return 1;
		tp_hash_init(&v->queued);
	}
	key = buffer_key(e);
	out = tp_hash_get(&v->queued, key);
	if (evid == EV_QBUF) {
		/* The first queue of a buffer is the one its dequeue ends. */
		if (out == NULL)
			(void)tp_hash_put(&v->queued, key, (uint64_t)id);
	} else if (out != NULL) {
		if ((int64_t)*out >= 0 && id >= 0)
			tp_flow_insert(tp, (int64_t)*out, id, TP_NULL, TP_NULL);
		(void)tp_hash_del(&v->queued, key);
	}
	return 1;
}

void
tp_ftrace_v4l2_free(struct tp *tp)
{
	if (tp->fv4l2 == NULL)
		return;
	tp_hash_free(&tp->fv4l2->queued);
	free(tp->fv4l2);
	tp->fv4l2 = NULL;
}
