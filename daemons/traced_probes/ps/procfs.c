/*
 * Bounded /proc and /sys reads and tokenizers (see procfs.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "procfs.h"

ssize_t
procfs_read(const char *path, char *buf, size_t size, int *truncated)
{
	size_t len = 0;
	ssize_t n;
	char *nl;
	int fd, saved;

	if (truncated != NULL)
		*truncated = 0;
	if (size == 0) {
		errno = EINVAL;
		return -1;
	}
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return -1;
	/* procfs hands out at most a page per read: loop to EOF. */
	while (len < size - 1) {
		n = read(fd, buf + len, size - 1 - len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1) {
			saved = errno;
			close(fd);
			errno = saved;
			return -1;
		}
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
	close(fd);
	buf[len] = '\0';
	return (ssize_t)len;
}

ssize_t
procfs_readf(char *buf, size_t size, int *truncated, const char *fmt, ...)
{
	char path[PATH_MAX];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return procfs_read(path, buf, size, truncated);
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

int
procfs_line(const char **p, const char *end, const char **tok, size_t *len)
{
	const char *s = *p, *nl;

	if (s >= end)
		return 0;
	if ((nl = memchr(s, '\n', (size_t)(end - s))) == NULL)
		nl = end;
	*tok = s;
	*len = (size_t)(nl - s);
	*p = nl < end ? nl + 1 : end;
	return 1;
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
