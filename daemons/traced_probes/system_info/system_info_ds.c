/*
 * linux.system_info data source (system_info_ds.h).
 */
#include <sys/sysinfo.h>
#include <sys/utsname.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/log.h"
#include "packet.h"
#include "procfs.h"
#include "libipc/producer_endpoint.h"
#include "system_info_ds.h"

#define SI_MAX_CPUS	1024
#define SI_MAX_FREQS	64
#define SI_CPU_DIR	"/sys/devices/system/cpu"

/* SystemInfo, Utsname, CpuInfo field numbers */
enum {
	SI_UTSNAME = 1, SI_HZ = 3, SI_PAGE_SIZE = 6, SI_TZ_OFF_MINS = 7,
	SI_NUM_CPUS = 8, SI_RAM_BYTES = 16,
	UTS_SYSNAME = 1, UTS_VERSION = 2, UTS_RELEASE = 3, UTS_MACHINE = 4,
	CI_CPUS = 1,
	CPU_PROCESSOR = 1, CPU_FREQUENCIES = 2, CPU_CAPACITY = 3,
	CPU_ARM_ID = 4,
};

struct system_info_ds {
	struct producer_ep	*ep;
	struct shm_writer	*w;
};

/* "key\t: value" -> key and value, blanks trimmed; 0 if no colon. */
static int
split_kv(const char *line, size_t ll, const char **k, size_t *kl,
    const char **v, size_t *vl)
{
	const char *colon = memchr(line, ':', ll);
	size_t n;

	if (colon == NULL)
		return 0;
	n = (size_t)(colon - line);
	while (n > 0 && (line[n - 1] == ' ' || line[n - 1] == '\t'))
		n--;
	*k = line;
	*kl = n;
	*v = colon + 1;
	*vl = ll - (size_t)(colon - line) - 1;
	while (*vl > 0 && (**v == ' ' || **v == '\t')) {
		(*v)++;
		(*vl)--;
	}
	return 1;
}

static int
is_key(const char *k, size_t kl, const char *want)
{
	return strlen(want) == kl && memcmp(k, want, kl) == 0;
}

/* 0x41 or 8: the ARM identifier fields mix hex and decimal. */
static int
parse_num(const char *v, size_t vl, uint32_t *out)
{
	uint64_t x = 0;

	if (vl > 2 && v[0] == '0' && (v[1] == 'x' || v[1] == 'X')) {
		if (vl > 10)
			return -1;
		for (size_t i = 2; i < vl; i++) {
			int c = (unsigned char)v[i], d;

			if (c >= '0' && c <= '9')
				d = c - '0';
			else if (c >= 'a' && c <= 'f')
				d = c - 'a' + 10;
			else if (c >= 'A' && c <= 'F')
				d = c - 'A' + 10;
			else
				return -1;
			x = x * 16 + (uint64_t)d;
		}
	} else if (procfs_u64(v, vl, &x) == -1 || x > UINT32_MAX)
		return -1;
	*out = (uint32_t)x;
	return 0;
}

static void
copy_str(char *dst, size_t size, const char *s, size_t n)
{
	if (n >= size)
		n = size - 1;
	memcpy(dst, s, n);
	dst[n] = '\0';
}

int
system_info_cpuinfo_untrusted(const char *buf, size_t len,
    struct si_cpu *cpus, int max)
{
	const char *p = buf, *end = buf + len, *line, *k, *v;
	size_t ll, kl, vl;
	char fallback[128] = "";
	struct si_cpu *cur = NULL;
	uint32_t x;
	int n = 0;

	while (procfs_line(&p, end, &line, &ll)) {
		if (!split_kv(line, ll, &k, &kl, &v, &vl))
			continue;
		if (is_key(k, kl, "processor")) {
			uint64_t idx;

			cur = NULL;
			if (n == max || procfs_u64(v, vl, &idx) == -1 ||
			    idx >= SI_MAX_CPUS)
				continue;
			cur = &cpus[n++];
			memset(cur, 0, sizeof(*cur));
			cur->index = (int)idx;
			continue;
		}
		if (is_key(k, kl, "Processor") || is_key(k, kl, "Hardware")) {
			if (fallback[0] == '\0')
				copy_str(fallback, sizeof(fallback), v, vl);
			continue;
		}
		if (cur == NULL)
			continue;
		if (is_key(k, kl, "model name"))
			copy_str(cur->processor, sizeof(cur->processor), v, vl);
		else if (parse_num(v, vl, &x) == 0) {
			if (is_key(k, kl, "CPU implementer"))
				cur->implementer = x, cur->has_arm = 1;
			else if (is_key(k, kl, "CPU architecture"))
				cur->architecture = x;
			else if (is_key(k, kl, "CPU variant"))
				cur->variant = x;
			else if (is_key(k, kl, "CPU part"))
				cur->part = x;
			else if (is_key(k, kl, "CPU revision"))
				cur->revision = x;
		}
	}
	for (int i = 0; i < n; i++)
		if (cpus[i].processor[0] == '\0')
			copy_str(cpus[i].processor, sizeof(cpus[i].processor),
			    fallback, strlen(fallback));
	return n;
}

int
system_info_freqs_untrusted(const char *buf, size_t len, int per_line,
    uint32_t *out, int max)
{
	const char *p = buf, *end = buf + len, *line, *q, *tok;
	size_t ll, tl;
	uint64_t v;
	int n = 0;

	while (n < max && procfs_line(&p, end, &line, &ll)) {
		q = line;
		while (n < max && procfs_word(&q, line + ll, &tok, &tl)) {
			if (procfs_u64(tok, tl, &v) == 0 && v > 0 &&
			    v <= UINT32_MAX)
				out[n++] = (uint32_t)v;
			if (per_line)
				break;
		}
	}
	return n;
}

void
system_info_write_cpu(struct pbw *w, const struct si_cpu *c,
    const uint32_t *freqs, int nfreqs, int has_capacity, uint32_t capacity)
{
	pbw_nested_begin(w, CI_CPUS);
	pbw_string(w, CPU_PROCESSOR, c->processor);
	for (int i = 0; i < nfreqs; i++)
		pbw_varint(w, CPU_FREQUENCIES, freqs[i]);
	if (has_capacity)
		pbw_varint(w, CPU_CAPACITY, capacity);
	if (c->has_arm) {
		pbw_nested_begin(w, CPU_ARM_ID);
		pbw_varint(w, 1, c->implementer);
		pbw_varint(w, 2, c->architecture);
		pbw_varint(w, 3, c->variant);
		pbw_varint(w, 4, c->part);
		pbw_varint(w, 5, c->revision);
		pbw_nested_end(w);
	}
	pbw_nested_end(w);
}

static void
write_system_info(struct system_info_ds *ds)
{
	struct utsname u;
	struct sysinfo si;
	struct tm tm;
	struct pbw *w;
	time_t now = time(NULL);
	long v;

	w = probe_packet_begin(ds->w, procfs_boottime_ns());
	pbw_nested_begin(w, TP_SYSTEM_INFO);
	if (uname(&u) == 0) {
		pbw_nested_begin(w, SI_UTSNAME);
		pbw_string(w, UTS_SYSNAME, u.sysname);
		pbw_string(w, UTS_VERSION, u.version);
		pbw_string(w, UTS_RELEASE, u.release);
		pbw_string(w, UTS_MACHINE, u.machine);
		pbw_nested_end(w);
	}
	if ((v = sysconf(_SC_CLK_TCK)) > 0)
		pbw_int64(w, SI_HZ, v);
	if ((v = sysconf(_SC_PAGESIZE)) > 0)
		pbw_varint(w, SI_PAGE_SIZE, (uint64_t)v);
	if (localtime_r(&now, &tm) != NULL)
		pbw_int32(w, SI_TZ_OFF_MINS, (int32_t)(tm.tm_gmtoff / 60));
	if ((v = sysconf(_SC_NPROCESSORS_CONF)) > 0)
		pbw_varint(w, SI_NUM_CPUS, (uint64_t)v);
	if (sysinfo(&si) == 0)
		pbw_varint(w, SI_RAM_BYTES, (uint64_t)si.totalram *
		    si.mem_unit);
	pbw_nested_end(w);
	shm_writer_packet_end(ds->w);
}

static void
write_cpu_info(struct system_info_ds *ds)
{
	struct si_cpu *cpus;
	uint32_t freqs[SI_MAX_FREQS];
	uint64_t cap;
	char path[128], *buf;
	struct pbw *w;
	ssize_t len;
	int n, nf, has_cap;

	buf = malloc(256 * 1024);
	cpus = calloc(SI_MAX_CPUS, sizeof(*cpus));
	if (buf == NULL || cpus == NULL) {
		log_warnx("%s: out of memory", __func__);
		goto out;
	}
	if ((len = procfs_read("/proc/cpuinfo", buf, 256 * 1024, NULL)) < 0) {
		log_warn("%s: /proc/cpuinfo", __func__);
		goto out;
	}
	n = system_info_cpuinfo_untrusted(buf, (size_t)len, cpus,
	    SI_MAX_CPUS);
	w = probe_packet_begin(ds->w, procfs_boottime_ns());
	pbw_nested_begin(w, TP_CPU_INFO);
	for (int i = 0; i < n; i++) {
		nf = 0;
		len = procfs_readf(buf, 4096, NULL, SI_CPU_DIR
		    "/cpu%d/cpufreq/scaling_available_frequencies",
		    cpus[i].index);
		if (len > 0)
			nf = system_info_freqs_untrusted(buf, (size_t)len, 0,
			    freqs, SI_MAX_FREQS);
		else if ((len = procfs_readf(buf, 64 * 1024, NULL, SI_CPU_DIR
		    "/cpu%d/cpufreq/stats/time_in_state",
		    cpus[i].index)) > 0)
			nf = system_info_freqs_untrusted(buf, (size_t)len, 1,
			    freqs, SI_MAX_FREQS);
		/* capacity: big.LITTLE machines rank their cores with it */
		snprintf(path, sizeof(path), SI_CPU_DIR "/cpu%d/cpu_capacity",
		    cpus[i].index);
		has_cap = procfs_read_u64(path, &cap) == 0 &&
		    cap <= UINT32_MAX;
		system_info_write_cpu(w, &cpus[i], freqs, nf, has_cap,
		    has_cap ? (uint32_t)cap : 0);
	}
	pbw_nested_end(w);
	shm_writer_packet_end(ds->w);
out:
	free(cpus);
	free(buf);
}

struct system_info_ds *
system_info_ds_start(struct event_base *base, struct producer_ep *ep,
    uint64_t id, const Perfetto__Protos__DataSourceConfig *cfg)
{
	struct system_info_ds *ds;
	const char *cause = NULL;

	if ((ds = calloc(1, sizeof(*ds))) == NULL) {
		log_warnx("%s: out of memory", __func__);
		return NULL;
	}
	ds->ep = ep;
	ds->w = producer_ep_writer_new(ep, cfg->target_buffer,
	    SHM_POLICY_DROP, &cause);
	if (ds->w == NULL) {
		log_warnx("%s: instance %llu: %s", __func__,
		    (unsigned long long)id, cause);
		free(ds);
		return NULL;
	}
	write_system_info(ds);
	write_cpu_info(ds);
	shm_writer_flush(ds->w);
	return ds;
}

void
system_info_ds_flush(struct system_info_ds *ds)
{
	shm_writer_flush(ds->w);
}

void
system_info_ds_stop(struct system_info_ds *ds)
{
	producer_ep_writer_free(ds->ep, ds->w);
	free(ds);
}
