/*
 * tracefs access, direct or through the privileged broker (see tfs.h).
 */
#include "config.h"

#include <sys/mount.h>
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

#include "tfs.h"

#ifndef TRACEFS_MAGIC
#define TRACEFS_MAGIC	0x74726163
#endif

/* Files larger than this are not configuration (and not ours to read). */
#define TFS_READ_MAX	(128 * 1024)

enum tfs_op {
	OP_READ = 1, OP_WRITE, OP_APPEND, OP_EXISTS, OP_LIST, OP_OPEN_RAW,
	OP_MKDIR, OP_RMDIR, OP_OPEN_PROC, OP_LIST_PROC,
	/*
	 * The value is a run of requests (header, path, value; read, write,
	 * append or exists only); the reply's rc is how many were done, its
	 * data one reply (header, data) for each.
	 */
	OP_BATCH,
};

struct tfs_req {
	uint32_t	op;
	uint32_t	plen;		/* path bytes, NUL excluded */
	uint32_t	vlen;		/* value bytes (writes) */
};

struct tfs_rep {
	int32_t		rc;
	int32_t		err;		/* errno when rc == -1 */
	uint32_t	len;		/* data bytes that follow */
};

#define MSG_MAX	(sizeof(struct tfs_rep) + TFS_READ_MAX + 1)

/* The kernel's PID_MAX_LIMIT: no pid or tid is larger. */
#define PROC_PID_LIMIT	4194304
/* Pids per OP_LIST_PROC reply; a longer list takes several requests,
 * each carrying the last pid received (a uint32_t value). */
#define PROC_LIST_PAGE	(TFS_READ_MAX / sizeof(uint32_t))

static int broker_fd = -1;
/* The rc of the broker's last successful reply (a batch: how many). */
static int32_t batch_last_rc;
/* Requests made, direct or to the broker (tfs_calls). */
static uint64_t ncalls;

static int
join(char *path, size_t sz, const char *root, const char *rel)
{
	int n = snprintf(path, sz, "%s/%s", root, rel);

	if (n < 0 || (size_t)n >= sz) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

/* ---- the plain system calls (direct mode, and the broker's side) ---- */

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
static size_t
list_page(void)
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
	if (n > list_page())
		n = list_page();
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

static int
do_op(int op, const char *path, const char *val, size_t vlen, char **out,
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

/* ---- worker side of the broker ---- */

void
tfs_use_broker(int fd)
{
	broker_fd = fd;
}

uint64_t
tfs_calls(void)
{
	return ncalls;
}

static int
broker_call(int op, const char *path, const char *val, size_t vlen,
    char **out, size_t *outlen, int *fdp)
{
	struct tfs_req rq;
	struct tfs_rep rp;
	struct iovec iov[3];
	struct msghdr mh;
	union {
		struct cmsghdr	hdr;
		char		buf[CMSG_SPACE(sizeof(int))];
	} cm;
	struct cmsghdr *c;
	char *buf;
	ssize_t n;

	/* The broker takes a request it cannot hold for a broken stream
	 * and stops serving: refuse it here instead. */
	if (strlen(path) >= TFS_PATH_MAX || vlen > TFS_READ_MAX) {
		errno = strlen(path) >= TFS_PATH_MAX ? ENAMETOOLONG : EFBIG;
		return -1;
	}
	rq.op = (uint32_t)op;
	rq.plen = (uint32_t)strlen(path);
	rq.vlen = (uint32_t)vlen;
	iov[0].iov_base = &rq;
	iov[0].iov_len = sizeof(rq);
	iov[1].iov_base = (void *)path;
	iov[1].iov_len = rq.plen;
	iov[2].iov_base = (void *)(val ? val : "");
	iov[2].iov_len = vlen;
	memset(&mh, 0, sizeof(mh));
	mh.msg_iov = iov;
	mh.msg_iovlen = 3;
	do
		n = sendmsg(broker_fd, &mh, MSG_NOSIGNAL);
	while (n == -1 && errno == EINTR);
	if (n == -1)
		return -1;
	if ((buf = malloc(MSG_MAX)) == NULL)
		return -1;
	iov[0].iov_base = buf;
	iov[0].iov_len = MSG_MAX;
	memset(&mh, 0, sizeof(mh));
	mh.msg_iov = iov;
	mh.msg_iovlen = 1;
	mh.msg_control = cm.buf;
	mh.msg_controllen = sizeof(cm.buf);
	do
		n = recvmsg(broker_fd, &mh, MSG_CMSG_CLOEXEC);
	while (n == -1 && errno == EINTR);
	if (n < (ssize_t)sizeof(rp)) {
		free(buf);
		errno = n == -1 ? errno : EPIPE;
		return -1;
	}
	memcpy(&rp, buf, sizeof(rp));
	batch_last_rc = rp.rc;
	if (fdp != NULL)
		*fdp = -1;
	for (c = CMSG_FIRSTHDR(&mh); c != NULL; c = CMSG_NXTHDR(&mh, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
			int fd;

			memcpy(&fd, CMSG_DATA(c), sizeof(fd));
			if (fdp != NULL)
				*fdp = fd;
			else
				close(fd);
		}
	if (rp.rc == -1) {
		free(buf);
		errno = rp.err;
		return -1;
	}
	if (rp.len > (size_t)n - sizeof(rp)) {
		free(buf);
		errno = EPROTO;
		return -1;
	}
	if (out != NULL) {
		memmove(buf, buf + sizeof(rp), rp.len);
		buf[rp.len] = '\0';
		*out = buf;
		*outlen = rp.len;
	} else
		free(buf);
	return 0;
}

static int
call(int op, const char *path, const char *val, size_t vlen, char **out,
    size_t *outlen, int *fdp)
{
	char *o = NULL;
	size_t ol = 0;
	int fd = -1, rc;

	ncalls++;
	if (broker_fd >= 0)
		return broker_call(op, path, val, vlen, out, outlen, fdp);
	rc = do_op(op, path, val, vlen, &o, &ol, &fd);
	if (out != NULL) {
		*out = o;
		*outlen = ol;
	} else
		free(o);
	if (fdp != NULL)
		*fdp = fd;
	return rc;
}

/* ---- public ---- */

static int
is_tracefs(const char *dir)
{
	struct statfs sf;
	char path[TFS_PATH_MAX];

	if (statfs(dir, &sf) == -1 || sf.f_type != TRACEFS_MAGIC)
		return 0;
	snprintf(path, sizeof(path), "%s/trace", dir);
	return access(path, F_OK) == 0;
}

int
tfs_find(char *root, size_t rootsz, int mount_ok, const char **cause)
{
	static const char *dirs[] = { "/sys/kernel/tracing",
	    "/sys/kernel/debug/tracing" };

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		if (is_tracefs(dirs[i])) {
			snprintf(root, rootsz, "%s", dirs[i]);
			return 0;
		}
	}
	if (mount_ok && mount("nodev", dirs[0], "tracefs", 0, NULL) == 0 &&
	    is_tracefs(dirs[0])) {
		snprintf(root, rootsz, "%s", dirs[0]);
		return 0;
	}
	*cause = mount_ok ? "tracefs not mounted and cannot be mounted" :
	    "tracefs not mounted";
	return -1;
}

int
tfs_read(const char *root, const char *rel, char **bufp, size_t *lenp)
{
	char path[TFS_PATH_MAX];
	size_t len;

	if (join(path, sizeof(path), root, rel) == -1 ||
	    call(OP_READ, path, NULL, 0, bufp, &len, NULL) == -1)
		return -1;
	if (lenp != NULL)
		*lenp = len;
	return 0;
}

int
tfs_read_line(const char *root, const char *rel, char *out, size_t outsz)
{
	char *buf, *nl;
	size_t len;

	if (tfs_read(root, rel, &buf, &len) == -1)
		return -1;
	if ((nl = strchr(buf, '\n')) != NULL)
		*nl = '\0';
	snprintf(out, outsz, "%s", buf);
	free(buf);
	return 0;
}

int
tfs_write(const char *root, const char *rel, const char *val, int append)
{
	char path[TFS_PATH_MAX];

	if (join(path, sizeof(path), root, rel) == -1)
		return -1;
	return call(append ? OP_APPEND : OP_WRITE, path, val, strlen(val),
	    NULL, NULL, NULL);
}

int
tfs_exists(const char *root, const char *rel)
{
	char path[TFS_PATH_MAX];

	if (join(path, sizeof(path), root, rel) == -1)
		return 0;
	return call(OP_EXISTS, path, NULL, 0, NULL, NULL, NULL) == 0;
}

/* Direct mode, or a request the broker cannot take: one at a time. */
static void
batch_one(const char *root, struct tfs_io *io)
{
	char path[TFS_PATH_MAX];
	int op = io->kind == TFS_IO_READ ? OP_READ : io->kind ==
	    TFS_IO_WRITE ? OP_WRITE : OP_EXISTS;
	const char *val = io->kind == TFS_IO_WRITE && io->val ? io->val : "";

	io->data = NULL;
	io->len = 0;
	io->rc = join(path, sizeof(path), root, io->rel) == -1 ? -1 :
	    call(op, path, val, strlen(val), io->kind == TFS_IO_READ ?
	    &io->data : NULL, &io->len, NULL);
	io->err = io->rc == -1 ? errno : 0;
}

/* Packs io[from..] into buf; returns how many fit (0: the first is
 * too big for any request). */
static size_t
batch_pack(const char *root, struct tfs_io *io, size_t from, size_t n,
    char *buf, size_t bufsz, size_t *len)
{
	struct tfs_req rq;
	char path[TFS_PATH_MAX];
	size_t k, off = 0, vlen;

	for (k = from; k < n; k++) {
		const char *val = io[k].kind == TFS_IO_WRITE && io[k].val ?
		    io[k].val : "";

		if (join(path, sizeof(path), root, io[k].rel) == -1)
			break;
		vlen = io[k].kind == TFS_IO_WRITE ? strlen(val) : 0;
		rq.op = io[k].kind == TFS_IO_READ ? OP_READ :
		    io[k].kind == TFS_IO_WRITE ? OP_WRITE : OP_EXISTS;
		rq.plen = (uint32_t)strlen(path);
		rq.vlen = (uint32_t)vlen;
		if (off + sizeof(rq) + rq.plen + vlen > bufsz)
			break;
		memcpy(buf + off, &rq, sizeof(rq));
		memcpy(buf + off + sizeof(rq), path, rq.plen);
		memcpy(buf + off + sizeof(rq) + rq.plen, val, vlen);
		off += sizeof(rq) + rq.plen + vlen;
	}
	*len = off;
	return k - from;
}

/* Takes the broker's replies for io[from..from+n): -1 on a bad one. */
static int
batch_unpack(struct tfs_io *io, size_t from, size_t n, const char *data,
    size_t len)
{
	struct tfs_rep rp;
	size_t off = 0;

	for (size_t k = from; k < from + n; k++) {
		if (len - off < sizeof(rp))
			return -1;
		memcpy(&rp, data + off, sizeof(rp));
		off += sizeof(rp);
		if (rp.len > len - off || (rp.len > 0 &&
		    io[k].kind != TFS_IO_READ))
			return -1;
		io[k].rc = rp.rc == 0 ? 0 : -1;
		io[k].err = rp.rc == 0 ? 0 : rp.err;
		if (rp.rc == 0 && io[k].kind == TFS_IO_READ) {
			if ((io[k].data = malloc(rp.len + 1)) == NULL) {
				io[k].rc = -1;
				io[k].err = ENOMEM;
			} else {
				memcpy(io[k].data, data + off, rp.len);
				io[k].data[rp.len] = '\0';
				io[k].len = rp.len;
			}
		}
		off += rp.len;
	}
	return 0;
}

int
tfs_batch(const char *root, struct tfs_io *io, size_t n)
{
	char *buf, *out;
	size_t i = 0, k, len, outlen;
	int done, saved;

	for (k = 0; k < n; k++) {
		io[k].data = NULL;
		io[k].len = 0;
		io[k].rc = -1;
		io[k].err = ECANCELED;
	}
	if (broker_fd < 0) {
		for (; i < n; i++)
			batch_one(root, &io[i]);
		return 0;
	}
	if ((buf = malloc(TFS_READ_MAX)) == NULL)
		return -1;
	while (i < n) {
		if ((k = batch_pack(root, io, i, n, buf, TFS_READ_MAX,
		    &len)) == 0) {
			batch_one(root, &io[i++]);
			continue;
		}
		ncalls++;
		out = NULL;
		if (broker_call(OP_BATCH, "", buf, len, &out, &outlen,
		    NULL) == -1)
			goto fail;
		done = batch_last_rc;
		if (done <= 0 || (size_t)done > k ||
		    batch_unpack(io, i, (size_t)done, out, outlen) == -1) {
			free(out);
			errno = EPROTO;
			goto fail;
		}
		free(out);
		/* A read too big to share a reply with its header goes alone
		 * (a batch answers the first one EFBIG rather than stall). */
		if (io[i].rc == -1 && io[i].err == EFBIG &&
		    io[i].kind == TFS_IO_READ)
			batch_one(root, &io[i]);
		i += (size_t)done;
	}
	free(buf);
	return 0;
fail:
	saved = errno;
	free(buf);
	errno = saved;
	return -1;
}

int
tfs_list(const char *root, const char *rel, char ***namesp, size_t *np)
{
	char path[TFS_PATH_MAX], *buf, **names;
	size_t len, n = 0, i, off;

	if (join(path, sizeof(path), root, rel) == -1 ||
	    call(OP_LIST, path, NULL, 0, &buf, &len, NULL) == -1)
		return -1;
	for (off = 0; off < len; off += strlen(buf + off) + 1)
		n++;
	if ((names = calloc(n + 1, sizeof(*names))) == NULL) {
		free(buf);
		return -1;
	}
	for (i = 0, off = 0; off < len && i < n; off += strlen(buf + off) + 1)
		if ((names[i] = strdup(buf + off)) != NULL)
			i++;
	free(buf);
	*namesp = names;
	*np = i;
	return 0;
}

void
tfs_list_free(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

int
tfs_ncpus(const char *root)
{
	char **names;
	size_t n;
	int max = 0, c;

	if (tfs_list(root, "per_cpu", &names, &n) == -1)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (sscanf(names[i], "cpu%d", &c) == 1 && c >= 0 && c + 1 > max)
			max = c + 1;
	tfs_list_free(names, n);
	return max;
}

int
tfs_open_raw(const char *root, int cpu)
{
	char path[TFS_PATH_MAX], rel[64];
	int fd;

	snprintf(rel, sizeof(rel), "per_cpu/cpu%d/trace_pipe_raw", cpu);
	if (join(path, sizeof(path), root, rel) == -1 ||
	    call(OP_OPEN_RAW, path, NULL, 0, NULL, NULL, &fd) == -1)
		return -1;
	return fd;
}

int
tfs_mkdir(const char *path)
{
	return call(OP_MKDIR, path, NULL, 0, NULL, NULL, NULL);
}

int
tfs_rmdir(const char *path)
{
	return call(OP_RMDIR, path, NULL, 0, NULL, NULL, NULL);
}

static int	proc_allowed(int op, const char *path, size_t vlen);

int
tfs_open_proc(const char *path)
{
	int fd;

	/* Direct mode refuses what the broker would: one behaviour. */
	if (broker_fd < 0 && !proc_allowed(OP_OPEN_PROC, path, 0)) {
		errno = EPERM;
		return -1;
	}
	if (call(OP_OPEN_PROC, path, NULL, 0, NULL, NULL, &fd) == -1)
		return -1;
	return fd;
}

int
tfs_list_proc(const char *path, int32_t **pidsp, size_t *np)
{
	int32_t *pids = NULL, *nb;
	uint32_t after = 0;
	size_t n = 0, len, got;
	char *buf;
	int saved;

	if (broker_fd < 0 && !proc_allowed(OP_LIST_PROC, path,
	    sizeof(after))) {
		errno = EPERM;
		return -1;
	}
	do {
		if (call(OP_LIST_PROC, path, (const char *)&after,
		    sizeof(after), &buf, &len, NULL) == -1)
			goto fail;
		got = len / sizeof(uint32_t);
		if (len % sizeof(uint32_t) != 0 || got > PROC_LIST_PAGE) {
			free(buf);
			errno = EPROTO;
			goto fail;
		}
		if ((nb = reallocarray(pids, n + got + 1, sizeof(*pids))) ==
		    NULL) {
			free(buf);
			goto fail;
		}
		pids = nb;
		for (size_t i = 0; i < got; i++) {
			uint32_t v;

			memcpy(&v, buf + i * sizeof(v), sizeof(v));
			/* Ascending and in range, or the reply is broken
			 * (and the next page request would never end). */
			if (v <= after || v > PROC_PID_LIMIT) {
				free(buf);
				errno = EPROTO;
				goto fail;
			}
			pids[n++] = (int32_t)v;
			after = v;
		}
		free(buf);
	} while (got == list_page());
	*pidsp = pids;
	*np = n;
	return 0;
fail:
	saved = errno;
	free(pids);
	errno = saved;
	return -1;
}

/* ---- broker side ---- */

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

static int
proc_allowed(int op, const char *path, size_t vlen)
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
		return proc_allowed(op, path, vlen);
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
		} else if (do_op((int)rq.op, path, in + off, rq.vlen, &data,
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
tfs_broker_serve(int fd, const char *top)
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
		} else if (do_op((int)rq.op, path, val, rq.vlen, &out, &outlen,
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
