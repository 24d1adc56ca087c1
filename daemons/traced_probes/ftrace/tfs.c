/*
 * tracefs access, direct or through the privileged broker (see tfs.h):
 * the worker's side. What the broker allows and does is in ../broker.c.
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

#include "daemons/traced_probes/broker.h"
#include "tfs.h"

#ifndef TRACEFS_MAGIC
#define TRACEFS_MAGIC	0x74726163
#endif

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
	rc = broker_do(op, path, val, vlen, &o, &ol, &fd);
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

int
tfs_open_proc(const char *path)
{
	int fd;

	/* Direct mode refuses what the broker would: one behaviour. */
	if (broker_fd < 0 && !broker_proc_allowed(OP_OPEN_PROC, path, 0)) {
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

	if (broker_fd < 0 && !broker_proc_allowed(OP_LIST_PROC, path,
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
	} while (got == broker_list_page());
	*pidsp = pids;
	*np = n;
	return 0;
fail:
	saved = errno;
	free(pids);
	errno = saved;
	return -1;
}

