/*
 * ETW (Windows) events: the file I/O ones, as upstream shows them. An
 * operation is a slice on a track of its thread (upstream's "etw_fileio"
 * tracks, shared as a track compressor shares them, as operations of a
 * thread may overlap) from its start event to the FileIoOpEnd of the same
 * I/O request packet (irp), with both events' fields as args. A start
 * whose irp is taken again, or never ends, ends where it began ("Missing
 * Event": "End"); an end with no start is an EndOperation instant
 * ("Missing Event": "Start"); events without an irp are instants.
 *
 * Bundles are read as packets come, each event sorted by its timestamp;
 * every event names its thread, whatever its kind.
 */
#include <stdlib.h>
#include <string.h>

#include "pbdec.h"
#include "tp_int.h"

#define ETW_MAX_CPUS		1024
#define TRACK_KIND		"etw_fileio"

/* EtwTraceEvent's file I/O events. */
enum {
	EV_CREATE = 7, EV_DIR_ENUM = 8, EV_INFO = 9, EV_READ_WRITE = 10,
	EV_SIMPLE_OP = 11, EV_OP_END = 12, EV_PATH_OP = 14
};

/* Names by opcode (64 to 86): the FileIo provider's event types. Those
 * it leaves unnamed stay unnamed, as upstream's. */
#define OPCODE_MIN	64
static const char *const op_names[] = {
	"CreateFile", "Cleanup", "Close", "ReadFile", "WriteFile",
	"SetInformation", "DeleteFile", "RenameFile", "DirectoryEnumeration",
	"Flush", "QueryFileInformation", "FilesystemControlEvent",
	"EndOperation", "DirectoryNotification", NULL, "DeletePath",
	"RenamePath", NULL, NULL, "FltRead", " FltWrite", "FltSetInfo",
	"FltQueryInfo",
};

/* FILE_INFORMATION_CLASS names, from 1. */
static const char *const info_classes[] = {
	"FileDirectoryInformation", "FileFullDirectoryInformation",
	"FileBothDirectoryInformation", "FileBasicInformation",
	"FileStandardInformation", "FileInternalInformation",
	"FileEaInformation", "FileAccessInformation", "FileNameInformation",
	"FileRenameInformation", "FileLinkInformation",
	"FileNamesInformation", "FileDispositionInformation",
	"FilePositionInformation", "FileFullEaInformation",
	"FileModeInformation", "FileAlignmentInformation",
	"FileAllInformation", "FileAllocationInformation",
	"FileEndOfFileInformation", "FileAlternateNameInformation",
	"FileStreamInformation", "FilePipeInformation",
	"FilePipeLocalInformation", "FilePipeRemoteInformation",
	"FileMailslotQueryInformation", "FileMailslotSetInformation",
	"FileCompressionInformation", "FileObjectIdInformation",
	"FileCompletionInformation", "FileMoveClusterInformation",
	"FileQuotaInformation", "FileReparsePointInformation",
	"FileNetworkOpenInformation", "FileAttributeTagInformation",
	"FileTrackingInformation", "FileIdBothDirectoryInformation",
	"FileIdFullDirectoryInformation", "FileValidDataLengthInformation",
	"FileShortNameInformation", "FileIoCompletionNotificationInformation",
	"FileIoStatusBlockRangeInformation", "FileIoPriorityHintInformation",
	"FileSfioReserveInformation", "FileSfioVolumeInformation",
	"FileHardLinkInformation", "FileProcessIdsUsingFileInformation",
	"FileNormalizedNameInformation", "FileNetworkPhysicalNameInformation",
	"FileIdGlobalTxDirectoryInformation", "FileIsRemoteDeviceInformation",
	"FileUnusedInformation", "FileNumaNodeInformation",
	"FileStandardLinkInformation", "FileRemoteProtocolInformation",
	"FileRenameInformationBypassAccessCheck",
	"FileLinkInformationBypassAccessCheck", "FileVolumeNameInformation",
	"FileIdInformation", "FileIdExtdDirectoryInformation",
	"FileReplaceCompletionInformation", "FileHardLinkFullIdInformation",
	"FileIdExtdBothDirectoryInformation", "FileDispositionInformationEx",
	"FileRenameInformationEx", "FileRenameInformationExBypassAccessCheck",
	"FileDesiredStorageClassInformation", "FileStatInformation",
	"FileMemoryPartitionInformation", "FileStatLxInformation",
	"FileCaseSensitiveInformation", "FileLinkInformationEx",
	"FileLinkInformationExBypassAccessCheck",
	"FileStorageReserveIdInformation",
	"FileCaseSensitiveInformationForceAccessCheck",
	"FileKnownFolderInformation", "FileStatBasicInformation",
	"FileId64ExtdDirectoryInformation",
	"FileId64ExtdBothDirectoryInformation",
	"FileIdAllExtdDirectoryInformation",
	"FileIdAllExtdBothDirectoryInformation",
};

#define NELEM(a)	(sizeof(a) / sizeof((a)[0]))

struct started {
	const char	*name;
	int64_t		 ts;
	int64_t		 utid;
};

struct tp_etw {
	struct tp_hash	 by_irp;	/* irp -> index in s */
	struct {
		uint64_t	 irp;
		struct started	 st;
		int		 live;
	}		*s;
	size_t		 n, cap;
};

static struct tp_etw *
etw_get(struct tp *tp)
{
	if (tp->etw == NULL)
		tp->etw = calloc(1, sizeof(*tp->etw));
	return tp->etw;
}

void
tp_etw_bundle_untrusted(struct tp *tp, const uint8_t *buf, size_t len)
{
	struct pb it, ev;
	struct pb_field f, ef;
	uint64_t bundle_cpu = 0;
	int has_bundle_cpu = 0;

	pb_init(&it, buf, len);
	while (pb_next_untrusted(&it, &f) == 1)
		if (f.id == 1 && f.wire == PB_VARINT) {
			bundle_cpu = f.u;
			has_bundle_cpu = 1;
		}
	pb_init(&it, buf, len);
	while (pb_next_untrusted(&it, &f) == 1) {
		uint64_t cpu = bundle_cpu, ts = 0;
		int has_cpu = has_bundle_cpu, has_ts = 0;

		if (f.id != 2 || f.wire != PB_LEN)
			continue;
		pb_init(&ev, f.data, f.len);
		while (pb_next_untrusted(&ev, &ef) == 1) {
			if (ef.id == 1 && ef.wire == PB_VARINT) {
				ts = ef.u;
				has_ts = 1;
			} else if (ef.id == 4 && ef.wire == PB_VARINT) {
				cpu = ef.u;
				has_cpu = 1;
			}
		}
		/* As upstream: no cpu or time, or a cpu past any machine's,
		 * and the event is skipped. */
		if (ev.err || !has_cpu || !has_ts || cpu >= ETW_MAX_CPUS ||
		    ts > INT64_MAX) {
			tp_stat_inc(tp, ST_ETW_TOKENIZER_ERRORS, 1);
			continue;
		}
		(void)tp_sorter_push(tp, (int64_t)ts, SK_ETW, (uint32_t)cpu,
		    NULL, f.data, f.len);
	}
	if (it.err)
		tp_stat_inc(tp, ST_PROTO_DECODE_ERRORS, 1);
}

/* The thread's pool of file I/O tracks (unnamed, as upstream's). */
static struct tp_pool_key
fileio_pool(int64_t utid)
{
	struct tp_pool_key k = { .kind = TRACK_KIND, .upid = TP_NULL,
	    .has_utid = 1, .utid = utid };

	return k;
}

/* The track of the pool for cookie; step as tp_track_pool_take's. */
static int64_t
fileio_track(struct tp *tp, int64_t utid, uint64_t cookie, int step)
{
	struct tp_pool_key k = fileio_pool(utid);

	return tp_track_pool_take(tp, &k, cookie, step);
}

static void
arg_ptr(struct tp *tp, int64_t set, const char *key, uint64_t v)
{
	tp_arg_int(tp, set, key, key, (int64_t)v, "pointer");
}

static void
arg_uint(struct tp *tp, int64_t set, const char *key, uint64_t v)
{
	tp_arg_int(tp, set, key, key, (int64_t)v, "uint");
}

static void
arg_str(struct tp *tp, int64_t set, const char *key, const struct pb_field *f)
{
	tp_arg_str(tp, set, key, key, (const char *)f->data, f->len, NULL);
}

/* An info class by name when known, else its number. */
static void
arg_info_class(struct tp *tp, int64_t set, uint64_t v)
{
	const char *name = v >= 1 && v <= NELEM(info_classes) ?
	    info_classes[v - 1] : NULL;

	if (name != NULL)
		tp_arg_str(tp, set, "Info Class", "Info Class", name,
		    strlen(name), NULL);
	else
		arg_uint(tp, set, "Info Class", v);
}

/* A zero-length slice: an event with no irp, or an end with no start. */
static void
fileio_instant(struct tp *tp, int64_t utid, int64_t ts, const char *name,
    int64_t set)
{
	struct tp_pool_key k = fileio_pool(utid);
	int64_t track = tp_track_pool_scoped(tp, &k, ts, 0);

	(void)tp_slice_complete(tp, track, ts, 0, NULL, name, set, TP_NULL,
	    TP_NULL);
}

/* Ends the operation of irp at ts, adding its args; 0 if none was open. */
static int
fileio_end(struct tp *tp, uint64_t irp, int64_t ts, int64_t utid,
    int64_t *set_out)
{
	struct tp_etw *e = tp->etw;
	uint64_t *idx;
	int64_t track;

	if (e == NULL || (idx = tp_hash_get(&e->by_irp, irp)) == NULL ||
	    !e->s[*idx].live)
		return 0;
	e->s[*idx].live = 0;
	(void)tp_hash_del(&e->by_irp, irp);
	track = fileio_track(tp, utid, irp, -1);
	*set_out = TP_NULL;
	(void)tp_slice_end(tp, track, ts, NULL, TP_NULL, set_out);
	return 1;
}

/* The open operation of irp ended unseen: where it began. */
static void
fileio_end_missing(struct tp *tp, uint64_t irp, const struct started *st)
{
	int64_t set;

	if (fileio_end(tp, irp, st->ts, st->utid, &set) && set != TP_NULL)
		tp_arg_str(tp, set, "Missing Event", "Missing Event", "End",
		    3, NULL);
}

static void
fileio_start(struct tp *tp, int has_irp, uint64_t irp, const char *name,
    int64_t ts, int64_t utid, int64_t set)
{
	struct tp_etw *e = etw_get(tp);
	uint64_t *idx;
	struct started prev;

	if (!has_irp || e == NULL) {
		fileio_instant(tp, utid, ts, name, set);
		return;
	}
	/* The irp is used again: its last operation ended unseen. */
	if ((idx = tp_hash_get(&e->by_irp, irp)) != NULL &&
	    e->s[*idx].live) {
		prev = e->s[*idx].st;
		fileio_end_missing(tp, irp, &prev);
	}
	if (tp_grow((void **)&e->s, &e->cap, e->n, sizeof(*e->s)) == -1)
		return;
	if (tp_hash_put(&e->by_irp, irp, e->n) == -1)
		return;
	e->s[e->n].irp = irp;
	e->s[e->n].st = (struct started){ name, ts, utid };
	e->s[e->n].live = 1;
	e->n++;
	(void)tp_slice_begin(tp, fileio_track(tp, utid, irp, 1), ts, NULL,
	    name, set, TP_NULL);
}

/* The value of field id of a message (last one wins), 0 if absent. */
struct fields {
	struct pb_field	 f[16];
};

static void
fields_read(struct fields *fs, const uint8_t *buf, size_t len)
{
	struct pb it;
	struct pb_field f;

	memset(fs, 0, sizeof(*fs));
	pb_init(&it, buf, len);
	while (pb_next_untrusted(&it, &f) == 1)
		if (f.id > 0 && f.id < NELEM(fs->f) && (f.wire == PB_VARINT ||
		    f.wire == PB_LEN))
			fs->f[f.id] = f;
}

#define HAS(fs, i)	((fs)->f[i].id != 0 && (fs)->f[i].wire == PB_VARINT)
#define HAS_STR(fs, i)	((fs)->f[i].id != 0 && (fs)->f[i].wire == PB_LEN)
#define VAL(fs, i)	((fs)->f[i].u)

/* The name of an event: its opcode's when in range, else the kind's. */
static const char *
event_name(const struct fields *fs, int op_field, const char *fallback)
{
	uint64_t op;

	if (!HAS(fs, op_field))
		return fallback;
	op = (uint32_t)VAL(fs, op_field);
	if (op < OPCODE_MIN || op - OPCODE_MIN >= NELEM(op_names))
		return fallback;
	return op_names[op - OPCODE_MIN];
}

/*
 * The fields of each kind, in the order upstream adds them as args:
 * a field number, how it shows (p pointer, u unsigned, s string, c info
 * class, x extra info named by the class), its key. Capitals are uint32
 * fields: a longer varint is cut to 32 bits, as upstream reads them.
 */
struct arg_spec {
	uint8_t		 field;
	char		 how;
	const char	*key;
};

static const struct arg_spec create_args[] = {
	{ 1, 'p', "I/O Request Packet" }, { 2, 'p', "File Object" },
	{ 3, 'U', "Thread ID" }, { 4, 'P', "Create Options" },
	{ 5, 'P', "File Attributes" }, { 6, 'P', "Share Access" },
	{ 7, 's', "Open Path" }, { 0, 0, NULL }
};
static const struct arg_spec dir_enum_args[] = {
	{ 1, 'p', "I/O Request Packet" }, { 2, 'p', "File Object" },
	{ 3, 'p', "File Key" }, { 4, 'U', "Thread ID" },
	{ 6, 'c', "Info Class" }, { 7, 'U', "File Index" },
	{ 8, 's', "Enumeration Path" }, { 0, 0, NULL }
};
static const struct arg_spec info_args[] = {
	{ 1, 'p', "I/O Request Packet" }, { 2, 'p', "File Object" },
	{ 3, 'p', "File Key" }, { 4, 'x', "Extra Info" },
	{ 5, 'U', "Thread ID" }, { 6, 'c', "Info Class" }, { 0, 0, NULL }
};
static const struct arg_spec read_write_args[] = {
	{ 2, 'p', "I/O Request Packet" }, { 1, 'u', "Offset" },
	{ 3, 'p', "File Object" }, { 4, 'p', "File Key" },
	{ 5, 'U', "Thread ID" }, { 6, 'U', "I/O Size" },
	{ 7, 'P', "I/O Flags" }, { 0, 0, NULL }
};
static const struct arg_spec simple_op_args[] = {
	{ 1, 'p', "I/O Request Packet" }, { 2, 'p', "File Object" },
	{ 3, 'p', "File Key" }, { 4, 'U', "Thread ID" }, { 0, 0, NULL }
};
static const struct arg_spec op_end_args[] = {
	{ 2, 'u', "Extra Info" }, { 3, 'P', "NT Status" }, { 0, 0, NULL }
};
static const struct arg_spec path_op_args[] = {
	{ 1, 'p', "I/O Request Packet" }, { 2, 'p', "File Object" },
	{ 3, 'p', "File Key" }, { 4, 'u', "Extra Info" },
	{ 5, 'U', "Thread ID" }, { 6, 'c', "Info Class" },
	{ 7, 's', "File Name" }, { 0, 0, NULL }
};

/* Info's extra info says what it is when the class is known. */
static const char *
extra_info_key(const struct fields *fs, int class_field)
{
	if (!HAS(fs, class_field))
		return "Extra Info";
	switch ((uint32_t)VAL(fs, class_field)) {
	case 13:	/* FileDispositionInformation */
		return "Disposition";
	case 19:	/* FileAllocationInformation */
	case 20:	/* FileEndOfFileInformation */
		return "File Size";
	default:
		return "Extra Info";
	}
}

static void
args_add(struct tp *tp, int64_t set, const struct fields *fs,
    const struct arg_spec *a)
{
	for (; a->key != NULL; a++) {
		const struct pb_field *f = &fs->f[a->field];

		if (a->how == 's') {
			if (HAS_STR(fs, a->field))
				arg_str(tp, set, a->key, f);
			continue;
		}
		if (!HAS(fs, a->field))
			continue;
		switch (a->how) {
		case 'p':
			arg_ptr(tp, set, a->key, f->u);
			break;
		case 'P':
			arg_ptr(tp, set, a->key, (uint32_t)f->u);
			break;
		case 'c':
			arg_info_class(tp, set, (uint32_t)f->u);
			break;
		case 'x':
			arg_uint(tp, set, extra_info_key(fs, 6), f->u);
			break;
		case 'U':
			arg_uint(tp, set, a->key, (uint32_t)f->u);
			break;
		default:
			arg_uint(tp, set, a->key, f->u);
			break;
		}
	}
}

/* The start event of each kind: its args, name and irp field. */
static const struct {
	uint32_t		 field;
	const struct arg_spec	*args;
	const char		*fallback;	/* without an opcode */
	int			 op_field;	/* 0: none */
	int			 irp_field;
} kinds[] = {
	{ EV_CREATE, create_args, "CreateFile", 0, 1 },
	{ EV_DIR_ENUM, dir_enum_args, "DirEnum", 9, 1 },
	{ EV_INFO, info_args, "Info", 7, 1 },
	{ EV_READ_WRITE, read_write_args, "ReadOrWrite", 8, 2 },
	{ EV_SIMPLE_OP, simple_op_args, "SimpleOp", 5, 1 },
	{ EV_PATH_OP, path_op_args, "PathOperation", 8, 1 },
};

static void
fileio_event(struct tp *tp, int64_t ts, int64_t utid, uint32_t kind,
    const uint8_t *buf, size_t len)
{
	struct fields fs;
	int64_t set, end_set;
	size_t i;

	fields_read(&fs, buf, len);
	if (kind == EV_OP_END) {
		if (!HAS(&fs, 1)) {
			set = tp_arg_set_new(tp);
			args_add(tp, set, &fs, op_end_args);
			fileio_instant(tp, utid, ts, "EndOperation", set);
		} else if (fileio_end(tp, VAL(&fs, 1), ts, utid, &end_set)) {
			if (end_set != TP_NULL)
				args_add(tp, end_set, &fs, op_end_args);
		} else {
			set = tp_arg_set_new(tp);
			args_add(tp, set, &fs, op_end_args);
			tp_arg_str(tp, set, "Missing Event", "Missing Event",
			    "Start", 5, NULL);
			fileio_instant(tp, utid, ts, "EndOperation", set);
		}
		return;
	}
	for (i = 0; i < NELEM(kinds); i++) {
		if (kinds[i].field != kind)
			continue;
		set = tp_arg_set_new(tp);
		args_add(tp, set, &fs, kinds[i].args);
		fileio_start(tp, HAS(&fs, kinds[i].irp_field),
		    VAL(&fs, kinds[i].irp_field), kinds[i].op_field ?
		    event_name(&fs, kinds[i].op_field, kinds[i].fallback) :
		    kinds[i].fallback, ts, utid, set);
		return;
	}
}

void
tp_etw_parse_sorted(struct tp *tp, int64_t ts, const uint8_t *buf, size_t len)
{
	struct pb it;
	struct pb_field f, ev = { .id = 0 };
	uint64_t tid = 0;
	int64_t utid;

	pb_init(&it, buf, len);
	while (pb_next_untrusted(&it, &f) == 1) {
		if (f.id == 5 && f.wire == PB_VARINT)
			tid = (uint32_t)f.u;
		else if (f.id >= EV_CREATE && f.id <= EV_PATH_OP &&
		    f.wire == PB_LEN)
			ev = f;
	}
	/* Every event names its thread, as upstream's parser does. */
	utid = tp_thread_get(tp, (int64_t)tid);
	if (ev.id != 0 && ev.id != 13)
		fileio_event(tp, ts, utid, ev.id, ev.data, ev.len);
}

/* Operations still open at the end ended unseen: in the order they
 * began. */
void
tp_etw_end(struct tp *tp)
{
	struct tp_etw *e = tp->etw;
	struct started st;
	size_t i;

	/* Newest first, as upstream's map of them (a std::unordered_map,
	 * each new key at the front while keys fall in buckets of their
	 * own) gives them. */
	for (i = e != NULL ? e->n : 0; i-- > 0;) {
		if (!e->s[i].live)
			continue;
		st = e->s[i].st;
		fileio_end_missing(tp, e->s[i].irp, &st);
	}
}

void
tp_etw_free(struct tp *tp)
{
	struct tp_etw *e = tp->etw;

	if (e == NULL)
		return;
	tp_hash_free(&e->by_irp);
	free(e->s);
	free(e);
	tp->etw = NULL;
}
