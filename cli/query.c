/* --query and --query-raw output; see query.h. */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/query.h"

typedef Perfetto__Protos__TracingServiceState State;

/* Longest category list shown without --long, as upstream. */
#define CATS_SHORT	40

static int
raw_print(FILE *f, const State *st)
{
	uint8_t *buf;
	size_t n;
	int rc = 0;

	if (st == NULL)
		return fflush(f) == 0 ? 0 : -1;
	n = protobuf_c_message_get_packed_size(&st->base);
	if ((buf = malloc(n ? n : 1)) == NULL)
		return -1;
	protobuf_c_message_pack(&st->base, buf);
	if (fwrite(buf, 1, n, f) != n)
		rc = -1;
	free(buf);
	if (fflush(f) != 0)
		rc = -1;
	return rc;
}

/* "name" or "0x1f" for a remote machine, "" for this one. */
static void
machine_label(const Perfetto__Protos__TracingServiceState__Producer *p,
    char *buf, size_t len)
{
	if (p->machine_id == 0)
		buf[0] = '\0';
	else if (p->machine_name != NULL && p->machine_name[0] != '\0')
		snprintf(buf, len, "%s", p->machine_name);
	else
		snprintf(buf, len, "0x%x", p->machine_id);
}

static const Perfetto__Protos__TracingServiceState__Producer *
producer_by_id(const State *st, int32_t id)
{
	size_t i;

	for (i = 0; i < st->n_producers; i++)
		if (st->producers[i]->id == id)
			return st->producers[i];
	return NULL;
}

/* Comma-separated categories a data source advertises, or "". */
static char *
ds_categories(const Perfetto__Protos__DataSourceDescriptor *d)
{
	char *out = NULL;
	size_t len = 0, i;
	FILE *f;
	int first = 1;

	if ((f = open_memstream(&out, &len)) == NULL)
		return NULL;
	if (d != NULL && d->track_event_descriptor != NULL) {
		for (i = 0; i < d->track_event_descriptor->n_available_categories;
		    i++) {
			const char *n = d->track_event_descriptor->
			    available_categories[i]->name;

			fprintf(f, "%s%s", first ? "" : ",", n ? n : "");
			first = 0;
		}
	} else if (d != NULL && d->ftrace_descriptor != NULL) {
		for (i = 0; i < d->ftrace_descriptor->n_atrace_categories;
		    i++) {
			const char *n = d->ftrace_descriptor->
			    atrace_categories[i]->name;

			fprintf(f, "%s%s", first ? "" : ",", n ? n : "");
			first = 0;
		}
	}
	fclose(f);
	return out;
}

static const char *
str(const char *s)
{
	return s != NULL ? s : "";
}

int
query_print(FILE *f, const State *st, int long_fmt, int raw)
{
	static const State empty = PERFETTO__PROTOS__TRACING_SERVICE_STATE__INIT;
	int remote = 0, listed;
	char mach[64], prod[128], *cats;
	size_t i, k;

	if (raw)
		return raw_print(f, st);
	if (st == NULL)
		st = &empty;
	if (isatty(fileno(f)))
		fprintf(f, "\033[31mNot meant for machine consumption. Use "
		    "--query-raw for scripts.\033[0m\n\n");
	else
		fprintf(f, "Not meant for machine consumption. Use --query-raw "
		    "for scripts.\n\n");
	fprintf(f, "Service: %s\nTracing sessions: %d (started: %d)\n",
	    str(st->tracing_service_version), st->num_sessions,
	    st->num_sessions_started);

	/* The MACHINE column only when some producer is remote. */
	for (i = 0; i < st->n_producers; i++)
		if (st->producers[i]->machine_id != 0)
			remote = 1;

	fprintf(f, "\n\nPRODUCER PROCESSES CONNECTED:\n\n");
	fprintf(f, "ID     PID      UID      FLAGS  %s%-42s SDK\n",
	    remote ? "MACHINE              " : "", "NAME");
	fprintf(f, "==     ===      ===      =====  %s%-42s ===\n",
	    remote ? "=======              " : "", "====");
	for (i = 0; i < st->n_producers; i++) {
		const Perfetto__Protos__TracingServiceState__Producer *p =
		    st->producers[i];

		fprintf(f, "%-6d %-8d %-8d %-6s ", p->id, p->pid, p->uid,
		    p->frozen ? "F" : "");
		if (remote) {
			machine_label(p, mach, sizeof(mach));
			fprintf(f, "%-20s ", mach[0] ? mach : "(host)");
		}
		fprintf(f, "%-42s %s\n", str(p->name), str(p->sdk_version));
	}

	fprintf(f, "\n\nDATA SOURCES REGISTERED:\n\n");
	fprintf(f, "%-40s %-28s %sDETAILS\n", "NAME", "PRODUCER",
	    remote ? "MACHINE              " : "");
	fprintf(f, "%-40s %-28s %s========\n", "===", "========",
	    remote ? "=======              " : "");
	for (i = 0; i < st->n_data_sources; i++) {
		const Perfetto__Protos__TracingServiceState__DataSource *ds =
		    st->data_sources[i];
		const Perfetto__Protos__TracingServiceState__Producer *p =
		    producer_by_id(st, ds->producer_id);

		prod[0] = mach[0] = '\0';
		if (p != NULL) {
			snprintf(prod, sizeof(prod), "%s (%d)", str(p->name),
			    ds->producer_id);
			machine_label(p, mach, sizeof(mach));
		}
		fprintf(f, "%-40s %-28s ", ds->ds_descriptor != NULL ?
		    str(ds->ds_descriptor->name) : "", prod);
		if (remote)
			fprintf(f, "%-20s ", mach[0] ? mach : "(host)");
		cats = ds_categories(ds->ds_descriptor);
		if (cats != NULL && !long_fmt && strlen(cats) > CATS_SHORT)
			fprintf(f, "%.*s... (use --long to expand)\n",
			    CATS_SHORT, cats);
		else
			fprintf(f, "%s\n", cats != NULL ? cats : "");
		free(cats);
	}

	if (st->supports_tracing_sessions) {
		fprintf(f, "\n\nTRACING SESSIONS:\n\n"
		    "ID      UID     STATE      BUF (#) KB   DUR (s)   #DS  "
		    "STARTED  NAME\n"
		    "===     ===     =====      ==========   =======   ===  "
		    "=======  ====\n");
		for (i = 0; i < st->n_tracing_sessions; i++) {
			const Perfetto__Protos__TracingServiceState__TracingSession
			    *t = st->tracing_sessions[i];
			uint32_t kb = 0;
			int64_t sec;

			for (k = 0; k < t->n_buffer_size_kb; k++)
				kb += t->buffer_size_kb[k];
			/* Time of day (UTC) the session started. */
			sec = (t->start_realtime_ns / 1000000000) % 86400;
			if (sec < 0)
				sec = 0;
			fprintf(f, "%-7" PRIu64 " %-7d %-10s (%zu) %-8u %-9u "
			    "%-4u %02d:%02d:%02d %s\n", t->id, t->consumer_uid,
			    str(t->state), t->n_buffer_size_kb, kb,
			    t->duration_ms / 1000, t->num_data_sources,
			    (int)(sec / 3600), (int)(sec / 60 % 60),
			    (int)(sec % 60), str(t->unique_session_name));
		}
		listed = (int)st->n_tracing_sessions;
		if (listed != st->num_sessions && geteuid() != 0)
			fprintf(f, "\nNOTE: Some tracing sessions are not "
			    "reported in the list above.\nThis is likely "
			    "because they are owned by a different UID.\nIf "
			    "you want to list all session, run again this "
			    "command as root.\n");
	}
	return fflush(f) == 0 && !ferror(f) ? 0 : -1;
}
