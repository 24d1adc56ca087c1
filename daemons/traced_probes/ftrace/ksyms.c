/*
 * Kernel symbol table from /proc/kallsyms (see ksyms.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ksyms.h"
#include "base/log.h"
#include "tfs.h"

#define LINE_MAX_LEN	1024		/* address, type, name, module */
#define READ_CHUNK	(64 * 1024)
#define READ_MAX	(256u << 20)	/* kallsyms is ~5 MB; stop far later */
#define PFX		"__pfx_"	/* padding before each function */
#define PFX_LEN		6
#define NAME_PFX_BIT	0x80000000u

struct kb_sym {
	uint64_t	addr;
	uint32_t	name;	/* pool offset | NAME_PFX_BIT */
	uint32_t	seq;	/* input order, for a stable sort */
};

struct ksyms_builder {
	char			 line[LINE_MAX_LEN];
	size_t			 linelen;
	int			 overlong;	/* skipping to the newline */
	struct kb_sym		*syms;
	size_t			 nsyms;
	size_t			 capsyms;
	char			*pool;
	size_t			 poollen;
	size_t			 poolcap;
	size_t			 last_off;	/* last string in the pool */
	size_t			 last_len;
	int			 have_last;
	int			 full;		/* a bound was hit */
	const char		*cause;
	struct ksyms_parse_stats st;
};

struct ksyms {
	uint64_t	 base;
	uint32_t	 n;
	uint32_t	*a32;		/* addr - base, when the span fits */
	uint64_t	*a64;		/* else the addresses */
	uint32_t	*names;
	char		*pool;
	size_t		 poollen;
};

struct ksyms_builder *
ksyms_builder_new(void)
{
	return calloc(1, sizeof(struct ksyms_builder));
}

void
ksyms_builder_free(struct ksyms_builder *b)
{
	if (b == NULL)
		return;
	free(b->syms);
	free(b->pool);
	free(b);
}

static int
hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Offset of name in the pool, sharing the previous string when equal. */
static int
pool_add(struct ksyms_builder *b, const char *name, size_t len,
    uint32_t *off)
{
	char *np;
	size_t cap;

	if (b->have_last && b->last_len == len &&
	    memcmp(b->pool + b->last_off, name, len) == 0) {
		*off = (uint32_t)b->last_off;
		return 0;
	}
	if (b->poollen + len + 1 > KSYMS_MAX_POOL) {
		b->cause = "symbol names over the size bound";
		return -1;
	}
	if (b->poollen + len + 1 > b->poolcap) {
		cap = b->poolcap ? b->poolcap * 2 : 256 * 1024;
		while (cap < b->poollen + len + 1)
			cap *= 2;
		if ((np = realloc(b->pool, cap)) == NULL) {
			b->cause = "out of memory";
			return -1;
		}
		b->pool = np;
		b->poolcap = cap;
	}
	memcpy(b->pool + b->poollen, name, len);
	b->pool[b->poollen + len] = '\0';
	*off = (uint32_t)b->poollen;
	b->last_off = b->poollen;
	b->last_len = len;
	b->have_last = 1;
	b->poollen += len + 1;
	return 0;
}

/* One line, without its newline: "ADDR TYPE NAME[\t[MODULE]]". */
static void
parse_line(struct ksyms_builder *b, const char *s, size_t n)
{
	struct kb_sym *ns;
	uint64_t addr = 0;
	size_t i = 0, name, nlen;
	uint32_t off, flag = 0;
	char type;
	int h;

	b->st.lines++;
	while (i < n && i < 16 && (h = hexval(s[i])) >= 0) {
		addr = addr << 4 | (uint64_t)h;
		i++;
	}
	if (i == 0 || i + 3 > n || s[i] != ' ' || s[i + 2] != ' ')
		goto bad;
	type = s[i + 1];
	name = i + 3;
	for (nlen = 0; name + nlen < n && s[name + nlen] > ' ' &&
	    s[name + nlen] < 0x7f; nlen++)
		;
	if (nlen == 0 || nlen >= KSYMS_NAME_MAX)
		goto bad;
	/* After the name: nothing, or a tab and the module in brackets. */
	if (name + nlen < n && s[name + nlen] != '\t')
		goto bad;
	if (type != 't' && type != 'T') {
		b->st.skipped++;
		return;
	}
	if (s[name] == '$') {
		b->st.skipped++;	/* ARM mapping symbols, not functions */
		return;
	}
	if (addr == 0) {
		b->st.zero++;
		return;
	}
	if (b->full)
		return;
	if (nlen > PFX_LEN && memcmp(s + name, PFX, PFX_LEN) == 0) {
		flag = NAME_PFX_BIT;
		name += PFX_LEN;
		nlen -= PFX_LEN;
	}
	if (b->nsyms == KSYMS_MAX_SYMS) {
		b->cause = "too many symbols";
		b->full = 1;
		return;
	}
	if (b->nsyms == b->capsyms) {
		size_t cap = b->capsyms ? b->capsyms * 2 : 16384;

		if ((ns = reallocarray(b->syms, cap, sizeof(*ns))) == NULL) {
			b->cause = "out of memory";
			b->full = 1;
			return;
		}
		b->syms = ns;
		b->capsyms = cap;
	}
	if (pool_add(b, s + name, nlen, &off) == -1) {
		b->full = 1;
		return;
	}
	b->syms[b->nsyms].addr = addr;
	b->syms[b->nsyms].name = off | flag;
	b->syms[b->nsyms].seq = (uint32_t)b->nsyms;
	b->nsyms++;
	return;
bad:
	b->st.malformed++;
}

void
ksyms_builder_feed_untrusted(struct ksyms_builder *b, const char *buf,
    size_t len)
{
	const char *nl;
	size_t n;

	while (len > 0) {
		nl = memchr(buf, '\n', len);
		n = nl ? (size_t)(nl - buf) : len;
		if (!b->overlong) {
			if (b->linelen + n >= sizeof(b->line)) {
				b->overlong = 1;
				b->linelen = 0;
			} else {
				memcpy(b->line + b->linelen, buf, n);
				b->linelen += n;
			}
		}
		if (nl == NULL)
			return;
		if (b->overlong) {
			b->st.lines++;
			b->st.malformed++;
		} else if (b->linelen > 0)
			parse_line(b, b->line, b->linelen);
		b->overlong = 0;
		b->linelen = 0;
		buf = nl + 1;
		len -= n + 1;
	}
}

static int
sym_cmp(const void *a, const void *b)
{
	const struct kb_sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

struct ksyms *
ksyms_builder_finish(struct ksyms_builder *b, struct ksyms_parse_stats *st,
    const char **cause)
{
	struct ksyms *k = NULL;
	size_t i, n = 0;
	int sorted = 1;
	char *np;

	/* A last line without its newline still counts. */
	if (b->overlong) {
		b->st.lines++;
		b->st.malformed++;
	} else if (b->linelen > 0)
		parse_line(b, b->line, b->linelen);
	b->linelen = 0;
	if (st != NULL)
		*st = b->st;
	if (b->cause != NULL) {
		*cause = b->cause;
		goto out;
	}
	if ((k = calloc(1, sizeof(*k))) == NULL)
		goto nomem;
	for (i = 1; i < b->nsyms && sorted; i++)
		sorted = b->syms[i - 1].addr <= b->syms[i].addr;
	if (!sorted)
		qsort(b->syms, b->nsyms, sizeof(*b->syms), sym_cmp);
	/* Aliases at one address: the first one listed names it. */
	for (i = 0; i < b->nsyms; i++)
		if (n == 0 || b->syms[n - 1].addr != b->syms[i].addr)
			b->syms[n++] = b->syms[i];
	k->n = (uint32_t)n;
	if (n == 0)
		goto out;
	k->base = b->syms[0].addr;
	if ((k->names = malloc(n * sizeof(*k->names))) == NULL)
		goto nomem;
	if (b->syms[n - 1].addr - k->base <= UINT32_MAX)
		k->a32 = malloc(n * sizeof(*k->a32));
	else
		k->a64 = malloc(n * sizeof(*k->a64));
	if (k->a32 == NULL && k->a64 == NULL)
		goto nomem;
	for (i = 0; i < n; i++) {
		k->names[i] = b->syms[i].name;
		if (k->a32 != NULL)
			k->a32[i] = (uint32_t)(b->syms[i].addr - k->base);
		else
			k->a64[i] = b->syms[i].addr;
	}
	/* The pool was grown by doubling: give back the slack. */
	if ((np = realloc(b->pool, b->poollen)) != NULL)
		b->pool = np;
	k->pool = b->pool;
	k->poollen = b->poollen;
	b->pool = NULL;
	goto out;
nomem:
	*cause = "out of memory";
	ksyms_free(k);
	k = NULL;
out:
	ksyms_builder_free(b);
	return k;
}

struct ksyms *
ksyms_parse_untrusted(const char *text, size_t len,
    struct ksyms_parse_stats *st, const char **cause)
{
	struct ksyms_builder *b;

	if ((b = ksyms_builder_new()) == NULL) {
		*cause = "out of memory";
		return NULL;
	}
	ksyms_builder_feed_untrusted(b, text, len);
	return ksyms_builder_finish(b, st, cause);
}

struct ksyms *
ksyms_read_fd(int fd, struct ksyms_parse_stats *st, const char **cause)
{
	struct ksyms_builder *b;
	size_t total = 0;
	ssize_t n;
	char *buf;

	b = ksyms_builder_new();
	buf = malloc(READ_CHUNK);
	if (b == NULL || buf == NULL) {
		ksyms_builder_free(b);
		free(buf);
		close(fd);
		*cause = "out of memory";
		return NULL;
	}
	for (;;) {
		n = read(fd, buf, READ_CHUNK);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1) {
			*cause = strerror(errno);
			ksyms_builder_free(b);
			b = NULL;
			break;
		}
		if (n == 0)
			break;
		ksyms_builder_feed_untrusted(b, buf, (size_t)n);
		if ((total += (size_t)n) > READ_MAX) {
			*cause = "kallsyms larger than the size bound";
			ksyms_builder_free(b);
			b = NULL;
			break;
		}
	}
	free(buf);
	close(fd);
	return b == NULL ? NULL : ksyms_builder_finish(b, st, cause);
}

void
ksyms_free(struct ksyms *k)
{
	if (k == NULL)
		return;
	free(k->a32);
	free(k->a64);
	free(k->names);
	free(k->pool);
	free(k);
}

static uint64_t
sym_addr(const struct ksyms *k, uint32_t i)
{
	return k->a32 != NULL ? k->base + k->a32[i] : k->a64[i];
}

int
ksyms_lookup(const struct ksyms *k, uint64_t addr, char *buf, size_t bufsz)
{
	uint32_t lo = 0, hi, mid, off;
	const char *name;
	size_t plen, nlen;

	if (k == NULL || k->n == 0 || bufsz == 0 || addr < k->base)
		return -1;
	/* The first symbol above addr; the one before it holds addr. */
	hi = k->n;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (sym_addr(k, mid) <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || addr - sym_addr(k, lo - 1) >= KSYMS_MAX_SPAN)
		return -1;
	off = k->names[lo - 1];
	name = k->pool + (off & ~NAME_PFX_BIT);
	plen = off & NAME_PFX_BIT ? PFX_LEN : 0;
	nlen = strlen(name);
	if (plen + nlen >= bufsz) {
		/* Truncated, still NUL-terminated. */
		if (plen >= bufsz)
			plen = bufsz - 1;
		nlen = bufsz - 1 - plen;
	}
	memcpy(buf, PFX, plen);
	memcpy(buf + plen, name, nlen);
	buf[plen + nlen] = '\0';
	return (int)(plen + nlen);
}

uint32_t
ksyms_count(const struct ksyms *k)
{
	return k == NULL ? 0 : k->n;
}

size_t
ksyms_mem_bytes(const struct ksyms *k)
{
	if (k == NULL)
		return 0;
	return sizeof(*k) + (size_t)k->n * (sizeof(uint32_t) +
	    (k->a32 != NULL ? sizeof(uint32_t) : sizeof(uint64_t))) +
	    k->poollen;
}

/* ---- the process-wide table ---- */

static struct ksyms	*shared;
static int		 shared_refs;

/*
 * Through the broker in the daemon: the worker, without CAP_SYSLOG,
 * would read every address as 0.
 */
static int
kallsyms_open(void)
{
	return tfs_open_proc("/proc/kallsyms");
}

const struct ksyms *
ksyms_get(void)
{
	struct ksyms_parse_stats st;
	struct timespec t0, t1;
	const char *cause = "unknown error";
	int fd;

	if (shared_refs > 0) {
		shared_refs++;
		return shared;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if ((fd = kallsyms_open()) == -1) {
		log_warn("%s: /proc/kallsyms", __func__);
		return NULL;
	}
	if ((shared = ksyms_read_fd(fd, &st, &cause)) == NULL) {
		log_warnx("%s: /proc/kallsyms: %s", __func__, cause);
		return NULL;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	shared_refs = 1;
	if (ksyms_count(shared) == 0 && st.zero > 0)
		log_warnx("%s: /proc/kallsyms shows every address as 0 "
		    "(kptr_restrict, or opened without CAP_SYSLOG): no kernel "
		    "symbols will be named", __func__);
	log_info("%s: %u kernel symbols, %zu KiB, in %ld ms (%llu lines, "
	    "%llu malformed)", __func__, ksyms_count(shared),
	    ksyms_mem_bytes(shared) / 1024,
	    (long)((t1.tv_sec - t0.tv_sec) * 1000 +
	    (t1.tv_nsec - t0.tv_nsec) / 1000000),
	    (unsigned long long)st.lines, (unsigned long long)st.malformed);
	return shared;
}

void
ksyms_put(void)
{
	if (shared_refs == 0 || --shared_refs > 0)
		return;
	ksyms_free(shared);
	shared = NULL;
}
