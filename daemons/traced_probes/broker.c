/*
 * traced_probes' privileged broker: what it allows and what it does for
 * the worker (see broker.h). Everything here runs as root in the broker;
 * every byte of a request is the worker's, so untrusted.
 */
#include "config.h"

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/vfs.h>

#include <linux/magic.h>

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemons/traced_probes/broker.h"
#include "daemons/traced_probes/ftrace/tfs.h"

/* ---- the system calls, done as asked (also by the worker in direct mode) ---- */

/* What we opened is procfs itself, not something mounted over it. */
static int
on_procfs(int fd)
{
	struct statfs sf;

	if (fstatfs(fd, &sf) == -1)
		return 0;
	if (sf.f_type != PROC_SUPER_MAGIC) {
		errno = EXDEV;
		return 0;
	}
	return 1;
}

static int
do_open_proc(const char *path)
{
	int fd, saved;

	/* The paths have no symlink (proc_path_kind refuses "self" and
	 * "thread-self"); O_NOFOLLOW keeps it so for the last component. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY);
	if (fd == -1)
		return -1;
	if (!on_procfs(fd)) {
		saved = errno;
		close(fd);
		errno = saved;
		return -1;
	}
	return fd;
}

/* Pids per reply; test builds can make pages tiny to test paging. */
size_t
broker_list_page(void)
{
#ifdef FARO_TEST_HOOKS
	const char *v = getenv("FARO_TEST_PROC_LIST_PAGE");

	if (v != NULL && atoi(v) > 0 && (size_t)atoi(v) < PROC_LIST_PAGE)
		return (size_t)atoi(v);
#endif
	return PROC_LIST_PAGE;
}

static int
pid_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * The numeric entries of a /proc directory above after, ascending, at
 * most a page of them, as an array of uint32_t in a malloc'd buffer.
 */
static int
do_list_proc(const char *path, uint32_t after, char **bufp, size_t *lenp)
{
	struct dirent *de;
	uint32_t *pids = NULL, *np;
	size_t n = 0, cap = 0;
	unsigned long v;
	char *end;
	DIR *d;
	int saved;

	if ((d = opendir(path)) == NULL)
		return -1;
	if (!on_procfs(dirfd(d)))
		goto fail;
	errno = 0;
	while ((de = readdir(d)) != NULL) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		v = strtoul(de->d_name, &end, 10);
		if (*end != '\0' || v <= after || v > PROC_PID_LIMIT)
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 1024;
			if ((np = reallocarray(pids, cap, sizeof(*pids))) ==
			    NULL)
				goto fail;
			pids = np;
		}
		pids[n++] = (uint32_t)v;
	}
	if (errno != 0)
		goto fail;
	closedir(d);
	/* none above after: a list that filled its last page exactly */
	if (n > 0)
		qsort(pids, n, sizeof(*pids), pid_cmp);
	if (n > broker_list_page())
		n = broker_list_page();
	if (pids == NULL && (pids = malloc(1)) == NULL)
		return -1;
	*bufp = (char *)pids;
	*lenp = n * sizeof(*pids);
	return 0;
fail:
	saved = errno;
	free(pids);
	closedir(d);
	errno = saved;
	return -1;
}

static int
do_read(const char *path, char **bufp, size_t *lenp)
{
	char *buf = NULL, *nb;
	size_t len = 0, cap = 0;
	ssize_t n;
	int fd, saved;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return -1;
	for (;;) {
		if (cap - len < 4096 + 1) {
			cap = cap ? cap * 2 : 8192;
			if (cap > TFS_READ_MAX || (nb = realloc(buf, cap)) ==
			    NULL) {
				errno = EFBIG;
				goto fail;
			}
			buf = nb;
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1)
			goto fail;
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	if (buf == NULL && (buf = malloc(1)) == NULL)
		return -1;
	buf[len] = '\0';
	*bufp = buf;
	*lenp = len;
	return 0;
fail:
	saved = errno;
	free(buf);
	close(fd);
	errno = saved;
	return -1;
}

static int
do_write(const char *path, const char *val, size_t len, int append)
{
	ssize_t n;
	int fd, saved;

	fd = open(path, O_WRONLY | O_CLOEXEC | (append ? O_APPEND : O_TRUNC));
	if (fd == -1)
		return -1;
	do
		n = write(fd, val, len);
	while (n == -1 && errno == EINTR);
	saved = errno;
	close(fd);
	if (n == -1) {
		errno = saved;
		return -1;
	}
	if ((size_t)n != len) {
		errno = EIO;
		return -1;
	}
	return 0;
}

/* Subdirectory names, NUL-separated, in a malloc'd buffer. */
static int
do_list(const char *path, char **bufp, size_t *lenp)
{
	struct dirent *de;
	size_t len = 0, cap = 4096, n;
	char *buf, *nb;
	DIR *d;

	if ((d = opendir(path)) == NULL)
		return -1;
	if ((buf = malloc(cap)) == NULL) {
		closedir(d);
		return -1;
	}
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.' || (de->d_type != DT_DIR &&
		    de->d_type != DT_UNKNOWN))
			continue;
		n = strlen(de->d_name) + 1;
		if (len + n > cap) {
			if (cap * 2 > TFS_READ_MAX ||
			    (nb = realloc(buf, cap * 2)) == NULL)
				break;
			buf = nb;
			cap *= 2;
		}
		memcpy(buf + len, de->d_name, n);
		len += n;
	}
	closedir(d);
	*bufp = buf;
	*lenp = len;
	return 0;
}

int
broker_do(int op, const char *path, const char *val, size_t vlen, char **out,
    size_t *outlen, int *fd)
{
	*out = NULL;
	*outlen = 0;
	*fd = -1;
	switch (op) {
	case OP_READ:
		return do_read(path, out, outlen);
	case OP_WRITE:
	case OP_APPEND:
		return do_write(path, val, vlen, op == OP_APPEND);
	case OP_EXISTS:
		return access(path, F_OK);
	case OP_LIST:
		return do_list(path, out, outlen);
	case OP_OPEN_RAW:
		*fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		return *fd == -1 ? -1 : 0;
	case OP_MKDIR:
		return mkdir(path, 0755);
	case OP_RMDIR:
		return rmdir(path);
	case OP_OPEN_PROC:
		*fd = do_open_proc(path);
		return *fd == -1 ? -1 : 0;
	case OP_LIST_PROC: {
		uint32_t after;

		if (vlen != sizeof(after))
			break;
		memcpy(&after, val, sizeof(after));
		return do_list_proc(path, after, out, outlen);
	}
	}
	errno = EINVAL;
	return -1;
}

/* ---- what may be asked: paths, values, sizes ---- */

static int
name_ok(const char *s, size_t n)
{
	if (n == 0 || n >= 64 || (n <= 2 && s[0] == '.'))
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_' &&
		    s[i] != '-' && s[i] != '.')
			return 0;
	return 1;
}

/*
 * Splits path into the root it is under (top or top/instances/NAME) and
 * the rest; rejects anything else. *inst_only: path is an instance dir.
 */
static const char *
under_root(const char *path, const char *top, int *is_instance_dir)
{
	size_t tl = strlen(top);
	const char *p, *slash;

	*is_instance_dir = 0;
	if (strncmp(path, top, tl) != 0 || path[tl] != '/')
		return NULL;
	p = path + tl + 1;
	if (strncmp(p, "instances/", 10) == 0) {
		slash = strchr(p + 10, '/');
		if (!name_ok(p + 10, slash ? (size_t)(slash - p - 10) :
		    strlen(p + 10)))
			return NULL;
		if (slash == NULL) {
			*is_instance_dir = 1;
			return "";
		}
		p = slash + 1;
	}
	return p;
}

/* Every component safe, no "..", no empty components. */
static int
rel_ok(const char *rel)
{
	const char *p = rel, *s;

	if (*rel == '\0')
		return 1;
	for (;;) {
		s = strchr(p, '/');
		if (!name_ok(p, s ? (size_t)(s - p) : strlen(p)))
			return 0;
		if (s == NULL)
			return 1;
		p = s + 1;
	}
}

static int
match_event_file(const char *rel, const char *leaf)
{
	/* events/GROUP/NAME/leaf */
	const char *a, *b, *c;

	if (strncmp(rel, "events/", 7) != 0)
		return 0;
	a = rel + 7;
	if ((b = strchr(a, '/')) == NULL || (c = strchr(b + 1, '/')) == NULL)
		return 0;
	return strcmp(c + 1, leaf) == 0;
}

static size_t
span(const char *s, size_t n, const char *extra)
{
	size_t i = 0;

	/* s[i] != '\0': strchr would find the terminator of extra */
	while (i < n && (isalnum((unsigned char)s[i]) || s[i] == '_' ||
	    (s[i] != '\0' && strchr(extra, s[i]) != NULL)))
		i++;
	return i;
}

/*
 * kprobe_events lines traced_probes writes: "p:G/NAME SYM", "r:G/NAME SYM"
 * or "-:G/NAME", G one of our two groups. Nothing else reaches the kernel.
 */
static int
kprobe_def_ok(const char *v, size_t n)
{
	static const char *groups[] = { "perfetto_kprobes/",
	    "perfetto_kretprobes/" };
	size_t k, g;
	char kind;

	if (n > 0 && v[n - 1] == '\n')
		n--;
	if (n < 3 || (v[0] != 'p' && v[0] != 'r' && v[0] != '-') ||
	    v[1] != ':')
		return 0;
	kind = v[0];
	v += 2;
	n -= 2;
	for (g = 0; g < 2; g++)
		if (n > strlen(groups[g]) && strncmp(v, groups[g],
		    strlen(groups[g])) == 0)
			break;
	if (g == 2)
		return 0;
	v += strlen(groups[g]);
	n -= strlen(groups[g]);
	if ((k = span(v, n, ".")) == 0)
		return 0;
	if (kind == '-')
		return k == n;
	if (k >= n || v[k] != ' ')
		return 0;
	v += k + 1;
	n -= k + 1;
	return n > 0 && span(v, n, ".+") == n;
}

/* "0" or "id == N || id == M ...": the only filters we write. */
static int
syscall_filter_ok(const char *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isdigit((unsigned char)v[i]) && strchr("id=| \n", v[i]) ==
		    NULL)
			return 0;
	return n > 0;
}

/* A pid or tid in a /proc path: its digit count, 0 when it is not one. */
static size_t
proc_pid_span(const char *s)
{
	unsigned long v = 0;
	size_t n;

	for (n = 0; isdigit((unsigned char)s[n]); n++)
		if (n < 8)
			v = v * 10 + (unsigned long)(s[n] - '0');
	/* procfs itself refuses leading zeros; no pid 0 under /proc */
	if (n == 0 || n > 7 || s[0] == '0' || v > PROC_PID_LIMIT)
		return 0;
	return n;
}

enum { PROC_NONE, PROC_FILE, PROC_DIR };

/*
 * The /proc paths of traced_probes: kallsyms (ftrace symbols), the files
 * ps/ps_ds.c reads per process and per thread, and the two directories
 * it lists. Anything else, "self" and ".." included, is PROC_NONE.
 */
static int
proc_path_kind(const char *path)
{
	static const char *pid_files[] = { "status", "cmdline",
	    "oom_score_adj" };
	const char *p;
	size_t k;

	if (strcmp(path, "/proc/kallsyms") == 0)
		return PROC_FILE;
	if (strcmp(path, "/proc") == 0)
		return PROC_DIR;
	if (strncmp(path, "/proc/", 6) != 0 ||
	    (k = proc_pid_span(path + 6)) == 0 || path[6 + k] != '/')
		return PROC_NONE;
	p = path + 6 + k + 1;
	for (size_t i = 0; i < sizeof(pid_files) / sizeof(pid_files[0]); i++)
		if (strcmp(p, pid_files[i]) == 0)
			return PROC_FILE;
	if (strcmp(p, "task") == 0)
		return PROC_DIR;
	if (strncmp(p, "task/", 5) != 0 || (k = proc_pid_span(p + 5)) == 0 ||
	    strcmp(p + 5 + k, "/comm") != 0)
		return PROC_NONE;
	return PROC_FILE;
}

int
broker_proc_allowed(int op, const char *path, size_t vlen)
{
	if (op == OP_OPEN_PROC)
		return vlen == 0 && proc_path_kind(path) == PROC_FILE;
	return vlen == sizeof(uint32_t) && proc_path_kind(path) == PROC_DIR;
}

/*
 * set_ftrace_filter and set_graph_function: empty (clears) or function
 * names and globs separated by blanks; no filter commands (':'), no
 * negation ('!'), nothing the kernel would read as more than a name.
 */
static int
func_list_ok(const char *v, size_t n)
{
	if (n > 0 && v[n - 1] == '\n')
		n--;
	return n < 4096 && span(v, n, ".*? ") == n;
}

/* max_graph_depth: a decimal. */
static int
decimal_ok(const char *v, size_t n)
{
	if (n > 0 && v[n - 1] == '\n')
		n--;
	if (n == 0 || n > 10)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!isdigit((unsigned char)v[i]))
			return 0;
	return 1;
}

/* What traced_probes may do, and nothing else. */
static int
allowed(int op, const char *path, const char *top, const char *val,
    size_t vlen)
{
	static const char *writable[] = { "tracing_on", "buffer_size_kb",
	    "trace_clock", "current_tracer", "tracing_cpumask",
	    "set_event_pid", "trace", "buffer_percent" };
	const char *rel;
	int inst, cpu;
	char tail[32];

	if (op == OP_OPEN_PROC || op == OP_LIST_PROC)
		return broker_proc_allowed(op, path, vlen);
	if ((rel = under_root(path, top, &inst)) == NULL || !rel_ok(rel))
		return 0;
	switch (op) {
	case OP_MKDIR:
	case OP_RMDIR:
		return inst;
	case OP_EXISTS:
		return 1;
	case OP_LIST:
		return strcmp(rel, "events") == 0 || strcmp(rel, "per_cpu") ==
		    0 || strcmp(rel, "instances") == 0 ||
		    (strncmp(rel, "events/", 7) == 0 &&
		    strchr(rel + 7, '/') == NULL);
	case OP_READ:
		/* Small control and description files; never the pipes or
		 * the (huge, slow) text trace. */
		return strstr(rel, "pipe") == NULL &&
		    strcmp(rel, "trace") != 0 && !inst &&
		    (strstr(rel, "/trace") == NULL ||
		    strstr(rel, "/trace_") != NULL);
	case OP_WRITE:
	case OP_APPEND:
		for (size_t i = 0; i < sizeof(writable) / sizeof(writable[0]);
		    i++)
			if (strcmp(rel, writable[i]) == 0)
				return op == OP_WRITE;
		if (strcmp(rel, "kprobe_events") == 0 && path[strlen(top)] ==
		    '/' && strcmp(path + strlen(top) + 1, rel) == 0)
			return op == OP_APPEND && kprobe_def_ok(val, vlen);
		/* function_graph: what it traces and how deep */
		if (strcmp(rel, "set_ftrace_filter") == 0 ||
		    strcmp(rel, "set_graph_function") == 0)
			return op == OP_WRITE && func_list_ok(val, vlen);
		if (strcmp(rel, "max_graph_depth") == 0)
			return op == OP_WRITE && decimal_ok(val, vlen);
		if (op == OP_WRITE && match_event_file(rel, "filter") &&
		    (strcmp(rel, "events/raw_syscalls/sys_enter/filter") == 0 ||
		    strcmp(rel, "events/raw_syscalls/sys_exit/filter") == 0))
			return syscall_filter_ok(val, vlen);
		return op == OP_WRITE && match_event_file(rel, "enable");
	case OP_OPEN_RAW:
		return sscanf(rel, "per_cpu/cpu%d/%31s", &cpu, tail) == 2 &&
		    cpu >= 0 && strcmp(tail, "trace_pipe_raw") == 0;
	}
	return 0;
}

/*
 * A batch (OP_BATCH): each request checked and done as if alone, in
 * order, while its reply fits in one message. Returns how many were
 * done (at least one of a well-formed batch), or -1 with errno.
 */
static int
batch_serve_untrusted(const char *in, size_t inlen, const char *top, char **outp,
    size_t *outlenp)
{
	const size_t cap = MSG_MAX - sizeof(struct tfs_rep);
	char path[TFS_PATH_MAX], *out, *data;
	struct tfs_req rq;
	struct tfs_rep rp;
	size_t off = 0, len = 0, dlen;
	int n = 0, fd;

	if ((out = malloc(cap)) == NULL)
		return -1;
	while (off < inlen) {
		if (inlen - off < sizeof(rq))
			goto bad;
		memcpy(&rq, in + off, sizeof(rq));
		off += sizeof(rq);
		if (rq.plen >= TFS_PATH_MAX || rq.plen > inlen - off ||
		    rq.vlen > inlen - off - rq.plen ||
		    (rq.op != OP_READ && rq.op != OP_WRITE &&
		    rq.op != OP_APPEND && rq.op != OP_EXISTS))
			goto bad;
		memcpy(path, in + off, rq.plen);
		path[rq.plen] = '\0';
		off += rq.plen;
		/* Room for a reply without data (a read's may not fit). */
		if (cap - len < sizeof(rp))
			break;
		memset(&rp, 0, sizeof(rp));
		data = NULL;
		dlen = 0;
		if (!allowed((int)rq.op, path, top, in + off, rq.vlen)) {
			rp.rc = -1;
			rp.err = EPERM;
		} else if (broker_do((int)rq.op, path, in + off, rq.vlen, &data,
		    &dlen, &fd) == -1) {
			rp.rc = -1;
			rp.err = errno;
		}
		off += rq.vlen;
		if (dlen > cap - len - sizeof(rp)) {
			free(data);
			if (n > 0)
				break;	/* read again in the next batch */
			rp.rc = -1;
			rp.err = EFBIG;
			dlen = 0;
			data = NULL;
		}
		rp.len = (uint32_t)dlen;
		memcpy(out + len, &rp, sizeof(rp));
		if (dlen > 0)
			memcpy(out + len + sizeof(rp), data, dlen);
		len += sizeof(rp) + dlen;
		free(data);
		n++;
	}
	if (n == 0)
		goto bad;
	*outp = out;
	*outlenp = len;
	return n;
bad:
	free(out);
	errno = EINVAL;
	return -1;
}

int
broker_serve(int fd, const char *top)
{
	char *in, *path, *val, *out;
	struct tfs_req rq;
	struct tfs_rep rp;
	struct iovec iov[2];
	struct msghdr mh;
	union {
		struct cmsghdr	hdr;
		char		buf[CMSG_SPACE(sizeof(int))];
	} cm;
	struct cmsghdr *c;
	size_t outlen;
	ssize_t n;
	int ofd, rc = 0;

	if ((in = malloc(MSG_MAX)) == NULL || (path = malloc(TFS_PATH_MAX)) ==
	    NULL)
		return -1;
	for (;;) {
		do
			n = recv(fd, in, MSG_MAX, 0);
		while (n == -1 && errno == EINTR);
		if (n == 0)
			break;
		if (n < (ssize_t)sizeof(rq)) {
			rc = -1;
			break;
		}
		memcpy(&rq, in, sizeof(rq));
		if (rq.plen >= TFS_PATH_MAX || (size_t)n != sizeof(rq) +
		    rq.plen + rq.vlen) {
			rc = -1;
			break;
		}
		memcpy(path, in + sizeof(rq), rq.plen);
		path[rq.plen] = '\0';
		val = in + sizeof(rq) + rq.plen;
		out = NULL;
		outlen = 0;
		ofd = -1;
		memset(&rp, 0, sizeof(rp));
		if (rq.op == OP_BATCH) {
			if ((rp.rc = batch_serve_untrusted(val, rq.vlen, top, &out,
			    &outlen)) == -1)
				rp.err = errno;
		} else if (!allowed((int)rq.op, path, top, val, rq.vlen)) {
			rp.rc = -1;
			rp.err = EPERM;
		} else if (broker_do((int)rq.op, path, val, rq.vlen, &out, &outlen,
		    &ofd) == -1) {
			rp.rc = -1;
			rp.err = errno;
		}
		rp.len = (uint32_t)outlen;
		iov[0].iov_base = &rp;
		iov[0].iov_len = sizeof(rp);
		iov[1].iov_base = out;
		iov[1].iov_len = outlen;
		memset(&mh, 0, sizeof(mh));
		mh.msg_iov = iov;
		mh.msg_iovlen = 2;
		if (ofd >= 0) {
			memset(&cm, 0, sizeof(cm));
			mh.msg_control = cm.buf;
			mh.msg_controllen = sizeof(cm.buf);
			c = CMSG_FIRSTHDR(&mh);
			c->cmsg_level = SOL_SOCKET;
			c->cmsg_type = SCM_RIGHTS;
			c->cmsg_len = CMSG_LEN(sizeof(int));
			memcpy(CMSG_DATA(c), &ofd, sizeof(int));
		}
		do
			n = sendmsg(fd, &mh, MSG_NOSIGNAL);
		while (n == -1 && errno == EINTR);
		free(out);
		if (ofd >= 0)
			close(ofd);
		if (n == -1) {
			rc = errno == EPIPE ? 0 : -1;
			break;
		}
	}
	free(in);
	free(path);
	return rc;
}
