/* faro command line flags; see flags.h and doc/faro.1. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "cli/flags.h"

enum {
	OPT_TXT = 1000,
	OPT_TXT_LOSSY,
	OPT_NO_CLOBBER,
	OPT_NOTIFY_FD,
	OPT_DETACH,
	OPT_ATTACH,
	OPT_IS_DETACHED,
	OPT_STOP,
	OPT_QUERY,
	OPT_LONG,
	OPT_QUERY_RAW,
	OPT_CLONE,
	OPT_CLONE_BY_NAME,
	OPT_CLONE_FOR_BUGREPORT,
	OPT_ADD_ATTRIBUTE,
	OPT_VERSION,
};

static const struct option long_options[] = {
	{ "help", no_argument, NULL, 'h' },
	{ "config", required_argument, NULL, 'c' },
	{ "out", required_argument, NULL, 'o' },
	{ "background", no_argument, NULL, 'd' },
	{ "background-wait", no_argument, NULL, 'D' },
	{ "time", required_argument, NULL, 't' },
	{ "buffer", required_argument, NULL, 'b' },
	{ "size", required_argument, NULL, 's' },
	{ "app", required_argument, NULL, 'a' },
	{ "txt", no_argument, NULL, OPT_TXT },
	{ "txt-lossy", no_argument, NULL, OPT_TXT_LOSSY },
	{ "no-clobber", no_argument, NULL, OPT_NO_CLOBBER },
	{ "notify-fd", required_argument, NULL, OPT_NOTIFY_FD },
	{ "detach", required_argument, NULL, OPT_DETACH },
	{ "attach", required_argument, NULL, OPT_ATTACH },
	{ "is_detached", required_argument, NULL, OPT_IS_DETACHED },
	{ "stop", no_argument, NULL, OPT_STOP },
	{ "query", no_argument, NULL, OPT_QUERY },
	{ "long", no_argument, NULL, OPT_LONG },
	{ "query-raw", no_argument, NULL, OPT_QUERY_RAW },
	{ "clone", required_argument, NULL, OPT_CLONE },
	{ "clone-by-name", required_argument, NULL, OPT_CLONE_BY_NAME },
	{ "clone-for-bugreport", no_argument, NULL, OPT_CLONE_FOR_BUGREPORT },
	{ "add-attribute", required_argument, NULL, OPT_ADD_ATTRIBUTE },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ NULL, 0, NULL, 0 }
};

void
flags_usage(const char *argv0, int to_stdout)
{
	FILE *f = to_stdout ? stdout : stderr;

	fprintf(f,
"Usage: %s [options] [FTRACE_GROUP/FTRACE_NAME ...]\n"
"  -c, --config FILE        trace config file, - for stdin (binary TraceConfig)\n"
"      --txt                the config is in protobuf text format\n"
"      --txt-lossy          like --txt, skipping fields this faro does not know\n"
"  -o, --out FILE           output trace file, - for stdout\n"
"      --no-clobber         do not overwrite an existing output file\n"
"  -d, --background         continue in the background, print its PID\n"
"  -D, --background-wait    like -d, wait (up to 30s) for data sources to start\n"
"      --notify-fd FD       write one status byte to FD once data sources started\n"
"      --add-attribute K[=V] add a trace attribute\n"
"      --query [--long]     print the service state (--long: full width)\n"
"      --query-raw          write the service state as a binary proto\n"
"      --clone TSID         save a read-only copy of session TSID (see --query)\n"
"      --clone-by-name NAME save a copy of the session with unique_session_name\n"
"      --clone-for-bugreport  with --clone: skip the session's trace filter\n"
"  -h, --help               this text\n"
"      --version            print the version\n"
"\n"
"Light mode (without -c):\n"
"  -t, --time N[ms,s,m,h]   trace duration (default 10s)\n"
"  -b, --buffer N[k,m,g][b] ring buffer size (default 32mb)\n"
"  -s, --size N[k,m,g][b]   stream into the file up to this size\n"
"  -a, --app NAME           atrace app (Android)\n"
"  GROUP/NAME               ftrace event, e.g. sched/sched_switch\n"
"\n"
"Detached sessions:\n"
"      --detach=KEY         start the session and leave it running\n"
"      --attach=KEY [--stop] attach again (and stop the session)\n"
"      --is_detached=KEY    exit 0 if KEY is detached, 2 if not, 1 on error\n"
"\n"
"The consumer socket is $PERFETTO_CONSUMER_SOCK_NAME, else\n"
"/run/perfetto/traced-consumer.sock or /tmp/perfetto-consumer.\n",
	    argv0);
}

/* Appends a copy of s to a growing string array. */
static int
strv_add(char ***v, size_t *n, const char *s)
{
	char **nv;

	if ((nv = reallocarray(*v, *n + 1, sizeof(**v))) == NULL)
		return -1;
	*v = nv;
	if ((nv[*n] = strdup(s)) == NULL)
		return -1;
	(*n)++;
	return 0;
}

static int
attr_add(struct faro_opts *o, const char *arg)
{
	const char *eq = strchr(arg, '=');
	struct faro_attr *na;

	if (arg[0] == '\0' || eq == arg) {
		log_warnx("--add-attribute: the key must not be empty");
		return -1;
	}
	if ((na = reallocarray(o->attrs, o->nattrs + 1, sizeof(*na))) == NULL)
		return -1;
	o->attrs = na;
	na = &o->attrs[o->nattrs];
	/* Split on the first '=': values may hold '=' themselves. */
	na->key = eq != NULL ? strndup(arg, (size_t)(eq - arg)) : strdup(arg);
	na->value = strdup(eq != NULL ? eq + 1 : "");
	if (na->key == NULL || na->value == NULL) {
		free(na->key);
		free(na->value);
		return -1;
	}
	o->nattrs++;
	return 0;
}

static int
parse_u64(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (s[0] < '0' || s[0] > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno != 0 || *end != '\0')
		return -1;
	*out = v;
	return 0;
}

/* Rules that tie flags together, in upstream's order and wording. */
static int
flags_check(struct faro_opts *o, int query, int clone_given)
{
	int is_attach = o->attach_key != NULL;

	if (query && (o->detach_key != NULL || is_attach || o->background)) {
		log_warnx("--query cannot be combined with any other argument");
		return -1;
	}
	if (o->query_long && !query) {
		log_warnx("--long can only be used with --query");
		return -1;
	}
	if (o->detach_key != NULL && is_attach) {
		log_warnx("--attach and --detach are mutually exclusive");
		return -1;
	}
	if (o->txt && o->txt_lossy) {
		log_warnx("--txt and --txt-lossy are mutually exclusive");
		return -1;
	}
	if (o->detach_key != NULL && o->background) {
		log_warnx("--detach and --background are mutually exclusive");
		return -1;
	}
	if (o->stop && (!is_attach || o->mode == FARO_MODE_IS_DETACHED)) {
		log_warnx("--stop is supported only in combination with --attach");
		return -1;
	}
	if (clone_given && o->clone_name != NULL) {
		log_warnx("--clone and --clone-by-name are mutually exclusive");
		return -1;
	}
	if (o->clone_for_bugreport && !clone_given && o->clone_name == NULL) {
		log_warnx("--clone-for-bugreport requires --clone or "
		    "--clone-by-name");
		return -1;
	}

	if (query)
		o->mode = FARO_MODE_QUERY;
	else if (is_attach && o->mode != FARO_MODE_IS_DETACHED)
		o->mode = FARO_MODE_ATTACH;
	else if (clone_given || o->clone_name != NULL)
		o->mode = FARO_MODE_CLONE;

	if (o->mode == FARO_MODE_ATTACH || o->mode == FARO_MODE_IS_DETACHED ||
	    o->mode == FARO_MODE_QUERY) {
		if (o->config_path != NULL || o->has_light) {
			log_warnx("Cannot specify a trace config with this "
			    "option");
			return -1;
		}
		if (o->out_path != NULL) {
			log_warnx("Can't pass an --out file with this option");
			return -1;
		}
		if (o->background || o->notify_fd != -1) {
			log_warnx("--background and --notify-fd need a session "
			    "to start");
			return -1;
		}
		return 0;
	}
	if (o->mode == FARO_MODE_CLONE) {
		if (o->config_path != NULL || o->has_light) {
			log_warnx("Cannot specify a trace config with --clone");
			return -1;
		}
		if (o->detach_key != NULL) {
			log_warnx("--detach cannot be combined with --clone");
			return -1;
		}
	}
	if (o->config_path != NULL && o->has_light) {
		log_warnx("Cannot specify both -c/--config and any of --time, "
		    "--size, --buffer, --app, ATRACE_CAT, FTRACE_EVENT");
		return -1;
	}
	if (o->config_path == NULL && !o->has_light &&
	    o->mode == FARO_MODE_TRACE) {
		log_warnx("The TraceConfig is empty: give -c FILE, or light "
		    "mode flags such as -t 10s sched/sched_switch");
		return -1;
	}
	if ((o->txt || o->txt_lossy) && o->config_path == NULL) {
		log_warnx("--txt needs -c/--config");
		return -1;
	}
	return 0;
}

int
flags_parse(int argc, char **argv, struct faro_opts *o, int *exit_code)
{
	const char *argv0 = argc > 0 ? argv[0] : "faro";
	int ch, query = 0, clone_given = 0;
	long fd;
	char *end;

	memset(o, 0, sizeof(*o));
	o->mode = FARO_MODE_TRACE;
	o->notify_fd = -1;
	o->light.time = "10s";
	o->light.buffer = "32mb";
	*exit_code = FARO_EXIT_ERROR;

	if (argc <= 1) {
		flags_usage(argv0, 0);
		return -1;
	}
	optind = 0;	/* glibc: full rescan, so tests can parse again */
	opterr = 1;
	while ((ch = getopt_long(argc, argv, "hc:o:dDt:b:s:a:", long_options,
	    NULL)) != -1) {
		switch (ch) {
		case 'h':
			flags_usage(argv0, 1);
			*exit_code = FARO_EXIT_OK;
			return -1;
		case 'c':
			o->config_path = optarg;
			break;
		case 'o':
			o->out_path = optarg;
			break;
		case 'd':
			o->background = 1;
			break;
		case 'D':
			o->background = 1;
			o->background_wait = 1;
			break;
		case 't':
			o->has_light = 1;
			o->light.time = optarg;
			break;
		case 'b':
			o->has_light = 1;
			o->light.buffer = optarg;
			break;
		case 's':
			o->has_light = 1;
			o->light.size = optarg;
			break;
		case 'a':
			o->has_light = 1;
			if (strv_add(&o->light.apps, &o->light.napps,
			    optarg) == -1)
				goto nomem;
			break;
		case OPT_TXT:
			o->txt = 1;
			break;
		case OPT_TXT_LOSSY:
			o->txt_lossy = 1;
			break;
		case OPT_NO_CLOBBER:
			o->no_clobber = 1;
			break;
		case OPT_NOTIFY_FD:
			errno = 0;
			fd = strtol(optarg, &end, 10);
			if (errno != 0 || *end != '\0' || end == optarg ||
			    fd < 0 || fd > INT32_MAX) {
				log_warnx("--notify-fd: '%s' is not a file "
				    "descriptor number", optarg);
				return -1;
			}
			if (fcntl((int)fd, F_GETFD) == -1) {
				log_warnx("--notify-fd: descriptor %ld is not "
				    "open", fd);
				return -1;
			}
			o->notify_fd = (int)fd;
			break;
		case OPT_DETACH:
		case OPT_ATTACH:
		case OPT_IS_DETACHED:
			if (optarg[0] == '\0') {
				log_warnx("--%s needs a non-empty key",
				    ch == OPT_DETACH ? "detach" :
				    ch == OPT_ATTACH ? "attach" : "is_detached");
				return -1;
			}
			if (ch == OPT_DETACH)
				o->detach_key = optarg;
			else
				o->attach_key = optarg;
			if (ch == OPT_IS_DETACHED)
				o->mode = FARO_MODE_IS_DETACHED;
			break;
		case OPT_STOP:
			o->stop = 1;
			break;
		case OPT_QUERY:
			query = 1;
			break;
		case OPT_LONG:
			o->query_long = 1;
			break;
		case OPT_QUERY_RAW:
			query = 1;
			o->query_raw = 1;
			break;
		case OPT_CLONE:
			if (parse_u64(optarg, &o->clone_tsid) == -1 ||
			    o->clone_tsid == 0) {
				log_warnx("--clone: '%s' is not a tracing "
				    "session id (see --query)", optarg);
				return -1;
			}
			clone_given = 1;
			break;
		case OPT_CLONE_BY_NAME:
			if (optarg[0] == '\0') {
				log_warnx("--clone-by-name needs a name");
				return -1;
			}
			o->clone_name = optarg;
			break;
		case OPT_CLONE_FOR_BUGREPORT:
			o->clone_for_bugreport = 1;
			break;
		case OPT_ADD_ATTRIBUTE:
			if (attr_add(o, optarg) == -1)
				return -1;
			break;
		case OPT_VERSION:
			printf("faro %s\n", PACKAGE_VERSION);
			*exit_code = FARO_EXIT_OK;
			return -1;
		default:
			/* getopt has said what was wrong. */
			flags_usage(argv0, 0);
			return -1;
		}
	}
	for (; optind < argc; optind++) {
		o->has_light = 1;
		if (strv_add(&o->light.categories, &o->light.ncategories,
		    argv[optind]) == -1)
			goto nomem;
	}
	if (flags_check(o, query, clone_given) == -1)
		return -1;
	return 0;
nomem:
	log_warn("flags_parse");
	return -1;
}

void
flags_free(struct faro_opts *o)
{
	size_t i;

	for (i = 0; i < o->light.napps; i++)
		free(o->light.apps[i]);
	free(o->light.apps);
	for (i = 0; i < o->light.ncategories; i++)
		free(o->light.categories[i]);
	free(o->light.categories);
	for (i = 0; i < o->nattrs; i++) {
		free(o->attrs[i].key);
		free(o->attrs[i].value);
	}
	free(o->attrs);
	memset(o, 0, sizeof(*o));
	o->notify_fd = -1;
}
