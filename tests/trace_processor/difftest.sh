#!/bin/sh
# Diff tests for trace_processor: each diff/NAME.sql names its trace on its
# first line ("-- trace: FILE"); the trace (text-format proto, JSON or ftrace
# text) is loaded by the real program, the query runs with -q and the CSV
# must equal diff/NAME.out. Text protos are encoded with protoc against our
# protos/perfetto/trace/trace.proto; without protoc those cases are skipped.
#
#   difftest.sh [NAME...]      (default: every case)
#   UPDATE=1 difftest.sh NAME  rewrite NAME.out from the current output
set -u
srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
builddir=${top_builddir:-.}
tp=$builddir/daemons/trace_processor/trace_processor
dir=$srcdir/tests/trace_processor/diff
protoc=${PROTOC:-$(command -v protoc || true)}
work=$(mktemp -d "${TMPDIR:-/tmp}/tp-difftest.XXXXXX")
trap 'rm -rf "$work"' EXIT

if [ $# -eq 0 ]; then
	set -- $(cd "$dir" && ls *.sql | sed 's/\.sql$//')
fi
pass=0 fail=0 skip=0
for name in "$@"; do
	sql=$dir/$name.sql
	trace=$(sed -n '1s/^-- trace: *//p' "$sql")
	if [ -z "$trace" ]; then
		echo "FAIL: $name: first line must be '-- trace: FILE'"
		fail=$((fail + 1))
		continue
	fi
	case $trace in
	*.textproto)
		if [ -z "$protoc" ]; then
			echo "SKIP: $name (no protoc)"
			skip=$((skip + 1))
			continue
		fi
		in=$work/$name.pb
		if ! "$protoc" --encode=perfetto.protos.Trace -I"$srcdir" \
		    protos/perfetto/trace/trace.proto <"$dir/$trace" >"$in"; then
			echo "FAIL: $name: protoc could not encode $trace"
			fail=$((fail + 1))
			continue
		fi
		;;
	*)
		in=$dir/$trace
		;;
	esac
	if ! "$tp" -q "$sql" "$in" >"$work/$name.csv" 2>"$work/$name.err"; then
		echo "FAIL: $name: trace_processor failed:"
		sed 's/^/    /' "$work/$name.err"
		fail=$((fail + 1))
		continue
	fi
	if [ "${UPDATE:-0}" = 1 ]; then
		cp "$work/$name.csv" "$dir/$name.out"
	fi
	if diff -u "$dir/$name.out" "$work/$name.csv" >"$work/$name.diff"; then
		echo "PASS: $name"
		pass=$((pass + 1))
	else
		echo "FAIL: $name: output differs:"
		sed 's/^/    /' "$work/$name.diff"
		fail=$((fail + 1))
	fi
done
echo "difftest: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
