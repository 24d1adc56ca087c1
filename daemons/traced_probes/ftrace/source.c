/*
 * linux.ftrace data source (see source.h).
 */
#include <sys/stat.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#include "controller.h"
#include "format.h"
#include "ksyms.h"
#include "base/log.h"
#include "source.h"
#include "stats.h"
#include "syscall_table.h"
#include "tfs.h"

#define DRAIN_PERIOD_DEFAULT_MS	100
#define DRAIN_PERIOD_MIN_MS	1
#define MAX_CPUS		1024

struct ftrace_root {
	struct ftrace_host	*host;
	struct ftrace_ctl	*ctl;
	int			 ncpus;
	int			*fds;		/* trace_pipe_raw, O_NONBLOCK */
	uint8_t			*page;
	struct ftrace_source	**srcs;
	size_t			 nsrcs;
	struct event		*timer;
	uint32_t		 period_ms;
	struct event		**wakes;	/* per CPU, buffer_percent */
	struct ftrace_root	*next;
};

struct ftrace_host {
	struct event_base		*base;
	char				 top[TFS_PATH_MAX];
	char				 state_dir[TFS_PATH_MAX];
	struct ftrace_page_layout	 layout;
	struct ftrace_root		*roots;
};

struct strv {
	char	**v;
	size_t	  n;
};

struct ftrace_source {
	struct ftrace_root		*root;
	int				 handle;
	struct ftrace_translator	*xl;
	struct ftrace_bundle		*bundles;
	struct ftrace_cpu_counters	*ctrs;
	struct ftrace_sink		 sink;
	int				 symbolize;	/* symbolize_ksyms */
	const struct ksyms		*ksyms;		/* a ksyms_get ref */
	uint32_t			 drain_ms;
	uint32_t			 drain_percent;
	int				 preserve;
	uint32_t			 buffer_kb;
	struct strv			 events;
	struct strv			 kprobes;	/* "G/NAME" */
	int				*kprobe_types;
	struct ftrace_dyn_event		*dyn;
	size_t				 ndyn;
	long				*syscalls;	/* syscall_events */
	size_t				 nsyscalls;
	struct strv			 unknown;
	struct strv			 failed;
	int				 errors[8];
	size_t				 nerrors;
	struct ftrace_start_timing	 timing;
};

static uint64_t
boottime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int
strv_add(struct strv *sv, const char *s)
{
	char **nv;

	for (size_t i = 0; i < sv->n; i++)
		if (strcmp(sv->v[i], s) == 0)
			return 0;
	if ((nv = reallocarray(sv->v, sv->n + 1, sizeof(*nv))) == NULL)
		return -1;
	sv->v = nv;
	if ((nv[sv->n] = strdup(s)) == NULL)
		return -1;
	sv->n++;
	return 0;
}

static void
strv_free(struct strv *sv)
{
	for (size_t i = 0; i < sv->n; i++)
		free(sv->v[i]);
	free(sv->v);
	sv->v = NULL;
	sv->n = 0;
}

/* ---- host ---- */

struct ftrace_host *
ftrace_host_new(struct event_base *base, const char *tracefs,
    const char *state_dir, const char **cause)
{
	struct ftrace_host *h;
	char *text;
	size_t len;

	if ((h = calloc(1, sizeof(*h))) == NULL) {
		*cause = "out of memory";
		return NULL;
	}
	h->base = base;
	snprintf(h->state_dir, sizeof(h->state_dir), "%s", state_dir);
	if (tracefs != NULL)
		snprintf(h->top, sizeof(h->top), "%s", tracefs);
	else if (tfs_find(h->top, sizeof(h->top), 1, cause) == -1)
		goto fail;
	if (ftrace_ctl_cleanup(state_dir, cause) == -1)
		goto fail;
	if (tfs_read(h->top, "events/header_page", &text, &len) == -1) {
		*cause = "cannot read events/header_page";
		goto fail;
	}
	if (ftrace_page_layout_parse_untrusted(text, len, &h->layout,
	    cause) == -1) {
		free(text);
		goto fail;
	}
	free(text);
	return h;
fail:
	free(h);
	return NULL;
}

void
ftrace_host_free(struct ftrace_host *h)
{
	if (h == NULL)
		return;
	/* Sources belong to their sessions; they must be gone by now. */
	if (h->roots != NULL)
		log_warnx("%s: sources still active", __func__);
	free(h);
}

const char *
ftrace_host_tracefs(const struct ftrace_host *h)
{
	return h->top;
}

/* ---- roots: one controller and one set of readers per tracefs root ---- */

static void	root_timer_cb(int, short, void *);

static struct ftrace_root *
root_get(struct ftrace_host *h, const char *instance, char *err, size_t errsz)
{
	struct ftrace_root *r;
	const char *cause = NULL, *inst;

	for (r = h->roots; r != NULL; r = r->next) {
		inst = ftrace_ctl_instance(r->ctl);
		if ((inst == NULL && instance == NULL) ||
		    (inst != NULL && instance != NULL &&
		    strcmp(inst, instance) == 0))
			return r;
	}
	if ((r = calloc(1, sizeof(*r))) == NULL) {
		snprintf(err, errsz, "out of memory");
		return NULL;
	}
	r->host = h;
	if ((r->ctl = ftrace_ctl_new(h->top, instance, h->state_dir,
	    &cause)) == NULL) {
		snprintf(err, errsz, "%s", cause);
		free(r);
		return NULL;
	}
	r->next = h->roots;
	h->roots = r;
	return r;
}

static void
root_close_readers(struct ftrace_root *r)
{
	for (int i = 0; i < r->ncpus && r->wakes != NULL; i++)
		if (r->wakes[i] != NULL)
			event_free(r->wakes[i]);
	free(r->wakes);
	r->wakes = NULL;
	for (int i = 0; i < r->ncpus && r->fds != NULL; i++)
		if (r->fds[i] != -1)
			close(r->fds[i]);
	free(r->fds);
	r->fds = NULL;
	free(r->page);
	r->page = NULL;
}

static int
root_open_readers(struct ftrace_root *r, char *err, size_t errsz)
{
	const char *root = ftrace_ctl_root(r->ctl);
	int n = 0;

	r->ncpus = tfs_ncpus(root);
	if (r->ncpus <= 0 || r->ncpus > MAX_CPUS) {
		snprintf(err, errsz, "no per_cpu directories in %s", root);
		return -1;
	}
	r->fds = calloc((size_t)r->ncpus, sizeof(int));
	r->page = malloc(r->host->layout.page_size);
	if (r->fds == NULL || r->page == NULL) {
		snprintf(err, errsz, "out of memory");
		root_close_readers(r);
		return -1;
	}
	for (int cpu = 0; cpu < r->ncpus; cpu++) {
		r->fds[cpu] = tfs_open_raw(root, cpu);
		if (r->fds[cpu] != -1)
			n++;	/* offline CPUs have no buffer to read */
	}
	if (n == 0) {
		snprintf(err, errsz, "cannot open trace_pipe_raw: %s",
		    strerror(errno));
		root_close_readers(r);
		return -1;
	}
	return 0;
}

static void
root_put(struct ftrace_root *r)
{
	struct ftrace_root **pp;

	if (r->nsrcs > 0)
		return;
	if (r->timer != NULL)
		event_free(r->timer);
	root_close_readers(r);
	ftrace_ctl_free(r->ctl);
	for (pp = &r->host->roots; *pp != NULL; pp = &(*pp)->next)
		if (*pp == r) {
			*pp = r->next;
			break;
		}
	free(r->srcs);
	free(r);
}

static void
root_schedule(struct ftrace_root *r)
{
	struct timeval tv;
	uint32_t ms = 0;

	if (r->host->base == NULL || r->nsrcs == 0)
		return;
	for (size_t i = 0; i < r->nsrcs; i++)
		if (ms == 0 || r->srcs[i]->drain_ms < ms)
			ms = r->srcs[i]->drain_ms;
	r->period_ms = ms;
	if (r->timer == NULL && (r->timer = evtimer_new(r->host->base,
	    root_timer_cb, r)) == NULL) {
		log_warnx("%s: evtimer_new failed", __func__);
		return;
	}
	tv.tv_sec = ms / 1000;
	tv.tv_usec = (ms % 1000) * 1000;
	evtimer_add(r->timer, &tv);
}

static void
src_note_error(struct ftrace_source *s, int status)
{
	for (size_t i = 0; i < s->nerrors; i++)
		if (s->errors[i] == status)
			return;
	if (s->nerrors < sizeof(s->errors) / sizeof(s->errors[0]))
		s->errors[s->nerrors++] = status;
}

/*
 * Reads every CPU until the kernel has nothing more (or a bound, so a busy
 * system cannot keep us here forever) and feeds each page to every source.
 */
static int
root_drain(struct ftrace_root *r)
{
	const size_t psz = r->host->layout.page_size;
	size_t maxpages;
	ssize_t n;
	int total = 0, rc;

	/*
	 * One buffer's worth per CPU and drain: a writer faster than that
	 * would keep us here forever; what it overwrites is counted.
	 */
	maxpages = (size_t)(ftrace_ctl_buffer_kb(r->ctl) ?
	    ftrace_ctl_buffer_kb(r->ctl) : FTRACE_DEFAULT_BUFFER_KB) * 1024 /
	    psz + 4;
	for (int cpu = 0; cpu < r->ncpus; cpu++) {
		if (r->fds[cpu] == -1)
			continue;
		for (size_t i = 0; i < maxpages; i++) {
			n = read(r->fds[cpu], r->page, psz);
			if (n == -1 && errno == EINTR)
				continue;
			if (n <= 0) {
				if (n == -1 && errno != EAGAIN)
					log_warn("%s: cpu%d", __func__, cpu);
				break;
			}
			total++;
			for (size_t k = 0; k < r->nsrcs; k++) {
				rc = ftrace_bundle_add_page_untrusted(
				    &r->srcs[k]->bundles[cpu], r->page,
				    (size_t)n);
				if (rc != 0)
					src_note_error(r->srcs[k], rc);
			}
		}
		/* A sink has one packet open at a time: close this CPU's
		 * bundle before the next CPU opens one. */
		for (size_t k = 0; k < r->nsrcs; k++)
			ftrace_bundle_finish(&r->srcs[k]->bundles[cpu]);
	}
	/* Symbol indexes are per drain (see translate.h). */
	for (size_t k = 0; k < r->nsrcs; k++)
		ftrace_translator_drain_end(r->srcs[k]->xl);
	if (total > 0)
		log_debug("%s: %d pages for %zu sources", __func__, total,
		    r->nsrcs);
	return total;
}

static void
root_timer_cb(int fd, short what, void *arg)
{
	struct ftrace_root *r = arg;

	root_drain(r);
	root_schedule(r);
}

/* A CPU buffer reached buffer_percent: drain now, not at the timer. */
static void
root_wake_cb(int fd, short what, void *arg)
{
	root_drain(arg);
}

/*
 * With drain_buffer_percent, poll the per-CPU readers too: the kernel
 * wakes them when a buffer is that full (never at 0%: that would spin).
 */
static void
root_watch(struct ftrace_root *r)
{
	if (r->host->base == NULL || r->wakes != NULL || r->fds == NULL)
		return;
	if ((r->wakes = calloc((size_t)r->ncpus, sizeof(*r->wakes))) == NULL)
		return;
	for (int cpu = 0; cpu < r->ncpus; cpu++) {
		if (r->fds[cpu] == -1)
			continue;
		r->wakes[cpu] = event_new(r->host->base, r->fds[cpu],
		    EV_READ | EV_PERSIST, root_wake_cb, r);
		if (r->wakes[cpu] != NULL)
			event_add(r->wakes[cpu], NULL);
	}
}

/* ---- event names ---- */

static int
is_event_dir(const char *root, const char *group, const char *name)
{
	char rel[TFS_PATH_MAX];

	snprintf(rel, sizeof(rel), "events/%s/%s/format", group, name);
	return tfs_exists(root, rel);
}

/*
 * Lists events/<group> into out: every subdirectory of a group is an
 * event (one without a format fails later, and is reported then). With
 * group NULL, each group that has an event named only (one batch of
 * existence checks, not one round trip per group).
 */
static void
expand_events(const char *root, const char *group, const char *only,
    struct strv *out)
{
	char rel[TFS_PATH_MAX], ev[2 * 256 + 2], **names, (*rels)[TFS_PATH_MAX];
	struct tfs_io *io;
	size_t n, k = 0;

	if (group != NULL) {
		snprintf(rel, sizeof(rel), "events/%s", group);
		if (tfs_list(root, rel, &names, &n) == -1)
			return;
		for (size_t i = 0; i < n; i++) {
			if (strlen(names[i]) >= FTRACE_NAME_MAX)
				continue;
			snprintf(ev, sizeof(ev), "%s/%s", group, names[i]);
			(void)strv_add(out, ev);
		}
		tfs_list_free(names, n);
		return;
	}
	if (tfs_list(root, "events", &names, &n) == -1)
		return;
	io = calloc(n + 1, sizeof(*io));
	rels = calloc(n + 1, sizeof(*rels));
	if (io == NULL || rels == NULL)
		goto out;
	for (size_t i = 0; i < n; i++) {
		if (strlen(names[i]) >= FTRACE_NAME_MAX)
			continue;
		snprintf(rels[k], sizeof(rels[k]), "events/%s/%s/format",
		    names[i], only);
		io[k].kind = TFS_IO_EXISTS;
		io[k].rel = rels[k];
		k++;
	}
	(void)tfs_batch(root, io, k);
	for (size_t i = 0; i < k; i++) {
		if (io[i].rc == -1)
			continue;
		/* "events/G/ONLY/format" -> "G/ONLY" */
		snprintf(ev, sizeof(ev), "%.*s", (int)(strlen(io[i].rel) -
		    strlen("events/") - strlen("/format")),
		    io[i].rel + strlen("events/"));
		(void)strv_add(out, ev);
	}
out:
	free(io);
	free(rels);
	tfs_list_free(names, n);
}

static void
resolve_events(struct ftrace_source *s, const char *root,
    const Perfetto__Protos__FtraceConfig *cfg)
{
	char g[FTRACE_NAME_MAX], *slash;
	const char *e;
	size_t before;

	for (size_t i = 0; i < cfg->n_ftrace_events; i++) {
		e = cfg->ftrace_events[i];
		before = s->events.n;
		slash = strchr(e, '/');
		if (slash == NULL) {
			expand_events(root, NULL, e, &s->events);
		} else if ((size_t)(slash - e) < sizeof(g)) {
			memcpy(g, e, (size_t)(slash - e));
			g[slash - e] = '\0';
			if (strcmp(slash + 1, "*") == 0)
				expand_events(root, g, NULL, &s->events);
			else if (strchr(slash + 1, '/') == NULL &&
			    strstr(e, "..") == NULL &&
			    is_event_dir(root, g, slash + 1))
				(void)strv_add(&s->events, e);
		}
		if (s->events.n == before)
			(void)strv_add(&s->unknown, e);
	}
	/* syscall_events rides on the raw syscall tracepoints, filtered by
	 * id (known names only: unknown ones are reported). */
	for (size_t i = 0; i < cfg->n_syscall_events; i++) {
		long nr = syscall_number(cfg->syscall_events[i]);
		long *ns;

		if (nr < 0) {
			(void)strv_add(&s->unknown, cfg->syscall_events[i]);
			continue;
		}
		if ((ns = reallocarray(s->syscalls, s->nsyscalls + 1,
		    sizeof(*ns))) == NULL)
			continue;
		s->syscalls = ns;
		s->syscalls[s->nsyscalls++] = nr;
	}
	if (s->nsyscalls > 0) {
		(void)strv_add(&s->events, "raw_syscalls/sys_enter");
		(void)strv_add(&s->events, "raw_syscalls/sys_exit");
	}
	/* The function_graph tracer writes these two (no enable file). */
	if (cfg->has_enable_function_graph && cfg->enable_function_graph) {
		(void)strv_add(&s->events, "ftrace/funcgraph_entry");
		(void)strv_add(&s->events, "ftrace/funcgraph_exit");
	}
}

static int
kprobe_type(const struct ftrace_source *s, const char *ev)
{
	for (size_t i = 0; i < s->kprobes.n; i++)
		if (strcmp(s->kprobes.v[i], ev) == 0)
			return s->kprobe_types[i];
	return 0;
}

/*
 * kprobe_events: perfetto_kprobes/SYM for entries, perfetto_kretprobes/SYM
 * for returns; instants, or begin/end pairs for KPROBE_TYPE_BOTH.
 */
static int
resolve_kprobes(struct ftrace_source *s,
    const Perfetto__Protos__FtraceConfig *cfg)
{
	char name[256], def[600];
	size_t n = 0;

	if (cfg->n_kprobe_events == 0)
		return 0;
	s->dyn = calloc(2 * cfg->n_kprobe_events, sizeof(*s->dyn));
	s->kprobe_types = calloc(2 * cfg->n_kprobe_events, sizeof(int));
	if (s->dyn == NULL || s->kprobe_types == NULL)
		return -1;
	for (size_t i = 0; i < cfg->n_kprobe_events; i++) {
		const Perfetto__Protos__FtraceConfig__KprobeEvent *k =
		    cfg->kprobe_events[i];
		int entry = 0, ret = 0, both;

		if (k->probe == NULL || *k->probe == '\0' ||
		    strlen(k->probe) > 128)
			continue;
		switch (k->type) {
		case PERFETTO__PROTOS__FTRACE_CONFIG__KPROBE_EVENT__KPROBE_TYPE__KPROBE_TYPE_KPROBE:
			entry = 1;
			break;
		case PERFETTO__PROTOS__FTRACE_CONFIG__KPROBE_EVENT__KPROBE_TYPE__KPROBE_TYPE_KRETPROBE:
			ret = 1;
			break;
		case PERFETTO__PROTOS__FTRACE_CONFIG__KPROBE_EVENT__KPROBE_TYPE__KPROBE_TYPE_BOTH:
			entry = ret = 1;
			break;
		default:
			(void)strv_add(&s->unknown, k->probe);
			continue;
		}
		both = entry && ret;
		for (int r = 0; r < 2; r++) {
			if (!(r ? ret : entry))
				continue;
			snprintf(name, sizeof(name), "%s/%s", r ?
			    "perfetto_kretprobes" : "perfetto_kprobes",
			    k->probe);
			snprintf(def, sizeof(def), "%c:%s %s\n", r ? 'r' : 'p',
			    name, k->probe);
			if (kprobe_type(s, name) != 0)
				continue;	/* listed twice */
			if (strv_add(&s->kprobes, name) == -1 ||
			    strv_add(&s->events, name) == -1 ||
			    (s->dyn[n].def = strdup(def)) == NULL)
				return -1;
			s->dyn[n].file = "kprobe_events";
			s->dyn[n].name = s->kprobes.v[s->kprobes.n - 1];
			s->kprobe_types[s->kprobes.n - 1] = both ?
			    (r ? KPROBE_END : KPROBE_BEGIN) : KPROBE_INSTANT;
			n++;
		}
	}
	s->ndyn = n;
	return 0;
}

/*
 * Reads every event's format (one batch of reads) and plans its
 * translation; an event without a usable format moves to failed.
 */
static void
plan_events(struct ftrace_source *s, const char *root)
{
	struct ftrace_format fmt;
	char (*rels)[TFS_PATH_MAX], g[FTRACE_NAME_MAX];
	struct tfs_io *io;
	const char *cause;
	size_t n = s->events.n, i, k;
	int *ok;

	io = calloc(n + 1, sizeof(*io));
	rels = calloc(n + 1, sizeof(*rels));
	ok = calloc(n + 1, sizeof(*ok));
	if (io == NULL || rels == NULL || ok == NULL)
		goto out;
	for (i = 0; i < n; i++) {
		snprintf(rels[i], sizeof(rels[i]), "events/%s/format",
		    s->events.v[i]);
		io[i].kind = TFS_IO_READ;
		io[i].rel = rels[i];
	}
	(void)tfs_batch(root, io, n);
	for (i = 0; i < n; i++) {
		const char *ev = s->events.v[i];
		const char *slash = strchr(ev, '/');
		int kt;

		if (io[i].rc == -1)
			continue;
		snprintf(g, sizeof(g), "%.*s", (int)(slash - ev), ev);
		if (ftrace_format_parse_untrusted(io[i].data, io[i].len, g,
		    &fmt, &cause) == -1)
			continue;
		kt = kprobe_type(s, ev);
		ok[i] = (kt ? ftrace_translator_add_kprobe(s->xl, &fmt, kt,
		    &cause) : ftrace_translator_add(s->xl, &fmt, &cause)) == 0;
		ftrace_format_free(&fmt);
	}
out:
	/* From the end, so that moving the last event down keeps the
	 * indexes of those not looked at yet. */
	for (k = n; k-- > 0;) {
		if (ok != NULL && ok[k])
			continue;
		(void)strv_add(&s->failed, s->events.v[k]);
		free(s->events.v[k]);
		s->events.v[k] = s->events.v[--s->events.n];
	}
	for (i = 0; io != NULL && i < n; i++)
		free(io[i].data);
	free(io);
	free(rels);
	free(ok);
}

/* FtraceConfig.print_filter as the translator's rules (strings borrowed). */
static int
print_rules(const Perfetto__Protos__FtraceConfig *cfg,
    struct ftrace_print_rule **out, size_t *n)
{
	const Perfetto__Protos__FtraceConfig__PrintFilter *pf =
	    cfg->print_filter;
	struct ftrace_print_rule *r;
	size_t k = 0;

	*out = NULL;
	*n = 0;
	if (pf == NULL || pf->n_rules == 0)
		return 0;
	if ((r = calloc(pf->n_rules, sizeof(*r))) == NULL)
		return -1;
	for (size_t i = 0; i < pf->n_rules; i++) {
		const Perfetto__Protos__FtraceConfig__PrintFilter__Rule *pr =
		    pf->rules[i];

		r[k].allow = pr->has_allow && pr->allow;
		if (pr->match_case ==
		    PERFETTO__PROTOS__FTRACE_CONFIG__PRINT_FILTER__RULE__MATCH_PREFIX) {
			r[k].prefix = pr->prefix;
			k++;
		} else if (pr->match_case ==
		    PERFETTO__PROTOS__FTRACE_CONFIG__PRINT_FILTER__RULE__MATCH_ATRACE_MSG &&
		    pr->atrace_msg != NULL) {
			r[k].atrace_type = pr->atrace_msg->type ?
			    pr->atrace_msg->type : "";
			r[k].prefix = pr->atrace_msg->prefix;
			k++;
		}
		/* A rule matching nothing we know is skipped, as unknown. */
	}
	*out = r;
	*n = k;
	return 0;
}

static int
clock_enum(const char *clock)
{
	if (strcmp(clock, "boot") == 0)
		return 0;
	if (strcmp(clock, "global") == 0)
		return 2;
	if (strcmp(clock, "local") == 0)
		return 3;
	if (strcmp(clock, "mono_raw") == 0)
		return 4;
	return 1;
}

static void
write_stats(struct ftrace_source *s, int phase)
{
	struct ftrace_root *r = s->root;
	struct ftrace_cpu_stat *cs;
	struct ftrace_stats_msg m;
	struct pbw *w;

	if ((cs = calloc((size_t)r->ncpus, sizeof(*cs))) == NULL)
		return;
	for (int cpu = 0; cpu < r->ncpus; cpu++)
		(void)ftrace_cpu_stat_read(ftrace_ctl_root(r->ctl), cpu,
		    &cs[cpu]);
	memset(&m, 0, sizeof(m));
	m.phase = phase;
	m.cpus = cs;
	m.ncpus = r->ncpus;
	m.unknown_events = (const char *const *)s->unknown.v;
	m.nunknown = s->unknown.n;
	m.failed_events = (const char *const *)s->failed.v;
	m.nfailed = s->failed.n;
	m.parse_errors = s->errors;
	m.nparse_errors = s->nerrors;
	m.preserve = s->preserve;
	m.buffer_pages = s->buffer_kb * 1024 / r->host->layout.page_size;
	m.ksyms = s->symbolize;
	m.ksyms_parsed = ksyms_count(s->ksyms);
	m.ksyms_mem_kb = (uint32_t)((ksyms_mem_bytes(s->ksyms) + 1023) / 1024);
	w = s->sink.packet_begin(s->sink.arg);
	ftrace_stats_write(w, &m);
	s->sink.packet_end(s->sink.arg);
	free(cs);
}

static void
source_release(struct ftrace_source *s)
{
	struct ftrace_root *r = s->root;

	if (s->bundles != NULL)
		for (int cpu = 0; cpu < r->ncpus; cpu++)
			ftrace_bundle_free(&s->bundles[cpu]);
	free(s->bundles);
	free(s->ctrs);
	ftrace_translator_free(s->xl);
	if (s->ksyms != NULL)
		ksyms_put();
	strv_free(&s->events);
	for (size_t i = 0; i < s->ndyn; i++)
		free((char *)s->dyn[i].def);
	free(s->dyn);
	strv_free(&s->kprobes);
	free(s->kprobe_types);
	strv_free(&s->unknown);
	strv_free(&s->failed);
	free(s->syscalls);
	free(s);
}

struct ftrace_source *
ftrace_source_new(struct ftrace_host *h,
    const Perfetto__Protos__FtraceConfig *cfg, struct ftrace_sink sink,
    char *err, size_t errsz)
{
	struct ftrace_xlate_opts opts;
	struct ftrace_ctl_req req;
	struct ftrace_source *s, **ns;
	struct ftrace_root *r;
	struct ftrace_print_rule *rules = NULL;
	int32_t *tids = NULL;
	int *enabled = NULL, first;
	const char *instance;
	uint64_t begin_ns = boottime_ns(), calls0 = tfs_calls();

	instance = cfg->instance_name && *cfg->instance_name ?
	    cfg->instance_name : NULL;
	if ((r = root_get(h, instance, err, errsz)) == NULL)
		return NULL;
	first = r->nsrcs == 0;
	if ((s = calloc(1, sizeof(*s))) == NULL) {
		snprintf(err, errsz, "out of memory");
		goto fail_root;
	}
	s->root = r;
	s->sink = sink;
	s->timing.begin_ns = begin_ns;
	s->preserve = cfg->has_preserve_ftrace_buffer &&
	    cfg->preserve_ftrace_buffer;
	s->drain_ms = cfg->has_drain_period_ms && cfg->drain_period_ms ?
	    cfg->drain_period_ms : DRAIN_PERIOD_DEFAULT_MS;
	if (s->drain_ms < DRAIN_PERIOD_MIN_MS)
		s->drain_ms = DRAIN_PERIOD_MIN_MS;
	if (cfg->has_drain_buffer_percent && cfg->drain_buffer_percent > 0 &&
	    cfg->drain_buffer_percent <= 100)
		s->drain_percent = cfg->drain_buffer_percent;
	s->buffer_kb = cfg->has_buffer_size_kb && cfg->buffer_size_kb ?
	    cfg->buffer_size_kb : FTRACE_DEFAULT_BUFFER_KB;
	if (s->buffer_kb > FTRACE_MAX_BUFFER_KB)
		s->buffer_kb = FTRACE_MAX_BUFFER_KB;

	memset(&opts, 0, sizeof(opts));
	opts.compact_sched = cfg->compact_sched != NULL &&
	    cfg->compact_sched->has_enabled && cfg->compact_sched->enabled;
	opts.disable_generic = cfg->has_disable_generic_events &&
	    cfg->disable_generic_events;
	if (print_rules(cfg, &rules, &opts.nprint_rules) == -1) {
		snprintf(err, errsz, "out of memory");
		goto fail_src;
	}
	opts.print_rules = rules;
	s->symbolize = cfg->has_symbolize_ksyms && cfg->symbolize_ksyms;

	/* Which events exist; the controller then turns them on. */
	resolve_events(s, ftrace_ctl_root(r->ctl), cfg);
	if (instance != NULL && s->events.n == 0 &&
	    ftrace_ctl_nrequests(r->ctl) == 0) {
		/* A new instance has its events dir only once it exists:
		 * resolve against the top level instead. */
		resolve_events(s, h->top, cfg);
	}
	if (resolve_kprobes(s, cfg) == -1) {
		snprintf(err, errsz, "out of memory");
		goto fail_src;
	}
	memset(&req, 0, sizeof(req));
	req.dyn = s->dyn;
	req.ndyn = s->ndyn;
	req.syscalls = s->syscalls;
	req.nsyscalls = s->nsyscalls;
	req.events = (const char *const *)s->events.v;
	req.nevents = s->events.n;
	req.buffer_kb = s->buffer_kb;
	req.buffer_percent = s->drain_percent;
	req.clock = cfg->has_use_monotonic_raw_clock &&
	    cfg->use_monotonic_raw_clock ? "mono_raw" : "boot";
	req.preserve = s->preserve;
	req.function_graph = cfg->has_enable_function_graph &&
	    cfg->enable_function_graph;
	req.function_filters = (const char *const *)cfg->function_filters;
	req.nfunction_filters = cfg->n_function_filters;
	req.graph_roots = (const char *const *)cfg->function_graph_roots;
	req.ngraph_roots = cfg->n_function_graph_roots;
	req.graph_max_depth = cfg->has_function_graph_max_depth ?
	    cfg->function_graph_max_depth : 0;
	req.cpumask = cfg->tracing_cpumask && *cfg->tracing_cpumask ?
	    cfg->tracing_cpumask : NULL;
	if (cfg->n_tids_to_trace > 0) {
		if ((tids = calloc(cfg->n_tids_to_trace, sizeof(*tids))) ==
		    NULL) {
			snprintf(err, errsz, "out of memory");
			goto fail_src;
		}
		for (size_t i = 0; i < cfg->n_tids_to_trace; i++)
			tids[i] = (int32_t)cfg->tids_to_trace[i];
		req.tids = tids;
		req.ntids = cfg->n_tids_to_trace;
	}
	if ((enabled = calloc(s->events.n + 1, sizeof(int))) == NULL) {
		snprintf(err, errsz, "out of memory");
		goto fail_src;
	}
	if ((s->handle = ftrace_ctl_add(r->ctl, &req, enabled, err,
	    errsz)) == -1)
		goto fail_src;
	s->timing.on_ns = boottime_ns();
	s->timing.calls_on = tfs_calls() - calls0;
	for (size_t i = s->events.n; i-- > 0;) {
		if (enabled[i])
			continue;
		(void)strv_add(&s->failed, s->events.v[i]);
		free(s->events.v[i]);
		s->events.v[i] = s->events.v[--s->events.n];
	}
	opts.clock = clock_enum(ftrace_ctl_clock(r->ctl));
	/* Loaded by the first session that wants names, shared after. */
	if (s->symbolize)
		s->ksyms = ksyms_get();
	opts.ksyms = s->ksyms;
	if ((s->xl = ftrace_translator_new(&opts)) == NULL) {
		snprintf(err, errsz, "out of memory");
		goto fail_ctl;
	}
	plan_events(s, ftrace_ctl_root(r->ctl));
	if (first && root_open_readers(r, err, errsz) == -1)
		goto fail_ctl;
	s->bundles = calloc((size_t)r->ncpus, sizeof(*s->bundles));
	s->ctrs = calloc((size_t)r->ncpus, sizeof(*s->ctrs));
	if (s->bundles == NULL || s->ctrs == NULL)
		goto nomem_ctl;
	for (int cpu = 0; cpu < r->ncpus; cpu++)
		if (ftrace_bundle_init(&s->bundles[cpu], s->xl,
		    &h->layout, (uint32_t)cpu, sink, &s->ctrs[cpu]) == -1)
			goto nomem_ctl;
	ns = reallocarray(r->srcs, r->nsrcs + 1, sizeof(*ns));
	if (ns == NULL)
		goto nomem_ctl;
	r->srcs = ns;
	/* What is already buffered belongs to the sessions before us. */
	if (!first)
		root_drain(r);
	r->srcs[r->nsrcs++] = s;
	free(tids);
	free(enabled);
	free(rules);
	write_stats(s, FTRACE_PHASE_START);
	s->timing.ready_ns = boottime_ns();
	s->timing.calls_ready = tfs_calls() - calls0;
	log_debug("%s: %zu events: tracing on after %.1f ms (%llu tracefs "
	    "accesses), ready after %.1f ms (%llu)", __func__, s->events.n,
	    (s->timing.on_ns - begin_ns) / 1e6,
	    (unsigned long long)s->timing.calls_on,
	    (s->timing.ready_ns - begin_ns) / 1e6,
	    (unsigned long long)s->timing.calls_ready);
	root_schedule(r);
	if (s->drain_percent > 0)
		root_watch(r);
	return s;
nomem_ctl:
	snprintf(err, errsz, "out of memory");
fail_ctl:
	ftrace_ctl_remove(r->ctl, s->handle);
	if (first)
		root_close_readers(r);
fail_src:
	free(tids);
	free(enabled);
	free(rules);
	source_release(s);
fail_root:
	root_put(r);
	return NULL;
}

int
ftrace_source_drain(struct ftrace_source *s)
{
	return root_drain(s->root);
}

void
ftrace_source_free(struct ftrace_source *s)
{
	struct ftrace_root *r;

	if (s == NULL)
		return;
	r = s->root;
	root_drain(r);
	write_stats(s, FTRACE_PHASE_END);
	for (size_t i = 0; i < r->nsrcs; i++)
		if (r->srcs[i] == s) {
			r->srcs[i] = r->srcs[--r->nsrcs];
			break;
		}
	/* An instance cannot be removed while its buffers are open. */
	if (r->nsrcs == 0)
		root_close_readers(r);
	ftrace_ctl_remove(r->ctl, s->handle);
	source_release(s);
	if (r->nsrcs == 0)
		root_put(r);
	else
		root_schedule(r);
}

void
ftrace_source_timing(const struct ftrace_source *s,
    struct ftrace_start_timing *t)
{
	*t = s->timing;
}

void
ftrace_source_counters(const struct ftrace_source *s,
    struct ftrace_cpu_counters *sum)
{
	memset(sum, 0, sizeof(*sum));
	for (int cpu = 0; cpu < s->root->ncpus; cpu++) {
		const struct ftrace_cpu_counters *c = &s->ctrs[cpu];

		sum->pages += c->pages;
		sum->bytes_read += c->bytes_read;
		sum->events += c->events;
		sum->unknown_ids += c->unknown_ids;
		sum->dropped += c->dropped;
		sum->filtered += c->filtered;
		sum->lost_pages += c->lost_pages;
		sum->lost_events += c->lost_events;
		sum->bad_pages += c->bad_pages;
		sum->packets += c->packets;
		if (c->last_status)
			sum->last_status = c->last_status;
	}
}

size_t
ftrace_source_unknown(const struct ftrace_source *s,
    const char *const **events)
{
	*events = (const char *const *)s->unknown.v;
	return s->unknown.n;
}

size_t
ftrace_source_failed(const struct ftrace_source *s,
    const char *const **events)
{
	*events = (const char *const *)s->failed.v;
	return s->failed.n;
}
