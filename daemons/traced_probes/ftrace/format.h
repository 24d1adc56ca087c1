/*
 * Parsing of tracefs format files: events/GROUP/NAME/format, which gives an
 * event's numeric id and the layout of its record, and events/header_page,
 * which gives the layout of a ring-buffer page header.
 *
 * An event record, as the kernel writes it after the ring-buffer header:
 *
 *   0      2     3       4          8
 *   +------+-----+-------+----------+----------------------------+
 *   | type |flags|preempt|   pid    | event fields (per format)  |
 *   +------+-----+-------+----------+----------------------------+
 *    common fields (from the format file, offsets vary by kernel)
 *
 * Fields of kind FTRACE_FIELD_DATALOC hold a u32 whose low 16 bits are the
 * offset of the payload in the record and whose high 16 bits its length.
 * Format text comes from the kernel but is parsed defensively: a record
 * layout that points outside its record is rejected here, once, so that
 * the per-record loop only needs to check record lengths.
 */
#ifndef FARO_FTRACE_FORMAT_H
#define FARO_FTRACE_FORMAT_H

#include <stddef.h>
#include <stdint.h>

enum ftrace_field_kind {
	FTRACE_FIELD_INT,	/* 1, 2, 4 or 8 byte integer */
	FTRACE_FIELD_INT_ARRAY,	/* fixed array of integers, e.g. args[6] */
	FTRACE_FIELD_CHARS,	/* char name[N]: NUL-padded string */
	FTRACE_FIELD_TAIL,	/* char name[] of size 0: rest of record */
	FTRACE_FIELD_DATALOC,	/* __data_loc: offset/length word */
	FTRACE_FIELD_OTHER,	/* anything else: kept as raw bytes */
};

#define FTRACE_NAME_MAX	64

struct ftrace_field {
	char		 name[FTRACE_NAME_MAX];
	char		 type[FTRACE_NAME_MAX];
	uint16_t	 offset;
	uint16_t	 size;
	uint16_t	 elem_size;	/* INT_ARRAY: size of one element */
	uint8_t		 is_signed;
	uint8_t		 is_common;
	uint8_t		 is_string;	/* DATALOC of char: a string */
	uint8_t		 kind;		/* enum ftrace_field_kind */
};

struct ftrace_format {
	char			 group[FTRACE_NAME_MAX];
	char			 name[FTRACE_NAME_MAX];
	uint32_t		 id;
	struct ftrace_field	*fields;	/* common fields first */
	unsigned int		 nfields;
	unsigned int		 ncommon;
	/* offsets of the common fields we use; size 0 when absent */
	struct ftrace_field	*common_pid;
	struct ftrace_field	*common_flags;
};

/* Layout of the ring-buffer page header (events/header_page). */
struct ftrace_page_layout {
	uint16_t	 ts_offset;
	uint16_t	 commit_offset;
	uint16_t	 commit_size;	/* 4 or 8 */
	uint16_t	 data_offset;
	uint32_t	 page_size;	/* data_offset + data size */
};

/*
 * Parses the text of one format file. group is taken from the caller (the
 * file names only the event). Returns 0, or -1 with *cause set.
 */
int	ftrace_format_parse_untrusted(const char *text, size_t len,
	    const char *group, struct ftrace_format *fmt, const char **cause);
void	ftrace_format_free(struct ftrace_format *fmt);
const struct ftrace_field *ftrace_format_field(const struct ftrace_format *,
	    const char *name);

int	ftrace_page_layout_parse_untrusted(const char *text, size_t len,
	    struct ftrace_page_layout *pl, const char **cause);

#endif
