/*
 * Bounded /proc and /sys reads and tokenizers (see procfs.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "procfs.h"

static const struct procfs_pid_ops *pid_ops;

static int
open_plain(const char *path)
{
	return open(path, O_RDONLY | O_CLOEXEC);
}

/* Opens path with opener, reads it whole (procfs_read_fd), closes it. */
static ssize_t
read_with(int (*opener)(const char *), const char *path, char *buf,
    size_t size, int *truncated)
{
	ssize_t len;
	int fd, saved;

	if (size == 0) {
		errno = EINVAL;
		return -1;
	}
	if ((fd = opener(path)) == -1)
		return -1;
	len = procfs_read_fd(fd, buf, size, truncated);
	saved = errno;
	close(fd);
	errno = saved;
	return len;
}

/* read_with on a path built with printf rules. */
static ssize_t
readf_with(int (*opener)(const char *), char *buf, size_t size,
    int *truncated, const char *fmt, va_list ap)
{
	char path[PATH_MAX];
	int n = vsnprintf(path, sizeof(path), fmt, ap);

	if (n < 0 || (size_t)n >= sizeof(path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return read_with(opener, path, buf, size, truncated);
}

ssize_t
procfs_read(const char *path, char *buf, size_t size, int *truncated)
{
	return read_with(open_plain, path, buf, size, truncated);
}

ssize_t
procfs_read_fd(int fd, char *buf, size_t size, int *truncated)
{
	size_t len = 0;
	ssize_t n;
	char *nl;

	if (truncated != NULL)
		*truncated = 0;
	if (size == 0) {
		errno = EINVAL;
		return -1;
	}
	/* procfs hands out at most a page per read: loop to EOF. */
	while (len < size - 1) {
		n = read(fd, buf + len, size - 1 - len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1)
			return -1;
		if (n == 0)
			break;
		len += (size_t)n;
	}
	if (len == size - 1) {
		char probe;

		/* Full buffer: more to come? Then drop the partial line. */
		while ((n = read(fd, &probe, 1)) == -1 && errno == EINTR)
			;
		if (n > 0) {
			if (truncated != NULL)
				*truncated = 1;
			buf[len] = '\0';
			if ((nl = strrchr(buf, '\n')) != NULL)
				len = (size_t)(nl - buf) + 1;
			else
				len = 0;
		}
	}
	buf[len] = '\0';
	return (ssize_t)len;
}

ssize_t
procfs_readf(char *buf, size_t size, int *truncated, const char *fmt, ...)
{
	va_list ap;
	ssize_t len;

	va_start(ap, fmt);
	len = readf_with(open_plain, buf, size, truncated, fmt, ap);
	va_end(ap);
	return len;
}

int
procfs_read_u64(const char *path, uint64_t *v)
{
	char buf[64];
	const char *p = buf, *end, *w;
	size_t wl;
	ssize_t n;

	if ((n = procfs_read(path, buf, sizeof(buf), NULL)) <= 0)
		return -1;
	end = buf + n;
	if (!procfs_word(&p, end, &w, &wl))
		return -1;
	/* sysfs ends numbers with '\n': the word stops at blanks only */
	while (wl > 0 && w[wl - 1] == '\n')
		wl--;
	return procfs_u64(w, wl, v);
}

int32_t
procfs_next_pid(DIR *d)
{
	struct dirent *de;
	uint64_t v;

	while ((de = readdir(d)) != NULL) {
		if (procfs_u64(de->d_name, strlen(de->d_name), &v) == 0 &&
		    v > 0 && v <= INT32_MAX)
			return (int32_t)v;
	}
	return 0;
}

void
procfs_use_pid_ops(const struct procfs_pid_ops *ops)
{
	pid_ops = ops;
}

ssize_t
procfs_pid_readf(char *buf, size_t size, int *truncated, const char *fmt,
    ...)
{
	va_list ap;
	ssize_t len;

	va_start(ap, fmt);
	len = readf_with(pid_ops != NULL ? pid_ops->open : open_plain, buf,
	    size, truncated, fmt, ap);
	va_end(ap);
	return len;
}

int
procfs_pid_list(int32_t pid, int32_t **pidsp, size_t *np)
{
	char path[64];
	int32_t *pids = NULL, *nb, p;
	size_t n = 0, cap = 0;
	DIR *d;
	int saved;

	if (pid == 0)
		snprintf(path, sizeof(path), "/proc");
	else
		snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	if (pid_ops != NULL)
		return pid_ops->list(path, pidsp, np);
	if ((d = opendir(path)) == NULL)
		return -1;
	while ((p = procfs_next_pid(d)) != 0) {
		if (n == cap) {
			cap = cap ? cap * 2 : 256;
			if ((nb = reallocarray(pids, cap, sizeof(*pids))) ==
			    NULL) {
				saved = errno;
				free(pids);
				closedir(d);
				errno = saved;
				return -1;
			}
			pids = nb;
		}
		pids[n++] = p;
	}
	closedir(d);
	*pidsp = pids;
	*np = n;
	return 0;
}

/* The next piece of [*p, end) up to sep (excluded): lines, options. */
static int
piece_next(const char **p, const char *end, char sep, const char **tok,
    size_t *len)
{
	const char *s = *p, *e;

	if (s >= end)
		return 0;
	if ((e = memchr(s, sep, (size_t)(end - s))) == NULL)
		e = end;
	*tok = s;
	*len = (size_t)(e - s);
	*p = e < end ? e + 1 : end;
	return 1;
}

int
procfs_pids_hidden_untrusted(const char *text, size_t len, uint32_t gid,
    char *mode, size_t modesz)
{
	const char *p = text, *end = text + len, *line, *lp, *lend, *w, *o;
	const char *hide = NULL, *opts = NULL;
	size_t ll, wl, ol, hlen = 0, optslen = 0;
	uint64_t g;
	int field, found = 0, exempt;

	/* id parent maj:min root MOUNTPOINT opts [optional...] - TYPE
	 * source SUPEROPTS; the last proc mount on /proc is the one seen */
	while (procfs_line(&p, end, &line, &ll)) {
		const char *mnt = NULL, *type = NULL, *super = NULL;
		size_t mntlen = 0, typelen = 0, superlen = 0;
		int dash = 0;

		lp = line;
		lend = line + ll;
		for (field = 0; procfs_word(&lp, lend, &w, &wl); field++) {
			if (field == 4) {
				mnt = w;
				mntlen = wl;
			} else if (field > 5 && !dash && wl == 1 &&
			    w[0] == '-') {
				dash = field;
			} else if (dash && field == dash + 1) {
				type = w;
				typelen = wl;
			} else if (dash && field == dash + 3) {
				super = w;
				superlen = wl;
			}
		}
		if (super == NULL || mntlen != 5 || memcmp(mnt, "/proc", 5) ||
		    typelen != 4 || memcmp(type, "proc", 4))
			continue;
		found = 1;
		opts = super;
		optslen = superlen;
	}
	if (!found)
		return -1;
	/* without gid=, the kernel exempts group 0 */
	exempt = gid == 0;
	/* the super options: comma-separated */
	for (p = opts, end = opts + optslen; piece_next(&p, end, ',', &o,
	    &ol);) {
		if (ol > 8 && memcmp(o, "hidepid=", 8) == 0) {
			hide = o + 8;
			hlen = ol - 8;
		} else if (ol > 4 && memcmp(o, "gid=", 4) == 0)
			exempt = procfs_u64(o + 4, ol - 4, &g) == 0 &&
			    g == gid;
	}
	if (hide == NULL || (hlen == 1 && hide[0] == '0') ||
	    (hlen == 3 && memcmp(hide, "off", 3) == 0))
		return 0;
	/* ptraceable (4) asks every reader for ptrace access, group or
	 * not; noaccess (1) and invisible (2) let the group in */
	if (exempt && !(hlen == 1 && hide[0] == '4') &&
	    !(hlen == 10 && memcmp(hide, "ptraceable", 10) == 0))
		return 0;
	/* hidden, or a value this code does not know: hidden, to be safe */
	snprintf(mode, modesz, "%.*s", (int)(hlen < 32 ? hlen : 32), hide);
	return 1;
}

int
procfs_pids_hidden(uint32_t gid, char *mode, size_t modesz)
{
	/* Room for thousands of mounts (containers); a cut table could
	 * miss a later mount over /proc, so that is "cannot tell". */
	const size_t size = 1024 * 1024;
	char *buf;
	ssize_t n;
	int cut, rc = -1;

	if ((buf = malloc(size)) == NULL)
		return -1;
	n = procfs_read("/proc/self/mountinfo", buf, size, &cut);
	if (n != -1 && !cut)
		rc = procfs_pids_hidden_untrusted(buf, (size_t)n, gid, mode,
		    modesz);
	free(buf);
	return rc;
}

int
procfs_line(const char **p, const char *end, const char **tok, size_t *len)
{
	return piece_next(p, end, '\n', tok, len);
}

int
procfs_word(const char **p, const char *end, const char **tok, size_t *len)
{
	const char *s = *p, *e;

	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	if (s >= end) {
		*p = end;
		return 0;
	}
	for (e = s; e < end && *e != ' ' && *e != '\t'; e++)
		;
	*tok = s;
	*len = (size_t)(e - s);
	*p = e;
	return 1;
}

int
procfs_u64(const char *s, size_t len, uint64_t *v)
{
	uint64_t r = 0;

	if (len == 0 || len > 20)
		return -1;
	for (size_t i = 0; i < len; i++) {
		unsigned d = (unsigned char)s[i] - '0';

		if (d > 9 || r > (UINT64_MAX - d) / 10)
			return -1;
		r = r * 10 + d;
	}
	*v = r;
	return 0;
}

int
procfs_i64(const char *s, size_t len, int64_t *v)
{
	uint64_t u;
	int neg = 0;

	if (len > 0 && s[0] == '-') {
		neg = 1;
		s++;
		len--;
	}
	if (procfs_u64(s, len, &u) == -1 ||
	    u > (uint64_t)INT64_MAX + (uint64_t)neg)
		return -1;
	*v = neg ? (int64_t)(0 - u) : (int64_t)u;
	return 0;
}

const char *
procfs_field(const char *text, size_t len, const char *key, size_t *vlen)
{
	const char *p = text, *end = text + len, *line;
	size_t klen = strlen(key), ll;

	while (procfs_line(&p, end, &line, &ll)) {
		if (ll < klen || memcmp(line, key, klen) != 0)
			continue;
		line += klen;
		ll -= klen;
		while (ll > 0 && (*line == ' ' || *line == '\t')) {
			line++;
			ll--;
		}
		*vlen = ll;
		return line;
	}
	return NULL;
}

uint64_t
procfs_boottime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}
