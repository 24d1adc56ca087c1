/*
 * traced_probes' privileged broker: with sandbox.c, the whole privileged
 * surface of traced_probes.
 *
 * The worker that parses kernel data runs with nothing; it asks the
 * broker, a small root process, over a SOCK_SEQPACKET socket, to read,
 * write, list or open tracefs files under one root and a few /proc files.
 * The broker checks every request against the allow-lists in broker.c
 * (paths, the values that may be written, sizes) and does it, sending
 * data back or a descriptor with SCM_RIGHTS:
 *
 *   worker                                   broker (root)
 *   tfs_read("events/sched/.../format") -->  [tfs_req][path][value]
 *                                        <-- [tfs_rep][data] (+ fd)
 *
 * Requests and replies are one message each, host byte order (both ends
 * are the same binary). OP_BATCH carries many requests in one message,
 * each checked and answered as if alone.
 */
#ifndef FARO_TRACED_PROBES_BROKER_H
#define FARO_TRACED_PROBES_BROKER_H

#include <stddef.h>
#include <stdint.h>

/* Files larger than this are not configuration (and not ours to read). */
#define TFS_READ_MAX	(128 * 1024)

enum tfs_op {
	OP_READ = 1, OP_WRITE, OP_APPEND, OP_EXISTS, OP_LIST, OP_OPEN_RAW,
	OP_MKDIR, OP_RMDIR, OP_OPEN_PROC, OP_LIST_PROC,
	/*
	 * The value is a run of requests (header, path, value; read, write,
	 * append or exists only); the reply's rc is how many were done, its
	 * data one reply (header, data) for each.
	 */
	OP_BATCH,
};

struct tfs_req {
	uint32_t	op;
	uint32_t	plen;		/* path bytes, NUL excluded */
	uint32_t	vlen;		/* value bytes (writes) */
};

struct tfs_rep {
	int32_t		rc;
	int32_t		err;		/* errno when rc == -1 */
	uint32_t	len;		/* data bytes that follow */
};

#define MSG_MAX	(sizeof(struct tfs_rep) + TFS_READ_MAX + 1)

/* The kernel's PID_MAX_LIMIT: no pid or tid is larger. */
#define PROC_PID_LIMIT	4194304
/* Pids per OP_LIST_PROC reply; a longer list takes several requests,
 * each carrying the last pid received (a uint32_t value). */
#define PROC_LIST_PAGE	(TFS_READ_MAX / sizeof(uint32_t))

/*
 * Serves the worker on fd until it hangs up, allowing only paths under
 * top (the tracefs root) and the /proc files of broker_proc_allowed().
 * Returns 0 at EOF, -1 on a broken request stream.
 */
int	broker_serve(int fd, const char *top);
/* Would the broker open or list this /proc path? (Direct mode asks too.) */
int	broker_proc_allowed(int op, const char *path, size_t vlen);
/*
 * Does op on path (the value val of vlen bytes for writes) with this
 * process's rights: data in *out (malloc'd), a descriptor in *fd. The
 * broker's work, also done in-process by a worker in direct mode.
 */
int	broker_do(int op, const char *path, const char *val, size_t vlen,
	    char **out, size_t *outlen, int *fd);
/* Pids per OP_LIST_PROC reply (test builds may make it smaller). */
size_t	broker_list_page(void);

#endif
