/*
 * TraceConfig.trace_filter: upstream's field allow-list, applied to every
 * packet a session reads out (ReadBuffers and write_into_file alike).
 *
 * The bytecode is an ABI shared with upstream's tools (proto_filter):
 * varints, one group of words per message type, the types numbered 0, 1,
 * ... in the order they appear; type 0 is perfetto.protos.Trace.
 *
 *   word = field_id << 3 | opcode
 *   0 END_OF_MESSAGE                  closes the current type
 *   1 SIMPLE_FIELD                    the field is kept as it is
 *   2 SIMPLE_FIELD_RANGE, n           fields [id, id + n) are kept
 *   3 NESTED_FIELD, type              a submessage, filtered by 'type'
 *   4 FILTER_STRING                   a string kept, then passed through
 *                                     the string_filter_chain rules
 *   5 FILTER_STRING_WITH_TYPE, st     the same, for rules of semantic type st
 *   last word: checksum, the low 32 bits of FNV-1a 64 over every word
 *   before it, each hashed as 4 little-endian bytes.
 *
 * bytecode_v2 (Android U) only added opcodes 4 and 5: one parser reads
 * both, bytecode_v2 wins when both are set, as upstream.
 * bytecode_overlay_v54 is a list of (type, field_id << 3 | opcode, arg)
 * triplets sorted by (type, field), then a checksum: each adds a field or
 * replaces its opcode (1, 4 or 5 only).
 *
 * Filtering starts at TracePacket (type 0's field 1, which must be a
 * nested field). Fields a type does not name are dropped; so are fields
 * whose wire type does not fit what the bytecode says (a NESTED or STRING
 * field as a varint). Varints come out minimal; a kept submessage keeps
 * the width of its input length, back-filled as a padded varint once its
 * filtered size is known, so output never outgrows input. Malformed
 * input (bad wire type, truncated field, a length past its parent) fails
 * the whole packet: the caller emits an empty one and counts an error,
 * as upstream does.
 *
 * String rules use POSIX extended regexes (upstream: RE2): '\d' and '\D'
 * are translated, back-references refused; a "match" is a full match.
 * Redaction overwrites each captured group with "P60REDACTED" (cut to
 * the group's length) and '-' past it, in place, keeping the length.
 */
#include "config.h"

#include <sys/types.h>

#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "libshm/pbw.h"
#include "traced.h"

/* Field state words: kind in the top 2 bits, argument below. */
#define TF_KIND_SHIFT	30
#define TF_ARG_MASK	((1u << TF_KIND_SHIFT) - 1)
#define TF_DROP		0u
#define TF_SIMPLE	1u
#define TF_NESTED	2u
#define TF_STRING	3u
#define TF_STATE(k, a)	((uint32_t)(k) << TF_KIND_SHIFT | (a))
#define TF_KIND(s)	((s) >> TF_KIND_SHIFT)

#define TF_DIRECT	128		/* field ids below: one word each */
#define TF_FIELD_MAX	((1u << 29) - 1)	/* largest proto field id */
#define TF_MAX_DEPTH	128		/* nested submessages kept at once */
#define TF_MAX_RULES	128
#define TF_MAX_PATTERN	1024
#define TF_TYPES	128		/* semantic types a rule can name */

enum tf_opcode {
	TF_OP_END = 0,
	TF_OP_SIMPLE = 1,
	TF_OP_RANGE = 2,
	TF_OP_NESTED = 3,
	TF_OP_STRING = 4,
	TF_OP_STRING_TYPED = 5,
};

enum tf_policy {
	TF_MATCH_REDACT = 1,
	TF_ATRACE_MATCH_REDACT = 2,
	TF_MATCH_BREAK = 3,
	TF_ATRACE_MATCH_BREAK = 4,
	TF_ATRACE_SEARCH_REDACT = 5,
};

struct tf_range {
	uint32_t	 lo, hi;	/* [lo, hi) */
	uint32_t	 state;
};

struct tf_msg {
	uint32_t	 ndirect;	/* field ids 0..ndirect-1 in direct[] */
	uint32_t	 direct;	/* offset in trace_filter.direct */
	uint32_t	 nrange;
	uint32_t	 range;		/* offset in trace_filter.ranges */
};

struct tf_rule {
	enum tf_policy	 policy;
	regex_t		 full;		/* ^(pattern)$ */
	regex_t		 search;	/* pattern, for repeated search */
	int		 compiled;
	char		*atrace_prefix;
	size_t		 atrace_len;
	char		*name;
	uint64_t	 types[TF_TYPES / 64];
};

struct trace_filter {
	struct tf_msg	*msgs;
	uint32_t	 nmsgs;
	uint32_t	*direct;
	size_t		 ndirect;
	struct tf_range	*ranges;
	size_t		 nranges;
	uint32_t	 root;
	struct tf_rule	*rules;
	size_t		 nrules;
	uint8_t		*out;		/* output of the last packet */
	size_t		 outcap;
	regmatch_t	*match;		/* scratch for regexec */
	size_t		 nmatch;
	char		*str;		/* NUL-terminated copy for regexec */
	size_t		 strcap;
};

/* Builder state of the type being read. */
struct tf_build {
	uint32_t	 direct[TF_DIRECT];
	uint32_t	 ndirect;
	struct tf_range	*ranges;
	size_t		 nranges, cap;
	uint32_t	 max_nested;
};

struct tf_overlay {
	uint32_t	 msg, field, state;
};

/* ---- bytecode -------------------------------------------------------- */

/* The bytecode's last word: FNV-1a 64 over each word's 4 LE bytes, cut. */
uint32_t
trace_filter_checksum(const uint32_t *w, size_t n)
{
	uint64_t	h = 0xcbf29ce484222325ull;
	size_t		i;
	int		b;

	for (i = 0; i < n; i++)
		for (b = 0; b < 4; b++) {
			h ^= (w[i] >> (8 * b)) & 0xff;
			h *= 0x100000001b3ull;
		}
	return (uint32_t)h;
}

/*
 * Varints into words, then the checksum check. Returns the number of
 * words before the checksum, or -1.
 */
static ssize_t
tf_words_untrusted(const uint8_t *p, size_t len, uint32_t **wordsp,
    const char **cause)
{
	const uint8_t	*end = p + len;
	uint32_t	*w;
	uint64_t	 v;
	size_t		 n = 0;

	*wordsp = NULL;
	if (len == 0) {
		*cause = "trace filter bytecode invalid: empty";
		return -1;
	}
	if ((w = calloc(len, sizeof(*w))) == NULL) {
		*cause = "out of memory";
		return -1;
	}
	while (p < end) {
		if (packet_varint(&p, end, &v) == -1 || v > UINT32_MAX) {
			free(w);
			*cause = "trace filter bytecode invalid: bad varint";
			return -1;
		}
		w[n++] = (uint32_t)v;
	}
	if (trace_filter_checksum(w, n - 1) != w[n - 1]) {
		free(w);
		*cause = "trace filter bytecode invalid: checksum mismatch";
		return -1;
	}
	*wordsp = w;
	return (ssize_t)(n - 1);
}

static int
tf_overlay_untrusted(const uint8_t *p, size_t len, struct tf_overlay **ovp,
    size_t *novp, const char **cause)
{
	struct tf_overlay	*ov;
	uint32_t		*w, op;
	ssize_t			 n;
	size_t			 i, k = 0;

	*ovp = NULL;
	*novp = 0;
	if (len == 0)
		return 0;
	if ((n = tf_words_untrusted(p, len, &w, cause)) == -1)
		return -1;
	if (n % 3 != 0 || (ov = calloc((size_t)n / 3 + 1, sizeof(*ov))) ==
	    NULL) {
		free(w);
		*cause = "trace filter overlay invalid: not triplets";
		return -1;
	}
	for (i = 0; i < (size_t)n; i += 3, k++) {
		op = w[i + 1] & 7;
		ov[k].msg = w[i];
		ov[k].field = w[i + 1] >> 3;
		if (op == TF_OP_SIMPLE)
			ov[k].state = TF_STATE(TF_SIMPLE, 0);
		else if (op == TF_OP_STRING)
			ov[k].state = TF_STATE(TF_STRING, 0);
		else if (op == TF_OP_STRING_TYPED)
			ov[k].state = TF_STATE(TF_STRING, w[i + 2] & 0xffff);
		else
			goto bad;
		if (ov[k].field == 0)
			goto bad;
		if (k > 0 && (ov[k].msg < ov[k - 1].msg ||
		    (ov[k].msg == ov[k - 1].msg &&
		    ov[k].field <= ov[k - 1].field)))
			goto bad;
	}
	free(w);
	*ovp = ov;
	*novp = k;
	return 0;
bad:
	free(w);
	free(ov);
	*cause = "trace filter overlay invalid: bad or unsorted entry";
	return -1;
}

static int
tf_build_range(struct tf_build *b, uint32_t lo, uint32_t hi, uint32_t state)
{
	struct tf_range	*n;

	if (b->nranges == b->cap) {
		b->cap = b->cap ? b->cap * 2 : 16;
		if ((n = reallocarray(b->ranges, b->cap, sizeof(*n))) == NULL)
			return -1;
		b->ranges = n;
	}
	b->ranges[b->nranges].lo = lo;
	b->ranges[b->nranges].hi = hi;
	b->ranges[b->nranges].state = state;
	b->nranges++;
	return 0;
}

static int
tf_build_field(struct tf_build *b, uint32_t field, uint32_t state)
{
	if (field < TF_DIRECT) {
		b->direct[field] = state;
		if (field + 1 > b->ndirect)
			b->ndirect = field + 1;
		return 0;
	}
	return tf_build_range(b, field, field + 1, state);
}

static int
tf_range_cmp(const void *a, const void *b)
{
	const struct tf_range *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Closes the type being built: overlay entries, checks, then append. */
static int
tf_build_end(struct trace_filter *tf, struct tf_build *b,
    const struct tf_overlay *ov, size_t nov, size_t *iov, const char **cause)
{
	struct tf_msg	*m;
	void		*n;
	size_t		 i;

	for (; *iov < nov && ov[*iov].msg == tf->nmsgs; (*iov)++) {
		/* An overlay entry replaces a field the bytecode names. */
		for (i = 0; i < b->nranges; i++)
			if (b->ranges[i].lo == ov[*iov].field &&
			    b->ranges[i].hi == ov[*iov].field + 1)
				b->ranges[i].state = ov[*iov].state;
		if (ov[*iov].field >= TF_DIRECT && i < b->nranges)
			continue;
		if (tf_build_field(b, ov[*iov].field, ov[*iov].state) == -1)
			goto oom;
	}
	if (b->nranges > 1)
		qsort(b->ranges, b->nranges, sizeof(*b->ranges),
		    tf_range_cmp);
	for (i = 1; i < b->nranges; i++)
		if (b->ranges[i].lo < b->ranges[i - 1].hi) {
			*cause = "trace filter bytecode invalid: overlapping "
			    "fields";
			return -1;
		}
	if ((n = reallocarray(tf->msgs, tf->nmsgs + 1, sizeof(*tf->msgs))) ==
	    NULL)
		goto oom;
	tf->msgs = n;
	if ((n = reallocarray(tf->direct, tf->ndirect + b->ndirect + 1,
	    sizeof(*tf->direct))) == NULL)
		goto oom;
	tf->direct = n;
	if ((n = reallocarray(tf->ranges, tf->nranges + b->nranges + 1,
	    sizeof(*tf->ranges))) == NULL)
		goto oom;
	tf->ranges = n;
	m = &tf->msgs[tf->nmsgs++];
	m->ndirect = b->ndirect;
	m->direct = (uint32_t)tf->ndirect;
	m->nrange = (uint32_t)b->nranges;
	m->range = (uint32_t)tf->nranges;
	memcpy(tf->direct + tf->ndirect, b->direct,
	    b->ndirect * sizeof(*b->direct));
	tf->ndirect += b->ndirect;
	if (b->nranges > 0)
		memcpy(tf->ranges + tf->nranges, b->ranges,
		    b->nranges * sizeof(*b->ranges));
	tf->nranges += b->nranges;
	memset(b->direct, 0, sizeof(b->direct));
	b->ndirect = 0;
	b->nranges = 0;
	return 0;
oom:
	*cause = "out of memory";
	return -1;
}

static int
tf_build_words(struct trace_filter *tf, const uint32_t *w, size_t n,
    const struct tf_overlay *ov, size_t nov, const char **cause)
{
	struct tf_build	 b;
	uint32_t	 op, field, arg, hi;
	size_t		 i, iov = 0;
	int		 open = 0, rc = -1;

	memset(&b, 0, sizeof(b));
	*cause = "trace filter bytecode invalid";
	for (i = 0; i < n; i++) {
		op = w[i] & 7;
		field = w[i] >> 3;
		open = op != TF_OP_END;
		if (op == TF_OP_END) {
			if (tf_build_end(tf, &b, ov, nov, &iov, cause) == -1)
				goto out;
			continue;
		}
		if (field == 0 || op > TF_OP_STRING_TYPED)
			goto out;
		if (op == TF_OP_SIMPLE || op == TF_OP_STRING) {
			if (tf_build_field(&b, field, TF_STATE(op ==
			    TF_OP_SIMPLE ? TF_SIMPLE : TF_STRING, 0)) == -1)
				goto oom;
			continue;
		}
		/* The other opcodes take an argument word. */
		if (i + 1 == n)
			goto out;
		arg = w[++i];
		if (op == TF_OP_NESTED) {
			if (arg > TF_ARG_MASK)
				goto out;
			if (arg > b.max_nested)
				b.max_nested = arg;
			if (tf_build_field(&b, field,
			    TF_STATE(TF_NESTED, arg)) == -1)
				goto oom;
		} else if (op == TF_OP_STRING_TYPED) {
			if (tf_build_field(&b, field,
			    TF_STATE(TF_STRING, arg & 0xffff)) == -1)
				goto oom;
		} else {	/* TF_OP_RANGE */
			if (arg > TF_FIELD_MAX + 1 - field)
				goto out;
			hi = field + arg;
			for (; field < hi && field < TF_DIRECT; field++)
				if (tf_build_field(&b, field,
				    TF_STATE(TF_SIMPLE, 0)) == -1)
					goto oom;
			if (field < hi && tf_build_range(&b, field, hi,
			    TF_STATE(TF_SIMPLE, 0)) == -1)
				goto oom;
		}
	}
	if (open || tf->nmsgs == 0) {
		*cause = "trace filter bytecode invalid: a message is not "
		    "terminated";
		goto out;
	}
	if (b.max_nested >= tf->nmsgs) {
		*cause = "trace filter bytecode invalid: nested message index "
		    "out of range";
		goto out;
	}
	if (iov != nov) {
		*cause = "trace filter overlay invalid: names a message the "
		    "bytecode does not have";
		goto out;
	}
	rc = 0;
	goto out;
oom:
	*cause = "out of memory";
out:
	free(b.ranges);
	return rc;
}

static inline uint32_t
tf_lookup(const struct trace_filter *tf, uint32_t msg, uint32_t field)
{
	const struct tf_msg	*m = &tf->msgs[msg];
	const struct tf_range	*r = tf->ranges + m->range;
	size_t			 lo = 0, hi = m->nrange, mid;

	if (field < m->ndirect)
		return tf->direct[m->direct + field];
	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (field < r[mid].lo)
			hi = mid;
		else if (field >= r[mid].hi)
			lo = mid + 1;
		else
			return r[mid].state;
	}
	return TF_DROP;
}

static void
tf_reset_bytecode(struct trace_filter *tf)
{
	free(tf->msgs);
	free(tf->direct);
	free(tf->ranges);
	tf->msgs = NULL;
	tf->direct = NULL;
	tf->ranges = NULL;
	tf->nmsgs = 0;
	tf->ndirect = tf->nranges = 0;
}

int
trace_filter_load_untrusted(struct trace_filter *tf, const uint8_t *bc,
    size_t len, const uint8_t *overlay, size_t olen, const char **cause)
{
	struct tf_overlay	*ov = NULL;
	uint32_t		*w = NULL, st;
	size_t			 nov = 0;
	ssize_t			 n;
	int			 rc = -1;

	tf_reset_bytecode(tf);
	if ((n = tf_words_untrusted(bc, len, &w, cause)) == -1 ||
	    tf_overlay_untrusted(overlay, olen, &ov, &nov, cause) == -1 ||
	    tf_build_words(tf, w, (size_t)n, ov, nov, cause) == -1)
		goto out;
	/* Packets are filtered from Trace.packet down, as upstream. */
	st = tf_lookup(tf, 0, 1);
	if (TF_KIND(st) != TF_NESTED) {
		*cause = "trace filter bytecode invalid: Trace.packet (message "
		    "0, field 1) is not a nested message";
		goto out;
	}
	tf->root = st & TF_ARG_MASK;
	rc = 0;
out:
	if (rc == -1)
		tf_reset_bytecode(tf);
	free(w);
	free(ov);
	return rc;
}

/* ---- string rules ---------------------------------------------------- */

/*
 * Upstream's patterns are RE2: translate the Perl classes people use in
 * practice (\d, \D) and refuse back-references, which RE2 refuses too.
 */
static char *
tf_regex_translate(const char *pat, int anchored, const char **cause)
{
	size_t	 len = strlen(pat), o = 0;
	char	*out;
	int	 bracket = 0;

	if (len > TF_MAX_PATTERN) {
		*cause = "trace filter: a string filter regex is too long";
		return NULL;
	}
	if ((out = malloc(len * 5 + 8)) == NULL) {
		*cause = "out of memory";
		return NULL;
	}
	if (anchored) {
		memcpy(out, "^(", 2);
		o = 2;
	}
	for (size_t i = 0; i < len; i++) {
		if (bracket) {
			if (pat[i] == ']' && bracket > 1)
				bracket = 0;
			else
				bracket++;
			out[o++] = pat[i];
			continue;
		}
		if (pat[i] == '[') {
			bracket = 1;
			out[o++] = pat[i];
			if (pat[i + 1] == '^')
				out[o++] = pat[++i];
			continue;
		}
		if (pat[i] == '\\' && pat[i + 1] != '\0') {
			char c = pat[++i];

			if (c >= '1' && c <= '9') {
				free(out);
				*cause = "trace filter: back-references are not "
				    "supported in string filter regexes";
				return NULL;
			}
			if (c == 'd' || c == 'D') {
				memcpy(out + o, c == 'd' ? "[0-9]" : "[^0-9]",
				    c == 'd' ? 5 : 6);
				o += c == 'd' ? 5 : 6;
				continue;
			}
			out[o++] = '\\';
			out[o++] = c;
			continue;
		}
		out[o++] = pat[i];
	}
	if (anchored) {
		memcpy(out + o, ")$", 2);
		o += 2;
	}
	out[o] = '\0';
	return out;
}

static int
tf_rule_compile(struct tf_rule *r, const char *pattern, const char **cause)
{
	char	*full, *search;
	int	 e1 = -1, e2 = -1;

	if ((full = tf_regex_translate(pattern, 1, cause)) == NULL)
		return -1;
	if ((search = tf_regex_translate(pattern, 0, cause)) == NULL) {
		free(full);
		return -1;
	}
	if ((e1 = regcomp(&r->full, full, REG_EXTENDED)) != 0 ||
	    (e2 = regcomp(&r->search, search, REG_EXTENDED)) != 0) {
		if (e1 == 0)
			regfree(&r->full);
		*cause = "trace filter: a string filter regex does not "
		    "compile (POSIX extended syntax)";
	} else
		r->compiled = 1;
	free(full);
	free(search);
	return r->compiled ? 0 : -1;
}

static void
tf_rule_clear(struct tf_rule *r)
{
	if (r->compiled) {
		regfree(&r->full);
		regfree(&r->search);
	}
	free(r->atrace_prefix);
	free(r->name);
	memset(r, 0, sizeof(*r));
}

typedef Perfetto__Protos__TraceConfig__TraceFilter__StringFilterRule
    StringFilterRule;

/* A named rule replaces the earlier one of that name, as upstream. */
static int
tf_rule_add(struct trace_filter *tf, const StringFilterRule *sr,
    const char **cause)
{
	struct tf_rule	 r, *n;
	size_t		 i;

	memset(&r, 0, sizeof(r));
	if (!sr->has_policy || (int)sr->policy < TF_MATCH_REDACT ||
	    (int)sr->policy > TF_ATRACE_SEARCH_REDACT) {
		*cause = "Trace filter has invalid string filtering rules";
		return -1;
	}
	r.policy = (enum tf_policy)sr->policy;
	if (sr->n_semantic_type == 0)
		r.types[0] = 1;		/* only UNSPECIFIED */
	for (i = 0; i < sr->n_semantic_type; i++) {
		if ((unsigned)sr->semantic_type[i] >= TF_TYPES) {
			*cause = "Trace filter has invalid semantic types in "
			    "string filtering rules";
			return -1;
		}
		r.types[sr->semantic_type[i] / 64] |=
		    1ull << (sr->semantic_type[i] % 64);
	}
	if (tf_rule_compile(&r, sr->regex_pattern != NULL ?
	    sr->regex_pattern : "", cause) == -1)
		return -1;
	if ((r.atrace_prefix = strdup(sr->atrace_payload_starts_with != NULL ?
	    sr->atrace_payload_starts_with : "")) == NULL ||
	    (sr->name != NULL && sr->name[0] != '\0' &&
	    (r.name = strdup(sr->name)) == NULL))
		goto oom;
	r.atrace_len = strlen(r.atrace_prefix);
	if (r.full.re_nsub + 1 > tf->nmatch) {
		regmatch_t *m = reallocarray(tf->match, r.full.re_nsub + 1,
		    sizeof(*m));

		if (m == NULL)
			goto oom;
		tf->match = m;
		tf->nmatch = r.full.re_nsub + 1;
	}
	for (i = 0; r.name != NULL && i < tf->nrules; i++)
		if (tf->rules[i].name != NULL &&
		    strcmp(tf->rules[i].name, r.name) == 0) {
			tf_rule_clear(&tf->rules[i]);
			tf->rules[i] = r;
			return 0;
		}
	if (tf->nrules == TF_MAX_RULES) {
		tf_rule_clear(&r);
		*cause = "trace filter: too many string filter rules";
		return -1;
	}
	if ((n = reallocarray(tf->rules, tf->nrules + 1, sizeof(*n))) == NULL)
		goto oom;
	tf->rules = n;
	tf->rules[tf->nrules++] = r;
	return 0;
oom:
	tf_rule_clear(&r);
	*cause = "out of memory";
	return -1;
}

/* The text after an atrace "B|tgid|" prefix, or NULL (upstream's rule). */
static const char *
tf_atrace_payload(const char *s, size_t len)
{
	const char	*pipe;

	if (len <= 2 || s[0] == 'E')
		return NULL;
	pipe = memchr(s + 2, '|', len - 2);
	return pipe != NULL ? pipe + 1 : NULL;
}

static void
tf_redact(char *s, const regmatch_t *m, size_t first, size_t n)
{
	static const char	 red[] = "P60REDACTED";
	size_t			 i, len, k;

	for (i = first; i < n; i++) {
		if (m[i].rm_so < 0 || m[i].rm_eo <= m[i].rm_so)
			continue;
		len = (size_t)(m[i].rm_eo - m[i].rm_so);
		k = len < sizeof(red) - 1 ? len : sizeof(red) - 1;
		memcpy(s + m[i].rm_so, red, k);
		memset(s + m[i].rm_so + k, '-', len - k);
	}
}

static int
tf_full_match(struct trace_filter *tf, struct tf_rule *r, const char *s,
    size_t len)
{
	tf->match[0].rm_so = 0;
	tf->match[0].rm_eo = (regoff_t)len;
	return regexec(&r->full, s, r->full.re_nsub + 1, tf->match,
	    REG_STARTEND) == 0;
}

/*
 * Applies the rules to the string s (in the output). The regexes run on
 * a NUL-terminated copy (regexec wants one, REG_STARTEND or not, under
 * sanitizers); redaction writes into s.
 */
static void
tf_string_filter(struct trace_filter *tf, char *out, size_t len,
    uint32_t type)
{
	const char	*payload = NULL, *s;
	struct tf_rule	*r;
	size_t		 i, at, n;
	int		 tried = 0, any;
	char		*cp;

	if (len + 1 > tf->strcap) {
		if ((cp = realloc(tf->str, len + 1)) == NULL)
			return;
		tf->str = cp;
		tf->strcap = len + 1;
	}
	memcpy(tf->str, out, len);
	tf->str[len] = '\0';
	s = tf->str;

	for (i = 0; i < tf->nrules; i++) {
		r = &tf->rules[i];
		if (type < TF_TYPES &&
		    (r->types[type / 64] & (1ull << (type % 64))) == 0)
			continue;
		if (r->policy != TF_MATCH_REDACT && r->policy !=
		    TF_MATCH_BREAK) {
			if (!tried)
				payload = tf_atrace_payload(s, len);
			tried = 1;
			if (payload == NULL ||
			    (size_t)(s + len - payload) < r->atrace_len ||
			    memcmp(payload, r->atrace_prefix,
			    r->atrace_len) != 0)
				continue;
		}
		switch (r->policy) {
		case TF_MATCH_BREAK:
		case TF_ATRACE_MATCH_BREAK:
			if (tf_full_match(tf, r, s, len))
				return;
			break;
		case TF_MATCH_REDACT:
		case TF_ATRACE_MATCH_REDACT:
			if (tf_full_match(tf, r, s, len)) {
				/* Group 1 is our ^( )$ wrapper. */
				tf_redact(out, tf->match, 2,
				    r->full.re_nsub + 1);
				return;
			}
			break;
		case TF_ATRACE_SEARCH_REDACT:
			n = r->search.re_nsub + 1;
			for (at = 0, any = 0; at <= len;) {
				tf->match[0].rm_so = (regoff_t)at;
				tf->match[0].rm_eo = (regoff_t)len;
				if (regexec(&r->search, s, n, tf->match,
				    REG_STARTEND | (at > 0 ? REG_NOTBOL : 0))
				    != 0)
					break;
				tf_redact(out, tf->match, 1, n);
				any = 1;
				at = tf->match[0].rm_eo > tf->match[0].rm_so ?
				    (size_t)tf->match[0].rm_eo :
				    (size_t)tf->match[0].rm_eo + 1;
			}
			if (any)
				return;
			break;
		}
	}
}

/* ---- the filter ------------------------------------------------------ */

struct trace_filter *
trace_filter_new(const Perfetto__Protos__TraceConfig__TraceFilter *cfg,
    const char **cause)
{
	struct trace_filter	*tf;
	const ProtobufCBinaryData *bc;
	size_t			 i;

	if ((tf = calloc(1, sizeof(*tf))) == NULL) {
		*cause = "out of memory";
		return NULL;
	}
	if (cfg->string_filter_chain != NULL)
		for (i = 0; i < cfg->string_filter_chain->n_rules; i++)
			if (tf_rule_add(tf, cfg->string_filter_chain->rules[i],
			    cause) == -1)
				goto fail;
	if (cfg->string_filter_chain_v54 != NULL)
		for (i = 0; i < cfg->string_filter_chain_v54->n_rules; i++)
			if (tf_rule_add(tf,
			    cfg->string_filter_chain_v54->rules[i],
			    cause) == -1)
				goto fail;
	bc = cfg->has_bytecode_v2 && cfg->bytecode_v2.len > 0 ?
	    &cfg->bytecode_v2 : &cfg->bytecode;
	if (trace_filter_load_untrusted(tf, bc->data, bc->len,
	    cfg->has_bytecode_overlay_v54 ? cfg->bytecode_overlay_v54.data :
	    NULL, cfg->has_bytecode_overlay_v54 ?
	    cfg->bytecode_overlay_v54.len : 0, cause) == -1)
		goto fail;
	return tf;
fail:
	trace_filter_free(tf);
	return NULL;
}

struct trace_filter *
trace_filter_new_empty(void)
{
	return calloc(1, sizeof(struct trace_filter));
}

void
trace_filter_free(struct trace_filter *tf)
{
	size_t	i;

	if (tf == NULL)
		return;
	tf_reset_bytecode(tf);
	for (i = 0; i < tf->nrules; i++)
		tf_rule_clear(&tf->rules[i]);
	free(tf->rules);
	free(tf->match);
	free(tf->str);
	free(tf->out);
	free(tf);
}

static inline int
tf_varint(const uint8_t **pp, const uint8_t *end, uint64_t *v)
{
	if (*pp < end && **pp < 0x80) {
		*v = *(*pp)++;
		return 0;
	}
	return packet_varint(pp, end, v);
}

static void
tf_put_padded(uint8_t *at, size_t width, uint64_t v)
{
	size_t	i;

	for (i = 0; i + 1 < width; i++, v >>= 7)
		at[i] = (uint8_t)((v & 0x7f) | 0x80);
	at[i] = (uint8_t)(v & 0x7f);
}

struct tf_frame {
	const uint8_t	*end;		/* of this message's input */
	uint8_t		*len_at;	/* its output length field */
	size_t		 len_width;
	uint8_t		*start;		/* of its output content */
	uint32_t	 msg;
};

/* Filters the TracePacket fields in [p, p + len) onto *op. */
static int
tf_filter_fields_untrusted(struct trace_filter *tf, const uint8_t *p,
    size_t len, uint8_t **op)
{
	struct tf_frame	 st[TF_MAX_DEPTH];
	uint8_t		*o = *op;
	uint64_t	 key, v;
	uint32_t	 field, state;
	size_t		 d = 0, n;

	st[0].end = p + len;
	st[0].msg = tf->root;
	for (;;) {
		while (p == st[d].end) {
			if (d == 0) {
				*op = o;
				return 0;
			}
			tf_put_padded(st[d].len_at, st[d].len_width,
			    (uint64_t)(o - st[d].start));
			d--;
		}
		if (tf_varint(&p, st[d].end, &key) == -1 ||
		    (key >> 3) == 0 || (key >> 3) > TF_FIELD_MAX)
			return -1;
		field = (uint32_t)(key >> 3);
		state = tf_lookup(tf, st[d].msg, field);
		switch (key & 7) {
		case 0:
			if (tf_varint(&p, st[d].end, &v) == -1)
				return -1;
			if (TF_KIND(state) == TF_SIMPLE) {
				o = pbw_put_varint(o, key);
				o = pbw_put_varint(o, v);
			}
			break;
		case 1:
		case 5:
			n = (key & 7) == 1 ? 8 : 4;
			if ((size_t)(st[d].end - p) < n)
				return -1;
			if (TF_KIND(state) == TF_SIMPLE) {
				o = pbw_put_varint(o, key);
				memcpy(o, p, n);
				o += n;
			}
			p += n;
			break;
		case 2:
			if (tf_varint(&p, st[d].end, &v) == -1 ||
			    v > (uint64_t)(st[d].end - p))
				return -1;
			if (TF_KIND(state) == TF_DROP) {
				p += v;
				break;
			}
			o = pbw_put_varint(o, key);
			if (TF_KIND(state) == TF_NESTED && v > 0) {
				if (d + 1 == TF_MAX_DEPTH)
					return -1;
				d++;
				st[d].len_at = o;
				o = pbw_put_varint(o, v);
				st[d].len_width = (size_t)(o - st[d].len_at);
				st[d].start = o;
				st[d].end = p + v;
				st[d].msg = state & TF_ARG_MASK;
				break;
			}
			o = pbw_put_varint(o, v);
			memcpy(o, p, v);
			if (TF_KIND(state) == TF_STRING && v > 0 &&
			    tf->nrules > 0)
				tf_string_filter(tf, (char *)o, v,
				    state & TF_ARG_MASK);
			o += v;
			p += v;
			break;
		default:	/* groups and undefined wire types */
			return -1;
		}
	}
}

/*
 * Filters one packet, given as a body and the service's trailer (both
 * whole top-level fields). Returns the output length, with *out valid
 * until the next call, or -1 if the packet is malformed.
 */
ssize_t
trace_filter_packet_untrusted(struct trace_filter *tf, const uint8_t *body,
    size_t blen, const uint8_t *trailer, size_t tlen, const uint8_t **out)
{
	uint8_t	*o, *n;
	size_t	 cap;

	*out = NULL;
	if (tf->nmsgs == 0)
		return -1;
	if (blen + tlen > tf->outcap) {
		cap = blen + tlen < 4096 ? 4096 : blen + tlen;
		if ((n = realloc(tf->out, cap)) == NULL)
			return -1;
		tf->out = n;
		tf->outcap = cap;
	}
	o = tf->out;
	if (tf_filter_fields_untrusted(tf, body, blen, &o) == -1 ||
	    tf_filter_fields_untrusted(tf, trailer, tlen, &o) == -1)
		return -1;
	*out = tf->out;
	return o - tf->out;
}
