/*
 * Kernel symbols: /proc/kallsyms turned into a compact table of text
 * symbols, for FtraceConfig.symbolize_ksyms.
 *
 * The trace never carries a kernel address (ftrace fields that hold one
 * are replaced by a small index in translate.c); this table gives the
 * name written next to the index in InternedData.kernel_symbols.
 *
 *   /proc/kallsyms (untrusted text, ~120k lines, ~5 MB)
 *     "ffffffff81234560 T do_sys_open"        text symbols: kept
 *     "ffffffffc0a01000 t foo\t[module]"       module tail: dropped
 *     "ffffffff82a00000 D jiffies"             data: skipped
 *              |
 *              v  parsed line by line, sorted by address
 *   addr[i]   (u32 offset from base when the span fits, else u64)
 *   name[i]   (u32 offset into one string pool; high bit: "__pfx_")
 *
 * A lookup returns the symbol with the greatest address <= the address,
 * provided the address is less than KSYMS_MAX_SPAN past it (past the last
 * text symbol of a region lies data, not that function). Every line is
 * parsed defensively: a malformed one is counted and skipped.
 *
 * One table per process, loaded when the first user asks for it and freed
 * when the last one lets go (ksyms_get/ksyms_put).
 */
#ifndef FARO_KSYMS_H
#define FARO_KSYMS_H

#include <stddef.h>
#include <stdint.h>

#define KSYMS_NAME_MAX		512	/* the kernel's KSYM_NAME_LEN */
#define KSYMS_MAX_SYMS		(4u << 20)
#define KSYMS_MAX_POOL		(64u << 20)
#define KSYMS_MAX_SPAN		(256u * 1024)

struct ksyms;

struct ksyms_parse_stats {
	uint64_t	lines;
	uint64_t	malformed;	/* lines that are not "ADDR T NAME" */
	uint64_t	skipped;	/* well-formed, but not text symbols */
	uint64_t	zero;		/* text symbols at address 0 */
};

/* A parser fed with chunks of kallsyms text, in any split. */
struct ksyms_builder;

struct ksyms_builder *ksyms_builder_new(void);
void	ksyms_builder_feed_untrusted(struct ksyms_builder *, const char *buf,
	    size_t len);
/*
 * Sorts and compacts what was fed; frees the builder. NULL with *cause
 * when out of memory or over a bound. st (may be NULL) gets the counts.
 */
struct ksyms *ksyms_builder_finish(struct ksyms_builder *,
	    struct ksyms_parse_stats *st, const char **cause);
void	ksyms_builder_free(struct ksyms_builder *);

/* Parses a whole text (tests, fuzzing). */
struct ksyms *ksyms_parse_untrusted(const char *text, size_t len,
	    struct ksyms_parse_stats *st, const char **cause);
/* Reads and parses an open kallsyms descriptor (closed on return). */
struct ksyms *ksyms_read_fd(int fd, struct ksyms_parse_stats *st,
	    const char **cause);
void	ksyms_free(struct ksyms *);

/*
 * Writes the name of the symbol holding addr into buf (NUL-terminated,
 * truncated to bufsz). Returns its length, or -1 when no symbol holds it.
 */
int	ksyms_lookup(const struct ksyms *, uint64_t addr, char *buf,
	    size_t bufsz);
uint32_t ksyms_count(const struct ksyms *);
/* Bytes the table holds on the heap. */
size_t	ksyms_mem_bytes(const struct ksyms *);

/*
 * The process-wide table from /proc/kallsyms: loaded on the first call,
 * shared, freed by the last ksyms_put. Returns NULL (logged once per
 * load attempt) when kallsyms cannot be read; an empty table when the
 * kernel hides addresses (kptr_restrict), so that no wrong name is ever
 * given.
 */
const struct ksyms *ksyms_get(void);
void	ksyms_put(void);

#endif
