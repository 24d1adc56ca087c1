/*
 * Triggers: producers name events (ActivateTriggers); sessions whose
 * trigger_config lists the name react. START_TRACING starts a session
 * that was set up and waiting (it then runs for the trigger's
 * stop_delay_ms); STOP_TRACING ends a running one stop_delay_ms after the
 * first matching trigger. producer_name_regex, skip_probability and
 * max_per_24_h filter activations, as upstream. Received triggers are
 * reported in the trace by service_packets.c.
 */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#include "base/log.h"
#include "traceconfig/producer_match.h"
#include "traced.h"

typedef Perfetto__Protos__TraceConfig__TriggerConfig__Trigger Trigger;

static uint64_t
session_hash(const char *s)
{
	uint64_t	h = 14695981039346656037ull;	/* FNV-1a */

	while (*s != '\0') {
		h ^= (uint8_t)*s++;
		h *= 1099511628211ull;
	}
	return h;
}

/* Triggers of that name in the last 24 hours (old ones forgotten). */
static size_t
session_trigger_count(struct traced *svc, uint64_t now, uint64_t hash)
{
	const uint64_t	 day = 24ull * 3600 * 1000000000ull;
	size_t		 i, j, n = 0;

	for (i = j = 0; i < svc->ntrigger_hist; i++) {
		if (now - svc->trigger_hist[i].ts_ns > day)
			continue;
		svc->trigger_hist[j++] = svc->trigger_hist[i];
		if (svc->trigger_hist[i].hash == hash)
			n++;
	}
	svc->ntrigger_hist = j;
	return n;
}

static void
session_trigger_stop_cb(evutil_socket_t fd, short ev, void *arg)
{
	struct tsession	*s = arg;

	(void)fd; (void)ev;
	session_flush_and_disable(s);
}

static int
session_trigger_record(struct tsession *s, const char *name,
    const struct tproducer *p, uint64_t now)
{
	struct ttrigger	*t;

	if (s->ntriggers >= 64)
		return 0;	/* enough to report; the stop is set already */
	t = reallocarray(s->triggers, s->ntriggers + 1, sizeof(*t));
	if (t == NULL)
		return -1;
	s->triggers = t;
	t = &s->triggers[s->ntriggers];
	t->name = strdup(name);
	t->producer_name = strdup(p->name ? p->name : "");
	t->uid = p->uid;
	t->ts_ns = now;
	if (t->name == NULL || t->producer_name == NULL) {
		free(t->name);
		free(t->producer_name);
		return -1;
	}
	s->ntriggers++;
	return 0;
}

void
session_activate_triggers(struct tproducer *p, char **names, size_t n)
{
	struct traced	*svc = p->svc;
	struct tsession	*s, *next;
	const Trigger	*t;
	uint64_t	 now = session_now_ns(CLOCK_BOOTTIME), hash;
	size_t		 i, k, count;
	int		 matched, had;
	struct trigger_hist *h;

	for (i = 0; i < n; i++) {
		if (names[i] == NULL)
			continue;
		hash = session_hash(names[i]);
		count = session_trigger_count(svc, now, hash);
		matched = 0;
		TAILQ_FOREACH_SAFE(s, &svc->sessions, entry, next) {
			const Perfetto__Protos__TraceConfig__TriggerConfig *tc =
			    s->cfg->trigger_config;

			if (tc == NULL || s->state == TS_DISABLED)
				continue;
			for (k = 0, t = NULL; k < tc->n_triggers; k++)
				if (tc->triggers[k]->name != NULL &&
				    strcmp(tc->triggers[k]->name,
				    names[i]) == 0) {
					t = tc->triggers[k];
					break;
				}
			if (t == NULL)
				continue;
			if (t->producer_name_regex != NULL &&
			    *t->producer_name_regex != '\0' &&
			    !traceconfig_regex_match(t->producer_name_regex,
			    p->name ? p->name : ""))
				continue;
			if (t->has_skip_probability &&
			    (double)arc4random() / 4294967296.0 <
			    t->skip_probability)
				continue;
			if (t->max_per_24_h > 0 && count >= t->max_per_24_h)
				continue;
			matched = 1;
			had = s->ntriggers > 0;
			session_trigger_record(s, names[i], p, now);
			log_info("%s: trigger \"%s\" from producer %u for "
			    "session %" PRIu64, __func__, names[i], p->id,
			    s->id);
			if (s->trigger_mode == 1 && s->state == TS_CONFIGURED) {
				s->duration_ms = t->stop_delay_ms;
				session_timer_stop(s->ev_trigger_timeout);
				session_start(s);
			} else if (s->trigger_mode == 2 && !had)
				session_timer(s, &s->ev_trigger_stop,
				    t->stop_delay_ms, session_trigger_stop_cb);
		}
		if (matched && svc->ntrigger_hist < 4096) {
			h = reallocarray(svc->trigger_hist,
			    svc->ntrigger_hist + 1, sizeof(*h));
			if (h != NULL) {
				svc->trigger_hist = h;
				h[svc->ntrigger_hist].ts_ns = now;
				h[svc->ntrigger_hist++].hash = hash;
			}
		}
	}
}

/* A session with triggers shows nothing until one has fired. */
int
session_waiting_for_trigger(const struct tsession *s)
{
	return !s->cloned && s->cfg->trigger_config != NULL &&
	    s->cfg->trigger_config->n_triggers > 0 && s->ntriggers == 0;
}
