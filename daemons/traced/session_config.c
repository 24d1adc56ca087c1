/*
 * What a TraceConfig may ask for (which producers a data source selects is
 * traceconfig/producer_match.c). Checks follow upstream's order and limits
 * so that a config refused by upstream traced is refused here with the same
 * reason; a consumer is trusted, but a bad config must still get a clear
 * error rather than a half-built session.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "traced.h"

typedef Perfetto__Protos__TraceConfig			TraceConfig;
typedef Perfetto__Protos__TraceConfig__DataSource	TraceConfigDS;

#define TRIGGER_MODE(c)							\
	((c)->trigger_config != NULL && (c)->trigger_config->has_trigger_mode ?\
	(int)(c)->trigger_config->trigger_mode : 0)

int
session_config_trigger_mode(const TraceConfig *cfg)
{
	return TRIGGER_MODE(cfg);
}

static int
str_empty(const char *s)
{
	return s == NULL || *s == '\0';
}

/*
 * Index in cfg->buffers of the buffer a data source writes into:
 * target_buffer_name wins when set, and must agree with a non-zero
 * target_buffer. -1 and *cause when out of range or inconsistent.
 */
int
session_config_target_buffer(const TraceConfig *cfg, const TraceConfigDS *ds,
    uint32_t *idx, const char **cause)
{
	const Perfetto__Protos__DataSourceConfig	*dsc = ds->config;
	uint32_t					 target = 0;
	size_t						 i;

	if (dsc != NULL && dsc->has_target_buffer)
		target = dsc->target_buffer;
	if (dsc != NULL && !str_empty(dsc->target_buffer_name)) {
		for (i = 0; i < cfg->n_buffers; i++)
			if (cfg->buffers[i]->name != NULL &&
			    strcmp(cfg->buffers[i]->name,
			    dsc->target_buffer_name) == 0)
				break;
		if (i == cfg->n_buffers) {
			*cause = "a data source's target_buffer_name matches "
			    "no buffer";
			return -1;
		}
		if (target > 0 && target != i) {
			*cause = "a data source's target_buffer and "
			    "target_buffer_name disagree";
			return -1;
		}
		target = (uint32_t)i;
	}
	if (target >= cfg->n_buffers) {
		*cause = "a data source has an out of bounds target_buffer";
		return -1;
	}
	*idx = target;
	return 0;
}

/* A running exclusive session refuses anything of lower or equal prio. */
static int
session_config_exclusive(struct traced *svc, const TraceConfig *cfg,
    const char **cause)
{
	struct tsession	*s;
	uint32_t	 cur = 0, want;

	want = cfg->has_exclusive_prio ? cfg->exclusive_prio : 0;
	TAILQ_FOREACH(s, &svc->sessions, entry)
		if (s->cfg->has_exclusive_prio && s->cfg->exclusive_prio > cur)
			cur = s->cfg->exclusive_prio;
	if (cur > 0 && cur >= want) {
		*cause = "an exclusive session with a higher or equal "
		    "priority is active";
		return -1;
	}
	return 0;
}

/*
 * session_semaphores: a session naming a semaphore tolerates at most
 * max_other_session_count other live sessions naming it (the smallest
 * limit among all of them wins), as upstream.
 */
static int
session_config_semaphores(struct traced *svc, const TraceConfig *cfg,
    const char **cause)
{
	const Perfetto__Protos__TraceConfig__SessionSemaphore *sem, *o;
	struct tsession	*s;
	uint64_t	 count, limit;
	size_t		 i, j;

	for (i = 0; i < cfg->n_session_semaphores; i++) {
		sem = cfg->session_semaphores[i];
		if (sem->name == NULL)
			continue;
		count = 0;
		limit = sem->max_other_session_count;
		TAILQ_FOREACH(s, &svc->sessions, entry) {
			if (s->cloned || s->state == TS_DISABLED)
				continue;
			for (j = 0; j < s->cfg->n_session_semaphores; j++) {
				o = s->cfg->session_semaphores[j];
				if (o->name == NULL ||
				    strcmp(o->name, sem->name) != 0)
					continue;
				count++;
				if (o->max_other_session_count < limit)
					limit = o->max_other_session_count;
			}
		}
		if (count > limit) {
			*cause = "a session semaphore exceeds its maximum "
			    "other session count";
			return -1;
		}
	}
	return 0;
}

/*
 * Checks a config before anything is allocated. The caller applies
 * lockdown_mode first (upstream does, even for a config refused here).
 */
int
session_config_check(struct traced *svc, uid_t uid, const TraceConfig *cfg,
    int have_fd, const char **cause)
{
	const Perfetto__Protos__TraceConfig__TriggerConfig *tc =
	    cfg->trigger_config;
	struct tsession	*s;
	uint32_t	 max_ms, idx;
	uint64_t	 sum_kb = 0;
	size_t		 i, j, per_uid = 0;
	int		 mode = TRIGGER_MODE(cfg), guard;

	guard = cfg->has_enable_extra_guardrails &&
	    cfg->enable_extra_guardrails;
	max_ms = guard ? TRACED_GUARDRAIL_DURATION_MS :
	    TRACED_MAX_DURATION_MS;
	if (cfg->has_duration_ms && cfg->duration_ms > max_ms) {
		*cause = "requested too long a trace (duration_ms)";
		return -1;
	}
	if (mode != 0) {
		if (tc->trigger_timeout_ms == 0 ||
		    tc->trigger_timeout_ms > max_ms) {
			*cause = "traces with triggers must set a positive "
			    "trigger_timeout_ms below 7 days";
			return -1;
		}
		if (mode != 1 && mode != 2 && mode != 4) {
			*cause = "the trace config has an invalid trigger_mode";
			return -1;
		}
		if (mode == 4) {
			*cause = "CLONE_SNAPSHOT triggers are not supported";
			return -1;
		}
		if (cfg->has_duration_ms && cfg->duration_ms != 0) {
			*cause = "duration_ms must not be set for traces with "
			    "triggers";
			return -1;
		}
		if (mode == 2 && cfg->has_write_into_file &&
		    cfg->write_into_file) {
			*cause = "trigger mode STOP_TRACING and write_into_file "
			    "together are unsupported";
			return -1;
		}
		for (i = 0; i < tc->n_triggers; i++)
			for (j = 0; j < i; j++)
				if (tc->triggers[i]->name != NULL &&
				    tc->triggers[j]->name != NULL &&
				    strcmp(tc->triggers[i]->name,
				    tc->triggers[j]->name) == 0) {
					*cause = "duplicate trigger name";
					return -1;
				}
	}
	if (guard) {
		if (cfg->has_deferred_start && cfg->deferred_start) {
			*cause = "deferred_start is not supported with "
			    "enable_extra_guardrails";
			return -1;
		}
		for (i = 0; i < cfg->n_buffers; i++) {
			if (cfg->buffers[i]->size_kb % 4 != 0) {
				*cause = "buffers.size_kb must be a multiple "
				    "of 4";
				return -1;
			}
			sum_kb += cfg->buffers[i]->size_kb;
		}
		max_ms = TRACED_GUARDRAIL_BUFFER_KB;
		if (cfg->guardrail_overrides != NULL &&
		    cfg->guardrail_overrides->max_tracing_buffer_size_kb >
		    max_ms)
			max_ms = cfg->guardrail_overrides->
			    max_tracing_buffer_size_kb;
		if (sum_kb > max_ms) {
			*cause = "requested too large trace buffers";
			return -1;
		}
	}
	if (cfg->bugreport_filename != NULL) {
		for (const char *c = cfg->bugreport_filename; *c != '\0'; c++)
			if (!((*c >= 'a' && *c <= 'z') ||
			    (*c >= 'A' && *c <= 'Z') ||
			    (*c >= '0' && *c <= '9') ||
			    *c == '-' || *c == '_' || *c == '.')) {
				*cause = "bugreport_filename contains invalid "
				    "characters, use [a-zA-Z0-9-_.]+";
				return -1;
			}
	}
	if (session_config_exclusive(svc, cfg, cause) == -1 ||
	    session_config_semaphores(svc, cfg, cause) == -1)
		return -1;
	if (cfg->n_buffers > TRACED_MAX_BUFFERS_PER_SESSION) {
		*cause = "too many buffers configured";
		return -1;
	}
	for (i = 0; i < cfg->n_buffers; i++) {
		uint64_t kb = cfg->buffers[i]->size_kb;

		if (kb == 0 || kb * 1024 > UINT32_MAX) {
			*cause = "failed to allocate tracing buffers: invalid "
			    "buffer sizes";
			return -1;
		}
		if (str_empty(cfg->buffers[i]->name))
			continue;
		for (j = 0; j < i; j++)
			if (cfg->buffers[j]->name != NULL &&
			    strcmp(cfg->buffers[i]->name,
			    cfg->buffers[j]->name) == 0) {
				*cause = "duplicate buffer name";
				return -1;
			}
	}
	for (i = 0; i < cfg->n_data_sources; i++) {
		if (cfg->data_sources[i]->config == NULL ||
		    str_empty(cfg->data_sources[i]->config->name))
			continue;	/* matches nothing, as upstream */
		if (session_config_target_buffer(cfg, cfg->data_sources[i],
		    &idx, cause) == -1)
			return -1;
	}
	if (cfg->has_write_into_file && cfg->write_into_file) {
		if (!str_empty(cfg->output_path)) {
			*cause = "output_path is not supported: traced never "
			    "opens files by path, pass a file descriptor";
			return -1;
		}
		if (!have_fd) {
			*cause = "write_into_file needs a file descriptor "
			    "passed with EnableTracing";
			return -1;
		}
	}
	if (!str_empty(cfg->unique_session_name)) {
		TAILQ_FOREACH(s, &svc->sessions, entry)
			if (!str_empty(s->cfg->unique_session_name) &&
			    strcmp(s->cfg->unique_session_name,
			    cfg->unique_session_name) == 0) {
				*cause = "a trace with this unique session "
				    "name already exists";
				return -1;
			}
	}
	TAILQ_FOREACH(s, &svc->sessions, entry)
		if (s->uid == uid)
			per_uid++;
	if (per_uid >= TRACED_MAX_SESSIONS_PER_UID) {
		*cause = "too many concurrent tracing sessions for this uid";
		return -1;
	}
	if (svc->nsessions >= TRACED_MAX_SESSIONS) {
		*cause = "too many concurrent tracing sessions";
		return -1;
	}
	return 0;
}

/*
 * SMB geometry for a producer: the config's producers[] entry for it
 * first, then the producer's hints; anything invalid falls back to the
 * defaults (256 KiB, 4 KiB pages), as upstream does.
 */
void
session_config_smb_sizes(const TraceConfig *cfg, const struct tproducer *p,
    size_t *size, size_t *page)
{
	size_t	sz = 0, pg = 0, npages;

	for (size_t i = 0; cfg != NULL && i < cfg->n_producers; i++) {
		const Perfetto__Protos__TraceConfig__ProducerConfig *pc =
		    cfg->producers[i];

		if (pc->producer_name != NULL && p->name != NULL &&
		    strcmp(pc->producer_name, p->name) == 0) {
			sz = (size_t)pc->shm_size_kb * 1024;
			pg = (size_t)pc->page_size_kb * 1024;
			break;
		}
	}
	if (pg == 0)
		pg = p->smb_page_hint;
	if (sz == 0)
		sz = p->smb_size_hint;
	if (pg == 0)
		pg = TRACED_SMB_PAGE_DEFAULT;
	if (sz == 0)
		sz = TRACED_SMB_SIZE_DEFAULT;
	if (pg > TRACED_SMB_PAGE_MAX)
		pg = TRACED_SMB_PAGE_MAX;
	if (sz > TRACED_SMB_SIZE_MAX)
		sz = TRACED_SMB_SIZE_MAX;
	npages = pg / 4096;
	if (pg < 4096 || pg % 4096 != 0 || (npages & (npages - 1)) != 0 ||
	    sz < pg || sz % pg != 0) {
		sz = TRACED_SMB_SIZE_DEFAULT;
		pg = TRACED_SMB_PAGE_DEFAULT;
	}
	*size = sz;
	*page = pg;
}
