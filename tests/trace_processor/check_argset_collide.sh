#!/bin/sh
# Arg sets with one digest are told apart arg by arg: with the digest cut
# to one bit (FARO_TP_ARGSET_DIGEST_BITS=1) nearly every set collides with
# another, and every args row must stay what it is with the full digest.
set -eu
srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
builddir=${top_builddir:-.}
tp=$builddir/daemons/trace_processor/trace_processor
protoc=${PROTOC:-$(command -v protoc || true)}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
q="SELECT id, arg_set_id, flat_key, key, int_value, string_value,
    real_value, value_type FROM args ORDER BY id"
n=0
for name in argset_dedup te_args json_async_end_args json_sort_index_args; do
	trace=$(ls "$srcdir/tests/trace_processor/diff/$name".* |
	    grep -v '\.sql$\|\.out$' | head -1)
	case $trace in
	*.textproto)
		if [ -z "$protoc" ]; then
			echo "SKIP: $name (no protoc)"
			continue
		fi
		"$protoc" --encode=perfetto.protos.Trace -I"$srcdir" \
		    "$srcdir/protos/perfetto/trace/trace.proto" \
		    < "$trace" > "$tmp/t"
		;;
	*)	cp "$trace" "$tmp/t" ;;
	esac
	"$tp" -Q "$q" "$tmp/t" > "$tmp/full" 2>/dev/null
	FARO_TP_ARGSET_DIGEST_BITS=1 "$tp" -Q "$q" "$tmp/t" > "$tmp/one" \
	    2>/dev/null
	if [ "$(wc -l < "$tmp/full")" -lt 3 ] ||
	    ! cmp -s "$tmp/full" "$tmp/one"; then
		echo "FAIL: $name: args differ when digests collide"
		diff "$tmp/full" "$tmp/one" | head -20
		exit 1
	fi
	echo "PASS: $name ($(($(wc -l < "$tmp/full") - 1)) args)"
	n=$((n + 1))
done
[ "$n" -gt 0 ] || exit 77
