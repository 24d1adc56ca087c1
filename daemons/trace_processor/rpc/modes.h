/*
 * What the trace_processor program runs besides its shell: metrics
 * (--run-metrics), the HTTP RPC daemon (--httpd) and live metrics from a
 * running session (--live). args.c fills a modes_args from the command
 * line and main.c hands over.
 *
 *   trace_processor --run-metrics trace_stats,linux_cpu TRACE
 *   trace_processor --httpd [--http-port 9001] [TRACE]
 *   trace_processor --live[=CONFIG.pbtxt] [--http-port 9001]
 */
#ifndef FARO_TP_MODES_H
#define FARO_TP_MODES_H

#include <stddef.h>

#include "httpd_conn.h"
#include "tp.h"

#define TPRPC_MAX_EXTENSIONS	16
#define TPRPC_DEFAULT_PORT	9001

struct modes_args {
	int		 httpd;			/* --httpd */
	const char	*http_addr;		/* --http-ip-address */
	int		 http_port;		/* --http-port */
	const char	*http_cors_origins;	/* --http-additional-cors-origins
						   a,b: more browser origins */
	const char	*http_hosts;		/* --http-allowed-host a,b */
	struct httpd_limits http_limits;	/* --http-max-connections,
						   --http-*-timeout-ms */
	const char	*run_metrics;		/* --run-metrics a,b */
	const char	*metrics_output;	/* text (default), binary, json */
	const char	*metric_ext[TPRPC_MAX_EXTENSIONS];
	size_t		 nmetric_ext;		/* --metric-extension DIR */
	int		 live;			/* --live */
	const char	*live_config;		/* --live=CONFIG */
	unsigned	 live_period_ms;	/* --live-period-ms */
	unsigned	 live_window_mb;	/* --live-window-mb */
	unsigned	 live_window_s;		/* --live-window-s */
	const char	*trace_name;		/* shown by /status */
	int		 trace_fd;		/* --httpd TRACE, loaded once
						   confined; -1: none */
};

void	modes_args_init(struct modes_args *);
/* 0 or -1 (too many). */
int	modes_args_add_extension(struct modes_args *, const char *dir);

/*
 * Prints the metrics a->run_metrics names, computed on tp (loaded), in
 * a->metrics_output. Returns the process exit status.
 */
int	modes_metrics(struct tp *tp, const struct modes_args *);

/*
 * Runs the daemon a asks for (httpd or live) until SIGINT or SIGTERM:
 * with a->trace_fd, --httpd first loads it (confined) and prints its
 * metrics if a->run_metrics. Returns the process exit status.
 */
int	modes_main(const struct tp_config *, const struct modes_args *);

#endif
