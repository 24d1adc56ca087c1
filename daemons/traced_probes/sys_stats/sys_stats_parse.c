/*
 * /proc text parsers of linux.sys_stats (sys_stats_parse.h).
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "protos/perfetto/common/sys_stats_counters.pb-c.h"

#include "libshm/pbw.h"
#include "procfs.h"
#include "sys_stats_parse.h"

/* SysStats and its nested messages. */
enum {
	SS_MEMINFO = 1, SS_VMSTAT = 2, SS_CPU_STAT = 3, SS_NUM_FORKS = 4,
	SS_NUM_IRQ_TOTAL = 5, SS_NUM_IRQ = 6, SS_NUM_SOFTIRQ_TOTAL = 7,
	SS_NUM_SOFTIRQ = 8, SS_BUDDY_INFO = 12, SS_DISK_STAT = 13,
	SS_PSI = 14,
	KV_KEY = 1, KV_VALUE = 2,		/* meminfo, vmstat, irqs */
	BI_NODE = 1, BI_ZONE = 2, BI_ORDER_PAGES = 3,
	DS_NAME = 1,
	PSI_RESOURCE = 1, PSI_TOTAL_NS = 2,
};

/* /proc/meminfo keys of MeminfoCounters (the kernel's spelling). */
static const struct {
	const char	*key;
	int		 id;
} meminfo_keys[] = {
	{ "MemTotal", PERFETTO__PROTOS__MEMINFO_COUNTERS__MEMINFO_MEM_TOTAL },
	{ "MemFree", PERFETTO__PROTOS__MEMINFO_COUNTERS__MEMINFO_MEM_FREE },
	{ "MemAvailable", PERFETTO__PROTOS__MEMINFO_COUNTERS__MEMINFO_MEM_AVAILABLE },
	{ "Buffers", PERFETTO__PROTOS__MEMINFO_COUNTERS__MEMINFO_BUFFERS },
	{ "Cached", PERFETTO__PROTOS__MEMINFO_COUNTERS__MEMINFO_CACHED },
	{ "SwapCached", PERFETTO__PROTOS__MEMINFO_COUNTERS__MEMINFO_SWAP_CACHED },
	{ "Active", PERFETTO__PROTOS__MEMINFO_COUNTERS__MEMINFO_ACTIVE },
	{ "Inactive", PERFETTO__PROTOS__MEMINFO_COUNTERS__MEMINFO_INACTIVE },
	{ "Active(anon)", PERFETTO__PROTOS__MEMINFO_COUNTERS__MEMINFO_ACTIVE_ANON },
	{ "Inactive(anon)", PERFETTO__PROTOS__MEMINFO_COUNTERS__MEMINFO_INACTIVE_ANON },
	{ "Active(file)", PERFETTO__PROTOS__MEMINFO_COUNTERS__MEMINFO_ACTIVE_FILE },
	{ "Inactive(file)", PERFETTO__PROTOS__MEMINFO_COUNTERS__MEMINFO_INACTIVE_FILE },
	{ "Unevictable", PERFETTO__PROTOS__MEMINFO_COUNTERS__MEMINFO_UNEVICTABLE },
	{ "Mlocked", PERFETTO__PROTOS__MEMINFO_COUNTERS__MEMINFO_MLOCKED },
	{ "SwapTotal", PERFETTO__PROTOS__MEMINFO_COUNTERS__MEMINFO_SWAP_TOTAL },
	{ "SwapFree", PERFETTO__PROTOS__MEMINFO_COUNTERS__MEMINFO_SWAP_FREE },
	{ "Dirty", PERFETTO__PROTOS__MEMINFO_COUNTERS__MEMINFO_DIRTY },
	{ "Writeback", PERFETTO__PROTOS__MEMINFO_COUNTERS__MEMINFO_WRITEBACK },
	{ "AnonPages", PERFETTO__PROTOS__MEMINFO_COUNTERS__MEMINFO_ANON_PAGES },
	{ "Mapped", PERFETTO__PROTOS__MEMINFO_COUNTERS__MEMINFO_MAPPED },
	{ "Shmem", PERFETTO__PROTOS__MEMINFO_COUNTERS__MEMINFO_SHMEM },
	{ "Slab", PERFETTO__PROTOS__MEMINFO_COUNTERS__MEMINFO_SLAB },
	{ "SReclaimable", PERFETTO__PROTOS__MEMINFO_COUNTERS__MEMINFO_SLAB_RECLAIMABLE },
	{ "SUnreclaim", PERFETTO__PROTOS__MEMINFO_COUNTERS__MEMINFO_SLAB_UNRECLAIMABLE },
	{ "KernelStack", PERFETTO__PROTOS__MEMINFO_COUNTERS__MEMINFO_KERNEL_STACK },
	{ "PageTables", PERFETTO__PROTOS__MEMINFO_COUNTERS__MEMINFO_PAGE_TABLES },
	{ "CommitLimit", PERFETTO__PROTOS__MEMINFO_COUNTERS__MEMINFO_COMMIT_LIMIT },
	{ "Committed_AS", PERFETTO__PROTOS__MEMINFO_COUNTERS__MEMINFO_COMMITED_AS },
	{ "VmallocTotal", PERFETTO__PROTOS__MEMINFO_COUNTERS__MEMINFO_VMALLOC_TOTAL },
	{ "VmallocUsed", PERFETTO__PROTOS__MEMINFO_COUNTERS__MEMINFO_VMALLOC_USED },
	{ "VmallocChunk", PERFETTO__PROTOS__MEMINFO_COUNTERS__MEMINFO_VMALLOC_CHUNK },
	{ "CmaTotal", PERFETTO__PROTOS__MEMINFO_COUNTERS__MEMINFO_CMA_TOTAL },
	{ "CmaFree", PERFETTO__PROTOS__MEMINFO_COUNTERS__MEMINFO_CMA_FREE },
};

/*
 * vmstat keys are the enum names without "VMSTAT_", in lower case: the
 * table is built once from the enum descriptor, sorted for bsearch.
 */
struct vm_key {
	char	name[64];
	int	id;
};
static struct vm_key *vm_keys;
static size_t nvm_keys;

static int
vm_key_cmp(const void *a, const void *b)
{
	return strcmp(((const struct vm_key *)a)->name,
	    ((const struct vm_key *)b)->name);
}

static void
vm_keys_init(void)
{
	const ProtobufCEnumDescriptor *d =
	    &perfetto__protos__vmstat_counters__descriptor;
	static const char prefix[] = "VMSTAT_";
	size_t n = 0;

	if (vm_keys != NULL)
		return;
	if ((vm_keys = calloc(d->n_values, sizeof(*vm_keys))) == NULL)
		return;
	for (unsigned i = 0; i < d->n_values; i++) {
		const char *s = d->values[i].name;
		size_t j;

		if (strncmp(s, prefix, sizeof(prefix) - 1) != 0 ||
		    d->values[i].value <= 0 ||
		    d->values[i].value >= SS_VMSTAT_MAX)
			continue;
		s += sizeof(prefix) - 1;
		for (j = 0; s[j] != '\0' && j < sizeof(vm_keys[n].name) - 1;
		    j++)
			vm_keys[n].name[j] = (char)tolower((unsigned char)s[j]);
		vm_keys[n].id = d->values[i].value;
		n++;
	}
	qsort(vm_keys, n, sizeof(*vm_keys), vm_key_cmp);
	nvm_keys = n;
}

const char *
sys_stats_vmstat_name(int value)
{
	vm_keys_init();
	for (size_t i = 0; i < nvm_keys; i++)
		if (vm_keys[i].id == value)
			return vm_keys[i].name;
	return NULL;
}

void
sys_stats_filter_init(struct sys_stats_filter *f,
    const Perfetto__Protos__SysStatsConfig *c)
{
	memset(f, 0, sizeof(*f));
	if (c == NULL || c->n_meminfo_counters == 0)
		memset(f->meminfo, 1, sizeof(f->meminfo));
	else
		for (size_t i = 0; i < c->n_meminfo_counters; i++)
			if (c->meminfo_counters[i] > 0 &&
			    c->meminfo_counters[i] < SS_MEMINFO_MAX)
				f->meminfo[c->meminfo_counters[i]] = 1;
	if (c == NULL || c->n_vmstat_counters == 0)
		memset(f->vmstat, 1, sizeof(f->vmstat));
	else
		for (size_t i = 0; i < c->n_vmstat_counters; i++)
			if (c->vmstat_counters[i] > 0 &&
			    c->vmstat_counters[i] < SS_VMSTAT_MAX)
				f->vmstat[c->vmstat_counters[i]] = 1;
	if (c == NULL || c->n_stat_counters == 0)
		f->stat = ~0u;
	else
		for (size_t i = 0; i < c->n_stat_counters; i++)
			if (c->stat_counters[i] > 0 && c->stat_counters[i] < 32)
				f->stat |= 1u << c->stat_counters[i];
}

static void
write_kv(struct pbw *w, uint32_t field, int key, uint64_t value)
{
	pbw_nested_begin(w, field);
	pbw_varint(w, KV_KEY, (uint64_t)key);
	pbw_varint(w, KV_VALUE, value);
	pbw_nested_end(w);
}

int
sys_stats_meminfo_untrusted(const char *buf, size_t len,
    const struct sys_stats_filter *f, struct pbw *w)
{
	const char *p = buf, *end = buf + len, *line, *colon, *q, *tok;
	size_t ll, klen, tl;
	uint64_t v;
	int n = 0;

	while (procfs_line(&p, end, &line, &ll)) {
		if ((colon = memchr(line, ':', ll)) == NULL)
			continue;
		klen = (size_t)(colon - line);
		q = colon + 1;
		/* "MemTotal:  16316412 kB" */
		if (!procfs_word(&q, line + ll, &tok, &tl) ||
		    procfs_u64(tok, tl, &v) == -1)
			continue;
		for (size_t i = 0; i < sizeof(meminfo_keys) /
		    sizeof(meminfo_keys[0]); i++) {
			if (strlen(meminfo_keys[i].key) != klen ||
			    memcmp(meminfo_keys[i].key, line, klen) != 0)
				continue;
			if (f->meminfo[meminfo_keys[i].id]) {
				write_kv(w, SS_MEMINFO, meminfo_keys[i].id, v);
				n++;
			}
			break;
		}
	}
	return n;
}

int
sys_stats_vmstat_untrusted(const char *buf, size_t len,
    const struct sys_stats_filter *f, struct pbw *w)
{
	const char *p = buf, *end = buf + len, *line, *q, *key, *tok;
	size_t ll, kl, tl;
	struct vm_key want, *hit;
	uint64_t v;
	int n = 0;

	vm_keys_init();
	if (vm_keys == NULL)
		return 0;
	while (procfs_line(&p, end, &line, &ll)) {
		q = line;
		/* "nr_free_pages 123456" */
		if (!procfs_word(&q, line + ll, &key, &kl) ||
		    kl >= sizeof(want.name) ||
		    !procfs_word(&q, line + ll, &tok, &tl) ||
		    procfs_u64(tok, tl, &v) == -1)
			continue;
		memcpy(want.name, key, kl);
		want.name[kl] = '\0';
		hit = bsearch(&want, vm_keys, nvm_keys, sizeof(*vm_keys),
		    vm_key_cmp);
		if (hit != NULL && f->vmstat[hit->id]) {
			write_kv(w, SS_VMSTAT, hit->id, v);
			n++;
		}
	}
	return n;
}

/*
 * "intr" / "softirq": the total, then one count per number (zeros
 * skipped). Returns the entries written, the total included.
 */
static int
write_irqs(const char *q, const char *end, uint32_t total_field,
    uint32_t field, struct pbw *w)
{
	const char *tok;
	size_t tl;
	uint64_t v;
	int i = -1, n = 0;

	while (procfs_word(&q, end, &tok, &tl)) {
		if (procfs_u64(tok, tl, &v) == -1)
			break;
		if (i == -1) {
			pbw_varint(w, total_field, v);
			n++;
		} else if (v > 0) {
			write_kv(w, field, i, v);
			n++;
		}
		i++;
	}
	return n;
}

int
sys_stats_stat_untrusted(const char *buf, size_t len,
    const struct sys_stats_filter *f, uint64_t ns_per_tick, struct pbw *w)
{
	const char *p = buf, *end = buf + len, *line, *q, *key, *tok;
	size_t ll, kl, tl;
	uint64_t v, cpu;
	int n = 0, k;

	while (procfs_line(&p, end, &line, &ll)) {
		q = line;
		if (!procfs_word(&q, line + ll, &key, &kl))
			continue;
		if ((f->stat & (1u << PERFETTO__PROTOS__SYS_STATS_CONFIG__STAT_COUNTERS__STAT_CPU_TIMES)) &&
		    kl > 3 && memcmp(key, "cpu", 3) == 0) {
			/* "cpuN user nice system idle iowait irq softirq steal" */
			if (procfs_u64(key + 3, kl - 3, &cpu) == -1 ||
			    cpu > UINT32_MAX)
				continue;
			pbw_nested_begin(w, SS_CPU_STAT);
			pbw_varint(w, 1, cpu);
			for (k = 0; k < 8 && procfs_word(&q, line + ll, &tok,
			    &tl) && procfs_u64(tok, tl, &v) == 0; k++)
				pbw_varint(w, (uint32_t)k + 2, v * ns_per_tick);
			pbw_nested_end(w);
			n++;
		} else if ((f->stat & (1u << PERFETTO__PROTOS__SYS_STATS_CONFIG__STAT_COUNTERS__STAT_IRQ_COUNTS)) &&
		    kl == 4 && memcmp(key, "intr", 4) == 0) {
			n += write_irqs(q, line + ll, SS_NUM_IRQ_TOTAL,
			    SS_NUM_IRQ, w);
		} else if ((f->stat & (1u << PERFETTO__PROTOS__SYS_STATS_CONFIG__STAT_COUNTERS__STAT_SOFTIRQ_COUNTS)) &&
		    kl == 7 && memcmp(key, "softirq", 7) == 0) {
			n += write_irqs(q, line + ll, SS_NUM_SOFTIRQ_TOTAL,
			    SS_NUM_SOFTIRQ, w);
		} else if ((f->stat & (1u << PERFETTO__PROTOS__SYS_STATS_CONFIG__STAT_COUNTERS__STAT_FORK_COUNT)) &&
		    kl == 9 && memcmp(key, "processes", 9) == 0) {
			if (procfs_word(&q, line + ll, &tok, &tl) &&
			    procfs_u64(tok, tl, &v) == 0) {
				pbw_varint(w, SS_NUM_FORKS, v);
				n++;
			}
		}
	}
	return n;
}

int
sys_stats_diskstats_untrusted(const char *buf, size_t len, struct pbw *w)
{
	/* DiskStat field of each column (0: not kept), from column 3 on */
	static const uint8_t col_field[] = {
		0, 0, 0,	/* major minor name */
		0, 0, 2, 3,	/* reads merged sectors(2) time(3) */
		0, 0, 4, 5,	/* writes merged sectors(4) time(5) */
		0, 0, 0,	/* in flight, io ticks, queue time */
		0, 0, 6, 7,	/* discards merged sectors(6) time(7) */
		8, 9,		/* flushes(8) time(9) */
	};
	const char *p = buf, *end = buf + len, *line, *q, *tok, *name = NULL;
	size_t ll, tl, namelen = 0;
	uint64_t v, vals[sizeof(col_field)];
	unsigned col;
	int n = 0;

	while (procfs_line(&p, end, &line, &ll)) {
		q = line;
		for (col = 0; col < sizeof(col_field) &&
		    procfs_word(&q, line + ll, &tok, &tl); col++) {
			if (col == 2) {
				name = tok;
				namelen = tl;
			} else if (procfs_u64(tok, tl, &v) == -1)
				break;
			else
				vals[col] = v;
		}
		/* at least up to the write time: older kernels stop at 14 */
		if (col < 11)
			continue;
		pbw_nested_begin(w, SS_DISK_STAT);
		pbw_bytes(w, DS_NAME, name, namelen);
		for (unsigned c = 3; c < col; c++)
			if (col_field[c] != 0)
				pbw_varint(w, col_field[c], vals[c]);
		pbw_nested_end(w);
		n++;
	}
	return n;
}

int
sys_stats_psi_untrusted(const char *buf, size_t len, int some, int full,
    struct pbw *w)
{
	const char *p = buf, *end = buf + len, *line, *q, *tok;
	size_t ll, tl;
	uint64_t us;
	int n = 0, res;

	/* "some avg10=0.00 avg60=0.00 avg300=0.00 total=12345" (us) */
	while (procfs_line(&p, end, &line, &ll)) {
		q = line;
		if (!procfs_word(&q, line + ll, &tok, &tl))
			continue;
		if (tl == 4 && memcmp(tok, "some", 4) == 0)
			res = some;
		else if (tl == 4 && memcmp(tok, "full", 4) == 0)
			res = full;
		else
			continue;
		while (procfs_word(&q, line + ll, &tok, &tl)) {
			if (tl < 6 || memcmp(tok, "total=", 6) != 0)
				continue;
			if (procfs_u64(tok + 6, tl - 6, &us) == -1 ||
			    us > UINT64_MAX / 1000)
				break;
			pbw_nested_begin(w, SS_PSI);
			pbw_varint(w, PSI_RESOURCE, (uint64_t)res);
			pbw_varint(w, PSI_TOTAL_NS, us * 1000);
			pbw_nested_end(w);
			n++;
			break;
		}
	}
	return n;
}

int
sys_stats_buddyinfo_untrusted(const char *buf, size_t len, struct pbw *w)
{
	const char *p = buf, *end = buf + len, *line, *q, *tok, *node, *zone;
	size_t ll, tl, nl, zl;
	uint64_t v;
	int n = 0;

	/* "Node 0, zone   Normal   1   2   3 ..." */
	while (procfs_line(&p, end, &line, &ll)) {
		q = line;
		if (!procfs_word(&q, line + ll, &tok, &tl) || tl != 4 ||
		    memcmp(tok, "Node", 4) != 0 ||
		    !procfs_word(&q, line + ll, &node, &nl) ||
		    !procfs_word(&q, line + ll, &tok, &tl) ||
		    !procfs_word(&q, line + ll, &zone, &zl))
			continue;
		if (nl > 0 && node[nl - 1] == ',')
			nl--;
		pbw_nested_begin(w, SS_BUDDY_INFO);
		pbw_bytes(w, BI_NODE, node, nl);
		pbw_bytes(w, BI_ZONE, zone, zl);
		while (procfs_word(&q, line + ll, &tok, &tl) &&
		    procfs_u64(tok, tl, &v) == 0)
			pbw_varint(w, BI_ORDER_PAGES,
			    v > UINT32_MAX ? UINT32_MAX : v);
		pbw_nested_end(w);
		n++;
	}
	return n;
}
