/*
 * linux.process_stats parsers and encoders: /proc/PID/status, cmdline,
 * comm and oom_score_adj text in, ProcessTree / ProcessStats entries out
 * (straight into a pbw, so tests decode exactly what a session writes).
 *
 * Every input is untrusted: fields may be missing, numbers may overflow,
 * lines may be cut. A status without a valid Pid and Tgid is refused; a
 * counter that does not parse is left out, never guessed.
 */
#ifndef FARO_PS_PARSE_H
#define FARO_PS_PARSE_H

#include <stddef.h>
#include <stdint.h>

struct pbw;

#define PS_NAME_MAX	64	/* comm is 16 bytes; escapes make it longer */

/* Memory counters of /proc/PID/status, in ProcessStats.Process order. */
enum ps_mem {
	PS_VM_SIZE, PS_VM_RSS, PS_RSS_ANON, PS_RSS_FILE, PS_RSS_SHMEM,
	PS_VM_SWAP, PS_VM_LOCKED, PS_VM_HWM, PS_MEM_N
};

struct ps_status {
	char		 name[PS_NAME_MAX];
	int32_t		 pid, tgid, ppid, uid;
	int		 kthread;		/* 0/1, -1 when not reported */
	uint32_t	 have_mem;		/* 1 << enum ps_mem */
	uint64_t	 mem_kb[PS_MEM_N];
};

/* 0, or -1 when there is no usable Pid/Tgid (not a process). */
int	ps_status_parse_untrusted(const char *buf, size_t len,
	    struct ps_status *);
/* oom_score_adj: 0 and *v, or -1. */
int	ps_oom_parse_untrusted(const char *buf, size_t len, int64_t *v);
/* A comm file's name without its newline: its length. */
size_t	ps_comm_trim(const char *buf, size_t len);

/*
 * ProcessTree.processes entry. cmdline is the raw NUL-separated argv
 * (may lack the final NUL); empty means a kernel thread or a zombie, and
 * the status name stands in (cmdline_is_comm).
 */
void	ps_write_tree_process(struct pbw *, const struct ps_status *,
	    const char *cmdline, size_t cmdlen);
/* ProcessTree.threads entry; name may be NULL. */
void	ps_write_tree_thread(struct pbw *, int32_t tid, int32_t tgid,
	    const char *name, size_t namelen);
/*
 * ProcessStats.processes entry with the memory counters in mask (1 <<
 * enum ps_mem; those the status has) and oom_score_adj when have_oom.
 * Writes nothing and returns -1 when that leaves nothing to say (a
 * kernel thread has no memory counters).
 */
int	ps_write_stats_process(struct pbw *, const struct ps_status *,
	    uint32_t mask, int have_oom, int64_t oom_score_adj);

#endif
