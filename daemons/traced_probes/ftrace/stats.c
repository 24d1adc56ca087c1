/*
 * FtraceStats (see stats.h).
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "event_table.h"
#include "stats.h"
#include "tfs.h"

void
ftrace_cpu_stat_parse(const char *text, struct ftrace_cpu_stat *st)
{
	static const struct {
		const char	*key;
		size_t		 off;
	} keys[] = {
		{ "entries:", offsetof(struct ftrace_cpu_stat, entries) },
		{ "overrun:", offsetof(struct ftrace_cpu_stat, overrun) },
		{ "commit overrun:",
		    offsetof(struct ftrace_cpu_stat, commit_overrun) },
		{ "bytes:", offsetof(struct ftrace_cpu_stat, bytes) },
		{ "dropped events:",
		    offsetof(struct ftrace_cpu_stat, dropped_events) },
		{ "read events:", offsetof(struct ftrace_cpu_stat, read_events) },
	};
	const char *p = text, *nl;
	size_t i, klen;

	memset(st, 0, sizeof(*st));
	while (p != NULL && *p != '\0') {
		nl = strchr(p, '\n');
		for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
			klen = strlen(keys[i].key);
			if (strncmp(p, keys[i].key, klen) == 0) {
				*(uint64_t *)(void *)((char *)st +
				    keys[i].off) = strtoull(p + klen, NULL, 10);
				break;
			}
		}
		if (strncmp(p, "oldest event ts:", 16) == 0)
			st->oldest_event_ts = strtod(p + 16, NULL);
		else if (strncmp(p, "now ts:", 7) == 0)
			st->now_ts = strtod(p + 7, NULL);
		p = nl ? nl + 1 : NULL;
	}
}

int
ftrace_cpu_stat_read(const char *root, int cpu, struct ftrace_cpu_stat *st)
{
	char rel[64], *text;

	snprintf(rel, sizeof(rel), "per_cpu/cpu%d/stats", cpu);
	if (tfs_read(root, rel, &text, NULL) == -1)
		return -1;
	ftrace_cpu_stat_parse(text, st);
	free(text);
	return 0;
}

void
ftrace_stats_write(struct pbw *w, const struct ftrace_stats_msg *m)
{
	const struct ftrace_cpu_stat *c;
	size_t i;

	pbw_nested_begin(w, TRACE_PACKET_FTRACE_STATS);
	pbw_varint(w, 1, (uint64_t)m->phase);
	for (int cpu = 0; cpu < m->ncpus; cpu++) {
		c = &m->cpus[cpu];
		pbw_nested_begin(w, 2);
		pbw_varint(w, 1, (uint64_t)cpu);
		pbw_varint(w, 2, c->entries);
		pbw_varint(w, 3, c->overrun);
		pbw_varint(w, 4, c->commit_overrun);
		pbw_varint(w, 5, c->bytes);
		pbw_double(w, 6, c->oldest_event_ts);
		pbw_double(w, 7, c->now_ts);
		pbw_varint(w, 8, c->dropped_events);
		pbw_varint(w, 9, c->read_events);
		pbw_nested_end(w);
	}
	/* Zero symbols is worth seeing too: kptr_restrict, no kallsyms. */
	if (m->ksyms) {
		pbw_varint(w, 3, m->ksyms_parsed);
		pbw_varint(w, 4, m->ksyms_mem_kb);
	}
	for (i = 0; i < m->nunknown; i++)
		pbw_string(w, 6, m->unknown_events[i]);
	for (i = 0; i < m->nfailed; i++)
		pbw_string(w, 7, m->failed_events[i]);
	if (m->preserve)
		pbw_varint(w, 8, 1);
	for (i = 0; i < m->nparse_errors; i++)
		pbw_varint(w, 9, (uint64_t)m->parse_errors[i]);
	if (m->buffer_pages)
		pbw_varint(w, 11, m->buffer_pages);
	pbw_nested_end(w);
}
