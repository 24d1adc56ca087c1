/*
 * tracefs format file parsing (see format.h for the record layout).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"

/* Record offsets are 16-bit in the kernel's own bookkeeping too. */
#define RECORD_MAX	65535

static const char *
line_next(const char **p, const char *end, size_t *linelen)
{
	const char *s = *p, *nl;

	if (s >= end)
		return NULL;
	nl = memchr(s, '\n', (size_t)(end - s));
	if (nl == NULL)
		nl = end;
	*linelen = (size_t)(nl - s);
	*p = nl < end ? nl + 1 : end;
	return s;
}

/* Reads "key:<value>;" from a field line into buf; returns 0 if found. */
static int
field_attr(const char *line, size_t n, const char *key, char *buf,
    size_t bufsz)
{
	size_t klen = strlen(key);
	const char *p, *end = line + n, *semi;

	for (p = line; p + klen <= end; p++) {
		if (memcmp(p, key, klen) != 0)
			continue;
		if (p != line && p[-1] != '\t' && p[-1] != ' ' && p[-1] != ';')
			continue;
		p += klen;
		semi = memchr(p, ';', (size_t)(end - p));
		if (semi == NULL || (size_t)(semi - p) >= bufsz)
			return -1;
		memcpy(buf, p, (size_t)(semi - p));
		buf[semi - p] = '\0';
		return 0;
	}
	return -1;
}

static int
parse_uint(const char *s, unsigned long max, unsigned long *out)
{
	char *end;
	unsigned long v;

	while (*s == ' ')
		s++;
	if (!isdigit((unsigned char)*s))
		return -1;
	v = strtoul(s, &end, 10);
	if (*end != '\0' || v > max)
		return -1;
	*out = v;
	return 0;
}

/*
 * "field:unsigned long args[6]" -> type "unsigned long", name "args",
 * array count 6 (0 when not an array, -1 for "[]", -2 for a count we
 * cannot read). "__data_loc char[] name" -> type "char", *dataloc = 1.
 */
static int
split_decl(const char *decl, struct ftrace_field *f, long *count,
    int *dataloc)
{
	char tmp[2 * FTRACE_NAME_MAX];
	char *name, *br, *end, *tb;
	size_t n;

	*count = 0;
	*dataloc = 0;
	while (*decl == ' ')
		decl++;
	if (strlen(decl) >= sizeof(tmp))
		return -1;
	strcpy(tmp, decl);
	n = strlen(tmp);
	while (n > 0 && tmp[n - 1] == ' ')
		tmp[--n] = '\0';
	if ((name = strrchr(tmp, ' ')) == NULL)
		return -1;
	*name++ = '\0';
	if (*name == '*')
		name++;
	if ((br = strchr(name, '[')) != NULL) {
		if (br[1] == ']')
			*count = -1;
		else {
			*count = strtol(br + 1, &end, 10);
			if (*end != ']' || *count <= 0)
				*count = -2;	/* [LEN] macro or expression */
		}
		*br = '\0';
	}
	if (strncmp(tmp, "__data_loc ", 11) == 0) {
		*dataloc = 1;
		memmove(tmp, tmp + 11, strlen(tmp + 11) + 1);
		if ((tb = strchr(tmp, '[')) != NULL)
			*tb = '\0';
		*count = 0;
	}
	n = strlen(tmp);
	while (n > 0 && tmp[n - 1] == ' ')
		tmp[--n] = '\0';
	if (strlen(name) == 0 || strlen(name) >= FTRACE_NAME_MAX ||
	    n == 0 || n >= FTRACE_NAME_MAX)
		return -1;
	strcpy(f->name, name);
	strcpy(f->type, tmp);
	return 0;
}

static int
type_is_char(const char *type)
{
	return strcmp(type, "char") == 0 || strcmp(type, "const char") == 0 ||
	    strcmp(type, "unsigned char") == 0 || strcmp(type, "u8") == 0;
}

static int
field_classify(struct ftrace_field *f, long count, int dataloc)
{
	if (dataloc) {
		if (f->size != 4)
			return -1;
		f->kind = FTRACE_FIELD_DATALOC;
		f->is_string = strstr(f->type, "char") != NULL;
		return 0;
	}
	if (count == -1) {
		f->kind = FTRACE_FIELD_TAIL;
		return 0;
	}
	if (count != 0) {
		if (type_is_char(f->type) && strcmp(f->type, "u8") != 0) {
			f->kind = FTRACE_FIELD_CHARS;
			return 0;
		}
		if (count > 0 && f->size % count == 0 &&
		    (f->size / count == 1 || f->size / count == 2 ||
		    f->size / count == 4 || f->size / count == 8)) {
			f->kind = FTRACE_FIELD_INT_ARRAY;
			f->elem_size = (uint16_t)(f->size / count);
			return 0;
		}
		f->kind = FTRACE_FIELD_OTHER;
		return 0;
	}
	if (f->size == 1 || f->size == 2 || f->size == 4 || f->size == 8)
		f->kind = FTRACE_FIELD_INT;
	else
		f->kind = FTRACE_FIELD_OTHER;
	return 0;
}

/* Parses one "\tfield:...;\toffset:N;\tsize:N;\tsigned:N;" line. */
static int
field_parse(const char *line, size_t n, struct ftrace_field *f,
    long *count, int *dataloc)
{
	char buf[2 * FTRACE_NAME_MAX];
	unsigned long v;

	memset(f, 0, sizeof(*f));
	if (field_attr(line, n, "field:", buf, sizeof(buf)) == -1 ||
	    split_decl(buf, f, count, dataloc) == -1)
		return -1;
	if (field_attr(line, n, "offset:", buf, sizeof(buf)) == -1 ||
	    parse_uint(buf, RECORD_MAX, &v) == -1)
		return -1;
	f->offset = (uint16_t)v;
	if (field_attr(line, n, "size:", buf, sizeof(buf)) == -1 ||
	    parse_uint(buf, RECORD_MAX, &v) == -1)
		return -1;
	f->size = (uint16_t)v;
	if ((unsigned long)f->offset + f->size > RECORD_MAX)
		return -1;
	/* signed: is missing on very old kernels; default to unsigned. */
	if (field_attr(line, n, "signed:", buf, sizeof(buf)) == 0 &&
	    parse_uint(buf, 1, &v) == 0)
		f->is_signed = (uint8_t)v;
	return 0;
}

int
ftrace_format_parse_untrusted(const char *text, size_t len,
    const char *group, struct ftrace_format *fmt, const char **cause)
{
	const char *p = text, *end = text + len, *line;
	struct ftrace_field f, *nf;
	size_t n, cap = 0;
	unsigned long v;
	int in_format = 0, seen_blank = 0, have_id = 0, dataloc;
	long count;
	char buf[FTRACE_NAME_MAX + 8];

	memset(fmt, 0, sizeof(*fmt));
	if (strlen(group) >= FTRACE_NAME_MAX) {
		*cause = "group name too long";
		return -1;
	}
	strcpy(fmt->group, group);
	while ((line = line_next(&p, end, &n)) != NULL) {
		if (n >= 5 && memcmp(line, "name:", 5) == 0) {
			const char *s = line + 5;
			size_t k = n - 5;

			while (k > 0 && *s == ' ')
				s++, k--;
			if (k == 0 || k >= FTRACE_NAME_MAX)
				goto bad;
			memcpy(fmt->name, s, k);
			fmt->name[k] = '\0';
		} else if (n >= 3 && memcmp(line, "ID:", 3) == 0) {
			if (n - 3 >= sizeof(buf))
				goto bad;
			memcpy(buf, line + 3, n - 3);
			buf[n - 3] = '\0';
			if (parse_uint(buf, 65535, &v) == -1)
				goto bad;
			fmt->id = (uint32_t)v;
			have_id = 1;
		} else if (n >= 7 && memcmp(line, "format:", 7) == 0) {
			in_format = 1;
		} else if (in_format && n == 0) {
			seen_blank = 1;
		} else if (in_format && n >= 11 &&
		    memcmp(line, "print fmt:", 10) == 0) {
			break;
		} else if (in_format) {
			if (field_parse(line, n, &f, &count, &dataloc) == -1 ||
			    field_classify(&f, count, dataloc) == -1)
				goto bad;
			f.is_common = !seen_blank;
			if (fmt->nfields == cap) {
				cap = cap ? cap * 2 : 16;
				if (cap > 4096)
					goto bad;
				nf = reallocarray(fmt->fields, cap,
				    sizeof(*nf));
				if (nf == NULL) {
					*cause = "out of memory";
					goto fail;
				}
				fmt->fields = nf;
			}
			fmt->fields[fmt->nfields++] = f;
			if (f.is_common)
				fmt->ncommon++;
		}
	}
	if (!have_id || fmt->name[0] == '\0' || fmt->nfields == 0)
		goto bad;
	for (unsigned int i = 0; i < fmt->ncommon; i++) {
		struct ftrace_field *cf = &fmt->fields[i];

		if (strcmp(cf->name, "common_pid") == 0 &&
		    cf->kind == FTRACE_FIELD_INT)
			fmt->common_pid = cf;
		else if (strcmp(cf->name, "common_flags") == 0 &&
		    cf->kind == FTRACE_FIELD_INT)
			fmt->common_flags = cf;
	}
	return 0;
bad:
	*cause = "malformed format file";
fail:
	ftrace_format_free(fmt);
	return -1;
}

void
ftrace_format_free(struct ftrace_format *fmt)
{
	free(fmt->fields);
	fmt->fields = NULL;
	fmt->nfields = fmt->ncommon = 0;
	fmt->common_pid = fmt->common_flags = NULL;
}

const struct ftrace_field *
ftrace_format_field(const struct ftrace_format *fmt, const char *name)
{
	for (unsigned int i = 0; i < fmt->nfields; i++)
		if (strcmp(fmt->fields[i].name, name) == 0)
			return &fmt->fields[i];
	return NULL;
}

int
ftrace_page_layout_parse_untrusted(const char *text, size_t len,
    struct ftrace_page_layout *pl, const char **cause)
{
	const char *p = text, *end = text + len, *line;
	struct ftrace_field f;
	size_t n;
	long count;
	int dataloc, have = 0;

	memset(pl, 0, sizeof(*pl));
	while ((line = line_next(&p, end, &n)) != NULL) {
		if (field_parse(line, n, &f, &count, &dataloc) == -1)
			continue;
		if (strcmp(f.name, "timestamp") == 0 && f.size == 8) {
			pl->ts_offset = f.offset;
			have |= 1;
		} else if (strcmp(f.name, "commit") == 0 &&
		    (f.size == 4 || f.size == 8)) {
			pl->commit_offset = f.offset;
			pl->commit_size = f.size;
			have |= 2;
		} else if (strcmp(f.name, "data") == 0) {
			pl->data_offset = f.offset;
			pl->page_size = (uint32_t)f.offset + f.size;
			have |= 4;
		}
	}
	if (have != 7 || pl->commit_offset + pl->commit_size >
	    pl->data_offset || pl->ts_offset + 8 > pl->data_offset ||
	    pl->page_size <= pl->data_offset) {
		*cause = "malformed header_page";
		return -1;
	}
	return 0;
}
