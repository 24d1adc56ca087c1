/*
 * Tables generated at build time from our protos (protos/gen_tables.py):
 * the ftrace event of each FtraceEvent field number with its fields, and
 * the meminfo/vmstat counter names by enum value.
 */
#ifndef FARO_TP_GEN_TABLES_H
#define FARO_TP_GEN_TABLES_H

#include <stddef.h>

enum tp_ftrace_type {
	FT_STR,
	FT_BYTES,
	FT_UINT,
	FT_INT,
	FT_SINT,
	FT_DOUBLE,
	FT_FIXED64,
	FT_FIXED32,
};

struct tp_ftrace_field {
	unsigned		 id;
	const char		*name;
	enum tp_ftrace_type	 type;
};

struct tp_ftrace_desc {
	const char			*name;
	const struct tp_ftrace_field	*fields;
	size_t				 nfields;
};

extern const struct tp_ftrace_desc tp_ftrace_descs[];
extern const size_t tp_ftrace_ndescs;
extern const char *const tp_meminfo_names[];
extern const size_t tp_meminfo_nnames;
extern const char *const tp_vmstat_names[];
extern const size_t tp_vmstat_nnames;

#endif
