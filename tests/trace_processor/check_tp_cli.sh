#!/bin/sh
# trace_processor's command line as upstream's trace_processor_shell spells
# it (issue 19): each subcommand and each group of classic flags, run on a
# real trace; what is not implemented fails with one line naming it.
# The RPC side (-D, server http) is tests/trace_processor/rpc/check_tp_cli.
set -u

builddir=${top_builddir:-.}
srcdir=${top_srcdir:-${srcdir:-.}}
tp=$builddir/daemons/trace_processor/trace_processor
trace=$srcdir/tests/trace_processor/metrics/data/linux.pb
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

# expect NAME WANT_STATUS WANT_STDOUT_FILE -- ARGS...: runs, compares.
expect() {
	name=$1 want_rc=$2 want=$3
	shift 4
	"$tp" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
	rc=$?
	if [ "$rc" != "$want_rc" ]; then
		echo "FAIL $name: exit $rc, want $want_rc"; cat "$tmp/err"
		fail=1
	elif ! cmp -s "$tmp/out" "$want"; then
		echo "FAIL $name: output"; diff "$want" "$tmp/out" | head -20
		fail=1
	else
		echo "ok $name"
	fi
}

# refused NAME PATTERN -- ARGS...: exit 1, one line on stderr with PATTERN.
refused() {
	name=$1 pat=$2
	shift 3
	"$tp" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
	rc=$?
	if [ "$rc" != 1 ] || [ "$(wc -l <"$tmp/err")" != 1 ] ||
	    ! grep -q -e "$pat" "$tmp/err" || [ -s "$tmp/out" ]; then
		echo "FAIL $name: exit $rc, stderr:"; cat "$tmp/err"
		fail=1
	else
		echo "ok $name"
	fi
}

sql='select count(*) as n from sched_slice; select 7 as b'
printf '"n"\n9\n\n"b"\n7\n' >"$tmp/want_q"
printf '%s\n' "$sql" >"$tmp/q.sql"

# query: positional SQL, -f FILE, -f -, stdin; classic -Q, -q.
expect query-positional 0 "$tmp/want_q" -- query "$trace" "$sql"
expect query-file 0 "$tmp/want_q" -- query -f "$tmp/q.sql" "$trace"
expect query-flags-after 0 "$tmp/want_q" -- query "$trace" -f "$tmp/q.sql"
"$tp" query -f - "$trace" <"$tmp/q.sql" >"$tmp/out" 2>/dev/null &&
    cmp -s "$tmp/out" "$tmp/want_q" && echo "ok query-stdin-dash" ||
    { echo "FAIL query-stdin-dash"; fail=1; }
"$tp" query "$trace" <"$tmp/q.sql" >"$tmp/out" 2>/dev/null &&
    cmp -s "$tmp/out" "$tmp/want_q" && echo "ok query-stdin" ||
    { echo "FAIL query-stdin"; fail=1; }
expect classic-Q 0 "$tmp/want_q" -- -Q "$sql" "$trace"
expect classic-q 0 "$tmp/want_q" -- -q "$tmp/q.sql" "$trace"
expect classic-long 0 "$tmp/want_q" -- --query-string "$sql" "$trace"
# Parsing flags change nothing on a well-formed trace.
expect full-sort 0 "$tmp/want_q" -- --full-sort -Q "$sql" "$trace"
expect query-full-sort 0 "$tmp/want_q" -- query --full-sort "$trace" "$sql"
expect sort-window 0 "$tmp/want_q" -- --sort-window 64 -Q "$sql" "$trace"
expect dev-files 0 "$tmp/want_q" -- --dev --allow-sql-file-access \
    -Q "$sql" "$trace"
expect no-ftrace-raw 0 "$tmp/want_q" -- --no-ftrace-raw -Q "$sql" "$trace"
# ... and leaves ftrace_event (and its args) empty, as upstream.
printf '"n"\n0\n' >"$tmp/want_raw"
expect no-ftrace-raw-empty 0 "$tmp/want_raw" -- --no-ftrace-raw \
    -Q 'select count(*) as n from ftrace_event' "$trace"

# interactive: the prompt reads stdin; -i after a query.
printf 'select 5 as five;\n' >"$tmp/i.sql"
"$tp" interactive "$trace" <"$tmp/i.sql" >"$tmp/out" 2>/dev/null &&
    grep -q five "$tmp/out" && grep -q 5 "$tmp/out" &&
    echo "ok interactive" || { echo "FAIL interactive"; fail=1; }
"$tp" -i -Q 'select 6 as six' "$trace" <"$tmp/i.sql" >"$tmp/out" \
    2>/dev/null && grep -q six "$tmp/out" && grep -q five "$tmp/out" &&
    echo "ok classic-i" || { echo "FAIL classic-i"; fail=1; }

# metrics: the subcommand and --run-metrics print the same; -q after it.
want_m=$srcdir/tests/trace_processor/metrics/data/trace_metadata.out
expect metrics 0 "$want_m" -- metrics --run trace_metadata "$trace"
expect run-metrics 0 "$want_m" -- --run-metrics trace_metadata "$trace"
cat "$want_m" "$tmp/want_q" >"$tmp/want_mq"
expect metrics-post-query 0 "$tmp/want_mq" -- metrics --run \
    trace_metadata --post-query "$tmp/q.sql" "$trace"
expect run-metrics-q 0 "$tmp/want_mq" -- --run-metrics trace_metadata \
    -q "$tmp/q.sql" "$trace"
# --pre-metrics output is dropped; what it creates is seen by -q.
printf 'create table t as select 3 as x; select 1 as dropped;\n' \
    >"$tmp/pre.sql"
printf 'select x from t\n' >"$tmp/post.sql"
cat "$want_m" >"$tmp/want_pre"
printf '"x"\n3\n' >>"$tmp/want_pre"
expect pre-metrics 0 "$tmp/want_pre" -- --run-metrics trace_metadata \
    --pre-metrics "$tmp/pre.sql" -q "$tmp/post.sql" "$trace"
expect metrics-pre 0 "$tmp/want_pre" -- metrics --run trace_metadata \
    --pre "$tmp/pre.sql" --post-query "$tmp/post.sql" "$trace"
"$tp" metrics --run trace_metadata --output json "$trace" >"$tmp/out" \
    2>/dev/null && grep -q '"trace_metadata"' "$tmp/out" &&
    echo "ok metrics-json" || { echo "FAIL metrics-json"; fail=1; }
refused metrics-no-run '--run is required' -- metrics "$trace"
refused metrics-output '--metrics-output: yaml' -- --run-metrics \
    trace_metadata --metrics-output yaml "$trace"

# version and help: exit 0 on stdout, as upstream's.
"$tp" -v >"$tmp/out" && grep -q '^Trace Processor RPC API version: 14$' \
    "$tmp/out" && echo "ok version" || { echo "FAIL version"; fail=1; }
"$tp" --version >"$tmp/out" && grep -q 'RPC API version' "$tmp/out" &&
    echo "ok version-long" || { echo "FAIL version-long"; fail=1; }
for h in "" "--help" "help" "help query" "query --help" "--help-classic"
do
	# shellcheck disable=SC2086
	if "$tp" $h >"$tmp/out" 2>&1 && grep -q -i usage "$tmp/out"; then
		echo "ok help '$h'"
	else
		echo "FAIL help '$h'"; fail=1
	fi
done
grep -q -e '-D/--httpd' "$tmp/out" && echo "ok help-classic-lists-D" ||
    { echo "FAIL help-classic-lists-D"; fail=1; }

# PerfettoSQL packages: DIR/a/b.sql is PKG.a.b; PKG is @NAME or DIR's name.
mkdir -p "$tmp/mypkg/sub"
printf 'CREATE PERFETTO FUNCTION pkg_seven() RETURNS LONG AS SELECT 7;\n' \
    >"$tmp/mypkg/sub/mod.sql"
printf '"v"\n7\n' >"$tmp/want_pkg"
expect add-package 0 "$tmp/want_pkg" -- --add-sql-package "$tmp/mypkg" \
    -Q 'INCLUDE PERFETTO MODULE mypkg.sub.mod; SELECT pkg_seven() AS v' \
    "$trace"
expect add-package-named 0 "$tmp/want_pkg" -- query \
    --add-sql-package "$tmp/mypkg@other" "$trace" \
    'INCLUDE PERFETTO MODULE other.sub.mod; SELECT pkg_seven() AS v'
# Overriding a stdlib package replaces its modules; adding one is refused.
mkdir -p "$tmp/time"
printf 'CREATE PERFETTO FUNCTION time_to_s(n LONG) RETURNS LONG AS\n' \
    >"$tmp/time/conversion.sql"
printf 'SELECT 7;\n' >>"$tmp/time/conversion.sql"
expect override-package 0 "$tmp/want_pkg" -- --override-sql-package \
    "$tmp/time" -Q 'INCLUDE PERFETTO MODULE time.conversion;
    SELECT time_to_s(123) AS v' "$trace"
refused add-existing-package "Package 'time' already exists" -- \
    --add-sql-package "$tmp/time" -Q 'select 1' "$trace"
refused add-missing-package '--add-sql-package: /nonexistent' -- \
    --add-sql-package /nonexistent -Q 'select 1' "$trace"

# Trace summaries (summarize, --summary*): each output as upstream's shell
# gives it for the same trace and specs, byte for byte (text and binary);
# no metric unless asked for; -q after --summary runs instead of printing.
sd=$srcdir/tests/trace_processor/summary
st=$sd/slices.json
: >"$tmp/empty"
expect summarize-text 0 "$sd/basic.out" -- summarize --metrics-v2 all \
    "$st" "$sd/basic.textproto"
expect summarize-binary 0 "$sd/basic.out.pb" -- summarize --metrics-v2 ALL \
    --format binary "$st" "$sd/basic.textproto"
expect summarize-no-metrics 0 "$tmp/empty" -- summarize "$st" \
    "$sd/basic.textproto"
expect summarize-metadata 0 "$sd/metrics.out" -- summarize \
    --metrics-v2 all --metadata-query meta "$st" "$sd/metrics.textproto"
expect summary-classic-binary-spec 0 "$sd/select.out.pb" -- --summary \
    --summary-spec "$sd/metrics_spec.pb" --summary-spec \
    "$sd/basic.textproto" --summary-metrics-v2 \
    slice_stats,max_depth,per_name_cnt --summary-format binary "$st"
expect summarize-intersect 0 "$sd/intersect.out" -- summarize \
    --metrics-v2 during_cuj "$st" "$sd/intersect.textproto"
expect summarize-chunks 0 "$sd/intersect.out.pb" -- summarize \
    --metrics-v2 all --format binary "$st" "$sd/intersect.textproto"
printf '"n"\n1\n' >"$tmp/want_post"
printf 'select 1 as n\n' >"$tmp/post.sql"
expect summary-post-query 0 "$tmp/want_post" -- --summary \
    --summary-metrics-v2 all --summary-spec "$sd/basic.textproto" \
    -q "$tmp/post.sql" "$st"
for e in unique field shared; do
	"$tp" summarize --metrics-v2 all "$st" "$sd/err_$e.textproto" \
	    >"$tmp/out" 2>"$tmp/err"
	rc=$?
	sed 's/^trace_processor: //' "$tmp/err" >"$tmp/err2"
	if [ "$rc" = 1 ] && [ ! -s "$tmp/out" ] &&
	    cmp -s "$tmp/err2" "$sd/err_$e.err"; then
		echo "ok summarize-error-$e"
	else
		echo "FAIL summarize-error-$e: exit $rc"
		diff "$sd/err_$e.err" "$tmp/err2" | head; fail=1
	fi
done
refused summary-missing-spec 'Unable to read summary spec file' -- \
    summarize "$st" "$tmp/nosuch.textproto"

# Upstream's flags and commands faro does not implement: one line each.
refused wide '-W/--wide: not supported yet' -- -W "$trace"
refused metatrace '--metatrace: not supported yet' -- -m x "$trace"
refused perf-file '--perf-file: not supported yet' -- -p x -q x "$trace"
refused stdiod '--stdiod: not supported yet' -- --stdiod
refused dev-flag '--dev-flag: not supported yet' -- --dev --dev-flag a=b \
    "$trace"
refused query-wide '--wide: not supported yet' -- query -W "$trace" 'x'
refused summary-format '--summary-format: yaml' -- --summary \
    --summary-format yaml "$trace"
refused convert 'convert: not supported yet' -- convert json "$trace"
refused server-stdio 'server stdio: not supported yet' -- server stdio
refused server-unix-name '--name: not supported yet' -- server --name a unix
refused export-arrow 'export arrow_tar: not supported yet' -- \
    export arrow_tar -o "$tmp/x" "$trace"
# A DISTINCT over more than SQLite's cache (1.2M texts of 80 bytes) spills
# to temporary files: in the sandboxed shell they must be memory
# (storage/tp_tempvfs.c), or opening one kills the process.
printf '"n"\n1200000\n' >"$tmp/want_spill"
expect sort-spills-in-memory 0 "$tmp/want_spill" -- -Q "WITH RECURSIVE \
s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < 1200000) \
SELECT COUNT(DISTINCT printf('%080d', i)) AS n FROM s" "$trace"

# A file of compressed packets: decompressed ahead on a second thread,
# which the sandbox must let the shell start (only threads: clone with
# CLONE_THREAD), with the same rows as the plain file.
# (groups of about 100 bytes: several in this small trace)
python3 "$srcdir/bench/trace_processor/compress_trace.py" deflate "$trace" \
    "$tmp/deflated.pb" 100
all='select count(*) as n, sum(dur) as d from sched_slice; select count(*) as n from ftrace_event; select count(*) as n, sum(value) as v from counter'
"$tp" -Q "$all" "$trace" >"$tmp/want_plain" 2>/dev/null
expect compressed-ahead 0 "$tmp/want_plain" -- --verbose -Q "$all" \
    "$tmp/deflated.pb"
if ! grep -q 'compressed packets: [1-9][0-9]* decompressed ahead, 0 here' \
    "$tmp/err"; then
	echo "FAIL compressed-ahead: not decompressed ahead"; cat "$tmp/err"
	fail=1
fi
# A gzip'd file: inflated on that thread too.
gzip -c "$trace" >"$tmp/trace.gz"
expect gzip-ahead 0 "$tmp/want_plain" -- --verbose -Q "$all" "$tmp/trace.gz"
if ! grep -q "gzip'd file's chunks: 1 decompressed ahead" "$tmp/err"; then
	echo "FAIL gzip-ahead: not inflated ahead"; cat "$tmp/err"
	fail=1
fi

# Records a completed read of the service's buffers releases are parsed
# on another thread while the file is read on, in the sandboxed shell
# too, with the same rows: the trace, then twice two flushes and a read
# (TracePacket.service_event, 69: fields 3 and 4 set); the second read
# releases what came before the first.
python3 - "$trace" "$tmp/reads.pb" <<'EOF'
import sys
ev = lambda f: bytes([0x0a, 5, 0xaa, 0x04, 2, f << 3, 1])
read = ev(3) + ev(3) + ev(4)
open(sys.argv[2], 'wb').write(open(sys.argv[1], 'rb').read() + read * 2)
EOF
expect parse-beside 0 "$tmp/want_plain" -- --verbose -Q "$all" \
    "$tmp/reads.pb"
if ! grep -q 'parse thread: [1-9][0-9]* records parsed beside' "$tmp/err"
then
	echo "FAIL parse-beside: nothing parsed on the thread"; cat "$tmp/err"
	fail=1
fi

refused export-needs-o 'export: -o FILE is required' -- export sqlite \
    "$trace"
refused export-ch-needs-url 'export clickhouse: --url is required' -- \
    export clickhouse "$trace"
refused export-ch-http-only 'https://x: expected http://HOST' -- \
    export clickhouse --url https://x "$trace"
# Port 1 on loopback: nothing listens, the connection is refused at once.
refused export-ch-unreachable '127.0.0.1:1: Connection refused' -- \
    export clickhouse --url http://127.0.0.1:1 "$trace"
refused export-and-q 'Cannot combine -e (export) with -q' -- \
    -e "$tmp/x" -q "$tmp/q.sql" "$trace"
refused metrics-and-summary 'Cannot specify both metrics v1' -- \
    --summary --run-metrics trace_metadata "$trace"
refused unknown '--bogus: unknown flag' -- --bogus "$trace"
refused missing-value '-q: needs a value' -- -q
refused no-trace 'a trace file is needed' -- -Q 'select 1'
refused two-traces 'expected one trace file' -- "$trace" "$trace"
refused query-extra 'at most 2 positional' -- query "$trace" a b
refused bad-port '--http-port: 70000' -- -D --http-port 70000
refused no-trace-file 'nosuch: No such file' -- -Q 'select 1' \
    "$tmp/nosuch"
refused help-unknown "Unknown command 'nosuch'" -- help nosuch

exit $fail
