/*
 * __intrinsic_arg_set_to_json(arg_set_id): an arg set as one JSON object,
 * as upstream's prelude gives it. Keys are paths ("debug.a.b",
 * "debug.list[2]"): each dot opens an object, each [i] an array; members
 * keep the order the args were added in. A NULL set is NULL.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "ops_int.h"

/* Bounds a hostile key cannot pass: nesting and members per object. */
#define JSON_DEPTH_MAX	64

struct jnode {
	char		*name;		/* member name; NULL in an array */
	int		 array;		/* children are array items */
	int		 leaf;
	sqlite3_str	*value;		/* a leaf's JSON text */
	struct jnode	*child, *last, *next;
};

static void	jnode_free(struct jnode *);

static void
jnode_free_children(struct jnode *n)
{
	struct jnode *c, *next;

	for (c = n->child; c != NULL; c = next) {
		next = c->next;
		jnode_free(c);
	}
}

static void
jnode_free(struct jnode *n)
{
	jnode_free_children(n);
	sqlite3_free(sqlite3_str_finish(n->value));
	sqlite3_free(n->name);
	sqlite3_free(n);
}

/* The child of n named name (len), or item index, added if new. */
static struct jnode *
jnode_child(struct jnode *n, const char *name, size_t len, long index)
{
	struct jnode *c;
	long i = 0;

	for (c = n->child; c != NULL; c = c->next, i++)
		if (name != NULL ? c->name != NULL && strlen(c->name) == len &&
		    memcmp(c->name, name, len) == 0 : i == index)
			return c;
	if (name == NULL && index != i)
		return NULL;		/* items come in order */
	if ((c = sqlite3_malloc(sizeof(*c))) == NULL)
		return NULL;
	memset(c, 0, sizeof(*c));
	if (name != NULL && (c->name = sqlite3_mprintf("%.*s", (int)len,
	    name)) == NULL) {
		sqlite3_free(c);
		return NULL;
	}
	if (n->last != NULL)
		n->last->next = c;
	else
		n->child = c;
	n->last = c;
	return c;
}

/* The leaf for key under root; NULL when the key does not fit. */
static struct jnode *
jnode_path(struct jnode *root, const char *key)
{
	struct jnode *n = root;
	const char *p = key, *e;
	char *end;
	long idx;
	int depth = 0;

	while (*p != '\0' && n != NULL && depth++ < JSON_DEPTH_MAX) {
		if (n->leaf)
			return NULL;
		if (*p == '[') {
			idx = strtol(p + 1, &end, 10);
			if (end == p + 1 || *end != ']' || idx < 0 ||
			    (n->child != NULL && !n->array))
				return NULL;
			n->array = 1;
			n = jnode_child(n, NULL, 0, idx);
			p = end + 1;
			if (*p == '.')
				p++;
			continue;
		}
		for (e = p; *e != '\0' && *e != '.' && *e != '['; e++)
			;
		if (n->array)
			return NULL;
		n = jnode_child(n, p, (size_t)(e - p), 0);
		p = *e == '.' ? e + 1 : e;
	}
	return *p == '\0' && n != root ? n : NULL;
}

/*
 * A JSON string with everything outside printable ASCII as \uXXXX (UTF-16,
 * surrogate pairs above the BMP), as upstream writes it. Bytes that are
 * not UTF-8 stand for themselves (U+0080..U+00FF).
 */
static void
json_string(sqlite3_str *s, const char *v)
{
	const unsigned char *p = (const unsigned char *)v;
	uint32_t cp;
	int n, i;

	sqlite3_str_appendchar(s, 1, '"');
	while (p != NULL && *p) {
		cp = *p;
		n = cp >= 0xf0 && cp < 0xf8 ? 3 : cp >= 0xe0 ? 2 : cp >= 0xc0 ?
		    1 : 0;
		if (cp >= 0xf8)
			n = 0;
		for (i = 1; i <= n; i++)
			if ((p[i] & 0xc0) != 0x80)
				break;
		if (i > n && n > 0) {
			cp &= 0x3f >> n;
			for (i = 1; i <= n; i++)
				cp = cp << 6 | (p[i] & 0x3f);
			p += n + 1;
		} else
			p++;
		if (cp == '"' || cp == '\\')
			sqlite3_str_appendf(s, "\\%c", (int)cp);
		else if (cp >= 0x20 && cp < 0x7f)
			sqlite3_str_appendchar(s, 1, (char)cp);
		else if (cp < 0x10000)
			sqlite3_str_appendf(s, "\\u%04x", (unsigned)cp);
		else {
			cp -= 0x10000;
			sqlite3_str_appendf(s, "\\u%04x\\u%04x",
			    (unsigned)(0xd800 + (cp >> 10)),
			    (unsigned)(0xdc00 + (cp & 0x3ff)));
		}
	}
	sqlite3_str_appendchar(s, 1, '"');
}

/* 16 significant digits, as upstream's JSON writer gives a double. */
static void
json_double(sqlite3_str *s, double d)
{
	char buf[40];

	snprintf(buf, sizeof(buf), "%.16g", d);
	sqlite3_str_appendall(s, buf);
}

/* The JSON text of the current args row's value. */
static void
leaf_value(sqlite3_str *s, sqlite3_stmt *st)
{
	const char *type = (const char *)sqlite3_column_text(st, 1);
	int64_t i = sqlite3_column_int64(st, 2);

	if (type == NULL)
		type = "";
	if (strcmp(type, "int") == 0)
		sqlite3_str_appendf(s, "%lld", (long long)i);
	else if (strcmp(type, "uint") == 0)
		sqlite3_str_appendf(s, "%llu", (unsigned long long)i);
	else if (strcmp(type, "bool") == 0)
		sqlite3_str_appendall(s, i ? "true" : "false");
	else if (strcmp(type, "pointer") == 0)
		sqlite3_str_appendf(s, "\"0x%llx\"", (unsigned long long)i);
	else if (strcmp(type, "real") == 0)
		json_double(s, sqlite3_column_double(st, 4));
	else if (strcmp(type, "json") == 0 &&
	    sqlite3_column_type(st, 3) == SQLITE_TEXT)
		sqlite3_str_appendall(s, (const char *)sqlite3_column_text(st,
		    3));
	else if (sqlite3_column_type(st, 3) == SQLITE_TEXT)
		json_string(s, (const char *)sqlite3_column_text(st, 3));
	else
		sqlite3_str_appendall(s, "null");
}

static void
jnode_write(sqlite3_str *s, const struct jnode *n)
{
	const struct jnode *c;

	if (n->leaf) {
		sqlite3_str_appendall(s, sqlite3_str_value(n->value) ?
		    sqlite3_str_value(n->value) : "null");
		return;
	}
	sqlite3_str_appendchar(s, 1, n->array ? '[' : '{');
	for (c = n->child; c != NULL; c = c->next) {
		if (c != n->child)
			sqlite3_str_appendchar(s, 1, ',');
		if (!n->array) {
			json_string(s, c->name);
			sqlite3_str_appendchar(s, 1, ':');
		}
		jnode_write(s, c);
	}
	sqlite3_str_appendchar(s, 1, n->array ? ']' : '}');
}

static void
fn_arg_set_to_json(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	sqlite3 *db = sqlite3_context_db_handle(ctx);
	struct jnode root, *leaf;
	sqlite3_stmt *st = NULL;
	sqlite3_str *out;
	int rc = SQLITE_DONE;

	(void)argc;
	memset(&root, 0, sizeof(root));
	if (sqlite3_value_type(argv[0]) == SQLITE_NULL)
		return;
	if (sqlite3_value_type(argv[0]) == SQLITE_INTEGER) {
		if (sqlite3_prepare_v2(db, "SELECT key, value_type, int_value,"
		    " string_value, real_value FROM args WHERE arg_set_id = ?1"
		    " ORDER BY id", -1, &st, NULL) != SQLITE_OK) {
			sqlite3_result_error(ctx, sqlite3_errmsg(db), -1);
			return;
		}
		sqlite3_bind_int64(st, 1, sqlite3_value_int64(argv[0]));
		while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
			leaf = jnode_path(&root,
			    (const char *)sqlite3_column_text(st, 0));
			/* A key clashing with an earlier one is left out. */
			if (leaf == NULL || leaf->child != NULL || leaf->leaf)
				continue;
			leaf->leaf = 1;
			leaf->value = sqlite3_str_new(db);
			leaf_value(leaf->value, st);
		}
		sqlite3_finalize(st);
	}
	out = sqlite3_str_new(db);
	if (rc == SQLITE_DONE)
		jnode_write(out, &root);
	jnode_free_children(&root);
	if (rc != SQLITE_DONE || sqlite3_str_errcode(out) != SQLITE_OK) {
		sqlite3_free(sqlite3_str_finish(out));
		sqlite3_result_error(ctx, rc != SQLITE_DONE ?
		    sqlite3_errmsg(db) : "out of memory", -1);
		return;
	}
	sqlite3_result_text(ctx, sqlite3_str_finish(out), -1, sqlite3_free);
}

int
ops_args_json_register(sqlite3 *db, char **err)
{
	if (sqlite3_create_function_v2(db, "__intrinsic_arg_set_to_json", 1,
	    SQLITE_UTF8 | SQLITE_INNOCUOUS, NULL, fn_arg_set_to_json, NULL,
	    NULL, NULL) != SQLITE_OK) {
		ops_seterr(err, "%s", sqlite3_errmsg(db));
		return -1;
	}
	return 0;
}
