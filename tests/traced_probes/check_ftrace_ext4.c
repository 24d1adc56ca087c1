/*
 * check_ftrace_ext4: the ext4 events of the running kernel against our
 * typed protos. Needs root and tracefs (exits 77 with the reason
 * otherwise); the recording test also needs a writable ext4 directory.
 *
 * every_event_planned: each events/ext4/ event of this kernel is planned
 * from its real format file and one record of it, with a distinct value
 * in every field, goes through the translator. An event that our
 * FtraceEvent (upstream's numbering) has a message for must come out as
 * that typed message, with each kernel field that the message names
 * carrying the value written; every other event must come out as a
 * GenericFtraceEvent with all its fields named. The list of the generic
 * ones is printed. On 6.18 they are the events upstream has no message
 * for: tracepoints the kernel renamed (ext4_read_folio, was
 * ext4_readpage; ext4_release_folio, ext4_invalidate_folio,
 * ext4_journalled_invalidate_folio, ext4_journal_start_sb and _inode,
 * ext4_es_find_extent_range_enter and _exit, ext4_da_write_folios_start
 * and _end) and ones added later (fast commit ext4_fc_*, fsmap and
 * getfsmap, ext4_error, ext4_shutdown, ext4_update_sb, ...).
 *
 * write_fsync_is_typed: a child writes a file on ext4, fdatasyncs,
 * appends and fsyncs while linux.ftrace records ext4 events through the
 * ftrace source (real trace_pipe_raw); its writes and syncs must arrive
 * as typed ext4 events carrying the file's device, inode and the child's
 * pid, and a renamed tracepoint of the same path as a named generic
 * event.
 */
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "protos/perfetto/trace/ftrace/ftrace_event.pb-c.h"

#include "controller.h"
#include "format.h"
#include "ftrace_util.h"
#include "source.h"
#include "tfs.h"
#include "translate.h"

static char tracefs[256];
static char state_dir[] = "/tmp/faro-ftrace-ext4.XXXXXX";
static char ext4_dir[1024];	/* writable directory on ext4, or "" */
static char ext4_why[256];	/* why there is none */

/* The FtraceEvent field (our protos, upstream's numbers) of an event. */
static const ProtobufCFieldDescriptor *
event_field(const char *name)
{
	return protobuf_c_message_descriptor_get_field_by_name(
	    &perfetto__protos__ftrace_event__descriptor, name);
}

/* ---- every ext4 event of this kernel, planned and translated ---- */

/* The value written into field i of a record: distinct per field, as wide
 * as the field, negative where the field is signed. */
static int64_t
field_value(const struct ftrace_field *f, unsigned int i)
{
	int64_t v;

	switch (f->size) {
	case 1:
		v = 0x10 + i;
		break;
	case 2:
		v = 0x1100 + i;
		break;
	case 4:
		v = 0x11220000 + i;
		break;
	default:
		v = 0x1122334455660000ll + i;
		break;
	}
	return f->is_signed ? -v : v;
}

static void
put_int(uint8_t *rec, const struct ftrace_field *f, int64_t v)
{
	uint8_t b1 = (uint8_t)v;
	uint16_t b2 = (uint16_t)v;
	uint32_t b4 = (uint32_t)v;

	switch (f->size) {
	case 1:
		memcpy(rec + f->offset, &b1, 1);
		break;
	case 2:
		memcpy(rec + f->offset, &b2, 2);
		break;
	case 4:
		memcpy(rec + f->offset, &b4, 4);
		break;
	case 8:
		memcpy(rec + f->offset, &v, 8);
		break;
	}
}

/* One record of fmt, every field filled; returns its length. */
static size_t
build_record(const struct ftrace_format *fmt, uint8_t *rec, size_t cap,
    int32_t pid)
{
	size_t len = 0;
	uint16_t type = (uint16_t)fmt->id;

	for (unsigned int i = 0; i < fmt->nfields; i++)
		if ((size_t)fmt->fields[i].offset + fmt->fields[i].size > len)
			len = fmt->fields[i].offset + fmt->fields[i].size;
	len = (len + 3) & ~(size_t)3;
	ck_assert_uint_le(len, cap);
	memset(rec, 'a', len);
	for (unsigned int i = 0; i < fmt->nfields; i++) {
		const struct ftrace_field *f = &fmt->fields[i];

		if (strcmp(f->name, "common_type") == 0)
			memcpy(rec + f->offset, &type, 2);
		else if (f == fmt->common_pid)
			memcpy(rec + f->offset, &pid, 4);
		else if (f->is_common)
			memset(rec + f->offset, 0, f->size);
		else if (f->kind == FTRACE_FIELD_INT)
			put_int(rec, f, field_value(f, i));
		else if (f->kind == FTRACE_FIELD_CHARS)
			rec[f->offset + f->size - 1] = '\0';
	}
	return len;
}

/* A ring-buffer page holding one data record (short or long form). */
static size_t
build_page(const struct ftrace_page_layout *pl, uint8_t *page, uint64_t ts,
    const uint8_t *rec, size_t reclen)
{
	size_t off = pl->data_offset;
	uint32_t w, delta = 1;
	uint64_t commit;

	memset(page, 0, pl->page_size);
	memcpy(page + pl->ts_offset, &ts, 8);
	if (reclen <= 28 * 4) {
		w = delta << 5 | (uint32_t)(reclen / 4);
		memcpy(page + off, &w, 4);
		off += 4;
	} else {
		w = delta << 5;
		memcpy(page + off, &w, 4);
		w = (uint32_t)reclen + 4;
		memcpy(page + off + 4, &w, 4);
		off += 8;
	}
	ck_assert_uint_le(off + reclen, pl->page_size);
	memcpy(page + off, rec, reclen);
	off += reclen;
	commit = off - pl->data_offset;
	if (pl->commit_size == 8)
		memcpy(page + pl->commit_offset, &commit, 8);
	else {
		w = (uint32_t)commit;
		memcpy(page + pl->commit_offset, &w, 4);
	}
	return pl->page_size;
}

/* The value of a scalar field of a decoded message, widened. */
static int
msg_value(const ProtobufCMessage *m, const ProtobufCFieldDescriptor *fd,
    int64_t *v)
{
	const char *base = (const char *)m;

	if (fd->label == PROTOBUF_C_LABEL_OPTIONAL &&
	    !*(const protobuf_c_boolean *)(const void *)(base +
	    fd->quantifier_offset))
		return -1;
	switch (fd->type) {
	case PROTOBUF_C_TYPE_INT32:
		*v = *(const int32_t *)(const void *)(base + fd->offset);
		return 0;
	case PROTOBUF_C_TYPE_UINT32:
		*v = *(const uint32_t *)(const void *)(base + fd->offset);
		return 0;
	case PROTOBUF_C_TYPE_INT64:
	case PROTOBUF_C_TYPE_UINT64:
		memcpy(v, base + fd->offset, 8);
		return 0;
	default:
		return -1;
	}
}

struct planned {
	struct ftrace_format	*fmts;
	size_t			 n;
	int32_t			 pid0;
	size_t			 seen, typed, generic;
	char			 generic_names[4096];
	char			 unmatched[1024];
};

static const struct ftrace_format *
planned_find(const struct planned *p, int32_t pid)
{
	size_t i = (size_t)(pid - p->pid0);

	return pid >= p->pid0 && i < p->n ? &p->fmts[i] : NULL;
}

static void
check_typed(struct planned *p, const struct ftrace_format *fmt,
    const Perfetto__Protos__FtraceEvent *ev,
    const ProtobufCFieldDescriptor *efd)
{
	const ProtobufCMessage *m = *(ProtobufCMessage *const *)(const void *)
	    ((const char *)ev + efd->offset);
	const ProtobufCFieldDescriptor *fd;
	int64_t got;
	size_t matched = 0, len;

	ck_assert_msg(ev->event_case == efd->id, "%s: arrived as field %d, "
	    "not its message's %u", fmt->name, ev->event_case, efd->id);
	ck_assert_ptr_nonnull(m);
	for (unsigned int i = fmt->ncommon; i < fmt->nfields; i++) {
		const struct ftrace_field *f = &fmt->fields[i];

		fd = protobuf_c_message_descriptor_get_field_by_name(
		    m->descriptor, f->name);
		if (fd == NULL) {
			/* The kernel has a field upstream's message lacks. */
			len = strlen(p->unmatched);
			snprintf(p->unmatched + len, sizeof(p->unmatched) - len,
			    " %s.%s", fmt->name, f->name);
			continue;
		}
		ck_assert_msg(f->kind == FTRACE_FIELD_INT, "%s.%s: kind %d",
		    fmt->name, f->name, f->kind);
		ck_assert_msg(msg_value(m, fd, &got) == 0, "%s.%s: missing",
		    fmt->name, f->name);
		ck_assert_msg(got == field_value(f, i), "%s.%s: %lld, wrote "
		    "%lld", fmt->name, f->name, (long long)got,
		    (long long)field_value(f, i));
		matched++;
	}
	/* Every message of a kernel event names some of its fields. */
	ck_assert_msg(matched > 0, "%s: no field matched", fmt->name);
	p->typed++;
}

static void
check_generic(struct planned *p, const struct ftrace_format *fmt,
    const Perfetto__Protos__FtraceEvent *ev)
{
	const Perfetto__Protos__GenericFtraceEvent__Field *gf;
	size_t len;

	ck_assert_msg(ev->event_case ==
	    PERFETTO__PROTOS__FTRACE_EVENT__EVENT_GENERIC, "%s: field %d",
	    fmt->name, ev->event_case);
	ck_assert_str_eq(ev->generic->event_name, fmt->name);
	for (unsigned int i = fmt->ncommon; i < fmt->nfields; i++) {
		const struct ftrace_field *f = &fmt->fields[i];

		gf = test_generic_field(ev->generic, f->name);
		ck_assert_msg(gf != NULL, "%s: generic field %s missing",
		    fmt->name, f->name);
		if (f->kind != FTRACE_FIELD_INT)
			continue;
		if (f->is_signed)
			ck_assert_int_eq(gf->int_value, field_value(f, i));
		else
			ck_assert_uint_eq(gf->uint_value,
			    (uint64_t)field_value(f, i) &
			    (f->size == 8 ? ~0ull : (1ull << f->size * 8) - 1));
	}
	len = strlen(p->generic_names);
	snprintf(p->generic_names + len, sizeof(p->generic_names) - len,
	    " %s", fmt->name);
	p->generic++;
}

static void
planned_visit(const Perfetto__Protos__FtraceEventBundle *b,
    const Perfetto__Protos__FtraceEvent *ev, void *arg)
{
	struct planned *p = arg;
	const struct ftrace_format *fmt = planned_find(p, (int32_t)ev->pid);
	const ProtobufCFieldDescriptor *efd;

	ck_assert_msg(fmt != NULL, "event of pid %u", ev->pid);
	p->seen++;
	if ((efd = event_field(fmt->name)) != NULL)
		check_typed(p, fmt, ev, efd);
	else
		check_generic(p, fmt, ev);
}

START_TEST(every_event_planned)
{
	struct ftrace_xlate_opts o = { 0 };
	struct ftrace_translator *xl = ftrace_translator_new(&o);
	struct ftrace_page_layout layout;
	struct ftrace_cpu_counters ctr = { 0 };
	struct ftrace_bundle b;
	struct test_sink ts;
	struct planned p = { .pid0 = 70000 };
	const char *cause = NULL;
	char **names, rel[TFS_PATH_MAX], *text;
	uint8_t rec[2048], *page;
	size_t n, len, reclen;

	ck_assert_ptr_nonnull(xl);
	ck_assert_int_eq(tfs_read(tracefs, "events/header_page", &text, &len),
	    0);
	ck_assert_msg(ftrace_page_layout_parse_untrusted(text, len, &layout,
	    &cause) == 0, "header_page: %s", cause);
	free(text);
	ck_assert_int_eq(tfs_list(tracefs, "events/ext4", &names, &n), 0);
	ck_assert_uint_gt(n, 0);
	ck_assert_ptr_nonnull(p.fmts = calloc(n, sizeof(*p.fmts)));
	ck_assert_ptr_nonnull(page = malloc(layout.page_size));
	ck_assert_int_eq(ftrace_bundle_init(&b, xl, &layout, 0,
	    test_sink_init(&ts), &ctr), 0);
	for (size_t i = 0; i < n; i++) {
		struct ftrace_format *fmt = &p.fmts[p.n];

		snprintf(rel, sizeof(rel), "events/ext4/%s/format", names[i]);
		ck_assert_msg(tfs_read(tracefs, rel, &text, &len) == 0, "%s",
		    rel);
		ck_assert_msg(ftrace_format_parse_untrusted(text, len, "ext4",
		    fmt, &cause) == 0, "%s: %s", rel, cause);
		free(text);
		ck_assert_msg(ftrace_translator_add(xl, fmt, &cause) == 0,
		    "%s: %s", names[i], cause);
		/* The pid says which event a translated record was. */
		reclen = build_record(fmt, rec, sizeof(rec),
		    p.pid0 + (int32_t)p.n);
		build_page(&layout, page, 1000 + p.n, rec, reclen);
		ck_assert_int_eq(ftrace_bundle_add_page_untrusted(&b, page,
		    layout.page_size), 0);
		p.n++;
	}
	ftrace_bundle_finish(&b);
	ck_assert_uint_eq(ts.bad, 0);
	ck_assert_uint_eq(ctr.dropped, 0);
	test_sink_events(&ts, planned_visit, &p);
	ck_assert_uint_eq(p.seen, p.n);
	printf("every_event_planned: %zu ext4 events on this kernel: %zu "
	    "typed, %zu generic (no upstream message):%s\n", p.n, p.typed,
	    p.generic, p.generic_names);
	if (p.unmatched[0] != '\0')
		printf("every_event_planned: kernel fields with no field in "
		    "upstream's message (not recorded):%s\n", p.unmatched);
	ck_assert_uint_eq(p.typed + p.generic, p.n);
	ck_assert_uint_gt(p.typed, 0);
	ftrace_bundle_free(&b);
	test_sink_free(&ts);
	for (size_t i = 0; i < p.n; i++)
		ftrace_format_free(&p.fmts[i]);
	free(p.fmts);
	free(page);
	tfs_list_free(names, n);
	ftrace_translator_free(xl);
}
END_TEST

/* ---- a write and fsync on ext4, recorded ---- */

#define W1	12288	/* first write, then fdatasync */
#define W2	5000	/* appended, then fsync */

struct wf_find {
	uint64_t	 dev;	/* the kernel's dev_t encoding */
	uint64_t	 ino;
	int32_t		 pid;
	uint64_t	 begin_bytes, end_bytes;	/* da_write_begin/_end */
	int		 sync_enter[2];	/* by datasync */
	int		 sync_exit, sync_exit_bad;
	int		 writepages;
	int		 map_blocks;
	int		 folios_generic;
	int		 wrong_pid;	/* a write or sync of our inode, from
					 * someone else's pid */
	int		 other;
};

static void
wf_visit(const Perfetto__Protos__FtraceEventBundle *b,
    const Perfetto__Protos__FtraceEvent *ev, void *arg)
{
	struct wf_find *w = arg;
	const Perfetto__Protos__GenericFtraceEvent__Field *gf;
	uint64_t dev, ino;
	int mine_pid = (int32_t)ev->pid == w->pid;
	int writer_ctx = 1;	/* only ever in the writer's context */

	switch (ev->event_case) {
	case PERFETTO__PROTOS__FTRACE_EVENT__EVENT_EXT4_DA_WRITE_BEGIN:
		dev = ev->ext4_da_write_begin->dev;
		ino = ev->ext4_da_write_begin->ino;
		if (dev == w->dev && ino == w->ino && mine_pid)
			w->begin_bytes += ev->ext4_da_write_begin->len;
		break;
	case PERFETTO__PROTOS__FTRACE_EVENT__EVENT_EXT4_DA_WRITE_END:
		dev = ev->ext4_da_write_end->dev;
		ino = ev->ext4_da_write_end->ino;
		if (dev == w->dev && ino == w->ino && mine_pid)
			w->end_bytes += ev->ext4_da_write_end->copied;
		break;
	case PERFETTO__PROTOS__FTRACE_EVENT__EVENT_EXT4_SYNC_FILE_ENTER:
		dev = ev->ext4_sync_file_enter->dev;
		ino = ev->ext4_sync_file_enter->ino;
		if (dev == w->dev && ino == w->ino && mine_pid &&
		    ev->ext4_sync_file_enter->has_datasync)
			w->sync_enter[ev->ext4_sync_file_enter->datasync != 0]++;
		break;
	case PERFETTO__PROTOS__FTRACE_EVENT__EVENT_EXT4_SYNC_FILE_EXIT:
		dev = ev->ext4_sync_file_exit->dev;
		ino = ev->ext4_sync_file_exit->ino;
		if (dev == w->dev && ino == w->ino && mine_pid) {
			w->sync_exit++;
			if (ev->ext4_sync_file_exit->ret != 0)
				w->sync_exit_bad++;
		}
		break;
	case PERFETTO__PROTOS__FTRACE_EVENT__EVENT_EXT4_WRITEPAGES:
		dev = ev->ext4_writepages->dev;
		ino = ev->ext4_writepages->ino;
		if (dev == w->dev && ino == w->ino && mine_pid)
			w->writepages++;
		writer_ctx = 0;	/* writeback may also run in a flusher */
		break;
	case PERFETTO__PROTOS__FTRACE_EVENT__EVENT_EXT4_EXT_MAP_BLOCKS_ENTER:
		dev = ev->ext4_ext_map_blocks_enter->dev;
		ino = ev->ext4_ext_map_blocks_enter->ino;
		if (dev == w->dev && ino == w->ino && mine_pid)
			w->map_blocks++;
		writer_ctx = 0;
		break;
	case PERFETTO__PROTOS__FTRACE_EVENT__EVENT_GENERIC:
		/* ext4_da_write_folios_start: no upstream message. */
		dev = ino = 0;
		if (strcmp(ev->generic->event_name,
		    "ext4_da_write_folios_start") == 0 &&
		    (gf = test_generic_field(ev->generic, "ino")) != NULL &&
		    gf->uint_value == w->ino && mine_pid)
			w->folios_generic++;
		break;
	default:
		dev = ino = 0;
		w->other++;
		break;
	}
	if (writer_ctx && dev == w->dev && ino == w->ino && ino != 0 &&
	    !mine_pid)
		w->wrong_pid++;
}

static void
write_all(int fd, size_t n, char c)
{
	char buf[4096];
	ssize_t r;

	memset(buf, c, sizeof(buf));
	while (n > 0) {
		r = write(fd, buf, n < sizeof(buf) ? n : sizeof(buf));
		if (r <= 0)
			_exit(2);
		n -= (size_t)r;
	}
}

START_TEST(write_fsync_is_typed)
{
	static const char *ev[] = {
		"ext4/ext4_da_write_begin", "ext4/ext4_da_write_end",
		"ext4/ext4_sync_file_enter", "ext4/ext4_sync_file_exit",
		"ext4/ext4_writepages", "ext4/ext4_ext_map_blocks_enter",
		"ext4/ext4_da_write_folios_start",
	};
	Perfetto__Protos__FtraceConfig c;
	struct ftrace_host *h;
	struct ftrace_source *s;
	struct test_sink ts;
	struct wf_find w;
	struct stat st;
	char path[1100], err[256] = "", before[2][256], after[256];
	const char *cause = NULL;
	const char *const *unknown;
	struct timespec nap = { 0, 2000000 };
	int go[2], fd, status, folios;
	pid_t pid;
	char x;

	if (ext4_dir[0] == '\0') {
		printf("SKIP write_fsync_is_typed: %s\n", ext4_why);
		return;
	}
	/* What this test may touch reads the same after it. */
	ck_assert_int_eq(tfs_read_line(tracefs, "set_event", before[0],
	    sizeof(before[0])), 0);
	ck_assert_int_eq(tfs_read_line(tracefs, "tracing_on", before[1],
	    sizeof(before[1])), 0);
	snprintf(path, sizeof(path), "%s/faro-ext4-test.XXXXXX", ext4_dir);
	ck_assert_int_ge(fd = mkstemp(path), 0);
	ck_assert_int_eq(fstat(fd, &st), 0);
	memset(&w, 0, sizeof(w));
	w.ino = st.st_ino;
	w.dev = (uint64_t)major(st.st_dev) << 20 | minor(st.st_dev);

	perfetto__protos__ftrace_config__init(&c);
	c.ftrace_events = (char **)ev;
	c.n_ftrace_events = sizeof(ev) / sizeof(ev[0]);
	/* The folio tracepoint is newer than some kernels: last in ev. */
	folios = tfs_exists(tracefs, "events/ext4/ext4_da_write_folios_start");
	if (!folios)
		c.n_ftrace_events--;
	ck_assert_ptr_nonnull(h = ftrace_host_new(NULL, tracefs, state_dir,
	    &cause));
	s = ftrace_source_new(h, &c, test_sink_init(&ts), err, sizeof(err));
	ck_assert_msg(s != NULL, "ftrace_source_new: %s", err);
	ck_assert_uint_eq(ftrace_source_unknown(s, &unknown), 0);

	/* The writer is a child, so that its pid is not ours. */
	ck_assert_int_eq(pipe(go), 0);
	if ((pid = fork()) == 0) {
		close(go[1]);
		if (read(go[0], &x, 1) != 1)
			_exit(1);
		write_all(fd, W1, 'a');
		if (fdatasync(fd) == -1)
			_exit(3);
		write_all(fd, W2, 'b');
		_exit(fsync(fd) == -1 ? 4 : 0);
	}
	ck_assert_int_gt(pid, 0);
	close(go[0]);
	w.pid = pid;
	ck_assert_int_eq(write(go[1], "g", 1), 1);
	close(go[1]);
	/* Drain as it runs: other writers to this disk share the buffer. */
	while (waitpid(pid, &status, WNOHANG) == 0) {
		ftrace_source_drain(s);
		nanosleep(&nap, NULL);
	}
	ck_assert_int_eq(WIFEXITED(status) ? WEXITSTATUS(status) : -1, 0);
	ftrace_source_drain(s);
	close(fd);
	unlink(path);
	ftrace_source_free(s);
	ftrace_host_free(h);

	test_sink_events(&ts, wf_visit, &w);
	printf("write_fsync_is_typed: %s dev %llu ino %llu pid %d: "
	    "write_begin %llu bytes, write_end %llu, sync_file_enter %d+%d, "
	    "exit %d, writepages %d, map_blocks %d, folios (generic) %d, "
	    "other events %d\n", ext4_dir, (unsigned long long)w.dev,
	    (unsigned long long)w.ino, (int)pid,
	    (unsigned long long)w.begin_bytes,
	    (unsigned long long)w.end_bytes, w.sync_enter[1], w.sync_enter[0],
	    w.sync_exit, w.writepages, w.map_blocks, w.folios_generic,
	    w.other);
	ck_assert_uint_eq(ts.bad, 0);
	ck_assert_int_eq(w.wrong_pid, 0);
	/* Every byte written went through write_begin and write_end. */
	ck_assert_uint_eq(w.begin_bytes, W1 + W2);
	ck_assert_uint_eq(w.end_bytes, W1 + W2);
	/* One fdatasync, one fsync, in this order of datasync flags. */
	ck_assert_int_eq(w.sync_enter[1], 1);
	ck_assert_int_eq(w.sync_enter[0], 1);
	ck_assert_int_eq(w.sync_exit, 2);
	ck_assert_int_eq(w.sync_exit_bad, 0);
	/* The syncs wrote the pages back in the writer's context. */
	ck_assert_int_ge(w.writepages, 1);
	ck_assert_int_ge(w.map_blocks, 1);
	if (folios)
		ck_assert_int_ge(w.folios_generic, 1);
	/* Only the events asked for. */
	ck_assert_int_eq(w.other, 0);
	test_sink_free(&ts);
	ck_assert_int_eq(tfs_read_line(tracefs, "set_event", after,
	    sizeof(after)), 0);
	ck_assert_str_eq(after, before[0]);
	ck_assert_int_eq(tfs_read_line(tracefs, "tracing_on", after,
	    sizeof(after)), 0);
	ck_assert_str_eq(after, before[1]);
}
END_TEST

/* ---- setup ---- */

/*
 * The filesystem type of the mount holding dir, from mountinfo (by device
 * number: "ID PARENT MAJ:MIN ROOT MOUNTPOINT ... - FSTYPE ...").
 */
static int
dir_fstype(const char *dir, char *type, size_t typesz)
{
	struct stat st;
	char line[4096], *sep;
	unsigned int maj, min;
	FILE *f;
	int rc = -1;

	if (stat(dir, &st) == -1 ||
	    (f = fopen("/proc/self/mountinfo", "r")) == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL) {
		if (sscanf(line, "%*u %*u %u:%u", &maj, &min) != 2 ||
		    maj != major(st.st_dev) || min != minor(st.st_dev) ||
		    (sep = strstr(line, " - ")) == NULL)
			continue;
		if (sscanf(sep, " - %63s", type) == 1 && typesz > 63) {
			rc = 0;
			break;
		}
	}
	fclose(f);
	return rc;
}

/* A writable directory on ext4: $TMPDIR, /tmp, /var/tmp, the cwd (the
 * build directory under make check). */
static void
find_ext4_dir(void)
{
	const char *cand[] = { getenv("TMPDIR"), "/tmp", "/var/tmp", "." };
	char type[64], none[200] = "";
	size_t len;

	for (size_t i = 0; i < sizeof(cand) / sizeof(cand[0]); i++) {
		if (cand[i] == NULL)
			continue;
		if (dir_fstype(cand[i], type, sizeof(type)) == -1)
			snprintf(type, sizeof(type), "unknown");
		if (strcmp(type, "ext4") == 0 && access(cand[i], W_OK) == 0) {
			if (realpath(cand[i], ext4_dir) == NULL)
				snprintf(ext4_dir, sizeof(ext4_dir), "%s",
				    cand[i]);
			return;
		}
		len = strlen(none);
		snprintf(none + len, sizeof(none) - len, " %s (%s)", cand[i],
		    type);
	}
	snprintf(ext4_why, sizeof(ext4_why), "no writable ext4 directory "
	    "among%s", none);
}

static Suite *
ftrace_ext4_suite(void)
{
	Suite *s = suite_create("ftrace_ext4");
	TCase *tc = tcase_create("ext4");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, every_event_planned);
	tcase_add_test(tc, write_fsync_is_typed);
	suite_add_tcase(s, tc);
	return s;
}

static const char *
ext4_skip(void)
{
	if (!tfs_exists(tracefs, "events/ext4"))
		return "kernel without ext4 tracepoints";
	find_ext4_dir();
	return NULL;
}

int
main(void)
{
	return test_kernel_main("check_ftrace_ext4", ftrace_ext4_suite,
	    tracefs, sizeof(tracefs), state_dir, ext4_skip);
}
