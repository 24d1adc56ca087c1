/*
 * A config with activate_triggers does not start a session: as upstream's
 * `perfetto`, faro then connects to traced's producer socket and fires the
 * named triggers (starting or stopping sessions that wait for them).
 */
#ifndef FARO_CLI_TRIGGERS_H
#define FARO_CLI_TRIGGERS_H

#include <stddef.h>

struct event_base;

/* How long faro waits for traced to take the triggers. */
#define TRIGGERS_TIMEOUT_MS	10000

/* Fires the triggers; returns faro's exit code. */
int	triggers_activate(struct event_base *, char *const *names, size_t n);

#endif
