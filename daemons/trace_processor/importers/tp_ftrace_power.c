/*
 * Suspend and wakeup ftrace events: suspend_resume phases as slices on
 * the "Suspend/Resume Latency" tracks, and a slice per held wakeup source
 * ("Wakelock(name)"), as upstream draws them.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tp_int.h"

#define EV_SUSPEND_RESUME		113
#define EV_WAKEUP_SOURCE_ACTIVATE	404
#define EV_WAKEUP_SOURCE_DEACTIVATE	405

#define NAME_MAX_LEN	256

/* Where the kernel is in a suspend, to close a suspend_enter that a
 * failed suspend_prepare never ends (upstream's workaround). */
enum { SUSPEND_INITIAL, SUSPEND_ENTER, SUSPEND_FREEZE };

struct tp_fpower {
	struct tp_hash	 wakelocks;	/* name hash -> active count */
	int		 suspend_state;
	uint64_t	 suspend_enter_cookie;
};

static struct tp_fpower *
power_get(struct tp *tp)
{
	if (tp->fpower == NULL && (tp->fpower = calloc(1,
	    sizeof(*tp->fpower))) != NULL)
		tp_hash_init(&tp->fpower->wakelocks);
	return tp->fpower;
}

static void
str_copy(char *dst, size_t cap, const char *s, size_t len)
{
	snprintf(dst, cap, "%.*s", (int)(len < cap ? len : cap - 1),
	    s != NULL ? s : "");
}

static void
suspend_end(struct tp *tp, int64_t ts, uint64_t cookie)
{
	int64_t track = tp_track_pool_end(tp, "suspend_resume",
	    "Suspend/Resume Latency", cookie);

	(void)tp_slice_end(tp, track, ts, NULL, TP_NULL, NULL);
}

static void
suspend_resume(struct tp *tp, int64_t ts, uint32_t cpu, int64_t tid,
    const struct tp_ftrace_ev *e)
{
	struct tp_fpower *p = power_get(tp);
	char action[NAME_MAX_LEN], name[NAME_MAX_LEN + 16];
	int32_t val = (int32_t)e->v[2];
	uint64_t cookie;
	int64_t track, set;

	if (p == NULL)
		return;
	str_copy(action, sizeof(action), e->s[1], e->slen[1]);
	/* Its value is the cpu that froze, which varies: not a phase. */
	if (strcmp(action, "timekeeping_freeze") == 0)
		val = 0;
	snprintf(name, sizeof(name), "%s(%" PRId32 ")", action, val);
	cookie = tp_hash_bytes(0, name, strlen(name));
	if (e->v[3] == 0) {
		suspend_end(tp, ts, cookie);
		if (strcmp(action, "suspend_enter") == 0)
			p->suspend_state = SUSPEND_INITIAL;
		else if (strcmp(action, "thaw_processes") == 0 &&
		    p->suspend_state == SUSPEND_FREEZE) {
			/* Thawing inside a freeze inside suspend_enter: the
			 * suspend failed and suspend_enter never ends. */
			suspend_end(tp, ts, p->suspend_enter_cookie);
			p->suspend_state = SUSPEND_INITIAL;
		}
		return;
	}
	if (strcmp(action, "suspend_enter") == 0) {
		p->suspend_state = SUSPEND_ENTER;
		p->suspend_enter_cookie = cookie;
	} else if (strcmp(action, "freeze_processes") == 0 &&
	    p->suspend_state == SUSPEND_ENTER)
		p->suspend_state = SUSPEND_FREEZE;
	track = tp_track_pool_begin(tp, "suspend_resume",
	    "Suspend/Resume Latency", cookie);
	if (track < 0)
		return;
	set = tp_arg_set_new(tp);
	tp_arg_int(tp, set, "utid", "utid", tp_thread_get(tp, tid), "uint");
	tp_arg_str(tp, set, "event_type", "event_type",
	    "Main Kernel Suspend Event", 25, NULL);
	tp_arg_int(tp, set, "cpu", "cpu", cpu, "uint");
	/* Device callbacks fill these; a main kernel phase has none. */
	tp_arg_str_null(tp, set, "device_name");
	tp_arg_str_null(tp, set, "driver_name");
	tp_arg_str_null(tp, set, "callback_phase");
	(void)tp_slice_begin(tp, track, ts, NULL, name, set, TP_NULL);
}

/* A wakeup source activated again while active is one slice; it ends at
 * the deactivation that balances the first activation. */
static void
wakelock(struct tp *tp, int64_t ts, int activate,
    const struct tp_ftrace_ev *e)
{
	struct tp_fpower *p = power_get(tp);
	char ev[NAME_MAX_LEN], name[NAME_MAX_LEN + 16];
	const char *dims[2] = { "wakelock_event", ev };
	uint64_t h, *cnt, n;
	int64_t track;

	if (p == NULL)
		return;
	str_copy(ev, sizeof(ev), e->s[1], e->slen[1]);
	h = tp_hash_bytes(0, ev, strlen(ev));
	cnt = tp_hash_get(&p->wakelocks, h);
	n = cnt != NULL ? *cnt : 0;
	if (activate) {
		if (tp_hash_put(&p->wakelocks, h, n + 1) == -1 || n > 0)
			return;
	} else {
		(void)tp_hash_put(&p->wakelocks, h, n > 0 ? n - 1 : 0);
		if (n != 1)
			return;
	}
	snprintf(name, sizeof(name), "Wakelock(%s)", ev);
	track = tp_track_intern_dims(tp, TT_TRACK, name, TP_NULL, dims, 1);
	tp_track_kind(tp, track, "wakesource_wakelock");
	if (activate)
		(void)tp_slice_begin(tp, track, ts, NULL, name, TP_NULL,
		    TP_NULL);
	else
		(void)tp_slice_end(tp, track, ts, NULL, TP_NULL, NULL);
}

int
tp_ftrace_power_event(struct tp *tp, int64_t ts, uint32_t cpu, int64_t pid,
    uint32_t evid, const struct tp_ftrace_ev *e)
{
	switch (evid) {
	case EV_SUSPEND_RESUME:
		suspend_resume(tp, ts, cpu, pid, e);
		return 1;
	case EV_WAKEUP_SOURCE_ACTIVATE:
	case EV_WAKEUP_SOURCE_DEACTIVATE:
		wakelock(tp, ts, evid == EV_WAKEUP_SOURCE_ACTIVATE, e);
		return 1;
	}
	return 0;
}

void
tp_ftrace_power_free(struct tp *tp)
{
	if (tp->fpower == NULL)
		return;
	tp_hash_free(&tp->fpower->wakelocks);
	free(tp->fpower);
	tp->fpower = NULL;
}
