/*
 * System packets: process tree, process and system stats (counters on
 * tracks with upstream's names), and the service's packets (trace stats,
 * ftrace stats, system info, trace uuid) into stats and metadata.
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tp_gen_tables.h"
#include "tp_proto.h"

static char *
pb_strdup(const struct pb_field *f)
{
	return f->wire == PB_LEN ? tp_strndup((const char *)f->data, f->len) :
	    NULL;
}

static void
filter_stats_untrusted(struct tp *tp, const uint8_t *buf, size_t len)
{
	static const struct { uint32_t id; enum tp_stat st; } fields[] = {
		{ 1, ST_FILTER_INPUT_PACKETS },
		{ 2, ST_FILTER_INPUT_BYTES },
		{ 3, ST_FILTER_OUTPUT_BYTES },
		{ 4, ST_FILTER_ERRORS },
		{ 5, ST_FILTER_TIME_TAKEN_NS },
	};
	struct pb it;
	struct pb_packed pk;
	struct pb_field f;
	uint64_t v;
	int64_t idx = 0;
	size_t i;

	for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		tp->stats[fields[i].st] = 0;
	pb_init(&it, buf, len);
	while (pb_next_untrusted(&it, &f) == 1) {
		if (f.id == 20 && f.wire == PB_VARINT) {
			if (idx < 4096)
				tp_stat_set_indexed(tp,
				    ST_TRACED_BUF_BYTES_FILTERED_OUT, idx,
				    (int64_t)f.u);
			idx++;
		} else if (f.id == 20 && f.wire == PB_LEN) {
			pb_packed_init(&pk, &f);
			while (pb_packed_varint_untrusted(&pk, &v) == 1) {
				if (idx < 4096)
					tp_stat_set_indexed(tp,
					    ST_TRACED_BUF_BYTES_FILTERED_OUT,
					    idx, (int64_t)v);
				idx++;
			}
		}
		for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
			if (fields[i].id == f.id && f.wire == PB_VARINT)
				tp->stats[fields[i].st] = (int64_t)f.u;
	}
}

static void
buffer_stats_untrusted(struct tp *tp, int64_t idx, const uint8_t *buf,
    size_t len)
{
	static const struct { uint32_t id; enum tp_stat st; } fields[] = {
		{ 12, ST_TRACED_BUF_BUFFER_SIZE },
		{ 1, ST_TRACED_BUF_BYTES_WRITTEN },
		{ 13, ST_TRACED_BUF_BYTES_OVERWRITTEN },
		{ 14, ST_TRACED_BUF_BYTES_READ },
		{ 15, ST_TRACED_BUF_PADDING_BYTES_WRITTEN },
		{ 16, ST_TRACED_BUF_PADDING_BYTES_CLEARED },
		{ 2, ST_TRACED_BUF_CHUNKS_WRITTEN },
		{ 10, ST_TRACED_BUF_CHUNKS_REWRITTEN },
		{ 3, ST_TRACED_BUF_CHUNKS_OVERWRITTEN },
		{ 18, ST_TRACED_BUF_CHUNKS_DISCARDED },
		{ 17, ST_TRACED_BUF_CHUNKS_READ },
		{ 20, ST_TRACED_BUF_CHUNKS_RELOCATED },
		{ 11, ST_TRACED_BUF_CHUNKS_COMMITTED_OUT_OF_ORDER },
		{ 4, ST_TRACED_BUF_WRITE_WRAP_COUNT },
		{ 5, ST_TRACED_BUF_PATCHES_SUCCEEDED },
		{ 6, ST_TRACED_BUF_PATCHES_FAILED },
		{ 7, ST_TRACED_BUF_READAHEADS_SUCCEEDED },
		{ 8, ST_TRACED_BUF_READAHEADS_FAILED },
		{ 9, ST_TRACED_BUF_ABI_VIOLATIONS },
		{ 19, ST_TRACED_BUF_TRACE_WRITER_PACKET_LOSS },
	};
	int64_t v[sizeof(fields) / sizeof(fields[0])];
	struct pb it;
	struct pb_field f;
	size_t i;

	if (idx >= 4096)
		return;
	/* Every counter gets a row, 0 when the service left it out. */
	memset(v, 0, sizeof(v));
	pb_init(&it, buf, len);
	while (pb_next_untrusted(&it, &f) == 1)
		for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
			if (fields[i].id == f.id && f.wire == PB_VARINT)
				v[i] = (int64_t)f.u;
	for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		tp_stat_set_indexed(tp, fields[i].st, idx, v[i]);
}

static void
trace_stats_untrusted(struct tp *tp, const uint8_t *buf, size_t len)
{
	static const struct { uint32_t id; enum tp_stat st; } top[] = {
		{ 2, ST_TRACED_PRODUCERS_CONNECTED },
		{ 3, ST_TRACED_PRODUCERS_SEEN },
		{ 4, ST_TRACED_DATA_SOURCES_REGISTERED },
		{ 5, ST_TRACED_DATA_SOURCES_SEEN },
		{ 6, ST_TRACED_TRACING_SESSIONS },
		{ 7, ST_TRACED_TOTAL_BUFFERS },
		{ 8, ST_TRACED_CHUNKS_DISCARDED },
		{ 9, ST_TRACED_PATCHES_DISCARDED },
		{ 12, ST_TRACED_FLUSHES_REQUESTED },
		{ 13, ST_TRACED_FLUSHES_SUCCEEDED },
		{ 14, ST_TRACED_FLUSHES_FAILED },
	};
	struct pb it;
	struct pb_field f;
	const uint8_t *filter = NULL;
	size_t filterlen = 0;
	int64_t idx = 0;
	uint64_t outcome = 0;
	size_t i;

	/* Later TraceStats packets supersede earlier ones, as upstream,
	 * which reads a missing field as 0. */
	for (i = 0; i < sizeof(top) / sizeof(top[0]); i++)
		tp->stats[top[i].st] = 0;
	/* The filter's stats first, as upstream sets them. */
	pb_init(&it, buf, len);
	while (pb_next_untrusted(&it, &f) == 1)
		if (f.id == 11 && f.wire == PB_LEN) {
			filter = f.data;
			filterlen = f.len;
		}
	if (filter != NULL)
		filter_stats_untrusted(tp, filter, filterlen);
	pb_init(&it, buf, len);
	while (pb_next_untrusted(&it, &f) == 1) {
		if (f.id == 1 && f.wire == PB_LEN) {
			buffer_stats_untrusted(tp, idx++, f.data, f.len);
			continue;
		}
		if (f.id == 15 && f.wire == PB_VARINT)
			outcome = f.u;
		for (i = 0; i < sizeof(top) / sizeof(top[0]); i++)
			if (top[i].id == f.id && f.wire == PB_VARINT)
				tp->stats[top[i].st] = (int64_t)f.u;
	}
	tp_proto_loss_stats(tp, buf, len);
	/* Counted, not set: each stats packet tells its own outcome. */
	if (outcome == 1)
		tp_stat_inc(tp, ST_TRACED_FINAL_FLUSH_SUCCEEDED, 1);
	else if (outcome == 2)
		tp_stat_inc(tp, ST_TRACED_FINAL_FLUSH_FAILED, 1);
}

/* Seconds as a double into ns, saturating where upstream's cast would
 * overflow. */
static int64_t
secs_to_ns(double s)
{
	double ns = s * 1e9;

	if (ns >= 9223372036854775807.0)
		return INT64_MAX;
	if (!(ns > -9223372036854775808.0))
		return INT64_MIN;
	return (int64_t)ns;
}

static void
ftrace_cpu_stats_untrusted(struct tp *tp, int end, const uint8_t *buf,
    size_t len)
{
	/* Counters with a begin, an end and a delta, by field number. */
	static const struct { uint32_t id; enum tp_stat begin; } ctr[] = {
		{ 2, ST_FTRACE_CPU_ENTRIES_BEGIN },
		{ 3, ST_FTRACE_CPU_OVERRUN_BEGIN },
		{ 4, ST_FTRACE_CPU_COMMIT_OVERRUN_BEGIN },
		{ 5, ST_FTRACE_CPU_BYTES_BEGIN },
		{ 8, ST_FTRACE_CPU_DROPPED_EVENTS_BEGIN },
		{ 9, ST_FTRACE_CPU_READ_EVENTS_BEGIN },
	};
	int64_t v[sizeof(ctr) / sizeof(ctr[0])], begin;
	uint64_t cpu = 0;
	double now = 0, oldest = 0;
	struct pb it;
	struct pb_field f;
	size_t i;

	memset(v, 0, sizeof(v));
	pb_init(&it, buf, len);
	while (pb_next_untrusted(&it, &f) == 1) {
		if (f.id == 1 && f.wire == PB_VARINT)
			cpu = f.u;
		else if (f.id == 6 && f.wire == PB_FIXED64)
			oldest = pb_double(&f);
		else if (f.id == 7 && f.wire == PB_FIXED64)
			now = pb_double(&f);
		else if (f.wire == PB_VARINT)
			for (i = 0; i < sizeof(ctr) / sizeof(ctr[0]); i++)
				if (ctr[i].id == f.id)
					v[i] = (int64_t)f.u;
	}
	if (cpu >= 4096)
		return;
	/* Set in upstream's order, which the stats table's rows keep: the
	 * values, then the deltas, then the oldest event. */
	for (i = 0; i < sizeof(ctr) / sizeof(ctr[0]); i++)
		tp_stat_set_indexed(tp, ctr[i].begin + end, (int64_t)cpu,
		    v[i]);
	tp_stat_set_indexed(tp, ST_FTRACE_CPU_NOW_TS_BEGIN + end, (int64_t)cpu,
	    secs_to_ns(now));
	/* A delta only when the start of the trace told the begin. */
	for (i = 0; end && i < sizeof(ctr) / sizeof(ctr[0]); i++)
		if (tp_stat_get_indexed(tp, ctr[i].begin, (int64_t)cpu,
		    &begin))
			tp_stat_set_indexed(tp, ctr[i].begin + 2,
			    (int64_t)cpu, (int64_t)((uint64_t)v[i] -
			    (uint64_t)begin));
	tp_stat_set_indexed(tp, ST_FTRACE_CPU_OLDEST_EVENT_TS_BEGIN + end,
	    (int64_t)cpu, secs_to_ns(oldest));
}

/* One ftrace setup error: an import log whose message is what + text. */
static void
setup_error_log(struct tp *tp, const char *what, const uint8_t *text,
    size_t len)
{
	size_t wl = strlen(what);
	int64_t set;
	char *m;

	if ((m = malloc(wl + len)) == NULL)
		return;
	memcpy(m, what, wl);
	memcpy(m + wl, text, len);
	set = tp_arg_set_new(tp);
	tp_arg_str_fixed(tp, set, "message", m, wl + len);
	tp_import_log(tp, ST_FTRACE_SETUP_ERRORS, TP_NULL, TP_NULL, set);
	free(m);
}

/*
 * The setup errors of a start's FtraceStats, one log each in upstream's
 * order: events that failed, events unknown, then the (last) atrace and
 * exclusive feature errors.
 */
static void
setup_errors_log(struct tp *tp, const uint8_t *buf, size_t len)
{
	static const struct {
		uint32_t	 id;
		const char	*what;
	} kinds[] = {
		{ 7, "Ftrace event failed: " },
		{ 6, "Ftrace event unknown: " },
		{ 5, "Atrace failures: " },
		{ 13, "Ftrace exclusive feature error: " },
	};
	struct pb it;
	struct pb_field f, last;
	size_t k;

	for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		memset(&last, 0, sizeof(last));
		pb_init(&it, buf, len);
		while (pb_next_untrusted(&it, &f) == 1) {
			if (f.id != kinds[k].id || f.wire != PB_LEN)
				continue;
			if (k < 2)
				setup_error_log(tp, kinds[k].what, f.data,
				    f.len);
			else
				last = f;
		}
		if (last.id != 0 && last.len > 0)
			setup_error_log(tp, kinds[k].what, last.data,
			    last.len);
	}
}

/*
 * FtraceStats, at the start and the end of the trace: per cpu counters
 * (ends minus begins as deltas), kprobe counters, and at the start the
 * events and categories that failed to enable, counted once per sequence.
 */
static void
ftrace_stats_untrusted(struct tp *tp, int *errs_seen, const uint8_t *buf,
    size_t len)
{
	struct pb it, kt;
	struct pb_packed pk;
	struct pb_field f, kf;
	int64_t kp[2] = { 0, 0 }, errs = 0, atrace = 0, excl = 0, begin;
	uint64_t u;
	int phase = 0, end, i;

	pb_init(&it, buf, len);
	while (pb_next_untrusted(&it, &f) == 1)
		if (f.id == 1 && f.wire == PB_VARINT)
			phase = (int)f.u;
	if (phase != 1 && phase != 2)	/* START_OF_TRACE, END_OF_TRACE */
		return;
	end = phase == 2;
	pb_init(&it, buf, len);
	while (pb_next_untrusted(&it, &f) == 1) {
		switch (f.id) {
		case 2:
			if (f.wire == PB_LEN)
				ftrace_cpu_stats_untrusted(tp, end, f.data,
				    f.len);
			break;
		case 5:		/* atrace_errors: the last one counts */
			if (f.wire == PB_LEN)
				atrace = f.len > 0;
			break;
		case 13:	/* exclusive_feature_error */
			if (f.wire == PB_LEN)
				excl = f.len > 0;
			break;
		case 6:		/* unknown_ftrace_events */
		case 7:		/* failed_ftrace_events */
			if (f.wire == PB_LEN)
				errs++;
			break;
		case 9:		/* ftrace_parse_errors, 12: zero data length */
			if (f.wire == PB_VARINT) {
				if (f.u == 12)
					tp_stat_inc(tp,
					    ST_FTRACE_ABI_ERRORS_SKIPPED_ZERO_DATA_LENGTH,
					    1);
				break;
			}
			if (f.wire != PB_LEN)
				break;
			pb_packed_init(&pk, &f);
			while (pb_packed_varint_untrusted(&pk, &u) == 1)
				if (u == 12)
					tp_stat_inc(tp,
					    ST_FTRACE_ABI_ERRORS_SKIPPED_ZERO_DATA_LENGTH,
					    1);
			break;
		case 10:	/* kprobe_stats: hits, misses */
			if (f.wire != PB_LEN)
				break;
			pb_init(&kt, f.data, f.len);
			while (pb_next_untrusted(&kt, &kf) == 1)
				if ((kf.id == 1 || kf.id == 2) &&
				    kf.wire == PB_VARINT)
					kp[kf.id - 1] = (int64_t)kf.u;
			break;
		}
	}
	for (i = 0; i < 2; i++) {
		enum tp_stat st = i == 0 ? ST_FTRACE_KPROBE_HITS_BEGIN :
		    ST_FTRACE_KPROBE_MISSES_BEGIN;

		tp->stats[st + end] = kp[i];
		/* Upstream reads a begin of 0 as none. */
		if (end && (begin = tp->stats[st]) != 0)
			tp->stats[st + 2] = (int64_t)((uint64_t)kp[i] -
			    (uint64_t)begin);
	}
	errs += atrace + excl;
	if (!end && errs > 0 && !*errs_seen) {
		setup_errors_log(tp, buf, len);
		*errs_seen = 1;
	}
}

/* "6.1.0-13-amd64" -> 6001, as major * 1000 + minor; 0 unless both parse
 * whole (upstream reads "6.1-rc1" as unknown too). */
static int
kernel_version_parse(const char *s)
{
	char *end;
	unsigned long major, minor;

	if (!isdigit((unsigned char)*s))
		return 0;
	major = strtoul(s, &end, 10);
	if (*end != '.' || major > 1000 || !isdigit((unsigned char)end[1]))
		return 0;
	minor = strtoul(end + 1, &end, 10);
	if ((*end != '.' && *end != '\0') || minor > 999)
		return 0;
	return (int)(major * 1000 + minor);
}

/* The SDK level of an Android release ("12", "8.1"), or 0. */
static int
android_release_sdk(const char *v, size_t n)
{
	static const struct { const char *rel; int sdk; } map[] = {
		{ "12", 31 }, { "11", 30 }, { "10", 29 }, { "9", 28 },
		{ "8.1", 27 }, { "8.0", 26 }, { "7.1", 25 }, { "7.0", 24 },
		{ "6.0", 23 }, { "5.1", 22 }, { "5.1.1", 22 }, { "5.0", 21 },
		{ "5.0.1", 21 }, { "5.0.2", 21 },
	};
	size_t i;

	/* Preview letters of S and T builds. */
	if (n > 0 && (v[0] == 'S' || v[0] == 'T'))
		return 31;
	for (i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (strlen(map[i].rel) == n && memcmp(map[i].rel, v, n) == 0)
			return map[i].sdk;
	return 0;
}

/*
 * An Android build fingerprint,
 * BRAND/PRODUCT/DEVICE:RELEASE/ID/INCREMENTAL:TYPE/TAGS: its incremental
 * build as metadata, and its release's SDK level in *sdk (0: unknown).
 */
static void
android_fingerprint(struct tp *tp, const char *fp, int *sdk)
{
	const char *rel, *rel_end, *inc, *inc_end;
	char *s;

	*sdk = 0;
	if ((rel = strchr(fp, ':')) == NULL ||
	    (rel_end = strchr(++rel, '/')) == NULL ||
	    (inc = strchr(rel_end + 1, '/')) == NULL ||
	    (inc_end = strchr(++inc, ':')) == NULL)
		return;
	*sdk = android_release_sdk(rel, (size_t)(rel_end - rel));
	if ((s = tp_strndup(inc, (size_t)(inc_end - inc))) != NULL) {
		tp_metadata_str(tp, "android_incremental_build", s);
		free(s);
	}
}

/* SystemInfo, its fields in the order upstream records them. */
static void
system_info_untrusted(struct tp *tp, const uint8_t *buf, size_t len)
{
	static const char *const uts[] = { NULL, "system_name",
	    "system_version", "system_release", "system_machine" };
	static const uint32_t order[] = { 1, 7, 2, 5, 4, 16, 8 };
	struct pb_field f, uf;
	size_t i;
	uint32_t u;
	char *s;
	int linux_ = 0, fp_sdk = 0;

	for (i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		if (!pb_last_untrusted(buf, len, order[i], &f)) {
			/* No SDK level given: the fingerprint's. */
			if (order[i] == 5 && fp_sdk != 0)
				tp_metadata_int(tp, "android_sdk_version",
				    fp_sdk);
			continue;
		}
		switch (order[i]) {
		case 1:
			if (f.wire != PB_LEN)
				break;
			for (u = 1; u <= 4; u++) {
				/* Each of the four, NULL when not given, as
				 * upstream. */
				if (!pb_last_untrusted(f.data, f.len, u, &uf)) {
					tp_metadata_str(tp, uts[u], NULL);
					continue;
				}
				if ((s = pb_strdup(&uf)) == NULL)
					continue;
				tp_metadata_str(tp, uts[u], s);
				if (u == 1)
					linux_ = strcmp(s, "Linux") == 0;
				/* The kernel whose ftrace is read. */
				else if (u == 3 && tp->machine == 0)
					tp->kernel_version = linux_ ?
					    kernel_version_parse(s) : 0;
				free(s);
			}
			break;
		case 2:
			if ((s = pb_strdup(&f)) != NULL) {
				tp_metadata_str(tp, "android_build_fingerprint",
				    s);
				android_fingerprint(tp, s, &fp_sdk);
				free(s);
			}
			break;
		case 4:
			if ((s = pb_strdup(&f)) != NULL) {
				tp_metadata_str(tp, "tracing_service_version",
				    s);
				free(s);
			}
			break;
		case 5:
			tp_metadata_int(tp, "android_sdk_version",
			    (int64_t)f.u);
			break;
		case 7:
			tp_metadata_int(tp, "timezone_off_mins",
			    (int32_t)f.u);
			break;
		case 16:
			tp_metadata_int(tp, "system_ram_bytes", (int64_t)f.u);
			/* Rounded to the nearest GB, as upstream. */
			tp_metadata_int(tp, "system_ram_gb",
			    (int64_t)(f.u / 1000000000 +
			    (f.u % 1000000000 >= 500000000)));
			break;
		case 8:
			if (f.wire == PB_VARINT)
				tp_machine_set_num_cpus(tp, (int64_t)
				    (uint32_t)f.u);
			break;
		}
	}
}

static void
trace_uuid_untrusted(struct tp *tp, const uint8_t *buf, size_t len)
{
	struct pb it;
	struct pb_field f;
	uint64_t msb = 0, lsb = 0;

	pb_init(&it, buf, len);
	while (pb_next_untrusted(&it, &f) == 1) {
		if (f.id == 1)
			msb = f.u;
		else if (f.id == 2)
			lsb = f.u;
	}
	/* All zero: none given, as upstream reads it. */
	if (msb == 0 && lsb == 0)
		return;
	tp->uuid_in_trace = 1;
	tp_metadata_uuid(tp, msb, lsb, 0);
}

/* errs_seen: the sequence's ftrace setup errors were counted already. */
void
tp_proto_service_packet(struct tp *tp, uint32_t field, int *errs_seen,
    const uint8_t *buf, size_t len)
{
	switch (field) {
	case 35:
		trace_stats_untrusted(tp, buf, len);
		break;
	case 34:
		ftrace_stats_untrusted(tp, errs_seen, buf, len);
		break;
	case 45:
		system_info_untrusted(tp, buf, len);
		break;
	case 89:
		trace_uuid_untrusted(tp, buf, len);
		break;
	case 67:
		tp_cpu_info_untrusted(tp, buf, len);
		break;

	}
}

/*
 * The process name from its argv[0], as upstream names it: a kworker (a
 * child of kthreadd, pid 2) without the "-queue" or "+queue" of the work
 * it last ran (transient, misleading as a name), and a lone argv[0]
 * holding spaces (a process that rewrote its cmdline) cut at the first.
 */
static size_t
process_name_len(int64_t ppid, const char *a, size_t n, size_t nargs)
{
	size_t i;

	if (ppid == 2 && n > 8 && memcmp(a, "kworker/", 8) == 0) {
		for (i = 8; i < n; i++)
			if (a[i] == '-' || a[i] == '+')
				return i;
	}
	if (nargs == 1)
		for (i = 0; i < n; i++)
			if (a[i] == ' ')
				return i;
	return n;
}

/* One ProcessTree.Process: its upid (after its parent's), name, cmdline,
 * uid and main thread. Upstream skips a process with no cmdline. */
static void
process_tree_process(struct tp *tp, int64_t ts, const uint8_t *buf,
    size_t len)
{
	struct pb pt;
	struct pb_field pf;
	/* No ppid reads as 0 (the idle task's process), as upstream. */
	int64_t pid = -1, ppid = 0, uid = TP_NULL, upid, utid, parent;
	int64_t start = TP_NULL, kthread = TP_NULL;
	const uint8_t *argv0 = NULL;
	size_t argv0len = 0, cl = 0, nargs = 0;
	int is_comm = 0;
	/* The args joined are never longer than the message. */
	char sbuf[4096], *cmdline = len < sizeof(sbuf) ? sbuf : malloc(len + 1);
	size_t cap = len < sizeof(sbuf) ? sizeof(sbuf) : len + 1;
	const char *cmd;

	if (cmdline == NULL)
		return;
	pb_init(&pt, buf, len);
	while (pb_next_untrusted(&pt, &pf) == 1) {
		if (pf.id == 1)
			pid = (int32_t)pf.u;
		else if (pf.id == 2)
			ppid = (int32_t)pf.u;
		else if (pf.id == 5)
			uid = (uint32_t)pf.u;	/* upstream keeps it unsigned */
		else if (pf.id == 9)
			is_comm = pf.u != 0;
		else if (pf.id == 7 && pf.wire == PB_VARINT &&
		    pf.u <= INT64_MAX)
			start = (int64_t)pf.u;	/* boot time */
		else if (pf.id == 8 && pf.wire == PB_VARINT)
			kthread = pf.u != 0;
		else if (pf.id == 3 && pf.wire == PB_LEN) {
			nargs++;
			if (argv0 == NULL) {
				argv0 = pf.data;
				argv0len = pf.len;
			}
			tp_cmdline_append(cmdline, cap, &cl, pf.data,
			    pf.len);
		}
	}
	if (pid < 0 || pt.err) {
		tp_stat_inc(tp, ST_PROCESS_TRACKER_ERRORS, 1);
		goto out;
	}
	if (nargs == 0)
		goto out;
	/* The parent first, so upids come in upstream's order. */
	parent = ppid >= 0 ? tp_process_get(tp, ppid) : TP_NULL;
	upid = tp_process_get(tp, pid);
	tp_process_set_parent(tp, upid, parent, ts);
	if (uid != TP_NULL)
		tp->procs[upid].uid = uid;
	/* Boot time into trace time, as any clock's (the trace's clock may
	 * be another, the machine a remote one). */
	if (start != TP_NULL && tp_clock_to_trace(tp, 0, TP_CLOCK_BOOTTIME,
	    start, &start) == 0 && tp->procs[upid].start_ts == TP_NULL)
		tp->procs[upid].start_ts = start;
	/* Linux 6.4+ says whether it is a kernel thread. */
	if (kthread != TP_NULL && tp->procs[upid].arg_set_id == TP_NULL) {
		tp->procs[upid].arg_set_id = tp_arg_set_new(tp);
		tp_arg_int(tp, tp->procs[upid].arg_set_id, "is_kthread",
		    "is_kthread", kthread, "bool");
	}
	cmd = cmdline;
	if (argv0 != NULL) {
		size_t n = process_name_len(ppid, (const char *)argv0,
		    argv0len, nargs);

		/* A kworker's name without its last queue is its whole
		 * cmdline too, as upstream. */
		if (n < argv0len && ppid == 2) {
			cmd = (const char *)argv0;
			cl = n;
		}
		tp_process_set_name(tp, upid, (const char *)argv0, n,
		    TP_PNAME_SYSTEM);
	}
	if (cl > 0)
		tp_process_set_cmdline(tp, upid, cmd, cl);
	/* When the cmdline is the main thread's comm (kernel threads), it
	 * names that thread. */
	if (is_comm && cl > 0) {
		utid = tp_thread_get(tp, pid);
		tp_thread_set_name(tp, utid, cmd, cl, TP_NAME_TREE);
	}
out:
	if (cmdline != sbuf)
		free(cmdline);
}

/* One ProcessTree.Thread: its process and name. */
static void
process_tree_thread(struct tp *tp, const uint8_t *buf, size_t len)
{
	struct pb pt;
	struct pb_field pf;
	int64_t tid = -1, tgid = -1, utid, upid, parent;
	const uint8_t *name = NULL;
	size_t namelen = 0;

	pb_init(&pt, buf, len);
	while (pb_next_untrusted(&pt, &pf) == 1) {
		if (pf.id == 1)
			tid = (int32_t)pf.u;
		else if (pf.id == 3)
			tgid = (int32_t)pf.u;
		else if (pf.id == 2 && pf.wire == PB_LEN) {
			name = pf.data;
			namelen = pf.len;
		}
	}
	if (tid < 0 || pt.err) {
		tp_stat_inc(tp, ST_PROCESS_TRACKER_ERRORS, 1);
		return;
	}
	utid = tgid >= 0 ? tp_thread_in_process(tp, tid, tgid) :
	    tp_thread_get(tp, tid);
	if (name == NULL)
		return;
	/* A kworker's main thread drops its last queue, as its process. */
	upid = tp->threads[utid].upid;
	if (tid == tgid && upid != TP_NULL &&
	    (parent = tp->procs[upid].parent_upid) != TP_NULL &&
	    tp->procs[parent].pid == 2)
		namelen = process_name_len(2, (const char *)name, namelen, 2);
	tp_thread_set_name(tp, utid, (const char *)name, namelen,
	    TP_NAME_TREE);
}

/* All processes, then all threads, as upstream reads a tree. */
void
tp_proto_process_tree(struct tp *tp, int64_t ts, const uint8_t *buf,
    size_t len)
{
	struct pb it;
	struct pb_field f;
	int pass;

	(void)ts;
	for (pass = 1; pass <= 2; pass++) {
		pb_init(&it, buf, len);
		while (pb_next_untrusted(&it, &f) == 1) {
			if (f.wire != PB_LEN || f.id != (uint32_t)pass)
				continue;
			if (pass == 1)
				process_tree_process(tp, ts, f.data, f.len);
			else
				process_tree_thread(tp, f.data, f.len);
		}
	}
}

#define MEMK	"process_memory_key"
#define RTK	"proc_stat_runtime_key"

/*
 * What upstream's process_memory tracks say of themselves: a fixed text
 * per memory key, kept as the track's "description" source arg and its
 * description. The texts are output upstream prints, so they are kept
 * word for word.
 */
#define MEM_DOCS \
	"https://perfetto.dev/docs/data-sources/memory-counters#per-process-"
#define MEM_POLLED	MEM_DOCS "polled-counters"
#define MEM_FTRACE	MEM_DOCS "memory-events-ftrace"

static const struct {
	const char	*key;
	const char	*text;
} mem_descs[] = {
	{ "virt",
	    "Virtual memory size (VmSize): Total virtual address "
	    "space reserved by the process. Useful for understanding "
	    "address space layout and detecting excessive memory "
	    "reservations. WARNING: Polled periodically, so may miss "
	    "short-lived changes. See "
	    MEM_POLLED
	    " for information." },
	{ "rss",
	    "Resident set size (VmRSS): Total physical memory "
	    "currently used by the process (rss.anon + rss.file + "
	    "rss.shmem). Key metric for understanding actual memory "
	    "pressure and OOM risk. WARNING: Polled periodically, so "
	    "use rss.anon + rss.file + rss.shmem from ftrace for "
	    "complementary high-resolution tracking. See "
	    MEM_POLLED
	    " for information." },
	{ "rss.anon",
	    "Anonymous resident memory (RssAnon): Physical memory "
	    "for heap and stack allocations not backed by files. "
	    "High values indicate memory allocations from "
	    "malloc/new. Most important for app memory usage and "
	    "detecting memory leaks. See "
	    MEM_FTRACE
	    " for information." },
	{ "rss.file",
	    "File-backed resident memory (RssFile): Physical memory "
	    "used for memory-mapped files (e.g., code, libraries, "
	    "mmap'd files). Useful for understanding shared library "
	    "overhead. Can be reclaimed under memory pressure. See "
	    MEM_FTRACE
	    " for information." },
	{ "rss.shmem",
	    "Shared memory resident pages (RssShmem): Physical "
	    "memory in shared memory regions (shmem/tmpfs). Used for "
	    "IPC and shared data. Important for identifying "
	    "inter-process memory usage. See "
	    MEM_FTRACE
	    " for information." },
	{ "swap",
	    "Swapped memory (VmSwap): Memory moved to swap storage. "
	    "Does not necessarily indicate severe pressure - kswapd "
	    "may swap out inactive memory proactively. However, if "
	    "actively used and swap/anon ratio is high, this "
	    "suggests inefficient memory usage or leaks. Accessing "
	    "swapped memory causes major page faults and performance "
	    "degradation. Available from both ftrace and polling for "
	    "complementary views. See "
	    MEM_FTRACE
	    " or "
	    MEM_POLLED
	    " for information." },
	{ "locked",
	    "Locked memory pages (VmLocked): Memory pinned in RAM "
	    "that cannot be swapped out or reclaimed (via mlock). "
	    "High values prevent memory reclamation during pressure. "
	    "Typically set via profiler-guided optimization to "
	    "minimize faults on critical paths. WARNING: Polled "
	    "periodically, so may miss short-lived changes. See "
	    MEM_POLLED
	    " for information." },
	{ "rss.watermark",
	    "Peak RSS (VmHWM): Historical maximum RSS reached by the "
	    "process. Useful for capacity planning and detecting "
	    "memory usage spikes that may have triggered OOM or "
	    "performance issues. WARNING: Polled periodically, so "
	    "the time of the spike may not be accurate. Prefer "
	    "relying on rss.anon + rss.file + rss.shmem which have "
	    "pushed ftrace events so are more time accurate. See "
	    MEM_POLLED
	    " for information." },
	{ "dmabuf_rss",
	    "DMA buffer RSS: Physical memory used for DMA buffers "
	    "(successor to Android ION). Used for surfaces, hardware "
	    "bitmaps, media/camera buffers, and other GPU/hardware "
	    "accelerator memory. Critical for graphics/camera apps. "
	    "High values indicate GPU memory pressure or resource "
	    "leaks in graphics/media pipelines. See dmabuf ftrace "
	    "events or /proc/[pid]/fdinfo polling for information." },
};

/* A new process_memory track (of that dimension) gets its key's
 * description, as a source arg and as its description. */
static void
mem_track_describe(struct tp *tp, int64_t track, const char *dim,
    const char *key)
{
	size_t i;

	if (track < 0 || dim == NULL || strcmp(dim, MEMK) != 0 ||
	    tp->tracks[track].source_arg_set_id != TP_NULL)
		return;
	for (i = 0; i < sizeof(mem_descs) / sizeof(mem_descs[0]); i++)
		if (strcmp(mem_descs[i].key, key) == 0) {
			tp_arg_str(tp, tp_track_source_set(tp, track),
			    "description", "description", mem_descs[i].text,
			    strlen(mem_descs[i].text), NULL);
			/* The track's description column says it too. */
			tp_setstr(&tp->tracks[track].desc, mem_descs[i].text,
			    strlen(mem_descs[i].text));
			return;
		}
}

void
tp_proto_process_stats(struct tp *tp, int64_t ts, const uint8_t *buf,
    size_t len)
{
	/* ProcessStats.Process fields, kB values reported in bytes; what
	 * each is of (the memory kind, the cpu mode) a dimension of its
	 * track, as upstream's. */
	static const struct {
		uint32_t	 id;
		const char	*name;
		int		 kb;
		const char	*kind;
		const char	*dim;
		const char	*key;
	} m[] = {
		{ 2, "mem.virt", 1, "process_memory", MEMK, "virt" },
		{ 3, "mem.rss", 1, "process_memory", MEMK, "rss" },
		{ 4, "mem.rss.anon", 1, "process_memory", MEMK, "rss.anon" },
		{ 5, "mem.rss.file", 1, "process_memory", MEMK, "rss.file" },
		{ 6, "mem.rss.shmem", 1, "process_memory", MEMK, "rss.shmem" },
		{ 7, "mem.swap", 1, "process_memory", MEMK, "swap" },
		{ 8, "mem.locked", 1, "process_memory", MEMK, "locked" },
		{ 9, "mem.rss.watermark", 1, "process_memory", MEMK,
		    "rss.watermark" },
		{ 10, "oom_score_adj", 0, "oom_score_adj", NULL, NULL },
		{ 16, "mem.smaps.rss", 1, "smaps", "smaps_key", "rss" },
		{ 17, "mem.smaps.pss", 1, "smaps", "smaps_key", "pss" },
		{ 21, "runtime.user_ns", 0, "proc_stat_runtime", RTK, "user_ns" },
		{ 22, "runtime.kernel_ns", 0, "proc_stat_runtime", RTK,
		    "kernel_ns" },
		{ 24, "mem.dmabuf_rss", 1, "process_memory", MEMK,
		    "dmabuf_rss" },
	};
	struct pb it, pt;
	struct pb_field f, pf;
	size_t i;

	pb_init(&it, buf, len);
	while (pb_next_untrusted(&it, &f) == 1) {
		int64_t pid = -1, upid;

		if (f.id != 1 || f.wire != PB_LEN)
			continue;
		pb_init(&pt, f.data, f.len);
		while (pb_next_untrusted(&pt, &pf) == 1)
			if (pf.id == 1)
				pid = (int32_t)pf.u;
		if (pid < 0)
			continue;
		upid = tp_process_get(tp, pid);
		pb_init(&pt, f.data, f.len);
		while (pb_next_untrusted(&pt, &pf) == 1) {
			for (i = 0; i < sizeof(m) / sizeof(m[0]); i++) {
				double v;
				int64_t track;

				if (m[i].id != pf.id || pf.wire != PB_VARINT)
					continue;
				v = m[i].kb ? (double)pf.u * 1024 :
				    (double)(int64_t)pf.u;
				track = tp_track_intern_dims(tp,
				    TT_PROCESS_COUNTER, m[i].name, upid,
				    (const char *const[]){ m[i].dim,
				    m[i].key }, m[i].key != NULL);
				tp_track_kind(tp, track, m[i].kind);
				mem_track_describe(tp, track, m[i].dim,
				    m[i].key);
				if (track >= 0)
					tp_counter_insert(tp, ts, track, v,
					    TP_NULL);
			}
		}
	}
}

/* The previous /proc/diskstats sample of each device. */
struct disk_prev {
	int64_t		 v[9];		/* by DiskStat field number */
};

struct tp_sysstats {
	struct tp_hash	 devices;	/* name hash -> index in prev */
	struct disk_prev *prev;
	size_t		 n, cap;
};

void
tp_sysstats_free(struct tp *tp)
{
	if (tp->sysstats == NULL)
		return;
	tp_hash_free(&tp->sysstats->devices);
	free(tp->sysstats->prev);
	free(tp->sysstats);
	tp->sysstats = NULL;
}

static void
global_counter(struct tp *tp, int64_t ts, const char *kind, const char *name,
    const char *unit, const char *dim, const char *dim_value, double v);

static void
disk_counter(struct tp *tp, int64_t ts, const char *dev, const char *what,
    const char *unit, double v)
{
	char name[256];
	int64_t track;

	snprintf(name, sizeof(name), "diskstat.[%s].%s", dev, what);
	track = tp_track_intern_dims(tp, TT_COUNTER, name, TP_NULL,
	    (const char *const[]){ "device_name", dev, "counter_name", what },
	    2);
	if (track < 0)
		return;
	tp_track_kind(tp, track, "diskstat");
	tp_track_unit(tp, track, unit);
	tp_counter_insert(tp, ts, track, v, TP_NULL);
}

/*
 * DiskStat: counters of what happened since the device's previous sample,
 * as upstream names them (amounts in MB of 512-byte sectors, throughput
 * over the device's busy time).
 */
static void
disk_stat_untrusted(struct tp *tp, int64_t ts, const uint8_t *buf,
    size_t len)
{
	struct tp_sysstats *ss = tp->sysstats;
	struct disk_prev cur, *prev;
	struct pb it;
	struct pb_field f;
	char dev[128] = "";
	uint64_t h, *idx;
	int first = 0;

	if (ss == NULL) {
		if ((ss = tp->sysstats = calloc(1, sizeof(*ss))) == NULL)
			return;
		tp_hash_init(&ss->devices);
	}
	memset(&cur, 0, sizeof(cur));
	pb_init(&it, buf, len);
	while (pb_next_untrusted(&it, &f) == 1) {
		if (f.id == 1 && f.wire == PB_LEN)
			snprintf(dev, sizeof(dev), "%.*s", (int)f.len, f.data);
		else if (f.id >= 2 && f.id <= 9 && f.wire == PB_VARINT)
			cur.v[f.id - 1] = (int64_t)f.u;
	}
	if (dev[0] == '\0' || it.err)
		return;
	h = tp_hash_bytes(0, dev, strlen(dev));
	if ((idx = tp_hash_get(&ss->devices, h)) == NULL) {
		if (ss->n == ss->cap) {
			size_t ncap = ss->cap ? ss->cap * 2 : 8;
			void *p = realloc(ss->prev, ncap * sizeof(*ss->prev));

			if (p == NULL)
				return;
			ss->prev = p;
			ss->cap = ncap;
		}
		(void)tp_hash_put(&ss->devices, h, ss->n);
		prev = &ss->prev[ss->n++];
		first = 1;
	} else {
		prev = &ss->prev[*idx];
	}
	if (!first) {
		/* Fields: 2 read_sectors 3 read_time_ms 4 write_sectors
		 * 5 write_time_ms 6 discard_sectors 7 discard_time_ms
		 * 8 flush_count 9 flush_time_ms. */
		static const struct { int sec, ms; const char *name; } io[] = {
			{ 2, 3, "read" }, { 4, 5, "write" },
			{ 6, 7, "discard" },
		};
		size_t i;
		char what[64];

		for (i = 0; i < 3; i++) {
			double mb = (double)(cur.v[io[i].sec - 1] -
			    prev->v[io[i].sec - 1]) / 2048.0;
			int64_t ms = cur.v[io[i].ms - 1] - prev->v[io[i].ms - 1];

			snprintf(what, sizeof(what), "%s_amount", io[i].name);
			disk_counter(tp, ts, dev, what, "MB", mb);
			snprintf(what, sizeof(what), "%s_throughput",
			    io[i].name);
			disk_counter(tp, ts, dev, what, "MB/s", ms == 0 ? 0 :
			    mb * 1000.0 / (double)ms);
		}
		disk_counter(tp, ts, dev, "flush_amount", "count",
		    (double)(cur.v[7] - prev->v[7]));
		disk_counter(tp, ts, dev, "flush_time", "ms",
		    (double)(cur.v[8] - prev->v[8]));
	}
	*prev = cur;
}

static void
psi_untrusted(struct tp *tp, int64_t ts, const uint8_t *buf, size_t len)
{
	static const char *const keys[] = { "resource.unspecified",
	    "cpu.some", "cpu.full", "io.some", "io.full", "mem.some",
	    "mem.full" };
	char name[32];
	struct pb it;
	struct pb_field f;
	uint64_t res = 0, total = 0;

	pb_init(&it, buf, len);
	while (pb_next_untrusted(&it, &f) == 1) {
		if (f.id == 1)
			res = f.u;
		else if (f.id == 2)
			total = f.u;
	}
	if (res > 6) {
		tp_stat_inc(tp, ST_PSI_UNKNOWN_RESOURCE, 1);
		return;
	}
	snprintf(name, sizeof(name), "psi.%s", keys[res]);
	global_counter(tp, ts, "psi", name, NULL, "psi_resource", keys[res],
	    (double)total);
}

/* ThermalZone: a counter per zone type, in degrees C. */
static void
thermal_untrusted(struct tp *tp, int64_t ts, const uint8_t *buf, size_t len)
{
	struct pb_field f;
	char type[128] = "";
	uint64_t temp = 0;

	if (pb_last_untrusted(buf, len, 3, &f) && f.wire == PB_LEN)
		snprintf(type, sizeof(type), "%.*s", (int)(f.len < 127 ? f.len :
		    127), (const char *)f.data);
	if (pb_last_untrusted(buf, len, 2, &f) && f.wire == PB_VARINT)
		temp = f.u;
	global_counter(tp, ts, "thermal_temperature_sys", type, "C",
	    "thermal_zone", type, (double)temp);
}

/* CpuIdleState: time in each idle state of a cpu, in us. */
static void
cpuidle_untrusted(struct tp *tp, int64_t ts, const uint8_t *buf, size_t len)
{
	struct pb it, et;
	struct pb_field f, ef;
	char state[64], name[96];
	uint64_t cpu = 0, us;
	int64_t track;

	if (pb_last_untrusted(buf, len, 1, &f) && f.wire == PB_VARINT)
		cpu = f.u;
	if (cpu >= 4096)
		return;
	pb_init(&it, buf, len);
	while (pb_next_untrusted(&it, &f) == 1) {
		if (f.id != 2 || f.wire != PB_LEN)
			continue;
		state[0] = '\0';
		us = 0;
		pb_init(&et, f.data, f.len);
		while (pb_next_untrusted(&et, &ef) == 1) {
			if (ef.id == 1 && ef.wire == PB_LEN)
				snprintf(state, sizeof(state), "%.*s",
				    (int)(ef.len < 63 ? ef.len : 63),
				    (const char *)ef.data);
			else if (ef.id == 2 && ef.wire == PB_VARINT)
				us = ef.u;
		}
		snprintf(name, sizeof(name), "cpuidle%u.%s", (unsigned)cpu,
		    state);
		track = tp_track_intern_dims(tp, TT_CPU_COUNTER, name,
		    (int64_t)cpu, (const char *const[]){ "state", state }, 1);
		if (track < 0)
			continue;
		tp_track_kind(tp, track, "cpu_idle_state");
		tp_track_unit(tp, track, "us");
		tp_counter_insert(tp, ts, track, (double)us, TP_NULL);
	}
}

/* A machine-wide counter; kind is upstream's type for it ("meminfo"). */
static void
global_counter(struct tp *tp, int64_t ts, const char *kind, const char *name,
    const char *unit, const char *dim, const char *dim_value, double v)
{
	int64_t track = tp_track_intern_dims(tp, TT_COUNTER, name, TP_NULL,
	    (const char *const[]){ dim, dim_value }, dim != NULL);

	if (track < 0)
		return;
	tp_track_kind(tp, track, kind);
	tp_track_unit(tp, track, unit);
	tp_counter_insert(tp, ts, track, v, TP_NULL);
}

static void
key_value_untrusted(const uint8_t *buf, size_t len, uint64_t *k, uint64_t *v)
{
	struct pb it;
	struct pb_field f;

	*k = *v = 0;
	pb_init(&it, buf, len);
	while (pb_next_untrusted(&it, &f) == 1) {
		if (f.id == 1)
			*k = f.u;
		else if (f.id == 2)
			*v = f.u;
	}
}

/* CpuTimes: every counter at each sample, 0 when absent, as upstream. */
static void
cpu_times_untrusted(struct tp *tp, int64_t ts, const uint8_t *buf,
    size_t len)
{
	static const char *const keys[] = { "user_ns", "user_nice_ns",
	    "system_mode_ns", "idle_ns", "io_wait_ns", "irq_ns", "softirq_ns",
	    "steal_ns" };
	struct pb it;
	struct pb_field f;
	uint64_t v[8] = { 0 };
	int64_t cpu = -1, track;
	char name[64];
	size_t i;

	pb_init(&it, buf, len);
	while (pb_next_untrusted(&it, &f) == 1) {
		if (f.wire != PB_VARINT)
			continue;
		if (f.id == 1)
			cpu = (int64_t)f.u;
		else if (f.id >= 2 && f.id <= 9)
			v[f.id - 2] = f.u;
	}
	if (cpu < 0 || cpu >= 4096) {
		tp_stat_inc(tp, ST_INVALID_CPU_TIMES, 1);
		return;
	}
	for (i = 0; i < 8; i++) {
		snprintf(name, sizeof(name), "cpu.times.%s", keys[i]);
		track = tp_track_intern_dims(tp, TT_CPU_COUNTER, name, cpu,
		    (const char *const[]){ "cpustat_key", keys[i] }, 1);
		tp_track_kind(tp, track, "cpustat");
		if (track >= 0)
			tp_counter_insert(tp, ts, track, (double)v[i], TP_NULL);
	}
}

/* One IRQ's or softirq's count: its own counter, the irq a dimension. */
static void
irq_count_untrusted(struct tp *tp, int64_t ts, const char *kind,
    const uint8_t *buf, size_t len)
{
	struct pb it;
	struct pb_field f;
	int64_t irq = 0, track;
	uint64_t count = 0;
	struct tp_dim dim;
	char name[64];

	pb_init(&it, buf, len);
	while (pb_next_untrusted(&it, &f) == 1) {
		if (f.wire != PB_VARINT)
			continue;
		if (f.id == 1)
			irq = (int64_t)(int32_t)f.u;
		else if (f.id == 2)
			count = f.u;
	}
	/* Upstream prints the irq unsigned. */
	snprintf(name, sizeof(name), "%s (id: %" PRIu32 ")", kind,
	    (uint32_t)irq);
	dim = TP_DIM_INT("irq", (int64_t)(uint32_t)irq);
	if ((track = tp_track_intern_dimv(tp, TT_COUNTER, NULL, name, TP_NULL,
	    &dim, 1, NULL)) < 0)
		return;
	tp_track_kind(tp, track, kind);
	tp_counter_insert(tp, ts, track, (double)count, TP_NULL);
}

/* One field of a SysStats; *cpu numbers cpufreq_khz's entries. */
static void
sys_stats_field(struct tp *tp, int64_t ts, const struct pb_field *fp,
    int64_t *cpu)
{
	struct pb_field f = *fp;
	uint64_t k, v;

	{
		switch (f.id) {
		case 1:
			if (f.wire != PB_LEN)
				break;
			key_value_untrusted(f.data, f.len, &k, &v);
			if (k >= tp_meminfo_nnames || tp_meminfo_names[k] ==
			    NULL) {
				tp_stat_inc(tp, ST_MEMINFO_UNKNOWN_KEYS, 1);
				break;
			}
			global_counter(tp, ts, "meminfo", tp_meminfo_names[k],
			    "bytes", "meminfo_key", tp_meminfo_names[k],
			    (double)v * 1024);
			break;
		case 2:
			if (f.wire != PB_LEN)
				break;
			key_value_untrusted(f.data, f.len, &k, &v);
			if (k >= tp_vmstat_nnames || tp_vmstat_names[k] ==
			    NULL) {
				tp_stat_inc(tp, ST_VMSTAT_UNKNOWN_KEYS, 1);
				break;
			}
			global_counter(tp, ts, "vmstat", tp_vmstat_names[k],
			    NULL, "vmstat_key", tp_vmstat_names[k], (double)v);
			break;
		case 3:
			if (f.wire == PB_LEN)
				cpu_times_untrusted(tp, ts, f.data, f.len);
			break;
		case 4:
			global_counter(tp, ts, "num_forks", "num_forks", NULL,
			    NULL, NULL, (double)f.u);
			break;
		case 13:
			if (f.wire == PB_LEN)
				disk_stat_untrusted(tp, ts, f.data, f.len);
			break;
		case 14:
			if (f.wire == PB_LEN)
				psi_untrusted(tp, ts, f.data, f.len);
			break;
		case 15:
			if (f.wire == PB_LEN)
				thermal_untrusted(tp, ts, f.data, f.len);
			break;
		case 16:
			if (f.wire == PB_LEN)
				cpuidle_untrusted(tp, ts, f.data, f.len);
			break;
		case 6:
		case 8:
			if (f.wire == PB_LEN)
				irq_count_untrusted(tp, ts, f.id == 6 ?
				    "num_irq" : "num_softirq", f.data, f.len);
			break;
		case 5:
			global_counter(tp, ts, "num_irq_total", "num_irq_total",
			    NULL, NULL, NULL, (double)f.u);
			break;
		case 7:
			global_counter(tp, ts, "num_softirq_total",
			    "num_softirq_total", NULL, NULL, NULL, (double)f.u);
			break;
		case 17:	/* gpufreq_mhz: GPU 0's, unscaled as upstream */
			if (f.wire == PB_VARINT) {
				tp_gpu_frequency(tp, ts, 0, (double)f.u);
			} else if (f.wire == PB_LEN) {
				struct pb_packed pk;

				pb_packed_init(&pk, &f);
				while (pb_packed_varint_untrusted(&pk, &v))
					tp_gpu_frequency(tp, ts, 0, (double)v);
			}
			break;
		case 11:
			if (f.wire == PB_VARINT) {
				int64_t track = tp_track_intern(tp,
				    TT_CPU_COUNTER, "cpufreq", (*cpu)++);

				tp_track_kind(tp, track, "cpu_frequency");
				if (track >= 0)
					tp_counter_insert(tp, ts, track,
					    (double)f.u, TP_NULL);
			} else if (f.wire == PB_LEN) {
				struct pb_packed pk;

				pb_packed_init(&pk, &f);
				while (pb_packed_varint_untrusted(&pk, &v)) {
					int64_t track = tp_track_intern(tp,
					    TT_CPU_COUNTER, "cpufreq", (*cpu)++);

					tp_track_kind(tp, track,
					    "cpu_frequency");
					if (track >= 0)
						tp_counter_insert(tp, ts, track,
						    (double)v, TP_NULL);
				}
			}
			break;
		}
	}
}

/*
 * A SysStats' counters in upstream's order, one kind of field after the
 * other (not the order of the fields): the counters' ids and the tracks'
 * follow it.
 */
void
tp_proto_sys_stats(struct tp *tp, int64_t ts, const uint8_t *buf, size_t len)
{
	static const uint32_t order[] = { 1, 10, 11, 2, 3, 6, 8, 4, 5, 7, 12,
	    13, 14, 15, 16, 17, 18 };
	struct pb it;
	struct pb_field f;
	int64_t cpu = 0;
	size_t i;

	for (i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		pb_init(&it, buf, len);
		while (pb_next_untrusted(&it, &f) == 1)
			if (f.id == order[i])
				sys_stats_field(tp, ts, &f, &cpu);
	}
}
