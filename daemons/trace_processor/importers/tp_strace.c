/*
 * strace text (`strace -f -ttt`): each syscall a slice on its thread's
 * track, category "strace", with its arguments and return value as the
 * args "args" and "ret". A call strace splits ("<unfinished ...>" then
 * "<... name resumed>") spans the two lines. Only Unix epoch timestamps
 * (-ttt) are read: -t/-tt have no date. Lines that are no syscall
 * (signals, exits), without a pid or with a -t/-tt time are counted in
 * upstream's stats and skipped.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tp_int.h"

#define NS_PER_SEC	1000000000LL
#define MAX_SECONDS	(INT64_MAX / NS_PER_SEC)
#define NAME_MAX_LEN	256

enum call_kind { CALL_COMPLETE, CALL_UNFINISHED, CALL_RESUMED,
    CALL_RESUMED_UNFINISHED };

enum line_result { LINE_OK, LINE_BAD, LINE_BAD_TIME };

struct sline {
	int		 has_pid;
	int64_t		 pid;
	int64_t		 ts;
	enum call_kind	 kind;
	const char	*name, *args, *ret;	/* ret NULL: none */
	size_t		 namelen, argslen, retlen;
};

/* A call begun and not yet resumed: its args wait for the end, which
 * may bring newer ones (upstream keeps the last). */
struct open_call {
	int64_t		 utid;
	int64_t		 set;
	char		*name;
	char		*args;		/* NULL: none */
};

struct tp_strace {
	struct tp_lines	 lines;
	struct open_call *open;
	size_t		 nopen, capopen;
};

static int
is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' ||
	    c == '\f';
}

static void
trim(const char **s, size_t *len)
{
	while (*len > 0 && is_space(**s))
		(*s)++, (*len)--;
	while (*len > 0 && is_space((*s)[*len - 1]))
		(*len)--;
}

static const char *
find(const char *s, size_t len, const char *what)
{
	size_t n = strlen(what), i;

	for (i = 0; i + n <= len; i++)
		if (memcmp(s + i, what, n) == 0)
			return s + i;
	return NULL;
}

/* Digits only, with an optional '+'; -1 on anything else or overflow. */
static int
parse_u63(const char *s, size_t len, int64_t *v)
{
	size_t i = 0;
	int64_t n = 0;

	if (len > 0 && s[0] == '+')
		i++;
	if (i == len)
		return -1;
	for (; i < len; i++) {
		if (s[i] < '0' || s[i] > '9' || n > (INT64_MAX - 9) / 10)
			return -1;
		n = n * 10 + (s[i] - '0');
	}
	*v = n;
	return 0;
}

/* "SECONDS[.MICROSECONDS]" (the fraction is microseconds however many
 * digits it has, as strace prints it). */
static int
epoch_ns(const char *s, size_t len, int64_t *ns)
{
	const char *dot = memchr(s, '.', len);
	int64_t sec, us = 0;

	if (parse_u63(s, dot ? (size_t)(dot - s) : len, &sec) == -1 ||
	    sec > MAX_SECONDS)
		return -1;
	if (dot != NULL && dot + 1 < s + len && (parse_u63(dot + 1,
	    (size_t)(s + len - dot - 1), &us) == -1 || us > 999999))
		return -1;
	*ns = sec * NS_PER_SEC + us * 1000;
	return 0;
}

static enum line_result
line_parse(const char *s, size_t len, struct sline *l)
{
	const char *sp, *p, *q, *close = NULL;
	size_t n, i;

	memset(l, 0, sizeof(*l));
	trim(&s, &len);
	if (len == 0 || s[0] == '-' || s[0] == '+')
		return LINE_BAD;
	/* A pid (-f) is under 10 digits; 10 or more are a -ttt time. */
	if ((sp = memchr(s, ' ', len)) != NULL) {
		n = (size_t)(sp - s);
		for (i = 0; i < n && s[i] >= '0' && s[i] <= '9'; i++)
			;
		if (n > 0 && n < 10 && i == n) {
			if (parse_u63(s, n, &l->pid) == -1 ||
			    l->pid > UINT32_MAX)
				return LINE_BAD;
			l->has_pid = 1;
			s = sp + 1;
			len -= n + 1;
			trim(&s, &len);
		}
	}
	if ((sp = memchr(s, ' ', len)) == NULL)
		return LINE_BAD;
	n = (size_t)(sp - s);
	if (memchr(s, ':', n) != NULL)
		return LINE_BAD_TIME;
	if (epoch_ns(s, n, &l->ts) == -1)
		return LINE_BAD;
	s = sp + 1;
	len -= n + 1;
	trim(&s, &len);
	if (len == 0)
		return LINE_BAD;
	if (len >= 5 && memcmp(s, "<... ", 5) == 0) {
		if ((p = find(s + 5, len - 5, " resumed>")) == NULL)
			return LINE_BAD;
		l->name = s + 5;
		l->namelen = (size_t)(p - l->name);
		len -= (size_t)(p + 9 - s);
		s = p + 9;
		trim(&s, &len);
		l->kind = CALL_RESUMED;
	} else {
		if ((p = memchr(s, '(', len)) == NULL)
			return LINE_BAD;
		l->name = s;
		l->namelen = (size_t)(p - s);
		len -= (size_t)(p + 1 - s);
		s = p + 1;
		l->kind = CALL_COMPLETE;
	}
	if ((p = find(s, len, "<unfinished ...>")) != NULL) {
		l->args = s;
		l->argslen = (size_t)(p - s);
		trim(&l->args, &l->argslen);
		while (l->argslen > 0 && l->args[l->argslen - 1] == ',')
			l->argslen--;
		l->kind = l->kind == CALL_RESUMED ? CALL_RESUMED_UNFINISHED :
		    CALL_UNFINISHED;
		return LINE_OK;
	}
	/* The call's own ')' is the one before " = ret": the return value
	 * may hold parentheses too. */
	for (p = s; p < s + len && (p = memchr(p, ')', (size_t)(s + len -
	    p))) != NULL; p++) {
		for (q = p + 1; q < s + len && is_space(*q); q++)
			;
		if (q < s + len && *q == '=') {
			close = p;
			break;
		}
	}
	if (close == NULL) {
		/* "<... read resumed>) = 3" left no args. */
		if ((p = memchr(s, '=', len)) == NULL)
			return LINE_BAD;
	} else {
		l->args = s;
		l->argslen = (size_t)(close - s);
		trim(&l->args, &l->argslen);
		p = memchr(close, '=', (size_t)(s + len - close));
	}
	l->ret = p + 1;
	l->retlen = (size_t)(s + len - l->ret);
	trim(&l->ret, &l->retlen);
	return LINE_OK;
}

/* Upstream's sniff: the first line is a syscall line. */
int
tp_strace_sniff(const uint8_t *buf, size_t len)
{
	const char *s = (const char *)buf, *nl = memchr(s, '\n', len);
	struct sline l;

	return line_parse(s, nl ? (size_t)(nl - s) : len, &l) == LINE_OK;
}

static void
line_done(struct tp *tp, const char *s, size_t len)
{
	struct sline l;

	switch (line_parse(s, len, &l)) {
	case LINE_BAD:
		tp_stat_inc(tp, ST_STRACE_PARSE_FAILURE, 1);
		return;
	case LINE_BAD_TIME:
		tp_stat_inc(tp, ST_STRACE_UNSUPPORTED_TIMESTAMP_FORMAT, 1);
		return;
	case LINE_OK:
		break;
	}
	/* Without -f there is no pid to give the call to. */
	if (!l.has_pid) {
		tp_stat_inc(tp, ST_STRACE_MISSING_PID, 1);
		return;
	}
	(void)tp_sorter_push(tp, l.ts, SK_STRACE, 0, NULL, s, len);
}

static void
args_add(struct tp *tp, int64_t set, const char *args, size_t argslen,
    const struct sline *l)
{
	if (args != NULL && argslen > 0)
		tp_arg_str(tp, set, "args", "args", args, argslen, NULL);
	if (l != NULL && l->ret != NULL)
		tp_arg_str(tp, set, "ret", "ret", l->ret, l->retlen, NULL);
}

static void
call_begin(struct tp *tp, int64_t utid, int64_t track, int64_t ts,
    const char *name, const struct sline *l)
{
	struct tp_strace *st = tp->strace;
	struct open_call *c;

	if (st->nopen == st->capopen) {
		size_t ncap = st->capopen ? st->capopen * 2 : 16;
		void *p = realloc(st->open, ncap * sizeof(*c));

		if (p == NULL)
			return;
		st->open = p;
		st->capopen = ncap;
	}
	c = &st->open[st->nopen];
	c->utid = utid;
	c->set = tp_arg_set_new(tp);
	c->args = l->argslen > 0 ? tp_strndup(l->args, l->argslen) : NULL;
	if ((c->name = strdup(name)) == NULL) {
		free(c->args);
		return;
	}
	st->nopen++;
	(void)tp_slice_begin(tp, track, ts, "strace", name, c->set, TP_NULL);
}

static void
call_close(struct tp_strace *st, size_t i)
{
	free(st->open[i].name);
	free(st->open[i].args);
	memmove(&st->open[i], &st->open[i + 1], (st->nopen - i - 1) *
	    sizeof(st->open[0]));
	st->nopen--;
}

/* The resumed call ends: the innermost open one of its name. */
static void
call_end(struct tp *tp, int64_t utid, int64_t track, int64_t ts,
    const char *name, const struct sline *l)
{
	struct tp_strace *st = tp->strace;
	struct open_call *c;
	int64_t set;
	size_t i;

	(void)tp_slice_end_matching(tp, track, ts, "strace", name,
	    TP_NULL, &set);
	if (set == TP_NULL)
		return;
	for (i = st->nopen; i > 0; i--) {
		c = &st->open[i - 1];
		if (c->utid == utid && c->set == set) {
			if (l->argslen > 0)
				args_add(tp, set, l->args, l->argslen, l);
			else
				args_add(tp, set, c->args, c->args ?
				    strlen(c->args) : 0, l);
			call_close(st, i - 1);
			return;
		}
	}
	args_add(tp, set, l->args, l->argslen, l);
}

void
tp_strace_parse_sorted(struct tp *tp, struct tp_sort_item *it)
{
	char name[NAME_MAX_LEN];
	struct sline l;
	int64_t utid, track, set;

	if (tp->strace == NULL || line_parse((const char *)it->data, it->len,
	    &l) != LINE_OK)
		return;
	snprintf(name, sizeof(name), "%.*s", (int)(l.namelen <
	    sizeof(name) ? l.namelen : sizeof(name) - 1), l.name);
	utid = tp_thread_get(tp, l.pid);
	track = tp_thread_track(tp, utid);
	switch (l.kind) {
	case CALL_COMPLETE:
		set = tp_arg_set_new(tp);
		args_add(tp, set, l.args, l.argslen, &l);
		(void)tp_slice_complete(tp, track, it->ts, 0, "strace", name,
		    set, TP_NULL, TP_NULL);
		return;
	case CALL_UNFINISHED:
		call_begin(tp, utid, track, it->ts, name, &l);
		return;
	case CALL_RESUMED:
		call_end(tp, utid, track, it->ts, name, &l);
		return;
	case CALL_RESUMED_UNFINISHED:
		call_end(tp, utid, track, it->ts, name, &l);
		call_begin(tp, utid, track, it->ts, name, &l);
		return;
	}
}

/* Calls still unfinished when the trace ends keep the args they began
 * with. */
void
tp_strace_flush(struct tp *tp)
{
	struct tp_strace *st = tp->strace;

	if (st == NULL)
		return;
	while (st->nopen > 0) {
		struct open_call *c = &st->open[st->nopen - 1];

		args_add(tp, c->set, c->args, c->args ? strlen(c->args) : 0,
		    NULL);
		call_close(st, st->nopen - 1);
	}
}

int
tp_strace_feed(struct tp *tp, const uint8_t *buf, size_t len)
{
	struct tp_strace *st = tp->strace;

	if (st == NULL && (st = tp->strace = calloc(1, sizeof(*st))) == NULL)
		return tp_seterr(tp, "%s: out of memory", __func__);
	return tp_lines_feed(tp, &st->lines, buf, len, line_done,
	    ST_STRACE_PARSE_FAILURE);
}

/* A last line without its newline is left out, as upstream leaves it. */
int
tp_strace_end(struct tp *tp)
{
	const char *s;
	size_t len;

	if (tp->strace != NULL)
		(void)tp_lines_rest(&tp->strace->lines, &s, &len);
	return 0;
}

void
tp_strace_free(struct tp *tp)
{
	struct tp_strace *st = tp->strace;

	if (st == NULL)
		return;
	while (st->nopen > 0)
		call_close(st, st->nopen - 1);
	free(st->open);
	tp_lines_free(&st->lines);
	free(st);
	tp->strace = NULL;
}
