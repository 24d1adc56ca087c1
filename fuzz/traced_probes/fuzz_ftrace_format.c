/*
 * libFuzzer target: tracefs format files and header_page, as the kernel
 * (or a tampered tracefs) might present them, then translation planning.
 *   fuzz/traced_probes/fuzz_ftrace_format -max_total_time=60
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "format.h"
#include "translate.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct ftrace_xlate_opts o = { .compact_sched = len & 1 };
	struct ftrace_translator *xl;
	struct ftrace_page_layout pl;
	struct ftrace_format fmt;
	const char *cause;

	(void)ftrace_page_layout_parse_untrusted((const char *)data, len, &pl,
	    &cause);
	if (ftrace_format_parse_untrusted((const char *)data, len,
	    len & 2 ? "sched" : "fuzz", &fmt, &cause) == 0) {
		if ((xl = ftrace_translator_new(&o)) != NULL) {
			(void)ftrace_translator_add(xl, &fmt, &cause);
			ftrace_translator_free(xl);
		}
		ftrace_format_free(&fmt);
	}
	return 0;
}
