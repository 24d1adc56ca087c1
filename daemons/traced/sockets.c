/*
 * Where traced listens, and how the sockets are handed to it.
 *
 * Paths follow what Perfetto clients expect, so that unmodified SDK apps
 * and the perfetto command find us (ipc_sockname.h has the rules):
 * PERFETTO_PRODUCER_SOCK_NAME (a comma separated list) and
 * PERFETTO_CONSUMER_SOCK_NAME override everything; otherwise
 * /run/perfetto/traced-{producer,consumer}.sock when /run/perfetto is
 * searchable, else /tmp/perfetto-{producer,consumer}.
 *
 * systemd socket activation (LISTEN_PID/LISTEN_FDS, optionally
 * LISTEN_FDNAMES) replaces the paths when present. Group and mode of
 * the socket files come from --set-socket-permissions, as upstream.
 */
#include "config.h"

#include <sys/types.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/log.h"
#include "libipc/ipc_sockname.h"
#include "traced.h"

#define SD_LISTEN_FDS_START	3

/* Names from ipc_sockname(), the one copy of upstream's rules. */
int
sockets_resolve(struct traced_sockets *ts, const char **cause)
{
	const char	*list = ipc_sockname(IPC_PORT_PRODUCER);
	size_t		 cap = strlen(list) + 1, off = 0;
	char		*buf;

	memset(ts, 0, sizeof(*ts));
	if ((ts->producer_list = malloc(cap)) == NULL) {
		*cause = "out of memory";
		return -1;
	}
	buf = ts->producer_list;
	while (off < cap && ipc_sockname_next(&list, buf + off,
	    cap - off) == 0) {
		if (buf[off] == '\0')
			continue;	/* empty item */
		if (ts->nproducer == TRACED_MAX_PRODUCER_SOCKETS) {
			*cause = "too many producer sockets";
			return -1;
		}
		ts->producer[ts->nproducer++] = buf + off;
		off += strlen(buf + off) + 1;
	}
	if (ts->nproducer == 0) {
		*cause = "empty producer socket name";
		return -1;
	}
	ts->consumer = ipc_sockname(IPC_PORT_CONSUMER);
	for (int i = 0; i < ts->nproducer; i++)
		ts->producer_fd[i] = -1;
	ts->consumer_fd = -1;
	return 0;
}

/*
 * The permissions flag has upstream's shape:
 *   producer_group:producer_mode:consumer_group:consumer_mode
 * with octal modes such as 0660.
 */
static int
sockets_parse_mode(const char *s, mode_t *mode)
{
	char		*end;
	unsigned long	 v;

	errno = 0;
	v = strtoul(s, &end, 8);
	if (errno != 0 || *s == '\0' || *end != '\0' || v > 07777)
		return -1;
	*mode = (mode_t)v;
	return 0;
}

int
sockets_parse_permissions(const char *arg, struct traced_sockets *ts,
    const char **cause)
{
	char	*copy, *part[4], *p;
	int	 n = 0;

	if ((copy = strdup(arg)) == NULL) {
		*cause = "out of memory";
		return -1;
	}
	/* strtok would merge empty fields; walk the colons by hand. */
	p = copy;
	while (n < 4) {
		part[n++] = p;
		if ((p = strchr(p, ':')) == NULL)
			break;
		*p++ = '\0';
	}
	if (n != 4 || p != NULL) {
		*cause = "expected producer_group:producer_mode:"
		    "consumer_group:consumer_mode";
		goto fail;
	}
	for (int i = 0; i < 4; i++) {
		if (*part[i] == '\0') {
			*cause = "empty field in socket permissions";
			goto fail;
		}
	}
	if (sockets_parse_mode(part[1], &ts->producer_mode) == -1 ||
	    sockets_parse_mode(part[3], &ts->consumer_mode) == -1) {
		*cause = "socket mode must be octal, e.g. 0660";
		goto fail;
	}
	if (strlen(part[0]) >= sizeof(ts->producer_group) ||
	    strlen(part[2]) >= sizeof(ts->consumer_group)) {
		*cause = "group name too long";
		goto fail;
	}
	snprintf(ts->producer_group, sizeof(ts->producer_group), "%s",
	    part[0]);
	snprintf(ts->consumer_group, sizeof(ts->consumer_group), "%s",
	    part[2]);
	ts->set_permissions = 1;
	free(copy);
	return 0;
fail:
	free(copy);
	return -1;
}

static int
sockets_is_listening_unix(int fd)
{
	struct sockaddr_un	sun;
	socklen_t		len = sizeof(sun);
	int			val;
	socklen_t		vlen = sizeof(val);

	if (getsockname(fd, (struct sockaddr *)&sun, &len) == -1 ||
	    sun.sun_family != AF_UNIX)
		return 0;
	if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &val, &vlen) == -1 ||
	    !val)
		return 0;
	return 1;
}

/*
 * Take sockets from systemd. Names (LISTEN_FDNAMES, from FileDescriptorName=)
 * pick the role when present: a name containing "consumer" is the consumer
 * socket, any other the producer socket. Without names the last descriptor
 * is the consumer socket and the others are producer sockets.
 * Returns 1 when activated, 0 when not, -1 on a bad environment.
 */
int
sockets_from_systemd(struct traced_sockets *ts, const char **cause)
{
	const char	*pid_s, *fds_s, *names_s;
	char		*names = NULL, *name[TRACED_MAX_PRODUCER_SOCKETS + 1];
	char		*end;
	long		 pid, nfds;
	int		 nnames = 0, i, fd;

	pid_s = getenv("LISTEN_PID");
	fds_s = getenv("LISTEN_FDS");
	if (pid_s == NULL || fds_s == NULL)
		return 0;
	errno = 0;
	pid = strtol(pid_s, &end, 10);
	if (errno != 0 || *end != '\0' || pid != (long)getpid())
		return 0;
	nfds = strtol(fds_s, &end, 10);
	if (errno != 0 || *end != '\0' || nfds < 2 ||
	    nfds > TRACED_MAX_PRODUCER_SOCKETS + 1) {
		*cause = "LISTEN_FDS must name 2 or more sockets";
		return -1;
	}
	if ((names_s = getenv("LISTEN_FDNAMES")) != NULL) {
		if ((names = strdup(names_s)) == NULL) {
			*cause = "out of memory";
			return -1;
		}
		nnames = 0;
		for (char *p = names; nnames <= TRACED_MAX_PRODUCER_SOCKETS;) {
			name[nnames++] = p;
			if ((p = strchr(p, ':')) == NULL)
				break;
			*p++ = '\0';
		}
		if (nnames != nfds)
			nnames = 0;
	}
	ts->nproducer = 0;
	ts->consumer_fd = -1;
	for (i = 0; i < nfds; i++) {
		fd = SD_LISTEN_FDS_START + i;
		if (!sockets_is_listening_unix(fd)) {
			*cause = "a LISTEN_FDS descriptor is not a listening "
			    "unix socket";
			goto fail;
		}
		if (fcntl(fd, F_SETFD, FD_CLOEXEC) == -1) {
			*cause = "fcntl on a LISTEN_FDS descriptor failed";
			goto fail;
		}
		if (nnames ? strstr(name[i], "consumer") != NULL :
		    i == nfds - 1) {
			if (ts->consumer_fd != -1) {
				*cause = "two consumer sockets in LISTEN_FDS";
				goto fail;
			}
			ts->consumer_fd = fd;
		} else
			ts->producer_fd[ts->nproducer++] = fd;
	}
	if (ts->consumer_fd == -1 || ts->nproducer == 0) {
		*cause = "LISTEN_FDS lacks a producer or consumer socket";
		goto fail;
	}
	free(names);
	ts->activated = 1;
	unsetenv("LISTEN_PID");
	unsetenv("LISTEN_FDS");
	unsetenv("LISTEN_FDNAMES");
	return 1;
fail:
	free(names);
	return -1;
}

/*
 * Upstream's own readiness channel: a descriptor named by TRACED_NOTIFY_FD
 * gets "1" once the sockets accept connections (systemd's NOTIFY_SOCKET is
 * handled by proc_notify_ready).
 */
void
sockets_notify_fd(void)
{
	const char	*env;
	char		*end;
	long		 fd;

	if ((env = getenv("TRACED_NOTIFY_FD")) == NULL)
		return;
	errno = 0;
	fd = strtol(env, &end, 10);
	if (errno == 0 && *end == '\0' && fd > 2 && fd < INT_MAX) {
		if (write((int)fd, "1", 1) != 1)
			log_warn("%s: TRACED_NOTIFY_FD", __func__);
		close((int)fd);
	} else
		log_warnx("%s: bad TRACED_NOTIFY_FD", __func__);
	unsetenv("TRACED_NOTIFY_FD");
}
