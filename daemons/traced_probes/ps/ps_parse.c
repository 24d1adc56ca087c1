/*
 * /proc/PID parsers and ProcessTree / ProcessStats encoders (ps_parse.h).
 */
#include <string.h>

#include "libshm/pbw.h"
#include "procfs.h"
#include "ps_parse.h"

/* ProcessTree */
enum {
	PT_PROCESSES = 1, PT_THREADS = 2,
	PTP_PID = 1, PTP_PPID = 2, PTP_CMDLINE = 3, PTP_UID = 5,
	PTP_IS_KTHREAD = 8, PTP_CMDLINE_IS_COMM = 9,
	PTT_TID = 1, PTT_NAME = 2, PTT_TGID = 3,
};
/* ProcessStats */
enum {
	PS_PROCESSES = 1,
	PSP_PID = 1, PSP_OOM_SCORE_ADJ = 10,
};

/* status keys of the memory counters and their ProcessStats.Process field */
static const struct {
	const char	*key;
	uint32_t	 field;
} mem_keys[PS_MEM_N] = {
	[PS_VM_SIZE] = { "VmSize", 2 },
	[PS_VM_RSS] = { "VmRSS", 3 },
	[PS_RSS_ANON] = { "RssAnon", 4 },
	[PS_RSS_FILE] = { "RssFile", 5 },
	[PS_RSS_SHMEM] = { "RssShmem", 6 },
	[PS_VM_SWAP] = { "VmSwap", 7 },
	[PS_VM_LOCKED] = { "VmLck", 8 },
	[PS_VM_HWM] = { "VmHWM", 9 },
};

static int
key_is(const char *k, size_t klen, const char *want)
{
	return strlen(want) == klen && memcmp(k, want, klen) == 0;
}

/* The first word of a value as an int32 (Uid has four, real uid first). */
static int
first_i32(const char *v, size_t vlen, int32_t *out)
{
	const char *p = v, *w;
	size_t wl;
	int64_t x;

	if (!procfs_word(&p, v + vlen, &w, &wl) ||
	    procfs_i64(w, wl, &x) == -1 || x < INT32_MIN || x > INT32_MAX)
		return -1;
	*out = (int32_t)x;
	return 0;
}

int
ps_status_parse_untrusted(const char *buf, size_t len, struct ps_status *st)
{
	const char *p = buf, *end = buf + len, *line, *colon, *v, *w;
	size_t ll, klen, vlen, wl;
	int have_pid = 0, have_tgid = 0;
	uint64_t kb;
	int32_t x;

	memset(st, 0, sizeof(*st));
	st->kthread = -1;
	while (procfs_line(&p, end, &line, &ll)) {
		if ((colon = memchr(line, ':', ll)) == NULL)
			continue;
		klen = (size_t)(colon - line);
		v = colon + 1;
		vlen = ll - klen - 1;
		while (vlen > 0 && (*v == ' ' || *v == '\t')) {
			v++;
			vlen--;
		}
		if (key_is(line, klen, "Name")) {
			/* the name may hold blanks: take the whole value */
			if (vlen >= sizeof(st->name))
				vlen = sizeof(st->name) - 1;
			memcpy(st->name, v, vlen);
			st->name[vlen] = '\0';
		} else if (key_is(line, klen, "Pid")) {
			have_pid = first_i32(v, vlen, &st->pid) == 0;
		} else if (key_is(line, klen, "Tgid")) {
			have_tgid = first_i32(v, vlen, &st->tgid) == 0;
		} else if (key_is(line, klen, "PPid")) {
			if (first_i32(v, vlen, &x) == 0)
				st->ppid = x;
		} else if (key_is(line, klen, "Uid")) {
			if (first_i32(v, vlen, &x) == 0)
				st->uid = x;
		} else if (key_is(line, klen, "Kthread")) {
			if (first_i32(v, vlen, &x) == 0 && (x == 0 || x == 1))
				st->kthread = x;
		} else if (klen > 2 && (line[0] == 'V' || line[0] == 'R')) {
			for (int i = 0; i < PS_MEM_N; i++) {
				const char *q = v;

				if (!key_is(line, klen, mem_keys[i].key))
					continue;
				/* "1234 kB": the unit is always kB */
				if (procfs_word(&q, v + vlen, &w, &wl) &&
				    procfs_u64(w, wl, &kb) == 0) {
					st->mem_kb[i] = kb;
					st->have_mem |= 1u << i;
				}
				break;
			}
		}
	}
	if (!have_pid || !have_tgid || st->pid <= 0 || st->tgid <= 0)
		return -1;
	return 0;
}

int
ps_oom_parse_untrusted(const char *buf, size_t len, int64_t *v)
{
	while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == ' '))
		len--;
	return procfs_i64(buf, len, v);
}

size_t
ps_comm_trim(const char *buf, size_t len)
{
	const char *nl = memchr(buf, '\n', len);

	return nl != NULL ? (size_t)(nl - buf) : len;
}

void
ps_write_tree_process(struct pbw *w, const struct ps_status *st,
    const char *cmdline, size_t cmdlen)
{
	const char *p = cmdline, *end = cmdline + cmdlen, *nul;

	pbw_nested_begin(w, PT_PROCESSES);
	pbw_int32(w, PTP_PID, st->pid);
	pbw_int32(w, PTP_PPID, st->ppid);
	pbw_int32(w, PTP_UID, st->uid);
	if (cmdlen == 0) {
		pbw_string(w, PTP_CMDLINE, st->name);
		pbw_bool(w, PTP_CMDLINE_IS_COMM, 1);
	}
	/* argv strings; a missing final NUL still ends the last one */
	while (p < end) {
		if ((nul = memchr(p, '\0', (size_t)(end - p))) == NULL)
			nul = end;
		pbw_bytes(w, PTP_CMDLINE, p, (size_t)(nul - p));
		p = nul + 1;
	}
	if (st->kthread >= 0)
		pbw_bool(w, PTP_IS_KTHREAD, st->kthread);
	pbw_nested_end(w);
}

void
ps_write_tree_thread(struct pbw *w, int32_t tid, int32_t tgid,
    const char *name, size_t namelen)
{
	pbw_nested_begin(w, PT_THREADS);
	pbw_int32(w, PTT_TID, tid);
	pbw_int32(w, PTT_TGID, tgid);
	if (name != NULL)
		pbw_bytes(w, PTT_NAME, name, namelen);
	pbw_nested_end(w);
}

int
ps_write_stats_process(struct pbw *w, const struct ps_status *st,
    uint32_t mask, int have_oom, int64_t oom_score_adj)
{
	mask &= st->have_mem;
	if (mask == 0 && !have_oom)
		return -1;
	pbw_nested_begin(w, PS_PROCESSES);
	pbw_int32(w, PSP_PID, st->pid);
	for (int i = 0; i < PS_MEM_N; i++)
		if (mask & (1u << i))
			pbw_varint(w, mem_keys[i].field, st->mem_kb[i]);
	if (have_oom)
		pbw_int64(w, PSP_OOM_SCORE_ADJ, oom_score_adj);
	pbw_nested_end(w);
	return 0;
}
