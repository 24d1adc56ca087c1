/*
 * bench_textproto: text-format config parsing speed, side by side with
 * the reference, protoc's own text parser (`protoc --encode`), on the same
 * generated TraceConfig text. Both produce the binary config; the bytes
 * are compared so the two measure the same work.
 *
 *   bench/cli/bench_textproto [megabytes]      (default 8)
 *
 * protoc's time includes its start-up and .proto parsing, measured apart
 * on a tiny input and subtracted.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "protos/perfetto/config/trace_config.pb-c.h"

#include "traceconfig/textproto.h"

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A config that looks like real ones: many data sources and events. */
static char *
make_text(size_t want, size_t *len)
{
	char *text = NULL;
	size_t n = 0, i = 0;
	FILE *f = open_memstream(&text, &n);

	if (f == NULL)
		return NULL;
	fprintf(f, "# generated\nduration_ms: 10000\nwrite_into_file: true\n"
	    "buffers { size_kb: 65536 fill_policy: RING_BUFFER }\n");
	while ((size_t)ftell(f) < want) {
		fprintf(f, "data_sources {\n  config {\n    name: \"ds.%zu\"\n"
		    "    target_buffer: 0\n    ftrace_config {\n"
		    "      ftrace_events: [\"sched/sched_switch\", "
		    "\"power/cpu_idle\", 'sched/sched_wakeup\\x21']\n"
		    "      atrace_categories: \"gfx\"\n"
		    "      symbolize_ksyms: true  # comment\n    }\n  }\n"
		    "  producer_name_filter: \"producer_%zu\"\n}\n", i, i);
		i++;
	}
	fclose(f);
	*len = n;
	return text;
}

static int
write_file(const char *path, const void *p, size_t n)
{
	FILE *f = fopen(path, "wb");

	if (f == NULL || fwrite(p, 1, n, f) != n) {
		if (f != NULL)
			fclose(f);
		return -1;
	}
	return fclose(f);
}

/* Seconds one `protoc --encode` run takes on path; <0 if unavailable. */
static double
protoc_time(const char *srcdir, const char *in, const char *out)
{
	char cmd[2048];
	double t0;

	snprintf(cmd, sizeof(cmd), "protoc --proto_path=%s "
	    "--encode=perfetto.protos.TraceConfig "
	    "%s/protos/perfetto/config/trace_config.proto < %s > %s",
	    srcdir, srcdir, in, out);
	t0 = now();
	if (system(cmd) != 0)
		return -1;
	return now() - t0;
}

int
main(int argc, char **argv)
{
	const char *srcdir = getenv("top_srcdir");
	size_t mb = argc > 1 ? (size_t)atoi(argv[1]) : 8, len, plen, i;
	char *text, err[512], dir[] = "/tmp/bench_textproto.XXXXXX";
	char in[64], out[64], tiny[64], cmd[128];
	ProtobufCMessage *m;
	uint8_t *packed, *ref;
	double best = 1e9, t0, t, tp, tp0;
	int runs = 5;
	FILE *f;

	if (srcdir == NULL)
		srcdir = TOP_SRCDIR_DEFAULT;
	if ((text = make_text(mb << 20, &len)) == NULL)
		return 1;
	for (i = 0; i < (size_t)runs; i++) {
		t0 = now();
		m = textproto_parse_untrusted(
		    &perfetto__protos__trace_config__descriptor, text, len,
		    "bench", 0, err, sizeof(err));
		t = now() - t0;
		if (m == NULL) {
			fprintf(stderr, "bench_textproto: %s\n", err);
			return 1;
		}
		if (t < best)
			best = t;
		if (i + 1 < (size_t)runs)
			protobuf_c_message_free_unpacked(m, NULL);
	}
	plen = protobuf_c_message_get_packed_size(m);
	packed = malloc(plen);
	protobuf_c_message_pack(m, packed);
	protobuf_c_message_free_unpacked(m, NULL);
	printf("faro textproto: %.1f MiB text in %.3f s: %.1f MiB/s "
	    "(best of %d)\n", (double)len / (1 << 20), best,
	    (double)len / (1 << 20) / best, runs);

	if (mkdtemp(dir) == NULL)
		return 1;
	snprintf(in, sizeof(in), "%s/in.txt", dir);
	snprintf(out, sizeof(out), "%s/out.pb", dir);
	snprintf(tiny, sizeof(tiny), "%s/tiny.txt", dir);
	if (write_file(in, text, len) == -1 ||
	    write_file(tiny, "duration_ms: 1", 14) == -1)
		return 1;
	tp0 = protoc_time(srcdir, tiny, out);
	tp = protoc_time(srcdir, in, out);
	if (tp0 < 0 || tp < 0) {
		printf("protoc --encode: not available, no reference figure\n");
	} else {
		/* Same bytes, so both did the same work. */
		if ((f = fopen(out, "rb")) != NULL) {
			ref = malloc(plen + 1);
			if (ref != NULL && fread(ref, 1, plen + 1, f) == plen &&
			    memcmp(ref, packed, plen) == 0)
				printf("output: identical to protoc's (%zu "
				    "bytes)\n", plen);
			else
				printf("output: DIFFERS from protoc's\n");
			free(ref);
			fclose(f);
		}
		tp -= tp0;
		printf("protoc --encode: %.3f s (start-up %.3f s subtracted): "
		    "%.1f MiB/s\n", tp, tp0, (double)len / (1 << 20) / tp);
		printf("ratio: faro parses %.2fx as fast as protoc\n", tp / best);
	}
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd) != 0)
		return 1;
	free(packed);
	free(text);
	return 0;
}
