/*
 * check_ps: linux.process_stats.
 *   parse    /proc/PID/status, oom_score_adj, cmdline samples (data/
 *            proc_status.txt, recorded) and hostile text: every prefix of
 *            the sample, overflowing numbers, missing keys, no newline
 *   encode   ProcessTree / ProcessStats entries decoded by protobuf-c
 *   session  the real traced, the real /proc: this process, its named
 *            thread and a child's cmdline in the tree; a child that
 *            allocates shows a growing RSS and its oom_score_adj; pids
 *            reported by ftrace are described once, unless the
 *            DISABLE_ON_DEMAND quirk is set
 */
#include "config.h"

#include <sys/prctl.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include <check.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "protos/perfetto/trace/ps/process_stats.pb-c.h"
#include "protos/perfetto/trace/ps/process_tree.pb-c.h"

#include "libshm/pbw.h"
#include "procfs.h"
#include "ps_ds.h"
#include "ps_parse.h"
#include "check_ps_session.h"

/* ---- parse ---------------------------------------------------------- */

START_TEST(status_sample)
{
	struct ps_status st;
	size_t len;
	char *s = pss_sample("proc_status.txt", &len);

	ck_assert_int_eq(ps_status_parse_untrusted(s, len, &st), 0);
	ck_assert_str_eq(st.name, "cat");
	ck_assert_int_eq(st.pid, 4412);
	ck_assert_int_eq(st.tgid, 4412);
	ck_assert_int_eq(st.ppid, 4410);
	ck_assert_int_eq(st.uid, 0);
	ck_assert_uint_eq(st.have_mem, (1u << PS_MEM_N) - 1);
	ck_assert_uint_eq(st.mem_kb[PS_VM_SIZE], 3060);
	ck_assert_uint_eq(st.mem_kb[PS_VM_RSS], 1644);
	ck_assert_uint_eq(st.mem_kb[PS_RSS_ANON], 116);
	ck_assert_uint_eq(st.mem_kb[PS_RSS_FILE], 1528);
	ck_assert_uint_eq(st.mem_kb[PS_RSS_SHMEM], 0);
	ck_assert_uint_eq(st.mem_kb[PS_VM_SWAP], 0);
	ck_assert_uint_eq(st.mem_kb[PS_VM_LOCKED], 0);
	ck_assert_uint_eq(st.mem_kb[PS_VM_HWM], 1644);
	free(s);
}
END_TEST

/* Every cut of the sample: exact-size copies, so ASan sees overreads. */
START_TEST(status_every_prefix)
{
	struct ps_status st;
	size_t len, ok = 0;
	char *s = pss_sample("proc_status.txt", &len), *cut;

	for (size_t n = 0; n <= len; n++) {
		cut = malloc(n ? n : 1);
		memcpy(cut, s, n);
		/* a cut number reads short: procfs_read never cuts a line */
		if (ps_status_parse_untrusted(cut, n, &st) == 0) {
			ck_assert(st.pid == 4412 || st.pid == 441 ||
			    st.pid == 44 || st.pid == 4);
			ck_assert_int_eq(st.tgid, 4412);
			ok++;
		}
		free(cut);
	}
	/* parsable once Pid: is complete (Tgid comes first) */
	ck_assert_uint_gt(ok, len / 2);
	free(s);
}
END_TEST

/* The reader keeps whole lines only when the file does not fit. */
START_TEST(read_truncated)
{
	char path[1024], buf[100], big[8192];
	const char *top = getenv("top_srcdir");
	ssize_t n;
	int trunc;

	snprintf(path, sizeof(path), "%s/tests/traced_probes/data/"
	    "proc_status.txt", top ? top : ".");
	n = procfs_read(path, buf, sizeof(buf), &trunc);
	ck_assert_int_gt(n, 0);
	ck_assert_int_lt(n, (ssize_t)sizeof(buf));
	ck_assert_int_eq(trunc, 1);
	ck_assert_int_eq(buf[n - 1], '\n');
	ck_assert_uint_eq(strlen(buf), (size_t)n);
	n = procfs_read(path, big, sizeof(big), &trunc);
	ck_assert_int_eq(trunc, 0);
	ck_assert_int_gt(n, 1000);
	/* a process that is gone */
	ck_assert_int_eq(procfs_read("/proc/0/status", buf, sizeof(buf),
	    NULL), -1);
}
END_TEST

START_TEST(status_hostile)
{
	static const char *refused[] = {
		"",
		"Pid:\t12\n",					/* no Tgid */
		"Tgid:\t0\nPid:\t0\n",				/* not a pid */
		"Tgid:\t-5\nPid:\t-5\n",
		"Tgid:\t99999999999999999999\nPid:\t1\n",	/* overflow */
		"Tgid:\t2147483648\nPid:\t1\n",			/* > int32 */
		"Tgid 5\nPid 5\n",				/* no colon */
		"Tgid:\nPid:\n",
		"Tgid:\t5x\nPid:\t5\n",
	};
	struct ps_status st;
	char big[512];

	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
		ck_assert_msg(ps_status_parse_untrusted(refused[i],
		    strlen(refused[i]), &st) == -1, "accepted #%zu", i);

	/* a long name is cut; bad counters are left out, not zeroed */
	snprintf(big, sizeof(big), "Name:\t%0200d\nTgid:\t5\nPid:\t5\n"
	    "VmRSS:\t 18446744073709551616 kB\nVmSize: abc kB\n"
	    "VmSwap:\n:\n\n::::\nVmHWM:\t12 kB", 0);
	ck_assert_int_eq(ps_status_parse_untrusted(big, strlen(big), &st), 0);
	ck_assert_uint_eq(strlen(st.name), PS_NAME_MAX - 1);
	ck_assert_uint_eq(st.have_mem, 1u << PS_VM_HWM);
	ck_assert_uint_eq(st.mem_kb[PS_VM_HWM], 12);
	ck_assert_int_eq(st.kthread, -1);
}
END_TEST

START_TEST(oom_parse)
{
	int64_t v;

	ck_assert_int_eq(ps_oom_parse_untrusted("-1000\n", 6, &v), 0);
	ck_assert_int_eq(v, -1000);
	ck_assert_int_eq(ps_oom_parse_untrusted("500", 3, &v), 0);
	ck_assert_int_eq(v, 500);
	ck_assert_int_eq(ps_oom_parse_untrusted("", 0, &v), -1);
	ck_assert_int_eq(ps_oom_parse_untrusted("-", 1, &v), -1);
	ck_assert_int_eq(ps_oom_parse_untrusted("1 2", 3, &v), -1);
	ck_assert_int_eq(ps_oom_parse_untrusted("99999999999999999999", 20,
	    &v), -1);
}
END_TEST

/* ---- /proc's hidepid= from mountinfo ----------------------------------- */

#define MI_ROOT	"21 1 252:1 / / rw,relatime shared:1 - ext4 /dev/vda1 rw\n"
#define MI_SYS	"23 21 0:20 / /sys rw shared:7 - sysfs sysfs rw\n"

static int
hidden(const char *text, uint32_t gid, char *mode)
{
	mode[0] = '\0';
	return procfs_pids_hidden_untrusted(text, strlen(text), gid, mode, 40);
}

START_TEST(mountinfo_hidepid)
{
	char m[40];

	/* plain /proc, old numeric and new named forms */
	ck_assert_int_eq(hidden(MI_ROOT "22 21 0:21 / /proc rw,relatime "
	    "shared:13 - proc proc rw\n" MI_SYS, 65534, m), 0);
	ck_assert_int_eq(hidden(MI_ROOT "22 21 0:21 / /proc rw - proc proc "
	    "rw,hidepid=2\n", 65534, m), 1);
	ck_assert_str_eq(m, "2");
	ck_assert_int_eq(hidden(MI_ROOT "22 21 0:21 / /proc rw - proc proc "
	    "rw,hidepid=invisible", 65534, m), 1);	/* no final newline */
	ck_assert_str_eq(m, "invisible");
	ck_assert_int_eq(hidden("22 21 0:21 / /proc rw - proc proc "
	    "rw,hidepid=noaccess\n", 65534, m), 1);
	ck_assert_int_eq(hidden("22 21 0:21 / /proc rw - proc proc "
	    "rw,hidepid=off\n", 65534, m), 0);
	ck_assert_int_eq(hidden("22 21 0:21 / /proc rw - proc proc "
	    "rw,hidepid=0\n", 65534, m), 0);
	/* subset=pid hides files, not pids */
	ck_assert_int_eq(hidden("22 21 0:21 / /proc rw - proc proc "
	    "rw,subset=pid\n", 65534, m), 0);
	/* optional fields before the separator */
	ck_assert_int_eq(hidden("22 21 0:21 / /proc rw shared:13 master:2 - "
	    "proc proc rw,hidepid=invisible\n", 65534, m), 1);
	/* gid=: that group sees everything; without it, group 0 does */
	ck_assert_int_eq(hidden("22 21 0:21 / /proc rw - proc proc "
	    "rw,hidepid=invisible,gid=4242\n", 4242, m), 0);
	ck_assert_int_eq(hidden("22 21 0:21 / /proc rw - proc proc "
	    "rw,hidepid=invisible,gid=4242\n", 0, m), 1);
	ck_assert_int_eq(hidden("22 21 0:21 / /proc rw - proc proc "
	    "rw,hidepid=invisible\n", 0, m), 0);
	ck_assert_int_eq(hidden("22 21 0:21 / /proc rw - proc proc "
	    "rw,gid=42,hidepid=2\n", 42, m), 0);
	/* ptraceable lets no group in */
	ck_assert_int_eq(hidden("22 21 0:21 / /proc rw - proc proc "
	    "rw,hidepid=ptraceable,gid=4242\n", 4242, m), 1);
	ck_assert_int_eq(hidden("22 21 0:21 / /proc rw - proc proc "
	    "rw,hidepid=4\n", 0, m), 1);
	/* an unknown value: hidden, to be safe */
	ck_assert_int_eq(hidden("22 21 0:21 / /proc rw - proc proc "
	    "rw,hidepid=someday\n", 65534, m), 1);
	/* the last mount on /proc is the one in use */
	ck_assert_int_eq(hidden("22 21 0:21 / /proc rw - proc proc rw\n"
	    "40 22 0:40 / /proc rw - proc proc rw,hidepid=2\n", 65534, m), 1);
	ck_assert_int_eq(hidden("22 21 0:21 / /proc rw - proc proc "
	    "rw,hidepid=2\n40 22 0:40 / /proc rw - proc proc rw\n", 65534,
	    m), 0);
}
END_TEST

START_TEST(mountinfo_hostile)
{
	char m[40];
	static const char *const bad[] = {
		"", "\n\n", "garbage", "22 21 0:21 / /proc",
		/* not proc, or not on /proc */
		"22 21 0:21 / /proc rw - tmpfs tmpfs rw,hidepid=2\n",
		"22 21 0:21 / /proc2 rw - proc proc rw,hidepid=2\n",
		"22 21 0:21 / /mnt/proc rw - proc proc rw,hidepid=2\n",
		"22 21 0:21 / /proc/ rw - proc proc rw,hidepid=2\n",
		/* no separator, or nothing after it */
		"22 21 0:21 / /proc rw proc proc rw,hidepid=2\n",
		"22 21 0:21 / /proc rw -\n", "22 21 0:21 / /proc rw - proc\n",
		"22 21 0:21 / /proc rw - proc proc\n",
		/* a "-" among the first fields is no separator */
		"22 21 0:21 - /proc - proc proc\n",
	};
	char big[600];

	/* no usable /proc line: cannot tell */
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(hidden(bad[i], 65534, m) == -1, "%zu: %s", i,
		    bad[i]);
	/* a long value is cut to fit, still hidden */
	snprintf(big, sizeof(big), "22 21 0:21 / /proc rw - proc proc "
	    "rw,hidepid=%0500d\n", 7);
	ck_assert_int_eq(hidden(big, 65534, m), 1);
	ck_assert_uint_lt(strlen(m), 40);
	/* empty options and a bare "hidepid=" hide nothing */
	ck_assert_int_eq(hidden("22 21 0:21 / /proc rw - proc proc "
	    ",,hidepid=,gid=\n", 65534, m), 0);
	/* this machine's own table reads */
	ck_assert_int_ge(procfs_pids_hidden(65534, m, sizeof(m)), 0);
}
END_TEST

/* ---- encode --------------------------------------------------------- */

static Perfetto__Protos__ProcessTree *
tree_of(uint8_t *buf, struct pbw *w)
{
	ck_assert_uint_eq(w->error, 0);
	return perfetto__protos__process_tree__unpack(NULL,
	    (size_t)pbw_written(w), buf);
}

START_TEST(tree_encode)
{
	static const char argv2[] = "a\0b c\0";
	static const char nonul[] = { 'x', '\0', 'y' };
	Perfetto__Protos__ProcessTree *t;
	struct ps_status st;
	uint8_t buf[4096];
	struct pbw w;

	memset(&st, 0, sizeof(st));
	st.pid = st.tgid = 42;
	st.ppid = 1;
	st.uid = 1000;
	st.kthread = -1;
	strcpy(st.name, "comm42");
	pbw_init_flat(&w, buf, sizeof(buf));
	ps_write_tree_process(&w, &st, argv2, sizeof(argv2) - 1);
	ps_write_tree_process(&w, &st, nonul, sizeof(nonul));
	st.kthread = 1;
	ps_write_tree_process(&w, &st, "", 0);
	ps_write_tree_thread(&w, 43, 42, "worker", 6);
	ps_write_tree_thread(&w, 44, 42, NULL, 0);
	t = tree_of(buf, &w);
	ck_assert_ptr_nonnull(t);
	ck_assert_uint_eq(t->n_processes, 3);
	ck_assert_int_eq(t->processes[0]->pid, 42);
	ck_assert_int_eq(t->processes[0]->ppid, 1);
	ck_assert_int_eq(t->processes[0]->uid, 1000);
	ck_assert_uint_eq(t->processes[0]->n_cmdline, 2);
	ck_assert_str_eq(t->processes[0]->cmdline[0], "a");
	ck_assert_str_eq(t->processes[0]->cmdline[1], "b c");
	ck_assert(!t->processes[0]->has_cmdline_is_comm);
	ck_assert(!t->processes[0]->has_is_kthread);
	ck_assert_uint_eq(t->processes[1]->n_cmdline, 2);
	ck_assert_str_eq(t->processes[1]->cmdline[1], "y");
	ck_assert_uint_eq(t->processes[2]->n_cmdline, 1);
	ck_assert_str_eq(t->processes[2]->cmdline[0], "comm42");
	ck_assert(t->processes[2]->cmdline_is_comm);
	ck_assert(t->processes[2]->has_is_kthread && t->processes[2]->is_kthread);
	ck_assert_uint_eq(t->n_threads, 2);
	ck_assert_int_eq(t->threads[0]->tid, 43);
	ck_assert_int_eq(t->threads[0]->tgid, 42);
	ck_assert_str_eq(t->threads[0]->name, "worker");
	ck_assert_ptr_null(t->threads[1]->name);
	perfetto__protos__process_tree__free_unpacked(t, NULL);
}
END_TEST

START_TEST(stats_encode)
{
	Perfetto__Protos__ProcessStats *ps;
	struct ps_status st;
	uint8_t buf[1024];
	struct pbw w;
	size_t len;
	char *s = pss_sample("proc_status.txt", &len);

	ck_assert_int_eq(ps_status_parse_untrusted(s, len, &st), 0);
	pbw_init_flat(&w, buf, sizeof(buf));
	ck_assert_int_eq(ps_write_stats_process(&w, &st, ~0u, 1, -1000), 0);
	/* nothing selected and no oom: nothing written */
	ck_assert_int_eq(ps_write_stats_process(&w, &st, 0, 0, 0), -1);
	st.have_mem = 0;
	ck_assert_int_eq(ps_write_stats_process(&w, &st, ~0u, 0, 0), -1);
	ps = perfetto__protos__process_stats__unpack(NULL,
	    (size_t)pbw_written(&w), buf);
	ck_assert_ptr_nonnull(ps);
	ck_assert_uint_eq(ps->n_processes, 1);
	ck_assert_int_eq(ps->processes[0]->pid, 4412);
	ck_assert_uint_eq(ps->processes[0]->vm_size_kb, 3060);
	ck_assert_uint_eq(ps->processes[0]->vm_rss_kb, 1644);
	ck_assert_uint_eq(ps->processes[0]->rss_anon_kb, 116);
	ck_assert_uint_eq(ps->processes[0]->rss_file_kb, 1528);
	ck_assert(ps->processes[0]->has_rss_shmem_kb);
	ck_assert(ps->processes[0]->has_vm_swap_kb);
	ck_assert(ps->processes[0]->has_vm_locked_kb);
	ck_assert_uint_eq(ps->processes[0]->vm_hwm_kb, 1644);
	ck_assert_int_eq(ps->processes[0]->oom_score_adj, -1000);
	perfetto__protos__process_stats__free_unpacked(ps, NULL);
	free(s);
}
END_TEST

/* ---- session -------------------------------------------------------- */

static Perfetto__Protos__ProcessStatsConfig *
ps_config(Perfetto__Protos__TraceConfig *cfg)
{
	Perfetto__Protos__ProcessStatsConfig *pc = calloc(1, sizeof(*pc));

	perfetto__protos__process_stats_config__init(pc);
	cfg->data_sources[0]->config->process_stats_config = pc;
	return pc;
}

static const char *const ps_names[] = { PS_DS_NAME, NULL };

/* Counts tree entries (processes, threads) with this pid / tid. */
struct found {
	int				 nproc, nthread;
	const Perfetto__Protos__ProcessTree__Process *proc;
	const Perfetto__Protos__ProcessTree__Thread *thread;
	int				 bad_ts;
};

static void
tree_find(const struct tt_trace *t, int32_t pid, struct found *f)
{
	memset(f, 0, sizeof(*f));
	for (size_t i = 0; i < t->npackets; i++) {
		const Perfetto__Protos__TracePacket *pk = t->trace->packet[i];
		const Perfetto__Protos__ProcessTree *pt;

		if (pk->data_case !=
		    PERFETTO__PROTOS__TRACE_PACKET__DATA_PROCESS_TREE)
			continue;
		pt = pk->process_tree;
		if (!pk->has_timestamp || !pt->has_collection_end_timestamp ||
		    pt->collection_end_timestamp < pk->timestamp)
			f->bad_ts++;
		for (size_t k = 0; k < pt->n_processes; k++)
			if (pt->processes[k]->pid == pid) {
				f->nproc++;
				f->proc = pt->processes[k];
			}
		for (size_t k = 0; k < pt->n_threads; k++)
			if (pt->threads[k]->tid == pid) {
				f->nthread++;
				f->thread = pt->threads[k];
			}
	}
}

static volatile int thread_stop;

static void *
named_thread(void *arg)
{
	prctl(PR_SET_NAME, "faro-worker");
	*(volatile pid_t *)arg = gettid();
	while (!thread_stop)
		usleep(10000);
	return NULL;
}

static pid_t
spawn_sleeper(void)
{
	pid_t pid = fork();

	if (pid == 0) {
		execlp("sleep", "sleep", "7", (char *)NULL);
		_exit(127);
	}
	/* until exec is done the child still looks like us */
	for (int i = 0; i < 200; i++) {
		char buf[64] = "";
		ssize_t n = procfs_readf(buf, sizeof(buf), NULL,
		    "/proc/%d/cmdline", (int)pid);

		if (n > 0 && strcmp(buf, "sleep") == 0)
			break;
		usleep(5000);
	}
	return pid;
}

START_TEST(tree_has_self)
{
	Perfetto__Protos__TraceConfig *cfg;
	Perfetto__Protos__ProcessStatsConfig *pc;
	struct tt_trace t;
	struct found f;
	struct pss s;
	pthread_t th;
	volatile pid_t tid = 0;
	char self[256] = "";
	pid_t child;

	procfs_read("/proc/self/cmdline", self, sizeof(self), NULL);
	ck_assert_int_eq(pthread_create(&th, NULL, named_thread,
	    (void *)&tid), 0);
	while (tid == 0)
		usleep(1000);
	child = spawn_sleeper();
	ck_assert_int_eq(pss_open(&s), 0);
	cfg = pss_config(ps_names);
	pc = ps_config(cfg);
	pc->has_scan_all_processes_on_start = 1;
	pc->scan_all_processes_on_start = 1;
	pc->has_record_thread_names = 1;
	pc->record_thread_names = 1;
	ck_assert_int_eq(pss_run(&s, cfg, 300, NULL, NULL, &t), 0);

	tree_find(&t, getpid(), &f);
	ck_assert_int_eq(f.bad_ts, 0);
	ck_assert_int_eq(f.nproc, 1);		/* described once */
	ck_assert_int_eq(f.proc->ppid, getppid());
	ck_assert_int_eq(f.proc->uid, (int)getuid());
	ck_assert_uint_ge(f.proc->n_cmdline, 1);
	ck_assert_str_eq(f.proc->cmdline[0], self);
	ck_assert(!f.proc->cmdline_is_comm);

	tree_find(&t, tid, &f);
	ck_assert_int_eq(f.nthread, 1);
	ck_assert_int_eq(f.thread->tgid, getpid());
	ck_assert_str_eq(f.thread->name, "faro-worker");

	tree_find(&t, child, &f);
	ck_assert_int_eq(f.nproc, 1);
	ck_assert_int_eq(f.proc->ppid, getpid());
	ck_assert_uint_eq(f.proc->n_cmdline, 2);
	ck_assert_str_eq(f.proc->cmdline[0], "sleep");
	ck_assert_str_eq(f.proc->cmdline[1], "7");

	/* kthreadd: no cmdline, its comm stands in */
	tree_find(&t, 2, &f);
	ck_assert_int_eq(f.nproc, 1);
	ck_assert(f.proc->cmdline_is_comm);
	ck_assert_str_eq(f.proc->cmdline[0], "kthreadd");
	ck_assert_int_eq(t.bad_trusted, 0);

	tt_trace_free(&t);
	tt_config_free(cfg);
	pss_close(&s);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	thread_stop = 1;
	pthread_join(th, NULL);
}
END_TEST

/* Grows its anonymous RSS 8 MiB at a time, then waits to be killed. */
static pid_t
spawn_grower(void)
{
	pid_t pid = fork();

	if (pid == 0) {
		int fd = open("/proc/self/oom_score_adj", O_WRONLY);

		if (fd >= 0) {
			(void)!write(fd, "500", 3);
			close(fd);
		}
		for (int i = 0; i < 10; i++) {
			char *p = mmap(NULL, 8 << 20, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

			if (p != MAP_FAILED)
				memset(p, 0x5a, 8 << 20);
			usleep(150000);
		}
		pause();
		_exit(0);
	}
	return pid;
}

START_TEST(rss_moves)
{
	Perfetto__Protos__TraceConfig *cfg;
	Perfetto__Protos__ProcessStatsConfig *pc;
	struct tt_trace t;
	struct found f;
	struct pss s;
	uint64_t first = 0, last = 0, prev = 0;
	int samples = 0, oom = 0, decreasing = 0, kthread_stats = 0;
	pid_t child;

	ck_assert_int_eq(pss_open(&s), 0);
	cfg = pss_config(ps_names);
	pc = ps_config(cfg);
	pc->has_proc_stats_poll_ms = 1;
	pc->proc_stats_poll_ms = 100;
	child = spawn_grower();
	ck_assert_int_eq(pss_run(&s, cfg, 1700, NULL, NULL, &t), 0);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);

	for (size_t i = 0; i < t.npackets; i++) {
		const Perfetto__Protos__TracePacket *pk = t.trace->packet[i];
		const Perfetto__Protos__ProcessStats *ps;

		if (pk->data_case !=
		    PERFETTO__PROTOS__TRACE_PACKET__DATA_PROCESS_STATS)
			continue;
		ps = pk->process_stats;
		ck_assert(pk->has_timestamp && ps->has_collection_end_timestamp);
		for (size_t k = 0; k < ps->n_processes; k++) {
			const Perfetto__Protos__ProcessStats__Process *p =
			    ps->processes[k];

			if (p->pid == 2)
				kthread_stats++;
			if (p->pid != child)
				continue;
			ck_assert(p->has_vm_rss_kb && p->has_rss_anon_kb &&
			    p->has_vm_size_kb && p->has_vm_hwm_kb);
			if (samples++ == 0)
				first = p->vm_rss_kb;
			if (p->vm_rss_kb < prev)
				decreasing++;
			prev = last = p->vm_rss_kb;
			if (p->has_oom_score_adj && p->oom_score_adj == 500)
				oom++;
		}
	}
	ck_assert_int_ge(samples, 5);
	/* 10 x 8 MiB over 1.5 s: at least 32 MiB seen growing */
	ck_assert_msg(last >= first + 32 * 1024, "rss %llu -> %llu kB",
	    (unsigned long long)first, (unsigned long long)last);
	ck_assert_int_le(decreasing, 1);
	ck_assert_int_ge(oom, samples - 1);	/* set just after fork */
	ck_assert_int_eq(kthread_stats, 0);	/* no memory: not sampled */
	/* the poll also describes processes it meets for the first time */
	tree_find(&t, child, &f);
	ck_assert_int_eq(f.nproc, 1);
	tt_trace_free(&t);
	tt_config_free(cfg);
	pss_close(&s);
}
END_TEST

/* The service clears incremental state: the tree is written again. */
START_TEST(incremental_clear)
{
	Perfetto__Protos__TraceConfig *cfg;
	Perfetto__Protos__ProcessStatsConfig *pc;
	Perfetto__Protos__TraceConfig__IncrementalStateConfig *ic;
	struct tt_trace t;
	struct found f;
	struct pss s;
	int cleared = 0;

	ck_assert_int_eq(pss_open(&s), 0);
	cfg = pss_config(ps_names);
	pc = ps_config(cfg);
	pc->has_proc_stats_poll_ms = 1;
	pc->proc_stats_poll_ms = 100;
	ic = calloc(1, sizeof(*ic));
	perfetto__protos__trace_config__incremental_state_config__init(ic);
	ic->has_clear_period_ms = 1;
	ic->clear_period_ms = 300;
	cfg->incremental_state_config = ic;
	ck_assert_int_eq(pss_run(&s, cfg, 1200, NULL, NULL, &t), 0);
	for (size_t i = 0; i < t.npackets; i++)
		if (t.trace->packet[i]->incremental_state_cleared)
			cleared++;
	tree_find(&t, getpid(), &f);
	ck_assert_int_ge(cleared, 1);
	ck_assert_int_ge(f.nproc, 2);
	ck_assert_int_le(f.nproc, cleared + 1);
	tt_trace_free(&t);
	tt_config_free(cfg);
	pss_close(&s);
}
END_TEST

/* What the ftrace data source does for the pids of a bundle. */
static void
report_pids(struct pss *s, void *arg)
{
	const int32_t *pids = arg;

	ps_ds_on_pids_seen(pids, 4);
	ps_ds_on_pids_seen(pids, 1);
}

/* proc_stats_cache_ttl_ms: unchanged values are not written again. */
START_TEST(stats_cache)
{
	Perfetto__Protos__TraceConfig *cfg;
	Perfetto__Protos__ProcessStatsConfig *pc;
	struct tt_trace t;
	struct pss s;
	int entries = 0, sizes = 0, ooms = 0, polls = 0;
	pid_t child = spawn_sleeper();

	ck_assert_int_eq(pss_open(&s), 0);
	cfg = pss_config(ps_names);
	pc = ps_config(cfg);
	pc->has_proc_stats_poll_ms = 1;
	pc->proc_stats_poll_ms = 100;
	pc->has_proc_stats_cache_ttl_ms = 1;
	pc->proc_stats_cache_ttl_ms = 60000;
	ck_assert_int_eq(pss_run(&s, cfg, 1000, NULL, NULL, &t), 0);
	for (size_t i = 0; i < t.npackets; i++) {
		const Perfetto__Protos__TracePacket *pk = t.trace->packet[i];

		if (pk->data_case !=
		    PERFETTO__PROTOS__TRACE_PACKET__DATA_PROCESS_STATS)
			continue;
		polls++;
		for (size_t k = 0; k < pk->process_stats->n_processes; k++) {
			const Perfetto__Protos__ProcessStats__Process *p =
			    pk->process_stats->processes[k];

			if (p->pid != child)
				continue;
			entries++;
			sizes += p->has_vm_size_kb;
			ooms += p->has_oom_score_adj;
		}
	}
	/* our own process changes (the session allocates): packets go on */
	ck_assert_int_ge(polls, 5);
	ck_assert_int_eq(sizes, 1);		/* a sleeper's size is fixed */
	ck_assert_int_eq(ooms, 1);
	ck_assert_int_le(entries, 2);
	tt_trace_free(&t);
	tt_config_free(cfg);
	pss_close(&s);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
}
END_TEST

/* _i == 0: on-demand dumps on; _i == 1: the DISABLE_ON_DEMAND quirk. */
START_TEST(on_demand)
{
	Perfetto__Protos__TraceConfig *cfg;
	Perfetto__Protos__ProcessStatsConfig *pc;
	struct tt_trace t;
	struct found f;
	struct pss s;
	pthread_t th;
	volatile pid_t tid = 0;
	pid_t child;
	int32_t pids[4];

	thread_stop = 0;
	ck_assert_int_eq(pthread_create(&th, NULL, named_thread,
	    (void *)&tid), 0);
	while (tid == 0)
		usleep(1000);
	ck_assert_int_eq(pss_open(&s), 0);
	cfg = pss_config(ps_names);
	pc = ps_config(cfg);
	pc->has_record_thread_names = 1;
	pc->record_thread_names = 1;
	if (_i == 1) {
		pc->n_quirks = 1;
		pc->quirks = calloc(1, sizeof(*pc->quirks));
		pc->quirks[0] = PERFETTO__PROTOS__PROCESS_STATS_CONFIG__QUIRKS__DISABLE_ON_DEMAND;
	}
	child = spawn_sleeper();
	pids[0] = child;
	pids[1] = tid;			/* a thread: its process comes too */
	pids[2] = child;		/* again: described once */
	pids[3] = 0;			/* the idle task: never */
	ck_assert_int_eq(pss_run(&s, cfg, 200, report_pids, pids, &t), 0);
	tree_find(&t, child, &f);
	if (_i == 1) {
		ck_assert_int_eq(f.nproc, 0);
		tree_find(&t, getpid(), &f);
		ck_assert_int_eq(f.nproc, 0);
	} else {
		ck_assert_int_eq(f.nproc, 1);
		ck_assert_str_eq(f.proc->cmdline[0], "sleep");
		tree_find(&t, tid, &f);
		ck_assert_int_eq(f.nthread, 1);
		ck_assert_int_eq(f.thread->tgid, getpid());
		ck_assert_str_eq(f.thread->name, "faro-worker");
		tree_find(&t, getpid(), &f);
		ck_assert_int_eq(f.nproc, 1);
		tree_find(&t, 0, &f);
		ck_assert_int_eq(f.nproc + f.nthread, 0);
	}
	tt_trace_free(&t);
	tt_config_free(cfg);
	pss_close(&s);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	thread_stop = 1;
	pthread_join(th, NULL);
}
END_TEST

static Suite *
ps_suite(void)
{
	Suite *s = suite_create("ps");
	TCase *tc = tcase_create("parse");

	tcase_add_test(tc, status_sample);
	tcase_add_test(tc, status_every_prefix);
	tcase_add_test(tc, read_truncated);
	tcase_add_test(tc, status_hostile);
	tcase_add_test(tc, oom_parse);
	tcase_add_test(tc, mountinfo_hidepid);
	tcase_add_test(tc, mountinfo_hostile);
	tcase_add_test(tc, tree_encode);
	tcase_add_test(tc, stats_encode);
	suite_add_tcase(s, tc);
	tc = tcase_create("session");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, tree_has_self);
	tcase_add_test(tc, rss_moves);
	tcase_add_loop_test(tc, on_demand, 0, 2);
	tcase_add_test(tc, incremental_clear);
	tcase_add_test(tc, stats_cache);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(ps_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
