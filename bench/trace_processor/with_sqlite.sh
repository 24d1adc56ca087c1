#!/bin/sh
# Builds our trace_processor against another SQLite, to tell what of a
# query's time is SQLite's own: Debian 12 ships 3.40.1, upstream's shell
# bundles a newer one (v58.2: 3.53). Never used by the build or CI.
#
#   with_sqlite.sh SQLITE_C OUTDIR
#
# SQLITE_C is an amalgamation's sqlite3.c (sqlite3.h beside it), e.g. the
# one in the npm package better-sqlite3 (deps/sqlite3/). It is compiled
# with the options Debian's libsqlite3 was built with (PRAGMA
# compile_options), so only the version differs; faro is configured in
# OUTDIR/build as a release build and linked with it. The binary:
# OUTDIR/build/daemons/trace_processor/trace_processor.
set -eu
[ $# -eq 2 ] || { sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 1; }
src=$(cd "$(dirname "$1")" && pwd)
out=$(mkdir -p "$2" && cd "$2" && pwd)
top=$(cd "$(dirname "$0")/../.." && pwd)
jobs=$(nproc 2>/dev/null || echo 2)

${CC:-gcc} -O2 -g -c "$src/sqlite3.c" -o "$out/sqlite3.o" \
	-DSQLITE_THREADSAFE=1 -DSQLITE_OMIT_LOOKASIDE -DSQLITE_SECURE_DELETE \
	-DSQLITE_TEMP_STORE=1 -DSQLITE_HAVE_ISNAN -DSQLITE_USE_URI \
	-DSQLITE_LIKE_DOESNT_MATCH_BLOBS -DSQLITE_MAX_VARIABLE_NUMBER=250000 \
	-DSQLITE_MAX_COLUMN=2000 -DSQLITE_MAX_SCHEMA_RETRY=25 \
	-DSQLITE_DEFAULT_RECURSIVE_TRIGGERS -DSQLITE_SOUNDEX \
	-DSQLITE_ENABLE_COLUMN_METADATA -DSQLITE_ENABLE_DBSTAT_VTAB \
	-DSQLITE_ENABLE_FTS3 -DSQLITE_ENABLE_FTS3_PARENTHESIS \
	-DSQLITE_ENABLE_FTS3_TOKENIZER \
	-DSQLITE_ENABLE_FTS4 -DSQLITE_ENABLE_FTS5 -DSQLITE_ENABLE_RTREE \
	-DSQLITE_ENABLE_MATH_FUNCTIONS -DSQLITE_ENABLE_STMTVTAB \
	-DSQLITE_ENABLE_UNLOCK_NOTIFY -DSQLITE_ENABLE_UPDATE_DELETE_LIMIT \
	-DSQLITE_ENABLE_PREUPDATE_HOOK -DSQLITE_ENABLE_SESSION
rm -f "$out/libsqlite3.a"
ar rcs "$out/libsqlite3.a" "$out/sqlite3.o"

mkdir -p "$out/build"
cd "$out/build"
"$top/configure" --disable-static-sqlite SQLITE_CFLAGS="-I$src" \
	SQLITE_LIBS="$out/libsqlite3.a -lm" >/dev/null
make -j"$jobs" daemons/trace_processor/trace_processor >/dev/null
./daemons/trace_processor/trace_processor -Q 'select sqlite_version()' \
	"$top/tests/trace_processor/metrics/data/linux.pb" 2>/dev/null
