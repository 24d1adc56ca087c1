/*
 * ftrace controller (see controller.h).
 */
#include <sys/stat.h>

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "controller.h"
#include "base/log.h"

#define STATE_PREFIX	"ftrace-state."
#define STATE_MAGIC	"faro-ftrace-state 1"
#define VALUE_MAX	4096

/* A tracefs file we changed, and what it held before. */
struct saved {
	char	*rel;
	char	*orig;		/* value to write back, or line to append */
	int	 append;	/* an undo line (dynamic events) */
};

/* An event some request wants, and how many do. */
struct evref {
	char	*name;		/* group/name */
	int	 refs;
};

struct request {
	int		 handle;
	uint32_t	 buffer_kb;
	char		**events;
	size_t		 nevents;
	long		*syscalls;	/* NULL: no syscall filter wanted */
	size_t		 nsyscalls;
	int		 raw_syscalls;	/* enables raw_syscalls events */
};

struct ftrace_ctl;
static void	syscall_filter_apply(struct ftrace_ctl *);

struct ftrace_ctl {
	char		 top[TFS_PATH_MAX];
	char		 root[TFS_PATH_MAX];
	char		 instance[64];
	int		 created;	/* we made the instance */
	char		 state_path[TFS_PATH_MAX];
	char		 clock[32];
	struct saved	*saved;
	size_t		 nsaved;
	struct evref	*evs;
	size_t		 nevs;
	struct request	*reqs;
	size_t		 nreqs;
	int		 next_handle;
	uint32_t	 buffer_kb;	/* applied */
	uint32_t	 buffer_percent; /* applied, 0: untouched */
	int		 fg_handle;	/* request that turned function graph on */
	int		 fg_on;		/* the tracer is function_graph */
};

/* What a function graph request will write, checked before any write. */
struct fg_plan {
	char	want_filter[VALUE_MAX];	/* set_ftrace_filter */
	char	want_roots[VALUE_MAX];	/* set_graph_function */
	char	orig_filter[VALUE_MAX];
	char	orig_roots[VALUE_MAX];
	char	depth[16];		/* "" : leave max_graph_depth */
};

static int
name_ok(const char *s, size_t max)
{
	size_t n = strlen(s);

	if (n == 0 || n >= max || strcmp(s, ".") == 0 || strcmp(s, "..") == 0)
		return 0;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_' && *s != '-' &&
		    *s != '.')
			return 0;
	return 1;
}

/* "group/name" with safe characters only: it becomes a path. */
static int
event_name_ok(const char *ev)
{
	char g[128];
	const char *slash = strchr(ev, '/');

	if (slash == NULL || (size_t)(slash - ev) >= sizeof(g))
		return 0;
	memcpy(g, ev, (size_t)(slash - ev));
	g[slash - ev] = '\0';
	return name_ok(g, 64) && name_ok(slash + 1, 64);
}

/* What a file's current value reads as, in a form we can write back. */
static void
normalize(const char *rel, char *v)
{
	char *p, *q;
	size_t n;

	if (strcmp(rel, "trace_clock") == 0 && (p = strchr(v, '[')) != NULL &&
	    (q = strchr(p, ']')) != NULL) {
		*q = '\0';
		memmove(v, p + 1, strlen(p + 1) + 1);
		return;
	}
	if (strcmp(rel, "buffer_size_kb") == 0 && (p = strchr(v, ' ')) != NULL)
		*p = '\0';
	/* An empty event filter reads "none" and is cleared with "0". */
	if ((n = strlen(rel)) >= 7 && strcmp(rel + n - 7, "/filter") == 0 &&
	    strncmp(v, "none", 4) == 0) {
		strcpy(v, "0");
		return;
	}
	/* enable files may read "0*" or "1*" (soft mode). */
	if ((n = strlen(rel)) >= 7 && strcmp(rel + n - 7, "/enable") == 0)
		v[v[0] ? 1 : 0] = '\0';
	n = strlen(v);
	while (n > 0 && isspace((unsigned char)v[n - 1]))
		v[--n] = '\0';
}

static int
state_write(struct ftrace_ctl *ctl)
{
	char tmp[TFS_PATH_MAX + 8];
	FILE *f;
	int ok;

	snprintf(tmp, sizeof(tmp), "%s.tmp", ctl->state_path);
	if ((f = fopen(tmp, "we")) == NULL)
		return -1;
	fprintf(f, "%s\nroot %s\n", STATE_MAGIC, ctl->root);
	if (ctl->created)
		fprintf(f, "created %s\n", ctl->root);
	for (size_t i = 0; i < ctl->nsaved; i++)
		fprintf(f, "%s %s %s\n", ctl->saved[i].append ? "undo" : "set",
		    ctl->saved[i].rel, ctl->saved[i].orig);
	ok = fflush(f) == 0 && fsync(fileno(f)) == 0;
	ok = (fclose(f) == 0) && ok;
	if (!ok || rename(tmp, ctl->state_path) == -1) {
		unlink(tmp);
		return -1;
	}
	return 0;
}

static const char *
saved_orig(struct ftrace_ctl *ctl, const char *rel)
{
	for (size_t i = 0; i < ctl->nsaved; i++)
		if (!ctl->saved[i].append && strcmp(ctl->saved[i].rel, rel) == 0)
			return ctl->saved[i].orig;
	return NULL;
}

/* Remembers rel's original value (or an undo line), in memory only. */
static int
saved_add(struct ftrace_ctl *ctl, const char *rel, const char *orig,
    int append)
{
	struct saved *ns;
	size_t i = ctl->nsaved;

	ns = reallocarray(ctl->saved, ctl->nsaved + 1, sizeof(*ns));
	if (ns == NULL)
		return -1;
	ctl->saved = ns;
	ns[i].rel = strdup(rel);
	ns[i].orig = strdup(orig);
	ns[i].append = append;
	if (ns[i].rel == NULL || ns[i].orig == NULL) {
		free(ns[i].rel);
		free(ns[i].orig);
		return -1;
	}
	ctl->nsaved++;
	return 0;
}

/*
 * Writes io[i].val to each io[i].rel, saving each file's original value
 * first (once per file): the files not saved yet are read in one batch,
 * their values go to the state file in one write, then every value is
 * written in one batch. io[i].rc and err say how each went (rc 0 with
 * err EALREADY: the file held the value already, and was not written);
 * a file whose original could not be read or recorded is not written. Values
 * are single lines; the state file stores them as the rest of a line.
 */
static void
ctl_set_many(struct ftrace_ctl *ctl, struct tfs_io *io, size_t n)
{
	struct tfs_io *rd;
	size_t *of, nrd = 0, nw = 0, i, k;
	char orig[VALUE_MAX], *nl;
	int added = 0;

	rd = calloc(n + 1, sizeof(*rd));
	of = calloc(n + 1, sizeof(*of));
	if (rd == NULL || of == NULL) {
		for (i = 0; i < n; i++) {
			io[i].rc = -1;
			io[i].err = ENOMEM;
		}
		goto out;
	}
	for (i = 0; i < n; i++) {
		io[i].rc = 0;
		io[i].err = 0;
		if (saved_orig(ctl, io[i].rel) != NULL)
			continue;
		for (k = 0; k < nrd; k++)
			if (strcmp(rd[k].rel, io[i].rel) == 0)
				break;
		if (k < nrd)
			continue;	/* the same file twice */
		rd[nrd].kind = TFS_IO_READ;
		rd[nrd].rel = io[i].rel;
		of[nrd++] = i;
	}
	if (nrd > 0 && tfs_batch(ctl->root, rd, nrd) == -1)
		log_warn("%s: tracefs broker", __func__);
	for (k = 0; k < nrd; k++) {
		if (rd[k].rc == -1) {
			io[of[k]].rc = -1;
			io[of[k]].err = rd[k].err;
			continue;
		}
		if ((nl = strchr(rd[k].data, '\n')) != NULL)
			*nl = '\0';
		snprintf(orig, sizeof(orig), "%s", rd[k].data);
		normalize(rd[k].rel, orig);
		if (saved_add(ctl, rd[k].rel, orig, 0) == -1) {
			io[of[k]].rc = -1;
			io[of[k]].err = ENOMEM;
			continue;
		}
		added++;
		/* Some writes cost the kernel a grace period or more (the
		 * clock, the buffer size): none when the value is there. */
		if (strcmp(orig, io[of[k]].val) == 0)
			io[of[k]].err = EALREADY;
	}
	for (k = 0; k < nrd; k++) {
		free(rd[k].data);
		rd[k].data = NULL;
	}
	if (added > 0 && state_write(ctl) == -1) {
		log_warn("%s: state file %s", __func__, ctl->state_path);
		for (i = 0; i < n; i++) {
			io[i].rc = -1;
			io[i].err = EIO;
		}
		goto out;
	}
	/* Writes in their order (a file listed twice gets both). */
	for (i = 0; i < n; i++) {
		if (io[i].rc == -1 || io[i].err == EALREADY)
			continue;
		/* A duplicate of a file whose read failed is refused too. */
		if (saved_orig(ctl, io[i].rel) == NULL) {
			io[i].rc = -1;
			io[i].err = ENOENT;
			continue;
		}
		rd[nw] = io[i];
		rd[nw].kind = TFS_IO_WRITE;
		of[nw++] = i;
	}
	if (nw > 0 && tfs_batch(ctl->root, rd, nw) == -1)
		log_warn("%s: tracefs broker", __func__);
	for (k = 0; k < nw; k++) {
		io[of[k]].rc = rd[k].rc;
		io[of[k]].err = rd[k].err;
	}
out:
	free(rd);
	free(of);
}

/* One file (see ctl_set_many): 0 written, 1 it held val already (not
 * written), -1 with errno. */
static int
ctl_set(struct ftrace_ctl *ctl, const char *rel, const char *val)
{
	struct tfs_io io = { .rel = rel, .val = val };

	ctl_set_many(ctl, &io, 1);
	if (io.rc == 0)
		return io.err == EALREADY ? 1 : 0;
	errno = io.err;
	return -1;
}

/* Writes val to rel, its original value given as known (saved once). */
static int
ctl_set_known(struct ftrace_ctl *ctl, const char *rel, const char *val,
    const char *known)
{
	if (saved_orig(ctl, rel) == NULL) {
		if (saved_add(ctl, rel, known, 0) == -1)
			return -1;
		if (state_write(ctl) == -1) {
			log_warn("%s: state file %s", __func__,
			    ctl->state_path);
			return -1;
		}
	}
	return tfs_write(ctl->root, rel, val, 0);
}


/* Writes one saved value back (or appends an undo line). */
static void
restore_one(const char *root, const char *rel, const char *orig, int append)
{
	if (tfs_write(root, rel, orig, append) == -1 &&
	    !(orig[0] == '\0' && errno == EINVAL))
		log_warn("%s: %s/%s", __func__, root, rel);
}

/*
 * Appends def to rel (a dynamic event definition), recording undo first
 * so a crash cannot leave the event behind.
 */
static int
ctl_append(struct ftrace_ctl *ctl, const char *rel, const char *def,
    const char *undo)
{
	if (saved_add(ctl, rel, undo, 1) == -1)
		return -1;
	if (state_write(ctl) == -1 || tfs_write(ctl->root, rel, def, 1) == -1) {
		ctl->nsaved--;
		free(ctl->saved[ctl->nsaved].rel);
		free(ctl->saved[ctl->nsaved].orig);
		(void)state_write(ctl);
		return -1;
	}
	return 0;
}

static void
restore_all(struct ftrace_ctl *ctl)
{
	/* Stop tracing first so nothing runs with half the settings. */
	const char *on = saved_orig(ctl, "tracing_on");

	if (on != NULL && strcmp(on, "0") == 0)
		tfs_write(ctl->root, "tracing_on", "0", 0);
	for (size_t i = ctl->nsaved; i-- > 0;) {
		restore_one(ctl->root, ctl->saved[i].rel, ctl->saved[i].orig,
		    ctl->saved[i].append);
		free(ctl->saved[i].rel);
		free(ctl->saved[i].orig);
	}
	free(ctl->saved);
	ctl->saved = NULL;
	ctl->nsaved = 0;
	ctl->buffer_kb = 0;
	ctl->buffer_percent = 0;
	ctl->fg_handle = 0;
	ctl->fg_on = 0;
	ctl->clock[0] = '\0';
	if (ctl->created && tfs_rmdir(ctl->root) == -1) {
		/* Keep the record so a later cleanup removes it. */
		log_warn("%s: rmdir %s", __func__, ctl->root);
		if (state_write(ctl) == 0) {
			ctl->created = 0;
			return;
		}
	}
	ctl->created = 0;
	unlink(ctl->state_path);
}

struct ftrace_ctl *
ftrace_ctl_new(const char *top, const char *instance, const char *state_dir,
    const char **cause)
{
	struct ftrace_ctl *ctl;

	if (instance != NULL && *instance != '\0' &&
	    !name_ok(instance, sizeof(ctl->instance))) {
		*cause = "bad instance name";
		return NULL;
	}
	if ((ctl = calloc(1, sizeof(*ctl))) == NULL) {
		*cause = "out of memory";
		return NULL;
	}
	snprintf(ctl->top, sizeof(ctl->top), "%s", top);
	if (instance != NULL && *instance != '\0') {
		snprintf(ctl->instance, sizeof(ctl->instance), "%s", instance);
		snprintf(ctl->root, sizeof(ctl->root), "%s/instances/%s", top,
		    instance);
		snprintf(ctl->state_path, sizeof(ctl->state_path),
		    "%s/" STATE_PREFIX "i-%s", state_dir, instance);
	} else {
		snprintf(ctl->root, sizeof(ctl->root), "%s", top);
		snprintf(ctl->state_path, sizeof(ctl->state_path),
		    "%s/" STATE_PREFIX "top", state_dir);
	}
	ctl->next_handle = 1;
	return ctl;
}

static int
instance_open(struct ftrace_ctl *ctl)
{
	if (ctl->instance[0] == '\0' || ctl->created)
		return 0;
	if (tfs_mkdir(ctl->root) == 0) {
		ctl->created = 1;
		if (state_write(ctl) == -1) {
			tfs_rmdir(ctl->root);
			ctl->created = 0;
			return -1;
		}
		return 0;
	}
	return errno == EEXIST ? 0 : -1;
}

void
ftrace_ctl_free(struct ftrace_ctl *ctl)
{
	if (ctl == NULL)
		return;
	while (ctl->nreqs > 0)
		ftrace_ctl_remove(ctl, ctl->reqs[0].handle);
	free(ctl->evs);
	free(ctl->reqs);
	free(ctl);
}

const char *
ftrace_ctl_root(const struct ftrace_ctl *ctl)
{
	return ctl->root;
}

const char *
ftrace_ctl_instance(const struct ftrace_ctl *ctl)
{
	return ctl->instance[0] ? ctl->instance : NULL;
}

int
ftrace_ctl_nrequests(const struct ftrace_ctl *ctl)
{
	return (int)ctl->nreqs;
}

uint32_t
ftrace_ctl_buffer_kb(const struct ftrace_ctl *ctl)
{
	return ctl->buffer_kb;
}

int
ftrace_ctl_function_graph(const struct ftrace_ctl *ctl)
{
	return ctl->fg_on;
}

const char *
ftrace_ctl_clock(const struct ftrace_ctl *ctl)
{
	return ctl->clock[0] ? ctl->clock : "local";
}

static int
set_buffer(struct ftrace_ctl *ctl, uint32_t kb)
{
	char v[32];

	if (kb == ctl->buffer_kb)
		return 0;
	snprintf(v, sizeof(v), "%u", kb);
	if (ctl_set(ctl, "buffer_size_kb", v) == -1)
		return -1;
	ctl->buffer_kb = kb;
	return 0;
}

/* One more reference to an event that is on; -1 out of memory. */
static int
evref_add(struct ftrace_ctl *ctl, const char *ev)
{
	struct evref *ne;

	for (size_t i = 0; i < ctl->nevs; i++)
		if (strcmp(ctl->evs[i].name, ev) == 0) {
			ctl->evs[i].refs++;
			return 0;
		}
	if ((ne = reallocarray(ctl->evs, ctl->nevs + 1, sizeof(*ne))) == NULL)
		return -1;
	ctl->evs = ne;
	if ((ne[ctl->nevs].name = strdup(ev)) == NULL)
		return -1;
	ne[ctl->nevs].refs = 1;
	ctl->nevs++;
	return 0;
}

static int
evref_held(const struct ftrace_ctl *ctl, const char *ev)
{
	for (size_t i = 0; i < ctl->nevs; i++)
		if (strcmp(ctl->evs[i].name, ev) == 0)
			return 1;
	return 0;
}

/*
 * Turns on events for one more request; ok[i] is 1 for each that is on
 * now, 0 for one refused. However many events, that is three batches:
 * the originals of the enable files, the enables, and for an event
 * without an enable file (ftrace/print and friends: always recorded)
 * whether its format exists.
 */
static void
events_ref(struct ftrace_ctl *ctl, const char *const *evs, size_t n,
    int *ok)
{
	char (*rels)[TFS_PATH_MAX];
	struct tfs_io *io;
	size_t *of, nio = 0, nex = 0, k;

	rels = calloc(n + 1, sizeof(*rels));
	io = calloc(n + 1, sizeof(*io));
	of = calloc(n + 1, sizeof(*of));
	for (size_t i = 0; i < n; i++)
		ok[i] = 0;
	if (rels == NULL || io == NULL || of == NULL)
		goto out;
	for (size_t i = 0; i < n; i++) {
		if (evref_held(ctl, evs[i])) {
			ok[i] = 1;
			continue;
		}
		if (!event_name_ok(evs[i]))
			continue;
		snprintf(rels[nio], sizeof(rels[nio]), "events/%s/enable",
		    evs[i]);
		io[nio].rel = rels[nio];
		io[nio].val = "1";
		of[nio++] = i;
	}
	ctl_set_many(ctl, io, nio);
	for (k = 0; k < nio; k++) {
		if (io[k].rc == 0) {
			ok[of[k]] = 1;
			continue;
		}
		if (io[k].err != ENOENT)
			continue;
		snprintf(rels[k], sizeof(rels[k]), "events/%s/format",
		    evs[of[k]]);
		memset(&io[nex], 0, sizeof(io[nex]));
		io[nex].kind = TFS_IO_EXISTS;
		io[nex].rel = rels[k];
		of[nex++] = of[k];
	}
	if (nex > 0 && tfs_batch(ctl->root, io, nex) == -1)
		log_warn("%s: tracefs broker", __func__);
	for (k = 0; k < nex; k++)
		if (io[k].rc == 0)
			ok[of[k]] = 1;
	for (size_t i = 0; i < n; i++)
		if (ok[i] && evref_add(ctl, evs[i]) == -1)
			ok[i] = 0;
out:
	free(rels);
	free(io);
	free(of);
}

static void
event_unref(struct ftrace_ctl *ctl, const char *ev)
{
	char rel[TFS_PATH_MAX];
	const char *orig;

	for (size_t i = 0; i < ctl->nevs; i++) {
		if (strcmp(ctl->evs[i].name, ev) != 0)
			continue;
		if (--ctl->evs[i].refs > 0)
			return;
		snprintf(rel, sizeof(rel), "events/%s/enable", ev);
		if ((orig = saved_orig(ctl, rel)) != NULL)
			restore_one(ctl->root, rel, orig, 0);
		free(ctl->evs[i].name);
		ctl->evs[i] = ctl->evs[--ctl->nevs];
		return;
	}
}

/* Creates a kprobe (once per process); its removal is in the state file. */
static int
dyn_create(struct ftrace_ctl *ctl, const struct ftrace_dyn_event *d)
{
	char rel[TFS_PATH_MAX], undo[256];

	if (!event_name_ok(d->name))
		return -1;
	snprintf(rel, sizeof(rel), "events/%s/format", d->name);
	if (tfs_exists(ctl->root, rel))
		return 0;	/* ours from an earlier session, or someone's */
	if (!tfs_exists(ctl->root, d->file))
		return -1;
	snprintf(undo, sizeof(undo), "-:%s", d->name);
	if (ctl_append(ctl, d->file, d->def, undo) == -1) {
		log_warn("%s: %s: %s", __func__, d->file, d->def);
		return -1;
	}
	return 0;
}

/* ---- function graph ---- */

/* A function name or glob, as the kernel's filter files take them. */
static int
fg_name_ok(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n >= 256)
		return 0;
	for (; *s != '\0'; s++)
		if (!isalnum((unsigned char)*s) && strchr("_.*?", *s) == NULL)
			return 0;
	return 1;
}

/* "a b c" from a list; -1 with *bad on a name we will not write. */
static int
fg_join(const char *const *v, size_t n, char *out, size_t outsz,
    const char **bad)
{
	size_t off = 0, len;

	out[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		len = strlen(v[i]);
		if (!fg_name_ok(v[i]) || off + len + 2 > outsz) {
			*bad = v[i];
			return -1;
		}
		if (off > 0)
			out[off++] = ' ';
		memcpy(out + off, v[i], len + 1);
		off += len;
	}
	return 0;
}

/*
 * A filter file's content as one line that writes it back: "" when it
 * selects every function ("#### all functions enabled ####"). -1 when it
 * holds what a write cannot restore (filter commands, module entries,
 * more than a line holds).
 */
static int
fg_read_filter(const char *root, const char *rel, char *out, size_t outsz)
{
	char *text, *line, *tok, *save = NULL, *tsave;
	size_t len, off = 0, n;
	int rc = 0;

	out[0] = '\0';
	if (tfs_read(root, rel, &text, &len) == -1)
		return -1;
	/* One entry a line ("name", or "name [module]" which we refuse);
	 * the "####" banner lines say "everything". */
	for (line = strtok_r(text, "\n", &save); line != NULL && rc == 0;
	    line = strtok_r(NULL, "\n", &save)) {
		if (line[0] == '#')
			continue;
		for (tok = strtok_r(line, " \t", &tsave); tok != NULL;
		    tok = strtok_r(NULL, " \t", &tsave)) {
			n = strlen(tok);
			if (!fg_name_ok(tok) || off + n + 2 > outsz) {
				rc = -1;
				break;
			}
			if (off > 0)
				out[off++] = ' ';
			memcpy(out + off, tok, n + 1);
			off += n;
		}
	}
	free(text);
	return rc;
}

static int
has_word(const char *list, const char *word)
{
	size_t n = strlen(word);
	const char *p;

	for (p = list; (p = strstr(p, word)) != NULL; p += n)
		if ((p == list || isspace((unsigned char)p[-1])) &&
		    (p[n] == '\0' || isspace((unsigned char)p[n])))
			return 1;
	return 0;
}

/*
 * Everything a function graph request needs, checked before the first
 * write, so that a refusal leaves tracefs as it was.
 */
static int
fg_check(struct ftrace_ctl *ctl, const struct ftrace_ctl_req *req,
    struct fg_plan *fg, char *err, size_t errsz)
{
	char tracers[VALUE_MAX];
	const char *bad = NULL;

	if (ctl->nreqs > 0) {
		snprintf(err, errsz, "function graph needs %s to itself, and "
		    "%zu session(s) trace there (the kernel cannot switch "
		    "tracers under open readers; instance_name gives a "
		    "separate root)", ctl->root, ctl->nreqs);
		return -1;
	}
	if (tfs_read_line(ctl->root, "available_tracers", tracers,
	    sizeof(tracers)) == -1) {
		snprintf(err, errsz, "function graph: cannot read "
		    "%s/available_tracers: %s", ctl->root, strerror(errno));
		return -1;
	}
	if (!has_word(tracers, "function_graph")) {
		snprintf(err, errsz, "the kernel has no function_graph tracer "
		    "(available_tracers: %s)", tracers);
		return -1;
	}
	if (fg_join(req->function_filters, req->nfunction_filters,
	    fg->want_filter, sizeof(fg->want_filter), &bad) == -1 ||
	    fg_join(req->graph_roots, req->ngraph_roots, fg->want_roots,
	    sizeof(fg->want_roots), &bad) == -1) {
		snprintf(err, errsz, "function graph: bad function name "
		    "\"%.64s\" (names and * ? globs only)", bad);
		return -1;
	}
	if (fg_read_filter(ctl->root, "set_ftrace_filter", fg->orig_filter,
	    sizeof(fg->orig_filter)) == -1 ||
	    fg_read_filter(ctl->root, "set_graph_function", fg->orig_roots,
	    sizeof(fg->orig_roots)) == -1) {
		snprintf(err, errsz, "function graph: set_ftrace_filter or "
		    "set_graph_function in %s is missing or holds entries "
		    "that could not be put back", ctl->root);
		return -1;
	}
	fg->depth[0] = '\0';
	if (req->graph_max_depth > 0 || tfs_exists(ctl->root,
	    "max_graph_depth"))
		snprintf(fg->depth, sizeof(fg->depth), "%u",
		    req->graph_max_depth);
	return 0;
}

/* The writes, in an order where the tracer starts fully configured. */
static int
fg_apply(struct ftrace_ctl *ctl, const struct fg_plan *fg, char *err,
    size_t errsz)
{
	const char *what;

	what = "set_ftrace_filter";
	if (ctl_set_known(ctl, what, fg->want_filter, fg->orig_filter) == -1)
		goto fail;
	what = "set_graph_function";
	if (ctl_set_known(ctl, what, fg->want_roots, fg->orig_roots) == -1)
		goto fail;
	what = "max_graph_depth";
	if (fg->depth[0] != '\0' && ctl_set(ctl, what, fg->depth) == -1)
		goto fail;
	what = "current_tracer";
	if (ctl_set(ctl, what, "function_graph") == -1)
		goto fail;
	ctl->fg_on = 1;
	return 0;
fail:
	snprintf(err, errsz, "function graph: cannot write %s/%s: %s%s",
	    ctl->root, what, strerror(errno), errno == EINVAL &&
	    strcmp(what, "current_tracer") != 0 ? " (no such function?)" :
	    errno == EPERM ? " (kernel lockdown?)" : "");
	return -1;
}

/*
 * 1 when no CPU buffer of the root holds an unread event (per_cpu/cpuN/
 * stats, one batch): then there is nothing to clear, and clearing would
 * still cost a grace period (tens of ms on a busy machine). 0 when one
 * does, or when that cannot be told.
 */
static int
buffers_empty(struct ftrace_ctl *ctl)
{
	char (*rels)[32];
	struct tfs_io *io;
	const char *p;
	int n, empty = 0;

	if ((n = tfs_ncpus(ctl->root)) <= 0)
		return 0;
	rels = calloc((size_t)n, sizeof(*rels));
	io = calloc((size_t)n, sizeof(*io));
	if (rels == NULL || io == NULL)
		goto out;
	for (int i = 0; i < n; i++) {
		snprintf(rels[i], sizeof(rels[i]), "per_cpu/cpu%d/stats", i);
		io[i].kind = TFS_IO_READ;
		io[i].rel = rels[i];
	}
	if (tfs_batch(ctl->root, io, (size_t)n) == -1)
		goto out;
	empty = 1;
	for (int i = 0; i < n; i++)
		if (io[i].rc == -1 || (p = strstr(io[i].data, "entries: ")) ==
		    NULL || strtoull(p + 9, NULL, 10) != 0)
			empty = 0;
out:
	for (int i = 0; io != NULL && i < n; i++)
		free(io[i].data);
	free(io);
	free(rels);
	return empty;
}

/* First request: a known state before any event goes on. */
static int
first_setup(struct ftrace_ctl *ctl, const struct ftrace_ctl_req *req,
    char *err, size_t errsz)
{
	enum { ON, TRACER, CLOCK, CPUMASK, PIDS, NSET };
	const char *clock = req->clock ? req->clock : "boot";
	struct tfs_io io[NSET];
	char pids[4096];
	size_t off = 0, n = CLOCK + 1;
	int rc, cleared;

	if (instance_open(ctl) == -1) {
		snprintf(err, errsz, "cannot create instance %s: %s",
		    ctl->root, strerror(errno));
		return -1;
	}
	for (size_t i = 0; i < req->ntids && off + 16 < sizeof(pids); i++)
		off += (size_t)snprintf(pids + off, sizeof(pids) - off, "%s%d",
		    i ? " " : "", req->tids[i]);
	/*
	 * One batch, in this order: tracing off first; a tracer other than
	 * nop would fill the buffer with its records (a kernel without
	 * current_tracer has none); the clock; the CPUs and pids to trace.
	 */
	memset(io, 0, sizeof(io));
	io[ON].rel = "tracing_on";
	io[ON].val = "0";
	io[TRACER].rel = "current_tracer";
	io[TRACER].val = "nop";
	io[CLOCK].rel = "trace_clock";
	io[CLOCK].val = clock;
	if (req->cpumask != NULL) {
		io[n].rel = "tracing_cpumask";
		io[n++].val = req->cpumask;
	}
	if (req->ntids > 0) {
		io[n].rel = "set_event_pid";
		io[n++].val = pids;
	}
	ctl_set_many(ctl, io, n);
	if (io[ON].rc == -1) {
		snprintf(err, errsz, "cannot write %s/tracing_on: %s",
		    ctl->root, strerror(io[ON].err));
		return -1;
	}
	for (size_t i = CLOCK + 1; i < n; i++)
		if (io[i].rc == -1)
			log_warnx("%s: %s %s: %s", __func__, io[i].rel,
			    io[i].val, strerror(io[i].err));
	/*
	 * A new clock empties the buffers (the kernel will not mix
	 * timestamps of two clocks): then clearing them again would only
	 * cost another grace period.
	 */
	rc = io[CLOCK].rc == 0 ? (io[CLOCK].err == EALREADY) : -1;
	if (rc != -1)
		snprintf(ctl->clock, sizeof(ctl->clock), "%s", clock);
	else if ((rc = ctl_set(ctl, "trace_clock", "global")) != -1)
		snprintf(ctl->clock, sizeof(ctl->clock), "global");
	cleared = rc == 0;
	/* (tracing_on is 0: nothing new comes in after the check.) */
	if (!req->preserve && !cleared && !buffers_empty(ctl))
		(void)tfs_write(ctl->root, "trace", "", 0);
	return 0;
}

int
ftrace_ctl_add(struct ftrace_ctl *ctl, const struct ftrace_ctl_req *req,
    int *enabled, char *err, size_t errsz)
{
	struct request *nr, *r;
	struct fg_plan *fg = NULL;
	uint32_t kb, want;
	size_t i, nok = 0;
	int *ok = NULL;

	nr = reallocarray(ctl->reqs, ctl->nreqs + 1, sizeof(*nr));
	if (nr == NULL) {
		snprintf(err, errsz, "out of memory");
		return -1;
	}
	ctl->reqs = nr;
	if (req->function_graph) {
		if ((fg = calloc(1, sizeof(*fg))) == NULL) {
			snprintf(err, errsz, "out of memory");
			return -1;
		}
		if (fg_check(ctl, req, fg, err, errsz) == -1) {
			free(fg);
			return -1;
		}
	}
	if (ctl->nreqs == 0 && first_setup(ctl, req, err, errsz) == -1) {
		restore_all(ctl);
		free(fg);
		return -1;
	}
	r = &ctl->reqs[ctl->nreqs];
	memset(r, 0, sizeof(*r));
	r->buffer_kb = req->buffer_kb ? req->buffer_kb :
	    FTRACE_DEFAULT_BUFFER_KB;
	if (r->buffer_kb > FTRACE_MAX_BUFFER_KB)
		r->buffer_kb = FTRACE_MAX_BUFFER_KB;
	if ((r->events = calloc(req->nevents + 1, sizeof(char *))) == NULL) {
		snprintf(err, errsz, "out of memory");
		goto fail;
	}
	/* The largest buffer any request wants. */
	want = r->buffer_kb;
	for (i = 0; i < ctl->nreqs; i++)
		if (ctl->reqs[i].buffer_kb > want)
			want = ctl->reqs[i].buffer_kb;
	kb = want;
	if (set_buffer(ctl, kb) == -1)
		log_warn("%s: buffer_size_kb %u", __func__, kb);
	/* The lowest fill level anyone wants readers woken at. */
	if (req->buffer_percent > 0 && req->buffer_percent <= 100 &&
	    (ctl->buffer_percent == 0 ||
	    req->buffer_percent < ctl->buffer_percent)) {
		char v[16];

		snprintf(v, sizeof(v), "%u", req->buffer_percent);
		if (ctl_set(ctl, "buffer_percent", v) != -1)
			ctl->buffer_percent = req->buffer_percent;
		else
			log_warn("%s: buffer_percent %s", __func__, v);
	}
	/* Dynamic events (kprobes) exist before they can be enabled. */
	for (i = 0; i < req->ndyn; i++)
		(void)dyn_create(ctl, &req->dyn[i]);
	if ((ok = calloc(req->nevents + 1, sizeof(*ok))) == NULL) {
		snprintf(err, errsz, "out of memory");
		goto fail;
	}
	events_ref(ctl, req->events, req->nevents, ok);
	for (i = 0; i < req->nevents; i++) {
		if (enabled != NULL)
			enabled[i] = ok[i];
		if (ok[i] && (r->events[r->nevents] =
		    strdup(req->events[i])) != NULL) {
			r->nevents++;
			nok++;
		} else if (ok[i])
			event_unref(ctl, req->events[i]);
	}
	free(ok);
	ok = NULL;
	if (nok == 0 && req->nevents > 0) {
		snprintf(err, errsz, "no event could be enabled");
		goto fail;
	}
	if (fg != NULL && fg_apply(ctl, fg, err, errsz) == -1)
		goto fail;
	for (i = 0; i < r->nevents; i++)
		if (strncmp(r->events[i], "raw_syscalls/", 13) == 0)
			r->raw_syscalls = 1;
	if (req->nsyscalls > 0 && (r->syscalls = calloc(req->nsyscalls,
	    sizeof(long))) != NULL) {
		memcpy(r->syscalls, req->syscalls, req->nsyscalls *
		    sizeof(long));
		r->nsyscalls = req->nsyscalls;
	}
	r->handle = ctl->next_handle++;
	if (fg != NULL)
		ctl->fg_handle = r->handle;
	free(fg);
	ctl->nreqs++;
	syscall_filter_apply(ctl);
	if (tfs_write(ctl->root, "tracing_on", "1", 0) == -1)
		log_warn("%s: tracing_on", __func__);
	return r->handle;
fail:
	free(ok);
	for (i = 0; i < r->nevents; i++) {
		event_unref(ctl, r->events[i]);
		free(r->events[i]);
	}
	free(r->events);
	free(fg);
	if (ctl->nreqs == 0)
		restore_all(ctl);
	return -1;
}

void
ftrace_ctl_remove(struct ftrace_ctl *ctl, int handle)
{
	struct request *r = NULL;
	uint32_t want = 0;
	size_t i;

	for (i = 0; i < ctl->nreqs; i++)
		if (ctl->reqs[i].handle == handle)
			r = &ctl->reqs[i];
	if (r == NULL)
		return;
	/* The tracer itself stays until the last request: the others'
	 * readers are open, and the kernel keeps tracers while they are. */
	if (handle == ctl->fg_handle)
		ctl->fg_handle = 0;
	for (i = 0; i < r->nevents; i++) {
		event_unref(ctl, r->events[i]);
		free(r->events[i]);
	}
	free(r->events);
	free(r->syscalls);
	*r = ctl->reqs[--ctl->nreqs];
	if (ctl->nreqs == 0) {
		restore_all(ctl);
		return;
	}
	syscall_filter_apply(ctl);
	for (i = 0; i < ctl->nreqs; i++)
		if (ctl->reqs[i].buffer_kb > want)
			want = ctl->reqs[i].buffer_kb;
	if (set_buffer(ctl, want) == -1)
		log_warn("%s: buffer_size_kb %u", __func__, want);
}

/*
 * raw_syscalls filter for the union of what the requests want: every
 * syscall if one of them takes raw_syscalls without a list.
 */
static void
syscall_filter_apply(struct ftrace_ctl *ctl)
{
	static const char *files[] = { "events/raw_syscalls/sys_enter/filter",
	    "events/raw_syscalls/sys_exit/filter" };
	char *f = NULL, *nf;
	size_t len = 0, cap = 0, i, k;
	int all = 0, any = 0;

	for (i = 0; i < ctl->nreqs; i++) {
		if (!ctl->reqs[i].raw_syscalls)
			continue;
		if (ctl->reqs[i].syscalls == NULL)
			all = 1;
		else
			any = 1;
	}
	if (!any && saved_orig(ctl, files[0]) == NULL)
		return;		/* never filtered: nothing to do */
	if (!all && any) {
		for (i = 0; i < ctl->nreqs; i++) {
			for (k = 0; k < ctl->reqs[i].nsyscalls; k++) {
				if (cap - len < 32) {
					cap = cap ? cap * 2 : 256;
					if ((nf = realloc(f, cap)) == NULL) {
						free(f);
						return;
					}
					f = nf;
				}
				len += (size_t)snprintf(f + len, cap - len,
				    "%sid == %ld", len ? " || " : "",
				    ctl->reqs[i].syscalls[k]);
			}
		}
	}
	for (i = 0; i < 2; i++)
		if (ctl_set(ctl, files[i], f != NULL && !all ? f : "0") == -1)
			log_warn("%s: %s", __func__, files[i]);
	free(f);
}

/* Replays one state file; returns 0 or -1. */
static int
replay(const char *path)
{
	char line[VALUE_MAX + TFS_PATH_MAX], root[TFS_PATH_MAX] = "";
	char created[TFS_PATH_MAX] = "";
	char *rel, *val, *nl;
	struct saved *sv = NULL, *ns;
	size_t nsv = 0;
	FILE *f;
	int bad = 0;

	if ((f = fopen(path, "re")) == NULL)
		return -1;
	if (fgets(line, sizeof(line), f) == NULL ||
	    strncmp(line, STATE_MAGIC, strlen(STATE_MAGIC)) != 0)
		bad = 1;
	while (!bad && fgets(line, sizeof(line), f) != NULL) {
		if ((nl = strchr(line, '\n')) != NULL)
			*nl = '\0';
		if (strncmp(line, "root ", 5) == 0) {
			if (strlen(line + 5) >= sizeof(root))
				bad = 1;
			else
				memcpy(root, line + 5, strlen(line + 5) + 1);
		} else if (strncmp(line, "created ", 8) == 0) {
			if (strlen(line + 8) >= sizeof(created))
				bad = 1;
			else
				memcpy(created, line + 8, strlen(line + 8) + 1);
		}
		else if (strncmp(line, "set ", 4) == 0 ||
		    strncmp(line, "undo ", 5) == 0) {
			int append = line[0] == 'u';

			rel = line + (append ? 5 : 4);
			if ((val = strchr(rel, ' ')) == NULL) {
				bad = 1;
				break;
			}
			*val++ = '\0';
			/* Only plain relative paths: the file may be stale. */
			if (rel[0] == '/' || strstr(rel, "..") != NULL) {
				bad = 1;
				break;
			}
			ns = reallocarray(sv, nsv + 1, sizeof(*ns));
			if (ns == NULL) {
				bad = 1;
				break;
			}
			sv = ns;
			sv[nsv].rel = strdup(rel);
			sv[nsv].orig = strdup(val);
			sv[nsv].append = append;
			nsv++;
		}
	}
	fclose(f);
	if (!bad && root[0] != '\0') {
		if (created[0] == '\0' || strcmp(created, root) != 0) {
			for (size_t i = nsv; i-- > 0;)
				if (sv[i].rel && sv[i].orig)
					restore_one(root, sv[i].rel,
					    sv[i].orig, sv[i].append);
		}
		/* Removing an instance we created drops all its state. */
		if (created[0] != '\0' && strcmp(created, root) == 0 &&
		    tfs_rmdir(created) == -1 && errno != ENOENT)
			log_warn("%s: rmdir %s", __func__, created);
	}
	for (size_t i = 0; i < nsv; i++) {
		free(sv[i].rel);
		free(sv[i].orig);
	}
	free(sv);
	unlink(path);
	return bad ? -1 : 0;
}

int
ftrace_ctl_cleanup(const char *state_dir, const char **cause)
{
	char path[TFS_PATH_MAX];
	struct dirent *de;
	DIR *d;
	int n = 0;

	if ((d = opendir(state_dir)) == NULL) {
		if (errno == ENOENT)
			return 0;
		*cause = strerror(errno);
		return -1;
	}
	while ((de = readdir(d)) != NULL) {
		if (strncmp(de->d_name, STATE_PREFIX,
		    strlen(STATE_PREFIX)) != 0 ||
		    strstr(de->d_name, ".tmp") != NULL)
			continue;
		snprintf(path, sizeof(path), "%s/%s", state_dir, de->d_name);
		if (replay(path) == -1)
			log_warnx("%s: %s: unreadable state, removed",
			    __func__, path);
		else
			log_info("%s: restored tracefs from %s", __func__,
			    path);
		n++;
	}
	closedir(d);
	return n;
}
