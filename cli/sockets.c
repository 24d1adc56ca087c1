/* Default socket paths; see sockets.h. */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/sockets.h"

/* /run/perfetto/ is used when it exists and can be searched. */
static int
run_dir_usable(void)
{
	return access("/run/perfetto/", X_OK) == 0;
}

const char *
sockets_consumer(void)
{
	const char *env = getenv("PERFETTO_CONSUMER_SOCK_NAME");

	if (env != NULL && env[0] != '\0')
		return env;
	return run_dir_usable() ? "/run/perfetto/traced-consumer.sock" :
	    "/tmp/perfetto-consumer";
}

char *
sockets_producer(void)
{
	const char *env = getenv("PERFETTO_PRODUCER_SOCK_NAME");

	if (env != NULL && env[0] != '\0')
		return strndup(env, strcspn(env, ","));
	return strdup(run_dir_usable() ? "/run/perfetto/traced-producer.sock" :
	    "/tmp/perfetto-producer");
}
