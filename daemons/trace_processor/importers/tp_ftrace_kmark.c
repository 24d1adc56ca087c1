/*
 * Drivers' own tracing_mark_write events (mdss, sde, samsung, dpu, g2d,
 * mali, lwis): atrace points written from the kernel, with the phase
 * (B, E, C, I), the process and the name as fields instead of text.
 * They mean what the same "B|tgid|name" text in a print event means, so
 * they are read as that text.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "tp_int.h"

#define EV_MDSS		80
#define EV_SDE		333
#define EV_DPU		348
#define EV_G2D		349
#define EV_MALI		350
#define EV_LWIS		467
#define EV_SAMSUNG	484

#define NAME_MAX_LEN	512

/* Where each event keeps its fields (0: it has none such). */
static const struct kmark {
	uint32_t	 evid;
	unsigned	 tgid, name, type, begin, value;
} kmarks[] = {
	{ EV_MDSS, 1, 2, 0, 3, 0 },
	{ EV_SDE, 1, 2, 3, 5, 4 },
	{ EV_DPU, 1, 4, 5, 0, 6 },
	{ EV_G2D, 1, 4, 5, 0, 6 },
	{ EV_MALI, 2, 1, 3, 0, 4 },
	{ EV_LWIS, 3, 4, 2, 0, 5 },
	{ EV_SAMSUNG, 1, 2, 4, 0, 5 },
};

static int
has(const struct tp_ftrace_ev *e, unsigned field)
{
	return field != 0 && (e->has & (1u << field)) != 0;
}

int
tp_ftrace_kmark_event(struct tp *tp, int64_t ts, uint32_t cpu, int64_t pid,
    uint32_t evid, const struct tp_ftrace_ev *e)
{
	const struct kmark *k = NULL;
	char text[NAME_MAX_LEN + 64], phase;
	uint32_t tgid;
	size_t i;
	int n;

	(void)cpu;
	for (i = 0; i < sizeof(kmarks) / sizeof(kmarks[0]); i++)
		if (kmarks[i].evid == evid)
			k = &kmarks[i];
	if (k == NULL)
		return 0;
	/* What upstream needs each to carry to say its phase. */
	if ((evid == EV_MDSS && !has(e, k->begin)) ||
	    ((evid == EV_SDE) && !has(e, k->type) && !has(e, k->begin)) ||
	    (evid == EV_SAMSUNG && !has(e, k->type)) ||
	    ((evid == EV_DPU || evid == EV_G2D || evid == EV_MALI ||
	    evid == EV_LWIS) && e->v[k->type] == 0)) {
		tp_stat_inc(tp, ST_SYSTRACE_PARSE_FAILURE, 1);
		return 1;
	}
	phase = k->type != 0 ? (char)e->v[k->type] : 0;
	if (phase == 0)
		phase = k->begin != 0 && e->v[k->begin] != 0 ? 'B' : 'E';
	if (phase != 'B' && phase != 'E' && phase != 'C' && phase != 'I') {
		tp_stat_inc(tp, ST_SYSTRACE_PARSE_FAILURE, 1);
		return 1;
	}
	tgid = (uint32_t)e->v[k->tgid];
	/* dpu drivers claim other processes' threads but for counters:
	 * upstream trusts their tgid only there. */
	if (evid == EV_DPU && phase != 'C')
		tgid = 0;
	n = (int)(e->slen[k->name] < NAME_MAX_LEN ? e->slen[k->name] :
	    NAME_MAX_LEN);
	if (phase == 'C')
		snprintf(text, sizeof(text), "C|%" PRIu32 "|%.*s|%" PRId64,
		    tgid, n, e->s[k->name] ? e->s[k->name] : "",
		    k->value ? e->v[k->value] : 0);
	else if (phase == 'E')
		snprintf(text, sizeof(text), "E|%" PRIu32, tgid);
	else
		snprintf(text, sizeof(text), "%c|%" PRIu32 "|%.*s", phase,
		    tgid, n, e->s[k->name] ? e->s[k->name] : "");
	tp_ftrace_print(tp, ts, pid, text, strlen(text));
	return 1;
}
