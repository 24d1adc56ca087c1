/*
 * faro: record traces from traced, the command line of upstream
 * Perfetto's `perfetto` (see doc/faro.1). main() reads the flags, loads
 * the config and opens the output file before anything touches traced,
 * so every local mistake is reported without a session being started.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include <event2/event.h>

#include "base/log.h"
#include "cli/background.h"
#include "cli/config_load.h"
#include "cli/consumer.h"
#include "cli/flags.h"
#include "cli/output.h"
#include "cli/triggers.h"

typedef Perfetto__Protos__TraceConfig TraceConfig;

/* cmd_trace_start_delay: wait a random time in [min, max] ms first. */
static void
start_delay(const TraceConfig *cfg)
{
	const Perfetto__Protos__TraceConfig__CmdTraceStartDelay *d =
	    cfg->cmd_trace_start_delay;
	struct timespec ts;
	uint32_t r = 0, ms;

	if (d == NULL || !d->has_min_delay_ms)
		return;
	if (getrandom(&r, sizeof(r), 0) != sizeof(r))
		r = 0;
	ms = d->min_delay_ms + (uint32_t)((uint64_t)r %
	    ((uint64_t)d->max_delay_ms - d->min_delay_ms + 1));
	ts.tv_sec = ms / 1000;
	ts.tv_nsec = (long)(ms % 1000) * 1000000;
	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		;
}

/*
 * The file the trace goes to. A config's output_path is honoured by
 * opening it here (it must not exist) and handing traced the descriptor:
 * traced never opens trace files by path.
 */
static int
open_output(const struct faro_opts *o, TraceConfig *cfg, struct output *out)
{
	char err[512];

	if (cfg != NULL && cfg->output_path != NULL &&
	    cfg->output_path[0] != '\0') {
		if (output_open(out, cfg->output_path, 1, err,
		    sizeof(err)) == -1) {
			log_warnx("%s", err);
			return -1;
		}
		free(cfg->output_path);
		cfg->output_path = NULL;
		return 0;
	}
	if (o->out_path == NULL) {
		log_warnx("--out FILE is required");
		return -1;
	}
	if (output_open(out, o->out_path, o->no_clobber, err,
	    sizeof(err)) == -1) {
		log_warnx("%s", err);
		return -1;
	}
	return 0;
}

int
main(int argc, char **argv)
{
	struct faro_opts o;
	struct output out, *outp = NULL;
	struct consumer_notify notify = { -1, -1 };
	struct event_base *base = NULL;
	TraceConfig *cfg = NULL;
	char err[2048];
	int rc = FARO_EXIT_ERROR;
	const char *v;

	v = getenv("FARO_VERBOSE");
	log_init("faro", 1, v != NULL && v[0] != '\0' && v[0] != '0');
	if (flags_parse(argc, argv, &o, &rc) == -1)
		goto done;
	rc = FARO_EXIT_ERROR;
	notify.notify_fd = o.notify_fd;

	if (o.mode == FARO_MODE_TRACE) {
		if ((cfg = config_load(&o, err, sizeof(err))) == NULL) {
			log_warnx("%s", err);
			goto done;
		}
	}
	if (cfg != NULL && cfg->n_activate_triggers > 0) {
		if ((base = event_base_new()) == NULL) {
			log_warnx("event_base_new failed");
			goto done;
		}
		rc = triggers_activate(base, cfg->activate_triggers,
		    cfg->n_activate_triggers);
		goto done;
	}
	if (o.mode == FARO_MODE_TRACE || o.mode == FARO_MODE_CLONE) {
		if (open_output(&o, cfg, &out) == -1)
			goto done;
		outp = &out;
	}
	if (cfg != NULL)
		start_delay(cfg);
	if (o.background && background_start(o.background_wait,
	    &notify) == -1)
		goto done;
	if ((base = event_base_new()) == NULL) {
		log_warnx("event_base_new failed");
		goto done;
	}
	rc = consumer_run(base, &o, cfg, outp, &notify);
	outp = NULL;	/* closed by consumer_run */
done:
	if (outp != NULL)
		output_close(outp, 1, err, sizeof(err));
	consumer_notify_send(&notify, rc == FARO_EXIT_OK ? CONSUMER_WAIT_OK :
	    CONSUMER_WAIT_ERROR);
	if (base != NULL)
		event_base_free(base);
	if (cfg != NULL)
		protobuf_c_message_free_unpacked(&cfg->base, NULL);
	flags_free(&o);
	return rc;
}
