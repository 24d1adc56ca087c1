/*
 * Machines: the host, id 0, and the remote machines whose packets say
 * which they are (TracePacket.machine_id, a raw id), numbered in the order
 * their first packet comes, as upstream. As upstream too, when a remote
 * machine's packet comes before any of the host's, the trace is that
 * machine's: it takes id 0, and the host is never seen.
 *
 * tp->machine is the machine of the data at hand: set for each packet
 * as it is tokenized, and carried by the sorter to its parse. Tracks,
 * cpus and metadata record it.
 */
#include <stdlib.h>
#include <string.h>

#include "tp_int.h"

struct machine {
	uint32_t	 raw;
	int64_t		 num_cpus;	/* TP_NULL: unknown */
	struct tp_hash	 tids, pids;	/* a remote one's tasks */
};

struct tp_machines {
	struct tp_hash	 by_raw;	/* raw id -> machine id */
	struct machine	*m;		/* by machine id */
	size_t		 n, cap;
	/* The cpus remote machines' data came from: machine << 32 | cpu
	 * (the host's are tp->cpus_seen). */
	struct tp_hash	 cpus;
	int		 host_used;	/* a packet of the host was seen */
};

static struct tp_machines *
machines_get(struct tp *tp)
{
	struct tp_machines *m = tp->machines;

	if (m != NULL)
		return m;
	if ((m = calloc(1, sizeof(*m))) == NULL ||
	    tp_grow((void **)&m->m, &m->cap, 0, sizeof(*m->m)) == -1) {
		free(m);
		return NULL;
	}
	/* the host, raw id 0 */
	m->m[0] = (struct machine){ .raw = 0, .num_cpus = TP_NULL };
	m->n = 1;
	tp->machines = m;
	return m;
}

uint32_t
tp_machine_of_packet(struct tp *tp, int has_raw, uint32_t raw)
{
	struct tp_machines *m = machines_get(tp);
	uint64_t *v;

	if (m == NULL)
		return 0;
	if (!has_raw || raw == 0) {
		m->host_used = 1;
		return 0;
	}
	if ((v = tp_hash_get(&m->by_raw, raw)) != NULL)
		return (uint32_t)*v;
	if (!m->host_used && m->m[0].raw == 0) {
		/* Adopted: the trace is this machine's. */
		m->m[0].raw = raw;
		(void)tp_hash_put(&m->by_raw, raw, 0);
		return 0;
	}
	if (tp_grow((void **)&m->m, &m->cap, m->n, sizeof(*m->m)) == -1 ||
	    tp_hash_put(&m->by_raw, raw, m->n) == -1)
		return 0;
	m->m[m->n] = (struct machine){ .raw = raw, .num_cpus = TP_NULL };
	tp_hash_init(&m->m[m->n].tids);
	tp_hash_init(&m->m[m->n].pids);
	m->n++;
	/* Its idle task comes with it, as upstream makes a machine's. */
	tp_procs_add_idle(tp, (uint32_t)(m->n - 1));
	return (uint32_t)(m->n - 1);
}

int64_t
tp_ucpu(const struct tp *tp, int64_t cpu)
{
	return cpu < 0 || cpu >= TP_MAX_CPUS ? cpu : tp_ucpu_of(tp->machine,
	    cpu);
}

struct tp_hash *
tp_machine_ids(struct tp *tp, uint32_t machine, int pids)
{
	struct tp_machines *m = tp->machines;

	if (machine == 0 || m == NULL || machine >= m->n)
		return pids ? &tp->pid_map : &tp->tid_map;
	return pids ? &m->m[machine].pids : &m->m[machine].tids;
}

void
tp_machine_cpu_seen(struct tp *tp, int64_t cpu)
{
	struct tp_machines *m = machines_get(tp);

	if (m != NULL && cpu >= 0 && cpu <= UINT32_MAX)
		(void)tp_hash_put(&m->cpus, (uint64_t)tp->machine << 32 |
		    (uint64_t)cpu, 1);
}

size_t
tp_machine_ncpus(struct tp *tp)
{
	return tp->machines != NULL ? tp->machines->cpus.count : 0;
}

int
tp_machine_cpu_next(struct tp *tp, size_t *iter, uint32_t *machine,
    int64_t *cpu)
{
	struct tp_machines *m = tp->machines;

	uint64_t key, val;

	if (m == NULL || !tp_hash_next(&m->cpus, iter, &key, &val))
		return 0;
	*machine = (uint32_t)(key >> 32);
	*cpu = (int64_t)(key & 0xffffffff);
	return 1;
}

void
tp_machine_set_num_cpus(struct tp *tp, int64_t n)
{
	struct tp_machines *m = machines_get(tp);

	if (m != NULL && tp->machine < m->n)
		m->m[tp->machine].num_cpus = n;
}

/* The machines seen, the host included. */
size_t
tp_machine_count(const struct tp *tp)
{
	return tp->machines != NULL ? tp->machines->n : 1;
}

int
tp_machines_write(struct tp *tp)
{
	struct tp_machines *m = tp->machines;
	sqlite3_stmt *st;
	size_t i;

	if (m == NULL)
		return 0;
	if (sqlite3_prepare_v2(tp->db, "INSERT OR REPLACE INTO"
	    " __machine(id, raw_id, num_cpus) VALUES(?, ?, ?)", -1, &st,
	    NULL) !=
	    SQLITE_OK)
		return tp_seterr(tp, "%s: %s", __func__,
		    sqlite3_errmsg(tp->db));
	for (i = 0; i < m->n; i++) {
		sqlite3_bind_int64(st, 1, (int64_t)i);
		sqlite3_bind_int64(st, 2, m->m[i].raw);
		if (m->m[i].num_cpus != TP_NULL)
			sqlite3_bind_int64(st, 3, m->m[i].num_cpus);
		(void)tp_step_done(tp, st);
	}
	sqlite3_finalize(st);
	return 0;
}

void
tp_machines_free(struct tp *tp)
{
	struct tp_machines *m = tp->machines;
	size_t i;

	if (m == NULL)
		return;
	for (i = 1; i < m->n; i++) {
		tp_hash_free(&m->m[i].tids);
		tp_hash_free(&m->m[i].pids);
	}
	tp_hash_free(&m->by_raw);
	tp_hash_free(&m->cpus);
	free(m->m);
	free(m);
	tp->machines = NULL;
}
