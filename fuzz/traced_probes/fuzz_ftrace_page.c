/*
 * libFuzzer target: ring-buffer pages from trace_pipe_raw, translated with
 * plans for typed, string, __data_loc, array and generic events (both
 * encodings); every packet produced must decode as a TracePacket.
 *   fuzz/traced_probes/fuzz_ftrace_page -max_total_time=60
 */
#include <stdlib.h>
#include <string.h>

#include "protos/perfetto/trace/trace_packet.pb-c.h"

#include "format.h"
#include "translate.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

#define COMMON \
	"format:\n" \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n" \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n" \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"

static const struct {
	const char	*group;
	const char	*text;
} formats[] = {
	{ "sched", "name: sched_switch\nID: 1\n" COMMON
	    "\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	    "\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	    "\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	    "\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"
	    "\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:0;\n"
	    "\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n"
	    "\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;\n" },
	{ "sched", "name: sched_waking\nID: 2\n" COMMON
	    "\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	    "\tfield:pid_t pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	    "\tfield:int prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	    "\tfield:int target_cpu;\toffset:32;\tsize:4;\tsigned:1;\n" },
	{ "ftrace", "name: print\nID: 3\n" COMMON
	    "\tfield:unsigned long ip;\toffset:8;\tsize:8;\tsigned:0;\n"
	    "\tfield:char buf[];\toffset:16;\tsize:0;\tsigned:0;\n" },
	{ "sched", "name: sched_process_exec\nID: 4\n" COMMON
	    "\tfield:__data_loc char[] filename;\toffset:8;\tsize:4;\tsigned:0;\n"
	    "\tfield:pid_t pid;\toffset:12;\tsize:4;\tsigned:1;\n" },
	{ "raw_syscalls", "name: sys_enter\nID: 5\n" COMMON
	    "\tfield:long id;\toffset:8;\tsize:8;\tsigned:1;\n"
	    "\tfield:unsigned long args[6];\toffset:16;\tsize:48;\tsigned:0;\n" },
	{ "fuzz", "name: custom\nID: 6\n" COMMON
	    "\tfield:u8 addr[4];\toffset:8;\tsize:4;\tsigned:0;\n"
	    "\tfield:__data_loc u8[] blob;\toffset:12;\tsize:4;\tsigned:0;\n"
	    "\tfield:struct x odd;\toffset:16;\tsize:12;\tsigned:0;\n"
	    "\tfield:s16 small;\toffset:28;\tsize:2;\tsigned:1;\n"
	    "\tfield:char name[];\toffset:30;\tsize:0;\tsigned:0;\n" },
};

static const struct ftrace_page_layout layout = {
	.ts_offset = 0, .commit_offset = 8, .commit_size = 8,
	.data_offset = 16, .page_size = 4096,
};

static struct ftrace_translator *xl[2];
static uint8_t buf[1 << 20];
static struct pbw w;

static struct pbw *
begin(void *arg)
{
	pbw_init_flat(&w, buf, sizeof(buf));
	return &w;
}

static void
end(void *arg)
{
	Perfetto__Protos__TracePacket *p;

	if (w.error != 0)
		abort();
	p = perfetto__protos__trace_packet__unpack(NULL,
	    (size_t)pbw_written(&w), buf);
	if (p == NULL)
		abort();
	perfetto__protos__trace_packet__free_unpacked(p, NULL);
}

static const char kprobe_fmt[] = "name: vfs_read\nID: 7\n" COMMON
    "\tfield:unsigned long __probe_ip;\toffset:8;\tsize:8;\tsigned:0;\n";

/* The second translator filters prints, both rule kinds. */
static const struct ftrace_print_rule rules[] = {
	{ "x", NULL, 0 },
	{ "tr", "B", 0 },
	{ "", NULL, 1 },
};

static void
init(void)
{
	struct ftrace_format fmt;
	const char *cause;

	for (int k = 0; k < 2; k++) {
		struct ftrace_xlate_opts o = { .compact_sched = k,
		    .print_rules = k ? rules : NULL, .nprint_rules = k ? 3 : 0 };

		xl[k] = ftrace_translator_new(&o);
		for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]);
		    i++) {
			if (ftrace_format_parse_untrusted(formats[i].text,
			    strlen(formats[i].text), formats[i].group, &fmt,
			    &cause) != 0)
				abort();
			if (ftrace_translator_add(xl[k], &fmt, &cause) != 0)
				abort();
			ftrace_format_free(&fmt);
		}
		if (ftrace_format_parse_untrusted(kprobe_fmt,
		    strlen(kprobe_fmt), "perfetto_kprobes", &fmt, &cause) != 0 ||
		    ftrace_translator_add_kprobe(xl[k], &fmt, KPROBE_BEGIN,
		    &cause) != 0)
			abort();
		ftrace_format_free(&fmt);
	}
}

static void
pids(void *arg, const int32_t *p, size_t n)
{
	(void)arg;
	(void)p;
	if (n > FTRACE_PIDS_MAX)
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct ftrace_sink sink = { begin, end, NULL, pids };
	struct ftrace_cpu_counters ctr;
	struct ftrace_bundle b;

	if (xl[0] == NULL)
		init();
	if (len < 1)
		return 0;
	memset(&ctr, 0, sizeof(ctr));
	if (ftrace_bundle_init(&b, xl[data[0] & 1], &layout, 0, sink,
	    &ctr) == -1)
		return 0;
	/* Several pages in one input: 4096-byte slices. */
	for (size_t off = 1; off < len; off += 4096)
		(void)ftrace_bundle_add_page_untrusted(&b, data + off,
		    len - off < 4096 ? len - off : 4096);
	ftrace_bundle_free(&b);
	return 0;
}
