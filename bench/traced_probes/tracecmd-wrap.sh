#!/bin/sh
# tracecmd-wrap.sh TRACE_CMD ARGS...: runs trace-cmd for bench_ftrace on
# machines (VMs, containers) that lock function tracing: trace-cmd record
# resets the function filters and ftrace_enabled even when it records only
# events, and gives up on EPERM. In a private mount namespace those files
# are replaced by stand-ins; nothing outside this process sees them.
set -e
if [ -z "$FARO_TC_UNSHARED" ]; then
	FARO_TC_UNSHARED=1 exec unshare -m "$0" "$@"
fi
TC=$1; shift
T=/sys/kernel/tracing
D=$(mktemp -d /tmp/faro-tc.XXXXXX)
cat /proc/sys/kernel/ftrace_enabled > $D/ftrace_enabled 2>/dev/null || echo 1 > $D/ftrace_enabled
if ! echo 1 2>/dev/null > /proc/sys/kernel/ftrace_enabled; then
	mount --bind $D/ftrace_enabled /proc/sys/kernel/ftrace_enabled
fi
for f in set_ftrace_filter set_ftrace_notrace set_ftrace_pid set_ftrace_notrace_pid; do
	if [ -e $T/$f ] && ! ( : >> $T/$f ) 2>/dev/null; then
		: > $D/$f
		mount --bind $D/$f $T/$f
	fi
done
exec "$TC" "$@"
