/*
 * A minimal .proto reader for metrics: enough of proto2 to describe the
 * messages a metric outputs, read at runtime so that users add metrics
 * without rebuilding.
 *
 * Understood: package, message (nested), enum, fields with labels and
 * scalar, enum or message types, oneof (its fields become plain optional
 * fields), extend (the fields join the extended message and print as
 * [package.name]), and reserved / extensions / option / import / syntax
 * statements, which are read and ignored. Not understood: map<>, groups,
 * services; they are reported as errors with a line number.
 */
#ifndef FARO_TP_MPROTO_H
#define FARO_TP_MPROTO_H

#include <stddef.h>
#include <stdint.h>

enum mp_type {
	MP_DOUBLE, MP_FLOAT, MP_INT64, MP_UINT64, MP_INT32, MP_FIXED64,
	MP_FIXED32, MP_BOOL, MP_STRING, MP_BYTES, MP_UINT32, MP_SFIXED32,
	MP_SFIXED64, MP_SINT32, MP_SINT64, MP_ENUM, MP_MESSAGE,
	MP_UNRESOLVED,
};

struct mp_enum_value {
	char		*name;
	int32_t		 number;
};

struct mp_enum {
	char			*full_name;	/* perfetto.protos.A.E */
	struct mp_enum_value	*values;
	size_t			 nvalues;
};

struct mp_msg;

struct mp_field {
	char		*name;
	uint32_t	 number;
	int		 repeated;
	enum mp_type	 type;
	char		*type_name;	/* as written, until resolved */
	char		*scope;		/* where it was written */
	struct mp_msg	*msg;		/* MP_MESSAGE */
	struct mp_enum	*en;		/* MP_ENUM */
	char		*ext_name;	/* extension: package.name */
};

struct mp_msg {
	char		*full_name;
	/* The name without its package: the SQL builder's name. */
	const char	*short_name;
	struct mp_field	*fields;
	size_t		 nfields;
};

struct mp_pool {
	struct mp_msg	**msgs;
	size_t		 nmsgs;
	struct mp_enum	**enums;
	size_t		 nenums;
	/* extend blocks waiting for their message to be known */
	struct mp_ext {
		char		*target;
		char		*scope;
		struct mp_field	 f;
	}		*exts;
	size_t		 nexts;
};

void		 mp_pool_init(struct mp_pool *);
void		 mp_pool_free(struct mp_pool *);
/* Adds the definitions in text (named fname in errors); 0 or -1. */
int		 mp_parse_untrusted(struct mp_pool *, const char *text,
		    size_t len, const char *fname, char *err, size_t errlen);
/* Resolves type names and attaches extensions; 0 or -1. */
int		 mp_resolve(struct mp_pool *, char *err, size_t errlen);

struct mp_msg	*mp_find_msg(const struct mp_pool *, const char *full_name);
const struct mp_field *mp_field_by_name(const struct mp_msg *,
		    const char *name);
const struct mp_field *mp_field_by_number(const struct mp_msg *, uint32_t);
const char	*mp_enum_name(const struct mp_enum *, int32_t);
int		 mp_enum_value(const struct mp_enum *, const char *name,
		    int32_t *out);
/* The wire type a field is encoded with (unpacked). */
int		 mp_wire_type(enum mp_type);

#endif
