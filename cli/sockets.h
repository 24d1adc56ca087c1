/*
 * Where traced listens, as every Perfetto client finds it: the
 * PERFETTO_*_SOCK_NAME variables, else /run/perfetto/ when it can be
 * searched, else /tmp/.
 */
#ifndef FARO_CLI_SOCKETS_H
#define FARO_CLI_SOCKETS_H

/* $PERFETTO_CONSUMER_SOCK_NAME, /run/perfetto/traced-consumer.sock or
 * /tmp/perfetto-consumer. */
const char	*sockets_consumer(void);
/* The first of $PERFETTO_PRODUCER_SOCK_NAME (comma separated),
 * /run/perfetto/traced-producer.sock or /tmp/perfetto-producer; a new
 * string, NULL without memory. */
char		*sockets_producer(void);

#endif
