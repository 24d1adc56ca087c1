#!/bin/sh
# systemd-analyze verify accepts every unit, with ExecStart pointing at the
# binaries just built. Any diagnostic fails the test, not only errors.
# Skips (77) when systemd-analyze is not installed.
set -u
command -v systemd-analyze >/dev/null 2>&1 || { echo "SKIP: no systemd-analyze"; exit 77; }
b=${top_builddir:?}
s=${top_srcdir:?}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
for unit in traced traced_probes trace_processor; do
	bin=$(find "$b/daemons" -maxdepth 3 -type f -name "$unit" -perm -u+x | head -n 1)
	[ -n "$bin" ] || { echo "FAIL: $unit binary not built"; exit 1; }
	sed -e "s|@s\{0,1\}bindir@/$unit|$bin|" -e 's|@docdir@|/usr/share/doc/faro|' \
		"$s/systemd/$unit.service.in" > "$dir/$unit.service"
done
cp "$s/systemd/traced-producer.socket" "$s/systemd/traced-consumer.socket" "$dir/"
out=$(cd "$dir" && systemd-analyze verify --man=no ./*.service ./*.socket 2>&1)
rc=$?
if [ "$rc" -ne 0 ] || [ -n "$out" ]; then
	echo "FAIL: systemd-analyze verify (rc $rc):"
	echo "$out"
	exit 1
fi
echo "PASS: units verified"
