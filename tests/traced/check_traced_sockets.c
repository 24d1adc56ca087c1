/*
 * Where traced listens: path defaults and PERFETTO_*_SOCK_NAME overrides,
 * --set-socket-permissions, systemd socket activation, bad flags.
 */
#include "config.h"

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>

#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>
#include <event2/event.h>

#include "traced.h"
#include "traced_test.h"

START_TEST(test_resolve)
{
	struct traced_sockets	 ts;
	const char		*cause;
	int			 run;

	setenv("PERFETTO_PRODUCER_SOCK_NAME", "/x/p1,/x/p2,,@abs", 1);
	setenv("PERFETTO_CONSUMER_SOCK_NAME", "/x/c", 1);
	ck_assert_int_eq(sockets_resolve(&ts, &cause), 0);
	ck_assert_int_eq(ts.nproducer, 3);
	ck_assert_str_eq(ts.producer[0], "/x/p1");
	ck_assert_str_eq(ts.producer[2], "@abs");
	ck_assert_str_eq(ts.consumer, "/x/c");
	free(ts.producer_list);
	unsetenv("PERFETTO_PRODUCER_SOCK_NAME");
	unsetenv("PERFETTO_CONSUMER_SOCK_NAME");
	ck_assert_int_eq(sockets_resolve(&ts, &cause), 0);
	run = access("/run/perfetto/", X_OK) == 0;
	ck_assert_str_eq(ts.producer[0], run ?
	    "/run/perfetto/traced-producer.sock" : "/tmp/perfetto-producer");
	ck_assert_str_eq(ts.consumer, run ?
	    "/run/perfetto/traced-consumer.sock" : "/tmp/perfetto-consumer");
	free(ts.producer_list);
}
END_TEST

START_TEST(test_parse_permissions)
{
	struct traced_sockets	 ts;
	const char		*cause;

	memset(&ts, 0, sizeof(ts));
	ck_assert_int_eq(sockets_parse_permissions("traced-producer:0660:"
	    "traced-consumer:0640", &ts, &cause), 0);
	ck_assert_str_eq(ts.producer_group, "traced-producer");
	ck_assert_int_eq(ts.producer_mode, 0660);
	ck_assert_str_eq(ts.consumer_group, "traced-consumer");
	ck_assert_int_eq(ts.consumer_mode, 0640);
	ck_assert_int_eq(sockets_parse_permissions("a:0660:b", &ts, &cause),
	    -1);
	ck_assert_int_eq(sockets_parse_permissions("a:0660:b:0660:c", &ts,
	    &cause), -1);
	ck_assert_int_eq(sockets_parse_permissions("a::b:0660", &ts, &cause),
	    -1);
	ck_assert_int_eq(sockets_parse_permissions("a:0999:b:0660", &ts,
	    &cause), -1);
	ck_assert_int_eq(sockets_parse_permissions("a:660x:b:0660", &ts,
	    &cause), -1);
}
END_TEST

START_TEST(test_set_permissions)
{
	struct tt_traced	 td;
	struct stat		 st;
	struct group		*gr = getgrgid(getgid());
	char			 perm[200];
	const char		*args[] = { "--set-socket-permissions", perm,
	    NULL };
	static const char	*bad[] = { "--set-socket-permissions",
	    "root:0600:root", NULL };
	static const char	*nogroup[] = { "--set-socket-permissions",
	    "no-such-group-xyz:0600:root:0600", NULL };

	/* Our own group: works without privilege too. */
	ck_assert_ptr_nonnull(gr);
	snprintf(perm, sizeof(perm), "%s:0600:%s:0640", gr->gr_name,
	    gr->gr_name);
	ck_assert_int_eq(tt_traced_start(&td, args), 0);
	ck_assert_int_eq(stat(td.producer_sock, &st), 0);
	ck_assert(S_ISSOCK(st.st_mode));
	ck_assert_int_eq(st.st_mode & 07777, 0600);
	ck_assert_int_eq(stat(td.consumer_sock, &st), 0);
	ck_assert_int_eq(st.st_mode & 07777, 0640);
	ck_assert_int_eq(st.st_gid, getgid());
	ck_assert_int_eq(tt_traced_stop(&td), 0);
	/* Bad flags: traced refuses to start. */
	ck_assert_int_eq(tt_traced_start(&td, bad), -1);
	tt_traced_stop(&td);
	ck_assert_int_eq(tt_traced_start(&td, nogroup), -1);
	tt_traced_stop(&td);
}
END_TEST

static int
listen_at(const char *path)
{
	struct sockaddr_un	sun;
	int			s;

	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	memcpy(sun.sun_path, path, strlen(path));
	s = socket(AF_UNIX, SOCK_STREAM, 0);
	ck_assert_int_ge(s, 0);
	ck_assert_int_eq(bind(s, (struct sockaddr *)&sun, sizeof(sun)), 0);
	ck_assert_int_eq(listen(s, 16), 0);
	return s;
}

START_TEST(test_socket_activation)
{
	struct event_base	*base = event_base_new();
	struct tt_producer	 p;
	struct tt_consumer	 c;
	char			 dir[] = "/tmp/tt-act.XXXXXX", ps[64], cs[64];
	char			 bin[512], ch;
	const char		*top = getenv("top_builddir");
	struct pollfd		 pfd;
	int			 sp, sc, pipefd[2], status;
	pid_t			 pid;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(ps, sizeof(ps), "%s/p", dir);
	snprintf(cs, sizeof(cs), "%s/c", dir);
	snprintf(bin, sizeof(bin), "%s/daemons/traced/traced",
	    top ? top : ".");
	/* Names swapped on purpose: LISTEN_FDNAMES decides the roles. */
	sc = listen_at(cs);
	sp = listen_at(ps);
	ck_assert_int_eq(pipe(pipefd), 0);
	if ((pid = fork()) == 0) {
		char	buf[32];

		dup2(sc, 3);
		dup2(sp, 4);
		dup2(pipefd[1], 10);
		for (int fd = 5; fd < 64; fd++)
			if (fd != 10)
				close(fd);
		snprintf(buf, sizeof(buf), "%d", (int)getpid());
		setenv("LISTEN_PID", buf, 1);
		setenv("LISTEN_FDS", "2", 1);
		setenv("LISTEN_FDNAMES", "consumer:producer", 1);
		setenv("TRACED_NOTIFY_FD", "10", 1);
		/* Paths that must not be used. */
		setenv("PERFETTO_PRODUCER_SOCK_NAME", "/nonexistent/p", 1);
		setenv("PERFETTO_CONSUMER_SOCK_NAME", "/nonexistent/c", 1);
		execl(bin, bin, (char *)NULL);
		_exit(127);
	}
	close(pipefd[1]);
	close(sp);
	close(sc);
	pfd.fd = pipefd[0];
	pfd.events = POLLIN;
	ck_assert_int_eq(poll(&pfd, 1, 10000), 1);
	ck_assert_int_eq(read(pipefd[0], &ch, 1), 1);
	close(pipefd[0]);
	ck_assert_int_eq(tt_producer_connect(&p, base, ps, "act"), 0);
	ck_assert_int_eq(tt_consumer_connect(&c, base, cs), 0);
	ck_assert_int_eq(tt_consumer_call(&c, CM_CAPABILITIES, NULL, -1, NULL, 0),
	    0);
	tt_consumer_close(&c);
	tt_producer_close(&p);
	kill(pid, SIGTERM);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status));
	ck_assert_int_eq(WEXITSTATUS(status), 0);
	unlink(ps);
	unlink(cs);
	rmdir(dir);
	event_base_free(base);
}
END_TEST

static Suite *
sockets_suite(void)
{
	Suite	*s = suite_create("traced_sockets");
	TCase	*tc = tcase_create("sockets");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_resolve);
	tcase_add_test(tc, test_parse_permissions);
	tcase_add_test(tc, test_set_permissions);
	tcase_add_test(tc, test_socket_activation);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner	*sr = srunner_create(sockets_suite());
	int	 failed;

	signal(SIGPIPE, SIG_IGN);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
