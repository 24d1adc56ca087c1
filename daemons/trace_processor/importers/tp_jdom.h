/*
 * A JSON document as a tree of nodes (tp_jdom.c): the Chrome JSON
 * importer parses one event object at a time with it, the Gecko one a
 * whole profile. Strings point into the text (or into the parser's
 * scratch when they had escapes), so the text must outlive the nodes.
 */
#ifndef FARO_TP_JDOM_H
#define FARO_TP_JDOM_H

#include <stddef.h>
#include <stdint.h>

#define TP_JDOM_MAX_NODES	100000	/* default bound: one event's worth */

enum jtype { J_NULL, J_FALSE, J_TRUE, J_NUM, J_STR, J_ARR, J_OBJ };

struct tp_jnode {
	enum jtype	 type;
	const char	*key;
	size_t		 keylen;
	const char	*s;		/* string value, or number text */
	size_t		 slen;
	const char	*raw;		/* an object's or array's text */
	size_t		 rawlen;
	int		 child;		/* first child, -1 */
	int		 next;		/* next sibling, -1 */
};

struct tp_jdom {
	const char	*p, *end;
	struct tp_jnode	*nodes;
	size_t		 n, cap;
	char		*scratch;	/* unescaped strings */
	size_t		 slen, scap;
	int		 err;
	size_t		 max_nodes;	/* 0: TP_JDOM_MAX_NODES */
};

/* Parses one value of buf; the root is node 0. -1 on malformed input or
 * beyond max_nodes. The parser (zeroed at first) may be used again. */
int	 tp_jdom_parse(struct tp_jdom *, const char *buf, size_t len);
/* The member key of object obj; NULL when none (or obj is no object). */
const struct tp_jnode *tp_jdom_get(const struct tp_jdom *,
	    const struct tp_jnode *obj, const char *key);
/* A number's text as an integer (truncated); -1 when it is not one. */
int	 tp_jdom_int(const struct tp_jnode *, int64_t *);
void	 tp_jdom_free(struct tp_jdom *);

#endif
